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
sys.path.insert(0, str(HERE.parent))

from before_after import compare  # noqa: E402

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


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3], "AGE", (50, 30))
    else:
        run(sys.argv[1])
