"""Small English helpers of the messages."""

from __future__ import annotations

import pytest

from embedanon._english import ADDRESS_TITLES, OFFICE_TITLES, TITLES, after_title, counted, opens_clause


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


@pytest.mark.parametrize(
    ("before", "expected"),
    [
        ("Dr. ", True), ("Dr.", True), ("Dr ", True), ("Mrs ", True), ("Sgt. ", True),
        ("Nurse ", True), ("Officer ", True), ("Coach ", True), ("Doctor ", True),  # decision 0193
        # a period after a whole word ends a sentence: no title before the next word
        ("the sheriff. ", False), ("the doctor. ", False), ("Captain. ", False),
        ("the nurses ", False), ("Dr.\n", False),
    ],
)
def test_after_title(before: str, expected: bool) -> None:
    text = before + "Okafor"
    assert after_title(text, len(before)) is expected


def test_the_verifiers_titles_stay_those_its_weights_were_fitted_on() -> None:
    assert "nurse" in TITLES and "nurse" not in ADDRESS_TITLES
    assert ADDRESS_TITLES < TITLES and TITLES - ADDRESS_TITLES == OFFICE_TITLES
    assert len(ADDRESS_TITLES) == 33
