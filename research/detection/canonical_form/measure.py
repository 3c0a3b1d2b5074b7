"""Decision 0217: the spans of ``model,regex`` on real text outside the test half (NLTK webtext,
Brown, MTSamples; IMDB train and unsup, AG News, PubMed; ABC, State of the Union, inaugural
addresses, movie_reviews) that holds a combining mark, a format character (zero-width, soft
hyphen, bidirectional control, byte-order mark), a lone carriage return, a control character or a
symbol (emoji, dingbats), with the code before and after the change.

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

OTHER_FORM = re.compile("[\u0300-\u036f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff"
                        "\x00-\x08\x0b\x0c\x0e-\x1f\u2600-\u27bf\U0001f000-\U0001faff]|\r(?!\n)")


if __name__ == "__main__":
    main_on_matching(OTHER_FORM, (), "", (50, 30))
