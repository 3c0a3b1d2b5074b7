"""Average the weights of several ``model`` detector runs of one recipe (a "weight soup").

    python research/scripts/average_detectors.py RUN1 RUN2 RUN3 --out DIR

The runs must share clusters, buckets and feature flags (``train_detector.py --cluster-seed``);
the result scores every token with the mean of the runs' logits, at the cost of one model
(:func:`embedanon.detectors.weights.average_weights`). The manifest is the first run's, less its
metrics, plus ``averaged`` and the members' training seeds.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from embedanon.detectors.weights import Weights, average_weights
from embedanon.errors import ConfigError


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", help="model directories (weights.npz + manifest.json)")
    ap.add_argument("--out", required=True, help="directory for the averaged model")
    args = ap.parse_args(argv)
    out = Path(args.out)
    if out.resolve() in {Path(r).resolve() for r in args.runs}:
        ap.error("--out must not be one of the runs")
    try:
        members = [Weights.load(r) for r in args.runs]
        averaged = average_weights(members)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    averaged.manifest["members"] = [
        {"seed": m.manifest.get("train", {}).get("seed"), "path": Path(r).name}
        for m, r in zip(members, args.runs, strict=True)
    ]
    averaged.save(out)
    print(f"averaged {len(members)} runs -> {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
