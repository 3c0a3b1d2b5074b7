"""Decision 0185: every span of ``model,regex`` on the real texts outside the test half that hold a
hexadecimal literal (``0x00000618``): NLTK webtext, 500 Brown files and 800 MTSamples notes
(:func:`corpora.outside_test_half`), IMDB train and unsup, AG News test, PubMed.

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

HEX = re.compile(r"\b0[xX][0-9A-Fa-f]+\b")


if __name__ == "__main__":
    main_on_matching(HEX)
