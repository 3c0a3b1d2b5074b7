"""``embedanon privacy-report``: change rate, N_w, S_w and attack success on a text file."""

from __future__ import annotations

import math
from typing import Annotated, Optional

import typer

from ..io import open_input, read_txt
from ..pipeline import Anonymizer
from ..privacy.metrics import PrivacyReport, privacy_report
from ..vectors.defaults import DEFAULT_EMBEDDING
from .common import handle_errors, setup_logging


@handle_errors
def privacy_report_command(
    input_path: Annotated[str, typer.Argument(metavar="INPUT", help="Text file (one document per line).")],
    mechanism: Annotated[str, typer.Option(
        "--mechanism", "-m", help="Replacement mechanism (see 'embedanon mechanisms').")] = "knn",
    epsilon: Annotated[Optional[float], typer.Option(
        help="Per-word epsilon of metric-DP mechanisms.")] = None,
    k: Annotated[Optional[int], typer.Option(help="knn: neighbourhood size (default 10).")] = None,
    gamma: Annotated[Optional[float], typer.Option(help="tem: distance threshold.")] = None,
    lam: Annotated[Optional[float], typer.Option(help="mahalanobis: covariance weight.")] = None,
    embedding: Annotated[str, typer.Option(help="Embedding name or file path.")] = DEFAULT_EMBEDDING,
    seed: Annotated[Optional[int], typer.Option(help="Seed for reproducible numbers.")] = None,
    draws: Annotated[int, typer.Option(help="Draws per word type for N_w and S_w.")] = 100,
    max_words: Annotated[int, typer.Option(help="Word types N_w and S_w are computed over.")] = 200,
    neighbors: Annotated[int, typer.Option(
        help="Attack: nearest words considered as pre-images of each replacement (not knn).")] = 10,
    mc_draws: Annotated[int, typer.Option(
        help="Attack on laplace/mahalanobis: samples per candidate pre-image.")] = 100,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log counts to stderr.")] = False,
) -> None:
    """Anonymize INPUT in memory and print counts and rates only (never text or word mappings)."""
    setup_logging(verbose)
    with open_input(input_path) as fh:
        texts = [record.texts[0] for record in read_txt(fh, input_path, "strict")]
    anonymizer = Anonymizer(embedding, mechanism, k=k, epsilon=epsilon, gamma=gamma, lam=lam, seed=seed)
    report = privacy_report(texts, anonymizer, draws=draws, max_words=max_words, neighbors=neighbors,
                            mc_draws=mc_draws)
    for line in format_report(report):
        typer.echo(line)


def _rate(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.3f}"


def format_report(report: PrivacyReport) -> list[str]:
    """Lines of the report (counts and rates only)."""
    c = report.change
    a, b = report.attack_uniform, report.attack_corpus
    if report.epsilon is None:
        spent = f"not applicable: {report.mechanism} is not differentially private (no epsilon)"
    else:
        e = report.epsilon
        spent = (f"n x epsilon for a document of n words (epsilon = {e:g} per word); "
                 f"longest document: {report.longest_document_words} x {e:g} = "
                 f"{report.longest_document_words * e:g}; whole input: {c.word_tokens} x {e:g} = "
                 f"{c.word_tokens * e:g}")
    return [
        f"mechanism:            {report.mechanism}",
        f"documents:            {report.documents}",
        f"tokens:               {c.tokens}  (not counting whitespace)",
        f"word tokens:          {c.word_tokens}",
        f"change rate:          {_rate(c.change_rate)}  "
        f"({c.changed_words} of {c.word_tokens} word tokens changed)",
        f"N_w:                  {_rate(report.n_w_mean)}  "
        f"(mean fraction unchanged; {report.stats_words} word types x {report.draws} draws)",
        f"S_w:                  {'n/a' if math.isnan(report.s_w_mean) else f'{report.s_w_mean:.1f}'}"
        f"  (mean distinct outputs in {report.draws} draws)",
        f"attack top-1 success: {_rate(a.success)} uniform prior, {_rate(b.success)} corpus prior  "
        f"({a.tokens} in-embedding word tokens; {a.method})",
        f"epsilon spent:        {spent}",
    ]
