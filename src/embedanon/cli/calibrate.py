"""``embedanon calibrate``: N_w, S_w and cosine of a mechanism over a grid of epsilon (or k)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .._atomic import writable_directory
from ..privacy import calibration
from ..privacy.recommend import parse_target, recommend
from ..vectors.defaults import DEFAULT_EMBEDDING
from .common import handle_errors
from .convention import examples, old_spelling
from .progress import ProgressOpt, StageProgress, choose

EXAMPLES = examples(
    "embedanon calibrate -m laplace --epsilon 10,20,40 -o calibration/",
    "embedanon calibrate -m knn --k 5,10,20 --no-plot",
    "embedanon calibrate -m exponential --target n_w=0.3 --no-plot",
)


@handle_errors
def calibrate_command(
    mechanism: Annotated[str, typer.Option(
        "--mechanism", "-m", help="Mechanism to calibrate (see 'embedanon mechanisms').",
        metavar="NAME")],
    epsilon: Annotated[Optional[str], typer.Option(
        help="Comma-separated epsilons, e.g. 1,10,100 (mechanisms with an epsilon; with --target, "
             "default: a grid around the readable range).", metavar="EPSILONS")] = None,
    k: Annotated[Optional[str], typer.Option(
        help="knn: comma-separated neighborhood sizes to sweep, e.g. 5,10,20.", metavar="KS")] = None,
    gamma: Annotated[Optional[float], typer.Option(
        help="tem: distance threshold (fixed).", metavar="GAMMA")] = None,
    lam: Annotated[Optional[float], typer.Option(
        help="mahalanobis: covariance weight (fixed).", metavar="LAMBDA")] = None,
    target: Annotated[Optional[str], typer.Option(
        help="Recommend the value that meets FIGURE=LIMIT with the most utility: n_w=0.3 (a frequent "
             "word kept at most 30 % of the time), change_rate=0.7, or attack_top1=0.3 (the public-"
             "prior Bayes attack; exponential, tem and knn). The grid's crossing is bisected.",
        metavar="FIGURE=LIMIT")] = None,
    embedding: Annotated[str, typer.Option(
        help="Embedding name or file path.", metavar="NAME|PATH")] = DEFAULT_EMBEDDING,
    words: Annotated[int, typer.Option(
        help="Words sampled among the 5,000 most frequent candidates (at most all of them).",
        metavar="N")] = 200,
    draws: Annotated[int, typer.Option(
        help="Replacements drawn per word and grid value.", metavar="N")] = 100,
    seed: Annotated[int, typer.Option(help="Seed of the word sample and the draws.", metavar="N")] = 0,
    output: Annotated[str, typer.Option(
        "--output", "-o", help="Directory for calibration-MECHANISM.csv and .png.", metavar="DIR")] = ".",
    out: Annotated[Optional[str], typer.Option("--out", hidden=True, metavar="DIR")] = None,
    plot: Annotated[Optional[bool], typer.Option(
        "--plot/--no-plot", help="Also write the PNG plot (default: when matplotlib, the plot extra, is "
                                 "installed; --plot without it is an error).")] = None,
    progress: ProgressOpt = "auto",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress, notes or list of files written "
                                                          "(the table and advice still print).")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log counts to stderr.")] = False,
) -> None:
    """Measure what each epsilon (or k) does on an embedding: N_w, S_w and cosine per value.

    N_w is the fraction of draws returning the word itself, S_w the number of distinct outputs,
    cosine the similarity of a replacement to its word."""
    directory = old_spelling("--out", out, "-o/--output", output, parameter="output", default=".")
    goal = parse_target(target) if target is not None else None
    parameter, values, fixed = calibration.sweep_for(mechanism, epsilon, k, grid_optional=goal is not None)
    fixed.update({n: v for n, v in (("gamma", gamma), ("lam", lam)) if v is not None})
    writable_directory(directory)  # fail before the long part
    if plot:
        calibration.require_matplotlib()
    no_plot = plot is None and not calibration.has_matplotlib()  # the README: a plot with the extra
    plot = not no_plot if plot is None else plot
    advice = None
    # values measured so far (the bisection after --target's grid adds an unknown number)
    total = len(values) if goal is None else 0
    shown = StageProgress(choose(progress, quiet, False), "calibrate", {"measuring": ("value", "values")})
    measured: list[float] = []

    def on_value(row: calibration.CalibrationRow) -> None:
        measured.append(row.value)
        shown("measuring", len(measured), total)

    shown("measuring", 0, total)
    try:
        if goal is None:
            rows = calibration.calibrate(mechanism, values, parameter=parameter, params=fixed,
                                         embedding=embedding, words=words, draws=draws, seed=seed,
                                         on_value=on_value)
        else:
            advice = recommend(mechanism.lower(), *goal, values=values or None, parameter=parameter,
                               params=fixed, embedding=embedding, words=words, draws=draws, seed=seed,
                               on_value=on_value)
            rows = list(advice.rows)
    finally:
        shown.close()
    for line in calibration.format_table(rows):
        typer.echo(line)
    sampled = rows[0].words if rows else words
    if sampled < words and not quiet:  # the sample is drawn among the most frequent candidates: it was capped
        typer.echo(f"note: --words {words} is more than the {sampled} most frequent candidate words "
                   f"it samples from; all {sampled} were used", err=True)
    for line in advice.lines() if advice is not None else []:
        typer.echo(line)
    written = calibration.write_outputs(rows, directory, plot=plot)
    for path in written if not quiet else []:
        typer.echo(f"wrote {path}")
    stale = written[0].with_suffix(".png") if not plot and written else None
    # beside the new CSV, an earlier run's plot of other values
    if stale is not None and stale.exists() and not quiet:
        typer.echo(f"note: {stale} is from an earlier run (this one drew no plot)", err=True)
    if no_plot and not quiet:
        typer.echo(f"no plot: {calibration.PLOT_HINT} for one", err=True)
