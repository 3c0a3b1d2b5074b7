"""Anonymize files: the plain function behind the ``anonymize`` command.

Every text of a record (a text line, or a named field of a JSONL/CSV record) is anonymized as a
pure function of (text, config, key) (:mod:`embedanon.pipeline.document`), so the
output depends on the key and the data only, never on the engine, ``jobs`` or chunking.
"""

from __future__ import annotations

import contextlib
import functools
import io
import itertools
import logging
import os
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from . import io as eio
from . import resume as resumable
from ._atomic import (
    AtomicBatch,
    OutputError,
    _Guarded,
    is_stream,
    new_dir_mode,
    refuse_planted,
    regular_target,
    stdin_file_stat,
    unwritable,
    writable_directory,
)
from ._validate import positive_int
from .backends.base import Backend, build_backend, chunk_texts
from .compressed import SUFFIXES as COMPRESSION_SUFFIXES
from .compressed import by_name, compressed_position, strip_suffix, text_output
from .config import AnonymizerConfig
from .detectors.base import Span
from .detectors.evaluate import read_span_file, record_spans
from .errors import ConfigError, InputError
from .keys import default_key_path
from .language import LanguageSample, not_english_message
from .mechanisms import MECHANISMS
from .parquet import ParquetJob
from .pipeline import Anonymizer
from .pipeline.document import Task, anonymize_documents, disjoint_spans, run_task
from .privacy.epsilon import epsilon_sentences, spent
from .text import drawn_parts, split_words, token_kind
from .vectors.defaults import embedding_source, private_embedding

log = logging.getLogger(__name__)


@dataclass
class RunStats:
    """Counts of one run (never content)."""

    inputs: int = 0
    records: int = 0
    texts: int = 0
    bytes_in: int = 0
    outputs: list[str] = field(default_factory=list)
    #: when counted (for the epsilon spent): word tokens, and the word parts the mechanism draws
    #: (:func:`~embedanon.text.mechanism_draws`), in all and in the longest text
    words: int = 0
    draws: int = 0
    longest_draws: int = 0
    #: word parts drawn in the longest record, all its texts (fields) together: a record is one
    #: person's, and basic composition adds the epsilon of every field released
    longest_record_draws: int = 0
    #: records of a scope other than ``all`` released in full scope (every word perturbed)
    #: because a detector failed on one of their texts (see :func:`run_counted`)
    full_scope_fallbacks: int = 0
    #: when counted: the word parts hybrid scope's name guard redrew (decision 0380), which the
    #: mechanism released as themselves: outside the epsilon statement, so counted apart
    guarded: int = 0
    #: one line per input that does not look like English (:mod:`embedanon.language`; counts
    #: and the input's name only)
    language_notices: list[str] = field(default_factory=list)
    #: of ``records`` and ``bytes_in``, those an interrupted run had written (``--resume``): this
    #: run did not anonymize them, so its speed leaves them out
    resumed_records: int = 0
    resumed_bytes: int = 0
    #: of ``resumed_bytes``, those this run did not anonymize again (all, unless it counted the
    #: words of records an interrupted run wrote without counting them, decision 0630)
    reused_bytes: int = 0


def fallback_notice(stats: RunStats) -> str | None:
    """The one-line notice for records that fell back to full scope (None when there are none)."""
    if not stats.full_scope_fallbacks:
        return None
    return (f"notice: detection failed on {stats.full_scope_fallbacks} of {stats.records} records; "
            "they were released in full scope (every word perturbed)")


def kept_span_notice(config: AnonymizerConfig) -> str | None:
    """The one-line notice for detected spans an epsilon mechanism may release unchanged (None
    when no span goes through such a mechanism).

    A metric-DP mechanism returns its input with positive probability (at the recommended epsilon,
    often: a name survived 22-38 % of the time, issue 7), and in scope ``detected`` the words around
    a span are released as they are, so a span the mechanism keeps is a name in plain text.
    ``knn`` never returns its input, surrogates and redaction never keep one.
    """
    scope = config.scope
    if scope.scope == "all" or "epsilon" not in MECHANISMS.get(config.mechanism).params:
        return None
    if scope.default_action != "mechanism" and all(a != "mechanism" for _, a in scope.strategies):
        return None
    return (f"notice: scope {scope.scope} with mechanism {config.mechanism}: a detected span can come "
            "back unchanged (the mechanism may return its input); --strategy DEFAULT=surrogate "
            "replaces every detected span")


def private_embedding_notice(config: AnonymizerConfig) -> str | None:
    """The one-line notice for an embedding that not everyone may read, used without
    ``--candidates``: replacements come only from its words in the bundled public word list
    (decision 0237). None otherwise."""
    if config.allowlist is not None or not private_embedding(config.embedding):
        return None
    return (f"notice: embedding {config.embedding} is not readable by everyone, so its words may be "
            "your notes'; replacements come only from its words in the bundled public word list "
            "(--candidates FILE names another public list)")


def nothing_replaced_warning(config: AnonymizerConfig) -> str | None:
    """The one-line warning for a detected-scope run that keeps every label's spans: its output
    is its input as written (None otherwise)."""
    scope = config.scope
    if scope.scope != "detected" or any(action != "keep" for action in scope.actions().values()):
        return None
    return ("warning: scope detected with every label's action 'keep': nothing is replaced, the "
            "output is the input as written")


def run_report(anonymizer: Anonymizer, stats: RunStats, seconds: float, *, engine: str,
               jobs: int, spans: bool = False) -> str:
    """The run report as JSON text: settings, provenance digests, counts, epsilon spent, timing.
    Counts only: no text, no word, no mapping; the key appears only as its public fingerprint.
    ``counts.full_scope_fallbacks`` is the number of records that a detector failed on and
    that were therefore released in full scope (None in scope ``all``); ``settings.word_lists``
    the number of allow and deny entries in force (None in scope ``all``), never the entries;
    ``counts.resumed_records``
    and ``resumed_bytes`` are those an interrupted run had written (``--resume``); ``mb_per_s``
    is this run's speed, over the bytes it anonymized (:func:`run_bytes`); ``settings.span_source``
    says whether the detectors or a span file (``spans``: ``--spans``) chose what was replaced."""
    import json

    from . import __version__

    config = anonymizer.config
    scoped = config.scope.scope != "all"
    params = {**_default_params(config.mechanism), **dict(config.params)}  # what was in force
    epsilon = params.get("epsilon")
    report = {
        "embedanon": __version__,
        "settings": {"embedding": config.embedding, "mechanism": config.mechanism, "params": params,
                     "min_length": config.min_length, "allowlist": config.allowlist is not None,
                     # a private embedding without --candidates: its words in the public list only
                     "public_word_list": config.allowlist is None and private_embedding(config.embedding),
                     "index": config.index, "scope": config.scope.scope,
                     "detectors": config.scope.detectors if scoped and not spans else None,
                     "span_source": None if not scoped else "span file" if spans else "detectors",
                     "strategies": dict(config.scope.strategies),
                     "actions": config.scope.actions() if scoped else None,
                     "name_guard": config.scope.name_guard if config.scope.scope == "hybrid" else None,
                     # how many entries, never which: a deny list names the people it protects
                     "word_lists": None if not scoped else
                     {"allow": len(config.scope.allow), "deny": len(config.scope.deny)},
                     "noise_unit": config.noise_unit,
                     "engine": engine, "jobs": jobs},
        "config_digest": anonymizer.digest(),
        "key": {"origin": anonymizer.key.origin, "fingerprint": anonymizer.key.fingerprint()},
        "counts": {"inputs": stats.inputs, "records": stats.records, "texts": stats.texts,
                   "bytes": stats.bytes_in, "resumed_records": stats.resumed_records,
                   "resumed_bytes": stats.resumed_bytes,
                   "word_tokens": stats.words, "drawn_parts": stats.draws,
                   # redrawn by the name guard, outside the epsilon statement (decision 0380)
                   "name_guard_redraws": stats.guarded if config.scope.scope == "hybrid" else None,
                   "full_scope_fallbacks": (None if config.scope.scope == "all"
                                            else stats.full_scope_fallbacks)},
        "epsilon": None if epsilon is None else {
            "per_word": epsilon, "longest_text_draws": stats.longest_draws,
            "longest_record_draws": stats.longest_record_draws,
            "longest_record": spent(stats.longest_record_draws, epsilon),
            # None past the largest float: JSON has no infinity (decision 0370)
            "longest_text": spent(stats.longest_draws, epsilon), "whole_input": spent(stats.draws, epsilon),
            "note": "basic composition: each word part the mechanism releases ('well-known' is 2 parts) "
                    "spends epsilon, so a text of n such parts spends n x epsilon per release, and a record "
                    "the epsilon of all its texts (fields)"
                    + ("; words released verbatim or as surrogates spend none"
                       if config.scope.scope != "all" else ""),
            "in_words": epsilon_sentences(float(epsilon), longest_parts=stats.longest_record_draws,
                                          scope_all=config.scope.scope == "all")},
        "change_rate": 1.0 if config.scope.scope == "all" and config.mechanism == "knn" else None,
        "seconds": round(seconds, 3),
        # this run's speed: the part an interrupted run wrote was not anonymized again
        "mb_per_s": round(run_bytes(stats) / 1e6 / seconds, 3) if seconds > 0 else None,
    }
    return json.dumps(report, indent=2, allow_nan=False) + "\n"


def run_bytes(stats: RunStats) -> int:
    """The input bytes this run anonymized: all of them but what an interrupted run it continues
    (``--resume``) had written, unless this run anonymized that part again to count its words."""
    return stats.bytes_in - stats.reused_bytes


def _default_params(mechanism: str) -> dict[str, Any]:
    """The parameters ``mechanism`` takes with a default value (``knn``: ``{"k": 10}``); a
    default of None (computed from the others) is left out."""
    import inspect

    spec = MECHANISMS.get(mechanism)
    signature = inspect.signature(spec.factory)
    defaults = {name: signature.parameters[name].default for name in spec.params}
    return {name: value for name, value in defaults.items()
            if value is not inspect.Parameter.empty and value is not None}


def write_run_report(path: str, anonymizer: Anonymizer, stats: RunStats, seconds: float, *,
                     engine: str, jobs: int) -> None:
    """Write :func:`run_report` to ``path`` on its own (``anonymize --report`` writes it in the
    outputs' batch instead, see :func:`anonymize_files`)."""
    with eio.atomic_output(path) as out:  # the one atomic writer; a report holds no text
        out.write(run_report(anonymizer, stats, seconds, engine=engine, jobs=jobs))


def plan_outputs(inputs: list[str], output: str | None) -> list[str | None]:
    """Where each input goes: one file, a directory of files, or standard output (``None``)."""
    if not inputs:
        raise ConfigError("no input given")
    if inputs.count("-") > 1:
        raise ConfigError("standard input ('-') is given more than once")
    if output is None or output == "-":
        if len(inputs) > 1:
            raise ConfigError(f"{len(inputs)} inputs need -o DIR, a directory (standard "
                              "output takes one input)")
        return [None] * len(inputs)
    out_is_dir = output != "" and (Path(output).is_dir() or len(inputs) > 1 or _names_directory(output))
    if not out_is_dir:
        eio.check_output(output)
        targets: list[str | None] = [output]
    else:
        if not Path(output).is_dir():
            if len(inputs) > 1:
                _refuse_file_name(output)
            if is_stream(output):
                raise InputError(f"with several inputs, -o must be a directory: {output}")
            try:  # created when the run starts (output_directory), removed if it fails
                writable_directory(output)
            except OutputError as exc:
                raise InputError(str(exc)) from None
        if "-" in inputs:
            raise ConfigError("standard input ('-') cannot be combined with an output directory")
        names = [strip_suffix(Path(p).name) for p in inputs]
        dupes = {n for n in names if names.count(n) > 1}
        if dupes:
            raise ConfigError(f"two inputs share the file name {sorted(dupes)[0]!r}")
        # a compressed input's output in a directory is plain text: notes.csv.gz -> notes.csv
        targets = [str(Path(output) / strip_suffix(n)) for n in names]
    return targets


def _refuse_file_name(output: str) -> None:
    """Refuse, as the directory of several inputs' outputs, a missing ``output`` named like a
    file (``-o out/single.csv``): it was made a directory of that name, silently. A name ending
    in a separator (``out.csv/``) says a directory and passes."""
    suffix = Path(output).suffix.lower()
    if suffix in _FILE_SUFFIXES and not _names_directory(output):
        raise ConfigError(f"-o {output} is named like a file ({suffix}), but several inputs need a "
                          "directory: name a directory, or end this name with '/' if it is meant")


def _names_directory(path: str) -> bool:
    """Whether ``path`` ends in a separator (``-o outdir/``): a directory, made when missing."""
    return path.endswith(os.sep) or bool(os.altsep and path.endswith(os.altsep))


@contextmanager
def output_directory(inputs: list[str], output: str | None) -> Iterator[None]:
    """Create the ``-o`` directory of a run that writes into one (:func:`plan_outputs`) when it
    is missing, private (0700: it will hold anonymized text), and remove what was created when
    the run fails and left it empty, so a failed run leaves nothing behind."""
    wanted = (output is not None and output not in ("", "-")
              and (len(inputs) > 1 or _names_directory(output)) and not os.path.isdir(output))
    if not wanted:
        yield
        return
    assert output is not None
    top = Path(os.path.abspath(output))
    while not top.parent.exists():  # the highest directory this run creates
        top = top.parent
    try:
        os.makedirs(output, mode=new_dir_mode(private=True), exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create the output directory {output}: {exc.strerror}") from None
    try:
        yield
    except BaseException:
        for directory in [Path(os.path.abspath(output)), *Path(os.path.abspath(output)).parents]:
            with contextlib.suppress(OSError):
                directory.rmdir()  # only when empty
            if directory == top:
                break
        raise


def check_outputs(inputs: list[str], output: str | None, *, report: str | None = None,
                  reads: Sequence[PathArg] = ()) -> list[str | None]:
    """Plan the outputs (:func:`plan_outputs`) and refuse, before any work, a ``report`` that
    cannot be written and any output that is an input, one of ``reads`` (the other files the
    run reads, e.g. :func:`release_files`) or another output (:func:`check_paths`)."""
    targets = plan_outputs(inputs, output)
    check_report(report)
    written: list[PathArg] = [("output", t) for t in targets]
    if report is not None:
        written.append(("--report", report))
    check_paths([*(("input", p) for p in inputs), *reads], written)
    for _, path in written:
        if path is not None:
            refuse_planted(path)
    return targets


# -- outputs against inputs ----------------------------------------------------------------------
#: (what, path): ``what`` names the option in messages (``input``/``output`` for INPUT and -o).
PathArg = tuple[str, "str | None"]


def _stat(path: str) -> os.stat_result | None:
    if path == "-":
        return stdin_file_stat()
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def _stream_identity(path: str) -> object:
    """What a stream output writes to: ``"stdout"`` for ``-`` and for a path that is standard
    output's file (``/dev/stdout``), the device or FIFO otherwise; None for the null device, which
    any number of outputs may share."""
    try:
        if os.path.realpath(path) == os.path.realpath(os.devnull) and path != "-":
            return None
        st = os.stat(path) if path != "-" else None
        out = os.fstat(1)
    except (OSError, ValueError):
        return "stdout" if path == "-" else path
    if path == "-" or (st is not None and (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino)):
        return "stdout"
    return (st.st_dev, st.st_ino) if st is not None else path


def same_file(a: str, b: str) -> bool:
    """Whether paths ``a`` and ``b`` name one file: the same inode when both exist (hard links,
    symbolic links), else the same resolved path (an output not created yet). ``-`` as an input
    is the file standard input reads (nothing when it reads a pipe or a terminal)."""
    st_a, st_b = _stat(a), _stat(b)
    if st_a is not None and st_b is not None:
        return (st_a.st_dev, st_a.st_ino) == (st_b.st_dev, st_b.st_ino)
    if st_a is not None or st_b is not None or "-" in (a, b):
        return False
    return os.path.realpath(a) == os.path.realpath(b)


def file_identity(path: str) -> tuple[object, ...] | None:
    """What :func:`same_file` compares, as a key: ``same_file(a, b)`` is ``file_identity(a) is not
    None and file_identity(a) == file_identity(b)`` (a test holds the two equal). The inode of a
    file that exists, else its resolved path; None for ``-`` when standard input reads no file."""
    st = _stat(path)
    if st is not None:
        return ("file", st.st_dev, st.st_ino)
    return None if path == "-" else ("path", os.path.realpath(path))


def _inside(path: str, directory: str) -> bool:
    real, base = os.path.realpath(path), os.path.realpath(directory)
    return os.path.commonpath([real, base]) == base


def _shown(what: str, path: str) -> str:
    return f"{what} {path}"


def _choose(what: str) -> str:
    return "-o" if what == "output" else what


def check_paths(inputs: Sequence[PathArg], outputs: Sequence[PathArg]) -> None:
    """Refuse, before any work, an output that would replace an input or another output.

    Args:
        inputs: ``(what, path)`` of every file the command reads: data inputs (``-``: the file
            standard input reads), the key, word lists, an embedding file, a model directory
            (an output inside such a directory is refused too). ``None``: not given.
        outputs: ``(what, path)`` of every file the command writes; ``None`` or ``-`` is standard
            output (two outputs there are refused: they would be mixed).

    Raises:
        ConfigError: one line naming both options and paths (paths only, never text).
    """
    given_in = [(w, p) for w, p in inputs if p is not None and p != ""]
    given_out = [(w, "-" if p is None else p) for w, p in outputs]
    # a data input that is a directory is refused by its reader, with a better message
    folders = [(w, p) for w, p in given_in if w != "input" and os.path.isdir(p)]
    read: dict[tuple[object, ...], tuple[str, str]] = {}  # file identity -> the first input that is it
    for in_what, in_path in given_in:
        ident = file_identity(in_path)
        if ident is not None:
            read.setdefault(ident, (in_what, in_path))
    written: dict[tuple[object, ...], tuple[str, str]] = {}  # the same for the outputs checked so far
    streams: dict[object, tuple[str, str]] = {}
    for what, path in given_out:
        if path == "-" or is_stream(path):
            stream = _stream_identity(path)
            if stream is not None and stream in streams:  # two outputs mixed in one stream
                first_what, first = streams[stream]
                raise ConfigError(f"{_shown(what, path)} and {_shown(first_what, first)} both write to "
                                  f"{'standard output' if stream == 'stdout' else 'one stream'}; "
                                  f"choose another {_choose(what)}")
            if stream is not None:
                streams[stream] = (what, path)
            continue
        for in_what, in_path in folders:
            if _inside(path, in_path):
                raise ConfigError(f"{_shown(what, path)} is inside {_shown(in_what, in_path)}; "
                                  f"choose another {_choose(what)}")
        ident = file_identity(path)
        for seen in (read, written):
            if ident is not None and ident in seen:
                other_what, other = seen[ident]
                raise ConfigError(f"{_shown(what, path)} is the same file as {_shown(other_what, other)}; "
                                  f"choose another {_choose(what)}")
        if ident is not None:
            written.setdefault(ident, (what, path))


def release_files(*, key: str | None = None, seed: int | None = None, fresh_key: bool = False,
                  candidates: str | None = None, allow: str | None = None,
                  deny: str | None = None, embedding: str | None = None,
                  detector_option: Sequence[str] | None = None, **_: Any) -> list[PathArg]:
    """The files a release reads, from the release options (see :func:`check_paths`): the key
    (the default key file when no key option is given), the word lists, an embedding given as a
    path, and detector options naming a path (``model_path=DIR``, ``transformer_path=DIR``).
    Other keyword arguments are ignored."""
    default = key is None and seed is None and not fresh_key
    files: list[PathArg] = [("--key", key), ("--candidates", candidates), ("--allow", allow),
                            ("--deny", deny)]
    if default and os.path.lexists(path := default_key_path()):
        files.append(("the default release key", str(path)))
    if embedding is not None and os.path.exists(embedding):
        files.append(("--embedding", embedding))
    for spec in detector_option or []:
        name, sep, value = spec.partition("=")
        if sep and name.strip().lower().replace("-", "_").endswith("_path") and value.strip():
            files.append((f"--detector-option {name.strip()}", value.strip()))
    return files


def check_report(path: str | None) -> None:
    """Refuse, before any work, a ``--report`` that cannot be written: a directory, a missing or
    unwritable directory (``-`` and special files pass: they are streams)."""
    if path is None or path == "-" or (path and is_stream(path)):
        return
    try:
        target = regular_target(path)
    except OutputError as exc:
        raise OutputError(f"--report: {exc}") from None
    why = unwritable(target.parent)
    if why is not None:
        raise OutputError(f"--report: cannot write to {target.parent}: {why}")


def anonymize_files(inputs: list[str], output: str | None, anonymizer: Anonymizer, *,
                    fmt: str | None = None, fields: list[str] | None = None, jobs: int = 1,
                    encoding_errors: str = "strict", backend: Backend | None = None,
                    progress: Callable[[int], None] | None = None,
                    count_words: bool = False,
                    report: tuple[str, Callable[[RunStats], str]] | None = None,
                    resume: bool = False, language: str = "warn", spans: str | None = None) -> RunStats:
    """Anonymize ``inputs`` (paths or ``-``) into ``output`` (file, directory or stdout).

    Args:
        spans: a span file (``detect``'s output, corrected by hand) whose spans each text is
            released with instead of the detectors': one input file, scope ``detected`` or
            ``hybrid``; its records must be the input's texts, in order (:func:`read_given_spans`).
        report: ``(path, render)``: a run report rendered from the final counts and written in
            the same all-or-nothing batch as the outputs (a report that cannot be written leaves
            no output either, and a failed run leaves no report).
        resume: keep each output's progress in a journal and continue an interrupted run from
            it (:mod:`embedanon.resume`); the outputs still appear only when all succeeded.
        language: what to do with an input whose first words do not look like English
            (:mod:`embedanon.language`): ``warn`` (a line in ``stats.language_notices``),
            ``require`` (an :class:`InputError`, before any output appears) or ``off``.
    """
    if language not in LANGUAGE_RULES:
        raise ConfigError(f"language must be one of {', '.join(LANGUAGE_RULES)}, got {language!r}")
    engine = backend or build_backend("processes", jobs=positive_int("jobs", jobs))
    eio.check_encoding_errors(encoding_errors)
    targets = check_outputs(inputs, output, report=None if report is None else report[0])
    formats = check_formats(inputs, targets, fmt, fields, output)
    for p in inputs:  # fail before writing anything when an input is missing
        eio.check_input(p)
    given = None
    if spans is not None:  # checked against the input, text by text, before any work
        check_span_input(inputs, anonymizer.config.scope.scope)
        given = read_given_spans(spans, inputs[0], fmt=fmt, fields=fields, encoding_errors=encoding_errors)
    journals = (_journals(inputs, targets, formats, anonymizer, fmt, fields, encoding_errors, spans)
                if resume else {})
    try:
        return _anonymize_all(inputs, output, targets, formats, journals, anonymizer, fields=fields,
                              fmt=fmt, engine=engine, encoding_errors=encoding_errors, progress=progress,
                              count_words=count_words, report=report, language=language, given=given)
    finally:
        for journal in journals.values():
            journal.unlock()


def _anonymize_all(inputs: list[str], output: str | None, targets: list[str | None], formats: list[str],
                   journals: dict[str | None, resumable.Journal], anonymizer: Anonymizer, *,
                   fields: list[str] | None, fmt: str | None, engine: Backend, encoding_errors: str,
                   progress: Callable[[int], None] | None, count_words: bool,
                   report: tuple[str, Callable[[RunStats], str]] | None, language: str,
                   given: list[tuple[Span, ...]] | None = None) -> RunStats:
    """:func:`anonymize_files` once its arguments are checked and its journals locked."""
    stats = RunStats()
    with output_directory(inputs, output), _discarding(journals), eio.output_batch() as batch:
        # every output appears only when every input succeeded
        for path, target, form in zip(inputs, targets, formats, strict=True):
            names = list(fields or ["text"])
            run = functools.partial(_run_one, anonymizer=anonymizer, engine=engine, stats=stats,
                                    progress=progress, count_words=count_words,
                                    language=_language_rule(language, path, stats), given=given)
            if target in journals:
                assert target is not None
                _run_journaled(journals[target], batch, target, path, form, names, encoding_errors,
                               fmt is None, stats, run, count_words)
            elif form == "parquet":
                job = ParquetJob(path, batch.open(target, binary=True), names,
                                 "<stdin>" if path == "-" else path)
                run(job.records(), job.write)
                job.close()
            else:
                with eio.open_input(path) as fh, _text_sink(batch, target) as out:
                    eio.refuse_binary(fh, path)
                    records, writer = _reader(fh, path, form, names, encoding_errors, fmt is None)
                    run(records, _writing(out, writer), position=functools.partial(compressed_position, fh))
            stats.inputs += 1
            stats.outputs.append(target or "-")
            batch.finish_written()  # its file closed now: a run of many inputs holds one open
        if report is not None:
            batch.open(report[0]).write(report[1](stats))
    for target in targets:  # in place: a resumable run's leftovers are spent
        if target is not None and target != "-" and not is_stream(target):
            resumable.remove_leftovers(target)
    log.debug("anonymized %d records (%d texts, %d bytes) from %d inputs",
             stats.records, stats.texts, stats.bytes_in, stats.inputs)
    return stats


@contextmanager
def _discarding(journals: dict[str | None, resumable.Journal]) -> Iterator[None]:
    """On any failure, Ctrl-C too, remove the kept files of a resumable run that no journal
    speaks for (:meth:`~embedanon.resume.Journal.discard`): after the batch is aborted, before
    :func:`output_directory` removes a directory it made if that is empty."""
    try:
        yield
    except BaseException:
        for journal in journals.values():
            journal.discard()
        raise


Writer = Callable[[eio.Record, tuple[str, ...]], str]
LANGUAGE_RULES = ("warn", "require", "off")


def _language_rule(rule: str, path: str, stats: RunStats) -> Callable[[LanguageSample], None] | None:
    """What to do with the verdict of an input's language sample (see :func:`anonymize_files`)."""
    if rule == "off":
        return None
    shown = "<stdin>" if path == "-" else path

    def verdict(sample: LanguageSample) -> None:
        if sample.english is not False:
            return
        message = not_english_message(shown, sample)
        if rule == "require":
            raise InputError(f"{message}; --require-english refuses it")
        stats.language_notices.append(message)

    return verdict
#: seconds between two journal checkpoints of a resumable run (each fsyncs the output)
CHECKPOINT_SECONDS = 1.0
#: the revision of how the readers cut records and end lines, bound in a resumable run's journal:
#: a journal counts records, so one written under other rules (2: a bare CR ends a text line,
#: decision 0631; CSV rows end as the header row does) must not be continued
READER_REVISION = 2


def _journals(inputs: list[str], targets: list[str | None], formats: list[str], anonymizer: Anonymizer,
              fmt: str | None, fields: list[str] | None, errors: str,
              spans: str | None = None) -> dict[str | None, resumable.Journal]:
    """The journal of each output of a resumable run, bound to its input, options and key."""
    from . import __version__

    resumable.check_resumable(inputs, targets, formats)
    resumable.reserve_descriptors(len(inputs))
    if anonymizer.key.origin == "fresh":  # its journal could only ever say "the key changed"
        raise ConfigError("--resume cannot continue a run under --fresh-key, whose key is not kept; "
                          "give --key FILE (embedanon keygen FILE) to release under a new key")
    journals: dict[str | None, resumable.Journal] = {}
    config = anonymizer.config
    # the configuration holds these by path only: bind their content, or a file edited between
    # the two runs splices two releases (the --candidates list, an embedding, a model directory)
    source = embedding_source(config.embedding)  # an imported name too: it may be imported again
    files = resumable.named_files({"candidates": config.allowlist, "spans": spans,
                                   "embedding": None if source is None else str(source),
                                   **{f"detector option {name}": value
                                      for name, value in config.scope.detector_options}})
    for path, target, form in zip(inputs, targets, formats, strict=True):
        assert target is not None
        options = resumable.options_digest({
            "embedanon": __version__, "reader": READER_REVISION, "config": anonymizer.digest(),
            # not whether --format was given: it changes no byte of the output (a text input
            # that looks like JSON Lines is refused without it, and read as text with it)
            "format": form, "fields": list(fields or ["text"]),
            "encoding_errors": errors, "files": files})
        journals[target] = resumable.Journal(target, path, resumable.Binding(
            resumable.input_digest(path, anonymizer.key.subkey("resume input")), options,
            anonymizer.key.fingerprint()))
    return journals


def _run_journaled(journal: resumable.Journal, batch: AtomicBatch, target: str, path: str, form: str,
                   names: list[str], errors: str, sniff: bool, stats: RunStats,
                   run: Callable[..., int], count_words: bool = False) -> None:
    """One input of a resumable run: continue from its journal, checkpoint every chunk.

    A run that counts words (``--report``: the epsilon spent) continuing one that did not
    anonymizes the records already written again, without writing them, to count them: the
    report covered only its own records (decision 0630)."""
    journal.lock()  # before its journal is read or its temp file cut: one run per output
    done = journal.load()
    recount = count_words and not done.counted
    before = {name: getattr(stats, name) for name in resumable.COUNTS}
    resumed = (done.counts or {}).get("bytes_in", 0)
    stats.resumed_records += (done.counts or {}).get("records", 0)
    stats.resumed_bytes += resumed
    stats.reused_bytes += 0 if recount else resumed  # counted again: anonymized again
    for name, value in (done.counts or {}).items():
        if recount and name in resumable.WORD_COUNTS:  # partial or none: counted again below
            continue
        if name in ("longest_draws", "longest_record_draws"):
            setattr(stats, name, max(getattr(stats, name), value))
        elif name in before:
            setattr(stats, name, getattr(stats, name) + value)
    raw = batch.open_kept(target, journal.temp, done.offset)
    if done.complete and not recount:
        return

    def counts() -> dict[str, int]:
        return {name: getattr(stats, name) - (0 if name.startswith("longest") else before[name])
                for name in resumable.COUNTS}

    last = time.monotonic()

    def checkpoint(records: int) -> None:
        nonlocal last
        if time.monotonic() - last >= CHECKPOINT_SECONDS:
            guarded.flush()
            # counted only once past the records counted again: all of them are then
            journal.checkpoint(raw, records, counts(), counted=count_words and (
                not recount or records > done.records))
            last = time.monotonic()

    with eio.open_input(path) as fh:
        out = io.TextIOWrapper(raw, encoding="utf-8", newline="", write_through=True)
        guarded = _Guarded(out, target)  # a write error names the output
        try:
            eio.refuse_binary(fh, path)
            records, writer = _reader(fh, path, form, names, errors, sniff)
            written = run(records, _writing(guarded, writer),  # type: ignore[arg-type]
                          position=functools.partial(compressed_position, fh), skip=done.records,
                          recount=recount, checkpoint=checkpoint)
            guarded.flush()
            journal.checkpoint(raw, written, counts(), complete=True, counted=count_words)
        finally:
            # flushed above on success; after a failed write (a full disk) detaching flushes
            # again, and its bare OSError replaced the write's own error, which names the output
            with contextlib.suppress(OSError):
                out.detach()


def _writing(out: IO[str], writer: Writer) -> Callable[[eio.Record, tuple[str, ...]], None]:
    """Write each record, as ``writer`` serialises it, to ``out``."""
    def write(record: eio.Record, results: tuple[str, ...]) -> None:
        out.write(writer(record, results))
    return write


@contextmanager
def _text_sink(batch: AtomicBatch, target: str | None) -> Iterator[IO[str]]:
    """The text output of ``target`` in ``batch``, compressed when its name ends in a
    compression suffix (``-o out.csv.gz``), plain otherwise."""
    kind = None if target is None else by_name(target)
    if kind is None:
        yield batch.open(target)
        return
    with text_output(batch.open(target, binary=True), kind, target or "-") as out:
        yield out


def run_counted(task: Task) -> tuple[list[str], list[bool], list[int] | None, int]:
    """:func:`~embedanon.pipeline.document.run_task` that also says which texts fell back to full
    scope because a detector failed on them (all False in scope ``all``), outside scope ``all``
    how many word parts of each text the mechanism released (its word items: the epsilon spent;
    None in scope ``all``, where every word part is one and the reader counts them), and how many
    word parts of the task the name guard redrew (its ``guard`` items; 0 outside scope
    ``hybrid``); the texts are the same."""
    if task.config.scope.scope == "all":
        return run_task(task), [False] * len(task.texts), None, 0
    docs = anonymize_documents(task.texts, task.config, task.key, spans=task.spans)
    return ([d.text for d in docs], [d.full_scope for d in docs],
            [sum(item.kind == "word" for item in d.items) for d in docs],
            sum(item.kind == "guard" for d in docs for item in d.items))


def _reader(fh: IO[bytes], path: str, form: str, fields: list[str], errors: str,
            sniff: bool) -> tuple[Iterator[eio.Record], Writer]:
    """Records of one input (the ``fields`` of JSONL/CSV) and the writer that puts results back."""
    shown = "<stdin>" if path == "-" else path
    if form == "txt":
        return eio.read_txt(fh, shown, errors, sniff=sniff), eio.write_txt
    if form == "file":
        return eio.read_file(fh, shown, errors), eio.write_file
    if form == "jsonl":
        return eio.read_jsonl(fh, shown, errors, fields), eio.write_jsonl
    delimiter = eio.csv_delimiter(shown, form)
    return (eio.read_csv(fh, shown, errors, fields, delimiter),
            eio.CsvWriter(delimiter))


#: names only a file has: the data files' extensions and the compressions'; -o of several inputs
#: must not end so
_FILE_SUFFIXES = eio.DATA_SUFFIXES | frozenset(COMPRESSION_SUFFIXES)
_SUFFIX_OF = {"JSON Lines": ".jsonl", "comma-separated CSV": ".csv", "tab-separated CSV": ".tsv",
              "Parquet": ".parquet", "plain text": ".txt"}


def _written_as(path: str, form: str) -> str:
    """What the output of input ``path`` read as ``form`` holds: the input's own format."""
    if form in ("csv", "tsv"):
        return "tab-separated CSV" if eio.csv_delimiter(path, form) == "\t" else "comma-separated CSV"
    return {"txt": "plain text", "file": "plain text", "jsonl": "JSON Lines", "parquet": "Parquet"}[form]


def check_formats(inputs: list[str], targets: Sequence[str | None], fmt: str | None,
                  fields: list[str] | None, output: str | None = None) -> list[str]:
    """The format of each input, refusing before any work a ``--field`` on text input and an
    output that cannot take the format (Parquet written compressed), or whose name, given as
    ``-o FILE``, says another format than the input's: the output is always written in the
    input's format, so ``-o out.parquet`` from JSONL would be JSON text under a Parquet name."""
    formats: list[str] = [eio.detect_format(p, fmt) for p in inputs]
    for path, target, form in zip(inputs, targets, formats, strict=True):
        if fields:
            eio.format_of_field_input(path, form, fmt, fields)
        if target is not None and by_name(target) is not None and form == "parquet":
            raise ConfigError(f"output {target}: Parquet compresses its own columns; name the "
                              "output .parquet, without a compression suffix")
        named = eio.NAMED_AS.get(Path(strip_suffix(target or "")).suffix.lower())
        # named like the input itself: the user chose --format for it (notes.csv --format txt)
        like_input = named == eio.NAMED_AS.get(Path(strip_suffix(path)).suffix.lower())
        if target is not None and target == output and named not in (None, _written_as(path, form)) \
                and not like_input:
            shown, written = "<stdin>" if path == "-" else path, _written_as(path, form)
            suffix = _SUFFIX_OF[written]
            if form == "file":  # a caption file is one text: its own extension (decision 0195)
                suffix = Path(strip_suffix(path)).suffix.lower() or suffix
            raise ConfigError(f"output {target} is named as {named}, but anonymize writes its input's "
                              f"format, {written} for {shown}; name the output {suffix}")
    return formats


def read_texts(path: str, *, fmt: str | None = None, fields: list[str] | None = None,
               encoding_errors: str = "strict") -> list[str]:
    """Every text to anonymize in ``path``, as ``anonymize`` reads them (the named fields of
    JSONL/CSV/Parquet records, each line of a text file; headers and blank lines skipped)."""
    return [text for texts in read_record_texts(path, fmt=fmt, fields=fields, encoding_errors=encoding_errors)
            for text in texts]


def read_record_texts(path: str, *, fmt: str | None = None, fields: list[str] | None = None,
                      encoding_errors: str = "strict") -> list[tuple[str, ...]]:
    """The texts of :func:`read_texts`, grouped by record (a record's named fields together; one
    text per line of a text file)."""
    return list(iter_record_texts(path, fmt=fmt, fields=fields, encoding_errors=encoding_errors))


def check_span_input(inputs: Sequence[str], scope: str) -> None:
    """Refuse what ``--spans`` cannot release: several inputs, standard input or another file that
    cannot be read twice (a named pipe: the span file is matched against it before the run reads
    it again, which then waited for ever), and scope ``all``. One line each."""
    if len(inputs) != 1:
        raise ConfigError(f"--spans holds the spans of one input file; {len(inputs)} INPUTs were given")
    if inputs[0] == "-":
        raise ConfigError("--spans holds the spans of one input file; give it as INPUT, not standard input")
    if os.path.exists(inputs[0]) and not os.path.isfile(inputs[0]):
        raise ConfigError(f"--spans needs INPUT as a regular file ({inputs[0]} is read twice: once to "
                          "match the span file, once to release it)")
    if scope == "all":
        raise ConfigError("--spans chooses what --scope detected or hybrid replaces; scope all "
                          "replaces every word")


def read_given_spans(path: str, input_path: str, *, fmt: str | None = None, fields: list[str] | None = None,
                     encoding_errors: str = "strict") -> list[tuple[Span, ...]]:
    """The spans of each text of ``input_path`` from the span file ``path`` (``detect``'s output,
    corrected by hand), in order: its i-th record must hold the input's i-th text (as ``detect``
    numbers them), its labels the tool's own, its spans not overlap. Errors name the file and the
    record's place, never its text. Memory holds the span file (its texts too)."""
    records = read_span_file(path, require_id=False, allow_empty=True)  # an input of no texts: none
    texts = (text for group in iter_record_texts(input_path, fmt=fmt, fields=fields,
                                                 encoding_errors=encoding_errors) for text in group)
    given: list[tuple[Span, ...]] = []
    mend = "; give detect's output for this input, corrected in place"
    if [r.id for r in records] != [str(i) for i in range(1, len(records) + 1)]:  # ids of a sample
        mend += " (its ids are not 1, 2, 3 ...: detect --sample writes a sample; run detect without it)"
    for n, (record, text) in enumerate(itertools.zip_longest(records, texts), 1):
        if record is None:
            raise InputError(f"{path} has {len(records):,} records, fewer than the texts of "
                             f"{input_path}{mend}")
        if text is None:
            raise InputError(f"{path} has {len(records):,} records, more than the {n - 1:,} texts of "
                             f"{input_path}{mend}")
        if record.text != text:
            raise InputError(f"{path}: record {n:,} holds another text than text {n:,} of {input_path}{mend}")
        try:
            given.append(disjoint_spans(record_spans(record)))
        except ValueError as exc:
            raise InputError(f"{path}: record {n:,}: spans {exc}") from None
    return given


def iter_record_texts(path: str, *, fmt: str | None = None, fields: list[str] | None = None,
                      encoding_errors: str = "strict") -> Iterator[tuple[str, ...]]:
    """The records of :func:`read_record_texts` one at a time: memory holds one record (one row
    group of a Parquet file), not the input. The arguments are checked before the first record
    is read, when the iteration begins."""
    for _, texts in iter_numbered_texts(path, fmt=fmt, fields=fields, encoding_errors=encoding_errors):
        yield texts


def iter_numbered_texts(path: str, *, fmt: str | None = None, fields: list[str] | None = None,
                        encoding_errors: str = "strict") -> Iterator[tuple[int, tuple[str, ...]]]:
    """:func:`iter_record_texts` with each record's number as the review page gives it: its place
    among the input's records, blank ones counted (a CSV header is none). ``detect`` names a
    record so; counting only the records with texts, its record 4 was the page's record 5 after
    a blank JSONL line."""
    eio.check_encoding_errors(encoding_errors)  # privacy-report took any Python error handler
    form = eio.detect_format(path, fmt)
    if fields:
        eio.format_of_field_input(path, form, fmt, fields)
    if form == "parquet":
        job = ParquetJob(path, io.BytesIO(), list(fields or ["text"]), path)
        records: Iterator[eio.Record] = job.records(write_back=False)
        yield from _numbered(records)
        return
    with eio.open_input(path) as fh:
        eio.refuse_binary(fh, path)
        records, _ = _reader(fh, path, form, list(fields or ["text"]), encoding_errors, fmt is None)
        yield from _numbered(records)


def _numbered(records: Iterator[eio.Record]) -> Iterator[tuple[int, tuple[str, ...]]]:
    number = 0
    for record in records:
        if record.header:
            continue
        number += 1
        if record.texts:
            yield number, tuple(record.texts)


def _run_one(records: Iterator[eio.Record], write: Callable[[eio.Record, tuple[str, ...]], None], *,
             anonymizer: Anonymizer, engine: Backend, stats: RunStats,
             progress: Callable[[int], None] | None, count_words: bool = False,
             position: Callable[[], int | None] = lambda: None, skip: int = 0,
             recount: bool = False, checkpoint: Callable[[int], None] | None = None,
             language: Callable[[LanguageSample], None] | None = None,
             given: Sequence[tuple[Span, ...]] | None = None) -> int:
    """Anonymize ``records`` in chunks on ``engine`` and ``write`` each one, in order, when all
    its texts are back; return how many records were written, ``skip`` included.

    Args:
        position: the compressed bytes read so far, for progress on a compressed input (None:
            each record's own size is the progress).
        skip: records already written by an interrupted run (read, counted in its journal, not
            anonymized again).
        recount: the skipped records' words were not counted (``count_words``): anonymize them
            again, without writing them, to count them.
        checkpoint: called after each chunk with the records written so far.
        language: given the sample of the input's first words once it is full (or the input
            ended), see :mod:`embedanon.language`; it may raise to stop the run.
        given: the spans of each text of the input, in order (``--spans``), skipped texts
            included; None: the detectors read every text.
    """
    sample = LanguageSample() if language is not None else None
    done = 0
    written = skip

    def advance(nbytes: int, now: int | None) -> None:
        """Progress past a record of ``nbytes`` that ended at compressed position ``now``
        (None: not compressed). Where a record was read, not where reading is when it is
        written: the chunks in flight are read ahead, and a compressed input showed 100 % while
        they were still being anonymized."""
        nonlocal done
        if progress is None:
            return
        if now is None:
            progress(nbytes)
        elif now > done:
            progress(now - done)
            done = now


    # and whether it is only counted again, and the compressed position it ended at (progress)
    pending: deque[tuple[eio.Record, bool, int | None]] = deque()
    config, key = anonymizer.config, anonymizer.key

    text_draws: deque[int] = deque()  # per text, in order, until its record is written

    def count_draws(n: int) -> None:
        stats.draws += n
        stats.longest_draws = max(stats.longest_draws, n)
        text_draws.append(n)

    queue: deque[tuple[Span, ...]] = deque()  # the given spans of the texts read, until tasked
    placed = 0  # texts read so far, skipped ones too: the place of the next in ``given``

    def texts() -> Iterator[str]:
        nonlocal sample, placed
        for n, record in enumerate(records):
            if sample is not None:  # a resumed run samples the skipped records too: one verdict
                for text in record.texts:
                    sample.add(text)
                if sample.full:
                    assert language is not None
                    language(sample)
                    sample = None
            again = n < skip  # written by the interrupted run
            at = position() if progress is not None else None
            first, placed = placed, placed + len(record.texts)
            if again and not recount:
                advance(record.nbytes, at)
                continue
            if given is not None:
                queue.extend(given[first:placed])
            pending.append((record, again, at))
            if count_words:
                for text in record.texts:
                    # word tokens as privacy-report and review count them; epsilon is spent per
                    # word part drawn (well-known: 2), and codes are redrawn uniformly (none)
                    tokens = split_words(text)[1::2]
                    stats.words += sum(token_kind(t) == "word" for t in tokens)
                    if config.scope.scope == "all":  # else the workers count what was released
                        count_draws(sum(map(drawn_parts, tokens)))
            yield from record.texts
        if sample is not None and language is not None:  # a short input: a verdict on all of it
            language(sample)

    def tasks() -> Iterator[Task]:
        for chunk in chunk_texts(texts()):
            spans = None if given is None else tuple(queue.popleft() for _ in chunk)
            yield Task(tuple(chunk), config, key, spans)

    results: deque[str] = deque()
    fell_back: deque[bool] = deque()
    for outputs, flags, draws, guarded in engine.map(run_counted, tasks()):
        results.extend(outputs)
        fell_back.extend(flags)
        if count_words and draws is not None:
            for n in draws:
                count_draws(n)
            stats.guarded += guarded
        # Write every record whose texts are all back (records read ahead wait in ``pending``).
        while pending and len(pending[0][0].texts) <= len(results):
            record, again, at = pending.popleft()
            done_texts = tuple(results.popleft() for _ in record.texts)
            fell = any([fell_back.popleft() for _ in record.texts])
            if count_words:
                stats.longest_record_draws = max(stats.longest_record_draws,
                                                 sum(text_draws.popleft() for _ in record.texts))
            if again:  # written, and counted but for its words, by the interrupted run
                advance(record.nbytes, at)
                continue
            write(record, done_texts)
            written += 1
            stats.full_scope_fallbacks += fell
            stats.records += not (record.header or record.blank)
            stats.texts += len(record.texts)
            stats.bytes_in += record.nbytes
            advance(record.nbytes, at)
        if checkpoint is not None:
            checkpoint(written)
    while pending:  # trailing records without texts (blank JSONL lines, a header)
        record, again, at = pending.popleft()
        if again:
            advance(record.nbytes, at)
            continue
        write(record, ())
        written += 1
        stats.records += not (record.header or record.blank)
        stats.bytes_in += record.nbytes
        advance(record.nbytes, at)
    advance(0, position())  # what follows the last record (a compressed stream's end)
    return written
