"""Label accuracy of detectors: per-label typed recall / precision and the label confusion.

The headline figures of ``evaluate-detection`` are label-blind (a found span is protected whatever
its label). The label still matters: hybrid scope picks the surrogate by it (a phone number given
an ID-shaped surrogate, or an MRN given a phone-shaped one, no longer reads like the original).
This script reports, per set and detector:

* ``overlap``: label-blind recall / precision (the project evaluator, ``evaluate``);
* ``typed``: per gold label, recall counting only predictions of the same label; per predicted
  label, precision counting only gold spans of the same label (coverage >= 50 %, as ``typed``);
* ``confusion``: for each gold span found label-blind, the label of the prediction that covers
  most of it, counted as ``gold>predicted`` when the two differ.

Counts and rates only, never text.

    .venv/bin/python research/detection/labels.py --set dev=/tmp/h14-sets/dev.jsonl \
        --detector model,regex --detector regex --out research/detection/labels-before.json
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

from embedanon.detectors.evaluate import evaluate, read_span_file
from embedanon.detectors.registry import build_detectors

MIN_COVERAGE = 0.5


def _coverage(start: int, end: int, spans: list[tuple[int, int]]) -> float:
    covered = 0
    for a, b in sorted(spans):
        lo, hi = max(a, start), min(b, end)
        if hi > lo:
            covered += hi - lo
    return covered / max(1, end - start)


def _rate(a: int, b: int) -> float | None:
    return round(a / b, 5) if b else None


def label_report(records: list, detector) -> dict:
    gold_n: collections.Counter[str] = collections.Counter()
    gold_found: collections.Counter[str] = collections.Counter()
    pred_n: collections.Counter[str] = collections.Counter()
    pred_ok: collections.Counter[str] = collections.Counter()
    confusion: collections.Counter[str] = collections.Counter()
    for rec in records:
        predicted = detector.detect(rec.text)
        ignore = [tuple(x) for x in getattr(rec, "ignore", ()) or ()]
        for g in rec.spans:
            gold_n[g.label] += 1
            same = [(p.start, p.end) for p in predicted if p.label == g.label]
            if _coverage(g.start, g.end, same) >= MIN_COVERAGE:
                gold_found[g.label] += 1
            overlaps = [(min(p.end, g.end) - max(p.start, g.start), p) for p in predicted
                        if p.start < g.end and g.start < p.end]
            cover = _coverage(g.start, g.end, [(p.start, p.end) for _, p in overlaps])
            if overlaps and cover >= MIN_COVERAGE:
                top = max(overlaps, key=lambda op: op[0])[1]
                if top.label != g.label:
                    confusion[f"{g.label}>{top.label}"] += 1
        for p in predicted:
            same = [(g.start, g.end) for g in rec.spans if g.label == p.label]
            if _coverage(p.start, p.end, same) >= MIN_COVERAGE:
                pred_ok[p.label] += 1
            elif (ignore and _coverage(p.start, p.end, [(g.start, g.end) for g in rec.spans] + ignore)
                  >= MIN_COVERAGE and _coverage(p.start, p.end, [(g.start, g.end) for g in rec.spans])
                  < MIN_COVERAGE):
                continue  # on an ignored region: left out of every count, as in the evaluator
            pred_n[p.label] += 1
    labels = sorted(set(gold_n) | set(pred_n))
    return {
        "typed": {lab: {"gold": gold_n[lab], "recall": _rate(gold_found[lab], gold_n[lab]),
                        "predicted": pred_n[lab], "precision": _rate(pred_ok[lab], pred_n[lab])}
                  for lab in labels},
        "confusion": dict(confusion.most_common()),
        "confused": sum(confusion.values()),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", action="append", required=True, help="NAME=spans.jsonl")
    ap.add_argument("--detector", action="append", required=True, help="detector spec (model,regex ...)")
    ap.add_argument("--out", type=Path, help="JSON file (default: stdout)")
    args = ap.parse_args(argv)
    out: dict = {"min_coverage": MIN_COVERAGE, "sets": {}}
    for spec in args.set:
        name, path = spec.split("=", 1)
        records = read_span_file(path)
        out["sets"][name] = {"path": Path(path).name, "docs": len(records), "detectors": {}}
        for det_spec in args.detector:
            detector = build_detectors(det_spec)
            rep = evaluate(records, detector).to_dict()
            row = {"overlap": {k: rep["overlap"][k] for k in ("recall", "precision", "gold", "predicted")}}
            row.update(label_report(records, detector))
            out["sets"][name]["detectors"][det_spec] = row
            rates = row["overlap"]
            print(f"{name:14s} {det_spec:12s} R {rates['recall']:.5f} P {rates['precision']:.5f}"
                  f" confused {row['confused']}", file=sys.stderr)
    text = json.dumps(out, indent=1)
    if args.out:
        args.out.write_text(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
