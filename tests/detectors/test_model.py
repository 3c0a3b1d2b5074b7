"""The trained ``model`` detector: training learns, a shuffled-label control does not, weights
round-trip, the shipped model runs without torch and finds obvious PII, spans are valid."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import numpy as np
import pytest

from embedanon.detectors.base import LABELS, Span
from embedanon.detectors.bio import _START, _TRANS, CLASSES, best_path, viterbi
from embedanon.detectors.evaluate import read_span_records
from embedanon.detectors.features import OWN_SLOTS, spherical_kmeans, tokenize
from embedanon.detectors.model import ModelDetector
from embedanon.detectors.training import featurize_records, fit, token_labels
from embedanon.detectors.weights import Weights, make_featurizer, shipped_path
from embedanon.errors import ConfigError, InputError
from tests.helpers.detector import PII_TEXT, fast_path_probabilities

pytestmark = pytest.mark.default_embedding

TRAIN_NAMES = [
    "Amina Okafor",
    "Wei Zhang",
    "Carlos Ruiz",
    "Priya Nair",
    "Jonas Berg",
    "Fatima Haddad",
    "Kwame Mensah",
    "Yuki Tanaka",
    "Lucia Rossi",
    "Omar Farouk",
    "Emily Clark",
    "Ivan Petrov",
]
TEST_NAMES = ["Ngozi Adeyemi", "Hiroshi Sato", "Mateo Alvarez", "Anjali Rao", "Sven Lund", "Layla Nasser"]
TEMPLATES = [
    "Please call {} tomorrow about the results.",
    "Thanks, {}! See you at the clinic.",
    "The report was signed by {} this morning.",
    "Name: {}\nReason for visit: cough.",
    "I spoke with {} about the essay.",
    "{}: I think the dose is fine.",
]


def _records(names: list[str], rng: np.random.Generator, n: int) -> list[dict]:
    out = []
    for i in range(n):
        name = names[int(rng.integers(len(names)))]
        tpl = TEMPLATES[int(rng.integers(len(TEMPLATES)))]
        a = tpl.index("{}")
        text = tpl.format(name)
        out.append(
            {"id": str(i), "text": text, "spans": [{"start": a, "end": a + len(name), "label": "NAME"}]}
        )
    return out


def _name_recall(detector: ModelDetector, records: list[dict]) -> tuple[float, float]:
    found = right = total = 0
    for r in records:
        spans = detector.detect(r["text"])
        g = r["spans"][0]
        found += any(s.start < g["end"] and g["start"] < s.end and s.label == "NAME" for s in spans)
        right += sum(s.start < g["end"] and g["start"] < s.end for s in spans)
        total += len(spans)
    return found / len(records), (right / total if total else 0.0)


def _train_tiny(records: list[dict], tmp_path, name: str) -> ModelDetector:
    featurizer = make_featurizer([], 2**14)
    examples = featurize_records(featurizer, records)
    weights = fit(examples, featurizer.dense_table, buckets=2**14, clusters=[], epochs=8, seed=0)
    weights.manifest = {"threshold": 0.5}
    return ModelDetector(path=weights.save(tmp_path / name))


@pytest.fixture(scope="module")
def shipped() -> ModelDetector:
    return ModelDetector()


def test_tiny_training_learns_unseen_names_and_shuffled_labels_do_not(tmp_path):
    rng = np.random.default_rng(7)
    train = _records(TRAIN_NAMES, rng, 240)
    test = _records(TEST_NAMES, rng, 60)
    recall, precision = _name_recall(_train_tiny(train, tmp_path, "real"), test)
    assert recall >= 0.9 and precision >= 0.8
    # Negative control: the same texts with each label moved to a random place of its text.
    shuffled = []
    for r in train:
        toks = tokenize(r["text"])
        k = int(rng.integers(len(toks.words)))
        shuffled.append(
            dict(r, spans=[{"start": int(toks.starts[k]), "end": int(toks.ends[k]), "label": "NAME"}])
        )
    recall_c, precision_c = _name_recall(_train_tiny(shuffled, tmp_path, "shuffled"), test)
    assert recall_c < 0.6 or precision_c < 0.5


def test_word_dropout_removes_only_word_features_of_letter_tokens():
    featurizer = make_featurizer([], 2**14)
    records = _records(TRAIN_NAMES, np.random.default_rng(3), 40)
    plain = featurize_records(featurizer, records)
    dropped = featurize_records(featurizer, records, word_dropout=0.5, seed=1)
    assert np.array_equal(plain.y, dropped.y) and np.array_equal(plain.ids[:, 1:], dropped.ids[:, 1:])
    gone = (plain.ids[:, 0] != dropped.ids[:, 0])
    assert 0.3 < gone.mean() < 0.6 and (dropped.ids[gone, 0] == 0).all()
    words = [w for r in records for w in tokenize(r["text"]).words]
    assert all(words[i][:1].isalpha() for i in np.flatnonzero(gone))
    again = featurize_records(featurizer, records, word_dropout=0.5, seed=1)
    assert np.array_equal(again.ids, dropped.ids)  # seeded
    with pytest.raises(ConfigError):
        featurize_records(featurizer, records, word_dropout=1.0)


def test_spelling_dropout_removes_a_letter_tokens_own_features_and_keeps_shape_and_context():
    featurizer = make_featurizer(spherical_kmeans_clusters(), 2**14)
    records = _records(TRAIN_NAMES, np.random.default_rng(3), 40)
    plain = featurize_records(featurizer, records, word_dropout=0.25, seed=1)
    again = featurize_records(featurizer, records, word_dropout=0.25, spelling_dropout=0.0, seed=1)
    assert np.array_equal(plain.ids, again.ids) and np.array_equal(plain.rows, again.rows)  # p = 0: as before
    dropped = featurize_records(featurizer, records, word_dropout=0.25, spelling_dropout=0.5, seed=1)
    assert np.array_equal(plain.y, dropped.y)
    words = [w for r in records for w in tokenize(r["text"]).words]
    gone = dropped.rows[:, 1] != plain.rows[:, 1]
    assert 0.2 < gone.mean() < 0.6
    assert all(words[i][:1].isalpha() for i in np.flatnonzero(gone))
    for i in np.flatnonzero(gone):
        own = np.flatnonzero(plain.ids[i, :OWN_SLOTS])
        assert dropped.rows[i, 1] == 0 and dropped.ids[i, 0] == 0
        assert (dropped.ids[i, 3 : own[-1] + 1] == 0).all()  # affixes, trigrams, clusters
        assert np.array_equal(dropped.ids[i, 1:3], plain.ids[i, 1:3])  # shape and length stay
    kept = ~gone
    assert np.array_equal(dropped.ids[kept, 1:], plain.ids[kept, 1:])
    # the context block and the neighbors' rows are never touched
    assert np.array_equal(dropped.ids[:, OWN_SLOTS:], plain.ids[:, OWN_SLOTS:])
    assert np.array_equal(dropped.rows[:, [0, 2]], plain.rows[:, [0, 2]])
    with pytest.raises(ConfigError):
        featurize_records(featurizer, records, spelling_dropout=1.0)


def test_keep_words_never_lose_their_id_and_leave_the_other_draws_alone():
    featurizer = make_featurizer([], 2**14)
    records = _records(TRAIN_NAMES, np.random.default_rng(3), 40)
    plain = featurize_records(featurizer, records, word_dropout=0.5, seed=1)
    kept = featurize_records(featurizer, records, word_dropout=0.5, keep_words={"the", "thanks"}, seed=1)
    words = [w.lower() for r in records for w in tokenize(r["text"]).words]
    protected = np.array([w in {"the", "thanks"} for w in words])
    assert protected.any() and (plain.ids[protected, 0] == 0).any()  # dropout did hit them without the set
    assert (kept.ids[protected, 0] != 0).all()
    assert np.array_equal(kept.ids[~protected], plain.ids[~protected])  # the same draws elsewhere


def spherical_kmeans_clusters() -> list[np.ndarray]:
    """Two small cluster levels over random unit vectors of the embedding's width (cluster ids appear)."""
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(200, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return [spherical_kmeans(vecs, 8, seed=1), spherical_kmeans(vecs, 16, seed=2)]


def test_weights_round_trip(tmp_path):
    rng = np.random.default_rng(3)
    c = len(CLASSES)
    weights = Weights(
        rng.normal(size=(1024, c)).astype(np.float32),
        rng.normal(size=(3 * 4, c)).astype(np.float32),
        rng.normal(size=c).astype(np.float32),
        [spherical_kmeans(rng.normal(size=(50, 4)).astype(np.float32) / 2, 5, seed=1)],
        {"threshold": 0.3},
    )
    loaded = Weights.load(weights.save(tmp_path / "w"))
    np.testing.assert_array_equal(loaded.sparse, weights.sparse.astype(np.float16).astype(np.float32))
    np.testing.assert_array_equal(loaded.dense, weights.dense.astype(np.float16).astype(np.float32))
    np.testing.assert_array_equal(loaded.bias, weights.bias)
    np.testing.assert_array_equal(
        loaded.clusters[0], weights.clusters[0].astype(np.float16).astype(np.float32)
    )
    assert loaded.manifest["threshold"] == 0.3 and loaded.manifest["classes"] == list(CLASSES)
    again = Weights.load(loaded.save(tmp_path / "w2"))
    np.testing.assert_array_equal(again.sparse, loaded.sparse)


def test_load_refuses_missing_or_foreign_weights(tmp_path):
    with pytest.raises(ConfigError, match="no weights.npz"):
        Weights.load(tmp_path)
    (tmp_path / "weights.npz").write_bytes(b"")
    (tmp_path / "manifest.json").write_text(json.dumps({"classes": ["O", "B-X"]}))
    with pytest.raises(ConfigError, match="other labels"):
        Weights.load(tmp_path)


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, True, "0.5"])
def test_threshold_validated(bad):
    with pytest.raises(ConfigError, match="threshold"):
        ModelDetector(threshold=bad)


@pytest.mark.parametrize("bad", [0, 1, 1.5, True, "0.05"])
def test_lower_threshold_validated(bad):
    with pytest.raises(ConfigError, match="lower_threshold"):
        ModelDetector(lower_threshold=bad)


def test_lower_threshold_applies_only_to_text_without_upper_case(tmp_path):
    shipped = ModelDetector()
    assert shipped.lower_threshold == shipped.threshold  # the shipped manifest has no lower_threshold
    lower = "ask kwame mensah and thandiwe dube about the visit."
    mixed = "Ask kwame mensah and thandiwe dube about the visit."
    near = ModelDetector(threshold=0.999, lower_threshold=1e-6)  # everything scored as an entity
    far = ModelDetector(threshold=0.999)  # the same strict threshold for both cases
    assert len(near.detect(lower)) > len(far.detect(lower))  # only the caseless text is affected
    assert near.detect(mixed) == far.detect(mixed)
    # the manifest value is the default only when the threshold is the manifest's too
    src = shipped_path()
    (tmp_path / "weights.npz").write_bytes((src / "weights.npz").read_bytes())
    manifest = json.loads((src / "manifest.json").read_text(encoding="utf-8"))
    (tmp_path / "manifest.json").write_text(json.dumps({**manifest, "lower_threshold": 0.05}))
    assert ModelDetector(path=tmp_path).lower_threshold == 0.05
    assert ModelDetector(path=tmp_path, threshold=0.3).lower_threshold == 0.3
    assert ModelDetector(path=tmp_path, threshold=0.3, lower_threshold=0.2).lower_threshold == 0.2


def test_shipped_model_loads_without_torch_and_finds_obvious_pii():
    code = """
import sys
sys.modules["torch"] = None  # any attempt to import torch now raises ImportError
from embedanon.detectors.model import ModelDetector
d = ModelDetector()
text = "Please contact John Smith at john.smith@example.com or (555) 123-4567 before 03/14/2022."
found = {(text[s.start:s.end], s.label) for s in d.detect(text)}
assert ("John Smith", "NAME") in found, found
assert ("john.smith@example.com", "EMAIL") in found, found
assert any(label == "PHONE" and "555" in piece for piece, label in found), found
assert any(label == "DATE" and "2022" in piece for piece, label in found), found
print("ok", "torch" in sys.modules and sys.modules["torch"] is not None)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["ok", "False"]


FIXTURES = [
    ("Dr. Okonkwo saw the patient today.", "Okonkwo", "NAME"),
    ("Thanks, Mei-Ling! I will send the essay tonight.", "Mei-Ling", "NAME"),
    ("Name: Rafael Domínguez\nGrade 9", "Rafael Domínguez", "NAME"),
    ("Her MRN: 48291735 was added to the chart.", "48291735", "ID"),
    (
        "Visit https://www.example.org/profile/jdoe for details.",
        "https://www.example.org/profile/jdoe",
        "URL",
    ),
    ("The patient is a 67-year-old man with chest pain.", "67", "AGE"),
]


@pytest.mark.parametrize(("text", "piece", "label"), FIXTURES)
def test_shipped_model_finds_fixture_pii(shipped, text, piece, label):
    a = text.index(piece)
    spans = shipped.detect(text)
    assert any(s.start < a + len(piece) and a < s.end and s.label == label for s in spans), spans


#: well-known eponyms, each in four sentences: a regression guard on the flag rate (one fixed
#: phrase is not one: round 3 flagged 19 % of these 160 sentences, round 8 18 %, with different phrases)
EPONYMS = (
    "Parkinson's disease", "Newton's method", "Alzheimer's disease", "Hodgkin's lymphoma", "Crohn's disease",
    "Bell's palsy", "Down syndrome", "Tourette syndrome", "Asperger's syndrome", "Huntington's disease",
    "the Heimlich maneuver", "Gram stain", "Apgar score", "Glasgow coma scale", "Cushing's syndrome",
    "Addison's disease", "Graves' disease", "Hashimoto's thyroiditis", "Raynaud's phenomenon",
    "Kaposi's sarcoma", "Ohm's law", "Pythagoras' theorem", "Bayes' theorem", "Fourier transform",
    "Euler's formula", "Murphy's sign", "Babinski sign", "Lou Gehrig's disease", "Wilson's disease",
    "Meniere's disease", "Guillain-Barre syndrome", "Bernoulli's principle", "Hooke's law", "Boyle's law",
    "Occam's razor", "Newton's laws", "Pavlov's dog", "Freud's theory", "Darwin's theory",
    "Einstein's relativity",
)
EPONYM_SENTENCES = ("We discussed {} in class today.", "The patient has a history of {} and takes medication daily.",
                    "He used {} to solve the problem.", "She read about {} last week.")


def test_shipped_model_leaves_plain_text_and_most_eponyms_alone(shipped):
    for text in ["The patient has a history of Parkinson's disease and takes metformin daily.",
                 "the weather was cold and wet all week.", "The results were compared to a control group."]:
        assert not [s for s in shipped.detect(text) if s.label == "NAME"], text
    texts = [t.format(e) for e in EPONYMS for t in EPONYM_SENTENCES]
    flagged = sum(any(s.label == "NAME" for s in shipped.detect(t)) for t in texts)
    assert flagged / len(texts) <= 0.25  # the README states the measured rate; this guards a regression
    # negative control: the same sentences with a person's name in the eponym's place are found
    people = [t.format(n) for n in ("Amina Okafor", "Wei Zhang", "Carlos Ruiz") for t in EPONYM_SENTENCES]
    assert all(any(s.label == "NAME" for s in shipped.detect(t)) for t in people)


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "\n\n",
        "!!!",
        "名前は田中です。",
        "a" * 3000,
        "x@y\u200b.z 12-12",
        "JOHN SMITH CALLED 555-0101",
        "émile zola, né le 2 avril 1840",
    ],
)
def test_spans_valid(shipped, text):
    spans = shipped.detect(text)
    assert all(isinstance(s, Span) and s.label in LABELS and s.source == "model" for s in spans)
    for s in spans:
        s.check(text)
        assert text[s.start : s.end].strip() == text[s.start : s.end]
    assert spans == sorted(spans, key=lambda s: (s.start, s.end))
    assert all(a.end <= b.start for a, b in itertools.pairwise(spans))


def test_detect_rejects_non_text(shipped):
    with pytest.raises(InputError):
        shipped.detect(b"bytes")  # type: ignore[arg-type]


def test_viterbi_matches_brute_force():
    rng = np.random.default_rng(5)
    c = len(CLASSES)
    for _ in range(5):
        logp = np.log(rng.dirichlet(np.ones(c) * 0.3, size=3))
        best, best_path = -np.inf, None
        for path in itertools.product(range(c), repeat=3):
            score = (
                _START[path[0]]
                + logp[0, path[0]]
                + sum(_TRANS[path[t - 1], path[t]] + logp[t, path[t]] for t in range(1, 3))
            )
            if score > best:
                best, best_path = score, path
        assert tuple(viterbi(logp)) == best_path


def test_fast_probabilities_match_reference(shipped):
    fast_path_probabilities(shipped)


def test_token_labels_bio():
    text = "Call Ana Lima now"
    toks = tokenize(text)
    y = token_labels(toks.starts, toks.ends, [{"start": 5, "end": 13, "label": "NAME"}])
    assert [CLASSES[k] for k in y] == ["O", "B-NAME", "I-NAME", "O"]


def test_read_span_records_errors_name_the_line(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"text": "Ana", "spans": [{"start": 0, "end": 3, "label": "NAME"}]}\n{not json}\n')
    with pytest.raises(InputError, match="line 2 is not valid JSON"):
        read_span_records(path)
    path.write_text('{"text": "secret Ana", "spans": [{"start": 0, "end": 30, "label": "NAME"}]}\n')
    with pytest.raises(InputError, match=r"line 1: span 0 \[0, 30\) is not inside the text") as info:
        read_span_records(path)
    assert "secret" not in str(info.value)
    path.write_text('{"text": "Ana", "spans": [{"start": 0, "end": 3, "label": "PERSON"}]}\n')
    with pytest.raises(InputError, match="line 1: span 0 label must be one of"):
        read_span_records(path)


def test_shipped_manifest_records_data_and_held_out_sets():
    manifest = json.loads((shipped_path() / "manifest.json").read_text())
    assert manifest["classes"] == list(CLASSES)
    assert manifest["train"]["docs"] > 1000 and manifest["held_out"]
    assert 0 < manifest["threshold"] < 1


def test_read_span_records_keeps_unicode_line_separators_inside_strings(tmp_path):
    text = "Ana\u2028Lima\x85ok"
    path = tmp_path / "s.jsonl"
    record = {"id": "1", "text": text, "spans": [{"start": 0, "end": 3, "label": "NAME"}]}
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    assert read_span_records(path)[0]["text"] == text


def _write_records(path, n: int = 6) -> None:
    rng = np.random.default_rng(11)
    with open(path, "w", encoding="utf-8") as f:
        for r in _records(TRAIN_NAMES, rng, n):
            f.write(json.dumps(r) + "\n")


def test_cli_detector_train_adapts_the_shipped_model_and_info_reads_it(tmp_path):
    from typer.testing import CliRunner

    from embedanon.cli import app

    data, out = tmp_path / "spans.jsonl", tmp_path / "adapted"
    _write_records(data)
    result = CliRunner().invoke(
        app, ["detector", "train", "--data", str(data), "-o", str(out), "--epochs", "2"]
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert (
        manifest["base"] == "model"
        and manifest["train"]["docs"] == 6
        and manifest["train"]["data"] == "spans.jsonl"
    )
    from embedanon.detectors.weights import FEATURE_FLAGS

    shipped = ModelDetector(path=shipped_path()).weights.manifest
    assert {k: manifest[k] for k in FEATURE_FLAGS} == {k: bool(shipped.get(k)) for k in FEATURE_FLAGS}
    adapted = ModelDetector(path=out)
    text = "Thanks, Amina Okafor! See you at the clinic."
    assert any(text[s.start : s.end] == "Amina Okafor" for s in adapted.detect(text))
    info = CliRunner().invoke(app, ["detector", "info", str(out)])
    assert info.exit_code == 0 and json.loads(info.output)["base"] == "model"


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        ('{"text": "Ana", "spans": []}\n{oops\n', [], "line 2 is not valid JSON"),
        ('{"text": "Ana", "spans": []}\n', ["--base", "/no/such/dir"], "base must be"),
        ('{"text": "Ana", "spans": []}\n', ["--epochs", "0"], "epochs must be >= 1"),
        ('{"text": "Ana", "spans": []}\n', ["--seed", "-1"], "seed must be a non-negative integer, got -1"),
        ('{"text": "Ana", "spans": []}\n', ["--seed", "-1", "--backend", "transformer"],
         "seed must be a non-negative integer"),
        ('{"text": "Ana", "spans": [], "spans": [{"start": 0, "end": 3, "label": "NAME"}]}\n', [],
         "line 1 has a JSON object with a repeated key"),
        ("", [], "no records"),
    ],
)
def test_cli_detector_train_bad_input_exits_2(tmp_path, content, args, message):
    from typer.testing import CliRunner

    from embedanon.cli import app

    data = tmp_path / "spans.jsonl"
    data.write_text(content)
    result = CliRunner().invoke(
        app, ["detector", "train", "--data", str(data), "-o", str(tmp_path / "o"), *args]
    )
    assert result.exit_code == 2 and message in result.output
    assert not (tmp_path / "o").exists()


def test_registry_builds_model_with_path_option(tmp_path):
    from embedanon.detectors.registry import build_detectors

    union = build_detectors("model", model_path=str(shipped_path()), model_threshold=0.5)
    text = "Please call Wei Zhang tomorrow about the results."
    assert any(text[s.start : s.end] == "Wei Zhang" for s in union.detect(text))


def test_best_path_agrees_with_viterbi():
    rng = np.random.default_rng(8)
    c = len(CLASSES)
    invalid_argmax = 0
    for _ in range(300):
        logp = np.log(rng.dirichlet(np.ones(c) * 0.2, size=int(rng.integers(1, 12))))
        logp[:, 0] += rng.normal() * 2  # sometimes mostly O, sometimes mostly entities
        arg = np.argmax(logp, axis=1)
        score = lambda p: _START[p[0]] + sum(_TRANS[p[t - 1], p[t]] for t in range(1, len(p)))  # noqa: E731
        invalid_argmax += not np.isfinite(score(arg))
        np.testing.assert_array_equal(best_path(logp), viterbi(logp))
    assert invalid_argmax > 30  # the slow branch is exercised too


def _made_up_texts(rng: np.random.Generator, n: int, words: int) -> list[str]:
    """Texts with made-up capitalized words (outside the embedding: composed dense rows)."""
    letters = np.array(list("abcdefghijklmnoprstuvwyz"))

    def word() -> str:
        return "".join(rng.choice(letters, size=int(rng.integers(5, 9)))).capitalize()

    return [" ".join(f"Thanks {word()} {word()}, see you at {word()} on Monday." for _ in range(words))
            for _ in range(n)]


def test_a_texts_output_does_not_depend_on_what_the_detector_saw_before():
    """Probabilities (bit for bit) and spans of a text are the same in a fresh detector and in one
    that has featurized other texts first: composed rows projected one way whatever the batch,
    and a full cache emptied, never left to give new words the zero row."""
    rng = np.random.default_rng(11)
    targets = _made_up_texts(rng, 4, 2)  # a few made-up words each (under 64 new rows)
    others = _made_up_texts(rng, 30, 12)
    for limit in (None, 40):  # None: the shipped limit, never reached here; 40: emptied often
        seasoned = ModelDetector()
        if limit is not None:
            seasoned.featurizer._limit = limit
        for text in others:
            seasoned.detect(text)
        if limit is not None:
            assert seasoned.featurizer.generation > 3
        for text in targets:
            fresh = ModelDetector()  # this text is the first it sees
            assert np.array_equal(fresh.probabilities(text)[2], seasoned.probabilities(text)[2])
            assert fresh.detect(text) == seasoned.detect(text)


def test_featurize_gathers_each_words_facts_as_computed_word_by_word():
    """The per-word facts table (a text's own ids and dense rows are one gather) holds what
    ``word_facts`` computes for each word at its first sight (the plain reference), words seen
    twice and a table grown past its first 1,024 rows included."""
    rng = np.random.default_rng(5)
    text = " ".join(_made_up_texts(rng, 60, 12)) + " the The THE 1234 , ."
    toks = tokenize(text)
    assert len(set(toks.words)) > 1024
    ids, dense = make_featurizer([], 2**14).featurize(text, toks)
    reference = make_featurizer([], 2**14)
    first: dict[str, tuple[int, ...]] = {}
    for word in toks.words:
        if word not in first:
            first[word] = reference.word_facts(word)
    own = reference.own_slots
    assert np.array_equal(ids[:, :own], np.array([first[w][:own] for w in toks.words]))
    assert np.array_equal(dense[:, 1], np.array([first[w][own + 3] for w in toks.words]))


def test_sparse_logits_from_word_sums_equal_the_plain_sum_bit_for_bit():
    """The model's sparse logits from per-word sums of own rows equal ``sparse_sum`` over all ids
    (the plain reference), bit for bit: before and after the caches are emptied, for words seen
    before and new ones, and for a text longer than one block."""
    from embedanon.detectors.weights import _SUM_BLOCK, sparse_sum

    rng = np.random.default_rng(8)
    detector = ModelDetector()
    detector.featurizer._limit = 40
    texts = _made_up_texts(rng, 12, 6) + [PII_TEXT, "", "Amina Okafor"]
    texts.append(" ".join(_made_up_texts(rng, 1, 2 * _SUM_BLOCK // 20)))
    for text in texts + texts:
        ids, _, word_rows = detector.featurizer.featurize_words(text, tokenize(text))
        fast = detector._sparse_logits(ids, word_rows)
        assert fast.dtype == np.float32 and np.array_equal(fast, sparse_sum(detector.weights.sparse, ids))
    assert detector.featurizer.generation > 3 and len(tokenize(texts[-1]).words) > _SUM_BLOCK


def test_training_featurizer_must_not_empty_its_cache():
    featurizer = make_featurizer([], 2**14, cache_limit=5)
    records = _records(TRAIN_NAMES, np.random.default_rng(3), 20)
    with pytest.raises(ConfigError, match="cache_limit=None"):
        featurize_records(featurizer, records)
    assert len(featurize_records(make_featurizer([], 2**14), records).y) > 0  # the default: no limit


def test_sparse_sum_in_blocks_equals_one_gather():
    """A long text's sparse logits are summed in blocks (bounded memory), bit for bit the same."""
    from embedanon.detectors import weights as W

    rng = np.random.default_rng(2)
    table = rng.normal(size=(4096, len(CLASSES))).astype(np.float32)
    ids = rng.integers(0, 4096, size=(3 * W._SUM_BLOCK + 17, 48))
    whole = np.take(table, ids.ravel(), axis=0).reshape(len(ids), 48, -1).sum(axis=1)
    assert np.array_equal(W.sparse_sum(table, ids), whole)
    assert np.array_equal(W.sparse_sum(table, ids[:5]), whole[:5])


def test_help_names_the_detector_options_that_exist():
    from typer.testing import CliRunner

    from embedanon.cli import app

    runner = CliRunner()
    train = " ".join(runner.invoke(app, ["detector", "train", "--help"], terminal_width=200).output.split())
    assert "model_path=DIR" in train and "transformer_path=DIR" in train and " path=DIR" not in train
    assert "embedanon[train]" in train  # rich markup used to drop "[train]"
    for command, listed in ((["evaluate-detection", "--help"], "presidio, model, transformer)"),
                            (["anonymize", "--help"], "presidio, transformer (default")):
        assert listed in " ".join(runner.invoke(app, command, terminal_width=200).output.replace("│", " ").split())
