"""Decision 0178: LOCATION spans of ``model,regex`` on real text outside the evaluation set that has
a line with no capital letter: IMDB train and unsup reviews, NLTK webtext, Brown and MTSamples texts
that share no line with the test half; with the code before and after.

    PYTHONPATH=<src>:../../evaluation python measure.py OUT.json
    python measure.py --compare BEFORE.json AFTER.json > changes.txt
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "given_names"))
sys.path.insert(0, str(HERE.parent))

from before_after import main  # noqa: E402

LOCATIVE_LINE = re.compile(r"^(?:[^:\n]{1,40}:[ \t]*)?(?=[^\n]*\b(?:in|from|to|near|at)\s[a-z])[^A-Z\n]+$",
                           re.M)


def texts() -> list[tuple[str, str]]:
    from corpora import imdb, outside_test_half

    out = [*imdb("imdb_train", "imdb_unsup", corpus="imdb"), *((c, t) for _, c, t in outside_test_half())]
    return [(c, t) for c, t in out if any(len(m.group()) > 20 for m in LOCATIVE_LINE.finditer(t))]


if __name__ == "__main__":
    main(texts, ("LOCATION",), "LOCATION", (60, 30))
