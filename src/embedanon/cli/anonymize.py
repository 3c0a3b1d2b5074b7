"""``embedanon anonymize`` (also installed as the ``anonymize`` console script)."""

from __future__ import annotations

import logging
import os
import time
from typing import Annotated, Any, Optional

import typer

from .._english import counted
from ..backends.base import build_backend
from ..compressed import is_compressed
from ..files import (
    RunStats,
    anonymize_files,
    check_outputs,
    fallback_notice,
    kept_span_notice,
    nothing_replaced_warning,
    private_embedding_notice,
    release_files,
    run_report,
)
from .common import INTERRUPTED_NOTE, handle_errors
from .convention import examples
from .options import (
    EncodingErrorsOpt,
    EngineOpt,
    FieldOpt,
    FmtOpt,
    JobsOpt,
    SchedulerOpt,
    VersionOpt,
    key_warning,
    refuse_detectors_beside_spans,
    release_anonymizer,
    release_options,
)
from .progress import choose, run_with_progress, show_notices

EXAMPLES = examples(
    "embedanon keygen release.key",
    "anonymize examples/clinical_note.txt -o released.txt --key release.key",
    "anonymize examples/visits.csv --field note -o out/ --scope hybrid --key release.key",
    "anonymize examples/notes.jsonl -o released.jsonl.gz -m exponential --epsilon 12 --key release.key",
    "cat examples/clinical_note.txt | anonymize - --key release.key > released.txt",
)


@handle_errors
@release_options
def anonymize_command(
    inputs: Annotated[list[str], typer.Argument(
        metavar="INPUT...", help="Input files ('-' for standard input).")],
    output: Annotated[Optional[str], typer.Option(
        "--output", "-o", metavar="PATH",
        help="Output file; a directory (made if missing) for several inputs or a PATH ending in "
             "'/'; '-' or none: standard output. A .gz, .bz2, .xz or .zst name compresses.")] = None,
    fmt: FmtOpt = None,
    field: FieldOpt = None,
    jobs: JobsOpt = 1,
    engine: EngineOpt = "processes",
    scheduler: SchedulerOpt = None,
    encoding_errors: EncodingErrorsOpt = "strict",
    progress: Annotated[str, typer.Option(
        help="auto (a bar on a terminal, else nothing), bar, plain (a line every few seconds: batch "
             "jobs), none.",
        metavar="auto|bar|plain|none")] = "auto",
    report: Annotated[Optional[str], typer.Option(
        help="Write a run report (settings, counts, epsilon spent, timing; never text) as JSON.",
        metavar="FILE.json")] = None,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Keep a journal beside each output and, run again after an interruption, "
                         "continue from the last completed chunk (byte-identical to an uninterrupted "
                         "run; refused when the input, options or key changed). Uncompressed txt, "
                         "jsonl, csv and tsv files to -o only: not Parquet, .gz/.bz2/.xz/.zst outputs or "
                         "standard output.")] = False,
    spans: Annotated[Optional[str], typer.Option(
        "--spans", metavar="FILE",
        help="Release with the spans of this span file (detect's output for INPUT, corrected by hand) "
             "instead of running detectors: one INPUT, --scope detected or hybrid.")] = None,
    require_english: Annotated[bool, typer.Option(
        "--require-english", help="Refuse an input whose first 2,000 words do not look like English "
                                  "(without it: a one-line warning; an input of fewer than 300 words "
                                  "gets no verdict). The embedding, detectors and surrogates are "
                                  "English-only.")] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="No progress, no notices and no summary line.")] = False,
    version: VersionOpt = None,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="Log each stage (counts, never text).")] = False,
    *,
    release: dict[str, Any],
) -> None:
    """Anonymize INPUTS: replace every word, the personal information found, or both (--scope).

    all (the default): every word is replaced by a word drawn near it in an embedding.
    detected: only the personal information the detectors find is replaced.
    hybrid: both, the personal information by realistic surrogates.
    Records keep their order and every field but the ones anonymized (--field).
    The same data under the same --key is always released the same way.
    """
    INTERRUPTED_NOTE[:] = ["; run the same command again to continue it"] if resume else []
    mode = choose(progress, quiet, "-" in inputs)
    if mode != "none":  # with progress (a terminal, or asked for): first-use notices too
        show_notices()
    started = time.monotonic()
    # before reading the key or loading anything: no output may replace a file the run reads
    check_outputs(inputs, output, report=report,
                  reads=[*release_files(**release), *([("--spans", spans)] if spans else [])])
    if spans is not None:  # the file's spans are the detection: nothing may configure detectors
        refuse_detectors_beside_spans(release)
    anonymizer = release_anonymizer(**release)
    scoped = anonymizer.config.scope
    if scoped.scope != "all":  # -v: what happens to a span of each label
        actions = ", ".join(f"{label}={action}" for label, action in scoped.actions().items())
        guard = ("; name guard " + ("on" if scoped.name_guard else "off")) if scoped.scope == "hybrid" else ""
        logging.getLogger(__name__).info("scope %s, action per label: %s%s", scoped.scope, actions, guard)
    unchanged = nothing_replaced_warning(anonymizer.config)
    if unchanged is not None:  # a warning: --quiet does not hide it
        typer.echo(unchanged, err=True)
    kept = kept_span_notice(anonymizer.config)
    if kept is not None and not quiet:
        typer.echo(kept, err=True)
    backend = build_backend(engine, jobs=jobs) if engine == "processes" else build_backend(
        engine, scheduler=scheduler)
    total = sum(os.path.getsize(p) for p in inputs if os.path.isfile(p))
    compressed = any(is_compressed(p) for p in inputs if os.path.isfile(p))  # progress counts file bytes

    def render(stats: RunStats) -> str:  # the report goes in the outputs' batch: all or nothing
        return run_report(anonymizer, stats, time.monotonic() - started, engine=engine, jobs=jobs,
                          spans=spans is not None)

    result: list[RunStats] = []
    run_with_progress(mode, total, lambda callback: result.append(anonymize_files(
        inputs, output, anonymizer, fmt=fmt, fields=field, backend=backend,
        encoding_errors=encoding_errors, progress=callback, count_words=report is not None,
        report=None if report is None else (report, render), resume=resume,
        language="require" if require_english else "warn", spans=spans)), compressed=compressed)
    stats = result[0]
    seconds = time.monotonic() - started
    if not quiet:
        for line in stats.language_notices:  # counts and the input's name, never its text
            typer.echo(f"warning: {line}", err=True)
    notice = fallback_notice(stats)
    if notice is not None and not quiet:  # the count is in the report too
        typer.echo(notice, err=True)
    private = private_embedding_notice(anonymizer.config)
    if private is not None and not quiet:  # after the run, like the key's: a failure stays one line
        typer.echo(private, err=True)
    warning = key_warning(anonymizer.key)  # after the run: a failure stays one line
    if warning is not None:  # a warning, not a notice: --quiet does not hide it
        typer.echo(warning, err=True)
    if not quiet:  # the last line of every run: counts and time, never text
        resumed = (f", {stats.resumed_records:,} of them written by the interrupted run"
                   if stats.resumed_records else "")
        typer.echo(f"anonymized {counted(stats.records, 'record')} ({counted(stats.texts, 'text')}, "
                   f"{stats.bytes_in / 1e6:.2f} MB) from {counted(stats.inputs, 'input')} in {seconds:.1f} s"
                   f"{resumed}", err=True)
