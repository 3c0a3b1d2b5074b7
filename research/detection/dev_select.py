"""Development-only scores for choosing a model and its threshold (never reads a test set).

Scores ``model,regex`` with the project evaluator (span coverage >= 50 %) on the generated ``dev``
split and on the presidio-synth DEV half (gold mappings v1 and v2), for one or more model
directories and a grid of thresholds. Used by the third improvement round (see README.md here) to
apply a shipping rule fixed before any held-out set was scored.

    python research/detection/dev_select.py --dev /tmp/pii/dev.jsonl \
        --model shipped=- --model new=/tmp/new-model --out research/detection/dev-select
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from convert_presidio_synth import convert  # noqa: E402
from run_heldout import PRESIDIO, gold  # noqa: E402

from embedanon.detectors.evaluate import evaluate  # noqa: E402
from embedanon.detectors.registry import build_detectors  # noqa: E402

GRID = (0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", required=True, help="make_pii_set.py --split dev output")
    ap.add_argument("--model", action="append", required=True, metavar="NAME=DIR",
                    help="model directory ('-' for the shipped one), repeatable")
    ap.add_argument("--extra", action="append", default=[], metavar="NAME=PATH",
                    help="more development sets (e.g. make_pii_set.py --split dev-locales), repeatable")
    ap.add_argument("--thresholds", default=",".join(map(str, GRID)))
    ap.add_argument("--lower-threshold", action="append", default=[], metavar="NAME=T",
                    help="lower_threshold for one model (text with no upper-case letter), repeatable")
    ap.add_argument("--out", required=True, help="path prefix for .json")
    args = ap.parse_args()
    dev = gold([json.loads(x) for x in Path(args.dev).read_text("utf-8").splitlines() if x.strip()])
    raw = json.loads(PRESIDIO.read_text(encoding="utf-8"))
    sets = {"dev": dev,
            "presidio-dev-v1": gold(convert(raw, mapping="v1", half="dev")[0]),
            "presidio-dev-v2": gold(convert(raw, mapping="v2", half="dev")[0])}
    for item in args.extra:
        name, _, path = item.partition("=")
        sets[name] = gold([json.loads(x) for x in Path(path).read_text("utf-8").splitlines() if x.strip()])
    lower = {n: float(v) for n, _, v in (x.partition("=") for x in args.lower_threshold)}
    out: dict = {"detector": "model,regex", "matching": "project evaluator, min_coverage 0.5", "models": {},
                 "lower_thresholds": lower}
    for item in args.model:
        name, _, path = item.partition("=")
        rows = out["models"].setdefault(name, {"path": path, "thresholds": {}})["thresholds"]
        for t in map(float, args.thresholds.split(",")):
            opts = {"model_threshold": t} | ({} if path == "-" else {"model_path": path})
            if name in lower:
                opts["model_lower_threshold"] = lower[name]
            det = build_detectors("model,regex", **opts)
            row = {}
            for set_name, records in sets.items():
                d = evaluate(records, det).to_dict()
                row[set_name] = {k: d["overlap"][k] for k in ("recall", "precision", "f1", "f5")}
                if d.get("groups"):
                    row[set_name]["groups"] = {g["group"]: g["recall"] for g in d["groups"]}
                    row[set_name]["group_test"] = d.get("group_test")
            rows[str(t)] = row
            print(f"{name:10s} t={t:<5} " + "  ".join(
                f"{s} R={v['recall']:.4f} P={v['precision']:.4f} F5={v['f5']:.4f}" for s, v in row.items()),
                file=sys.stderr)
    Path(args.out).with_suffix(".json").write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
