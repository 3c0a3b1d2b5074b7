"""Decision 0176: DATE spans of ``model,regex`` on real text outside the evaluation set that holds a
``M/D`` or ``M/YY`` after a word that places an event in time: MTSamples notes, IMDB train reviews,
NLTK webtext and Brown texts that share no line with the test half, with the code before and after.

    PYTHONPATH=<src>:../../evaluation python measure.py OUT.json
    python measure.py --compare BEFORE.json AFTER.json > changes.txt
"""

from __future__ import annotations

import csv
import gzip
import json
import lzma
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "given_names"))
CUE = re.compile(r"\b(?:on|since|until|till|through|thru|from|by|before|after|due|dated|born)\s+\d{1,2}/\d",
                 re.IGNORECASE)


def texts() -> list[tuple[str, str]]:
    from build_set import DATA
    from corpora import brown, webtext

    test = HERE.parents[1] / "evaluation" / "realtext" / "test.jsonl"
    lines: set[str] = set()
    for record in test.read_text(encoding="utf-8").splitlines():
        lines |= {x.strip() for x in json.loads(record)["text"].split("\n") if len(x.strip()) >= 25}
    out: list[tuple[str, str]] = []
    with gzip.open(DATA / "mtsamples" / "mtsamples.csv.gz", "rt", encoding="utf-8") as fh:
        out += [("mtsamples", row["transcription"]) for row in csv.DictReader(fh)]
    with lzma.open(DATA / "imdb" / "imdb_train.csv.xz", "rt", encoding="utf-8") as fh:
        out += [("imdb", row["text"]) for row in csv.DictReader(fh)]
    out += [*webtext(), *brown()]
    return [(c, t) for c, t in out
            if CUE.search(t) and not any(x.strip() in lines for x in re.split(r"[\n,]", t))]


def run(path: str) -> None:
    from embedanon.detectors.registry import build_detectors

    detector = build_detectors("model,regex")
    rows = [[c, t, [(s.start, s.end) for s in detector.detect(t) if s.label == "DATE"]] for c, t in texts()]
    Path(path).write_text(json.dumps(rows), encoding="utf-8")


def compare(before: str, after: str) -> None:
    a_rows = json.loads(Path(before).read_text(encoding="utf-8"))
    b_rows = json.loads(Path(after).read_text(encoding="utf-8"))
    added = removed = 0
    for (corpus, text, x), (_, _, y) in zip(a_rows, b_rows, strict=True):
        xs, ys = {tuple(s) for s in x}, {tuple(s) for s in y}
        for start, end in sorted(xs ^ ys):
            sign = "+" if (start, end) in ys else "-"
            added += sign == "+"
            removed += sign == "-"
            print(corpus, sign, text[start:end], "|", text[max(0, start - 50):end + 30].replace("\n", " "))
    print(f"# {len(a_rows)} texts; DATE spans added {added}, removed {removed}")


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        run(sys.argv[1])
