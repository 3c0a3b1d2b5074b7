"""Decision 0182: every span of ``model,regex`` on the real texts outside the test half
(:func:`corpora.outside_test_half`: NLTK webtext, 500 Brown files, 800 MTSamples notes) that
hold a line-start label of one token with ``_``, ``.`` or a digit (``nsToolkitCompsCID.h:``,
``WIN98:``), the shape of a chat handle.

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

#: a line-start label of one token with ``_``, ``.`` or a digit, in angle brackets or before a colon
LABEL = re.compile(r"^[ \t]*(?:<[^\W\d_][\w.]*\w>|[^\W\d_][\w.]*\w[ \t]*:)", re.MULTILINE)
SIGNS = re.compile(r"[_.\d]")


def texts() -> list[tuple[str, str]]:
    from corpora import outside_test_half

    return [(corpus, text) for _, corpus, text in outside_test_half()
            if any(SIGNS.search(m.group()) for m in LABEL.finditer(text))]


if __name__ == "__main__":
    main(texts)
