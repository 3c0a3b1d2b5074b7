"""Decision 0170: capitalized phrases after a locative word in NLTK overheard conversations outside
the evaluation set that no span of the shipped ``model,regex`` covers (shuffled, seed 5); the
first 113 are read by hand in ``uncovered-overheard-read.tsv``.

    cd research/detection/location_context
    PYTHONPATH=../../../src python uncovered_locatives.py > uncovered-overheard.txt
"""

from __future__ import annotations

import random
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "given_names"))

from corpora import evaluation_lines, outside_test_half  # noqa: E402

from embedanon.detectors.registry import build_detectors  # noqa: E402

lines = evaluation_lines("dev", "dev2")
detector = build_detectors("model,regex")
LOCATIVE = re.compile(r"\b(?:in|from|to|at|near|around|outside|visit|visiting|back in|live in|lives in"
                      r"|moved to)"
                      r"\s+(?:the\s+)?([A-Z][A-Za-z'.-]+(?:\s+[A-Z][A-Za-z'.-]+){0,2})")
rows = []
for _, corpus, text in outside_test_half():
    if corpus != "overheard" or any(x.strip() in lines for x in text.split("\n")):
        continue
    predicted = detector.detect(text)
    for m in LOCATIVE.finditer(text):
        a, b = m.span(1)
        hit = [p.label for p in predicted if p.start < b and a < p.end]
        rows.append((hit[0] if hit else "-", m.group(1), text[max(0, a - 50):b + 30].replace("\n", " ")))
random.Random(5).shuffle(rows)
print(Counter(r[0] for r in rows))
for row in rows:
    if row[0] == "-":
        print(*row, sep=" | ")
