"""The decode rule for street ADDRESS spans: a street's name ends at its street word."""

from __future__ import annotations

import re

from ..._english import STREET_TYPES, UNIT_WORDS
from ...lexicon import place_names
from ..base import Span
from ..features import fold
from .base import RuleContext

#: the words a street's name ends in (``Nevins Street``, ``5th Ave.``, ``Elm Lane``), folded, no period
STREET_WORDS = STREET_TYPES | frozenset((
    "av", "ter", "circle", "cir", "trail", "trl", "alley", "crescent", "row",
))  # fmt: skip
#: words that go on an address after its street word: a direction, a unit, a floor (``Main Street
#: West``, ``12 Oak Road apt 4``, ``Oak Road, second floor``)
ADDRESS_TAILS = UNIT_WORDS | frozenset((
    "north", "south", "east", "west", "n", "s", "e", "w", "ne", "nw", "se", "sw", "building", "bldg",
    "box", "lot", "block", "first", "second", "third", "fourth", "fifth", "ground", "upper", "lower",
    "rear", "front", "basement", "level",
))  # fmt: skip
_WORD = re.compile(r"\S+")
#: the punctuation around a word that does not make it another word (``Street,``, ``(now)``)
_EDGE_PUNCT = ".,;:!?()[]{}\"'\u2018\u2019\u201c\u201d"


def trim_street_edges(context: RuleContext, spans: list[Span]) -> list[Span]:
    """An ADDRESS span that holds a street word (:data:`STREET_WORDS`) ends at the last one when
    only lower-case common words follow it in the span: ``Nevins Street now`` → ``Nevins Street``,
    ``Main Street yesterday``, ``Elm Lane today``. At the end of a text or a turn the model reads
    the word after a street as the address's continuation, and the surrogate replaced that word
    too (``I'm on Jim Knolls`` for ``I'm on Nevins Street now``).

    A trailing word leaves when it is written in lower case, has no digit, is among the 20,000
    most frequent public English words and is no word that goes on an address
    (:data:`ADDRESS_TAILS`: ``West``, ``apt``, ``floor``); in a text written all in lower case,
    also no town's name (``main street reading``). Words after the first that does not leave
    keep the span as it is: ``12 Oak Road apt 4``, ``Oak Road, Springfield`` and ``Oak Road
    Springfield IL`` are unchanged, and so is a span with no street word.

    Args:
        context: the text and its case.
        spans: spans, sorted and disjoint.

    Returns:
        The spans, ADDRESS spans trimmed.
    """
    if not any(s.label == "ADDRESS" for s in spans):
        return spans
    text, common = context.text, context.common
    caseless = context.caseless

    def loose(word: str) -> bool:
        bare = word.strip(_EDGE_PUNCT)
        key = fold(bare)
        if not bare or not bare.islower() or any(c.isdigit() for c in bare) or key in ADDRESS_TAILS:
            return False
        return key in common and not (caseless and key in place_names())

    out: list[Span] = []
    for sp in spans:
        if sp.label != "ADDRESS":
            out.append(sp)
            continue
        words = [(m.start(), m.end()) for m in _WORD.finditer(text, sp.start, sp.end)]
        j = len(words)
        while j > 1 and loose(text[words[j - 1][0] : words[j - 1][1]]):
            j -= 1
        last = text[words[j - 1][0] : words[j - 1][1]] if j else ""
        if j == len(words) or fold(last.strip(_EDGE_PUNCT)) not in STREET_WORDS:
            out.append(sp)
            continue
        end = words[j - 1][1]
        while end > sp.start and text[end - 1] in ",;:!?":  # ``Nevins Street, now``: the comma stays out
            end -= 1
        out.append(Span(sp.start, end, sp.label, sp.score, sp.source))
    return out
