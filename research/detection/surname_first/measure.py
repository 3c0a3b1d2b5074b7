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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from before_after import main_where  # noqa: E402

PAIR = re.compile(r"(?<![\w'-])([A-Z][^\W\d_]+),[ \t]+([A-Z][^\W\d_]+)\b")


def holds(_: str, text: str) -> bool:
    from embedanon.lexicon import folded, name_like, name_parts

    given = name_parts("first")
    return any(folded(m.group(2)) in given and name_like(m.group(1)) for m in PAIR.finditer(text))


if __name__ == "__main__":
    main_where(holds, ("NAME",), "NAME", (60, 30))
