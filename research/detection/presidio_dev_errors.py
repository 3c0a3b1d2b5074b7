"""Error analysis of a detector on the DEV half of presidio-synth (never the TEST half).

Counts missed gold spans and unmatched predictions by kind, with the project evaluator's rule (a span
is matched when >= 50 % of its characters are covered). ``--show N`` prints up to N examples of each
kind to stderr for reading (the data are fake); the JSON holds counts only.

    python research/detection/presidio_dev_errors.py --detector model,regex \
        --out research/detection/dev-errors
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from convert_presidio_synth import half_of  # noqa: E402

from embedanon.detectors.presidio import ENTITY_LABELS  # noqa: E402
from embedanon.detectors.registry import build_detectors  # noqa: E402

PRESIDIO = ROOT / ".." / "shared" / "data" / "presidio-synth" / "synth_dataset_v2.json"
#: the v1 mapping of research/scripts/convert_presidio_synth.py (GPE, ORGANIZATION, TITLE, NRP not gold)
OLD = {kind: ENTITY_LABELS[kind] for kind in (
    "PERSON", "STREET_ADDRESS", "ZIP_CODE", "DATE_TIME", "PHONE_NUMBER", "AGE", "EMAIL_ADDRESS",
    "DOMAIN_NAME", "IP_ADDRESS", "US_SSN", "CREDIT_CARD", "IBAN_CODE", "US_DRIVER_LICENSE")}
_TIME = re.compile(r"^\s*(\d{1,2}(:\d\d)?\s*([ap]\.?m\.?)?|noon|midnight|morning|evening|afternoon|"
                   r"night)\s*$",
                   re.I)


def cover(a: int, b: int, spans) -> float:
    return sum(max(0, min(b, e) - max(a, s)) for s, e in spans) / (b - a)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--detector", default="model,regex")
    ap.add_argument("--show", type=int, default=0)
    ap.add_argument("--out", default=None)
    ap.add_argument("--model-path", default=None, help="a model directory instead of the shipped one")
    ap.add_argument("--threshold", type=float, default=None, help="the model's threshold (default: manifest)")
    args = ap.parse_args()
    opts = {"model_path": args.model_path} if args.model_path else {}
    if args.threshold is not None:
        opts["model_threshold"] = args.threshold
    det = build_detectors(args.detector, **opts)
    miss, fp, ex = collections.Counter(), collections.Counter(), collections.defaultdict(list)
    gold_n, pred_n = collections.Counter(), 0
    for r in json.loads(PRESIDIO.read_text(encoding="utf-8")):
        if half_of(r["template_id"]) != "dev":
            continue
        text = r["full_text"]
        preds = [(p.start, p.end, p.label) for p in det.detect(text)]
        pspans = [(a, b) for a, b, _ in preds]
        gold = [(s["start_position"], s["end_position"], s["entity_type"]) for s in r["spans"]]
        for a, b, kind in gold:
            if kind not in OLD:
                continue
            gold_n[kind] += 1
            c = cover(a, b, pspans)
            if c >= 0.5:
                continue
            why = "boundary (<50% covered)" if c > 0 else "missed"
            if kind == "DATE_TIME" and _TIME.match(text[a:b]):
                why = "time of day"
            key = f"{kind}: {why}"
            miss[key] += 1
            near = [text[x:y] for x, y in pspans]
            ex[key].append(f"{text[a:b]!r}  <<  {text[max(0, a - 40):b + 40]!r}  preds={near}")
        for a, b, label in preds:
            pred_n += 1
            if cover(a, b, [(s, e) for s, e, k in gold if k in OLD]) >= 0.5:
                continue
            over = [k for s, e, k in gold if cover(a, b, [(s, e)]) > 0]
            key = f"{label} on " + ("/".join(sorted(set(over))) if over else "nothing")
            fp[key] += 1
            ex[key].append(f"{text[a:b]!r}  <<  {text[max(0, a - 40):b + 40]!r}")
    out = {"detector": args.detector, "model_path": args.model_path, "threshold": args.threshold,
           "half": "dev", "mapping": "v1",
           "gold": dict(gold_n), "predicted": pred_n, "missed": dict(miss.most_common()),
           "unmatched_predictions": dict(fp.most_common())}
    print(json.dumps(out, indent=1), file=sys.stderr)
    if args.show:
        for key, items in sorted(ex.items()):
            print(f"\n== {key} ({len(items)})", file=sys.stderr)
            for line in items[: args.show]:
                print("  " + line, file=sys.stderr)
    if args.out:
        Path(args.out).with_suffix(".json").write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
