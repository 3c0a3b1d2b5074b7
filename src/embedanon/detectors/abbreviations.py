"""Abbreviations a text defines itself: ``diabetic ketoacidosis (DKA)``.

The definitions are found the way Schwartz and Hearst (2003, "A simple algorithm for identifying
abbreviation definitions in biomedical text") find them: a short form in parentheses right after
its long form, where every letter and digit of the short form, read from its end, is found in the
long form in that order, the first one at the start of a word. The long form is at most
``min(len + 5, 2 * len)`` words (``len``: the short form's characters) before the parenthesis.

:func:`without_defined_abbreviations` uses them: a NAME or LOCATION span whose text is a short form
the text defines, and whose long form is no span itself, is no PII (decision 0148). ``Severe acute
respiratory infection (SARI)`` makes every ``SARI`` of the text an abbreviation; ``New York City
(NYC)`` and ``Jane Doe (JD)`` do not, when their long form is found as a place or a name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .base import Span

#: a parenthesis of 2 to 12 characters on one line: the short-form candidate and what may follow it
_PAREN = re.compile(r"\(([^()\n]{2,12})\)")
_WORD = re.compile(r"\S+")
#: how many characters a word of a long form may take, at most, when looking back for it
_WINDOW = 40
#: the labels a defined abbreviation is taken for by the detectors (``DKA`` a name, ``SARS`` a town)
DEFINED_NOT = frozenset({"NAME", "LOCATION"})


@dataclass(frozen=True, slots=True)
class Definition:
    """One abbreviation definition: the short form and the characters of its long form."""

    short: str
    long_start: int
    long_end: int


def _short_form(inside: str) -> str | None:
    """The short form in a parenthesis (``DKA``, ``ACEI; n = 4``), or None when it is not one:
    2 to 10 characters, at most two words, starting with a letter or digit, with an upper-case
    letter."""
    short = re.split(r"[;,]", inside, maxsplit=1)[0].strip()
    if not 2 <= len(short) <= 10 or len(short.split()) > 2 or not short[0].isalnum():
        return None
    if not any(c.isupper() for c in short):
        return None
    return short


def _long_form_start(short: str, words: str) -> int | None:
    """Where the long form starts in ``words`` (the text before the parenthesis), or None: each
    letter or digit of ``short``, from its end, found in ``words`` from its end, the first one at
    the start of a word (Schwartz and Hearst's ``findBestLongForm``)."""
    s, w = len(short) - 1, len(words) - 1
    while s >= 0:
        c = short[s].lower()
        if not c.isalnum():
            s -= 1
            continue
        while w >= 0 and (words[w].lower() != c or (s == 0 and w > 0 and words[w - 1].isalnum())):
            w -= 1
        if w < 0:
            return None
        w -= 1
        s -= 1
    first = w + 1  # the long form starts at the word holding the short form's first character
    while first > 0 and not words[first - 1].isspace():
        first -= 1
    return first


def definitions(text: str) -> list[Definition]:
    """The abbreviations ``text`` defines as ``long form (SHORT)``, in order."""
    out: list[Definition] = []
    for m in _PAREN.finditer(text):
        short = _short_form(m.group(1))
        if short is None:
            continue
        low = max(0, m.start() - _WINDOW * 20)
        newline = text.rfind("\n", low, m.start())
        line_start = newline + 1 if newline >= 0 else low
        end = m.start()
        while end > line_start and text[end - 1].isspace():
            end -= 1
        most = min(len(short) + 5, 2 * len(short))
        # the words before the parenthesis, read back at most _WINDOW characters a word: reading
        # from the line's start was quadratic in a long line
        window = max(line_start, end - _WINDOW * most)
        words = list(_WORD.finditer(text, window, end))
        if window > 0 and not text[window - 1].isspace() and words and words[0].start() == window:
            words = words[1:]  # cut by the window: not a whole word
        words = words[-most:]
        if not words:
            continue
        begin = words[0].start()
        offset = _long_form_start(short, text[begin:end])
        if offset is None:
            continue
        long_form = text[begin + offset:end]
        if len(long_form) <= len(short) or short in long_form.split():
            continue
        out.append(Definition(short, begin + offset, end))
    return out


def without_defined_abbreviations(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` less the NAME and LOCATION spans whose text is a short form ``text`` defines, where
    no span overlaps the definition's long form (decision 0148); a deny-list span stays.

    Args:
        text: the text.
        spans: sorted, disjoint spans (merged).

    Returns:
        The spans kept, in order.
    """
    spans = list(spans)
    candidates = {text[s.start:s.end] for s in spans if s.label in DEFINED_NOT}
    if "(" not in text or not candidates:
        return spans
    defined = {d.short for d in definitions(text) if d.short in candidates
               and not any(s.start < d.long_end and d.long_start < s.end for s in spans)}
    if not defined:
        return spans
    return [s for s in spans if s.label not in DEFINED_NOT or text[s.start:s.end] not in defined
            or "deny" in s.source.split("+")]
