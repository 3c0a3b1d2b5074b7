"""``embedanon review``: an HTML page for the release officer (original and anonymized side by side)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ..files import check_paths, release_files
from ..review import (
    DEFAULT_SAMPLE,
    MAX_SAMPLE,
    build_review,
    check_target,
    default_sources,
    summary_lines,
    write_review,
)
from .common import handle_errors, setup_logging
from .options import EncodingErrorsOpt, FieldOpt, FmtOpt, release_anonymizer, release_options


@handle_errors
@release_options
def review_command(
    input_path: Annotated[str, typer.Argument(metavar="INPUT", help="Input file ('-' for standard input).")],
    output: Annotated[str, typer.Option(
        "--output", "-o", metavar="FILE",
        help="The HTML page (a regular file; it contains the original text).")],
    sample: Annotated[int, typer.Option(
        metavar="N", help=f"Records shown, a uniform sample drawn with the key (0: all, up to {MAX_SAMPLE}).")
    ] = DEFAULT_SAMPLE,
    fmt: FmtOpt = None,
    field: FieldOpt = None,
    encoding_errors: EncodingErrorsOpt = "strict",
    attacks: Annotated[bool, typer.Option(
        "--attacks/--no-attacks", help="Run the re-identification attacks on the sample (slower).")] = True,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log counts to stderr.")] = False,
    *,
    release: dict[str, Any],
) -> None:
    """Write an HTML review page: a sample of INPUT's records, original and anonymized side by side,
    with change rates and privacy figures. The page contains the original text: handle it like
    the source data."""
    setup_logging(verbose)
    check_target(output)
    # before reading the key or loading anything: the page must not replace a file the run reads
    check_paths([("input", input_path), *release_files(**release)], [("output", output)])
    anonymizer = release_anonymizer(**release)
    review = build_review(input_path, anonymizer, fmt=fmt, fields=field, sample=sample,
                          encoding_errors=encoding_errors, sources=default_sources(attacks=attacks))
    write_review(review, output)
    if verbose:
        for line in summary_lines(review):
            typer.echo(line, err=True)
