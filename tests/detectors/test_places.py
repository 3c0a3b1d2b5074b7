"""LOCATION and ORGANIZATION by shape, context and public gazetteers (``detectors.places``), and
the dates said in words and licence plates of ``regex`` (tables with negative controls)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from embedanon.detectors.places import landmarks, locations, organizations, streets
from embedanon.detectors.regex import RegexDetector


def _found(text: str) -> list[tuple[str, str]]:
    orgs = organizations(text)
    return [(text[s.start : s.end], s.label) for s in sorted([*orgs, *locations(text, orgs)], key=lambda s: s.start)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Seen at St. Lizbeth Medical Center on 08/04/19.", [("St. Lizbeth Medical Center", "ORGANIZATION")]),
        ("Seen at Cluj Children's Hospital today.", [("Cluj Children's Hospital", "ORGANIZATION")]),
        ("at the Behavior Center in Tyler, Texas, where", [("Behavior Center", "ORGANIZATION"), ("Tyler", "LOCATION")]),
        ("She studied at the University of Lagos.", [("University of Lagos", "ORGANIZATION")]),
        # a person and ``of`` before the organization stay outside it (decision 0216)
        ("referred by Dr Amara Okafor of Kumasi General Hospital.", [("Kumasi General Hospital", "ORGANIZATION")]),
        ("Professor Gerta Keller of Princeton University said", [("Princeton University", "ORGANIZATION")]),
        ("Mary Smith of Acme Bank called.", [("Acme Bank", "ORGANIZATION")]),
        ("She was at Sisters of Mercy Hospital.", [("Sisters of Mercy Hospital", "ORGANIZATION")]),
        ("at the University of Ghana Medical School", [("University of Ghana Medical School", "ORGANIZATION")]),
        ("Smith of Acme Bank called.", [("Smith of Acme Bank", "ORGANIZATION")]),
        ("A man, 94, of Yonkers, with a plan", [("Yonkers", "LOCATION")]),
        ("age open Mornington. - Prema, Coimbra", [("Mornington", "LOCATION"), ("Coimbra", "LOCATION")]),
        ("Seen at Chiang Mai General Hospital on July", [("Chiang Mai General Hospital", "ORGANIZATION")]),
        # a large city after a locative word is a place (0152); alone it is not (a common word of
        # the public list: a sign, a team, a newspaper's name)
        ("She grew up in London and moved to Chicago.", [("London", "LOCATION"), ("Chicago", "LOCATION")]),
        ("Chicago won again; London Bridge was closed.", []),
        # a place whose name holds its article, after a locative word; the article stays out (0155)
        ("I'm in the Bronx now; near the Village; in The Hague.", [("Bronx", "LOCATION"), ("Village", "LOCATION"),
                                                                   ("Hague", "LOCATION")]),
        ("The Village is nice, the Bronx too.", []),
        # negative controls: states and countries, months, common words and given names that are
        # large cities, no capitals
        ("He moved to Texas from Germany in March.", []),
        ("We drove to Reading, then talked to Austin and Nice.", []),
        ("We went to the hospital in the morning.", []),
        ("seen at st. lizbeth medical center", []),
        # a surname that is also a town is a name after a title, with or without a locative
        ("I spoke with Mr. González about the results.", []),
        ("She was referred to Dr. Tyler in Tyler.", [("Tyler", "LOCATION")]),
        # a name part written with its accents is still a name part, not a distinctive place
        ("Later, González came to the clinic.", []),
        # a speaker is a person or a role, never a place: a town's name as a label's name part is
        # left to the name detectors (0137); a role label keeps its place, and so does the body
        ("Luena: Fine!\nWoman #1: Then why?\nLuena: Kumasi, I said.", [("Kumasi", "LOCATION")]),
        ("Guy from Yonkers: I'm done.\nGirl: Okay.", [("Yonkers", "LOCATION")]),
    ],
)
def test_places_and_institutions(text, expected):
    assert _found(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # text with no capital letter (decision 0178): a large city or a distinctive town after a
        # locative word
        ("student: my name is priya and im from chennai", ["chennai"]),
        ("how long have you lived in london? i moved to leeds", ["london", "leeds"]),
        ("it all took place here in dallas", ["dallas"]),
        # not a common word or a name part, not without the locative word, not in cased text
        ("we went to the beach in reading, then to nice and bath", []),
        ("london is big; talked to austin about it", []),
        ("She lives in london now.", []),
    ],
)
def test_places_in_text_without_capitals(text, expected):
    spans = RegexDetector(labels=["LOCATION"]).detect(text)
    assert [text[s.start : s.end] for s in spans] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Let's go get murdered in Central Park. I live on the Upper East Side.", ["Central Park", "Upper East Side"]),
        ("Is this Times Square? The Empire State Building? Penn Station!",
         ["Times Square", "Empire State Building", "Penn Station"]),
        # negative controls: a longer name, a person, a role label, an article alone, no capitals
        ("Who wrote West Side Story? Ask Jennifer Park.", []),
        ("Upper East Side JAP: Oh my god\nGirl: yes", []),
        ("I enjoyed this at The Square; the central park.", []),
        # an opening function word stays outside (decision 0212); a given name after a locative
        ("Can Central Park be reached by bus? Is Union Square far?", ["Central Park", "Union Square"]),
        ("We ran at Franklin Park, then to Victoria Station.", ["Franklin Park", "Victoria Station"]),
        ("Victoria Station is big; ask Jennifer Park.", []),
    ],
)
def test_landmarks_and_city_parts_are_places(text, expected):
    assert [text[s.start : s.end] for s in landmarks(text)] == expected
    found = RegexDetector(labels=("LOCATION",)).detect(text)
    assert [(text[s.start : s.end], s.label) for s in found] == [(e, "LOCATION") for e in expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Guy: It's Nevins Street, lady! Before that is Atlantic Avenue.", ["Nevins Street", "Atlantic Avenue"]),
        ("Take 5th Ave to Avenue D, then 42nd St. Do it. She lives at 12 Oak Road.",
         ["5th Ave", "Avenue D", "42nd St.", "12 Oak Road"]),
        ("The shops on Hanover's Main Street compare.", ["Main Street"]),
        # negative controls: a street word inside a longer name, a saint, a role label, a surname
        # (Lane, Drive and Place are left to the model), no capitals
        ("A Wall Street Journal survey of Metropolitan St. Louis.", []),
        ("Wall Street guy #1: I haven't seen it.\nGirl: Me neither.", []),
        ("Kenny Lane of Muskegon won; take the main street.", []),
    ],
)
def test_street_names_are_addresses(text, expected):
    assert [text[s.start : s.end] for s in streets(text)] == expected
    found = RegexDetector(labels=("ADDRESS",)).detect(text)
    assert [(text[s.start : s.end], s.label) for s in found] == [(e, "ADDRESS") for e in expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Seen on August third two thousand twenty three.", ["August third two thousand twenty three"]),
        ("bring the cookies on May twenty fifth; they", ["May twenty fifth"]),
        ("July twenty-ninth nineteen eighty four", ["July twenty-ninth nineteen eighty four"]),
        ("on the fourteenth of October", ["fourteenth of October"]),
        ("on dialysis since 02/2008.", ["02/2008"]),
        # negative controls: a month alone, a verb, an ordinal without a month
        ("In March we met, second time.", []),
        ("I may be first.", []),
    ],
)
def test_dates_said_in_words_and_partial_dates(text, expected):
    assert [text[s.start : s.end] for s in RegexDetector(labels=("DATE",)).detect(text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("His license plate is 7ABC123.", ["7ABC123"]),
        ("plate number XYZ-1234 was seen", ["XYZ-1234"]),
        # negative controls: no digit, no letter, no plate word
        ("plates of food", []),
        ("plate 3 of the series", []),
        ("code 7ABC123 here", []),
    ],
)
def test_licence_plates_are_ids(text, expected):
    assert [text[s.start : s.end] for s in RegexDetector(labels=("ID",)).detect(text) if "plate" in text] == expected


def test_a_capitalized_preposition_opening_the_phrase_is_no_part_of_the_place():
    text = "In Yonkers, near it. Near Akron we stopped."
    assert [text[s.start : s.end] for s in locations(text)] == ["Yonkers", "Akron"]


def test_a_speaker_named_like_a_town_stays_a_name_through_the_verifier():
    # 'Luena' and 'Carmo' are GeoNames towns no name list holds: as LOCATION the label lost to
    # the verifier, which drops places at a label, and the name went out on every turn (0137)
    from embedanon.detectors.registry import build_detectors

    text = ("Luena: It doesn't mean anything! It's just green paper!\nWoman #1: Then why don't you "
            "throw it out?\nLuena: Fine! If it means so much to you, go get it.\nWoman #2: For reals?\n"
            "Luena: Hey, it's gone. Where's my money?")
    spans = build_detectors("model,regex").detect(text)
    turns = [i for i in range(len(text)) if text.startswith("Luena:", i)]
    assert len(turns) == 3
    for i in turns:
        assert [s.label for s in spans if s.start < i + 5 and i < s.end] == ["NAME"]


_PIECES = ["Nevins", " ", "Street", "St.", "Ave", "Avenue", "Road", "Rd.", "Blvd", "Parkway", "Highway", "42nd",
           "Central", "Park", "Square", "Upper", "East", "West", "Side", "Village", "Station", "Mall", "Plaza",
           "Louis", ", ", "the", "12", "D", "\n", "Guy:", "Boulevard", "Terminal", "Bridge", "Building"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join))
def test_the_street_and_landmark_gates_skip_only_texts_without_a_match(text):
    """The gates (a street or landmark word must be in the text) are a fast path: a text they skip
    is one where the full pattern, scanned over every text (the plain reference), finds nothing."""
    from embedanon.detectors import places

    assert places._STREET.search(text) is None or any(w in text for w in places._STREET_WORDS)
    assert places._LANDMARK.search(text) is None or any(w in text for w in places._LANDMARK_WORDS)
