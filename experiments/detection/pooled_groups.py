"""Name recall by group pooled over several draws of the same held-out splits, with the group
tests of ``embedanon evaluate-detection`` on the pooled counts (more names per group: the power
to see a small real gap, or to rule out a large one).

    python experiments/detection/pooled_groups.py --out experiments/detection/pooled-round13.json \\
        DIR1 DIR2 DIR3      # each with test-names / test-locales / test-text .jsonl
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path

from embedanon.detectors.evaluate import GroupRow, compare_groups, evaluate, read_span_file
from embedanon.detectors.registry import build_detectors


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--detectors", default="model,regex")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    det = build_detectors(args.detectors)
    out: dict = {"detectors": args.detectors, "draws": args.dirs, "sets": {}}
    for split in ("test-names", "test-locales", "test-text"):
        counts: dict[str, tuple[int, int]] = {}
        for d in args.dirs:
            for g in evaluate(read_span_file(Path(d) / f"{split}.jsonl"), det).groups:
                n, f = counts.get(g.group, (0, 0))
                counts[g.group] = (n + g.spans, f + g.found)
        rows = [GroupRow(g, n, f) for g, (n, f) in sorted(counts.items())]
        test = compare_groups(rows)
        out["sets"][split] = {"groups": [{**asdict(r), "recall": r.recall} for r in rows],
                              "group_test": asdict(test) if test else None}
        print(split, " ".join(f"{r.group}={r.recall:.4f} ({r.spans - r.found}/{r.spans})" for r in rows))
        if test:
            print(f"  worst {test.worst}, gap {test.gap:.4f}; p: z {test.p_z:.4f}, chi2 {test.p_chi2:.4f}, "
                  f"exact chi2 {test.p_exact_chi2:.4f}, gap {test.p_range:.4f}")
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
