"""Self-written probe for decision 0119: a private first name before a common verb, in five frames
(plain sentence, chat turn, clinical dialogue turn, mid-sentence, sentence inside a longer text).
Counts the names whose NAME span takes in the word after (or before) them, and the names missed.

    PYTHONPATH=src python research/detection/lower_edges/probe_name_verbs.py
"""

from __future__ import annotations

import itertools

from embedanon.detectors.registry import build_detectors

NAMES = ["Maria", "Kenji", "Sofia", "Ahmed", "Priya", "Tomasz", "Aisha", "Liam", "Chen", "Oluwaseun"]
VERBS = ["said", "arrived", "told me", "is coming", "was late", "called", "left", "wants to know"]
FRAMES = [
    "{n} {v} yesterday.",
    "teacher: ok\nstudent: {n} {v} yesterday\nteacher: oh",
    "Patient: My son {n} {v} about it.",
    "I think {n} {v} too.",
    "Yesterday {n} {v} and we went home. It was a long day for all of us.",
]


def main() -> None:
    detector = build_detectors("model,regex")
    wide = missed = total = 0
    for name, verb, frame in itertools.product(NAMES, VERBS, FRAMES):
        text = frame.format(n=name, v=verb)
        at = text.index(name)
        total += 1
        found = [s for s in detector.detect(text) if s.start <= at < s.end]
        if not found:
            missed += 1
        elif (found[0].start, found[0].end) != (at, at + len(name)):
            wide += 1
    print(f"names {total}: span wider than the name {wide}, missed {missed}")


if __name__ == "__main__":
    main()
