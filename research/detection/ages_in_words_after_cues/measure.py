"""Decision 0175: AGE spans of ``model,regex`` on real text outside the evaluation set whose text
has a number word after ``when I was`` / ``since she was`` / ``I'm`` / ``I am``: IMDB train reviews
(the set reads only imdb_test) and NLTK webtext, Brown and MTSamples texts that share no line with
the test half, run with the code before and after.

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

NUMBER = (r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|ten|eleven|twelve|thirteen|fourteen|"
          r"fifteen|sixteen|seventeen|eighteen|nineteen|one|two|three|four|five|six|seven|eight|nine)")
CUE = re.compile(r"\b(?:(?:when|since)\s+(?:he|she|i|we|they|you)\s+(?:was|were)|i['\u2019]?m|i\s+am)"
                 r"(?:\s+\w+)?\s+" + NUMBER + r"\b", re.IGNORECASE)


def texts() -> list[tuple[str, str]]:
    from corpora import imdb, outside_test_half

    out = [*imdb("imdb_train", corpus="imdb"), *((corpus, text) for _, corpus, text in outside_test_half())]
    return [(corpus, text) for corpus, text in out if CUE.search(text)]


if __name__ == "__main__":
    main(texts, ("AGE",), "AGE", (50, 30))
