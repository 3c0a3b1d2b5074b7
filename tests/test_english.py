"""Small English helpers of the messages."""

from __future__ import annotations

import pytest

from embedanon._english import counted, opens_clause


def test_counted_agrees_in_number_and_separates_thousands() -> None:
    assert counted(1, "record") == "1 record"
    assert counted(0, "record") == "0 records"
    assert counted(2, "body", "bodies") == "2 bodies"
    # the run summary read "anonymized 6000 records ..., 3,682 of them written by the interrupted run"
    assert counted(6000, "record") == "6,000 records"


@pytest.mark.parametrize(("text", "expected"), [
    ("Bye", True), ("teacher: Bye", True), ("ok, that is all. Bye", True), ("I called the doctor. Bye", True),
    ("> Bye", True), ("first line\nBye", True), ("well, Bye", False), ("worthy of M. Night", False),
    ("more than Mr. Evening", False), ("ask Dr. Hello", False),
])
def test_opens_clause(text: str, expected: bool) -> None:
    """A line, a turn or a sentence opens at ``Bye`` or the last word (decision 0187: a greeting
    there addresses the name after it); the period of an initial or an abbreviated title ends no
    sentence."""
    assert opens_clause(text, text.rindex("Bye") if "Bye" in text else text.rindex(" ") + 1) is expected
