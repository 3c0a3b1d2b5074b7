"""Every registered plug-in meets its protocol (scikit-learn's ``tests/test_common.py`` idea).

One test per (registry, name), run over whatever the registries hold: the mechanisms, detectors,
engines (backends) and surrogate makers, plus the input formats. A plug-in added to a name table
is checked here without a line of its own; one that does not meet the protocol fails by name.
"""

from __future__ import annotations

import csv
import inspect
import itertools
import json
import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from embedanon import Anonymizer, io
from embedanon.backends import BACKENDS
from embedanon.detectors import DETECTORS, Span
from embedanon.detectors.base import LABELS, Detector, DetectorUnavailable
from embedanon.errors import ConfigError
from embedanon.files import anonymize_files, read_texts
from embedanon.mechanisms import MECHANISMS, ExactLaw, Mechanism
from embedanon.surrogates import NO_NAMES, SurrogateConfig, prf_from_key
from embedanon.surrogates.base import Context, Stream
from embedanon.surrogates.registry import MAKERS
from embedanon.vectors.index import NeighborIndex
from embedanon.vectors.store import CandidatePolicy, EmbeddingStore
from tests.helpers.embeddings import write_glove
from tests.helpers.llm_stub import Reply, StubLLM
from tests.helpers.noise import fast_key, keyed_noise

REGISTRIES = {"mechanism": MECHANISMS, "detector": DETECTORS, "engine": BACKENDS, "surrogate": MAKERS}


def _keyword_only(factory: object, skip: tuple[str, ...] = ()) -> list[str]:
    """Parameters of a factory that are not keyword-only (``self`` and ``skip`` aside)."""
    params = inspect.signature(factory).parameters.values()  # type: ignore[arg-type]
    return [p.name for p in params if p.name not in ("self", *skip)
            and p.kind not in (p.KEYWORD_ONLY, p.VAR_KEYWORD)]


# -- every registry -----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", sorted(REGISTRIES))
def test_every_builtin_is_in_the_name_table_and_resolves(kind: str) -> None:
    registry = REGISTRIES[kind]
    table = registry.builtins()
    assert table, f"the {kind} registry has no name table"
    for name, target in table.items():
        module, _, attribute = target.partition(":")
        assert module.startswith("embedanon."), target
        assert registry.get(name) is not None
        with pytest.raises(ValueError, match="already registered"):
            registry.add(name, registry.get(name))  # a duplicate name is refused


# -- mechanisms ---------------------------------------------------------------------------------------
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
         "kilo", "lima"]


@pytest.fixture(scope="module")
def small_index() -> NeighborIndex:
    vecs = np.random.default_rng(0).normal(size=(len(WORDS), 8)).astype(np.float32)
    return NeighborIndex(EmbeddingStore("tiny", WORDS, vecs), CandidatePolicy(min_length=1), use_disk_cache=False)


def _params(spec_params: tuple[str, ...]) -> dict[str, float | int]:
    given: dict[str, float | int] = {}
    if "epsilon" in spec_params:
        given["epsilon"] = 4.0
    if "k" in spec_params:
        given["k"] = 3
    return given


@pytest.mark.parametrize("name", MECHANISMS.names())
def test_mechanism_meets_its_protocol(name: str, small_index: NeighborIndex) -> None:
    spec = MECHANISMS.get(name)
    assert spec.name == name and spec.summary and "\n" not in spec.summary
    assert _keyword_only(spec.factory) == [], "parameters are keyword-only (index too)"
    assert "Guarantee" in (spec.factory.__doc__ or ""), "the docstring states the guarantee"
    mech = spec.factory(index=small_index, **_params(spec.params))
    assert isinstance(mech, Mechanism) and mech.name == name
    assert isinstance(mech.may_return_input, bool)
    ids = np.tile(np.arange(len(WORDS), dtype=np.int64), 20)
    out = mech.sample(ids, keyed_noise(1, len(ids)))
    assert out.dtype == np.int64 and out.shape == ids.shape
    assert np.isin(out, small_index.candidates).all(), "outputs are candidates"
    again = mech.sample(ids, keyed_noise(1, len(ids)))
    assert np.array_equal(out, again), "a pure function of (ids, noise): no state of its own"
    half = mech.sample(ids[:7], keyed_noise(1, len(ids)).take(np.arange(7)))
    assert np.array_equal(half, out[:7]), "row i of the noise is token i's, whatever the batch"
    if not mech.may_return_input:
        assert not np.any(out == ids)
    if isinstance(mech, ExactLaw):
        law = mech.distribution(3)
        assert law.shape == (small_index.n_candidates,) and law.dtype == np.float64
        assert (law >= 0).all() and math.isclose(law.sum(), 1.0, rel_tol=1e-9)
        if not mech.may_return_input:
            assert law[small_index.candidate_positions(np.array([3]))[0]] == 0.0


@pytest.mark.parametrize("name", [n for n in MECHANISMS.names() if "epsilon" in MECHANISMS.get(n).params])
@pytest.mark.parametrize("bad, error", [(-1.0, ConfigError), (0.0, ConfigError), (math.nan, ConfigError),
                                        (math.inf, ConfigError), (True, TypeError), ("1", TypeError)])
def test_mechanism_refuses_a_bad_epsilon_naming_it(name: str, bad: object, error: type[Exception],
                                                   small_index: NeighborIndex) -> None:
    spec = MECHANISMS.get(name)
    with pytest.raises(error, match="epsilon must be"):
        spec.factory(index=small_index, **{**_params(spec.params), "epsilon": bad})


# -- detectors ----------------------------------------------------------------------------------------
TEXT = "Dr. Jane Okafor (jane.okafor@example.org, 617-555-0134) saw the patient on 3 March 2021."


def _llm_detector(stack: list[StubLLM]) -> Detector:
    stub = StubLLM([Reply(TEXT)])  # the text back without markers: no entities
    stub.__enter__()
    stack.append(stub)
    return DETECTORS.get("llm")(url=stub.url, model="stub")


def _detector(name: str, stack: list[StubLLM]) -> Detector:
    if name == "llm":
        return _llm_detector(stack)
    if name == "presidio":
        pytest.importorskip("presidio_analyzer", reason="optional extra 'presidio' is not installed")
        from embedanon.detectors.presidio import DEFAULT_SPACY_MODEL

        pytest.importorskip(DEFAULT_SPACY_MODEL, reason="the spaCy model of 'presidio' is not installed")
    if name == "transformer":
        pytest.skip("needs a trained model directory (tests/detectors/test_transformer.py trains one)")
    return DETECTORS.get(name)()


def _spans_or_unavailable(detector: Detector, text: str) -> list[Span] | None:
    """The spans of ``text``, or None where the detector is unavailable (allowed by the protocol,
    as a test's stub of a service that fails on some documents is; the message never quotes the
    text)."""
    try:
        return detector.detect(text)
    except DetectorUnavailable:
        return None


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.default_embedding) if n == "model" else n
                                  for n in DETECTORS.names()])  # the model reads the default embedding
def test_detector_meets_its_protocol(name: str) -> None:
    factory = DETECTORS.get(name)
    assert _keyword_only(factory) == [], "options are keyword-only"
    assert getattr(factory, "name", name) == name
    stack: list[StubLLM] = []
    try:
        detector = _detector(name, stack)
        assert isinstance(detector, Detector) and detector.name == name
        spans = _spans_or_unavailable(detector, TEXT)
        assert all(isinstance(s, Span) and s.check(TEXT) is s for s in spans or [])
        assert spans is None or spans == sorted(spans, key=lambda s: (s.start, s.end))
        assert detector.detect("") == []
        assert _spans_or_unavailable(detector, TEXT) == spans, "the same text, the same spans (or unavailable)"
    finally:
        for stub in stack:
            stub.__exit__(None, None, None)


# -- engines ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", BACKENDS.names())
def test_engine_meets_its_protocol(name: str) -> None:
    factory = BACKENDS.get(name)
    assert _keyword_only(factory) == [] and getattr(factory, "name", None) == name
    assert callable(getattr(factory, "map", None))
    if name != "processes":
        pytest.skip(f"the {name} engine's map runs in tests/backends (it needs a cluster)")
    engine = factory()

    def endless() -> Iterator[int]:
        yield from itertools.count()

    assert list(itertools.islice(engine.map(lambda x: -x, endless()), 5)) == [0, -1, -2, -3, -4], \
        "ordered and lazy: an endless input is read as far as needed"


# -- surrogate makers ---------------------------------------------------------------------------------
SAMPLES = {"NAME": "Jane Okafor", "DATE": "3 March 2021", "PHONE": "617-555-0134", "ID": "MRN 4839201",
           "IP": "192.168.10.20", "EMAIL": "jane.okafor@example.org", "URL": "https://www.okafor-clinic.org/team",
           "ADDRESS": "12 Oak Street", "AGE": "54", "LOCATION": "Springfield", "ORGANIZATION": "Mercy General Hospital"}


def _context(seed: int) -> Context:
    prf = prf_from_key(b"conformance %d" % seed)
    record = prf_from_key(b"conformance record %d" % seed)
    return Context(entity=lambda purpose: Stream(prf, purpose), record=lambda purpose: Stream(record, purpose),
                   avoid=NO_NAMES)


def test_every_label_has_one_maker() -> None:
    assert MAKERS.names() == sorted(label.lower() for label in LABELS)


@pytest.mark.parametrize("name", MAKERS.names())
def test_surrogate_maker_meets_its_protocol(name: str) -> None:
    maker = MAKERS.get(name)(SurrogateConfig())
    assert maker.label == name.upper()
    text = SAMPLES[maker.label]
    out = maker.make(text, _context(1))
    assert isinstance(out, str) and out.strip() and out != text
    assert maker.make(text, _context(1)) == out, "a pure function of the keyed draws"
    assert any(maker.make(text, _context(seed)) != out for seed in range(2, 6)), "the key matters"


# -- input formats ------------------------------------------------------------------------------------
RECORDS = ["alpha bravo charlie", "delta echo, foxtrot.", "golf hotel india juliet"]


#: the extension each format is chosen by (``file``: a caption file's, one record per file)
_SUFFIX = {"file": "vtt"}


def _records(fmt: str) -> list[str]:
    return ["\n".join(RECORDS) + "\n"] if fmt == "file" else RECORDS


def _write(path: Path, fmt: str) -> None:
    if fmt in ("txt", "file"):
        path.write_text("".join(r + "\n" for r in RECORDS), encoding="utf-8")
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps({"id": i, "text": r}) + "\n" for i, r in enumerate(RECORDS)),
                        encoding="utf-8")
    elif fmt in ("csv", "tsv"):
        with path.open("w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh, delimiter="\t" if fmt == "tsv" else ",")
            writer.writerow(["id", "text"])
            writer.writerows(enumerate(RECORDS))
    else:
        pa = pytest.importorskip("pyarrow", reason="parquet needs pyarrow")
        pytest.importorskip("pyarrow.parquet").write_table(
            pa.table({"id": list(range(len(RECORDS))), "text": RECORDS}), path)


def _others(path: Path, fmt: str) -> list[object]:
    """What a record holds besides its text (kept as it was)."""
    if fmt == "jsonl":
        return [json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines()]
    if fmt in ("csv", "tsv"):
        return [row["id"] for row in csv.DictReader(path.open(encoding="utf-8", newline=""),
                                                     delimiter="\t" if fmt == "tsv" else ",")]
    if fmt == "parquet":
        return pytest.importorskip("pyarrow.parquet").read_table(path).column("id").to_pylist()
    return []


@pytest.fixture(scope="module")
def tiny_anonymizer(tmp_path_factory: pytest.TempPathFactory) -> Anonymizer:
    glove = write_glove(tmp_path_factory.mktemp("emb") / "tiny.txt", WORDS, dim=8)
    return Anonymizer(embedding=str(glove), k=3, key=fast_key(3), min_length=1)


@pytest.mark.parametrize("fmt", io.FORMATS)
def test_format_reads_and_writes_its_records(fmt: str, tmp_path: Path, tiny_anonymizer: Anonymizer) -> None:
    suffix = _SUFFIX.get(fmt, fmt)
    source, target = tmp_path / f"in.{suffix}", tmp_path / f"out.{suffix}"
    _write(source, fmt)
    assert io.detect_format(str(source)) == fmt
    records = _records(fmt)
    assert read_texts(str(source)) == records
    stats = anonymize_files([str(source)], str(target), tiny_anonymizer)
    assert stats.texts == len(records)
    released = read_texts(str(target))
    assert released == [tiny_anonymizer.anonymize(r) for r in records]
    assert all(a != b for a, b in zip(released, records, strict=True))
    assert _others(target, fmt) == _others(source, fmt)
