"""``embedanon calibrate``: N_w, S_w and cosine of a mechanism over a grid of epsilon (or k)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .._atomic import writable_directory
from ..privacy import calibration
from ..vectors.defaults import DEFAULT_EMBEDDING
from .common import handle_errors, setup_logging


@handle_errors
def calibrate_command(
    mechanism: Annotated[str, typer.Option(
        "--mechanism", "-m", help="Mechanism to calibrate (see 'embedanon mechanisms').")],
    epsilon: Annotated[Optional[str], typer.Option(
        help="Comma-separated epsilons, e.g. 1,10,100 (mechanisms with an epsilon).")] = None,
    k: Annotated[Optional[str], typer.Option(
        help="knn: comma-separated neighbourhood sizes to sweep, e.g. 5,10,20.")] = None,
    gamma: Annotated[Optional[float], typer.Option(help="tem: distance threshold (fixed).")] = None,
    lam: Annotated[Optional[float], typer.Option(help="mahalanobis: covariance weight (fixed).")] = None,
    embedding: Annotated[str, typer.Option(help="Embedding name or file path.")] = DEFAULT_EMBEDDING,
    words: Annotated[int, typer.Option(help="Words sampled among the most frequent candidates.")] = 200,
    draws: Annotated[int, typer.Option(help="Replacements drawn per word and grid value.")] = 100,
    seed: Annotated[int, typer.Option(help="Seed of the word sample and the draws.")] = 0,
    out: Annotated[str, typer.Option(help="Directory for calibration-<mechanism>.csv and .png.")] = ".",
    plot: Annotated[bool, typer.Option(help="Also write the PNG plot (needs matplotlib).")] = True,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log counts to stderr.")] = False,
) -> None:
    """Print N_w (fraction of draws returning the word), S_w (distinct outputs) and cosine per value."""
    setup_logging(verbose)
    parameter, values, fixed = calibration.sweep_for(mechanism, epsilon, k)
    fixed.update({n: v for n, v in (("gamma", gamma), ("lam", lam)) if v is not None})
    writable_directory(out)  # fail before the long part
    if plot:
        calibration.require_matplotlib()
    rows = calibration.calibrate(mechanism, values, parameter=parameter, params=fixed,
                                 embedding=embedding, words=words, draws=draws, seed=seed)
    for line in calibration.format_table(rows):
        typer.echo(line)
    for path in calibration.write_outputs(rows, out, plot=plot):
        typer.echo(f"wrote {path}")
