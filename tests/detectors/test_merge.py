"""The one overlap-merge rule, allow/deny lists and the union detector."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from embedanon.detectors.base import LABELS, Span
from embedanon.detectors.merge import UnionDetector, WordLists, merge_spans, merge_spans_reference
from embedanon.errors import ConfigError


class Fixed:
    """A detector that returns the spans it was given."""

    def __init__(self, name: str, spans: list[Span]) -> None:
        self.name = name
        self.spans = spans

    def detect(self, text: str) -> list[Span]:
        return list(self.spans)


def S(start: int, end: int, label: str = "NAME", score: float = 1.0, source: str = "x") -> Span:
    return Span(start, end, label, score, source)


def test_same_label_nested_and_overlapping_merge_into_union():
    assert merge_spans([S(0, 10), S(2, 5)]) == [S(0, 10)]
    assert merge_spans([S(0, 5), S(3, 9)]) == [S(0, 9)]
    # transitive: a overlaps b, b overlaps c, a and c do not
    assert merge_spans([S(0, 4), S(3, 8), S(7, 12)]) == [S(0, 12)]


def test_adjacent_spans_stay_separate_presidio_1925():
    # "JohnSmith" and three e-mails written back to back: each keeps its own span.
    assert merge_spans([S(0, 4), S(4, 9)]) == [S(0, 4), S(4, 9)]
    spans = [S(0, 5, "EMAIL"), S(5, 10, "EMAIL"), S(10, 15, "EMAIL")]
    assert merge_spans(spans) == spans


def test_different_labels_longest_member_labels_the_union():
    # an ID inside an ADDRESS: the address labels the union
    merged = merge_spans([S(0, 30, "ADDRESS", 0.7, "model"), S(10, 16, "ID", 1.0, "regex")])
    assert merged == [Span(0, 30, "ADDRESS", 0.7, "model+regex")]
    # partial overlap: union [0, 12), label of the longer one
    assert merge_spans([S(0, 8, "PHONE"), S(6, 12, "ID")])[0] == S(0, 12, "PHONE")


def test_different_labels_tie_breaks_score_then_priority():
    assert merge_spans([S(0, 8, "ID", 0.9), S(0, 8, "PHONE", 0.5)])[0].label == "ID"
    assert merge_spans([S(0, 8, "ID"), S(0, 8, "DATE")])[0].label == "DATE"
    assert merge_spans([S(0, 8, "DATE"), S(0, 8, "ID")])[0].label == "DATE"


def test_score_is_max_of_winning_label_members():
    merged = merge_spans([S(0, 10, "NAME", 0.6), S(2, 4, "NAME", 0.9), S(3, 5, "ID", 1.0)])
    assert merged == [Span(0, 10, "NAME", 0.9, "x")]


span_lists = st.lists(
    st.tuples(st.integers(0, 40), st.integers(1, 12), st.sampled_from(LABELS),
              st.floats(0, 1), st.sampled_from(["a", "b", ""])).map(
        lambda t: Span(t[0], t[0] + t[1], t[2], t[3], t[4])),
    max_size=25)


def check_merged(spans: list[Span], merged: list[Span], text: str) -> None:
    assert merged == sorted(merged, key=lambda s: (s.start, s.end))
    for a, b in zip(merged, merged[1:]):
        assert a.end <= b.start  # non-overlapping (touching allowed)
    for s in merged:
        s.check(text)
    covered_in = {i for s in spans for i in range(s.start, s.end)}
    covered_out = {i for s in merged for i in range(s.start, s.end)}
    assert covered_in == covered_out  # every input character, and nothing else
    assert len(merged) <= len(spans)


@settings(max_examples=300, deadline=None)
@given(span_lists)
def test_merge_properties(spans):
    check_merged(spans, merge_spans(spans), "x" * 60)


def test_property_check_catches_a_wrong_merge_negative_control():
    # a merge that keeps the first member's extent loses characters of the second
    spans = [S(0, 5), S(3, 9)]
    with pytest.raises(AssertionError):
        check_merged(spans, [S(0, 5)], "x" * 60)
    with pytest.raises(AssertionError):  # overlapping output
        check_merged(spans, spans, "x" * 60)


@settings(max_examples=300, deadline=None)
@given(span_lists)
def test_merge_agrees_with_reference(spans):
    assert merge_spans(spans) == merge_spans_reference(spans)


def test_reference_keeps_touching_spans_apart():
    assert merge_spans_reference([S(0, 4), S(4, 9), S(8, 12)]) == [S(0, 4), S(4, 12)]


def test_allow_list_drops_exact_casefolded_matches_only():
    text = "Parkinson's disease, seen by Dr. Parkinson and PARKINSON."
    lists = WordLists.build(allow=["parkinson"])
    spans = [S(0, 9), S(29, 42), S(47, 56)]  # "Parkinson", "Dr. Parkinson", "PARKINSON"
    kept = lists.apply(text, spans)
    assert kept == [S(29, 42)]


def test_deny_list_every_whole_word_case_insensitive_occurrence():
    text = "Zorblat met zorblat; ZORBLATS and xZorblat are not whole words. Zorblat."
    lists = WordLists.build(deny={"zorblat": "NAME"})
    found = [(s.start, s.end) for s in lists.deny_spans(text)]
    assert found == [(0, 7), (12, 19), (64, 71)]
    assert all(s.source == "deny" and s.label == "NAME" for s in lists.deny_spans(text))


def test_deny_list_overlapping_occurrences_all_found():
    text = "a a a"
    assert [(s.start, s.end) for s in WordLists.build(deny={"a a": "ID"}).deny_spans(text)] == [(0, 3), (2, 5)]


def test_deny_term_with_regex_characters_is_literal():
    lists = WordLists.build(deny={"J.R.": "NAME"})
    assert lists.deny_spans("J.R. and JxRx") == [Span(0, 4, "NAME", 1.0, "deny")]


@pytest.mark.parametrize("kwargs, error, message", [
    ({"allow": ["x"], "deny": {"X": "NAME"}}, ConfigError, "both the allow and the deny"),
    ({"deny": {"x": "PERSON"}}, ConfigError, "label must be one of"),
    ({"deny": {"  ": "NAME"}}, ConfigError, "must not be empty"),
    ({"allow": [""]}, ConfigError, "must not be empty"),
    ({"allow": "abc"}, TypeError, "not one string"),
    ({"allow": [3]}, TypeError, "must be strings"),
])
def test_word_lists_validation(kwargs, error, message):
    with pytest.raises(error, match=message):
        WordLists.build(**kwargs)


def test_union_detector_merges_detectors_and_lists():
    text = "Call Ann Lee at 555 or email ann@x.org"
    a = Fixed("a", [S(5, 8, "NAME", 0.8, "a"), S(29, 38, "EMAIL", 1.0, "a")])
    b = Fixed("b", [S(5, 12, "NAME", 0.9, "b"), S(29, 32, "NAME", 0.4, "b")])
    union = UnionDetector([a, b], lists=WordLists.build(deny={"555": "PHONE"}))
    assert union.name == "a,b"
    assert union.detect(text) == [
        Span(5, 12, "NAME", 0.9, "a+b"),
        Span(16, 19, "PHONE", 1.0, "deny"),
        Span(29, 38, "EMAIL", 1.0, "a+b"),
    ]


def test_union_detector_rejects_spans_outside_text_and_bad_arguments():
    with pytest.raises(ValueError, match="outside a text"):
        UnionDetector([Fixed("a", [S(0, 50)])]).detect("short")
    with pytest.raises(ConfigError, match="at least one"):
        UnionDetector([])
    with pytest.raises(TypeError, match="Detector"):
        UnionDetector([object()])  # type: ignore[list-item]


def test_union_detector_propagates_detector_unavailable():
    from embedanon.detectors.base import DetectorUnavailable

    class Down:
        name = "down"

        def detect(self, text: str) -> list[Span]:
            raise DetectorUnavailable("down: service unavailable")

    with pytest.raises(DetectorUnavailable, match="service unavailable"):
        UnionDetector([Fixed("a", []), Down()]).detect("text")
