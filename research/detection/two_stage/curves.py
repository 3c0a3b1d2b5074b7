"""Out-of-fold precision / recall curves of the two-stage detector on the real-text dev half.

For one first stage (the detector and its options, e.g. ``model_threshold=0.02``, or another
model directory), the verifier is fitted by the recipe of
``research/detection/verifier/train_verifier.py`` (same candidates, augmentation, generated data,
setting) in ``GroupKFold`` by source document, and every dev candidate gets an out-of-fold
probability. The curve is the overlap precision and recall on dev (all registers and per register)
at each verifier threshold of a grid, so first stages can be compared at equal recall or equal
precision, not only at the recipe's one operating point (>= 98 % of the found spans kept).

    python research/detection/two_stage/curves.py --generated gen-train-3101.jsonl \\
        --option model_threshold=0.02 --cache /tmp/cache-t0.02 --out curve-t0.02.json

Dev only (never test). Seeded like the recipe.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.model_selection import GroupKFold

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "verifier"))
import train_verifier as tv  # noqa: E402

from embedanon.detectors.registry import build_detectors  # noqa: E402

GRID = [round(x, 3) for x in np.concatenate([np.arange(0.01, 0.1, 0.01), np.arange(0.1, 0.9, 0.025)])]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--detector", default="model,regex")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--generated", action="append", default=[])
    ap.add_argument("--buckets", type=int, default=1 << 15)
    ap.add_argument("--dev-weight", type=float, default=4.0)
    ap.add_argument("--C", type=float, default=0.5, dest="c_value")
    ap.add_argument("--augment", type=int, default=2)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    options = dict(tv._option(o) for o in args.option)
    detector = build_detectors(args.detector, verify=False, **options)
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    records = tv.read(tv.DEV)
    dev = tv.collect(records, detector, args.buckets, "dev", cache / "dev.json")
    aug = tv.collect(tv.augmented(records, args.augment, args.seed), detector, args.buckets, "dev",
                     cache / f"aug{args.augment}-{args.seed}.json")
    gen = tv.Candidates()
    for path in args.generated:
        part = tv.collect(tv.read(Path(path)), detector, args.buckets, "generated",
                          cache / (Path(path).stem + ".json"))
        for name in ("rows", "dense", "y", "group", "register", "label"):
            getattr(gen, name).extend(getattr(part, name))
    x_dev, y_dev, groups = tv.matrix(dev, args.buckets), np.array(dev.y), np.array(dev.group)
    x_aug, y_aug, aug_groups = tv.matrix(aug, args.buckets), np.array(aug.y), np.array(aug.group)
    x_gen, y_gen = tv.matrix(gen, args.buckets), np.array(gen.y)
    oof = np.zeros(len(y_dev))
    for train, held in GroupKFold(n_splits=args.folds).split(x_dev, y_dev, groups=groups):
        inside = np.isin(aug_groups, groups[train])
        parts: list[Any] = [(x_dev[train], y_dev[train], args.dev_weight),
                            (x_aug[inside], y_aug[inside], args.dev_weight), (x_gen, y_gen, 1.0)]
        oof[held] = tv.fit(parts, args.c_value, args.seed).predict_proba(x_dev[held])[:, 1]
    curve = {"none": tv.figures(dev, np.ones(len(y_dev), dtype=bool))}
    for t in GRID:
        curve[str(t)] = tv.figures(dev, oof >= t)
    out = {"detector": args.detector, "options": options, "candidates": len(y_dev), "true": int(y_dev.sum()),
           "curve": curve, "proba": [round(float(p), 5) for p in oof]}
    Path(args.out).write_text(json.dumps(out, sort_keys=True) + "\n", encoding="utf-8")
    for key in ["none", *map(str, GRID)]:
        a = curve[key]["all"]
        print(f"{key:>6} P {a['precision']:.3f} R {a['recall']:.3f} of found {a['recall_of_found']:.3f} "
              f"pred {a['predicted']}", file=sys.stderr)


if __name__ == "__main__":
    main()
