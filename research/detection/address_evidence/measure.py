"""Decision 0186: the ADDRESS spans of ``model,regex`` on the real texts outside the test half
(NLTK webtext, 500 Brown files and 800 MTSamples notes: :func:`corpora.outside_test_half`), and
on IMDB train and unsup, AG News test and PubMed (``--more``, about 86,000 texts, 8 minutes).

    PYTHONPATH=<src> python measure.py [--more] OUT.json   (once with main's src, once with the change)
    python measure.py --compare BEFORE.json AFTER.json > changes.txt
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "given_names"))
sys.path.insert(0, str(HERE.parent))

from before_after import main  # noqa: E402


def texts() -> list[tuple[str, str]]:
    from corpora import outside_test_half, reviews_news_abstracts

    if "--more" in sys.argv:
        sys.argv.remove("--more")
        return list(reviews_news_abstracts())
    return [(corpus, text) for _, corpus, text in outside_test_half()]


if __name__ == "__main__":
    main(texts, labels=("ADDRESS",), noun="ADDRESS")
