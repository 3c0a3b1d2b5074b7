"""Decision 0212: the LOCATION and NAME spans of ``model,regex`` on real text outside the test half
(NLTK webtext, Brown, MTSamples; IMDB train and unsup reviews, AG News, PubMed) that holds a
capitalized word before a landmark word (``Central Park``, ``Penn Station``), with the code before
and after the change.

    PYTHONPATH=<src>:.. python measure.py OUT.json
    python measure.py --compare BEFORE.json AFTER.json > changes.txt
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from before_after import main_on_matching  # noqa: E402

LANDMARK = re.compile(r"[A-Z][a-z'\u2019\-]+[ \t]+"
                      r"(?:Park|Square|Building|Bridge|Station|Terminal|Plaza|Mall)\b")


if __name__ == "__main__":
    main_on_matching(LANDMARK, ("LOCATION", "NAME"), "LOCATION and NAME", (60, 30))
