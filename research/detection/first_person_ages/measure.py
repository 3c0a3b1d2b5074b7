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

CUE = re.compile(r"(?<![\w'])(?:i['’]?m|i\s+am)\s+(?:\w+\s+)?\d", re.IGNORECASE)


def texts() -> list[tuple[str, str]]:
    from build_set import DATA  # the evaluation set's own lookup of ../shared/data
    from corpora import webtext

    realtext = HERE.parents[1] / "evaluation" / "realtext"
    lines: set[str] = set()
    for split in ("dev", "dev2", "test"):
        for line in (realtext / f"{split}.jsonl").read_text(encoding="utf-8").splitlines():
            lines |= {x.strip() for x in json.loads(line)["text"].split("\n") if len(x.strip()) >= 25}
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
        rows.append({"corpus": corpus, "text": text, "ages": spans})
    Path(path).write_text(json.dumps(rows), encoding="utf-8")


def compare(before: str, after: str) -> None:
    a_rows = json.loads(Path(before).read_text(encoding="utf-8"))
    b_rows = json.loads(Path(after).read_text(encoding="utf-8"))
    added = removed = 0
    for a, b in zip(a_rows, b_rows, strict=True):
        t = a["text"]
        for s, e in sorted({tuple(x) for x in b["ages"]} ^ {tuple(x) for x in a["ages"]}):
            sign = "+" if [s, e] in b["ages"] else "-"
            added += sign == "+"
            removed += sign == "-"
            print(a["corpus"], sign, t[s:e], "|", t[max(0, s - 60):e + 40].replace("\n", " "))
    print(f"# {len(a_rows)} texts; AGE spans added {added}, removed {removed}")


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        run(sys.argv[1])
