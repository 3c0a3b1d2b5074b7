"""Decision 0173: the spans of ``model,regex`` on real web text with HTML tags, before and after the
masked view: 2,000 IMDB train reviews that hold ``<`` (shuffled, seed 3; the evaluation set reads
only imdb_test, and removed its tags).

    PYTHONPATH=<src before> python measure.py before.json
    PYTHONPATH=<src after> python measure.py after.json
    python measure.py --compare before.json after.json > changes.txt
"""

from __future__ import annotations

import csv
import json
import lzma
import random
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "evaluation"))
TAG_CHARACTERS = "<>"


def run(path: str) -> None:
    from build_set import DATA

    from embedanon.detectors.registry import build_detectors

    with lzma.open(DATA / "imdb" / "imdb_train.csv.xz", "rt", encoding="utf-8") as fh:
        texts = [row["text"] for row in csv.DictReader(fh) if "<" in row["text"]]
    random.Random(3).shuffle(texts)
    detector = build_detectors("model,regex")
    rows = [[t, [(s.start, s.end, s.label) for s in detector.detect(t)]] for t in texts[:2000]]
    Path(path).write_text(json.dumps(rows), encoding="utf-8")


def summary(rows: list[list]) -> str:
    labels: Counter[str] = Counter()
    tagged = 0
    for text, spans in rows:
        for start, end, label in spans:
            labels[label] += 1
            tagged += any(c in text[start:end] for c in TAG_CHARACTERS)
    return f"{sum(labels.values())} spans, {tagged} holding '<' or '>'; {dict(sorted(labels.items()))}"


def compare(before: str, after: str) -> None:
    a_rows = json.loads(Path(before).read_text(encoding="utf-8"))
    b_rows = json.loads(Path(after).read_text(encoding="utf-8"))
    for (text, x), (_, y) in zip(a_rows, b_rows, strict=True):
        xs, ys = {tuple(s) for s in x}, {tuple(s) for s in y}
        for start, end, label in sorted(xs ^ ys):
            sign = "+" if (start, end, label) in ys else "-"
            print(sign, label, repr(text[start:end]), "|",
                  text[max(0, start - 30):end + 20].replace("\n", " "), sep=" ")
    print(f"# before: {summary(a_rows)}")
    print(f"# after: {summary(b_rows)}")


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        run(sys.argv[1])
