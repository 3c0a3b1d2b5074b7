"""Decision 0178: LOCATION spans of ``model,regex`` on real text outside the evaluation set that has
a line with no capital letter: IMDB train and unsup reviews, NLTK webtext, Brown and MTSamples texts
that share no line with the test half; with the code before and after.

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

LOCATIVE_LINE = re.compile(r"^(?:[^:\n]{1,40}:[ \t]*)?(?=[^\n]*\b(?:in|from|to|near|at)\s[a-z])[^A-Z\n]+$",
                           re.M)


def run(path: str) -> None:
    from build_set import DATA
    from corpora import outside_test_half

    from embedanon.detectors.registry import build_detectors

    texts: list[tuple[str, str]] = []
    for name in ("imdb_train", "imdb_unsup"):
        with lzma.open(DATA / "imdb" / f"{name}.csv.xz", "rt", encoding="utf-8") as fh:
            texts += [("imdb", row["text"]) for row in csv.DictReader(fh)]
    texts += [(corpus, text) for _, corpus, text in outside_test_half()]
    detector = build_detectors("model,regex")
    rows = [[c, t, [(s.start, s.end) for s in detector.detect(t) if s.label == "LOCATION"]]
            for c, t in texts if any(len(m.group()) > 20 for m in LOCATIVE_LINE.finditer(t))]
    Path(path).write_text(json.dumps(rows), encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3], "LOCATION", (60, 30))
    else:
        run(sys.argv[1])
