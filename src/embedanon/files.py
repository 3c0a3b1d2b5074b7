"""Anonymize files: the plain function behind the ``anonymize`` command.

Every text of a record (a text line, or a named field of a JSONL/CSV record) is anonymized as a
pure function of (text, field name, config, key) (:mod:`embedanon.pipeline.document`), so the
output depends on the key and the data only, never on the engine, ``jobs`` or chunking.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from . import io as eio
from ._validate import positive_int
from .backends.base import Backend, Task, build_backend, chunk_texts, run_task
from .errors import ConfigError, InputError
from .pipeline import Anonymizer
from .text import split_words

log = logging.getLogger(__name__)


@dataclass
class RunStats:
    """Counts of one run (never content)."""

    inputs: int = 0
    records: int = 0
    texts: int = 0
    bytes_in: int = 0
    outputs: list[str] = field(default_factory=list)
    #: word tokens per text, when counted (for the epsilon spent): total and the longest text's
    words: int = 0
    longest_words: int = 0


def write_run_report(path: str, anonymizer: Anonymizer, stats: RunStats, seconds: float, *,
                     engine: str, jobs: int) -> None:
    """The run report: settings, provenance digests, counts, epsilon spent, timing. Counts only:
    no text, no word, no mapping; the key appears only as its public fingerprint."""
    import json

    from . import __version__

    config = anonymizer.config
    params = dict(config.params)
    epsilon = params.get("epsilon")
    report = {
        "embedanon": __version__,
        "settings": {"embedding": config.embedding, "mechanism": config.mechanism, "params": params,
                     "min_length": config.min_length, "allowlist": config.allowlist is not None,
                     "index": config.index, "scope": config.scope.scope,
                     "detectors": config.scope.detectors if config.scope.scope != "all" else None,
                     "strategies": dict(config.scope.strategies), "engine": engine, "jobs": jobs},
        "config_digest": anonymizer.digest(),
        "key": {"origin": anonymizer.key.origin, "fingerprint": anonymizer.key.fingerprint()},
        "counts": {"inputs": stats.inputs, "records": stats.records, "texts": stats.texts,
                   "bytes": stats.bytes_in, "word_tokens": stats.words},
        "epsilon": None if epsilon is None else {
            "per_word": epsilon, "longest_text_words": stats.longest_words,
            "longest_text": stats.longest_words * epsilon, "whole_input": stats.words * epsilon,
            "note": "basic composition: a text of n words spends n x epsilon per release"},
        "change_rate": 1.0 if config.scope.scope == "all" and config.mechanism == "knn" else None,
        "seconds": round(seconds, 3),
        "mb_per_s": round(stats.bytes_in / 1e6 / seconds, 3) if seconds > 0 else None,
    }
    with eio.atomic_output(path) as out:  # the one atomic writer; a report holds no text
        out.write(json.dumps(report, indent=2) + "\n")


def plan_outputs(inputs: list[str], output: str | None) -> list[str | None]:
    """Where each input goes: one file, a directory of files, or standard output (``None``)."""
    if not inputs:
        raise ConfigError("no input given")
    if inputs.count("-") > 1:
        raise ConfigError("standard input ('-') is given more than once")
    eio.check_output(output)
    if output is None or output == "-":
        return [None] * len(inputs)
    out_is_dir = Path(output).is_dir() or (len(inputs) > 1)
    if not out_is_dir:
        targets: list[str | None] = [output]
    else:
        if not Path(output).is_dir():
            raise InputError(f"with several inputs, -o must be an existing directory: {output}")
        if "-" in inputs:
            raise ConfigError("standard input ('-') cannot be combined with an output directory")
        names = [Path(p).name for p in inputs]
        dupes = {n for n in names if names.count(n) > 1}
        if dupes:
            raise ConfigError(f"two inputs share the file name {sorted(dupes)[0]!r}")
        targets = [str(Path(output) / n) for n in names]
    for src, dst in zip(inputs, targets, strict=True):
        if eio.same_file(src, dst):
            raise ConfigError(f"output {dst} is the same file as input {src}; choose another -o")
    return targets


def anonymize_files(inputs: list[str], output: str | None, anonymizer: Anonymizer, *,
                    fmt: str | None = None, fields: list[str] | None = None, jobs: int = 1,
                    encoding_errors: str = "strict", backend: Backend | None = None,
                    progress: Callable[[int], None] | None = None,
                    count_words: bool = False) -> RunStats:
    """Anonymize ``inputs`` (paths or ``-``) into ``output`` (file, directory or stdout)."""
    engine = backend or build_backend("processes", jobs=positive_int("jobs", jobs))
    if encoding_errors not in eio.ENCODING_ERRORS:
        raise ConfigError(
            f"encoding errors must be one of {', '.join(eio.ENCODING_ERRORS)}, got {encoding_errors!r}"
        )
    targets = plan_outputs(inputs, output)
    formats = [eio.detect_format(p, fmt) for p in inputs]
    for f in formats:
        if f == "txt" and fields:
            raise ConfigError("--field applies to jsonl and csv input, not txt")
    for p in inputs:  # fail before writing anything when an input is missing
        if p != "-":
            eio.open_input(p).close()
    stats = RunStats()
    with eio.output_batch() as batch:  # every output appears only when every input succeeded
        for path, target, form in zip(inputs, targets, formats, strict=True):
            names = list(fields or ["text"])
            with eio.open_input(path) as fh:
                _run_one(fh, batch.open(target), path, form, names, anonymizer, engine,
                         encoding_errors, stats, progress, sniff=fmt is None, count_words=count_words)
            stats.inputs += 1
            stats.outputs.append(target or "-")
    log.debug("anonymized %d records (%d texts, %d bytes) from %d inputs",
             stats.records, stats.texts, stats.bytes_in, stats.inputs)
    return stats


Writer = Callable[[eio.Record, tuple[str, ...]], str]


def _reader(fh: IO[bytes], path: str, form: str, fields: list[str], errors: str,
            sniff: bool) -> tuple[Iterator[eio.Record], Writer, list[str]]:
    """Records of one input, the writer that puts results back, and the field name of each text."""
    shown = "<stdin>" if path == "-" else path
    if form == "txt":
        return eio.read_txt(fh, shown, errors, sniff=sniff), eio.write_txt, [""]
    if form == "jsonl":
        return eio.read_jsonl(fh, shown, errors, fields), eio.write_jsonl, fields
    delimiter = "\t" if shown.lower().endswith(".tsv") else ","
    return (eio.read_csv(fh, shown, errors, fields, delimiter),
            eio.CsvWriter(delimiter, eio.detect_line_terminator(fh)), fields)


def read_texts(path: str, *, fmt: str | None = None, fields: list[str] | None = None,
               encoding_errors: str = "strict") -> list[tuple[str, str]]:
    """Every text to anonymize in ``path`` with its field name, as ``anonymize`` reads them
    (the named fields of JSONL/CSV records, each line of a text file; headers and blank lines
    skipped)."""
    form = eio.detect_format(path, fmt)
    if form == "txt" and fields:
        raise ConfigError("--field applies to jsonl and csv input, not txt")
    with eio.open_input(path) as fh:
        records, _, names = _reader(fh, path, form, list(fields or ["text"]), encoding_errors,
                                    fmt is None)
        return [pair for record in records
                for pair in zip(record.texts, names[: len(record.texts)], strict=True)]


def _run_one(fh: IO[bytes], out: IO[str], path: str, form: str, fields: list[str],
             anonymizer: Anonymizer, engine: Backend, errors: str, stats: RunStats,
             progress: Callable[[int], None] | None, *, sniff: bool = True,
             count_words: bool = False) -> None:
    records, write, names = _reader(fh, path, form, fields, errors, sniff)

    pending: deque[eio.Record] = deque()
    config, key = anonymizer.config, anonymizer.key

    def pairs() -> Iterator[tuple[str, str]]:
        for record in records:
            pending.append(record)
            if count_words:
                for text in record.texts:
                    n = len(split_words(text)) >> 1
                    stats.words += n
                    stats.longest_words = max(stats.longest_words, n)
            yield from zip(record.texts, names[: len(record.texts)], strict=True)

    def tasks() -> Iterator[Task]:
        for chunk in chunk_texts(pairs()):
            yield Task(tuple(t for t, _ in chunk), tuple(f for _, f in chunk), config, key)

    results: deque[str] = deque()
    for outputs in engine.map(run_task, tasks()):
        results.extend(outputs)
        # Write every record whose texts are all back (records read ahead wait in ``pending``).
        while pending and len(pending[0].texts) <= len(results):
            record = pending.popleft()
            out.write(write(record, tuple(results.popleft() for _ in record.texts)))
            stats.records += not record.header
            stats.texts += len(record.texts)
            stats.bytes_in += record.nbytes
            if progress is not None:
                progress(record.nbytes)
    while pending:  # trailing records without texts (blank JSONL lines, a header)
        record = pending.popleft()
        out.write(write(record, ()))
        stats.records += not record.header
        stats.bytes_in += record.nbytes
