"""Choose the domain-adaptation settings (epochs, L2 pull) on presidio-research's *other* file,
``generated_large.json`` (2,109 records, older generator), so that the adaptation reported on
``synth_dataset_v2.json`` is not tuned on its own evaluation documents.

    python research/detection/adapt_tuning.py --out research/detection/adapt_tuning
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "experiments" / "detection"))
from run_heldout import gold, summary  # noqa: E402

from embedanon.detectors.evaluate import evaluate  # noqa: E402
from embedanon.detectors.model import ModelDetector  # noqa: E402
from embedanon.detectors.presidio import ENTITY_LABELS  # noqa: E402
from embedanon.detectors.training import train  # noqa: E402

LARGE = ROOT / ".." / "shared" / "data" / "presidio-synth" / "generated_large.json"
#: presidio-research types that count as gold, labelled by the product's one Presidio map
MAP = {kind: ENTITY_LABELS[kind] for kind in (
    "PERSON", "ADDRESS", "PHONE_NUMBER", "EMAIL_ADDRESS", "DATE_TIME", "IP_ADDRESS", "US_SSN", "CREDIT_CARD",
    "IBAN_CODE", "US_DRIVER_LICENSE", "DOMAIN_NAME")}


def records() -> list[dict]:
    data = json.loads(LARGE.read_text(encoding="utf-8"))
    out = []
    for i, r in enumerate(data):
        spans = [
            {"start": s["start_position"], "end": s["end_position"], "label": MAP[s["entity_type"]]}
            for s in r["spans"]
            if s["entity_type"] in MAP
        ]
        out.append(
            {"id": f"large-{i}", "text": r["full_text"], "spans": sorted(spans, key=lambda s: s["start"])}
        )
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--eval-docs", type=int, default=600)
    args = ap.parse_args()
    recs = records()
    base_scores = None
    rows = []
    for seed in (0, 1):
        order = sorted(range(len(recs)), key=lambda i: zlib.crc32(f"{seed}:{i}".encode()))
        pick = [i for i in order if recs[i]["spans"]][:10]
        rest = gold([recs[i] for i in order if i not in set(pick)][: args.eval_docs])
        base_scores = summary(evaluate(rest, ModelDetector()))["overlap"]
        for epochs in (5, 20):
            for l2 in (1e-3, 1e-2, 1e-1):
                w = train([recs[i] for i in pick], base="model", seed=seed, epochs=epochs, l2=l2)
                det = ModelDetector(path=w.save(Path("/tmp/embedanon-adapt-tune") / f"{seed}-{epochs}-{l2}"))
                o = summary(evaluate(rest, det))["overlap"]
                rows.append({"seed": seed, "epochs": epochs, "l2": l2, "base": base_scores, "adapted": o})
                print(
                    f"seed {seed} epochs {epochs} l2 {l2}: R {base_scores['recall']:.3f}->{o['recall']:.3f} "
                    f"P {base_scores['precision']:.3f}->{o['precision']:.3f} F1 {o['f1']:.3f} "
                    f"(base {base_scores['f1']:.3f})",
                    file=sys.stderr,
                )
    Path(args.out).with_suffix(".json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
