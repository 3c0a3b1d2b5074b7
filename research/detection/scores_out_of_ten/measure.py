"""Decision 0180: DATE spans of ``model,regex`` that are exactly ``N/10`` in real text outside the
evaluation set: IMDB train reviews and NLTK webtext, Brown and MTSamples texts that hold such a
number; prints each with the words before it and counts them by corpus.

    PYTHONPATH=<src>:../../evaluation python measure.py
"""

from __future__ import annotations

import csv
import lzma
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "given_names"))
SCORE = re.compile(r"\d{1,2}(?:\.\d+)?/10\b")


def main() -> None:
    from build_set import DATA
    from corpora import brown, mtsamples, webtext

    from embedanon.detectors.registry import build_detectors

    with lzma.open(DATA / "imdb" / "imdb_train.csv.xz", "rt", encoding="utf-8") as fh:
        texts = [("imdb", row["text"]) for row in csv.DictReader(fh) if SCORE.search(row["text"])]
    texts += [(c, t) for c, t in [*webtext(), *brown(), *mtsamples()] if SCORE.search(t)]
    detector = build_detectors("model,regex")
    counts: Counter[str] = Counter()
    for corpus, text in texts:
        for s in detector.detect(text):
            if s.label == "DATE" and re.fullmatch(r"\d{1,2}(?:\.\d+)?/10", text[s.start:s.end]):
                counts[corpus] += 1
                print(corpus, repr(text[max(0, s.start - 25):s.start]), text[s.start:s.end])
    print(f"# {len(texts)} texts; DATE spans that are N/10: {dict(counts)}")


if __name__ == "__main__":
    main()
