"""``calibrate --target``: the parameter of a mechanism that meets a target figure.

A target is one figure and its limit: ``n_w=0.3`` (a frequent word comes back unchanged at most 30 %
of the time), ``change_rate=0.7`` (at least 70 % of frequent words change), or
``attack_top1=0.3`` (the Bayes attacker with the public word frequencies recovers at most 30 % of
them, from one release). Each figure moves one way with the parameter: N_w and the attack rise
with epsilon and the change rate falls, and the attack falls with knn's k. The recommendation is
the value with the most utility that still meets the target: the largest epsilon, or the
smallest k.

The grid (the user's, or one around the readable range of :mod:`.epsilon`) is measured first
(:func:`~.calibration.calibrate`, the same words and streams), then the bracket where the figure
crosses the limit is bisected in log scale (``steps`` more values). Figures are measured on the
sampled frequent words, each word ``draws`` times: a frequency-uniform sample, not a text, so
``privacy-report`` on the data to be released remains the check of a chosen value.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from ..vectors.defaults import DEFAULT_EMBEDDING, load_embedding
from ..vectors.index import NeighborIndex
from .calibration import CalibrationRow, calibrate
from .epsilon import READABLE_RANGES

#: Targets: figure -> True when the figure must stay at or below the limit.
TARGETS = {"n_w": True, "change_rate": False, "attack_top1": True}
#: knn's default k grid.
K_GRID = (2.0, 5.0, 10.0, 20.0, 50.0)


def parse_target(text: str) -> tuple[str, float]:
    """``"n_w=0.3"`` -> ("n_w", 0.3): a known figure and a limit in [0, 1].

    Raises:
        ConfigError: anything else (the message names the figures).
    """
    name, sep, value = text.partition("=")
    name = name.strip().lower().replace("-", "_")
    try:
        limit = float(value)
    except ValueError:
        limit = math.nan
    if not sep or name not in TARGETS or not 0 <= limit <= 1:
        raise ConfigError(f"--target must be FIGURE=LIMIT with FIGURE one of {', '.join(TARGETS)} and a "
                          f"LIMIT in [0, 1], got {text!r}")
    return name, limit


def figure_of(row: CalibrationRow, target: str) -> float:
    """The target figure of a calibration row."""
    if target == "n_w":
        return row.n_w_mean
    if target == "change_rate":
        return 1.0 - row.n_w_mean
    return row.attack_top1


@dataclass(frozen=True, slots=True)
class Recommendation:
    """The recommended value for a target, and every value measured on the way.

    Attributes:
        target, limit: the figure and its limit.
        parameter: ``epsilon`` or ``k``.
        value: the recommended value (None: no value measured meets the target).
        figure: the target figure at ``value`` (None with it).
        rows: every row measured, by value.
    """

    target: str
    limit: float
    parameter: str
    value: float | None
    figure: float | None
    rows: tuple[CalibrationRow, ...]

    def lines(self) -> list[str]:
        """The recommendation in words."""
        at_most = TARGETS[self.target]
        goal = f"{self.target} {'<=' if at_most else '>='} {self.limit:g}"
        if self.value is None:
            side = "smaller" if self.parameter == "epsilon" else "larger"
            return [f"recommendation: no {self.parameter} measured meets {goal}; try {side} values"]
        shown = f"{_round_down(self.value):g}" if self.parameter == "epsilon" else f"{self.value:g}"
        most = "largest" if self.parameter == "epsilon" else "smallest"
        return [f"recommendation: --{self.parameter} {shown} (the {most} {self.parameter} measured with "
                f"{goal}: {self.target} = {self.figure:.3f}; check it on your data with privacy-report)"]


def _round_down(value: float, digits: int = 3) -> float:
    """``value`` cut to ``digits`` significant digits, never rounded up (13.0686 -> 13.0): the value
    shown still meets the target."""
    scale = 10 ** (digits - 1 - math.floor(math.log10(abs(value))))
    return math.floor(value * scale) / scale


def default_grid(mechanism: str, parameter: str) -> tuple[float, ...]:
    """A grid around the readable range (epsilon: 8 values from half its low end to twice its high
    end, geometric), or :data:`K_GRID`."""
    if parameter == "k":
        return K_GRID
    low, high = READABLE_RANGES.get(mechanism, (1.0, 100.0))
    start, stop = low / 2, high * 2
    return tuple(round(start * (stop / start) ** (i / 7), 3) for i in range(8))


def recommend(mechanism: str | Callable[..., Any], target: str, limit: float, *,
              values: Sequence[float] | None = None, parameter: str = "epsilon",
              params: dict[str, Any] | None = None, index: NeighborIndex | None = None,
              embedding: str = DEFAULT_EMBEDDING, words: int = 200, draws: int = 100, seed: int = 0,
              steps: int = 6, on_value: Callable[[CalibrationRow], None] | None = None) -> Recommendation:
    """The value of ``parameter`` that meets ``target`` with the most utility (module docstring).

    Args:
        mechanism: a registered name, or a factory (tests).
        target, limit: from :func:`parse_target`.
        values: the starting grid (default :func:`default_grid`).
        parameter, params, index, embedding, words, draws, seed: as :func:`~.calibration.calibrate`.
        steps: bisection steps after the grid.
        on_value: called with each row once its value is measured, the bisection's included.
    """
    if target not in TARGETS:
        raise ConfigError(f"unknown target {target!r}; targets: {', '.join(TARGETS)}")
    if parameter == "k" and target != "attack_top1":
        raise ConfigError("knn never returns its input (N_w 0, change rate 1): its target is attack_top1")
    if index is None:
        index = NeighborIndex(load_embedding(embedding))
    name = mechanism if isinstance(mechanism, str) else "?"
    grid = sorted(set(values or default_grid(name, parameter)))
    options = dict(params=params, parameter=parameter, index=index, words=words, draws=draws, seed=seed,
                   attack=target == "attack_top1", on_value=on_value)
    rows = {r.value: r for r in calibrate(mechanism, grid, **options)}  # type: ignore[arg-type]
    at_most = TARGETS[target]
    # safe values lie below the crossing for epsilon, above it for k
    safe_low = parameter == "epsilon"

    def safe(value: float) -> bool:
        figure = figure_of(rows[value], target)
        return figure <= limit if at_most else figure >= limit

    for _ in range(steps):
        ordered = sorted(rows)
        flags = [safe(v) for v in ordered]
        # the first crossing from safe to unsafe (epsilon), the last from unsafe to safe (k):
        # where noise makes the figure dip back, the conservative side
        crossings = [i for i in range(len(ordered) - 1)
                     if flags[i] != flags[i + 1] and flags[i] == safe_low]
        if not crossings:
            break
        i = crossings[0] if safe_low else crossings[-1]
        a, b = ordered[i], ordered[i + 1]
        middle = math.sqrt(a * b) if parameter == "epsilon" else float(round(math.sqrt(a * b)))
        if middle in rows or (parameter == "k" and middle in (a, b)):
            break
        rows.update({r.value: r for r in calibrate(mechanism, [middle], **options)})  # type: ignore[arg-type]
    ordered = sorted(rows)
    if safe_low:  # the largest value before the first unsafe one
        first_bad = next((v for v in ordered if not safe(v)), math.inf)
        good = [v for v in ordered if v < first_bad]
        value = max(good) if good else None
    else:  # the smallest value after the last unsafe one
        last_bad = max((v for v in ordered if not safe(v)), default=-math.inf)
        good = [v for v in ordered if v > last_bad]
        value = min(good) if good else None
    return Recommendation(target, limit, parameter, value,
                          None if value is None else figure_of(rows[value], target),
                          tuple(rows[v] for v in sorted(rows)))
