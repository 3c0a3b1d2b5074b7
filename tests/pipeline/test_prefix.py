"""anonymize_prefix: the start of a long text released with the whole text's noise, so a page that
shows only the start shows exactly the start of the release; prefix_end never cuts a token, and
the leading noise units equal those sentence_units finds over the whole text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from embedanon import Anonymizer
from embedanon.pipeline.document import (
    _leading_units,
    anonymize_documents,
    anonymize_prefix,
    prefix_end,
    rough_end,
    sentence_units,
)

TEXT = ("The patient John Smith, 45, was seen at 10:30 by Dr. Quexley. She called 555-123-4567 and "
        "mailed jo.doe@example.com about the well-known follow-up.\nMother had fever and cough for "
        "three days. No. 7 was fine! Then the x-ray at https://example.org/a?b=1 came back clear. "
        "Zebulonius O'Neil-Smythe visited on 2023-01-15.\n") * 3


def _start_of_whole(text: str, anonymizer: Anonymizer, cut: int):  # type: ignore[no-untyped-def]
    """The items and released text of the whole release that lie before ``cut``."""
    full = anonymize_documents([text], anonymizer.config, anonymizer.key)[0]
    items = tuple(it for it in full.items if it.end <= cut)
    end = items[-1].new_end + (cut - items[-1].end) if items else cut
    return items, full.text[:end]


@pytest.mark.default_embedding
@pytest.mark.parametrize("unit", ["record", "sentence"])
@pytest.mark.parametrize("limit", [0, 7, 100, 333, 600, len(TEXT) - 1, len(TEXT), 10 * len(TEXT)])
def test_the_prefix_is_the_start_of_the_whole_release(unit: str, limit: int) -> None:
    anonymizer = Anonymizer(seed=11, noise_unit=unit)
    doc, cut = anonymize_prefix(TEXT, limit, anonymizer.config, anonymizer.key)
    assert cut == prefix_end(TEXT, limit, unit) <= max(limit, 0) or cut == len(TEXT) <= limit
    items, text = _start_of_whole(TEXT, anonymizer, cut)
    assert doc.items == items and doc.text == text
    if limit >= len(TEXT):
        assert cut == len(TEXT)


def test_a_prefix_anonymized_as_its_own_record_would_differ() -> None:
    """Negative control: without the whole text's identity the start gets other noise."""
    anonymizer = Anonymizer(seed=11)
    cut = prefix_end(TEXT, 400)
    alone = anonymize_documents([TEXT[:cut]], anonymizer.config, anonymizer.key)[0]
    _, text = _start_of_whole(TEXT, anonymizer, cut)
    assert alone.text != text


def test_prefix_end_cuts_at_a_line_break_or_whitespace_never_inside_a_token() -> None:
    assert prefix_end("abc def ghi", 5) == 3 and prefix_end("abc def ghi", 7) == 7
    assert prefix_end("one two\nthree four five", 12) == 7  # the line break, in the second half
    assert prefix_end("one two\nthree four five", 18) == 18  # the line break is in the first half
    assert prefix_end("x" * 50, 10) == 0  # no place to cut: nothing shown
    assert prefix_end("short", 10) == 5
    with pytest.raises(ValueError, match="limit"):
        prefix_end("abc", -1)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .!?\n\t'-1")), max_size=80), st.integers(0, 90))
def test_prefix_end_and_leading_units_agree_with_the_plain_definitions(text: str, limit: int) -> None:
    cut = prefix_end(text, limit)
    assert cut == len(text) if len(text) <= limit else (cut <= limit and (cut == 0 or text[cut].isspace()))
    units = sentence_units(text)
    leading = _leading_units(text, limit)
    assert leading == [u for u in units if u[1] <= limit and u[1] < len(text)]
    if len(text) > limit:
        assert prefix_end(text, limit, "sentence") == (leading[-1][1] if leading else 0)


def test_rough_end_cuts_where_prefix_end_finds_no_place() -> None:
    """The review page's fallback (decision 0367): the record rule while it leaves a word, else
    the limit itself, never between a character and its combining mark or joiner."""
    assert rough_end("x" * 50, 10) == 10 and prefix_end("x" * 50, 10) == 0
    assert rough_end("one two three", 9) == prefix_end("one two three", 9) == 7
    no_end = "the patient had fever and cough " * 20
    assert prefix_end(no_end, 100, "sentence") == 0 and rough_end(no_end, 100) == prefix_end(no_end, 100)
    accented = "e\u0301" * 30
    assert rough_end(accented, 11) == 10 and accented[rough_end(accented, 11)] == "e"
    assert rough_end("ab\u200dcd" * 10, 2) == 1  # the joiner stays with what it joins
    assert rough_end("short", 10) == 5
