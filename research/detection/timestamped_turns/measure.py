"""Decision 0181: every span of ``model,regex`` on the real texts outside the evaluation set that
hold a clock time (``10:32``, ``3:45``): NLTK webtext, 500 Brown files and 800 MTSamples notes
sharing no line with the test half (:func:`corpora.outside_test_half`), IMDB train and unsup
reviews (the set reads only imdb_test), AG News test and the PubMed abstracts.

    PYTHONPATH=<src> python measure.py OUT.json     (once with main's src, once with the change)
    python measure.py --compare BEFORE.json AFTER.json > changes.txt
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from before_after import main_on_matching  # noqa: E402

CLOCK = re.compile(r"(?<![\d:])\d{1,2}:\d\d(?![\d:])|\d\d:\d\d:\d\d")


if __name__ == "__main__":
    main_on_matching(CLOCK)
