"""Decision 0218: the NAME spans of ``model,regex`` on real text outside the test half that holds
a capitalized word that reads as a name, a comma and a listed given name (``Brennecke, Ingrid``):
NLTK webtext, Brown, MTSamples; IMDB train and unsup, AG News, PubMed; ABC, State of the Union,
inaugural addresses, movie_reviews; with the code before and after the change.

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

PAIR = re.compile(r"(?<![\w'-])([A-Z][^\W\d_]+),[ \t]+([A-Z][^\W\d_]+)\b")


def texts() -> list[tuple[str, str]]:
    from corpora import outside_test_half, reviews_news_abstracts, speeches_and_broadcasts

    from embedanon.lexicon import folded, name_like, name_parts

    given = name_parts("first")

    def holds(text: str) -> bool:
        return any(folded(m.group(2)) in given and name_like(m.group(1)) for m in PAIR.finditer(text))

    out = [(corpus, text) for _, corpus, text in outside_test_half() if holds(text)]
    out += [(corpus, text) for corpus, text in speeches_and_broadcasts() if holds(text)]
    return out + [(c, t) for c, t in reviews_news_abstracts() if holds(t)]


if __name__ == "__main__":
    main(texts, ("NAME",), "NAME", (60, 30))
