"""Decision 0215: the NAME spans of ``model,regex`` on real text outside the test half that holds
a year (NLTK webtext, Brown, MTSamples; ABC, State of the Union, inaugural addresses,
movie_reviews; AG News), with the code before and after the change. IMDB and PubMed are left out
for time: the change can only remove a span that is a year or a decade alone.

    PYTHONPATH=<src>:.. python measure.py OUT.json
    python measure.py --compare BEFORE.json AFTER.json > changes.txt
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from before_after import main_where  # noqa: E402

YEAR = re.compile(r"(?<!\d)(?:1[89]|20)\d\d(?!\d)")


def holds(corpus: str, text: str) -> bool:  # no IMDB review nor abstract: for time
    return corpus not in ("imdb_train", "imdb_unsup", "pubmed") and YEAR.search(text) is not None


if __name__ == "__main__":
    main_where(holds, ("NAME",), "NAME", (60, 30))
