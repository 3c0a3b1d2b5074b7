"""The generated regression sets under a two-stage configuration (decision 0110).

Scores ``model,regex`` with and without the verifier on span sets made by
``research/scripts/make_pii_set.py`` (the project's evaluator, span coverage >= 50 %), so a change
of the first stage can be checked against the generated sets the model was developed on. These
figures say how the generator behaves, not how the detector does on real text.

    for s in dev test-names test-locales test-text; do
        python research/scripts/make_pii_set.py --split $s --n 400 --seed 901 -o gen/$s.jsonl; done
    python research/detection/two_stage/generated_sets.py --sets gen --out generated-sets.json \\
        [--model-path DIR] [--verifier DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from embedanon.detectors.evaluate import evaluate, read_records
from embedanon.detectors.registry import build_detectors

SETS = ("dev", "test-names", "test-locales", "test-text")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", required=True, help="directory with dev/test-*.jsonl")
    ap.add_argument("--out", required=True)
    ap.add_argument("--model-path", default=None)
    ap.add_argument("--model-threshold", type=float, default=None)
    ap.add_argument("--verifier", default=None, help="a verifier directory (default: the shipped one)")
    ap.add_argument("--no-verifier", action="store_true", help="only without the verifier")
    args = ap.parse_args()
    extra = {"model_path": args.model_path, "model_threshold": args.model_threshold}
    results: dict = {"model_path": args.model_path, "model_threshold": args.model_threshold,
                     "verifier": args.verifier, "sets": {}}
    runs = (("without verifier", False), ("with verifier", args.verifier or True))
    for label, verify in runs[: 1 if args.no_verifier else 2]:
        detector = build_detectors("model,regex", verify=verify, **extra)
        for name in SETS:
            path = Path(args.sets) / f"{name}.jsonl"
            keep = ("id", "text", "spans")
            lines = [json.dumps({k: r[k] for k in keep}) for r in
                     (json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip())]
            rep = evaluate(read_records(lines, name), detector).to_dict()
            o = rep["overlap"]
            results["sets"].setdefault(name, {})[label] = {"overlap": o, "groups": rep.get("groups")}
            print(f"{label:17s} {name:13s} R={o['recall']:.4f} P={o['precision']:.4f}", file=sys.stderr)
    Path(args.out).write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
