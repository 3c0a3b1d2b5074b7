"""Decision 0172: PHONE, ID and IP spans of ``model,regex`` on real text outside the evaluation set
(IMDB train reviews with a four-digit number; NLTK webtext, Brown and MTSamples texts that share no
line with the test half), run once with the code before and once after, then compared.

    PYTHONPATH=<src before> python measure.py before.json
    PYTHONPATH=<src after> python measure.py after.json
    python measure.py --compare before.json after.json > changes.txt
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "given_names"))
sys.path.insert(0, str(HERE.parent))

from before_after import main  # noqa: E402

sys.path.insert(0, str(HERE.parents[1] / "evaluation"))


def texts() -> list[tuple[str, str]]:
    from corpora import imdb, outside_test_half

    out = [*imdb("imdb_train", corpus="imdb"), *((corpus, text) for _, corpus, text in outside_test_half())]
    return [(corpus, text) for corpus, text in out if re.search(r"\d{4}", text)]


if __name__ == "__main__":
    main(texts, ("PHONE", "ID", "IP"), "PHONE, ID and IP", (40, 20))
