"""Summaries of ``results.csv``: mean over seeds, share of original, 90 % points, tables, plots.

* :func:`summarize`: one :class:`Summary` per (dataset, classifier, variant, value, setting);
  ``share`` is the macro-F1 divided by the original text's macro-F1 for the same dataset,
  classifier and seeds.
* :func:`ninety_percent_point`: the most private value of a mechanism's grid at which the share
  is still >= 90 %, interpolated linearly between the two grid points around the crossing
  (larger ``k`` and smaller ``epsilon`` are more private), with the attack success interpolated
  the same way.
* :func:`write_reports`: ``results.md`` (tables) and ``plot-<dataset>-<classifier>.png``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._atomic import atomic_write
from ..privacy.verdict import wilson_interval
from .config import ExperimentConfig, file_name

TARGET_SHARE = 0.9
#: Parameters for which a larger value is more private (every other one: smaller is).
MORE_PRIVATE_WHEN_LARGER = frozenset({"k"})


@dataclass(frozen=True, slots=True)
class Summary:
    """Mean over seeds of one (dataset, classifier, variant, value, setting).

    Attributes:
        macro_f1, macro_f1_sd: mean and standard deviation over seeds (sd 0 for one seed).
        fold_sd: the standard deviation of macro-F1 over the cross-validation folds (mean over
            seeds; nan when the rows lack it): the spread a single seed shows.
        share: macro_f1 / the original's macro_f1 (nan for the original itself).
        figures: means over seeds of the privacy columns (nan when absent).
    """

    dataset: str
    classifier: str
    mechanism: str
    variant: str
    param: str
    value: float
    setting: str
    seeds: int
    macro_f1: float
    macro_f1_sd: float
    accuracy: float
    share: float
    figures: dict[str, float]
    fold_sd: float = math.nan

    def spread(self) -> str:
        """`` ± sd`` over seeds when there are several, else `` ± sd (folds)`` over the folds of
        the one seed, else nothing."""
        if self.seeds > 1:
            return f" ± {self.macro_f1_sd:.3f}"
        return "" if math.isnan(self.fold_sd) else f" ± {self.fold_sd:.3f} (folds)"

    @property
    def error(self) -> float:
        """The plot's error bar: the sd over seeds, or over the folds of a single seed."""
        if self.seeds > 1 or math.isnan(self.fold_sd):
            return self.macro_f1_sd
        return self.fold_sd


#: The columns of ``results.csv``, one row per (cell, seed, setting).
COLUMNS = (
    "dataset",
    "mechanism",
    "variant",
    "param",
    "value",
    "classifier",
    "seed",
    "setting",
    "accuracy",
    "macro_f1",
    "macro_f1_std",
    "change_rate",
    "oov_rate",
    "repeat_link",
    "n_w",
    "s_w",
    "attack_public_top1",
    "attack_public_top5",
    "attack_uniform_top1",
    "attack_oov_top1",
    "attack_overall_top1",
    "attack_contextual_top1",
    "attack_tokens",
    "attack_public_tokens",
    "canary_leak",
    "canary_parts",
    "documents",
    "classes",
    "anonymize_seconds",
    "seconds",
    "cell",
)

#: Per-cell figures averaged over seeds: the runner's columns from the change rate to the
#: contextual attack, the canary leak and the time (one list of columns).
_FIGURES = (*COLUMNS[COLUMNS.index("change_rate") : COLUMNS.index("attack_contextual_top1") + 1],
            "attack_tokens", "attack_public_tokens", "canary_leak", "canary_parts", "seconds")


def _num(value: Any) -> float:
    if value is None or value == "":
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _mean(values: Sequence[float]) -> float:
    finite = [v for v in values if not math.isnan(v)]
    return float(np.mean(finite)) if finite else math.nan


def summarize(rows: Sequence[dict[str, Any]]) -> list[Summary]:
    """Group rows by (dataset, classifier, variant, value, setting) and average over seeds."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        key = (
            row["dataset"],
            row["classifier"],
            row["mechanism"],
            row["variant"],
            row["param"],
            _num(row["value"]),
            row["setting"],
        )
        groups[key].append(row)
    originals = {
        (k[0], k[1], k[6]): _mean([_num(r["macro_f1"]) for r in g])
        for k, g in groups.items()
        if k[2] == "none"
    }
    out = []
    for key, group in groups.items():
        f1 = [_num(r["macro_f1"]) for r in group]
        base = originals.get((key[0], key[1], key[6]), math.nan)
        mean = _mean(f1)
        out.append(
            Summary(
                dataset=key[0],
                classifier=key[1],
                mechanism=key[2],
                variant=key[3],
                param=key[4],
                value=key[5],
                setting=key[6],
                seeds=len(group),
                macro_f1=mean,
                macro_f1_sd=float(np.std(f1, ddof=1)) if len(f1) > 1 else 0.0,
                accuracy=_mean([_num(r["accuracy"]) for r in group]),
                share=math.nan if key[2] == "none" or not base else mean / base,
                figures={f: _mean([_num(r.get(f)) for r in group]) for f in _FIGURES},
                fold_sd=_mean([_num(r.get("macro_f1_std")) for r in group]),
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class NinetyPoint:
    """Where a mechanism's grid crosses 90 % of the original macro-F1.

    Attributes:
        value: the interpolated parameter value, or nan.
        attack: the public-prior top-1 attack success interpolated at ``value`` (nan if unknown).
        status: ``interpolated``, ``whole grid`` (every value keeps >= 90 %), ``none`` (no value
            does) or ``grid point``.
    """

    value: float
    attack: float
    status: str


def ninety_percent_point(points: Sequence[Summary], target: float = TARGET_SHARE) -> NinetyPoint:
    """The most private value whose share is >= ``target`` (see the module docstring)."""
    if not points:
        return NinetyPoint(math.nan, math.nan, "none")
    larger = points[0].param in MORE_PRIVATE_WHEN_LARGER
    ordered = sorted(points, key=lambda s: -s.value if larger else s.value)  # most private first
    for i, s in enumerate(ordered):
        if s.share >= target:
            if i == 0:
                return NinetyPoint(s.value, s.figures["attack_public_top1"], "whole grid")
            p = ordered[i - 1]
            if s.share == p.share:
                return NinetyPoint(s.value, s.figures["attack_public_top1"], "grid point")
            t = (target - p.share) / (s.share - p.share)
            value = p.value + t * (s.value - p.value)
            a0, a1 = p.figures["attack_public_top1"], s.figures["attack_public_top1"]
            return NinetyPoint(value, a0 + t * (a1 - a0), "interpolated")
    return NinetyPoint(math.nan, math.nan, "none")


def _pct(x: float) -> str:
    return "—" if math.isnan(x) else f"{100 * x:.0f} %"


def _pct_of(x: float, n: float) -> str:
    """A share with its 95 % Wilson interval over ``n`` outcomes (one seed's): ``45 % (36-54)``."""
    if math.isnan(x) or math.isnan(n) or n < 1:
        return _pct(x)
    low, high = wilson_interval(x, int(round(n)))
    return f"{100 * x:.0f} % ({100 * low:.0f}-{100 * high:.0f})"


def _f(x: float, digits: int = 3) -> str:
    return "—" if math.isnan(x) else f"{x:.{digits}f}"


def _value(param: str, value: float) -> str:
    if math.isnan(value):
        return ""
    return f"{param}={value:g}"


def markdown(config: ExperimentConfig, summaries: Sequence[Summary]) -> str:
    """The tables of ``results.md``: per dataset and classifier, original then every cell."""
    lines = [
        f"# {config.name}",
        "",
        f"Seeds {', '.join(map(str, config.seeds))}; {config.folds}-fold stratified CV; macro-F1 mean over "
        "seeds ± its sd over the seeds; with one seed, ± its sd over the CV folds (*folds*). "
        "*both*: train and test on the release; *train*: train on the release, test on the original. "
        "Attack: public-prior Bayes top-1 on in-vocabulary words "
        "(embedanon.privacy.attacks.run_attacks); *overall*: all words incl. out-of-vocabulary ones "
        "(those released unchanged, and the words a `keep` lever releases, count as recovered). "
        "In brackets: the 95 % Wilson interval over the attacked in-vocabulary word tokens (attack "
        "top-1; none for cells written before that count was kept) and the "
        "canary name parts (canary leak) of one seed; tokens of one document are not independent, "
        "so it is a floor on the uncertainty.",
        "",
    ]
    index = {(s.dataset, s.classifier, s.variant, s.value, s.setting): s for s in summaries}
    for spec in config.datasets:
        for classifier in config.classifiers:
            base = index.get((spec.name, classifier, "none", math.nan, "perturbed-both"))
            cells = [
                s
                for s in summaries
                if s.dataset == spec.name
                and s.classifier == classifier
                and s.setting == "perturbed-both"
                and s.mechanism != "none"
            ]
            if base is None and not cells:
                continue
            lines += [
                f"## {spec.name} — {classifier}",
                "",
                "| release | macro-F1 both | share | macro-F1 train | share | accuracy both | change rate "
                "| N_w | attack top-1 | attack overall | repeat link | canary leak | s/cell |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            ]
            if base is not None:
                sd = base.spread()
                lines.append(
                    f"| original | {base.macro_f1:.3f}{sd} | — | {base.macro_f1:.3f} | — | "
                    f"{base.accuracy:.3f} | 0 | 1 | — | — | — | {_pct(base.figures['canary_leak'])} | "
                    f"{_f(base.figures['seconds'], 1)} |"
                )
            order = {m.variant: i for i, m in enumerate(config.mechanisms)}
            for s in sorted(cells, key=lambda s: (order.get(s.variant, 99), s.value)):
                t = index.get((s.dataset, s.classifier, s.variant, s.value, "perturbed-train"))
                sd = s.spread()
                g = s.figures
                lines.append(
                    f"| {s.variant} {_value(s.param, s.value)} | {s.macro_f1:.3f}{sd} | {_pct(s.share)} | "
                    f"{_f(t.macro_f1) if t else '—'} | {_pct(t.share) if t else '—'} | {s.accuracy:.3f} | "
                    f"{_f(g['change_rate'])} | {_f(g['n_w'])} | "
                    f"{_pct_of(g['attack_public_top1'], g['attack_public_tokens'])} | "
                    f"{_pct(g['attack_overall_top1'])} | {_f(g['repeat_link'], 2)} | "
                    f"{_pct_of(g['canary_leak'], g['canary_parts'])} | {_f(g['seconds'], 1)} |"
                )
            lines.append("")
            points = []
            for mech in config.mechanisms:
                grid = [s for s in cells if s.variant == mech.variant]
                if len(grid) >= 1:
                    p = ninety_percent_point(grid)
                    if p.status == "none":
                        points.append(
                            f"- {mech.variant}: no value of its grid keeps 90 % of the original "
                            "macro-F1 (both)"
                        )
                    else:
                        points.append(
                            f"- {mech.variant}: keeps 90 % of the original macro-F1 (both) up to "
                            f"{mech.param} = {p.value:.3g} ({p.status}); attack top-1 there {_pct(p.attack)}"
                        )
            lines += points + [""]
    return "\n".join(lines)


def plot(
    config: ExperimentConfig, summaries: Sequence[Summary], dataset: str, classifier: str, path: Path
) -> bool:
    """One PNG: a panel per mechanism entry, macro-F1 against its parameter, attack on a 2nd axis.

    Returns False (and writes nothing) when matplotlib is not installed.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    mine = [s for s in summaries if s.dataset == dataset and s.classifier == classifier]
    base = {s.setting: s for s in mine if s.mechanism == "none"}
    mechs = [m for m in config.mechanisms if any(s.variant == m.variant for s in mine)]
    if not mechs:
        return False
    cols = min(3, len(mechs))
    rows = math.ceil(len(mechs) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.6 * rows), squeeze=False)
    legend: tuple[list[Any], list[str]] = ([], [])
    for ax, mech in zip(axes.flat, mechs, strict=False):
        for setting, style in (("perturbed-both", "-o"), ("perturbed-train", "--s")):
            pts = sorted(
                (s for s in mine if s.variant == mech.variant and s.setting == setting), key=lambda s: s.value
            )
            if pts:
                ax.errorbar(
                    [s.value for s in pts],
                    [s.macro_f1 for s in pts],
                    yerr=[s.error for s in pts],
                    fmt=style,
                    color="tab:blue",
                    capsize=2,
                    label=f"macro-F1 ({setting})",
                )
        if "perturbed-both" in base:
            ref = base["perturbed-both"].macro_f1
            ax.axhline(ref, color="black", lw=1, label="original text")
            ax.axhline(TARGET_SHARE * ref, color="grey", lw=1, ls=":", label="90 % of original")
        ax.set_xlabel(mech.param)
        ax.set_ylabel("macro-F1")
        ax.set_title(mech.variant, fontsize=10)
        pts = sorted(
            (s for s in mine if s.variant == mech.variant and s.setting == "perturbed-both"),
            key=lambda s: s.value,
        )
        attack = [s.figures["attack_public_top1"] for s in pts]
        label, ylabel = "attack top-1", "attack top-1 (public prior)"
        if pts and all(math.isnan(a) for a in attack):
            # no attack figure (no exact law, or attack_dense off): words released unchanged instead
            attack = [1 - s.figures["change_rate"] for s in pts]
            label, ylabel = "words unchanged", "words released unchanged"
        handles, names = ax.get_legend_handles_labels()
        if pts and not all(math.isnan(a) for a in attack):
            twin = ax.twinx()
            twin.plot([s.value for s in pts], attack, "^-", color="tab:red", label=label)
            twin.set_ylabel(ylabel, color="tab:red")
            twin.set_ylim(0, 1)
            twin.tick_params(axis="y", colors="tab:red")
            more = twin.get_legend_handles_labels()
            handles, names = handles + more[0], names + more[1]
        legend = max(legend, (handles, names), key=lambda h: len(h[1]))
    for ax in list(axes.flat)[len(mechs) :]:
        ax.axis("off")
    fig.suptitle(f"{dataset} — {classifier}", fontsize=11)
    fig.legend(*legend, loc="lower center", ncol=len(legend[1]) or 1, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.1 / rows, 1, 1))
    with atomic_write(path, private=False, binary=True) as fh:
        fig.savefig(fh, format="png", dpi=90)
    plt.close(fig)
    return True


def write_markdown(config: ExperimentConfig, rows: Sequence[dict[str, Any]], output: Path) -> list[Summary]:
    """Write ``results.md`` (atomically) from ``rows``; return the summaries."""
    summaries = summarize(rows)
    with atomic_write(output / "results.md", private=False) as fh:
        fh.write(markdown(config, summaries) + "\n")
    return summaries


def write_reports(
    config: ExperimentConfig,
    rows: Sequence[dict[str, Any]],
    output: Path,
    *,
    progress: Callable[[str], None] | None = None,
) -> list[Summary]:
    """Write ``results.md`` and the plots under ``output``; return the summaries."""
    summaries = write_markdown(config, rows, output)
    plotted = 0
    for spec in config.datasets:
        for classifier in config.classifiers:
            plotted += plot(
                config,
                summaries,
                spec.name,
                classifier,
                output / f"plot-{file_name(spec.name)}-{file_name(classifier)}.png",
            )
    if progress is not None:
        progress(
            f"wrote {output / 'results.csv'}, results.md and {plotted} plot{'' if plotted == 1 else 's'}"
            + ("" if plotted else " (install matplotlib for plots)")
        )
    return summaries
