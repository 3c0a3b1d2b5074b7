"""The README's headline table from research/results/default/results.csv (no numbers typed by hand).

    .venv/bin/python research/results/headline.py [--levers|--canaries|--seeds] [RESULTS_DIR ...]
"""

from __future__ import annotations

import csv
import math
import sys
from pathlib import Path

import numpy as np

from embedanon.experiments.config import load_config
from embedanon.experiments.results import ninety_percent_point, summarize

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def table(results: Path) -> list[str]:
    with (results / "results.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    sums = summarize(rows)
    both = [s for s in sums if s.setting == "perturbed-both"]
    cells = sorted({(s.mechanism, s.variant, s.param, s.value) for s in both if s.mechanism != "none"},
                   key=lambda c: (["knn", "exponential", "laplace"].index(c[0]) if c[0] in
                                  ("knn", "exponential", "laplace") else 9, c[1], c[3]))
    head = "| corpus (docs, classes) | original | " + " | ".join(
        f"{v} {p if p != 'epsilon' else 'ε'}={x:g}" for _, v, p, x in cells) + " |"
    lines = [head, "|---|---:|" + "---:|" * len(cells)]
    datasets = list(dict.fromkeys(s.dataset for s in both))
    for name in datasets:
        base = next(s for s in both if s.dataset == name and s.mechanism == "none")
        meta = next(r for r in rows if r["dataset"] == name)
        out = [f"| {name} ({meta['documents']}, {meta['classes']}) | {base.macro_f1:.3f} |"]
        for _, variant, _, value in cells:
            s = next((s for s in both if s.dataset == name and s.variant == variant and s.value == value),
                     None)
            if s is None:
                out.append(" — |")
                continue
            attack = s.figures["attack_public_top1"]
            kept = 1 - s.figures["change_rate"]
            extra = (f", atk {100 * attack:.0f} %" if not math.isnan(attack) else "") + \
                (f", {100 * kept:.0f} % kept" if kept > 0.005 else "")
            out.append(f" {s.macro_f1:.3f} ({100 * s.share:.0f} %{extra}) |")
        lines.append("".join(out))
    lines.append("")
    config = load_config(REPO / "experiments" / "configs" / f"{results.name}.yaml")
    for name in datasets:
        parts = []
        for mech in config.mechanisms:
            grid = [s for s in both if s.dataset == name and s.variant == mech.variant]
            p = ninety_percent_point(grid)
            atk = "" if math.isnan(p.attack) else f", attack {100 * p.attack:.0f} %"
            parts.append(f"{mech.variant}: " + ("never" if p.status == "none" else
                                                 f"{mech.param} {'≤' if mech.param == 'k' else '≥'} "
                                                 f"{p.value:.3g}{atk}"))
        lines.append(f"- {name} — 90 % of original: " + "; ".join(parts))
    return lines


def canary_table(results: Path) -> list[str]:
    """Per corpus and release: the share of injected canary name parts released verbatim."""
    with (results / "results.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    both = [s for s in summarize(rows) if s.setting == "perturbed-both" and s.mechanism != "none"]
    cells = list(dict.fromkeys((s.variant, s.param, s.value) for s in both))
    head = " | ".join(f"{v} {p if p != 'epsilon' else 'ε'}={x:g}" for v, p, x in cells)
    lines = [f"| corpus | {head} |", "|---|" + "---:|" * len(cells)]
    parts = {r["dataset"]: r.get("canary_parts", "") for r in rows if r.get("canary_parts")}
    for name in dict.fromkeys(s.dataset for s in both):
        out = [f"| {name} ({parts.get(name, '?')} parts) |"]
        for variant, _, value in cells:
            s = next((s for s in both if (s.dataset, s.variant, s.value) == (name, variant, value)), None)
            leak = math.nan if s is None else s.figures["canary_leak"]
            out.append(" — |" if math.isnan(leak) else f" {100 * leak:.0f} % |")
        lines.append("".join(out))
    return lines


def seeds_table(results: Path) -> list[str]:
    """Share of original macro-F1 (mean ± sd over seeds) and attack top-1 per corpus and value."""
    with (results / "results.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    both = [r for r in rows if r["setting"] == "perturbed-both"]
    seeds = sorted({r["seed"] for r in both}, key=int)
    cells = list(dict.fromkeys((r["variant"], r["param"], r["value"])
                               for r in both if r["mechanism"] != "none"))
    lines = [f"| corpus (seeds {', '.join(seeds)}) | original | "
             + " | ".join(f"{v} {p}={x}" for v, p, x in cells) + " |", "|---|---:|" + "---:|" * len(cells)]
    for name in dict.fromkeys(r["dataset"] for r in both):
        base = {r["seed"]: float(r["macro_f1"]) for r in both
                if r["dataset"] == name and r["mechanism"] == "none"}
        b = np.array([base[k] for k in seeds if k in base])
        out = [f"| {name} | {b.mean():.3f} ± {b.std(ddof=1) if len(b) > 1 else 0:.3f} |"]
        for variant, _, value in cells:
            got = [r for r in both if (r["dataset"], r["variant"], r["value"]) == (name, variant, value)]
            share = np.array([float(r["macro_f1"]) / base[r["seed"]] for r in got if r["seed"] in base])
            atk = np.array([float(r["attack_public_top1"]) for r in got if r["attack_public_top1"]])
            sd = share.std(ddof=1) if len(share) > 1 else 0.0
            out.append(f" {100 * share.mean():.0f} ± {100 * sd:.0f} % (atk {100 * atk.mean():.0f} %) |")
        lines.append("".join(out))
    return lines


def lever_table(results: Path) -> list[str]:
    """One row per release variant, one column per corpus: share of original, attacks, change rate."""
    with (results / "results.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    both = [s for s in summarize(rows) if s.setting == "perturbed-both"]
    datasets = list(dict.fromkeys(s.dataset for s in both))
    lines = ["| release | " + " | ".join(f"{d}: macro-F1 (share) · attack top-1 / contextual · change"
                                         for d in datasets) + " |",
             "|---|" + "---:|" * len(datasets)]
    variants = list(dict.fromkeys((s.variant, s.param, s.value) for s in both))
    for variant, param, value in variants:
        out = [f"| {variant}" + ("" if math.isnan(value) else f" {param}={value:g}") + " |"]
        for d in datasets:
            s = next((s for s in both if s.dataset == d and s.variant == variant and s.value == value
                      or (s.dataset == d and variant == "none" and s.mechanism == "none")), None)
            if s is None:
                out.append(" — |")
            elif s.mechanism == "none":
                out.append(f" {s.macro_f1:.3f} |")
            else:
                f = s.figures
                context = f["attack_contextual_top1"]
                ctx = "" if math.isnan(context) else f" / {100 * context:.0f} %"
                out.append(f" {s.macro_f1:.3f} ({100 * s.share:.0f} %) · "
                           f"{100 * f['attack_public_top1']:.0f} %{ctx} · {f['change_rate']:.3f} |")
        lines.append("".join(out))
    return lines


MODES = {"--levers": lever_table, "--canaries": canary_table, "--seeds": seeds_table}

if __name__ == "__main__":
    args = sys.argv[1:]
    mode = next((MODES[a] for a in args if a in MODES), table)
    for arg in [a for a in args if a not in MODES] or [str(HERE / "default")]:
        print("\n".join(mode(Path(arg))) + "\n")
