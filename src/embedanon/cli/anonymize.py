"""``embedanon anonymize`` (also installed as the ``anonymize`` console script)."""

from __future__ import annotations

import os
import sys
from typing import Annotated, Optional

import typer

from ..backends.base import build_backend
from ..files import anonymize_files
from ..pipeline import Anonymizer
from ..vectors.defaults import DEFAULT_EMBEDDING
from .common import handle_errors, setup_logging


@handle_errors
def anonymize_command(
    inputs: Annotated[list[str], typer.Argument(help="Input files ('-' for standard input).")],
    output: Annotated[Optional[str], typer.Option(
        "--output", "-o", help="Output file, or directory for several inputs ('-': stdout).")] = None,
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
        help="Release key file (see 'embedanon keygen'): the same data under the same key is "
             "always released as the same text, so a repeated export reveals nothing new.")] = None,
    seed: Annotated[Optional[int], typer.Option(
        help="For experiments only: derive the key from this integer. A small seed can be "
             "guessed from the output and the noise replayed; never release with --seed.")] = None,
    fmt: Annotated[Optional[str], typer.Option(
        "--format", help="txt, jsonl or csv (default: from the file extension).")] = None,
    field: Annotated[Optional[list[str]], typer.Option(
        help="JSONL/CSV field to anonymize (repeatable; default 'text').")] = None,
    jobs: Annotated[int, typer.Option(help="Worker processes (processes engine).")] = 1,
    engine: Annotated[str, typer.Option(
        help="Where chunks run: processes (this machine) or dask (a cluster).")] = "processes",
    scheduler: Annotated[Optional[str], typer.Option(
        metavar="ADDRESS", help="dask: scheduler address (default: a local cluster).")] = None,
    embedding: Annotated[str, typer.Option(help="Embedding name or file path.")] = DEFAULT_EMBEDDING,
    encoding_errors: Annotated[str, typer.Option(
        help="strict: stop on invalid UTF-8; replace: substitute U+FFFD.")] = "strict",
    min_length: Annotated[int, typer.Option(help="Shortest replacement word.")] = 2,
    allowlist: Annotated[Optional[str], typer.Option(
        help="Public word list (one word per line) that replacements must come from.")] = None,
    index: Annotated[str, typer.Option(
        "--index", help="Neighbour search: flat (exact), hnsw (approximate), auto (hnsw for very "
                        "large vocabularies).")] = "auto",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log counts to stderr.")] = False,
) -> None:
    """Replace every word of INPUTS by a word sampled near it in a word-embedding space."""
    setup_logging(verbose)
    anonymizer = Anonymizer(
        embedding, mechanism, k=k, epsilon=epsilon, gamma=gamma, lam=lam, key=key, seed=seed,
        min_length=min_length, allowlist=allowlist, index=index,
    )
    backend = build_backend(engine, jobs=jobs) if engine == "processes" else build_backend(
        engine, scheduler=scheduler)
    show = not quiet and sys.stderr.isatty() and "-" not in inputs
    if not show:
        anonymize_files(inputs, output, anonymizer, fmt=fmt, fields=field, backend=backend,
                        encoding_errors=encoding_errors)
        return
    total = sum(os.path.getsize(p) for p in inputs if os.path.isfile(p))
    with typer.progressbar(length=total, label="anonymizing", file=sys.stderr) as bar:
        anonymize_files(inputs, output, anonymizer, fmt=fmt, fields=field, backend=backend,
                        encoding_errors=encoding_errors, progress=bar.update)
