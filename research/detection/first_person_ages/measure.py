"""Decision 0171: AGE spans of ``model,regex`` on real text outside the evaluation set whose lines
say ``I'm`` / ``I am`` / ``Im`` and a number: IMDB train and unsup reviews (the set reads only
imdb_test) and NLTK webtext texts that share no line with the test, dev or dev2 halves.

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

CUE = re.compile(r"(?<![\w'])(?:i['’]?m|i\s+am)\s+(?:\w+\s+)?\d", re.IGNORECASE)


def texts() -> list[tuple[str, str]]:
    from build_set import DATA  # the evaluation set's own lookup of ../shared/data
    from corpora import evaluation_lines, webtext

    lines = evaluation_lines("dev", "dev2", "test")
    out = []
    for name in ("imdb_train", "imdb_unsup"):
        with lzma.open(DATA / "imdb" / f"{name}.csv.xz", "rt", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                if CUE.search(row["text"]):
                    out.append((name, row["text"]))
    for name, block in webtext():
        pieces = block.split("\n") if name == "singles" else [block]
        for text in pieces:
            if CUE.search(text) and not any(x.strip() in lines for x in text.split("\n")):
                out.append((name, text))
    return out


def run(path: str) -> None:
    from embedanon.detectors.registry import build_detectors

    detector = build_detectors("model,regex")
    rows = []
    for corpus, text in texts():
        spans = [(s.start, s.end) for s in detector.detect(text) if s.label == "AGE"]
        rows.append([corpus, text, spans])
    Path(path).write_text(json.dumps(rows), encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3], "AGE", (60, 40))
    else:
        run(sys.argv[1])
