"""``embedanon review``: an HTML page for the release officer (original and anonymized side by side)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..errors import ConfigError
from ..io import same_file
from ..pipeline import Anonymizer
from ..review import (
    DEFAULT_SAMPLE,
    MAX_SAMPLE,
    build_review,
    check_target,
    default_sources,
    summary_lines,
    write_review,
)
from ..vectors.defaults import DEFAULT_EMBEDDING
from .common import handle_errors, setup_logging


@handle_errors
def review_command(
    input_path: Annotated[str, typer.Argument(metavar="INPUT", help="Input file ('-' for standard input).")],
    output: Annotated[str, typer.Option(
        "--output", "-o", metavar="FILE",
        help="The HTML page (a regular file; it contains the original text).")],
    sample: Annotated[int, typer.Option(
        metavar="N", help=f"Records shown, a uniform sample drawn with the key (0: all, up to {MAX_SAMPLE}).")
    ] = DEFAULT_SAMPLE,
    mechanism: Annotated[str, typer.Option(
        "--mechanism", "-m", help="Replacement mechanism (see 'embedanon mechanisms').")] = "knn",
    k: Annotated[Optional[int], typer.Option(help="knn: neighbourhood size (default 10).")] = None,
    epsilon: Annotated[Optional[float], typer.Option(
        help="Privacy parameter per word of the metric-DP mechanisms; a text of n words spends "
             "n*epsilon.")] = None,
    gamma: Annotated[Optional[float], typer.Option(
        help="tem: distance threshold of the truncated exponential mechanism.")] = None,
    lam: Annotated[Optional[float], typer.Option(
        help="mahalanobis: weight of the covariance in the noise, 0..1 (default 0.2).")] = None,
    key: Annotated[Optional[str], typer.Option(
        "--key", metavar="FILE",
        help="Release key file: with the key of the release, the page shows exactly the released text.")
    ] = None,
    seed: Annotated[Optional[int], typer.Option(
        help="For experiments only: derive the key from this integer.")] = None,
    fmt: Annotated[Optional[str], typer.Option(
        "--format", help="txt, jsonl or csv (default: from the file extension).")] = None,
    field: Annotated[Optional[list[str]], typer.Option(
        help="JSONL/CSV field to anonymize (repeatable; default 'text').")] = None,
    embedding: Annotated[str, typer.Option(help="Embedding name or file path.")] = DEFAULT_EMBEDDING,
    encoding_errors: Annotated[str, typer.Option(
        help="strict: stop on invalid UTF-8; replace: substitute U+FFFD.")] = "strict",
    min_length: Annotated[int, typer.Option(help="Shortest replacement word.")] = 2,
    allowlist: Annotated[Optional[str], typer.Option(
        help="Public word list (one word per line) that replacements must come from.")] = None,
    index: Annotated[str, typer.Option(
        "--index", help="Neighbour search: flat (exact), hnsw (approximate), auto.")] = "auto",
    attacks: Annotated[bool, typer.Option(
        "--attacks/--no-attacks", help="Run the re-identification attacks on the sample (slower).")] = True,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log counts to stderr.")] = False,
) -> None:
    """Write an HTML review page: a sample of INPUT's records, original and anonymized side by side,
    with change rates and privacy figures. The page contains the original text: handle it like
    the source data."""
    setup_logging(verbose)
    check_target(output)
    if same_file(input_path, output):
        raise ConfigError(f"output {output} is the same file as input {input_path}; choose another -o")
    anonymizer = Anonymizer(
        embedding, mechanism, k=k, epsilon=epsilon, gamma=gamma, lam=lam, key=key, seed=seed,
        min_length=min_length, allowlist=allowlist, index=index,
    )
    review = build_review(input_path, anonymizer, fmt=fmt, fields=field, sample=sample,
                          encoding_errors=encoding_errors, sources=default_sources(attacks=attacks))
    write_review(review, output)
    if verbose:
        for line in summary_lines(review):
            typer.echo(line, err=True)
