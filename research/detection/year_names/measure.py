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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "given_names"))
sys.path.insert(0, str(HERE.parent))

from before_after import main  # noqa: E402

YEAR = re.compile(r"(?<!\d)(?:1[89]|20)\d\d(?!\d)")


def texts() -> list[tuple[str, str]]:
    from corpora import outside_test_half, reviews_news_abstracts, speeches_and_broadcasts

    out = [(corpus, text) for _, corpus, text in outside_test_half() if YEAR.search(text)]
    out += [(corpus, text) for corpus, text in speeches_and_broadcasts() if YEAR.search(text)]
    return out + [(c, t) for c, t in reviews_news_abstracts() if c == "ag-news" and YEAR.search(t)]


if __name__ == "__main__":
    main(texts, ("NAME",), "NAME", (60, 30))
