"""The regex detector: tables of positive and negative examples, one row per case."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from embedanon.detectors import regex as regex_module
from embedanon.detectors.base import Span
from embedanon.detectors.merge import merge_spans
from embedanon.detectors.regex import GUESS, RegexDetector
from embedanon.errors import ConfigError

DETECTOR = RegexDetector()


def found(text: str) -> list[tuple[str, str]]:
    return [(text[s.start:s.end], s.label) for s in DETECTOR.detect(text)]


POSITIVE = [
    # EMAIL
    ("Email: djones@gmail.com.", [("djones@gmail.com", "EMAIL")]),
    ("write to ann.o'neil+tag@mail.example.co.uk", [("ann.o'neil+tag@mail.example.co.uk", "EMAIL")]),
    ("he wrote 'john@x.com'.", [("john@x.com", "EMAIL")]),
    ("Contact: JOHN_SMITH99@EXAMPLE.ORG", [("JOHN_SMITH99@EXAMPLE.ORG", "EMAIL")]),
    # URL
    ("see https://www.linkedin.com/in/mmartinez.", [("https://www.linkedin.com/in/mmartinez", "URL")]),
    ("(http://example.org/a_(b))", [("http://example.org/a_(b)", "URL")]),
    ("visit www.example.com, then", [("www.example.com", "URL")]),
    ("my site linkedin.com/in/jsmith is up", [("linkedin.com/in/jsmith", "URL")]),
    ("news at bbc.co.uk today", [("bbc.co.uk", "URL")]),
    ("FTP://files.example.net/x.zip", [("FTP://files.example.net/x.zip", "URL")]),
    # PHONE
    ("Tel: (223)392-2765", [("(223)392-2765", "PHONE")]),
    ("call (617) 555-0134 now", [("(617) 555-0134", "PHONE")]),
    ("call 617-555-0134 or 617.555.0134", [("617-555-0134", "PHONE"), ("617.555.0134", "PHONE")]),
    ("US 1-800-555-0199", [("1-800-555-0199", "PHONE")]),
    ("+1 (617) 555-0134", [("+1 (617) 555-0134", "PHONE")]),
    ("UK +44 20 7946 0958", [("+44 20 7946 0958", "PHONE")]),
    ("UK +44 (0)20 7946 0958", [("+44 (0)20 7946 0958", "PHONE")]),
    ("London 020 7946 0958", [("020 7946 0958", "PHONE")]),
    ("mobile 07700 900123", [("07700 900123", "PHONE")]),
    ("Paris 01 42 68 53 00", [("01 42 68 53 00", "PHONE")]),
    ("portable 06.12.34.56.78", [("06.12.34.56.78", "PHONE")]),
    ("FR +33 1 42 68 53 00", [("+33 1 42 68 53 00", "PHONE")]),
    ("Berlin 030 901820", [("030 901820", "PHONE")]),
    ("DE +49 30 901820", [("+49 30 901820", "PHONE")]),
    ("Handy 0171/1234567", [("0171/1234567", "PHONE")]),
    ("Mumbai +91 98765 43210", [("+91 98765 43210", "PHONE")]),
    ("mobile 98765-43210", [("98765-43210", "PHONE")]),
    ("Tokyo 03-1234-5678", [("03-1234-5678", "PHONE")]),
    ("JP +81 3-1234-5678", [("+81 3-1234-5678", "PHONE")]),
    ("dial 0044 20 7946 0958", [("0044 20 7946 0958", "PHONE")]),
    ("desk 617-555-0134x1234 today", [("617-555-0134x1234", "PHONE")]),
    ("desk (617)555-0134 ext. 12.", [("(617)555-0134 ext. 12", "PHONE")]),
    ("+1-617-555-0134x123", [("+1-617-555-0134x123", "PHONE")]),
    ("SP (11) 91417-7776", [("(11) 91417-7776", "PHONE")]),
    # a number after a phone keyword is a phone whatever its shape
    ("Mobile:  3076776298", [("3076776298", "PHONE")]),
    ("Phone: 02252437865\nE-mail", [("02252437865", "PHONE")]),
    ("reach the family at 3715198497. you", [("3715198497", "PHONE")]),
    ("He can be reached on 0547021176 after 5 pm", [("0547021176", "PHONE")]),
    ("call 00482913 now", [("00482913", "PHONE")]),
    ("FAX NO. 4155550134", [("4155550134", "PHONE")]),
    ("phone 555-1234", [("555-1234", "PHONE")]),
    ("DF 61 9141-7776.", [("61 9141-7776", "PHONE")]),
    # DATE
    ("on 2024-03-15 at noon", [("2024-03-15", "DATE")]),
    # a month and day, or a month and two-digit year, after a word that places it (decision 0176)
    ("cystoscopy on 4/13. On 4/14 the patient", [("4/13", "DATE"), ("4/14", "DATE")]),
    ("loss since 12/94, well until 8/71 when, improved by 3/93", [("12/94", "DATE"), ("8/71", "DATE"),
                                                                 ("3/93", "DATE")]),
    ("labs from 02/05. Seen on 12/3", [("02/05", "DATE"), ("12/3", "DATE")]),
    ("at 2024-03-15T10:30:00", [("2024-03-15T10:30:00", "DATE")]),
    ("seen 12/31/2024.", [("12/31/2024", "DATE")]),
    ("seen 31.12.2024 in Bonn", [("31.12.2024", "DATE"), ("Bonn", "LOCATION")]),
    ("seen 3/4/24", [("3/4/24", "DATE")]),
    ("born 01-02-1990", [("01-02-1990", "DATE")]),
    ("on March 3, 2024 we", [("March 3, 2024", "DATE")]),
    ("on 3 March 2024 we", [("3 March 2024", "DATE")]),
    ("see you Mar 3rd!", [("Mar 3rd", "DATE")]),
    ("the 3rd of March", [("3rd of March", "DATE")]),
    ("since Sept. 5 and SEPT 7", [("Sept. 5", "DATE"), ("SEPT 7", "DATE")]),
    ("in May 2019 she", [("May 2019", "DATE")]),
    ("on december 24 she", [("december 24", "DATE")]),
    ("2024/03/15", [("2024/03/15", "DATE")]),
    ("Date of birth:\n06/19/2023 05:37\n", [("06/19/2023 05:37", "DATE")]),   # not a phone '06/19/2023 05'
    ("DATE: 02/03/1994 22:10:38 at", [("02/03/1994 22:10:38", "DATE")]),
    ("seen 01.02.2024, 22:10 today", [("01.02.2024, 22:10", "DATE")]),
    ("on 3/4/24 10:30 pm we", [("3/4/24 10:30 pm", "DATE")]),
    # ID
    ("SSN 123-45-6789", [("123-45-6789", "ID")]),
    ("MRN 123456", [("123456", "ID")]),
    ("MRN: 0012", [("0012", "ID")]),
    ("Patient ID: AB-1234.", [("AB-1234", "ID")]),
    ("account no. 998877", [("998877", "ID")]),
    ("card 4111 1111 1111 1111", [("4111 1111 1111 1111", "ID")]),
    ("IBAN DE89 3704 0044 0532 0130 00", [("DE89 3704 0044 0532 0130 00", "ID")]),
    ("ref 1234567 filed", [("1234567", "ID")]),
    ("code A12B34C here", [("A12B34C", "ID")]),
    ("passport AB1234567", [("AB1234567", "ID")]),
    ("user12345 wrote", [("user12345", "ID")]),
    ("MRN 00482913", [("00482913", "ID")]),                   # not an international phone
    ("MRN: 083-12-8348", [("083-12-8348", "ID")]),            # not a trunk-0 phone
    ("Charge it to 011-63-4443 today", [("011-63-4443", "ID")]),
    ("tax ID # 01-8502335 on file", [("01-8502335", "ID")]),
    ("Number is 4563824065059", [("4563824065059", "ID")]),    # a card number (Luhn)
    # IP
    ("from 192.168.0.1.", [("192.168.0.1", "IP")]),
    ("v6 2001:db8::8a2e:370:7334 ok", [("2001:db8::8a2e:370:7334", "IP")]),
    ("loopback ::1 and fe80::1", [("::1", "IP"), ("fe80::1", "IP")]),
    # AGE
    ("a 54-year-old man", [("54", "AGE")]),
    ("54 year old", [("54", "AGE")]),
    ("she is 7 years old", [("7", "AGE")]),
    ("54 yo M", [("54", "AGE")]),
    ("54yo M", [("54", "AGE")]),
    ("54 y/o", [("54", "AGE")]),
    ("Age: 54", [("54", "AGE")]),
    ("aged 101,", [("101", "AGE")]),
    ("54 years of age", [("54", "AGE")]),
    ("GENT 57yrs of age, GSOH", [("57", "AGE")]),
    ("A tall Lady, 40 yrs young looking", [("40", "AGE")]),
    ("she is 80 years-young!", [("80", "AGE")]),
    ("he died at the age of 61.", [("61", "AGE")]),
    ("My birthday is soon. I'll turn 23.", [("23", "AGE")]),
    ("She just turned 60, finally", [("60", "AGE")]),
    ("It was written when he was 78.", [("78", "AGE")]),
    ("When I was 7 we moved", [("7", "AGE")]),
    # a speaker's own age (decision 0171)
    ("I'm 23, and I'm 28,", [("23", "AGE"), ("28", "AGE")]),
    ("Hi Im 44 with a good sense of humour", [("44", "AGE")]),
    ("(i'm only 14 but) and I am now 40. I’m nearly 9!", [("14", "AGE"), ("40", "AGE"), ("9", "AGE")]),
    # the age after a word for the person (decision 0203)
    ("SINGLE MALE 45 seeks female 40-50", [("45", "AGE")]),
    ("ASIAN GUY, 47 prof; LADY 63. WLTM SWM 50-57", [("47", "AGE"), ("63", "AGE")]),
    ("Conn. Man, 70, Oldest to Swim Channel", [("70", "AGE")]),
    ("father of three (boy 30, boy 24 and girl 18)", [("30", "AGE"), ("24", "AGE"), ("18", "AGE")]),
    # ages said in words (0157): the words only
    ("I am sixty two years old.", [("sixty two", "AGE")]),
    ("a forty-five-year-old man, nearly Fifty years of age", [("forty-five", "AGE"), ("Fifty", "AGE")]),
    ("at age seventy-four; aged fifteen; at the age of ten.", [("seventy-four", "AGE"), ("fifteen", "AGE"),
                                                               ("ten", "AGE")]),
    ("she is one hundred and two years old", [("one hundred and two", "AGE")]),
    # ... and after the cues of the digit rules (decision 0175)
    ("When I was twelve, my grandmother", [("twelve", "AGE")]),
    ("since she was nine; I'm thirteen; i am twenty one", [("nine", "AGE"), ("thirteen", "AGE"),
                                                          ("twenty one", "AGE")]),
    ("when I was five or six, I\u2019m only fourteen", [("five", "AGE"), ("fourteen", "AGE")]),
    # a number said digit by digit (decision 0183)
    ("my number is five five five, two oh one, three three four four.",
     [("five five five, two oh one, three three four four", "PHONE")]),
    ("Call OH SEVEN SEVEN zero zero-nine-zero zero one two three now",
     [("OH SEVEN SEVEN zero zero-nine-zero zero one two three", "PHONE")]),
    # an e-mail or web address said in words (decision 0205)
    ("my email is maria dot lopez at gmail dot com, thanks", [("maria dot lopez at gmail dot com", "EMAIL")]),
    ("it's kwame underscore mensah at yahoo dot co dot uk.", [("kwame underscore mensah at yahoo dot co dot uk",
                                                               "EMAIL")]),
    ("send it to okafor at stmarys dot org or jsmith 42 at hotmail dot com",
     [("okafor at stmarys dot org", "EMAIL"), ("42 at hotmail dot com", "EMAIL")]),
    ("Bo at sign Mail period com", [("Bo at sign Mail period com", "EMAIL")]),
    ("the site is www dot mariaphotography dot com", [("www dot mariaphotography dot com", "URL")]),
    # several, adjacent and mixed
    ("a@b.com,c@d.org", [("a@b.com", "EMAIL"), ("c@d.org", "EMAIL")]),
    ("Mail ann@x.io or see x.io/ann, tel 617-555-0134, DOB 1/2/1990",
     [("ann@x.io", "EMAIL"), ("x.io/ann", "URL"), ("617-555-0134", "PHONE"), ("1/2/1990", "DATE")]),
]

NEGATIVE = [
    # counting, a countdown, too few digit words, digit words in a word (decision 0183)
    "One two three four five six seven eight and back", "Five , four , three , two , one , fire",
    "One Two Three Five Six Seven Eight Nine Ten", "five five five, two oh one", "one-two-three, one-two-three",
    "five five five two oh one threes three four four",
    "take 3.5 mg twice daily",
    "he is 5 years younger than me, 10 yrs of agency work",
    # no address said in words: a common word at a company's site, a pronoun, a film's title
    "on sale at Amazon dot com or at Identity Schemes dot com; email me at gmail dot com",
    "Fear Dot Com was bad; the dot com burst; at this point at least",
    "an exorcism at some point in the past; William Girdler at this point in his career; Nunally at that period in",
    # no age after a word for the person: a range, a decade, a unit, a speaker label, a title
    "LADY 50 plus sought by gent 40s, seeks lady 35+ or female 40-50, woman 60 and over",
    "married 32 years, a man 50 feet away, MAN 2: hello, Spider-Man 2, Girl 7",
    "about 1,000 patients and 1,000,000 dollars",
    "version 2.0.1 and v1.2.3.4 released",
    "e.g. this, i.e. that, etc.",
    "The patient.He was fine. The patient.In the ED.",
    "in 2019 and 2020 the rate rose",          # a bare year is not a date (decision)
    "in March we met on Monday",               # a bare month or weekday is not a date
    "patients 3 may develop a rash",           # 'may' is a verb
    "the march 3 miles long",                  # 'march' is a verb
    "at 10:30 and 14:45:10",                   # clock times are not dates here
    "pi is 3.14159265",
    "ratio 1/2 and 3-4 weeks",
    "pages 123-456",
    "COVID19 and H1N1 and MP3 and B12",
    "score 98.6 F and 120/80 mmHg",
    "for 54 years she worked",                  # a duration, not an age
    "for fifty years she worked; seven days old bread; at the age of seven days",
    "stage 3 cancer",
    "the car turned 90 degrees",               # a turn, not an age
    "turn 3 pages back and turn to 5",
    "when he was 5 minutes late",
    "when she was 3 or 4 times there",
    "I'm 5 minutes late, I'm 100% sure, I'm 2 pages in, I am 3 episodes away",
    "I'm 5'11 and I'm 6 ft, I'm 2 for 2, I am 20 pounds lighter, I'm 1 of 3, I'm 3.5 hours in",
    "I'm 30 seconds away, im 10 mins out",
    "before 9/11, from 88/41 to 108/60, by 1/2 inch, on 3/4 L of oxygen, a score of 12/16",
    "pain from 3/10 to 6/10, after 3/4's of it, on 10/99-X3, on 3/14.5, born 13/12",
    "him 5 times; Tim 12; Kim 4",               # 'im' must be a word of its own
    "I'm one of those people, I am about three years older, I'm only two steps away",
    "when we were ten minutes late; I was twelve; when I was one of them",
    "it turned 2.5 times",
    "the age of 3-5 year olds",
    "1.2.3.4.5",
    "node.js and file.txt and README.md",
    "ISBN 0-306-40615-2",
    "a ratio of 10x20 and 3x10mL",
    "zip 02139",
    "the 12 1234 boxes",                        # no hyphen group: not a BR number
    "in 2019 1234-5678 was the range",          # a year before a range
    "617-555-0134xylophone",                   # letters after: no extension
    "call 911 now",                             # too short for a phone
    "call me at 3 pm",
    "the phone rang 3 times at 10:30",
    "",
]


@pytest.mark.parametrize("text, expected", POSITIVE)
def test_positive(text, expected):
    assert found(text) == expected


@pytest.mark.parametrize("text", NEGATIVE)
def test_negative(text):
    assert found(text) == []


def test_upper_case_text_still_detected():
    assert found("EMAIL JOHN@EXAMPLE.COM ON MARCH 3, 2024") == [("JOHN@EXAMPLE.COM", "EMAIL"),
                                                               ("MARCH 3, 2024", "DATE")]


def test_label_filter_and_validation():
    only = RegexDetector(labels=["EMAIL"])
    assert [s.label for s in only.detect("a@b.com 617-555-0134")] == ["EMAIL"]
    with pytest.raises(ConfigError, match="regex labels"):
        RegexDetector(labels=["NAME"])
    with pytest.raises(TypeError, match="text must be a str"):
        DETECTOR.detect(b"bytes")  # type: ignore[arg-type]


SCORES = [
    # (text, label, score): 1.0 where the format names the label, GUESS where two labels share it
    ("ref 1234567 filed", "ID", GUESS),              # a bare digit run: an ID or a phone
    ("dial 004930901820", "PHONE", GUESS),           # a 00 run without separators
    ("Tokyo 03-1234-5678", "PHONE", GUESS),          # trunk-0 groups: IDs look the same
    ("4111111111111112", "ID", GUESS),               # fails the Luhn sum: no card
    ("4111111111111111", "ID", 1.0),                 # a card number
    ("4٩٠٧٤٣٩١٥٠٠٠٨٠٦٣", "ID", GUESS),               # other digits: a bare run, no Luhn reading
    ("MRN 1234567", "ID", 1.0),                      # the value after a record keyword
    ("Mobile: 1234567", "PHONE", 1.0),               # the number after a phone keyword
    ("dial +4930901820", "PHONE", 1.0),
    ("dial 0049 30 901820", "PHONE", 1.0),
    ("call (617) 555-0134 now", "PHONE", 1.0),
    ("SSN 123-45-6789", "ID", 1.0),
    ("seen 12/31/2024.", "DATE", 1.0),
]


@pytest.mark.parametrize("text, label, score", SCORES)
def test_scores_say_how_sure_the_label_is(text, label, score):
    spans = DETECTOR.detect(text)
    assert [(s.label, s.score) for s in spans] == [(label, score)]


def test_a_guess_yields_to_a_surer_label_of_the_same_extent():
    """In a union the merge keeps the higher score between spans of one extent, so the model's
    contextual label beats a regex guess, and a sure regex label beats the model."""
    text = "Contact details\nAnna Berg 0734933288\n"
    (guess,) = DETECTOR.detect(text)
    assert (guess.label, guess.score) == ("ID", GUESS)
    model_says = Span(guess.start, guess.end, "PHONE", 0.9, "model")
    assert [(s.label, s.source) for s in merge_spans([guess, model_says])] == [("PHONE", "model+regex")]
    (sure,) = DETECTOR.detect("SSN 123-45-6789")
    assert merge_spans([sure, Span(sure.start, sure.end, "PHONE", 0.9, "model")])[0].label == "ID"


def test_spans_are_regex_sourced_sorted_and_disjoint():
    text = "MRN 123456, ann@x.io, 2024-01-01, 617-555-0134, 10.0.0.1, 54 yo"
    spans = DETECTOR.detect(text)
    assert all(isinstance(s, Span) and s.source == "regex" and s.score in (1.0, GUESS) for s in spans)
    assert all(a.end <= b.start for a, b in zip(spans, spans[1:]))
    assert len(spans) == 6


def _every_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run every rule on every text (no skipping by what the text lacks)."""
    everything = {needs for *_, needs in regex_module._RULES}
    monkeypatch.setattr(regex_module, "_present", lambda text: everything)


GATED_CASES = [text for text, _ in POSITIVE] + NEGATIVE + [
    "no digits at all, no at sign, no colon", "Call me in March", "March 3", "fe::ab and ::",
    "ab:cd", "a@b", "x" * 50, "at 2001:db8:85a3:0:0:8a2e:370:7334 now", "v6 fe80:0:0:0:200:f8ff:fe21:67cf", "www.example.com", "see http://x.io", "3 March", "MAY 2019", "١٢٣٤٥٦٧",
    # the finer needs of the phone and ID rules (issue 33: --neutral-formats runs them on every text)
    "MR# 0012345", "Mr. Lee, MR  # A1234", "case no. A1234", "Case number 77-1", "medical record 12A4",
    "social security 123-45-6789", "License No: D1234", "+44 20 7946 0958", "(0049) 30 1234567",
    "x0049 30 1234567", "call 0049 30 12345", "+1 2 3 ext. 45678", "GB82WEST12345698765432",
    "code AB12CD34 and ab1234", "lot 12_34ab56", "5mg x2 T2N0M0", "120/80 at 03/07/2005",
    "(617) 555-0134", "1 2 3 4 5 6 7", "ID: 9z", "acct 12", "MRN\n12345", "ＩＤ 12345", "İD 12345",
    "\u212aB12 34", "0 1 2 3 4 5",
]


def test_skipping_rules_a_text_cannot_match_changes_nothing(monkeypatch):
    fast = [DETECTOR.detect(text) for text in GATED_CASES]
    _every_rule(monkeypatch)
    assert [DETECTOR.detect(text) for text in GATED_CASES] == fast


PIECES = ["March", "MAY", "Sept.", "3rd", "2024", "12", "00", "7", "555", "@", ":", "::1", "fe80",
          "www.", ".", ",", "/", "-", "+", "(", ")", " ", "\n", "MRN", "Phone", "age", "yo", "x", "ab",
          "com", "http://", "١٢٣", "ID", "id", "Mr", "#", "med", "record", "case", "no", "number",
          "social", "security", "licence", "GB", "A1", "b2", "_", "0", "1234", "ext. ", "é", "SSN"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=14).map("".join))
def test_skipping_rules_changes_nothing_on_any_text(text):
    fast = DETECTOR.detect(text)
    with pytest.MonkeyPatch.context() as mp:
        _every_rule(mp)
        assert DETECTOR.detect(text) == fast


NUMBER_PIECES = ["0", "00", "1", "12", "123", "1234", "12345", "+", "(", ")", " ", "-", ".", "/", "x",
                 "ext. ", "A", "GB", "Z9", "b", "_", "#", "ID", "MR", "case ", "no", "social security ",
                 "medical record ", "\n", ",", "é", "plate ", "License plates # ", "AB1 2CD"]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(NUMBER_PIECES), max_size=24).map("".join))
def test_the_phone_and_id_needs_skip_nothing(text):
    """The finer needs of the phone and ID rules (what --neutral-formats runs on every text)."""
    fast = PHONES_AND_IDS.detect(text)
    with pytest.MonkeyPatch.context() as mp:
        _every_rule(mp)
        assert PHONES_AND_IDS.detect(text) == fast


PHONES_AND_IDS = RegexDetector(labels=("PHONE", "ID"))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab1@. -:/()+0Mx\n"), max_size=60))
def test_any_text_gives_valid_disjoint_spans(text):
    spans = DETECTOR.detect(text)
    for s in spans:
        s.check(text)
    assert all(a.end <= b.start for a, b in zip(spans, spans[1:]))


def test_worst_case_shapes_keep_their_matches() -> None:
    """The patterns made linear (possessive padding after a keyword, a 64-character cap on an
    e-mail's local part, no intl phone in a run of 34+ digits) still find what they found."""
    det = RegexDetector()

    def found(text: str) -> list[tuple[str, str]]:
        return [(s.label, text[s.start:s.end]) for s in det.detect(text)]

    assert found("Fax" + " " * 300 + "617 555 0134") == [("PHONE", "617 555 0134")]
    assert found("MRN" + " " * 300 + ": A12345") == [("ID", "A12345")]
    assert ("PHONE", "5550134211") in found("call  #  :  5550134211")
    assert found("a" * 64 + "@example.com") == [("EMAIL", "a" * 64 + "@example.com")]
    assert found("x O'Brien@mail.com, 'quoted@x.com'") == [
        ("EMAIL", "O'Brien@mail.com"), ("EMAIL", "quoted@x.com")]
    assert found("a'" * 5000 + "@x.com") == []  # no local part ends in an apostrophe
    assert found("+44 20 7946 0958") == [("PHONE", "+44 20 7946 0958")]
    assert not any(label == "PHONE" for label, _ in found("+" + "1" * 40))


SPOKEN_PIECES = ["July", "JULY", "july", "jul", "Sept.", "sep", "may", "MAY", "Mar", "march", "janov",
                 "fourth", "Twenty", "twenty-", "first", "thirtieth", "THIRD", "tenth", "of", "two thousand",
                 "and", "eight", "nineteen", "oh", "2019", "'08", " ", "  ", ",", "-", ".", "\n", "x", "_",
                 "é", "\u017f", "\u017feptember", "\u212a", "\u0130", "\u0131", "\u00a0", "\u2013", "\u00b0",
                 "\u00df", "\u2028", "year", "yrs", " old", "years of age", "aged ", "age", "fifty-", "Six",
                 "five", "Zero", "ONE", "seven", "three", "'", "MALE", "guy", "sWm", "Lady", "45", "13", "9",
                 "-"]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(SPOKEN_PIECES), max_size=12).map("".join))
@example("twenty first of July")  # an opening inside a match ('first') starts no second match
@example("the fourth of may, the fifth of MAY two thousand and eight; July twenty-ninth 2019")
@example("March fourth of July")
@example("\u017feptember fourth, fifty\u00a0years of age")  # a stand-in letter, a stand-in space
@example("Caf\u00e9: \u0130\u212a July fourth, forty\u2028two years old")
@example("SINGLE MALE 45 seeks, guy, 47; \u212aGuy 13")
def test_word_start_scan_finds_what_finditer_finds(text):
    """The IGNORECASE rules tried only at word starts (``_finditer``) give the very matches of a
    scan at every position (``pattern.finditer``), the plain reference; and the month needs agree
    with their IGNORECASE / case-sensitive searches."""
    lowered = regex_module._starts_text(text)
    assert len(lowered) == len(text)
    for pattern in regex_module._WORD_STARTS:
        fast = [m.span() for m in regex_module._finditer(pattern, text, lowered)]
        assert fast == [m.span() for m in pattern.finditer(text)]
    present = regex_module._present(text)
    assert (regex_module._MONTH_WORD in present) == (regex_module._ANY_MONTH_WORD.search(text) is not None)
    if regex_module._DIGIT in present:
        assert ((regex_module._MONTH_AND_DIGIT in present)
                == (regex_module._ANY_MONTH.search(text) is not None))


def test_word_start_scan_reads_non_ascii_text_through_stand_ins():
    """IGNORECASE matches beyond ASCII (the long s matches ``s``): lower-casing would lose
    ``\u017feptember fourth``; the stand-ins keep it, at the same offsets (decision 0164)."""
    text = "\u017feptember fourth"
    pattern = regex_module._SPOKEN_DATES[0]
    assert [m.span() for m in regex_module._finditer(pattern, text, None)] == [(0, 16)]
    assert list(regex_module._finditer(pattern, text, text.lower())) == []
    assert [m.span() for m in regex_module._finditer(pattern, text, regex_module._starts_text(text))] == [(0, 16)]
    assert [(s.start, s.end, s.label) for s in DETECTOR.detect(text)] == [(0, 16, "DATE")]
    assert regex_module._starts_text("\u0130\u212a\u0131 \u00e9\u00a0\u2013x") == "iki _ #x"


def test_a_long_record_with_one_non_ascii_character_is_scanned_at_word_starts(monkeypatch):
    """One ``\u00e9`` in a long record sent every IGNORECASE rule to every position of it: a
    megabyte of notes as one line took three times as long as the same notes as lines
    (decision 0164). The rules now only see the word starts' candidates."""
    seen = []
    real = regex_module._finditer

    def spy(pattern, text, lowered):
        if pattern in regex_module._WORD_STARTS:
            seen.append(lowered is not None)
        return real(pattern, text, lowered)

    monkeypatch.setattr(regex_module, "_finditer", spy)
    DETECTOR.detect("Caf\u00e9 visit on March fourth, aged fifty-six years old. " * 3)
    assert seen and all(seen)


def test_word_starts_cover_every_form_of_their_rules():
    """Every month form and spoken day starts with an opening the scan looks for."""
    forms = regex_module._MONTH[3:-4].split("|")  # (?:A|B|...)\.?
    assert forms and all(f.lower()[:3] in regex_module._MONTH_OPENINGS for f in forms)
    days = [*regex_module._ORDINALS, "twenty", "thirty"]
    assert all(d[:3] in regex_module._SPOKEN_DAY_OPENINGS for d in days)
    assert all(p.flags & regex_module.re.IGNORECASE for p in regex_module._WORD_STARTS)
