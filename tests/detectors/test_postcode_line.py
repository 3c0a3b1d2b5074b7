"""The bounded postcode search of the ADDRESS evidence (``streets.postcode_ends_line``) gives what
the plain search to the line's end gives (a record of one long line took time quadratic in its
length: one scan to the line's end per ADDRESS span)."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from embedanon.detectors.rules.streets import _POSTAL_LINE_END, postcode_ends_line

PIECES = ["Leeds", "oak", "ab", "x", "12345", "123456", "1234567", "12", " ", "\t", ",", ".", "\n", "\r\n",
          "\r", "é", "_", "-", "Zürich", "9"]


def plain(text: str, start: int, end: int) -> bool:
    line_end = text.find("\n", end)
    postal = _POSTAL_LINE_END.search(text, start, len(text) if line_end < 0 else line_end + 1)
    return postal is not None and postal.start() < end


@st.composite
def text_and_range(draw: st.DrawFn) -> tuple[str, int, int]:
    text = draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=30).map("".join))
    start = draw(st.integers(0, len(text) - 1))
    return text, start, draw(st.integers(start + 1, len(text)))


@settings(max_examples=600, deadline=None)
@given(text_and_range())
@example(("visit Leeds 12345", 6, 11))
@example(("Leeds , 123456 \r\nmore", 0, 3))
@example(("Leeds 1234567", 0, 5))
def test_bounded_search_agrees_with_the_plain_one(case: tuple[str, int, int]) -> None:
    text, start, end = case
    assert postcode_ends_line(text, start, end) == plain(text, start, end)


def test_a_postcode_at_the_line_end_is_found_and_one_later_in_a_long_line_is_not() -> None:
    assert postcode_ends_line("ship to leeds 12345\nthanks", 8, 13)
    assert not postcode_ends_line("ship to leeds and more " * 200 + "x 12345", 8, 13)
