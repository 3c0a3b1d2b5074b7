"""Decision 0110-a: NAME candidates right after a relation noun (``his daughter Emily``).

Counts, on the real-text DEV half and on the false-positive benchmark, the NAME candidates of the
first stage (model + regex, no verifier) whose preceding word is a relation noun
(``embedanon.detectors.verify.RELATION_BEFORE``): how many are gold (overlap >= 50 %), how many
the verifier drops, and the dev figures with and without the verifier's relation-noun exemption.

    python research/detection/verifier/relation_nouns.py [--split dev]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from embedanon.detectors.registry import build_detectors
from embedanon.detectors.verify import SpanVerifier, after_relation_noun

HERE = Path(__file__).resolve().parents[2] / "evaluation"
sys.path.insert(0, str(HERE))
import score as scoring  # noqa: E402


class _Exempt:
    """The shipped verifier with or without the relation-noun exemption."""

    def __init__(self, exempt: bool) -> None:
        self.inner = SpanVerifier()
        self.exempt = exempt
        self.name = "local"

    def verify(self, text: str, spans: Any) -> list[Any]:
        spans = list(spans)
        judged = [i for i, s in enumerate(spans) if self.inner.judged(s)
                  and not (self.exempt and s.label == "NAME" and after_relation_noun(text, s.start))]
        if not judged:
            return spans
        proba = self.inner.probabilities(text, [spans[i] for i in judged])
        dropped = {i for i, p in zip(judged, proba.tolist(), strict=True) if p < self.inner.threshold}
        return [s for i, s in enumerate(spans) if i not in dropped]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", default="dev", choices=["dev"])
    args = ap.parse_args()
    records = scoring.read(HERE / "realtext" / f"{args.split}.jsonl")
    first = build_detectors("model,regex", verify=False)
    verifier = SpanVerifier()
    rows = []
    for rec in records:
        text = rec["text"]
        spans = first.detect(text)
        cands = [s for s in spans
                 if s.label == "NAME" and verifier.judged(s) and after_relation_noun(text, s.start)]
        if not cands:
            continue
        proba = verifier.probabilities(text, cands)
        for s, p in zip(cands, proba.tolist(), strict=True):
            covered = sum(max(0, min(s.end, g["end"]) - max(s.start, g["start"])) for g in rec["spans"])
            rows.append({"register": rec["register"], "gold": bool(2 * covered >= s.end - s.start),
                         "kept_by_verifier": bool(p >= verifier.threshold)})
    counts = {"candidates": len(rows), "gold": sum(r["gold"] for r in rows)}
    for gold in (True, False):
        for kept in (True, False):
            key = f"{'gold' if gold else 'not_gold'}_{'kept' if kept else 'dropped'}_by_verifier"
            counts[key] = sum(r["gold"] is gold and r["kept_by_verifier"] is kept for r in rows)
    print(json.dumps(counts))
    fp_first = 0
    for line in (HERE / "realtext" / "fp_benchmark.jsonl").read_text(encoding="utf-8").splitlines():
        text = json.loads(line)["text"]
        fp_first += sum(s.label == "NAME" and after_relation_noun(text, s.start) for s in first.detect(text))
    print(json.dumps({"fp_benchmark_name_candidates_after_relation_noun": fp_first}))
    for exempt in (False, True):
        detector = build_detectors("model,regex", verify=False)
        detector.verifier = _Exempt(exempt)
        rep = scoring.score(records, detector)
        rep["fp_benchmark"] = scoring.fp_benchmark(detector)
        o = rep["overlap"]
        print(json.dumps({"exempt": exempt, **{k: [o[k]["precision"], o[k]["recall"]] for k in
                          ("all", "transcript", "forum", "clinical", "script")},
                          "name_parts_verbatim": rep["name_parts_verbatim"]["share"],
                          "role_labels": rep["role_labels"]["share"],
                          "fp_per_1000": rep["fp_benchmark"]["all"]["per_1000_words"]}))


if __name__ == "__main__":
    main()
