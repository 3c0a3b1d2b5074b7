"""Decision 0216: the NAME and ORGANIZATION spans of ``model,regex`` on real text outside the test
half (NLTK webtext, Brown, MTSamples; IMDB train and unsup, AG News, PubMed; ABC, State of the
Union, inaugural addresses, movie_reviews) that holds capitalized words, ``of`` and an
institution's name (``Dr Amara Okafor of Kumasi General Hospital``), with the code before and
after the change.

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

PERSON_OF = re.compile(r"[A-Z][\w'\-]*[ \t]+of[ \t]+(?:[A-Z][\w'\-]*[ \t]+){0,3}"
                       r"(?:Hospitals?|Medical|Health|Clinics?|Infirmary|Hospice|Nursing|Rehabilitation|"
                       r"University|College|School|Academy|Institute|Center|Centre|Church|Inc|Corp|"
                       r"Corporation|LLC|Ltd|Company|Bank|Foundation|Laboratories|Pharmacy|Vineyards|Winery)\b")


if __name__ == "__main__":
    main_on_matching(PERSON_OF, ("NAME", "ORGANIZATION"), "NAME and ORGANIZATION", (60, 30))
