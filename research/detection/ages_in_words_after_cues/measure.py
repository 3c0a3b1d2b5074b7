"""Decision 0175: AGE spans of ``model,regex`` on real text outside the evaluation set whose text
has a number word after ``when I was`` / ``since she was`` / ``I'm`` / ``I am``: IMDB train reviews
(the set reads only imdb_test) and NLTK webtext, Brown and MTSamples texts that share no line with
the test half, run with the code before and after.

    PYTHONPATH=<src>:../../evaluation python measure.py OUT.json
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
NUMBER = (r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|ten|eleven|twelve|thirteen|fourteen|"
          r"fifteen|sixteen|seventeen|eighteen|nineteen|one|two|three|four|five|six|seven|eight|nine)")
CUE = re.compile(r"\b(?:(?:when|since)\s+(?:he|she|i|we|they|you)\s+(?:was|were)|i['\u2019]?m|i\s+am)"
                 r"(?:\s+\w+)?\s+" + NUMBER + r"\b", re.IGNORECASE)


def run(path: str) -> None:
    from build_set import DATA
    from corpora import outside_test_half

    from embedanon.detectors.registry import build_detectors

    with lzma.open(DATA / "imdb" / "imdb_train.csv.xz", "rt", encoding="utf-8") as fh:
        texts = [("imdb", row["text"]) for row in csv.DictReader(fh)]
    texts += [(corpus, text) for _, corpus, text in outside_test_half()]
    detector = build_detectors("model,regex")
    rows = [[corpus, text, [(s.start, s.end) for s in detector.detect(text) if s.label == "AGE"]]
            for corpus, text in texts if CUE.search(text)]
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
    print(f"# {len(a_rows)} texts; AGE spans added {added}, removed {removed}")


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        run(sys.argv[1])
