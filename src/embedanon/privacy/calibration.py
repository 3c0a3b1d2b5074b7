"""Calibrate a mechanism: N_w, S_w and cosine similarity over a grid of epsilon (or k).

Following Feyisetan et al. (WSDM 2020), a sample of frequent candidate words is drawn once (seeded),
each word goes through the mechanism ``draws`` times per grid value, and for each value we report
the mean and the 10th/50th/90th percentiles over words of

* N_w, the fraction of draws that return the word itself;
* S_w, the number of distinct outputs;

and the mean cosine similarity between a word and its replacements. A useful epsilon lies where
N_w climbs from about 0 to well below 1: lower, every word becomes an unrelated word; higher,
most words survive.

Each grid value gets its own random stream derived from (seed, value), so a row does not depend
on which other values are in the grid.
"""

from __future__ import annotations

import csv
import math
import struct
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import IO, Any, TypeVar

import numpy as np

from .._atomic import AtomicBatch
from .._validate import positive_int, seed_int
from ..errors import ConfigError
from ..mechanisms import Mechanism, available, build_mechanism
from ..noise import GeneratorNoise
from ..vectors.defaults import DEFAULT_EMBEDDING, load_embedding
from ..vectors.index import NeighborIndex
from .attacks.bayes import PosteriorAttack
from .attacks.likelihood import likelihood_for
from .metrics import CHUNK_DRAWS, check_draws, word_statistics
from .prior import embedding_vocabulary, public_prior

#: Words are sampled among this many most frequent candidates (embedding files are in
#: frequency order: word2vec, GloVe, fastText and the default minilm-words all are).
DEFAULT_POOL = 5000
PLOT_HINT = "pip install embedanon[plot]"
N = TypeVar("N", int, float)


@dataclass(frozen=True, slots=True)
class CalibrationRow:
    """Statistics of one grid value (percentiles are over the sampled words)."""

    mechanism: str
    parameter: str
    value: float
    words: int
    draws: int
    n_w_mean: float
    n_w_p10: float
    n_w_p50: float
    n_w_p90: float
    s_w_mean: float
    s_w_p10: float
    s_w_p50: float
    s_w_p90: float
    cosine_mean: float
    seconds: float
    attack_top1: float = float("nan")


# ------------------------------------------------------------------------------------------------
# Parsing grids
# ------------------------------------------------------------------------------------------------
def parse_grid(text: str, kind: type[N], *, name: str) -> tuple[N, ...]:
    """A comma-separated grid of values, sorted, duplicates removed: ``parse_grid("10,1,5", float,
    name="epsilon")`` -> (1.0, 5.0, 10.0), finite numbers > 0; with ``int``, integers >= 1."""
    valid = "integers >= 1" if kind is int else "finite numbers > 0"
    values = []
    for part in _parts(text, name):
        try:
            value = kind(part)
        except ValueError:
            value = kind(0)
        if not math.isfinite(value) or value <= 0:
            raise ConfigError(f"{name} must be a comma-separated list of {valid}, got {part!r} in {text!r}")
        values.append(value)
    return tuple(sorted(set(values)))


def _parts(text: str, name: str) -> list[str]:
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a comma-separated string, got {type(text).__name__}")
    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or any(not p for p in parts):
        raise ConfigError(f"{name} must be a comma-separated list like '1,5,10', got {text!r}")
    return parts


def sweep_for(mechanism: str, epsilon: str | None, k: str | None, *,
              grid_optional: bool = False) -> tuple[str, tuple[float, ...], dict[str, Any]]:
    """Which parameter a calibration sweeps, its grid and the fixed parameters.

    Mechanisms that take ``epsilon`` sweep it (``k`` may then be one fixed value); ``knn``, which
    has no epsilon, sweeps ``k``. With ``grid_optional`` (a target is given) a missing grid is an
    empty one, for the recommender's default.
    """
    specs = available()
    spec = specs.get(mechanism.lower()) if isinstance(mechanism, str) else None
    if spec is None:
        raise ConfigError(f"unknown mechanism {mechanism!r}; choose one of {', '.join(sorted(specs))}")
    if "epsilon" in spec.params:
        fixed: dict[str, Any] = {}
        if k is not None:
            ks = parse_grid(k, int, name="k")
            if len(ks) != 1:
                raise ConfigError(f"k must be a single value for {spec.name!r}, got {k!r}")
            fixed["k"] = ks[0]
        if epsilon is None:
            if grid_optional:
                return "epsilon", (), fixed
            raise ConfigError(f"calibrating {spec.name!r} needs --epsilon, e.g. --epsilon 1,10,100")
        return "epsilon", parse_grid(epsilon, float, name="epsilon"), fixed
    if epsilon is not None:
        raise ConfigError(
            f"mechanism {spec.name!r} takes no epsilon (it is not differentially private); "
            f"calibrate it over k, e.g. --k 5,10,20"
        )
    if "k" not in spec.params:
        raise ConfigError(f"mechanism {spec.name!r} takes neither epsilon nor k; nothing to calibrate")
    if k is None:
        if grid_optional:
            return "k", (), {}
        raise ConfigError(f"calibrating {spec.name!r} needs --k, e.g. --k 5,10,20")
    return "k", tuple(float(v) for v in parse_grid(k, int, name="k")), {}


# ------------------------------------------------------------------------------------------------
# Calibration
# ------------------------------------------------------------------------------------------------
def sample_words(index: NeighborIndex, words: int, rng: np.random.Generator, *,
                 pool: int = DEFAULT_POOL) -> np.ndarray:
    """int64 (m,) ascending ids of ``words`` distinct words among the ``pool`` most frequent candidates
    (all of them when there are fewer)."""
    words = positive_int("words", words)
    pool_ids = index.candidates[:positive_int("pool", pool)]
    if words >= len(pool_ids):
        return np.sort(pool_ids).astype(np.int64)
    return np.sort(rng.choice(pool_ids, size=words, replace=False)).astype(np.int64)


def value_rng(entropy: int, value: float, *, stream: int = 1) -> np.random.Generator:
    """Stream of one grid value: depends only on (seed, value, stream)."""
    bits = int.from_bytes(struct.pack("<d", float(value)), "little")
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(stream, bits)))


def attack_top1(mechanism: Mechanism, index: NeighborIndex, ids: np.ndarray, draws: int,
                rng: np.random.Generator) -> float:
    """Top-1 of the Bayes attack with the public word frequencies on ``draws`` replacements of
    each word of ``ids`` (the one attack of :mod:`embedanon.privacy.attacks`).

    Raises:
        ConfigError: the mechanism has no exact law.
    """
    repeated = np.repeat(np.asarray(ids, dtype=np.int64), check_draws(draws))
    # sampled in chunks of CHUNK_DRAWS rows (bounded memory; one chunk, as before, up to 65,536 draws)
    ys = np.concatenate([
        np.asarray(mechanism.sample(part, GeneratorNoise(rng, len(part))), dtype=np.int64)
        for part in (repeated[i:i + CHUNK_DRAWS] for i in range(0, len(repeated), CHUNK_DRAWS))
    ]) if len(repeated) else repeated
    store = index.store
    vocabulary = embedding_vocabulary(store, public_prior(store))
    posterior = PosteriorAttack(likelihood_for(mechanism, index), vocabulary, store.words,
                                guarded=not mechanism.may_return_input)
    return posterior.run(repeated.tolist(), ys, (1,)).rate(1)


def calibrate(mechanism: str | Callable[..., Mechanism], values: Sequence[float], *,
              parameter: str = "epsilon", params: dict[str, Any] | None = None,
              index: NeighborIndex | None = None, embedding: str = DEFAULT_EMBEDDING,
              words: int = 200, draws: int = 100, seed: int = 0,
              pool: int = DEFAULT_POOL, attack: bool = False,
              on_value: Callable[[CalibrationRow], None] | None = None) -> list[CalibrationRow]:
    """N_w, S_w and cosine of ``mechanism`` for each value of ``parameter``.

    Args:
        mechanism: a registered name, or a factory ``f(index=..., **params)`` (for tests).
        values: the grid (e.g. epsilons).
        parameter: the swept parameter (``epsilon``; ``k`` for knn).
        params: fixed parameters of the mechanism.
        index: neighbor index to use; default: built from ``embedding``.
        words: number of words sampled (seeded) among the ``pool`` most frequent candidates.
        draws: replacements drawn per word and value.
        seed: seed of the word sample and of every draw.
        attack: also measure the Bayes attack with the public word frequencies on one more set of
            ``draws`` replacements per word (``attack_top1``; needs a mechanism with an exact law).
        on_value: called with each row once its value is measured (progress; counts only).
    """
    seed = seed_int(seed)
    draws = check_draws(draws)
    if not values:
        raise ConfigError(f"{parameter} grid is empty")
    if index is None:
        index = NeighborIndex(load_embedding(embedding))
    ids = sample_words(index, words, np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0,))),
                       pool=pool)
    vectors = index.store.vectors
    rows = []
    for value in values:
        typed: Any = int(value) if parameter == "k" else float(value)
        given = {**(params or {}), parameter: typed}
        if isinstance(mechanism, str):
            mech = build_mechanism(mechanism, index, **given)
        else:
            mech = mechanism(index=index, **given)
        started = time.perf_counter()
        stats = word_statistics(mech, ids, draws, value_rng(seed, value), vectors=vectors)
        top1 = attack_top1(mech, index, ids, draws, value_rng(seed, value, stream=2)) if attack else math.nan
        n_w = np.percentile(stats.n_w, [10, 50, 90])
        s_w = np.percentile(stats.s_w, [10, 50, 90])
        rows.append(CalibrationRow(
            mechanism=mech.name, parameter=parameter, value=float(value), words=len(ids), draws=draws,
            n_w_mean=float(stats.n_w.mean()), n_w_p10=float(n_w[0]), n_w_p50=float(n_w[1]),
            n_w_p90=float(n_w[2]), s_w_mean=float(stats.s_w.mean()), s_w_p10=float(s_w[0]),
            s_w_p50=float(s_w[1]), s_w_p90=float(s_w[2]), cosine_mean=float(stats.cosine.mean()),
            seconds=time.perf_counter() - started, attack_top1=top1,
        ))
        if on_value is not None:
            on_value(rows[-1])
    return rows


# ------------------------------------------------------------------------------------------------
# Output
# ------------------------------------------------------------------------------------------------
def has_matplotlib() -> bool:
    """Whether the optional plotting dependency (the ``plot`` extra) is installed."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def require_matplotlib() -> None:
    """Raise a one-line ConfigError when the optional plotting dependency is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ConfigError(f"plotting needs matplotlib: {PLOT_HINT} (or use --no-plot)") from None


def csv_text(rows: Sequence[CalibrationRow]) -> str:
    import io

    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=[f.name for f in fields(CalibrationRow)], lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in asdict(row).items()})
    return buf.getvalue()


def plot_png(rows: Sequence[CalibrationRow], path: Path | IO[bytes]) -> None:
    """Three panels against the grid (log scale): N_w, S_w (mean and p10-p90 band), cosine."""
    require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    x = [r.value for r in rows]
    fig = Figure(figsize=(12, 3.6), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 3)
    panels = [("N_w (fraction unchanged)", "n_w"), ("S_w (distinct outputs)", "s_w"),
              ("cosine(word, replacement)", "cosine")]
    for ax, (title, key) in zip(axes, panels, strict=True):
        mean = [getattr(r, f"{key}_mean") for r in rows]
        ax.plot(x, mean, marker="o", label="mean")
        if key != "cosine":
            ax.fill_between(x, [getattr(r, f"{key}_p10") for r in rows],
                            [getattr(r, f"{key}_p90") for r in rows], alpha=0.25, label="p10-p90")
            ax.legend(loc="best", fontsize=8)
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(rows[0].parameter if rows else "")
        ax.set_title(title, fontsize=10)
        ax.grid(True, alpha=0.3)
    if rows:
        r = rows[0]
        fig.suptitle(f"{r.mechanism}: {r.words} words x {r.draws} draws", fontsize=11)
    with warnings.catch_warnings():  # log axes over extreme epsilons warn about overflow; harmless
        warnings.simplefilter("ignore", RuntimeWarning)
        fig.savefig(path, format="png", dpi=110)


def write_outputs(rows: Sequence[CalibrationRow], out_dir: str | Path, *, plot: bool = True) -> list[Path]:
    """Write ``calibration-<mechanism>.csv`` (and ``.png``) into ``out_dir`` through one
    :class:`~embedanon._atomic.AtomicBatch`: all or nothing, public file modes."""
    if plot:
        require_matplotlib()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"calibration-{rows[0].mechanism}" if rows else "calibration"
    targets = [out / f"{stem}.csv"] + ([out / f"{stem}.png"] if plot else [])
    with AtomicBatch() as batch:
        batch.open(targets[0], private=False).write(csv_text(rows))
        if plot:
            plot_png(rows, batch.open(targets[1], private=False, binary=True))
    return targets


def format_table(rows: Sequence[CalibrationRow]) -> list[str]:
    """Lines of a plain-text table of the rows."""
    name = rows[0].parameter if rows else "value"
    lines = [f"{name:>10s}  {'N_w':>6s}  {'N_w p10-p90':>13s}  {'S_w':>6s}  {'S_w p10-p90':>13s}  "
             f"{'cosine':>6s}"]
    for r in rows:
        lines.append(
            f"{r.value:>10g}  {r.n_w_mean:6.3f}  {r.n_w_p10:6.3f}-{r.n_w_p90:<6.3f}  {r.s_w_mean:6.1f}  "
            f"{r.s_w_p10:6.1f}-{r.s_w_p90:<6.1f}  {r.cosine_mean:6.3f}"
        )
    return lines
