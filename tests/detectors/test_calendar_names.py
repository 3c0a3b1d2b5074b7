"""Names of the calendar are no person and no place (decision 0227): a NAME or LOCATION span
inside a holiday's name is dropped, a weekday alone is no NAME, and a long NAME span loses a
weekday that ends it."""

from __future__ import annotations

from embedanon.detectors.base import Span
from embedanon.detectors.registry import build_detectors
from embedanon.detectors.rules import RuleContext
from embedanon.detectors.rules.words import drop_calendar_names


def _apply(text: str, *pieces: tuple[str, str]) -> list[tuple[str, str]]:
    spans = []
    for piece, label in pieces:
        at = text.index(piece)
        spans.append(Span(at, at + len(piece), label, 0.9, "model"))
    return [(text[s.start : s.end], s.label) for s in drop_calendar_names(RuleContext(text), spans)]


def test_holidays_are_no_names_nor_places() -> None:
    assert _apply("We love Mardi Gras and RAMADAN.", ("Mardi Gras", "NAME"), ("RAMADAN", "NAME")) == []
    assert _apply("Seen on Christmas Eve.", ("Eve", "NAME")) == []
    assert _apply("cards for Valentine's Day", ("Valentine", "NAME")) == []
    assert _apply("open on Columbus Day", ("Columbus", "LOCATION")) == []
    # a span reaching beyond the holiday, and other labels, stay
    assert _apply("Eric Christmas played the judge.", ("Eric Christmas", "NAME")) == [("Eric Christmas", "NAME")]
    assert _apply("Christmas Island police", ("Christmas Island", "ADDRESS")) == [("Christmas Island", "ADDRESS")]


def test_a_weekday_is_no_name_and_leaves_a_long_name() -> None:
    assert _apply("see you Friday then", ("Friday", "NAME")) == []
    assert _apply("Mondays are hard", ("Mondays", "NAME")) == []
    text = "President General Pervez Musharraf Monday described it"
    assert _apply(text, ("General Pervez Musharraf Monday", "NAME")) == [("General Pervez Musharraf", "NAME")]
    assert _apply("He looked like Joe Friday.", ("Joe Friday", "NAME")) == [("Joe Friday", "NAME")]
    assert _apply("Get Carter, Long Good Friday or", ("Long Good Friday", "NAME")) == [("Long Good Friday", "NAME")]


def test_the_detector_keeps_holidays_out_of_names() -> None:
    detector = build_detectors("model,regex")
    text = "Seen 12/20/2023.\nChristmas Eve was quiet, and we love Mardi Gras."
    assert not [s for s in detector.detect(text) if s.label == "NAME"]


def test_a_weekday_and_the_word_the_decode_ran_on_into_name_no_date() -> None:
    """Decision 0229: ``on Thursday said`` was one DATE span (60 in AG News and ABC); its surrogate
    scrubbed the verb into random letters. A weekday with lower-case words after it names no
    date, as the weekday alone does not; a date with a weekday keeps its span."""
    from embedanon.detectors.rules.dates import drop_non_dates

    def kept(text: str, piece: str) -> list[str]:
        at = text.index(piece)
        return [text[s.start : s.end] for s in drop_non_dates(RuleContext(text), [Span(at, at + len(piece), "DATE")])]

    assert kept("Red Hat on Thursday named a CFO", "Thursday named") == []
    assert kept("Thanks Ade, Monday works", "Monday works") == []
    assert kept("on Wednesday night as", "Wednesday night as") == []
    assert kept("back on Monday 3 May", "Monday 3 May") == ["Monday 3 May"]
    assert kept("seen Friday, March 5 said", "Friday, March 5 said") == ["Friday, March 5 said"]
