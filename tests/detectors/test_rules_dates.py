"""The ``date_lists`` decode rule: a DATE span over a list of dates becomes one span per date
(tables with negative controls), only characters of separators between two dates leave DATE
spans (against a per-character reference), the shipped model runs it, and in hybrid scope every
date of a list then moves by the record's one offset."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from embedanon import Anonymizer
from embedanon.detectors.base import Span
from embedanon.detectors.merge import UnionDetector
from embedanon.detectors.model import ModelDetector
from embedanon.detectors.regex import RegexDetector
from embedanon.detectors.rules import DECODE_RULES, split_date_lists
from embedanon.detectors.rules.dates import list_separators
from embedanon.detectors.weights import shipped_path
from tests.helpers.noise import fast_key


def _split(text: str, covered: list[str], label: str = "DATE") -> list[str]:
    """The texts of the spans after the rule, given spans over the first occurrence of each of
    ``covered`` (in text order)."""
    spans = [Span(text.index(c), text.index(c) + len(c), label, 0.7, "model") for c in covered]
    return [text[s.start : s.end] for s in split_date_lists(text, spans)]


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


def test_other_labels_are_left_alone() -> None:
    text = "Lot 01/02/2020, 03/04/2020 and Main St, seen 05/06/2021, 07/08/2021."
    spans = [Span(4, 38, "ADDRESS", 0.7, "model"), Span(45, 67, "DATE", 0.7, "model")]
    out = split_date_lists(text, spans)
    assert [text[s.start : s.end] for s in out] == ["01/02/2020, 03/04/2020 and Main St", "05/06/2021", "07/08/2021"]


_PIECES = ["01/02/2020", "2020-03-04", "3 March 2020", "March 3, 2020", "June 2007", "Monday, ", "2019",
           ", ", "; ", " and ", ", and ", " or ", " & ", " to ", " ", "\n", "x", "-", "Amina"]


def _reference(text: str, spans: list[Span]) -> list[Span]:
    """The rule by characters: a DATE span's characters less those of a separator, cut into runs."""
    cut = set()
    for a, b in list_separators(text):
        cut.update(range(a, b))
    out = []
    for span in spans:
        if span.label != "DATE":
            out.append(span)
            continue
        run: list[int] = []
        for i in [*range(span.start, span.end), -1]:  # -1 ends the last run
            if i >= 0 and i not in cut and (not run or run[-1] == i - 1):
                run.append(i)
                continue
            if run:
                out.append(Span(run[0], run[-1] + 1, span.label, span.score, span.source))
            run = [i] if i >= 0 and i not in cut else []
    return out


def test_rule_agrees_with_the_per_character_reference_and_only_cuts_separators() -> None:
    """Random texts of dates, separators and filler under random spans (sorted, disjoint): the rule
    equals the per-character reference, its spans stay sorted, disjoint and inside the input's
    spans, and a DATE character leaves only when it lies in a separator between two dates."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    fired = []

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=14), st.data())
    def check(parts: list[str], data: st.DataObject) -> None:
        text = "".join(parts)
        bounds = sorted(set(data.draw(st.lists(st.integers(0, len(text)), max_size=8))))
        labels = st.sampled_from(["DATE", "DATE", "DATE", "NAME"])
        spans = [Span(a, b, data.draw(labels), 0.5, "model") for a, b in zip(bounds[::2], bounds[1::2], strict=False)
                 if a < b]
        out = split_date_lists(text, spans)
        assert out == _reference(text, spans)
        assert all(a.end <= b.start for a, b in zip(out, out[1:], strict=False))
        assert all(any(s.start <= o.start and o.end <= s.end and s.label == o.label for s in spans) for o in out)
        assert [s for s in out if s.label != "DATE"] == [s for s in spans if s.label != "DATE"]
        fired.append(out != spans)

    check()
    assert any(fired)  # the rule did cut on some of the texts


@pytest.mark.default_embedding
class TestShippedModel:
    """The shipped model: it runs the rule (manifest ``date_lists``), and the union with ``regex``
    then keeps one span per date."""

    LISTS = ["Visits: 01/02/2020, 03/04/2020, 05/06/2021 and 07/08/2021.",
             "Seen on 3 March 2020, 4 March 2020 and 9 April 2021.",
             "Seen on March 3, 2020, March 4, 2020 and April 9, 2021."]

    def test_union_with_regex_keeps_one_span_per_date(self) -> None:
        union = UnionDetector([ModelDetector(), RegexDetector()])
        regex = RegexDetector(labels=("DATE",))
        for text in self.LISTS:
            dates = [text[s.start : s.end] for s in regex.detect(text)]
            assert [text[s.start : s.end] for s in union.detect(text) if s.label == "DATE"] == dates

    def test_rule_runs_only_when_the_manifest_asks(self) -> None:
        detector = ModelDetector(path=shipped_path())
        assert detector.weights.manifest.get("date_lists") is True
        assert "date_lists" in DECODE_RULES  # so `embedanon detector train` carries it over
        detector.weights.manifest = {**detector.weights.manifest, "date_lists": False}
        plain = {text: detector.detect(text) for text in self.LISTS}
        detector.weights.manifest = {**detector.weights.manifest, "date_lists": True}
        changed = False
        for text in self.LISTS:
            assert detector.detect(text) == split_date_lists(text, plain[text])
            changed |= detector.detect(text) != plain[text]
        assert changed  # the model alone joins some of these lists


_NUMERIC = re.compile(r"\d{2}/\d{2}/\d{4}")


@pytest.mark.default_embedding
def test_hybrid_scope_shifts_every_date_of_a_list_by_one_offset() -> None:
    """Each date of a list gets its own surrogate, shifted by the record's offset, so the intervals
    between the dates survive (one span over the list would get random digits instead)."""
    text = "Visits: 01/02/2020, 03/04/2020, 05/06/2021 and 07/08/2021."
    anon = Anonymizer(mechanism="knn", key=fast_key(6), scope="hybrid", detectors="model,regex")
    doc = anon.anonymize_document(text)
    dates = [i for i in doc.items if i.label == "DATE"]
    assert len(dates) == 4
    shifts = set()
    for item in dates:
        old, new = text[item.start : item.end], doc.text[item.new_start : item.new_end]
        assert _NUMERIC.fullmatch(old) and _NUMERIC.fullmatch(new), "one date per span, shifted in its format"
        before, after = (dt.datetime.strptime(x, "%m/%d/%Y").date() for x in (old, new))
        shifts.add((after - before).days)
    assert len(shifts) == 1 and 0 not in shifts
