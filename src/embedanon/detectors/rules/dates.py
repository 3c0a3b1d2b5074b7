"""Decode rule for DATE spans: a list of dates the model decoded as one span becomes one span per date.

The model often decodes ``01/02/2020, 03/04/2020 and 05/06/2021`` as one DATE span, or cuts a list
in the wrong place (``05/02/06 and`` | ``07/25/06``). One span over several dates, or a date with a
trailing ``and``, is no date a surrogate can parse, so hybrid scope writes random digits in its
shape instead of shifting each date by the record's offset, and the intervals between the dates are
lost (protection is the same either way: every character is replaced). In a union with ``regex``,
which finds each date on its own, the merge joins the regex dates back into the model's one span.

Why a decode rule and not the merge: the merge covers exactly the characters of its input spans
and has one rule for every label; preferring ``regex``'s segmentation there would drop characters
the model covered (the separators) for one label only. A decode rule changes the model's own spans,
so ``model`` alone and every union with it gain, and the merge keeps its one rule.

What a date is, is the ``regex`` detector's call (its DATE patterns: numeric, ISO, month names with
a day and/or a year; never a bare year or weekday). Where the text between two of its dates is a
list separator (``,`` / ``;`` / ``and`` / ``or`` / ``&`` / ``, and``, with the spaces around it,
optionally followed by a weekday that opens the next date, ``and Tuesday, March 4``), the
separator's characters are removed from the model's DATE spans, which splits a span over the list
into its dates. The rule never adds a character, never touches another label, and leaves a span
with no separator between two dates as it is. So a comma inside one date (``March 3, 2020``,
``3 March, 2020``, ``Monday, March 3, 2020``) never cuts: the year alone is no date. Nor does a
range (``2020-01-02 to 2020-03-04``, ``March 3-5, 2020``): ``to``, ``through`` and ``-`` are no
list separators (a decision: a hyphen also joins the days of one date), so a range in one span
keeps its shape surrogate. Measured counts: the README's list of decode rules.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from ..base import Span
from ..regex import RegexDetector

#: the dates a separator must stand between (``regex``'s DATE patterns only)
_DATES = RegexDetector(labels=("DATE",))

#: the text between two dates of a list: the separator (removed), then an optional weekday (kept)
_GAP = re.compile(
    r"(?P<separator>\s*[,;]\s*(?:(?:and|or|&)\s+)?|\s+(?:and|or|&)\s+)"
    r"(?:(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|mon|tue|wed|thu|fri|sat|sun)\.?,?\s+)?",
    re.IGNORECASE,
)

#: a DATE span that holds one of these may hold a separator (the cheap test before the regex pass)
_MAY_SEPARATE = re.compile(r"[,;&]|\b(?:and|or)\b", re.IGNORECASE)


def list_separators(text: str) -> list[tuple[int, int]]:
    """The list separators of ``text`` that stand between two dates (see the module docstring).

    Args:
        text: the text.

    Returns:
        ``(start, end)`` character ranges, sorted and disjoint: each the separator between two
        consecutive ``regex`` dates, its spaces included, a weekday after it excluded.
    """
    dates = _DATES.detect(text)
    out = []
    for before, after in zip(dates, dates[1:], strict=False):
        gap = _GAP.fullmatch(text, before.end, after.start)
        if gap is not None:
            out.append((gap.start("separator"), gap.end("separator")))
    return out


def _without(span: Span, cuts: list[tuple[int, int]], cut_ends: list[int]) -> list[Span]:
    """``span`` less the characters of ``cuts`` (sorted, disjoint; ``cut_ends`` their ends): its
    pieces, in order, each with the span's label, score and source."""
    pieces, start = [], span.start
    i = bisect_right(cut_ends, span.start)  # the first cut that ends after the span starts
    while i < len(cuts) and cuts[i][0] < span.end:
        if cuts[i][0] > start:
            pieces.append((start, cuts[i][0]))
        start = max(start, cuts[i][1])
        i += 1
    if start < span.end:
        pieces.append((start, span.end))
    return [Span(a, b, span.label, span.score, span.source) for a, b in pieces]


def split_date_lists(text: str, spans: list[Span]) -> list[Span]:
    """DATE spans less the list separators between two dates: a list decoded as one span becomes
    one span per date (module docstring: what counts, and why a decode rule).

    Args:
        text: the text.
        spans: the decoded spans, sorted and disjoint.

    Returns:
        The spans, sorted and disjoint; other labels, and DATE spans with no separator between two
        dates, unchanged; a DATE span that was nothing but a separator is gone.
    """
    if not any(s.label == "DATE" and _MAY_SEPARATE.search(text, s.start, s.end) for s in spans):
        return spans
    cuts = list_separators(text)
    if not cuts:
        return spans
    cut_ends = [b for _, b in cuts]
    out: list[Span] = []
    for span in spans:
        out.extend(_without(span, cuts, cut_ends) if span.label == "DATE" else (span,))
    return out
