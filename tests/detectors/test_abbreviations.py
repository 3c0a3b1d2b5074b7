"""Abbreviations a text defines (decision 0148)."""

from __future__ import annotations

import pytest

from embedanon.detectors import Span, build_detectors
from embedanon.detectors.abbreviations import definitions, without_defined_abbreviations


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Patients with diabetic ketoacidosis (DKA) were seen.", [("DKA", "diabetic ketoacidosis")]),
        ("angiotensin-converting enzyme inhibitors (ACEI; n = 4)",
         [("ACEI", "angiotensin-converting enzyme inhibitors")]),
        ("people living with HIV (PLWH) and severe acute respiratory infection (SARI)",
         [("PLWH", "people living with HIV"), ("SARI", "severe acute respiratory infection")]),
        ("The Small Business Administration ( SBA ) helps.", [("SBA", "Small Business Administration")]),
        ("in New York City (NYC) today", [("NYC", "New York City")]),
        # not definitions: a name, lower case, a number, letters not in the words before, another line
        ("I asked my friend (Maria) about it.", []),
        ("a word (see) here", []),
        ("the trial (NCT01234) ended", []),
        ("the level of sodium (Na)", []),
        ("diabetic\nketoacidosis (DKA)", []),
    ],
)
def test_definitions_follow_schwartz_and_hearst(text, expected):
    assert [(d.short, text[d.long_start:d.long_end]) for d in definitions(text)] == expected


def _span(text: str, word: str, label: str, nth: int = 0, source: str = "model") -> Span:
    start = -1
    for _ in range(nth + 1):
        start = text.index(word, start + 1)
    return Span(start, start + len(word), label, 0.6, source)


def test_a_defined_abbreviation_is_no_name_or_place_anywhere_in_the_text():
    text = "Diabetic ketoacidosis (DKA) is rare. DKA kills. SARS rose in severe acute respiratory syndrome (SARS)."
    spans = [_span(text, "DKA", "NAME"), _span(text, "DKA", "NAME", 1), _span(text, "SARS", "LOCATION"),
             _span(text, "SARS", "ORGANIZATION", 1)]
    # an organization stays (a local hospital's initials are PII)
    assert without_defined_abbreviations(text, spans) == [spans[3]]


def test_a_short_form_of_a_found_name_or_place_stays():
    text = "Jane Doe (JD) came. JD left for New York City (NYC); NYC is big."
    spans = [_span(text, "Jane Doe", "NAME"), _span(text, "JD", "NAME"), _span(text, "JD", "NAME", 1),
             _span(text, "New York City", "LOCATION"), _span(text, "NYC", "LOCATION"),
             _span(text, "NYC", "LOCATION", 1)]
    assert without_defined_abbreviations(text, spans) == spans
    # without the long form's span, the short form is an abbreviation
    assert without_defined_abbreviations(text, spans[1:3]) == []


def test_a_deny_list_span_stays():
    text = "diabetic ketoacidosis (DKA) and DKA"
    spans = [_span(text, "DKA", "NAME", source="deny"), _span(text, "DKA", "NAME", 1, source="deny")]
    assert without_defined_abbreviations(text, spans) == spans


def test_the_shipped_detector_leaves_defined_abbreviations_and_statistics():
    text = ("Patients with diabetic ketoacidosis (DKA) were studied. DKA was associated with age (OR, 5.1; "
            "95% CI, 1.8-14.6) in people over 65 years of age. Orv Hetil. 2020; 161(17): 685-688.")
    assert build_detectors("model,regex").detect(text) == []
    # and a person in the same text is still found
    named = text + " Call Amara Okafor at 617-555-0134."
    found = {named[s.start:s.end]: s.label for s in build_detectors("model,regex").detect(named)}
    assert found.get("617-555-0134") == "PHONE" and any("Okafor" in k for k in found)


def _definitions_reference(text: str) -> list[tuple[str, int, int]]:
    """The definitions read the plain way: all the words from the line's start (quadratic in a
    long line), the same matching."""
    import re

    from embedanon.detectors.abbreviations import _long_form_start, _short_form

    out = []
    for m in re.finditer(r"\(([^()\n]{2,12})\)", text):
        short = _short_form(m.group(1))
        if short is None:
            continue
        line_start = text.rfind("\n", 0, m.start()) + 1
        end = m.start()
        while end > line_start and text[end - 1].isspace():
            end -= 1
        words = list(re.finditer(r"\S+", text[line_start:end]))[-min(len(short) + 5, 2 * len(short)):]
        if not words:
            continue
        begin = line_start + words[0].start()
        offset = _long_form_start(short, text[begin:end])
        if offset is None:
            continue
        long_form = text[begin + offset:end]
        if len(long_form) <= len(short) or short in long_form.split():
            continue
        out.append((short, begin + offset, end))
    return out


def test_definitions_agree_with_the_plain_reading_from_the_line_start():
    """The window read back for a long form changes nothing where words are shorter than it."""
    import random

    rng = random.Random(148)
    pieces = ["diabetic", "ketoacidosis", "(DKA)", "severe", "acute", "respiratory", "infection", "(SARI)",
              "the", "of", "(NYC)", "New", "York", "City", "\n", "(see)", "with", "HIV", "(PLWH)", "people",
              "living", "(AB; n = 3)", "a-b", "(Na)", "sodium"]
    for _ in range(300):
        text = " ".join(rng.choice(pieces) for _ in range(rng.randint(1, 60)))
        assert [(d.short, d.long_start, d.long_end) for d in definitions(text)] == _definitions_reference(text)
    # one long line: the same definitions, found without reading the line from its start
    line = "word " * 40_000 + "diabetic ketoacidosis (DKA) and " * 50
    assert [(d.short, d.long_start, d.long_end) for d in definitions(line)] == _definitions_reference(line)
