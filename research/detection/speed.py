"""Detection speed side by side: ``model``, ``regex``, ``model,regex`` and ``presidio`` (spaCy
``en_core_web_sm``) on the same documents in the same process, interleaved in rounds so that the
shared machine's load hits all of them alike. Reports docs/s and MB/s by wall clock and by process
CPU time (the fairer figure on a loaded machine).

    python research/detection/speed.py --data test-names.jsonl --docs 300 --out research/detection/speed
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from embedanon.detectors.evaluate import measure_speed
from embedanon.detectors.registry import build_detectors


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--docs", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--format", default=None, help="only documents of this make_pii_set layout (e.g. chat)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    records = [json.loads(x) for x in Path(args.data).read_text("utf-8").split("\n") if x.strip()]
    if args.format:
        records = [r for r in records if r.get("meta", {}).get("format") == args.format]
    texts = [r["text"] for r in records[: args.docs]]
    mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    specs = ["model", "regex", "model,regex", "presidio"]
    speeds = measure_speed(texts, {s: build_detectors(s) for s in specs}, rounds=args.rounds)
    res = {
        "data": Path(args.data).name,
        "format": args.format,
        "docs": len(texts),
        "rounds": args.rounds,
        "mean_bytes_per_doc": mb * 1e6 / len(texts),
        "detectors": speeds,
        "ratio_model_regex_vs_presidio": {
            "wall": speeds["presidio"]["seconds_wall"] / speeds["model,regex"]["seconds_wall"],
            "cpu": speeds["presidio"]["seconds_cpu"] / speeds["model,regex"]["seconds_cpu"],
        },
    }
    Path(args.out).with_suffix(".json").write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
