"""Decisions 0188 (a one-word surname with an apostrophe is no public figure) and 0189 (a name
leaves the period that ends its sentence): the spans of ``model,regex`` on the real texts outside
the test half (NLTK webtext, 500 Brown files and 800 MTSamples notes:
:func:`corpora.outside_test_half`), or on IMDB train and unsup, AG News test and PubMed
(``--more``, about 86,000 texts, 8 minutes).

    PYTHONPATH=<src> python measure.py [--more] OUT.json   (main's src, then each change)
    python measure.py --compare BEFORE.json AFTER.json > changes.txt
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from before_after import main_on_real_text  # noqa: E402

if __name__ == "__main__":
    main_on_real_text(noun="NAME and other", context=(50, 30))
