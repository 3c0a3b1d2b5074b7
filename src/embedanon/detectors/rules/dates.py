"""Decode rules for DATE spans: one span per date of a list or range, and no function words at a
span's edges.

The model often decodes ``01/02/2020, 03/04/2020 and 05/06/2021`` or ``2020-01-02 to 2020-03-04``
as one DATE span, cuts a list in the wrong place (``05/02/06 and`` | ``07/25/06``), or takes the
word after a date along (``12/25/08 at``). Such a span is no date a surrogate can parse, so hybrid
scope writes random digits in its shape instead of shifting each date by the record's offset, and
the date and the intervals between the dates are lost (protection is the same either way: every
character is replaced). In a union with ``regex``, which finds each date on its own, the merge
joins the regex dates back into the model's one span.

Why decode rules and not the merge: the merge covers exactly the characters of its input spans
and has one rule for every label; preferring ``regex``'s segmentation there would drop characters
the model covered for one label only. A decode rule changes the model's own spans, so ``model``
alone and every union with it gain, and the merge keeps its one rule.

What a date is, is the ``regex`` detector's call (its DATE patterns: numeric, ISO, month names with
a day and/or a year; never a bare year or weekday), read once per text (``RuleContext.dates``).
Three rules run in this order:

* ``date_lists``: where the text between two of its dates is a list separator (``,`` / ``;`` /
  ``and`` / ``or`` / ``&`` / ``, and``, with the spaces around it, optionally followed by a weekday
  that opens the next date, ``and Tuesday, March 4``), the separator is removed.
* ``date_ranges``: where it is a range joiner (``to`` / ``through`` / ``thru`` / ``until`` /
  ``till`` / ``til`` between spaces, or a dash ``-`` / ``–`` / ``—`` with spaces or, between two
  dates that both hold a year, without), the joiner is removed, so both ends of a range move by
  the same offset and the range keeps its length. A hyphen glued to two numeric dates
  (``01/02/2020-03/04/2020``) is left: ``regex`` finds no date there, and hybrid scope, which
  widens spans to whole words, would join the two again (``2020-03`` is one word to the
  tokenizer, as is ``2020-April``; an en dash is not).
* ``date_edges``: the function words (:data:`FUNCTION_WORDS`), punctuation and spaces at the edges
  of a DATE span, outside the first and after the last ``regex`` date inside it, are removed
  (``12/25/08 at`` → ``12/25/08``; ``on Monday, March 3`` → ``Monday, March 3``: the trim stops at
  the first word that is not a function word). A span with no whole ``regex`` date inside it is
  left as it is, and so is a time after a date (``12/25/08 at 10:30``): dropping the time would
  uncover it. A line's end closes the date, though: what a span holds on another line than its
  first and last ``regex`` dates goes (``Tuesday, March 3.`` and a caption's ``00:03:10`` on the
  next line → ``Tuesday, March 3``; decision 0192); a date that runs over a line's end itself
  (``March 3,`` then ``2020`` on the next line) is one ``regex`` date and stays whole. Lower-case
  words after a comma or a semicolon that follows the last date, naming no date, go too, also
  where that date reaches into the span from before it (``3 May 2021, call``: the model took the
  next word, and the date's surrogate scrubbed it to random letters); so does a number after the
  last date whose unit of time follows the span (``03/04/2019, 10`` of
  ``03/04/2019, 10 days ago``: the amount of a length of time, decision 0653).

The rules only ever remove characters that lie outside every ``regex`` date: they never add a
character, and every ``regex`` date inside a DATE span stays whole inside one span. ``date_edges``
touches DATE spans only; ``date_lists`` and ``date_ranges`` also cut a span of another label that
reaches into a ``regex`` date (``2020 and 9`` tagged ADDRESS between ``4 March 2020`` and
``9 April 2021``: at a low threshold the model proposes such pieces, and the union would join both
dates through them; decision 0110); a span of another label that reaches into no date is never
touched. So they never reduce the protection of a date itself; the
removed separators and function words stay in the text as they were. A span with nothing to cut
between two dates stays one span, so a comma inside one date (``March 3, 2020``, ``3 March, 2020``,
``Monday, March 3, 2020``) never cuts (the year alone is no date), nor do the days of one date
(``March 3-5, 2020``: ``5, 2020`` is no date) or an ISO date's own hyphens (``2020-01-02`` is one
date). Measured counts: the README's list of decode rules.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from ..._english import TIME_UNIT_ALTERNATION
from ..base import Span
from .base import DATES, RuleContext
from .common import drop_where

#: words a DATE span may lose at its edges: prepositions, conjunctions and the article that
#: introduce, join or approximate a date, none of them a month, a weekday, an ordinal or a number,
#: so none carries the date's value. Words that refine a date (early, late, mid, end, morning,
#: noon) are not here: a span that holds one keeps it
FUNCTION_WORDS = frozenset({
    "about", "after", "and", "approx", "approximately", "around", "at", "before", "between", "by",
    "circa", "during", "for", "from", "in", "of", "on", "or", "since", "the", "thru", "through",
    "til", "till", "to", "until", "with",
})

#: the text between two dates of a list: the separator (removed), then an optional weekday (kept)
_LIST_GAP = re.compile(
    r"(?P<cut>\s*[,;]\s*(?:(?:and|or|&)\s+)?|\s+(?:and|or|&)\s+)"
    r"(?:(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|mon|tue|wed|thu|fri|sat|sun)\.?,?\s+)?",
    re.IGNORECASE,
)

#: the text between the two ends of a range: a joiner word between spaces, or a dash (all removed)
_RANGE_GAP = re.compile(r"(?P<cut>\s+(?:to|through|thru|until|till|til)\s+|\s*[-–—]\s*)", re.IGNORECASE)
_UNSPACED_DASH = re.compile(r"\s*[-–—]|[-–—]\s*")

#: a date that holds a year (4 digits, ``'20``, or a numeric date's third field): a dash without
#: spaces only joins two of these, so ``March 3-April 5`` is not cut
_HAS_YEAR = re.compile(r"\d{4}|'\d\d|\d[/.\-]\d{1,2}[/.\-]\d")

#: a DATE span that holds one of these may hold a cut (the cheap test before the regex pass)
_MAY_CUT = re.compile(r"[,;&\-–—]|\b(?:and|or|to|through|thru|until|till|til)\b", re.IGNORECASE)

#: the pieces an edge is read in: a word, a run of punctuation, a run of spaces
_PIECES = re.compile(r"\w+|[^\w\s]+|\s+")


def _gaps(text: str, dates: list[Span], gap: re.Pattern[str]) -> list[tuple[int, int, Span, Span]]:
    """The ``cut`` groups of ``gap`` where it is all the text between two consecutive dates, with
    those dates."""
    out = []
    for before, after in zip(dates, dates[1:], strict=False):
        match = gap.fullmatch(text, before.end, after.start)
        if match is not None:
            out.append((match.start("cut"), match.end("cut"), before, after))
    return out


def list_separators(text: str, dates: list[Span] | None = None) -> list[tuple[int, int]]:
    """The list separators of ``text`` that stand between two dates (see the module docstring).

    Args:
        text: the text.
        dates: ``regex``'s DATE spans of ``text`` (None: found here).

    Returns:
        ``(start, end)`` character ranges, sorted and disjoint: each the separator between two
        consecutive ``regex`` dates, its spaces included, a weekday after it excluded.
    """
    dates = DATES.detect(text) if dates is None else dates
    return [(a, b) for a, b, _, _ in _gaps(text, dates, _LIST_GAP)]


def range_joiners(text: str, dates: list[Span] | None = None) -> list[tuple[int, int]]:
    """The range joiners of ``text`` that stand between two dates (see the module docstring).

    Args:
        text: the text.
        dates: ``regex``'s DATE spans of ``text`` (None: found here).

    Returns:
        ``(start, end)`` character ranges, sorted and disjoint: each the joiner between two
        consecutive ``regex`` dates, its spaces included.
    """
    dates = DATES.detect(text) if dates is None else dates
    return [(a, b) for a, b, before, after in _gaps(text, dates, _RANGE_GAP)
            if not _UNSPACED_DASH.fullmatch(text, a, b)
            or all(_HAS_YEAR.search(text, d.start, d.end) for d in (before, after))]


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


def _word_char(text: str, i: int) -> bool:
    return 0 <= i < len(text) and (text[i].isalnum() or text[i] == "_")


def _edge(text: str, start: int, end: int, *, from_end: bool) -> int:
    """Where a trim of ``text[start:end]`` from its start (or, ``from_end``, its end) stops: after
    the longest run of whole function words, punctuation and spaces there."""
    pieces = [(m.start(), m.end()) for m in _PIECES.finditer(text, start, end)]
    edge = end if from_end else start
    for a, b in reversed(pieces) if from_end else pieces:
        if _word_char(text, a):
            whole = not (_word_char(text, a - 1) or _word_char(text, b))  # not ``at`` of ``at5``
            if not whole or text[a:b].lower() not in FUNCTION_WORDS:
                break
        edge = a if from_end else b
    return edge


def _may_trim(text: str, span: Span) -> bool:
    """The cheap test before the regex pass: the span starts or ends with punctuation, a space or
    a function word, or holds a line's end."""
    if not (text[span.start].isalnum() and text[span.end - 1].isalnum()):
        return True
    if text.find("\n", span.start, span.end) >= 0:  # a line's end (decision 0192)
        return True
    if _ENDS_IN_WORDS_TAIL.search(text, span.start, span.end):  # ``, call`` (:func:`_cut_tail`)
        return True
    if text[span.end - 1].isdigit() and _UNIT_AFTER.match(text, span.end):  # ``, 10`` of ``10 days``
        return True
    words = text[span.start : span.end].split()
    return words[0].lower() in FUNCTION_WORDS or words[-1].lower() in FUNCTION_WORDS


#: a comma or a semicolon, then lower-case words (``, call``, ``; please come``)
_TAIL = r"[,;][ \t]*([a-z]+(?:[ \t]+[a-z]+)*)"
#: such a tail after a date (spaces before it allowed), and at the end of a span (the cheap test
#: of :func:`_may_trim`)
_WORDS_TAIL = re.compile(rf"[ \t]*{_TAIL}")
_ENDS_IN_WORDS_TAIL = re.compile(rf"{_TAIL}\Z")


#: the amount of a length of time after a date (``, 10`` of ``03/04/2019, 10 days ago``) and the
#: unit that goes on after the span (:func:`_cut_tail`)
_AMOUNT_TAIL = re.compile(r"[ \t]*[,;]?[ \t]*[0-9]{1,3}")
_UNIT_AFTER = re.compile(
    rf"[ \t]*-?[ \t]*(?:{TIME_UNIT_ALTERNATION})s?(?![^\W\d_])", re.IGNORECASE)


def _cut_tail(text: str, span: Span, date_end: int) -> Span:
    """``span`` ending at ``date_end`` (the end of the last ``regex`` date it holds or reaches
    into) when what follows that date in it is a comma or a semicolon and lower-case words that
    name no date (``3 May 2021, call``: the decode took the next word; its surrogate scrubbed
    ``call`` to random letters), or the amount of a length of time whose unit follows the span
    (``03/04/2019, 10`` before `` days ago``: the surrogate scrubbed ``10`` to ``03``); else
    ``span``."""
    if _AMOUNT_TAIL.fullmatch(text, date_end, span.end) and _UNIT_AFTER.match(text, span.end):
        return Span(span.start, date_end, span.label, span.score, span.source)
    m = _WORDS_TAIL.fullmatch(text, date_end, span.end)
    if m is None or any(_NO_DATE.fullmatch(w) for w in m.group(1).split()):
        return span
    return Span(span.start, date_end, span.label, span.score, span.source)


def _trim(text: str, span: Span, dates: list[Span], date_starts: list[int]) -> Span:
    """``span`` less the function words, punctuation and spaces at its edges outside the ``regex``
    dates inside it (``dates`` sorted and disjoint, ``date_starts`` their starts); the span itself
    when no whole date lies inside it. An edge that a date reaches into from outside the span is
    left as it is. A tail of lower-case words after a comma that follows the last date goes too
    (:func:`_cut_tail`), also when that date reaches into the span from outside it."""
    i, j = bisect_left(date_starts, span.start), bisect_left(date_starts, span.end)
    inside = [d for d in dates[i:j] if d.end <= span.end]
    if not inside:
        if i > 0 and span.start < dates[i - 1].end < span.end and j == i:  # ``May 2021, call``
            return _cut_tail(text, span, dates[i - 1].end)  # a date reaching in: ``3 May 2021``
        return span
    start, end = span.start, span.end
    if not (i > 0 and dates[i - 1].end > span.start):
        line = text.rfind("\n", span.start, inside[0].start) + 1  # a line's end closes a date (0192)
        start = _edge(text, max(span.start, line), inside[0].start, from_end=False)
    if inside[-1] is dates[j - 1]:  # no date starts inside the span and ends after it
        line_end = text.find("\n", inside[-1].end, span.end)
        end = _edge(text, inside[-1].end, span.end if line_end < 0 else line_end, from_end=True)
    if inside[-1] is dates[j - 1] and end == span.end:
        return _cut_tail(text, span if start == span.start else Span(start, end, span.label, span.score,
                                                                       span.source), inside[-1].end)
    if (start, end) == (span.start, span.end):
        return span
    return Span(start, end, span.label, span.score, span.source)


def _may_cut(context: RuleContext, spans: list[Span]) -> bool:
    """The cheap test before the regex pass: a span holds a separator or joiner character, or a
    DATE span has a space at an edge (a span that lies in the spaces of a gap)."""
    text = context.text
    return any(_MAY_CUT.search(text, s.start, s.end)
               or (s.label == "DATE" and (text[s.start].isspace() or text[s.end - 1].isspace()))
               for s in spans)


def _reaches_a_date(span: Span, dates: list[Span], date_starts: list[int]) -> bool:
    i = bisect_left(date_starts, span.end)  # the dates that start before the span ends
    return i > 0 and dates[i - 1].end > span.start


def _cut(spans: list[Span], cuts: list[tuple[int, int]], dates: list[Span]) -> list[Span]:
    """The spans, DATE spans and spans of other labels that reach into a ``regex`` date (``dates``,
    sorted and disjoint) less the characters of ``cuts`` (sorted, disjoint)."""
    if not cuts:
        return spans
    cut_ends = [b for _, b in cuts]
    date_starts = [d.start for d in dates]
    out: list[Span] = []
    for span in spans:
        cut = span.label == "DATE" or _reaches_a_date(span, dates, date_starts)
        out.extend(_without(span, cuts, cut_ends) if cut else (span,))
    return out


def split_date_lists(context: RuleContext, spans: list[Span]) -> list[Span]:
    """``date_lists``: DATE spans, and spans that reach into a ``regex`` date, less the list
    separators between two ``regex`` dates (module docstring: what counts, why decode rules, and
    why no date loses a character).

    Args:
        context: the text and its ``regex`` dates.
        spans: spans, sorted and disjoint.

    Returns:
        The spans, sorted and disjoint; spans of other labels that reach into no ``regex`` date
        unchanged, each span inside one of ``spans``; a span that was nothing but a separator is
        gone.
    """
    if not _may_cut(context, spans):
        return spans
    return _cut(spans, list_separators(context.text, context.dates), context.dates)


def split_date_ranges(context: RuleContext, spans: list[Span]) -> list[Span]:
    """``date_ranges``: DATE spans, and spans that reach into a ``regex`` date, less the range
    joiners between two ``regex`` dates, so both ends of a range move by the same offset (module
    docstring).

    Args:
        context: the text and its ``regex`` dates.
        spans: spans, sorted and disjoint.

    Returns:
        The spans, sorted and disjoint; spans of other labels that reach into no ``regex`` date
        unchanged, each span inside one of ``spans``; a span that was nothing but a joiner is
        gone.
    """
    if not _may_cut(context, spans):
        return spans
    return _cut(spans, range_joiners(context.text, context.dates), context.dates)


def trim_date_edges(context: RuleContext, spans: list[Span]) -> list[Span]:
    """``date_edges``: DATE spans less the function words, punctuation and spaces at their edges,
    outside the first and after the last ``regex`` date inside them (module docstring).

    Args:
        context: the text and its ``regex`` dates.
        spans: spans, sorted and disjoint.

    Returns:
        The spans, sorted and disjoint; other labels unchanged, each DATE span inside one of
        ``spans``.
    """
    text = context.text
    if not any(s.label == "DATE" and _may_trim(text, s) for s in spans):
        return spans
    dates = context.dates
    if not dates:
        return spans
    date_starts = [d.start for d in dates]
    return [_trim(text, s, dates, date_starts) if s.label == "DATE" else s for s in spans]


#: what a DATE span may hold and still name no date: weekdays, month names alone, clock times,
#: parts of the day and the words around them (``on Friday``, ``Sept.``, ``12:30``, ``Wednesday night``)
_NO_DATE = re.compile(
    r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|"
    r"january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|morning|afternoon|evening|night|noon|midnight|"
    r"today|tonight|yesterday|tomorrow|this|last|next|on|at|the|a|am|pm|"
    r"(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?)",
    re.IGNORECASE,
)
_PIECE = re.compile(r"[A-Za-z]+|\d+(?::\d+)*")


def drop_non_dates(context: RuleContext, spans: list[Span]) -> list[Span]:
    """A DATE span that names no date is dropped: one of weekdays, a month name alone, clock times,
    parts of the day and relative words (``Friday``, ``Wednesday night``, ``Sept.``, ``12:30``,
    ``tonight``), with nothing else but punctuation and lower-case words after them that the
    decode ran on into (``on Thursday said``, ``Monday works``: decision 0229). HIPAA Safe Harbor
    lists dates (day, month and year), not weekdays nor times, and ``regex`` calls none of these a
    date either.

    Args:
        context: the text.
        spans: spans, sorted and disjoint.

    Returns:
        The spans less those DATE spans.
    """
    text = context.text

    def no_date(span: Span) -> bool:
        pieces = _PIECE.findall(text[span.start : span.end])
        while (len(pieces) > 1 and pieces[-1].isalpha() and pieces[-1].islower()
               and not _NO_DATE.fullmatch(pieces[-1])):
            pieces.pop()  # a word the decode ran on into (`on Thursday said`; decision 0229)
        return bool(pieces) and all(_NO_DATE.fullmatch(p) for p in pieces)

    return drop_where(spans, "DATE", no_date)
