"""Name recall by group pooled over several draws of the same held-out splits, with the group
tests of ``embedanon evaluate-detection`` on the pooled counts (more names per group: the power
to see a small real gap, or to rule out a large one).

    python research/detection/pooled_groups.py --out research/detection/pooled-round13.json \\
        [--model-path DIR] DIR1 DIR2 DIR3   # each with test-names / test-locales / test-text .jsonl
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path

from embedanon.detectors.evaluate import Counts, GroupRow, compare_groups, evaluate, read_span_file
from embedanon.detectors.registry import build_detectors


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--detectors", default="model,regex")
    ap.add_argument("--model-path", default=None, help="a model directory (default: the shipped one)")
    ap.add_argument("--splits", default="test-names,test-locales,test-text",
                    help="comma-separated split files")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    det = build_detectors(args.detectors, **({"model_path": args.model_path} if args.model_path else {}))
    out: dict = {"detectors": args.detectors, "model_path": args.model_path, "draws": args.dirs, "sets": {}}
    for split in args.splits.split(","):
        counts: dict[str, tuple[int, int]] = {}
        total = Counts()
        per_draw: list[dict] = []
        for d in args.dirs:
            rep = evaluate(read_span_file(Path(d) / f"{split}.jsonl"), det)
            total = total + rep.overlap
            per_draw.append({"draw": d, "recall": rep.overlap.recall, "precision": rep.overlap.precision,
                             "group_test": asdict(rep.group_test) if rep.group_test else None})
            for g in rep.groups:
                n, f = counts.get(g.group, (0, 0))
                counts[g.group] = (n + g.spans, f + g.found)
        rows = [GroupRow(g, n, f) for g, (n, f) in sorted(counts.items())]
        test = compare_groups(rows)
        pooled = {**asdict(total), "recall": total.recall, "precision": total.precision}
        out["sets"][split] = {"overall": pooled, "per_draw": per_draw,
                              "groups": [{**asdict(r), "recall": r.recall} for r in rows],
                              "group_test": asdict(test) if test else None}
        by_group = " ".join(f"{r.group}={r.recall:.4f} ({r.spans - r.found}/{r.spans})" for r in rows)
        print(split, f"R {pooled['recall']:.4f} P {pooled['precision']:.4f}", by_group)
        if test:
            print(f"  worst {test.worst}, gap {test.gap:.4f}; p: z {test.p_z:.4f}, chi2 {test.p_chi2:.4f}, "
                  f"exact chi2 {test.p_exact_chi2:.4f}, gap {test.p_range:.4f}; "
                  f"equivalence within {test.margin:g} {test.p_equivalence:.3g}")
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
