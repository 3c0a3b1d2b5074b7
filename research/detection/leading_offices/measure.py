"""Decision 0214: the NAME spans of ``model,regex`` on real text outside the test half (NLTK
webtext, Brown, MTSamples; IMDB train and unsup, AG News, PubMed; ABC, State of the Union,
inaugural addresses, movie_reviews) that holds a word of an office or of kinship before a
capitalized word (``Principal Okafor``, ``Chairman Barry Irvin``), or, in a text with no capital
letter, before any word (``my brother tom``), with the code before and after the change.

    PYTHONPATH=<src>:.. python measure.py OUT.json
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

WORDS = (
    "principal|headmaster|headmistress|headteacher|teacher|tutor|counselor|counsellor|chancellor|"
    "president|vice|chairman|chairwoman|chairperson|chief|director|supervisor|secretary|minister|"
    "ambassador|commissioner|superintendent|councillor|councilor|councilman|councilwoman|alderman|"
    "congressman|congresswoman|lieutenant|commander|corporal|trooper|constable|warden|ranger|agent|"
    "chaplain|archbishop|cardinal|brother|aunt|auntie|uncle|grandma|grandpa|granny"
)
CAPITAL_AFTER = re.compile(rf"(?i:\b(?:{WORDS}))[ \t]+[A-Z]")
ANY_AFTER = re.compile(rf"\b(?:{WORDS})[ \t]+[a-z]")


def texts() -> list[tuple[str, str]]:
    from corpora import outside_matching

    lower = [(c, t) for c, t in outside_matching(ANY_AFTER) if t.lower() == t and not CAPITAL_AFTER.search(t)]
    return outside_matching(CAPITAL_AFTER) + lower


if __name__ == "__main__":
    main(texts, ("NAME",), "NAME", (60, 30))
