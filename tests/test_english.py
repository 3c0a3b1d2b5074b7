"""Small English helpers of the messages."""

from __future__ import annotations

from embedanon._english import counted


def test_counted_agrees_in_number_and_separates_thousands() -> None:
    assert counted(1, "record") == "1 record"
    assert counted(0, "record") == "0 records"
    assert counted(2, "body", "bodies") == "2 bodies"
    # the run summary read "anonymized 6000 records ..., 3,682 of them written by the interrupted run"
    assert counted(6000, "record") == "6,000 records"
