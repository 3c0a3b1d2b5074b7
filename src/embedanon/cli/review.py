"""``embedanon review``: an HTML page for the release officer (original and anonymized side by side)."""

from __future__ import annotations

import os
import time
from typing import Annotated, Any, Optional

import typer

from ..errors import ConfigError
from ..files import check_paths, check_span_input, iter_record_texts, read_given_spans, release_files
from ..language import not_english_message, sample_of
from ..privacy.verdict import parse_overrides
from ..review import (
    DEFAULT_SAMPLE,
    MAX_SAMPLE,
    MAX_TEXT_CHARS,
    build_review,
    check_page_name,
    check_target,
    default_sources,
    summary_lines,
    write_review,
)
from .common import handle_errors
from .convention import examples
from .options import (
    EncodingErrorsOpt,
    FmtOpt,
    InputArg,
    ReviewFieldOpt,
    refuse_detectors_beside_spans,
    release_anonymizer,
    release_options,
)
from .progress import ProgressOpt, StageProgress, choose, show_notices

#: What each stage of :func:`~embedanon.review.build_review` counts, as the progress line says it.
UNITS = {"reading": ("record", "records"), "anonymizing": ("text", "texts"),
         "measuring": ("figure source", "figure sources"), "writing": ("page", "pages")}

EXAMPLES = examples(
    "embedanon review examples/visits.csv --field note -o review.html --key release.key",
    "embedanon review examples/notes.jsonl -o review.html --scope hybrid --sample 0 --no-attacks",
)


#: the figures a page measures without the attacks; the multi-release ones it never measures
_WITHOUT_ATTACKS = frozenset({"change_rate", "n_w", "s_w", "epsilon_record", "membership_auc"})
_NEVER_ON_A_PAGE = frozenset({"releases_top1", "releases_majority_top1", "releases_gain"})


def _check_thresholds_measured(overrides: dict[str, float], *, attacks: bool) -> None:
    """Refuse a --threshold for a figure the page will not measure: it held nothing, and the
    reader of the page took the limit for one that was checked."""
    for name in overrides:
        if name in _NEVER_ON_A_PAGE:
            raise ConfigError(f"--threshold {name}: the page measures one release (privacy-report "
                              "--releases N measures several)")
        if not attacks and name not in _WITHOUT_ATTACKS:
            raise ConfigError(f"--threshold {name} applies only with the attacks (drop --no-attacks)")


@handle_errors
@release_options
def review_command(
    input_path: InputArg,
    output: Annotated[str, typer.Option(
        "--output", "-o", metavar="FILE",
        help="The HTML page (a regular file; it contains the original text).")],
    sample: Annotated[int, typer.Option(
        metavar="N", help=f"Records shown, a uniform sample drawn with the key (0: all, up to {MAX_SAMPLE}).")
    ] = DEFAULT_SAMPLE,
    fmt: FmtOpt = None,
    field: ReviewFieldOpt = None,
    encoding_errors: EncodingErrorsOpt = "strict",
    attacks: Annotated[bool, typer.Option(
        "--attacks/--no-attacks", help="Run the re-identification attacks on the sample (slower).")] = True,
    threshold: Annotated[Optional[list[str]], typer.Option(
        help="Hold FIGURE to NUMBER instead of its default threshold in the verdict (repeatable; as "
             "privacy-report).", metavar="FIGURE=NUMBER")] = None,
    max_chars: Annotated[int, typer.Option(
        metavar="N", help="The most characters of one text the page shows and measures; a longer text is "
                          "cut at a word boundary and marked truncated (0: no limit).")] = MAX_TEXT_CHARS,
    spans: Annotated[Optional[str], typer.Option(
        "--spans", metavar="FILE",
        help="Show the release made with this span file (anonymize --spans FILE: detect's output for "
             "INPUT, corrected by hand) instead of running detectors.")] = None,
    progress: ProgressOpt = "auto",
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="No progress, no notices and no summary line.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log counts to stderr.")] = False,
    *,
    release: dict[str, Any],
) -> None:
    """Write an HTML review page: the release's privacy verdict and a sample of INPUT side by side.

    The page shows the privacy verdict of the release, the unchanged words that look like
    personal data, and a sample of INPUT's records, original and anonymized side by side.
    It contains the original text: handle it like the source data."""
    started = time.monotonic()
    mode = choose(progress, quiet, input_path == "-")
    if mode != "none":
        show_notices()
    check_target(output, name=False)
    if max_chars < 0:  # else 'max_chars must be ...', not the option typed
        raise ConfigError(f"--max-chars must be an integer >= 0 (0: no limit), got {max_chars}")
    overrides = parse_overrides(threshold)
    _check_thresholds_measured(overrides, attacks=attacks)
    # before reading the key or loading anything: the page must not replace a file the run reads
    check_paths([("input", input_path), *release_files(**release), *([("--spans", spans)] if spans else [])],
                [("output", output)])
    check_page_name(output)  # after: '-o notes.txt' for notes.txt is 'the same file as input'
    if spans is not None:  # the file's spans are the detection, as in anonymize --spans
        refuse_detectors_beside_spans(release)
    # as anonymize warns; only a regular file is read ahead: standard input or a named pipe is read
    # once, by the page (a sample read first left the page waiting on an emptied pipe for ever)
    if os.path.isfile(input_path) and not quiet:
        language = sample_of(text for texts in iter_record_texts(input_path, fmt=fmt, fields=field,
                                                                 encoding_errors=encoding_errors)
                             for text in texts)
        if language.english is False:
            typer.echo(f"warning: {not_english_message(input_path, language)}; the page's figures are "
                       "an English attacker's", err=True)
    anonymizer = release_anonymizer(**release)
    given = None
    if spans is not None:
        check_span_input([input_path], anonymizer.config.scope.scope)
        given = read_given_spans(spans, input_path, fmt=fmt, fields=field, encoding_errors=encoding_errors)
    shown = StageProgress(mode, "review", UNITS)
    try:
        review = build_review(input_path, anonymizer, fmt=fmt, fields=field, sample=sample,
                              encoding_errors=encoding_errors, sources=default_sources(attacks=attacks),
                              max_chars=max_chars, thresholds=overrides, progress=shown, spans=given)
        shown("writing", 0, 1)
        write_review(review, output)
        shown("writing", 1, 1)
    finally:
        shown.close()
    if verbose:
        for line in summary_lines(review):
            typer.echo(line, err=True)
    if not quiet:  # the last line of every run: counts and time, never text
        verdict = "no verdict" if review.verdict is None else review.verdict.summary()
        lookalikes = sum(len(t.lookalikes) for r in review.records for t in r.texts)
        typer.echo(f"reviewed {len(review.records):,} of {review.records_total:,} records in "
                   f"{time.monotonic() - started:.1f} s: {verdict}; {lookalikes:,} unchanged look-alikes "
                   "to check", err=True)
