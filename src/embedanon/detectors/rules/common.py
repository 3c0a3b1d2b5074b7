"""What the decode rules share: which words may be names, span and case helpers."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable

import numpy as np

from ..._english import TITLES
from ..base import Span

#: capitalized words that are not names when they stand next to a coordination
_NOT_NAMES_TEXT = (
    "the a an i we you he she they it this that these those my our your his her their mr mrs ms dr "
    "prof inc ltd llc corp co group company sons"
)


NOT_NAMES = frozenset(_NOT_NAMES_TEXT.split())


#: labels a header line gives a person's name after (``Patient: Okafor, Patience``), lower case
HEADER_LABELS = (
    "name", "patient", "pt", "student", "pupil", "client", "resident", "member", "author", "from", "to",
    "cc", "attn", "contact", "parent", "guardian", "teacher", "tutor", "provider", "physician", "doctor",
    "employee", "customer", "applicant",
)


#: honorifics the decode rules read a name after (``Dr. Okafor``), lower case, without the period
HONORIFICS = ("mrs", "mr", "ms", "mx", "dr", "prof")


#: words that address someone by role, lower case: the titles (``doctor``, ``sir``) and ``doc``,
#: ``ma'am`` (``Thanks Doc.``, ``Thank you, Ma'am.``; decision 0151)
ADDRESSES = TITLES | {"doc", "ma'am", "ma\u2019am", "maam"}


def drop_where(spans: list[Span], label: str, drops: Callable[[Span], bool]) -> list[Span]:
    """``spans`` less the spans of ``label`` for which ``drops(span)`` is true (the others are
    never tested), in order: the body of every rule that only removes spans of one label."""
    return [s for s in spans if s.label != label or not drops(s)]


def covered_tokens(starts: np.ndarray, ends: np.ndarray, spans: Iterable[Span]) -> np.ndarray:
    """bool (T,): the tokens that overlap any of the spans.

    Tokens are in text order and do not overlap, so ``starts`` and ``ends`` are sorted and the
    tokens a span overlaps (``start < span.end`` and ``end > span.start``) are one index range,
    found by binary search: O((S + T) log T) where testing every token against every span was
    O(S * T) (seconds on a long text with thousands of spans)."""
    n = len(starts)
    marks = np.zeros(n + 1, dtype=np.int64)
    bounds = [(sp.start, sp.end) for sp in spans]
    if bounds:
        lo = np.searchsorted(ends, [a for a, _ in bounds], side="right")  # first token ending after a
        hi = np.searchsorted(starts, [b for _, b in bounds], side="left")  # first token starting at b+
        keep = lo < hi
        np.add.at(marks, lo[keep], 1)
        np.add.at(marks, hi[keep], -1)
    return np.cumsum(marks[:n]) > 0


def overlapping(spans: Iterable[Span], a: int, b: int) -> list[Span]:
    """The spans that overlap the characters [a, b)."""
    return [sp for sp in spans if sp.start < b and a < sp.end]


class SpanLookup:
    """:func:`overlapping` for many queries on one list of spans: by binary search when the spans
    are sorted and disjoint (their ends then ascend too), else by the plain scan. The same
    answers, in list order; a rule asking once per word of a long text no longer pays S per ask.
    """

    def __init__(self, spans: list[Span]) -> None:
        self.spans = spans
        self.ends = [sp.end for sp in spans]
        self.ordered = all(x.end <= y.start for x, y in zip(spans, spans[1:], strict=False))

    def __call__(self, a: int, b: int) -> list[Span]:
        if not self.ordered:
            return overlapping(self.spans, a, b)
        spans, out = self.spans, []
        i = bisect_right(self.ends, a)  # the first span that ends after a
        while i < len(spans) and spans[i].start < b:
            out.append(spans[i])
            i += 1
        return out


def capitalized(word: str) -> bool:
    """Upper-case first letter, not all capitals (one letter counts): how a name looks in mixed case."""
    return word[0].isupper() and not (word.isupper() and len(word) > 1)


_JOINED_PARTS = re.compile(r"(['\u2019-])")


def mixed_name_case(word: str) -> bool:
    """A word, joined pieces included, written like a name in mixed-case text: the first letter
    upper case, no piece of two letters or more all capitals, every piece after a hyphen
    capitalized (``Okafor-Adeyemi``, ``I-An``, ``S'fiso``, ``O’Neil``; not ``OKAFOR``, ``Bao-li``)."""
    parts = _JOINED_PARTS.split(word)  # piece, joiner, piece, ...
    if not parts[0][:1].isupper():
        return False
    for k in range(0, len(parts), 2):
        piece = parts[k]
        if len(piece) > 1 and piece.isupper():
            return False
        if k and parts[k - 1] == "-" and not piece[:1].isupper():
            return False
    return True


def title_word(word: str) -> bool:
    return len(word) > 1 and word[0].isupper() and word[1:].islower() and word.lower() not in NOT_NAMES


#: lower-case words that open a coordination without being part of it (``both ana and bo``)
QUANTIFIERS = frozenset({"both", "either", "neither", "between", "all"})


def text_case(text: str) -> str:
    """'lower' for a text without capitals, 'upper' for one without lower-case letters, else 'mixed'."""
    if text.lower() == text:
        return "lower"
    if text.upper() == text:
        return "upper"
    return "mixed"


#: words a NAME span may contain that never mark other occurrences (function words, titles)
_NO_PROPAGATION_TEXT = (
    "and or of de da di del van von der den le la du al el bin ibn st jr sr ii iii iv md phd rn "
    "is was be to in on at by for with from as but not no so if may will can june april august"
)


NO_PROPAGATION = NOT_NAMES | frozenset(_NO_PROPAGATION_TEXT.split())


WORD = r"[^\W\d_](?:[^\W\d_]|['-](?=[^\W\d_]))*"


#: lower-case words after a lower-case honorific that are not names (``the dr. said``), beside the
#: propagation stop list
_AFTER_TITLE_LOWER_TEXT = (
    "said says told asked has had would should could visit visits appointment office note notes "
    "order orders"
)


AFTER_TITLE_LOWER_NOT_NAMES = frozenset(_AFTER_TITLE_LOWER_TEXT.split())
