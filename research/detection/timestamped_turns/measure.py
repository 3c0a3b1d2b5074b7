"""Decision 0181: every span of ``model,regex`` on the real texts outside the evaluation set that
hold a clock time (``10:32``, ``3:45``): NLTK webtext, 500 Brown files and 800 MTSamples notes
sharing no line with the test half (:func:`corpora.outside_test_half`), IMDB train and unsup
reviews (the set reads only imdb_test), AG News test and the PubMed abstracts.

    PYTHONPATH=<src> python measure.py OUT.json     (once with main's src, once with the change)
    python measure.py --compare BEFORE.json AFTER.json > changes.txt
"""

from __future__ import annotations

import csv
import json
import lzma
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "given_names"))
sys.path.insert(0, str(HERE.parent))

from before_after import compare  # noqa: E402

CLOCK = re.compile(r"(?<![\d:])\d{1,2}:\d\d(?![\d:])|\d\d:\d\d:\d\d")


def texts() -> list[tuple[str, str]]:
    from corpora import DATA, outside_test_half  # DATA: the evaluation set's own lookup of ../shared/data

    out = [(corpus, text) for _, corpus, text in outside_test_half() if CLOCK.search(text)]
    for name in ("imdb_train", "imdb_unsup"):
        with lzma.open(DATA / "imdb" / f"{name}.csv.xz", "rt", encoding="utf-8") as fh:
            out += [(name, row["text"]) for row in csv.DictReader(fh) if CLOCK.search(row["text"])]
    with open(DATA / "ag-news" / "test.csv", encoding="utf-8", newline="") as fh:
        news = (f"{row['title']}. {row['description']}" for row in csv.DictReader(fh))
        out += [("ag-news", text) for text in news if CLOCK.search(text)]
    with open(DATA / "pubmed-5term" / "pubmed.csv", encoding="utf-8", newline="") as fh:
        out += [("pubmed", row["abstract"]) for row in csv.DictReader(fh) if CLOCK.search(row["abstract"])]
    return out


def run(path: str) -> None:
    from embedanon.detectors.registry import build_detectors

    detector = build_detectors("model,regex")
    rows = [[corpus, text, [(s.start, s.end, s.label) for s in detector.detect(text)]]
            for corpus, text in texts()]
    Path(path).write_text(json.dumps(rows), encoding="utf-8")
    print(len(rows), "texts")


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3], "", (60, 40))
    else:
        run(sys.argv[1])
