"""Decision 0190, a probe written by hand: 16 lines of lesson chat and doctor-patient dialogue
that name a third party, each with 30 given names of every culture group of the evaluation pools
(``research/evaluation/data/names.json``, faker-js; seed 190). Found: at least half of the name's
characters covered by NAME spans of ``model,regex``, with the shipped verifier and without it.
Prints, per line, found with / without / lines, then the totals.

    PYTHONPATH=<src> python probe.py
"""

from __future__ import annotations

import collections
import json
import random
from pathlib import Path

from embedanon.detectors.base import Detector
from embedanon.detectors.registry import build_detectors

NAMES = Path(__file__).resolve().parents[2] / "evaluation" / "data" / "names.json"
LINES = (
    "student: yesterday i went to the cinema with {n}",
    "student: on saturday i played football with {n} and my brother",
    "Patient: I hurt my knee playing soccer with {n} last week.",
    "Patient: I live with {n}, she helps me with the shopping.",
    "Doctor: Does anyone at home smoke?\nPatient: Only {n}, my roommate.",
    "student: i wrote a letter to {n} about my holiday",
    "Guest_family: We brought her in because {n} noticed she was confused.",
    "teacher: Did you talk to {n} about the project?",
    "student: i bought a present for {n} because it was her birthday",
    "Patient: I got the flu from {n}, he had it first.",
    "Girl: Me and {n} are going to the mall later.",
    "student: my teacher is {n} and she is very kind",
    "Doctor: And {n} is your emergency contact?\nPatient: Yes.",
    "student: {n} helped me with my homework",
    "Man: I was talking with {n} yesterday and he said no.",
    "student: i will visit {n} next week in the hospital",
)


def _found(detector: Detector, text: str, a: int, b: int) -> bool:
    """Whether NAME spans cover at least half of ``text[a:b]``."""
    spans = detector.detect(text)
    return 2 * sum(max(0, min(b, s.end) - max(a, s.start)) for s in spans if s.label == "NAME") >= b - a


def main() -> None:
    with_verifier = build_detectors("model,regex")
    without = build_detectors("model,regex", verify=False)
    pools = json.loads(NAMES.read_text(encoding="utf-8"))["groups"]
    rng = random.Random(190)
    total: collections.Counter[int] = collections.Counter()
    kept: collections.Counter[int] = collections.Counter()
    proposed: collections.Counter[int] = collections.Counter()
    for locales in pools.values():
        firsts = sorted({n for locale in locales.values() for n in locale["first"]})
        for name in rng.sample(firsts, 30):
            for i, line in enumerate(LINES):
                text = line.format(n=name)
                a = text.index(name)
                b = a + len(name)

                total[i] += 1
                kept[i] += _found(with_verifier, text, a, b)
                proposed[i] += _found(without, text, a, b)
    for i, line in enumerate(LINES):
        print(f"{kept[i]:5d} {proposed[i]:5d} / {total[i]}  {line[:70]!r}")
    print(f"all: {sum(kept.values())} with the verifier, {sum(proposed.values())} without, "
          f"of {sum(total.values())}")


if __name__ == "__main__":
    main()
