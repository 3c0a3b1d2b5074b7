"""Development-only trap flag rates (round 4 rule): how often a model flags an unlabelled trap phrase
(eponyms, famous people, drugs, capitalized common nouns) on development sets (never a test set).

Any-overlap matching of ``train_detector.py``'s evaluator, ``model`` alone at the manifest
threshold (as the trap column of ``model.json``). Also recall of NAME spans that contain a virtue
name (``VIRTUE_NAMES``), by half (trained on / held out from the round-4 injection): a diagnostic.

    python research/detection/dev_traps.py --set dev=/tmp/pii/dev.jsonl \
        --model r3=/tmp/r3-model --out research/detection/dev-traps
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import train_detector as td  # noqa: E402
from make_pii_set import VIRTUE_NAMES, heldout_virtue  # noqa: E402

from embedanon.detectors.model import ModelDetector  # noqa: E402


def virtue_recall(records: list[dict], preds: list[list]) -> dict:
    """Any-overlap recall of NAME spans with a virtue-name token, split by ``heldout_virtue``."""
    words = set(VIRTUE_NAMES)
    out = {h: {"names": 0, "found": 0} for h in ("train_half", "heldout_half")}
    for r, ps in zip(records, preds, strict=True):
        for sp in r["spans"]:
            toks = [t.strip(".,").title() for t in r["text"][sp["start"] : sp["end"]].split()]
            hits = [t for t in toks if t in words]
            if sp["label"] != "NAME" or not hits:
                continue
            row = out["heldout_half" if any(heldout_virtue(t) for t in hits) else "train_half"]
            row["names"] += 1
            row["found"] += any(td._overlap(sp["start"], sp["end"], p.start, p.end) for p in ps)
    for row in out.values():
        row["recall"] = row["found"] / row["names"] if row["names"] else None
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", action="append", required=True, metavar="NAME=PATH",
                    help="development set (make_pii_set.py dev / dev-locales), repeatable")
    ap.add_argument("--model", action="append", required=True, metavar="NAME=DIR", help="repeatable")
    ap.add_argument("--out", required=True, help="path prefix for .json")
    args = ap.parse_args()
    sets = {n: td.load_jsonl(p) for n, _, p in (s.partition("=") for s in args.set)}
    out: dict = {"detector": "model", "matching": "any overlap (train_detector.py)", "models": {}}
    for item in args.model:
        name, _, path = item.partition("=")
        det = ModelDetector(path=path)
        row: dict = {"path": path, "threshold": det.threshold, "sets": {}}
        for set_name, records in sets.items():
            preds = [det.detect(r["text"]) for r in records]
            res = td.evaluate(records, preds)
            row["sets"][set_name] = {"traps": res.get("traps"), "overall": res["overall"],
                                     "groups": res.get("groups"),
                                     "virtue_names": virtue_recall(records, preds)}
            tr = res.get("traps") or {}
            vr = row["sets"][set_name]["virtue_names"]
            print(f"{name} {set_name} traps {tr.get('flagged')}/{tr.get('phrases')} = {tr.get('rate', 0):.4f}"
                  f" virtue {vr}", file=sys.stderr)
        out["models"][name] = row
    Path(args.out).with_suffix(".json").write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
