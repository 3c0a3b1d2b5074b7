"""Decision 0189, a probe written by hand: 8 lines that end a sentence with a third party's or an
addressee's name (``student: yesterday i played football with {n}. it was fun``, ``teacher: Well
done, {n}.``), each with 40 given names of every culture group of the evaluation pools
(``research/evaluation/data/names.json``; seed 189). Found: NAME spans of ``model,regex`` cover at
least half of the name; exact: one NAME span is the name and nothing else.

    PYTHONPATH=<src> python sentence_end.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from embedanon.detectors.registry import build_detectors

NAMES = Path(__file__).resolve().parents[2] / "evaluation" / "data" / "names.json"
LINES = (
    "Patient: I came in with my neighbor, {n}.\nDoctor: Okay.",
    "student: yesterday i played football with {n}. it was fun",
    "Girl: I can't believe you told {n}. That was a secret!",
    "He was seen today together with his brother {n}.",
    "Guy: So I said, whatever you want, {n}. And she left.",
    "Doctor: Who lives with you at home?\nPatient: Just me and {n}.",
    "teacher: Well done, {n}.",
    "Man: Have you met {n}? He works with {f}.",
)


def main() -> None:
    detector = build_detectors("model,regex")
    pools = json.loads(NAMES.read_text(encoding="utf-8"))["groups"]
    rng = random.Random(189)
    for group, locales in pools.items():
        firsts = sorted({n for locale in locales.values() for n in locale["first"]})
        found = exact = total = 0
        for name in rng.sample(firsts, 40):
            other = rng.choice(firsts)
            for line in LINES:
                text = line.format(n=name, f=other)
                a = text.index(name)
                b = a + len(name)
                spans = [s for s in detector.detect(text) if s.label == "NAME"]
                found += 2 * sum(max(0, min(b, s.end) - max(a, s.start)) for s in spans) >= b - a
                exact += any((s.start, s.end) == (a, b) for s in spans)
                total += 1
        print(f"{group}: found {found / total:.3f}, exact {exact / total:.3f} of {total}")


if __name__ == "__main__":
    main()
