"""Decision 0187: names addressed after a greeting at the end of a chat turn (``Bye Tomasz!``,
``Congrats Aiko!``), by culture group.

No corpus here has a chat register with such turns in number (the NLTK webtext conversations hold
18 greetings before a capitalized word, all found before and after the change), so this is a probe:
60 given names per culture group of the evaluation set's name pools (``research/evaluation/data/
names.json``, faker-js; seed 187), each in the lines below after each of 12 greetings. Found: the
name's characters are covered by ``model,regex`` spans (at least half); exact: one span is the
name and nothing else (the greeting left out).

    PYTHONPATH=<src> python probe.py
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

from embedanon.detectors.registry import build_detectors

NAMES = Path(__file__).resolve().parents[2] / "evaluation" / "data" / "names.json"
GREETINGS = ("Bye", "Goodbye", "Bye bye", "Thanks", "Thank you", "Hi", "Hello", "Welcome", "Cheers",
             "Congrats", "Good night", "Haha")
LINES = ("teacher: ok, that's all for today. {g} {n}!\nstudent: thank you, see you",
         "student: i finished the exercise\nteacher: {g}, {n}.\nstudent: :)")


def main() -> None:
    groups = json.loads(NAMES.read_text(encoding="utf-8"))["groups"]
    rng = random.Random(187)
    detector = build_detectors("model,regex")
    found: Counter[str] = Counter()
    exact: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for group, locales in sorted(groups.items()):
        pool = sorted({n for loc in locales.values() for n in loc["first"] if n.isalpha()})
        for name in rng.sample(pool, 60):
            for line in LINES:
                for greeting in GREETINGS:
                    text = line.format(g=greeting, n=name)
                    a = text.index(name, text.index(greeting) + len(greeting))
                    b = a + len(name)
                    spans = [s for s in detector.detect(text) if s.start < b and a < s.end]
                    covered = sum(min(b, s.end) - max(a, s.start) for s in spans)
                    total[group] += 1
                    found[group] += 2 * covered >= len(name)
                    exact[group] += any((s.start, s.end) == (a, b) for s in spans)
    for group in sorted(total):
        print(f"{group}: found {found[group]}/{total[group]} = {found[group] / total[group]:.3f}, "
              f"exact {exact[group] / total[group]:.3f}")
    print(f"all: found {sum(found.values()) / sum(total.values()):.3f}, "
          f"exact {sum(exact.values()) / sum(total.values()):.3f}")


if __name__ == "__main__":
    main()
