"""Run an experiment: for each dataset x mechanism x value x seed, anonymize, train, measure.

A *cell* is one (dataset, mechanism entry, value, seed, classifier) combination; its key is a
hash of everything that determines its numbers (:func:`~.config.cell_key`). Each finished cell
is written at once, atomically, to ``<output>/cells/<key>.json``, and ``results.csv`` is rebuilt
from the cells of the current configuration after every cell, so an interrupted run resumes
without redoing finished cells and never leaves a half-written file.

Per dataset and seed, the ``mechanism = none`` cells train and test on the original text (one
row per setting, both equal). Per mechanism cell:

* the corpus is anonymized once with ``Anonymizer(seed=seed, ...)`` (one anonymizer per
  mechanism, value and seed), levers applied (:mod:`.levers`);
* ``perturbed-both``: train and test on the release; ``perturbed-train``: train on the release,
  test on the original (same stratified folds as the original run);
* privacy: change rate, out-of-vocabulary share and repeat linkability from the items of the
  whole corpus; N_w and S_w over the first ``stats_words`` word types of the attacked documents;
  the attacks of :func:`embedanon.privacy.attacks.run_attacks` (public-prior, uniform-prior,
  out-of-vocabulary, and optionally contextual) on ``attack_docs`` documents (a stratified
  sample). Mechanisms without an exact law (``laplace``, ``mahalanobis``) have no attack figure;
  those whose law covers every candidate are attacked when they evaluate it in batches
  (``exponential``, ``tem``: :class:`~embedanon.mechanisms.base.BatchLaw`, about a minute per
  cell of 10 documents), others only with ``privacy.attack_dense``;
* canaries: a copy of each attacked document with injected synthetic names is anonymized the
  same way and ``canary_leak`` is the share of the name parts found verbatim in its release
  (:mod:`.canaries`; the classifier never sees the copies).

A cell written by an earlier version of this module lacks the canary (and, for ``exponential``
and ``tem``, the attack) columns; a run adds them without redoing the cell's utility
(:func:`upgrade_figures`).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import stat
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from .._atomic import atomic_write, writable_directory
from ..errors import ConfigError, EmbedanonError
from ..utility.classify import evaluate_utility
from ..utility.datasets import Dataset, check_folds, load_dataset, stratified_sample
from ..vectors.defaults import source_stamp
from .canaries import inject_canaries, leaked_parts
from .config import DatasetSpec, ExperimentConfig, MechanismSpec, cell_key
from .levers import Released, apply_levers, keep_list, word_counts
from .results import COLUMNS, write_markdown, write_reports

#: Bumped when the meaning of a cell's numbers changes (invalidates every finished cell).
SCHEMA_VERSION = 1
SETTINGS = {"perturbed-both": "anonymized -> anonymized", "perturbed-train": "anonymized -> original"}
_CHUNK = 64
Progress = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


def load_spec(spec: DatasetSpec, where: str, per_class: int = 0) -> Dataset:
    """The dataset of ``spec``; a limited sample keeps ``per_class`` documents of every class."""
    return load_dataset(
        spec.loader,
        spec.path,
        name=spec.name,
        limit=spec.limit,
        seed=spec.seed,
        part=spec.part,
        where=where,
        per_class=per_class,
        **dict(spec.options),
    )


# ------------------------------------------------------------------------------------------------
# Anonymization of one corpus
# ------------------------------------------------------------------------------------------------
def _documents(chunk: tuple[Sequence[str], Any, Any]) -> list[Any]:
    from ..pipeline import anonymize_documents

    texts, config, key = chunk
    return anonymize_documents(list(texts), config, key)


def allowlist_path(spec: Any, output: Path) -> str | None:
    """A path for ``Anonymizer(allowlist=...)``: the path given, or the public top-N list written
    under ``<output>/allowlists/`` (public data only)."""
    if spec is None or isinstance(spec, str):
        return spec
    opts = dict(spec)
    from ..lexicon import word_frequencies

    freqs = word_frequencies()
    top = sorted(freqs, key=lambda w: (-freqs[w], w))[: int(opts["top"])]
    path = output / "allowlists" / f"public-top-{opts['top']}.txt"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(path, private=False) as fh:
            fh.write("".join(f"{w}\n" for w in top))
    return str(path)


def make_anonymizer(
    mech: MechanismSpec, value: float | int, seed: int, *, embedding: str, output: Path
) -> Any:
    """The :class:`~embedanon.Anonymizer` of one cell (``mech.embedding`` overrides ``embedding``)."""
    from .. import Anonymizer

    params = {**dict(mech.fixed), mech.param: value}
    return Anonymizer(
        mech.embedding or embedding,
        mech.name,
        seed=seed,
        min_length=mech.min_length,
        allowlist=allowlist_path(mech.allowlist, output),
        index=mech.index,
        **params,
    )


def release_texts(
    texts: Sequence[str], anon: Any, mech: MechanismSpec, seed: int, *, jobs: int = 1, stream: int = 0
) -> list[Released]:
    """Anonymize ``texts`` with ``anon`` and apply ``mech``'s levers (``stream`` separates the
    levers' randomness of different text sets of one cell)."""
    chunks = [(tuple(texts[i : i + _CHUNK]), anon.config, anon.key) for i in range(0, len(texts), _CHUNK)]
    if jobs > 1 and len(chunks) > 1:
        with ProcessPoolExecutor(jobs) as pool:
            docs = [d for part in pool.map(_documents, chunks) for d in part]
    else:
        docs = [d for chunk in chunks for d in _documents(chunk)]
    store = anon.runtime.store
    candidates = anon.runtime.index.candidates
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x0F0F] + ([stream] if stream else [])))
    keep = keep_list(mech.keep)
    return [
        apply_levers(t, d, store, oov=mech.oov, consistent=mech.consistent, candidates=candidates, rng=rng,
                     keep=keep)
        for t, d in zip(texts, docs, strict=True)
    ]


def anonymize_corpus(
    texts: Sequence[str],
    mech: MechanismSpec,
    value: float | int,
    seed: int,
    *,
    embedding: str,
    output: Path,
    jobs: int = 1,
) -> tuple[list[Released], Any]:
    """Anonymize ``texts`` with one mechanism value and seed, levers applied.

    Returns:
        The released records and the :class:`~embedanon.Anonymizer` used.
    """
    anon = make_anonymizer(mech, value, seed, embedding=embedding, output=output)
    return release_texts(texts, anon, mech, seed, jobs=jobs), anon


def canary_figures(
    texts: Sequence[str], attack_docs: Sequence[int], anon: Any, mech: MechanismSpec, seed: int
) -> dict[str, float]:
    """``canary_leak``: the share of canary name parts injected into copies of the attacked
    documents that occur verbatim in those copies' releases (:mod:`.canaries`); counts only."""
    if not attack_docs:
        return {"canary_leak": math.nan, "canary_parts": 0}
    injected = [inject_canaries(texts[i], seed=seed, index=int(i)) for i in attack_docs]
    released = release_texts([c.text for c in injected], anon, mech, seed, stream=0xCA7A)
    parts = sum(len(c.parts) for c in injected)
    leaked = sum(leaked_parts(r.text, c.parts) for r, c in zip(released, injected, strict=True))
    return {"canary_leak": leaked / parts, "canary_parts": parts}


# ------------------------------------------------------------------------------------------------
# Privacy figures of one release
# ------------------------------------------------------------------------------------------------
def privacy_figures(
    originals: Sequence[str],
    released: Sequence[Released],
    anon: Any,
    *,
    attack_docs: Sequence[int],
    draws: int,
    stats_words: int,
    contextual: bool,
    seed: int,
    attack_dense: bool = False,
) -> dict[str, float]:
    """Counts and rates of one release (see the module docstring); never text."""
    from ..mechanisms.base import first_occurrence_unique
    from ..privacy.attacks import run_attacks
    from ..privacy.metrics import word_statistics

    counts = word_counts(released)
    out: dict[str, float] = {
        "change_rate": counts.change_rate,
        "oov_rate": counts.oov / counts.words if counts.words else math.nan,
        "repeat_link": counts.repeat_link,
    }
    store = anon.runtime.store
    # words the keep lever released as they are: blanked on both sides for the attack, counted as
    # recovered in the overall figure (an attacker who knows the tool knows the list)
    pairs = [released[i].attack_pair or (originals[i], released[i].text) for i in attack_docs]
    attacked = [p[0] for p in pairs]
    releases = [p[1] for p in pairs]
    ids = np.array(
        [store.id_of(k) for i in attack_docs for k, _, known in released[i].words if known], dtype=np.int64
    )
    types = first_occurrence_unique(ids)[0][:stats_words] if len(ids) else ids
    nan = math.nan
    out.update(
        n_w=nan,
        s_w=nan,
        attack_public_top1=nan,
        attack_public_top5=nan,
        attack_uniform_top1=nan,
        attack_oov_top1=nan,
        attack_overall_top1=nan,
        attack_contextual_top1=nan,
        attack_tokens=0,
        attack_public_tokens=0,
    )
    if len(types):
        rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5717]))
        stats = word_statistics(anon.mechanism, types, draws, rng)
        out.update(n_w=float(stats.n_w.mean()), s_w=float(stats.s_w.mean()))
    if not attacked or not hasattr(anon.mechanism, "distribution"):
        return out
    if not attack_dense and not _sparse_law(anon) and not batched_law(anon):
        return out
    figures = run_attacks(
        attacked,
        [releases],
        mechanism=anon.mechanism,
        index=anon.runtime.index,
        contextual=contextual,
        release_counts=(1,),
    )
    attacked_counts = word_counts([released[i] for i in attack_docs])
    unattacked = attacked_counts.unchanged_oov + attacked_counts.kept
    total = figures.word_tokens + unattacked
    hits = figures.public_prior.hits[0] + figures.oov.hits[0] + unattacked
    out.update(
        attack_public_top1=figures.public_prior.rate(1),
        attack_public_top5=figures.public_prior.rate(5),
        attack_uniform_top1=figures.uniform_prior.rate(1),
        attack_oov_top1=figures.oov.rate(1),
        attack_overall_top1=hits / total if total else nan,
        attack_tokens=figures.word_tokens,
        attack_public_tokens=figures.public_prior.tokens,  # the denominator of attack_public_top1
    )
    if figures.contextual is not None:
        out["attack_contextual_top1"] = float(figures.contextual.as_dict()["contextual_top1"])
    return out


def batched_law(anon: Any) -> bool:
    """Whether the cell's mechanism evaluates its exact law in batches (``exponential``, ``tem``):
    then the attack costs seconds, not minutes, per document and runs without ``attack_dense``."""
    from ..mechanisms.base import BatchLaw

    return isinstance(anon.mechanism, BatchLaw)


def _sparse_law(anon: Any) -> bool:
    from ..privacy.attacks.likelihood import MAX_SPARSE_SUPPORT, _law_as_pairs

    ys, _ = _law_as_pairs(anon.mechanism.distribution(0), anon.runtime.index)
    return len(ys) <= MAX_SPARSE_SUPPORT


def upgrade_figures(
    texts: Sequence[str],
    attack_docs: Sequence[int],
    mech: MechanismSpec,
    value: float | int,
    seed: int,
    config: ExperimentConfig,
    output: Path,
    row: dict[str, Any],
) -> dict[str, Any]:
    """Privacy figures a cell of an earlier runner version lacks, without redoing its utility.

    Always the canary figures; for a mechanism that now has a batched exact law (``exponential``,
    ``tem``) and no attack figure yet, the attack figures too, measured on a fresh release (same
    anonymizer, seed and levers) of the attacked documents only: the same law, another draw.
    """
    anon = make_anonymizer(mech, value, seed, embedding=config.embedding, output=output)
    extra: dict[str, Any] = dict(canary_figures(texts, attack_docs, anon, mech, seed))
    attack = row.get("attack_public_top1")
    missing = attack is None or (isinstance(attack, float) and math.isnan(attack))
    if missing and attack_docs and batched_law(anon):
        subset = [texts[i] for i in attack_docs]
        released = release_texts(subset, anon, mech, seed)
        figures = privacy_figures(
            subset,
            released,
            anon,
            attack_docs=range(len(subset)),
            draws=config.privacy.draws,
            stats_words=config.privacy.stats_words,
            contextual=config.privacy.contextual,
            seed=seed,
        )
        extra.update({k: v for k, v in figures.items() if k.startswith("attack_")})
    return extra


# ------------------------------------------------------------------------------------------------
# Cells
# ------------------------------------------------------------------------------------------------
def data_digest(data: Dataset) -> str:
    """A digest of the documents and labels a dataset spec loaded: a cell computed on other data
    (the file at the path replaced or edited) is never taken for this one."""
    h = hashlib.sha256()
    for text, label in zip(data.texts, data.labels, strict=True):
        h.update(text.encode("utf-8", "surrogatepass") + b"\x00")
        h.update(label.encode("utf-8", "surrogatepass") + b"\x01")
    return h.hexdigest()[:16]


def _file_stamp(path: str) -> list[int] | None:
    """Size and modification time of a file given by path (None for a name): a replaced embedding
    file makes new cells."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns] if stat.S_ISREG(st.st_mode) else None


def _embedding_stamp(spec: str) -> list[int] | None:
    """Size and modification time of the file the embedding ``spec`` is read from
    (:func:`~embedanon.vectors.defaults.source_stamp`: a file given by path, an imported
    embedding's ``meta.json``): one imported again (``--overwrite``) makes new cells too (an
    audit found every cell 'done before' on the old vectors, decision 0237). None for the
    built-in one."""
    stamp = source_stamp(spec)
    return None if stamp is None else [stamp[0], stamp[1]]


def _base_payload(config: ExperimentConfig, spec: DatasetSpec, seed: int, classifier: str,
                  digest: str) -> dict[str, Any]:
    return {
        "version": SCHEMA_VERSION,
        "dataset": spec.as_dict(),
        "data": digest,
        "seed": seed,
        "classifier": classifier,
        "folds": config.folds,
        "embedding": config.embedding,
        "embedding_file": _embedding_stamp(config.embedding),
    }


def _mech_payload(config: ExperimentConfig, mech: MechanismSpec, value: float | int) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "mechanism": mech.name,
        "variant": mech.variant,
        "param": mech.param,
        "value": value,
        "fixed": list(mech.fixed),
        "levers": mech.levers(),
        "privacy": asdict(config.privacy),
    }
    # an entry's own embedding file and allowlist file, replaced at the same path, make new cells
    # (added only when the entry names a file: the keys of other cells stay as they were)
    allowlist = mech.allowlist if isinstance(mech.allowlist, str) else None
    for name, path, stamped in (("embedding_file", mech.embedding, _embedding_stamp),
                                ("allowlist_file", allowlist, _file_stamp)):
        stamp = stamped(path) if path else None
        if stamp is not None:
            payload[name] = stamp
    return payload


def _write_cell(cells: Path, key: str, rows: list[dict[str, Any]]) -> None:
    with atomic_write(cells / f"{key}.json", private=False) as fh:
        fh.write(json.dumps({"key": key, "rows": rows}, sort_keys=True) + "\n")


def _read_cell(cells: Path, key: str) -> list[dict[str, Any]] | None:
    path = cells / f"{key}.json"
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # damaged: redo
    rows = data.get("rows") if isinstance(data, dict) and data.get("key") == key else None
    return rows if isinstance(rows, list) else None


def write_csv(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    """``results.csv`` (columns :data:`COLUMNS`), written atomically."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(COLUMNS), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _fmt(row.get(k)) for k in COLUMNS})
    with atomic_write(path, private=False) as fh:
        fh.write(buf.getvalue())


def _fmt(value: Any) -> Any:
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.6g}"
    return "" if value is None else value


def _utility_rows(results: list[Any], common: dict[str, Any]) -> list[dict[str, Any]]:
    by_name = {r.setting: r for r in results}
    rows = []
    for setting, name in SETTINGS.items():
        r = by_name.get(name, by_name["original -> original"])
        rows.append(
            {
                **common,
                "setting": setting,
                "accuracy": r.accuracy,
                "macro_f1": r.macro_f1,
                "macro_f1_std": r.macro_f1_std,
            }
        )
    return rows


def check_setup(config: ExperimentConfig, output: Path) -> None:
    """Refuse, before any work, what would otherwise fail in the middle of a run: an output path
    that is not a writable directory, an embedding that does not load, and a mechanism value the
    mechanism refuses (``k`` above the embedding's candidates, a bad fixed ``gamma``, a missing
    allowlist, an unknown ``index``). Each error names the config key.

    Raises:
        ConfigError: the first problem found (one line).
    """
    from ..vectors.defaults import load_embedding

    try:
        writable_directory(output)
    except EmbedanonError as exc:
        raise ConfigError(f"output: {exc}") from None
    for where, name in [("embedding", config.embedding)] + [
        (f"mechanisms[{i}].embedding", m.embedding) for i, m in enumerate(config.mechanisms) if m.embedding
    ]:
        if where == "embedding" and all(m.embedding for m in config.mechanisms):
            continue  # every entry names its own
        try:
            load_embedding(name)
        except EmbedanonError as exc:
            raise ConfigError(f"{where}: {exc}") from None
    for i, mech in enumerate(config.mechanisms):
        for value in mech.values:
            try:
                make_anonymizer(mech, value, 0, embedding=config.embedding, output=output)
            except EmbedanonError as exc:
                raise ConfigError(f"mechanisms[{i}].{mech.param} = {value}: {exc}") from None


def run_experiment(
    config: ExperimentConfig, *, jobs: int = 1, progress: Progress | None = None
) -> list[dict[str, Any]]:
    """Run (or resume) ``config``; write cells, ``results.csv``, ``results.md`` and plots.

    Args:
        config: the validated experiment.
        jobs: worker processes for anonymization.
        progress: called with one line per step (counts and names, never text).

    Returns:
        The rows of ``results.csv`` (dicts keyed by :data:`COLUMNS`).
    """
    say = progress or _quiet
    if not isinstance(config, ExperimentConfig):  # else "'dict' object has no attribute 'output'"
        raise TypeError(f"config must be an ExperimentConfig (load_config(path) or parse_config(dict)), "
                        f"got {type(config).__name__}")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ConfigError(f"jobs must be an integer >= 1, got {jobs!r}")
    output = Path(config.output)
    cells = output / "cells"
    datasets = [(spec, load_spec(spec, f"datasets[{i}]", config.folds))
                for i, spec in enumerate(config.datasets)]
    for i, (spec, data) in enumerate(datasets):
        check_folds(data.labels, config.folds, f"datasets[{i}] ({spec.name})")
    check_setup(config, output)  # after the data: a public allowlist it writes is not left alone
    cells.mkdir(parents=True, exist_ok=True)
    per_data = len(config.seeds) * (1 + sum(len(m.values) for m in config.mechanisms))
    total, step = len(datasets) * per_data * len(config.classifiers), 0
    rows: list[dict[str, Any]] = []

    def finish(done: list[dict[str, Any]]) -> None:
        # results.md follows results.csv cell by cell: a stopped re-run never leaves the tables of an
        # earlier run (other data, another config) beside the new rows
        rows.extend(done)
        write_csv(output / "results.csv", rows)
        write_markdown(config, rows, output)

    for spec, data in datasets:
        texts, labels = list(data.texts), list(data.labels)
        say(f"{spec.name}: {len(texts)} documents, {len(data.classes)} classes")
        digest = data_digest(data)
        attack_docs = stratified_sample(labels, min(config.privacy.attack_docs, len(labels)), spec.seed)
        info = {"dataset": spec.name, "documents": len(texts), "classes": len(data.classes)}
        for seed in config.seeds:
            for classifier in config.classifiers:
                step += 1
                key = cell_key({**_base_payload(config, spec, seed, classifier, digest), "mechanism": "none"})
                done = _read_cell(cells, key)
                if done is None:
                    start = time.perf_counter()
                    res = evaluate_utility(
                        texts, None, labels, folds=config.folds, seed=seed, classifier=classifier
                    )
                    common = {
                        **info,
                        "mechanism": "none",
                        "variant": "none",
                        "param": "",
                        "value": "",
                        "classifier": classifier,
                        "seed": seed,
                        "change_rate": 0.0,
                        "canary_leak": 1.0,
                        "cell": key,
                        "seconds": time.perf_counter() - start,
                    }
                    done = _utility_rows(res, common)
                    _write_cell(cells, key, done)
                    say(
                        f"[{step}/{total}] {spec.name} original {classifier} seed {seed}: "
                        f"macro-F1 {done[0]['macro_f1']:.3f} ({done[0]['seconds']:.1f} s)"
                    )
                else:
                    say(f"[{step}/{total}] {spec.name} original {classifier} seed {seed}: done before")
                    if "canary_leak" not in done[0]:  # earlier version: the original releases every name
                        done = [{**row, "canary_leak": 1.0} for row in done]
                        _write_cell(cells, key, done)
                finish(done)
            for mech in config.mechanisms:
                for value in mech.values:
                    base = _mech_payload(config, mech, value)
                    keys = {
                        c: cell_key({**_base_payload(config, spec, seed, c, digest), **base})
                        for c in config.classifiers
                    }
                    ready = {c: _read_cell(cells, k) for c, k in keys.items()}
                    todo = [c for c, r in ready.items() if r is None]
                    label = f"{spec.name} {mech.variant} {mech.param}={value:g} seed {seed}"
                    stale = [c for c, r in ready.items() if r is not None and "canary_leak" not in r[0]]
                    if stale:
                        first = ready[stale[0]]
                        assert first is not None
                        extra = upgrade_figures(
                            texts, attack_docs, mech, value, seed, config, output, first[0]
                        )
                        for c in stale:
                            upgraded = [{**row, **extra} for row in ready[c] or []]
                            _write_cell(cells, keys[c], upgraded)
                            ready[c] = upgraded
                        say(f"{label}: added {', '.join(sorted(extra))} to a cell of an earlier version")
                    for c, r in ready.items():
                        if r is not None:
                            step += 1
                            say(f"[{step}/{total}] {label} {c}: done before")
                            finish(r)
                    if not todo:
                        continue
                    start = time.perf_counter()
                    released, anon = anonymize_corpus(
                        texts, mech, value, seed, embedding=config.embedding, output=output, jobs=jobs
                    )
                    anonymize_seconds = time.perf_counter() - start
                    figures = privacy_figures(
                        texts,
                        released,
                        anon,
                        attack_docs=attack_docs,
                        draws=config.privacy.draws,
                        stats_words=config.privacy.stats_words,
                        contextual=config.privacy.contextual,
                        seed=seed,
                        attack_dense=config.privacy.attack_dense,
                    )
                    figures.update(canary_figures(texts, attack_docs, anon, mech, seed))
                    privacy_seconds = time.perf_counter() - start - anonymize_seconds
                    outs = [r.text for r in released]
                    for c in todo:
                        step += 1
                        t0 = time.perf_counter()
                        res = evaluate_utility(
                            texts, outs, labels, folds=config.folds, seed=seed, classifier=c
                        )
                        common = {
                            **info,
                            **figures,
                            "mechanism": mech.name,
                            "variant": mech.variant,
                            "param": mech.param,
                            "value": value,
                            "classifier": c,
                            "seed": seed,
                            "cell": keys[c],
                            "anonymize_seconds": anonymize_seconds,
                            "seconds": anonymize_seconds + privacy_seconds + time.perf_counter() - t0,
                        }
                        done = _utility_rows(res, common)
                        _write_cell(cells, keys[c], done)
                        attack = figures["attack_public_top1"]
                        say(
                            f"[{step}/{total}] {label} {c}: macro-F1 {done[0]['macro_f1']:.3f}, change "
                            f"{figures['change_rate']:.3f}, "
                            + ("no attack figure " if math.isnan(attack) else f"attack {attack:.3f} ")
                            + f"({done[0]['seconds']:.1f} s)"
                        )
                        finish(done)
    write_reports(config, rows, output, progress=say)
    return rows
