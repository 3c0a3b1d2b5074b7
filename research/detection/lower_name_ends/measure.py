"""Decision 0213: the NAME spans of ``model,regex`` on the real texts outside the test half (NLTK
webtext, 500 Brown files, 800 MTSamples notes; ``--more``: IMDB train and unsup, AG News, PubMed),
with the code before and after the change.

    PYTHONPATH=<src>:.. python measure.py OUT.json [--more]
    python measure.py --compare BEFORE.json AFTER.json > changes.txt
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from before_after import main_on_real_text  # noqa: E402

if __name__ == "__main__":
    main_on_real_text(("NAME",), "NAME", (50, 30))
