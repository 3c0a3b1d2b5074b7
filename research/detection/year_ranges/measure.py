"""Decision 0172: PHONE, ID and IP spans of ``model,regex`` on real text outside the evaluation set
(IMDB train reviews with a four-digit number; NLTK webtext, Brown and MTSamples texts that share no
line with the test half), run once with the code before and once after, then compared.

    PYTHONPATH=<src before> python measure.py before.json
    PYTHONPATH=<src after> python measure.py after.json
    python measure.py --compare before.json after.json > changes.txt
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

sys.path.insert(0, str(HERE.parents[1] / "evaluation"))


def run(path: str) -> None:
    from build_set import DATA
    from corpora import outside_test_half

    from embedanon.detectors.registry import build_detectors

    detector = build_detectors("model,regex")
    with lzma.open(DATA / "imdb" / "imdb_train.csv.xz", "rt", encoding="utf-8") as fh:
        texts = [("imdb", row["text"]) for row in csv.DictReader(fh)]
    texts += [(corpus, text) for _, corpus, text in outside_test_half()]
    rows = [[corpus, text, [(s.start, s.end, s.label) for s in detector.detect(text)
                            if s.label in ("PHONE", "ID", "IP")]]
            for corpus, text in texts if re.search(r"\d{4}", text)]
    Path(path).write_text(json.dumps(rows), encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3], "PHONE, ID and IP", (40, 20))
    else:
        run(sys.argv[1])
