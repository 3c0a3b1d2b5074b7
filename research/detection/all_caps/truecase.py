"""Decision 0177 (rejected): a truecased detection view for text with no lower-case letter.
Importing this module patches the union detector's view; ``TC`` picks the variant:

* ``A``: a word among the 20,000 most frequent public words is written in lower case unless it is
  a weighty given name or surname (``lexicon.weighty_name``); any other word in title case;
* ``B``: the same with the 5,000 most frequent words and no name exception;
* ``C``: the 5,000 most frequent words, weighty names kept in title case.

    cd research/evaluation
    TC=A PYTHONPATH=../../src:../detection/all_caps python -c "import truecase, runpy, sys; \\
        sys.argv=['score.py','--data','/tmp/dev-upper.jsonl','--hybrid-epsilon','0','--no-fp']; \\
        runpy.run_path('score.py', run_name='__main__')"
"""

from __future__ import annotations

import os
import re

import embedanon.detectors.merge as merge
import embedanon.detectors.view as view_module
from embedanon.lexicon import COMMON_RANK, NAME_RANK, weighty_name, word_ranks

VARIANT = os.environ.get("TC", "A")
_WORD = re.compile(r"[^\W\d_]+")


def _lower(word: str) -> str:
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in word)


def truecased(text: str) -> str:
    ranks = word_ranks()
    limit = COMMON_RANK if VARIANT == "A" else NAME_RANK

    def one(match: re.Match[str]) -> str:
        word = match.group(0)
        lower = _lower(word)
        rank = ranks.get(lower)
        if rank is not None and rank < limit and not (VARIANT in "AC" and weighty_name(lower)):
            return lower
        return word[0] + _lower(word[1:])

    return _WORD.sub(one, text)


_shipped = view_module.detection_view


def detection_view(text: str) -> tuple[str, list[tuple[int, int]]]:
    view, tags = _shipped(text)
    if sum(c.isalpha() for c in view) >= 20 and not any(c.islower() for c in view):
        view = truecased(view)
    return view, tags


merge.detection_view = detection_view  # type: ignore[attr-defined]
