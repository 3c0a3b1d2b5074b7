"""Round 7 (``round7.md``): the lower-case threshold on round 3's weights, development data only.

Sweeps ``lower_threshold`` over the all-lower-case documents of ``dev`` and ``dev-locales``
(``model,regex``, project evaluator, coverage >= 50 %), picks t_l by the round-7 rule, then scores
the shipped threshold with and without t_l on every development set of the rule (generated dev,
dev-locales, presidio-synth DEV v1 / v2) and the trap flag rates of ``model`` alone.

    python research/detection/round7_select.py --dev DEV.jsonl --dev-locales DL.jsonl \\
        --out research/detection/round7-select
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import train_detector as td  # noqa: E402
from convert_presidio_synth import convert  # noqa: E402
from run_heldout import PRESIDIO, gold  # noqa: E402

from embedanon.detectors.evaluate import evaluate  # noqa: E402
from embedanon.detectors.model import ModelDetector  # noqa: E402
from embedanon.detectors.registry import build_detectors  # noqa: E402

GRID = (0.07, 0.05, 0.03, 0.02)


def scores(records: list[dict], lower: float | None) -> dict:
    det = build_detectors("model,regex", model_threshold=0.1, model_lower_threshold=lower)
    d = evaluate(gold(records), det).to_dict()
    out = {k: d["overlap"][k] for k in ("recall", "precision", "f5")}
    if d.get("groups"):
        out["groups"] = {g["group"]: g["recall"] for g in d["groups"]}
        out["group_test"] = d.get("group_test")
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", required=True)
    ap.add_argument("--dev-locales", required=True)
    ap.add_argument("--out", required=True, help="path prefix for .json")
    args = ap.parse_args()
    dev, dev_loc = td.load_jsonl(args.dev), td.load_jsonl(args.dev_locales)
    lower_docs = [r for r in dev + dev_loc if r["text"].lower() == r["text"]]
    out: dict = {"lower_documents": len(lower_docs), "sweep": {}}
    for t in (0.1, *GRID):
        out["sweep"][str(t)] = scores(lower_docs, t)
        print(f"lower docs t_l={t}: {out['sweep'][str(t)]}", file=sys.stderr)
    ok = [t for t in GRID if out["sweep"][str(t)]["precision"] >= 0.95]
    chosen = min(ok) if ok else None
    out["chosen"] = chosen
    raw = json.loads(PRESIDIO.read_text(encoding="utf-8"))
    sets = {"dev": dev, "dev-locales": dev_loc,
            "presidio-dev-v1": convert(raw, mapping="v1", half="dev")[0],
            "presidio-dev-v2": convert(raw, mapping="v2", half="dev")[0]}
    out["sets"] = {}
    for label, lower in (("round3", None), ("round7", chosen)):
        if lower is None and label == "round7":
            break
        row = {name: scores(records, lower) for name, records in sets.items()}
        model = ModelDetector(threshold=0.1, lower_threshold=lower)
        for name in ("dev", "dev-locales"):
            preds = [model.detect(r["text"]) for r in sets[name]]
            row[name]["traps"] = td.evaluate(sets[name], preds).get("traps")
        out["sets"][label] = row
        print(label, json.dumps(row), file=sys.stderr)
    Path(args.out).with_suffix(".json").write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
