"""The DATE decode rules: a DATE span over a list (``date_lists``) or a range (``date_ranges``) of
dates becomes one span per date, and one with function words or punctuation at its edges loses
them (``date_edges``) (tables with negative controls); only characters of separators between two
dates leave DATE spans (against a per-character reference), no character of a ``regex`` date ever
leaves (a property of all three), the shipped model runs them, and in hybrid scope every date of a
list or range, or followed by ``at``, then moves by the record's one offset."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from embedanon import Anonymizer
from embedanon.detectors.base import Span
from embedanon.detectors.merge import UnionDetector, merge_spans
from embedanon.detectors.model import ModelDetector
from embedanon.detectors.regex import RegexDetector
from embedanon.detectors.rules import (
    RULE_NAMES,
    RULES,
    RuleContext,
    split_date_lists,
    split_date_ranges,
    trim_date_edges,
)
from embedanon.detectors.rules.dates import _NO_DATE, FUNCTION_WORDS, list_separators, range_joiners
from embedanon.detectors.weights import shipped_path
from embedanon.surrogates.dates import MONTHS, WEEKDAYS
from tests.helpers.noise import fast_key


def _split(text: str, covered: list[str], label: str = "DATE", rule=split_date_lists) -> list[str]:
    """The texts of the spans after ``rule``, given spans over the first occurrence of each of
    ``covered`` (in text order)."""
    spans = [Span(text.index(c), text.index(c) + len(c), label, 0.7, "model") for c in covered]
    return [text[s.start : s.end] for s in rule(RuleContext(text), spans)]


_DATE_RULES = ("date_lists", "date_ranges", "date_edges")


def _clean(text: str, spans: list[Span], *, lists: bool, ranges: bool, edges: bool) -> list[Span]:
    """The chosen DATE rules, in their order, over one context."""
    context = RuleContext(text)
    for on, rule in ((lists, split_date_lists), (ranges, split_date_ranges), (edges, trim_date_edges)):
        if on:
            spans = rule(context, spans)
    return spans


@pytest.mark.parametrize(
    ("text", "covered", "expected"),
    [
        ("Visits: 01/02/2020, 03/04/2020, 05/06/2021 and 07/08/2021.",
         ["01/02/2020, 03/04/2020, 05/06/2021"], ["01/02/2020", "03/04/2020", "05/06/2021"]),
        ("Dates 2020-01-02; 2020-03-04; 2021-05-06.", ["2020-01-02; 2020-03-04; 2021-05-06"],
         ["2020-01-02", "2020-03-04", "2021-05-06"]),
        ("MRI on June 2007 and January 2005 were normal.", ["June 2007 and January 2005"],
         ["June 2007", "January 2005"]),
        ("Seen on 3 March 2020, 4 March 2020 and 9 April 2021.", ["3 March 2020, 4 March 2020 and 9 April 2021"],
         ["3 March 2020", "4 March 2020", "9 April 2021"]),
        ("Seen March 3, 2020, March 4, 2020, and April 9, 2021.", ["March 3, 2020, March 4, 2020, and April 9, 2021"],
         ["March 3, 2020", "March 4, 2020", "April 9, 2021"]),
        ("Either 01/02/2020 or 03/04/2020.", ["01/02/2020 or 03/04/2020"], ["01/02/2020", "03/04/2020"]),
        ("On 01/02/2020 & 03/04/2020.", ["01/02/2020 & 03/04/2020"], ["01/02/2020", "03/04/2020"]),
        ("CHOP ( 10/15/03 , 11/10/03 ).", ["10/15/03 , 11/10/03"], ["10/15/03", "11/10/03"]),
        ("Monday, March 3, 2020 and Tuesday, March 4, 2020.", ["Monday, March 3, 2020 and Tuesday, March 4, 2020"],
         ["Monday, March 3, 2020", "Tuesday, March 4, 2020"]),
        # a separator the model put at the end of the first date of a list
        ("from 05/02/06 and 07/25/06 were", ["05/02/06 and", "07/25/06"], ["05/02/06", "07/25/06"]),
        # negative controls: a comma inside one date, ranges, bare years, a day list under one month
        ("Seen March 3, 2020 in clinic.", ["March 3, 2020"], ["March 3, 2020"]),
        ("Seen 3 March, 2020 in clinic.", ["3 March, 2020"], ["3 March, 2020"]),
        ("Seen Monday, March 3, 2020 in clinic.", ["Monday, March 3, 2020"], ["Monday, March 3, 2020"]),
        ("Stay 2020-01-02 to 2020-03-04 only.", ["2020-01-02 to 2020-03-04"], ["2020-01-02 to 2020-03-04"]),
        ("Stay March 3-5, 2020 only.", ["March 3-5, 2020"], ["March 3-5, 2020"]),
        ("Stay 01/02/2020 through 03/04/2020.", ["01/02/2020 through 03/04/2020"],
         ["01/02/2020 through 03/04/2020"]),
        ("In 2019, 2020 and 2021 alike.", ["2019, 2020 and 2021"], ["2019, 2020 and 2021"]),
        ("On Jan 5, 6 and 7, 2020.", ["Jan 5, 6 and 7, 2020"], ["Jan 5, 6 and 7, 2020"]),
        ("On 01/02/2020 and then 03/04/2020.", ["01/02/2020 and then 03/04/2020"],
         ["01/02/2020 and then 03/04/2020"]),
    ],
)
def test_date_lists_split_where_they_should(text: str, covered: list[str], expected: list[str]) -> None:
    assert _split(text, covered) == expected


def test_other_labels_that_reach_into_no_date_are_left_alone() -> None:
    text = "Lot 12, Elm Rd and Main St, seen 05/06/2021, 07/08/2021."
    spans = [Span(4, 26, "ADDRESS", 0.7, "model"), Span(33, 55, "DATE", 0.7, "model")]
    out = split_date_lists(RuleContext(text), spans)
    assert [text[s.start : s.end] for s in out] == ["12, Elm Rd and Main St", "05/06/2021", "07/08/2021"]


def test_a_span_of_another_label_that_reaches_into_a_date_loses_the_separators() -> None:
    """At a low threshold the model proposes a piece between two dates under another label
    (``2020 and 9`` as ADDRESS); without the cut, the union with ``regex`` would join both dates
    through it (decision 0110). Its label stays; only the separator leaves."""
    text = "Seen on 3 March 2020, 4 March 2020 and 9 April 2021."
    spans = [Span(22, 29, "DATE", 0.7, "model"), Span(30, 40, "ADDRESS", 0.4, "model"),
             Span(41, 51, "DATE", 0.8, "model")]
    out = split_date_lists(RuleContext(text), spans)
    assert [(text[s.start : s.end], s.label) for s in out] == [
        ("4 March", "DATE"), ("2020", "ADDRESS"), ("9", "ADDRESS"), ("April 2021", "DATE")]
    union = merge_spans([*out, *RegexDetector(labels=("DATE",)).detect(text)])
    assert [text[s.start : s.end] for s in union] == ["3 March 2020", "4 March 2020", "9 April 2021"]
    text = "Lot 01/02/2020, 03/04/2020 and Main St, seen 05/06/2021, 07/08/2021."
    spans = [Span(4, 38, "ADDRESS", 0.7, "model")]
    out = split_date_lists(RuleContext(text), spans)
    assert [text[s.start : s.end] for s in out] == ["01/02/2020", "03/04/2020 and Main St"]


@pytest.mark.parametrize(
    ("text", "covered", "expected"),
    [
        ("Stay 2020-01-02 to 2020-03-04 only.", ["2020-01-02 to 2020-03-04"], ["2020-01-02", "2020-03-04"]),
        ("Stay 01/02/2020 through 03/04/2020.", ["01/02/2020 through 03/04/2020"], ["01/02/2020", "03/04/2020"]),
        ("from 3/1/05 thru 3/9/05 in", ["from 3/1/05 thru 3/9/05"], ["from 3/1/05", "3/9/05"]),
        ("Held 3 March 2020 until 9 April 2021.", ["3 March 2020 until 9 April 2021"], ["3 March 2020", "9 April 2021"]),
        ("Held 3 March 2020 till 9 April 2021.", ["3 March 2020 till 9 April 2021"], ["3 March 2020", "9 April 2021"]),
        ("Held 01/02/2020 - 03/04/2020.", ["01/02/2020 - 03/04/2020"], ["01/02/2020", "03/04/2020"]),
        ("Held 2020-01-02 – 2020-03-04.", ["2020-01-02 – 2020-03-04"], ["2020-01-02", "2020-03-04"]),
        ("Held March 3 - April 5, 2020.", ["March 3 - April 5, 2020"], ["March 3", "April 5, 2020"]),
        # a dash without spaces between two dates that both hold a year, numeric ones included
        ("Held March 3, 2020-April 5, 2020.", ["March 3, 2020-April 5, 2020"], ["March 3, 2020", "April 5, 2020"]),
        ("Held 01/02/2020–03/04/2020.", ["01/02/2020–03/04/2020"], ["01/02/2020", "03/04/2020"]),
        # negative controls: an ISO date's own hyphens, the days of one date, a dash without spaces
        # next to a date without a year, hyphens glued to numeric dates (no regex date there), a
        # number range, a list (date_lists' business), no dates
        ("Held 01/02/2020-03/04/2020.", ["01/02/2020-03/04/2020"], ["01/02/2020-03/04/2020"]),
        ("Held 2020-01-02-2020-03-04.", ["2020-01-02-2020-03-04"], ["2020-01-02-2020-03-04"]),
        ("Held 2020-01-02 only.", ["2020-01-02"], ["2020-01-02"]),
        ("Held 2020-01-02 10:30 only.", ["2020-01-02 10:30"], ["2020-01-02 10:30"]),
        ("Held 01-02-2020 only.", ["01-02-2020"], ["01-02-2020"]),
        ("Stay March 3-5, 2020 only.", ["March 3-5, 2020"], ["March 3-5, 2020"]),
        ("Stay 3-5 March 2020 only.", ["3-5 March 2020"], ["3-5 March 2020"]),
        ("Stay March 3-April 5, 2020 only.", ["March 3-April 5, 2020"], ["March 3-April 5, 2020"]),
        ("Seen 1/12-15/93 only.", ["1/12-15/93"], ["1/12-15/93"]),
        ("June 2007-2008 only.", ["June 2007-2008"], ["June 2007-2008"]),
        ("Either 01/02/2020 or 03/04/2020.", ["01/02/2020 or 03/04/2020"], ["01/02/2020 or 03/04/2020"]),
        ("From 10:30 to 11:00.", ["10:30 to 11:00"], ["10:30 to 11:00"]),
        ("Stay 01/02/2020 to then 03/04/2020.", ["01/02/2020 to then 03/04/2020"], ["01/02/2020 to then 03/04/2020"]),
    ],
)
def test_date_ranges_split_where_they_should(text: str, covered: list[str], expected: list[str]) -> None:
    assert _split(text, covered, rule=split_date_ranges) == expected


@pytest.mark.parametrize(
    ("text", "covered", "expected"),
    [
        ("Seen 12/25/08 at 10am.", ["12/25/08 at"], ["12/25/08"]),
        ("Seen 12/29/08.  At 5 pm.", ["12/29/08.  At"], ["12/29/08"]),
        ("Seen 11/16/06 to 11/21/06.", ["11/16/06 to", "11/21/06"], ["11/16/06", "11/21/06"]),
        ("Seen from 01/02/2020 on.", ["from 01/02/2020"], ["01/02/2020"]),
        ("Seen on the 3rd of March 2020, well.", ["on the 3rd of March 2020,"], ["3rd of March 2020"]),
        ("Seen (approximately March 2020) once.", ["(approximately March 2020)"], ["March 2020"]),
        ("Seen on Monday, March 3, 2020 at noon.", ["on Monday, March 3, 2020 at"], ["Monday, March 3, 2020"]),
        ("Seen since 2020-01-02 and after.", ["since 2020-01-02 and after"], ["2020-01-02"]),
        ("Seen from 01/02/2020 to 03/04/2020.", ["from 01/02/2020 to 03/04/2020"], ["01/02/2020 to 03/04/2020"]),
        # negative controls: a word with the date's information stays (weekday, ordinal word, time,
        # year, part of day, a lower-case month), so does a function word inside a date, a piece of
        # a longer word, a span without a whole regex date, a span a date reaches into, another label
        ("Seen the 3rd of March 2020 once.", ["3rd of March 2020"], ["3rd of March 2020"]),
        ("Seen on the third of March 2020.", ["on the third of March 2020"], ["third of March 2020"]),
        ("Seen Monday, March 3 once.", ["Monday, March 3"], ["Monday, March 3"]),
        ("Seen 12/25/08 at 10:30 once.", ["12/25/08 at 10:30"], ["12/25/08 at 10:30"]),
        ("Seen March 3rd of 2020 once.", ["March 3rd of 2020"], ["March 3rd of 2020"]),
        ("Seen early March 2020 once.", ["early March 2020"], ["early March 2020"]),
        ("Seen 12/25/08 in the morning.", ["12/25/08 in the morning"], ["12/25/08 in the morning"]),
        ("Seen in may 3 2020 once.", ["in may 3 2020"], ["in may 3 2020"]),
        ("Seen 12/25/08 atrial.", ["12/25/08 at"], ["12/25/08 at"]),
        ("Seen Tuesday morning at 5.", ["Tuesday morning at"], ["Tuesday morning at"]),
        ("Seen on March once.", ["on March"], ["on March"]),
        ("Seen on 12/25/08 and March 3 once.", ["on 12/25/08 and March"], ["12/25/08 and March"]),
        ("Seen 3 Mar. and 12/25/08 once.", [". and 12/25/08"], [". and 12/25/08"]),  # the dot ends 3 Mar.
        ("Seen 12/25/08 at 5.", ["12/25/08 at"], ["12/25/08 at"]),
        # lower-case words after a comma that follows the last date: the decode took the next word
        ("Seen on 3 May 2021, call me.", ["3 May 2021, call"], ["3 May 2021"]),
        ("Seen on 3 May 2021, call me.", ["May 2021, call"], ["May 2021"]),  # the date reaches in
        ("Seen 12/25/08; please come.", ["12/25/08; please come"], ["12/25/08"]),
        # the amount of a length of time after the date, its unit after the span (left by an
        # earlier audit: '10 days ago' was released as '03 days ago', decision 0653)
        ("She came in on 03/04/2019, 10 days ago.", ["03/04/2019, 10"], ["03/04/2019"]),
        ("Seen on 3 May 2021, 2 weeks ago.", ["May 2021, 2"], ["May 2021"]),  # the date reaches in
        ("Seen 12/25/08 3-day stay.", ["12/25/08 3"], ["12/25/08"]),
        # not a unit after it, or a unit inside the span
        ("Seen 12/25/08, 10 patients.", ["12/25/08, 10"], ["12/25/08, 10"]),
        ("Seen 12/25/08, 10 days ago.", ["12/25/08, 10 days"], ["12/25/08, 10 days"]),
        # not a word that names a date, nor a capitalized one, nor after no comma
        ("Seen 12/25/08, at noon.", ["12/25/08, at noon"], ["12/25/08, at noon"]),
        ("Seen 12/25/08, Easter.", ["12/25/08, Easter"], ["12/25/08, Easter"]),
        ("Seen 12/25/08 call me.", ["12/25/08 call"], ["12/25/08 call"]),
        # a line's end closes the date: a caption's or a transcript's next line is no part of it
        # (decision 0192)
        ("Since Tuesday, March 3.\n00:03:10 --> 00:03:14", ["Tuesday, March 3.\n00:03:10"], ["Tuesday, March 3"]),
        ("[10:32]\nMarch 3, 2020 was a Tuesday.", ["[10:32]\nMarch 3, 2020"], ["March 3, 2020"]),
        ("On March 3,\n2020 she came.", ["March 3,\n2020"], ["March 3,\n2020"]),  # one date
    ],
)
def test_date_edges_trim_where_they_should(text: str, covered: list[str], expected: list[str]) -> None:
    label = "ADDRESS" if text == "Seen 12/25/08 at 5." else "DATE"
    assert _split(text, covered, label=label, rule=trim_date_edges) == expected


def test_the_rules_together_split_a_range_with_edges() -> None:
    text = "Admitted from 01/02/2020 through 03/04/2020, and seen 12/25/08 at 10am."
    spans = [Span(9, 44, "DATE", 0.7, "model"), Span(54, 65, "DATE", 0.7, "model")]
    out = _clean(text, spans, lists=True, ranges=True, edges=True)
    assert [text[s.start : s.end] for s in out] == ["01/02/2020", "03/04/2020", "12/25/08"]
    assert _clean(text, spans, lists=True, ranges=False, edges=False) == spans  # no list here


def test_function_words_carry_no_date() -> None:
    """No function word is a month or weekday name or abbreviation (``regex`` misses some of them,
    lower-case ``may`` and ``march``, weekdays, so a trim would otherwise drop them), nor holds a
    digit."""
    names = {*MONTHS, *WEEKDAYS, *(m[:3] for m in MONTHS), *(w[:3] for w in WEEKDAYS), "sept", "tues", "thur",
             "thurs"}
    assert not FUNCTION_WORDS & names
    assert not any(c.isdigit() for word in FUNCTION_WORDS for c in word)


_PIECES = ["01/02/2020", "2020-03-04", "3 March 2020", "March 3, 2020", "June 2007", "Monday, ", "2019",
           ", ", "; ", " and ", ", and ", " or ", " & ", " to ", " ", "\n", "x", "-", "Amina", " through ", " – ",
           "from ", " at ", "the ", "3rd of ", "(", ").", "At", "10:30", "may ", "atrial",
           "01/02/2020 to 2020-03-04", "3 March 2020, June 2007", "01/02/2020 – 03/04/2020", "3 Mar.",
           ", call", "; please come", ", 10", " days ago", "2"]


def _runs(span: Span, keep: set[int]) -> list[Span]:
    """The runs of consecutive characters of ``span`` in ``keep``, as spans like it."""
    out, run = [], []
    for i in [*range(span.start, span.end), -1]:  # -1 ends the last run
        if i >= 0 and i in keep and (not run or run[-1] == i - 1):
            run.append(i)
            continue
        if run:
            out.append(Span(run[0], run[-1] + 1, span.label, span.score, span.source))
        run = [i] if i >= 0 and i in keep else []
    return out


def _reference(text: str, spans: list[Span], *, lists: bool, ranges: bool, edges: bool) -> list[Span]:
    """The rules by characters: a DATE span's characters less those of a separator or joiner, cut
    into runs; then each run less the characters at its ends, up to its first and last ``regex``
    date, that are no word character or lie in a function word of the text that lies in the run."""
    dates = RegexDetector(labels=("DATE",)).detect(text)
    cut = set()
    for a, b in [*(list_separators(text) if lists else []), *(range_joiners(text) if ranges else [])]:
        cut.update(range(a, b))
    punctuation = {i for i, c in enumerate(text) if not (c.isalnum() or c == "_")}
    words = [w for w in re.finditer(r"\w+", text) if w.group().lower() in FUNCTION_WORDS]
    out = []
    for span in spans:
        if span.label != "DATE":
            if any(d.start < span.end and span.start < d.end for d in dates):  # reaches into a date
                out.extend(_runs(span, set(range(span.start, span.end)) - cut))
            else:
                out.append(span)
            continue
        for run in _runs(span, set(range(span.start, span.end)) - cut):
            inside = [d for d in dates if run.start <= d.start and d.end <= run.end]
            if edges and inside:
                filler = punctuation.union(*(range(w.start(), w.end()) for w in words
                                             if run.start <= w.start() and w.end() <= run.end))
                start, end = run.start, run.end
                if not any(d.start < run.start < d.end for d in dates):
                    while start < inside[0].start and start in filler:
                        start += 1
                if not any(d.start < run.end < d.end for d in dates):
                    while end > inside[-1].end and end - 1 in filler:
                        end -= 1
                    if end == run.end and (_words_tail(text, inside[-1].end, end)
                                           or _amount_tail(text, inside[-1].end, end)):
                        end = inside[-1].end
                run = Span(start, end, run.label, run.score, run.source)
            elif edges and not any(run.start <= d.start < run.end for d in dates):
                # a date reaching in from before the run, then a tail of words: ``May 2021, call``
                reach = [d for d in dates if d.start < run.start < d.end < run.end]
                if reach and (_words_tail(text, reach[0].end, run.end) or _amount_tail(text, reach[0].end, run.end)):
                    run = Span(run.start, reach[0].end, run.label, run.score, run.source)
            out.append(run)
    return out


def _amount_tail(text: str, a: int, b: int) -> bool:
    """``text[a:b]`` is spaces or tabs, perhaps a comma or a semicolon, spaces or tabs and one to
    three ASCII digits, and the text after ``b`` goes on with spaces or tabs, perhaps a hyphen,
    and a unit of time (in any case, perhaps plural) that no letter follows."""
    piece = text[a:b].lstrip(" \t")
    if piece[:1] in (",", ";"):
        piece = piece[1:].lstrip(" \t")
    if not (1 <= len(piece) <= 3 and all(c in "0123456789" for c in piece)):
        return False
    after = text[b:].lstrip(" \t")
    after = after[1:].lstrip(" \t") if after[:1] == "-" else after
    word = re.match(r"[^\W\d_]*", after).group().lower()
    return word.removesuffix("s") in {"minute", "min", "hour", "hr", "day", "week", "wk", "month", "mo",
                                      "year", "yr", "decade"}


def _words_tail(text: str, a: int, b: int) -> bool:
    """``text[a:b]`` is a comma or a semicolon, then lower-case ASCII words, one or more spaces or
    tabs apart, none of which names a date."""
    piece = text[a:b].lstrip(" \t")
    if piece[:1] not in (",", ";"):
        return False
    rest = piece[1:].lstrip(" \t")
    words = re.split(r"[ \t]+", rest)
    return bool(rest) and all(re.fullmatch("[a-z]+", w) for w in words) and not any(
        _NO_DATE.fullmatch(w) for w in words)


def test_rules_agree_with_the_per_character_reference_and_never_uncover_a_date() -> None:
    """Random texts of dates, separators, joiners, function words and filler under random spans
    (sorted, disjoint), each combination of the rules: the rules equal the per-character reference,
    their spans stay sorted, disjoint and inside the input's spans, spans of other labels that
    reach into no date stay, and every character of a ``regex`` date in an input span stays in an
    output span of its label."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    fired: dict[str, bool] = dict.fromkeys(_DATE_RULES, False)
    regex = RegexDetector(labels=("DATE",))

    @settings(max_examples=400, deadline=None, derandomize=True)
    @given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=14), st.data())
    def check(parts: list[str], data: st.DataObject) -> None:
        text = "".join(parts)
        bounds = sorted(set(data.draw(st.lists(st.integers(0, len(text)), max_size=8))))
        labels = st.sampled_from(["DATE", "DATE", "DATE", "NAME"])
        spans = [Span(a, b, data.draw(labels), 0.5, "model") for a, b in zip(bounds[::2], bounds[1::2], strict=False)
                 if a < b]
        flags = dict(zip(("lists", "ranges", "edges"), data.draw(st.tuples(*[st.booleans()] * 3)), strict=True))
        out = _clean(text, spans, **flags)
        assert out == _reference(text, spans, **flags)
        assert all(a.end <= b.start for a, b in zip(out, out[1:], strict=False))
        assert all(any(s.start <= o.start and o.end <= s.end and s.label == o.label for s in spans) for o in out)
        dates = regex.detect(text)
        far = [s for s in spans if s.label != "DATE" and not any(d.start < s.end and s.start < d.end for d in dates)]
        assert set(far) <= set(out)  # a span of another label that reaches into no date stays
        in_dates = {i for d in dates for i in range(d.start, d.end)}
        for label in ("DATE", "NAME"):  # no character of a regex date leaves its span's label
            covered = {i for s in out if s.label == label for i in range(s.start, s.end)}
            assert {i for s in spans if s.label == label for i in range(s.start, s.end)} & in_dates <= covered
        for flag, name in zip(flags, _DATE_RULES, strict=True):
            alone = _clean(text, spans, **{k: k == flag for k in flags})
            fired[name] |= alone != spans

    check()
    assert all(fired.values()), fired  # each rule did cut on some of the texts


@pytest.mark.default_embedding
class TestShippedModel:
    """The shipped model: it runs the rules (``date_lists``, ``date_ranges``, ``date_edges``, last
    in the declared list), and the union with ``regex`` then keeps one span per date."""

    LISTS = ["Visits: 01/02/2020, 03/04/2020, 05/06/2021 and 07/08/2021.",
             "Seen on 3 March 2020, 4 March 2020 and 9 April 2021.",
             "Seen on March 3, 2020, March 4, 2020 and April 9, 2021."]
    RANGES = ["He was admitted from 01/02/2020 to 03/04/2020 for pneumonia.", "Stay 01/02/2020 – 03/04/2020 only."]
    EDGES = ["She was seen on 12/25/08 at noon.", "He was seen 11/16/06 to 11/21/06 in the hospital."]

    def test_union_with_regex_keeps_one_span_per_date(self) -> None:
        union = UnionDetector([ModelDetector(), RegexDetector()])
        regex = RegexDetector(labels=("DATE",))
        for text in [*self.LISTS, *self.RANGES, *self.EDGES]:
            dates = [text[s.start : s.end] for s in regex.detect(text)]
            assert [text[s.start : s.end] for s in union.detect(text) if s.label == "DATE"] == dates

    @pytest.mark.parametrize(("flag", "rule", "texts"), [("date_lists", split_date_lists, LISTS),
                                                         ("date_ranges", split_date_ranges, RANGES),
                                                         ("date_edges", trim_date_edges, EDGES)])
    def test_rule_runs_last_in_the_declared_list(self, flag: str, rule, texts: list[str]) -> None:
        assert RULE_NAMES[-4:-1] == _DATE_RULES and RULES[RULE_NAMES.index(flag)].apply is rule
        detector = ModelDetector(path=shipped_path())
        full = {text: detector.detect(text) for text in texts}
        detector.rules = tuple(r for r in RULES if r.name != flag)
        changed = False
        for text in texts:
            plain = detector.detect(text)
            assert rule(RuleContext(text), full[text]) == full[text]  # nothing left for it to cut
            changed |= full[text] != plain
        assert changed  # the model alone decodes some of these into a span the rule changes


_NUMERIC = re.compile(r"\d{2}/\d{2}/\d{4}")


def _shifts(text: str, detectors: str = "model,regex") -> list[tuple[str, int]]:
    """The DATE items of ``text`` in hybrid scope: each original date and its shift in days
    (numeric dates, ``%m/%d/%Y`` or ``%m/%d/%y``); fails on a DATE item that is not one date."""
    anon = Anonymizer(mechanism="knn", key=fast_key(6), scope="hybrid", detectors=detectors)
    doc = anon.anonymize_document(text)
    out = []
    for item in (i for i in doc.items if i.label == "DATE"):
        old, new = text[item.start : item.end], doc.text[item.new_start : item.new_end]
        fmt = "%m/%d/%Y" if _NUMERIC.fullmatch(old) else "%m/%d/%y"
        assert re.fullmatch(r"\d{2}/\d{2}/\d{2}(?:\d{2})?", old), f"one date per span, got {old!r}"
        before, after = (dt.datetime.strptime(x, fmt).date() for x in (old, new))
        out.append((old, (after - before).days))
    return out


@pytest.mark.default_embedding
def test_hybrid_scope_shifts_every_date_of_a_list_by_one_offset() -> None:
    """Each date of a list gets its own surrogate, shifted by the record's offset, so the intervals
    between the dates survive (one span over the list would get random digits instead)."""
    shifts = _shifts("Visits: 01/02/2020, 03/04/2020, 05/06/2021 and 07/08/2021.")
    assert len(shifts) == 4
    assert len({days for _, days in shifts}) == 1 and shifts[0][1] != 0


@pytest.mark.default_embedding
@pytest.mark.parametrize("text", TestShippedModel.RANGES)
def test_hybrid_scope_shifts_both_ends_of_a_range_by_one_offset(text: str) -> None:
    """Both ends of a range move by the record's one offset: the 62 days between them survive."""
    shifts = _shifts(text)
    assert [old for old, _ in shifts] == ["01/02/2020", "03/04/2020"]
    assert shifts[0][1] == shifts[1][1] != 0


@pytest.mark.default_embedding
def test_hybrid_scope_shifts_a_date_the_model_took_a_word_after() -> None:
    """``12/25/08 at``, as the model decodes it, becomes the date alone, which is shifted (with
    the word it would get random digits in its shape)."""
    shifts = _shifts("She was seen on 12/25/08 at noon.")
    assert [old for old, _ in shifts] == ["12/25/08"] and shifts[0][1] != 0


def test_the_docs_example_keeps_the_word_after_its_date() -> None:
    # the model decodes 'May 2021, call'; the union with regex's '3 May 2021' gave the DATE span
    # '3 May 2021, call', and the detected scope released 'call' as random letters (found by the
    # second API audit running docs/detection/index.md's example)
    from embedanon.detectors.registry import build_detectors

    text = "Seen by Dr. Ana Ruiz on 3 May 2021, call 617-555-0134."
    dates = [text[s.start : s.end] for s in build_detectors("model,regex").detect(text) if s.label == "DATE"]
    assert dates == ["3 May 2021"]


def test_the_amount_of_a_length_of_time_agrees_with_the_reference() -> None:
    """Every DATE span over a date and what follows it, in texts of a date, a number tail and the
    text after it: ``date_edges`` equals the per-character reference (whose amount rule is written
    apart from the code's), and the cut fires on some of them (the random texts above reach it
    rarely)."""
    dates = ["03/04/2019", "3 May 2021"]
    tails = [", 10", " 10", "; 7", ",10", ", 1000", ", x10", " 10 ", ", 10,"]
    afters = [" days ago.", "-day stay", " Weeks", " patients", "days", " daysx", "", " mos", " 10 days"]
    cuts = 0
    for date in dates:
        for tail in tails:
            for after in afters:
                text = f"Seen {date}{tail}{after}"
                for start in (0, 5, 7):
                    for end in range(5 + len(date) + 1, len(text) + 1):
                        spans = [Span(start, end, "DATE", 0.5, "model")]
                        out = _clean(text, spans, lists=False, ranges=False, edges=True)
                        assert out == _reference(text, spans, lists=False, ranges=False, edges=True), (text, end)
                        cuts += out == [Span(max(start, 5), 5 + len(date), "DATE", 0.5, "model")]
    assert cuts >= 20
