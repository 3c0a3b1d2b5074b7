"""Decision 0171: AGE spans of ``model,regex`` on real text outside the evaluation set whose lines
say ``I'm`` / ``I am`` / ``Im`` and a number: IMDB train and unsup reviews (the set reads only
imdb_test) and NLTK webtext texts that share no line with the test, dev or dev2 halves.

    PYTHONPATH=<src> python measure.py OUT.json     (once with main's src, once with the change)
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

CUE = re.compile(r"(?<![\w'])(?:i['’]?m|i\s+am)\s+(?:\w+\s+)?\d", re.IGNORECASE)


def texts() -> list[tuple[str, str]]:
    from corpora import evaluation_lines, imdb, webtext

    lines = evaluation_lines("dev", "dev2", "test")
    out = [(name, text) for name, text in imdb("imdb_train", "imdb_unsup") if CUE.search(text)]
    for name, block in webtext():
        pieces = block.split("\n") if name == "singles" else [block]
        for text in pieces:
            if CUE.search(text) and not any(x.strip() in lines for x in text.split("\n")):
                out.append((name, text))
    return out


if __name__ == "__main__":
    main(texts, ("AGE",), "AGE", (60, 40))
