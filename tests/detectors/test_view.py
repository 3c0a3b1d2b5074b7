"""HTML tags in web text are layout (decision 0173): the detectors read a masked view of the same
length, and no span keeps a tag's characters."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from embedanon.detectors.base import Span
from embedanon.detectors.features import tokenize
from embedanon.detectors.merge import UnionDetector
from embedanon.detectors.model import ModelDetector
from embedanon.detectors.registry import build_detectors
from embedanon.detectors.view import QUOTES, detection_view, markup_ranges, masked, model_reading, moved_back


def test_bare_tags_are_found_and_masked_to_the_same_length():
    text = "Great.<br /><br />I <i>loved</i> it</P><hr>x"
    ranges = markup_ranges(text)
    assert [text[a:b] for a, b in ranges] == ["<br />", "<br />", "<i>", "</i>", "</P>", "<hr>"]
    view = masked(text, ranges)
    assert len(view) == len(text)
    assert view == "Great." + "     \n" * 2 + "I " + "   " + "loved" + "    " + " it" + "   \n" + "   \n" + "x"


@pytest.mark.parametrize("text", [
    '<a href="http://jo.example.org">my page</a>x',  # attributes may hold a personal URL: kept
    "teacher: hi <STUDENT>, how are you?",            # a placeholder is no HTML tag
    "I <3 you and x < 5 > 2",
    "<browser> in sidebar",
    "no tags at all",
])
def test_what_is_no_bare_tag_stays(text):
    spans = markup_ranges(text)
    assert all(text[a:b] in ("</a>",) for a, b in spans)
    assert masked(text, []) == text


@given(st.lists(st.sampled_from(["<br />", "<p>", "</p>", "<i>", "</i>", "Ann ", "Lee", ". ", "\n", "<x>",
                                 "<br>", "a<b>c", "< br>", "<BR/>", "<a href='u'>"]), max_size=30))
@settings(max_examples=200, deadline=None)
def test_the_view_keeps_every_other_character(pieces):
    text = "".join(pieces)
    ranges = markup_ranges(text)
    view = masked(text, ranges)
    assert len(view) == len(text)
    inside = {i for a, b in ranges for i in range(a, b)}
    assert all(view[i] == text[i] for i in range(len(text)) if i not in inside)
    assert all(view[i] in " \n" for i in inside)
    assert all(b <= c for (_, b), (c, _) in zip(ranges, ranges[1:]))  # sorted, disjoint


class _Fixed:
    """A detector that returns fixed spans over whatever text it reads."""

    name = "fixed"

    def __init__(self, spans):
        self.spans = spans
        self.seen = []

    def detect(self, text):
        self.seen.append(text)
        return list(self.spans)


def test_detectors_read_the_masked_view_and_no_span_keeps_a_tag(monkeypatch):
    import embedanon.detectors.merge as merge

    monkeypatch.setattr(merge, "Detector", _Fixed)  # the union checks its detectors' type
    text = "Call <b>Ann Lee</b> now"
    fixed = _Fixed([Span(5, 19, "NAME", 0.9, "fixed")])  # '<b>Ann Lee</b>', as a tag-blind model might
    union = UnionDetector([fixed])
    assert fixed.seen == [] and union.detect(text) == [Span(8, 15, "NAME", 0.9, "fixed")]
    assert fixed.seen == ["Call    Ann Lee     now"]


def test_names_in_web_text_are_found_as_in_plain_text():
    """The shipped detector on a record with HTML line breaks and emphasis finds what it finds
    in the same record written plainly (the code before missed the emphasized name and read the
    one after a break as an ADDRESS)."""
    detector = build_detectors("model,regex")
    plain = "Thanks for the visit.\nMy friend Kwame Mensah lives at 12 Oak Road.\nCall 617-555-0143."
    html = plain.replace("\n", "<br />").replace("Kwame Mensah", "<i>Kwame Mensah</i>")

    def found(text):
        return [(text[s.start:s.end], s.label) for s in detector.detect(text)]

    assert found(html) == found(plain)
    assert ("Kwame Mensah", "NAME") in found(html)
    assert all("<" not in piece and ">" not in piece for piece, _ in found(html))


def test_an_address_ends_before_markup_characters():
    detector = build_detectors("model,regex")
    text = '<a href="http://jo.example.org">my page</a> and <ann@example.org>'
    assert [(text[s.start:s.end], s.label) for s in detector.detect(text)] == [
        ("http://jo.example.org", "URL"), ("ann@example.org", "EMAIL")]


def test_a_span_of_punctuation_only_is_dropped(monkeypatch):
    import embedanon.detectors.merge as merge

    monkeypatch.setattr(merge, "Detector", _Fixed)
    text = ">>>>>> >>>> With their"
    union = UnionDetector([_Fixed([Span(0, 11, "ADDRESS", 0.5, "fixed"), Span(12, 16, "NAME", 0.5, "fixed")])])
    assert union.detect(text) == [Span(12, 16, "NAME", 0.5, "fixed")]


def test_typographic_quotes_read_as_ascii_one_for_one():
    text = "It\u2019s \u201cAnn\u201d and \u2018Bo\u2019, \u00abLe\u00bb \u201eX\u201f"
    view, tags = detection_view(text)
    assert tags == [] and len(view) == len(text)
    assert view == "It's \"Ann\" and 'Bo', \"Le\" \"X\""
    assert all(len(v) == 1 for v in QUOTES.values())
    assert detection_view("plain 'text' here") == ("plain 'text' here", [])


def test_a_record_in_typographic_quotes_is_read_as_in_ascii():
    """Word processors and phones write curly quotes; the detector finds in such a record what it
    finds in the ASCII one (the code before missed ``Daniel\u2019s`` and kept ``Maria\u2019s``)."""
    detector = build_detectors("model,regex")
    ascii_text = 'It\'s Daniel\'s book, not Maria\'s. My friend "Ann Lee" lives at 12 Oak Road.'
    curly = ascii_text.translate({ord("'"): "\u2019"}).replace('"Ann Lee"', "\u201cAnn Lee\u201d")

    def found(text):
        return [(s.start, s.end, s.label) for s in detector.detect(text)]

    assert found(curly) == found(ascii_text)
    assert [curly[a:b] for a, b, label in found(curly)] == ["Daniel", "Maria", "Ann Lee", "12 Oak Road"]


def test_time_stamps_before_speakers_read_as_line_breaks():
    """Decision 0181: a chat tool's time stamp before a speaker is spaces and a line break in the
    view, so the speaker opens a line; a stamp with a date and a time in running text stay."""
    text = "[00:01:23] Doctor: Hi.\n10:32 <kemi> hey at 10:40\n12/03/2020, 14:05 - Ann: ok"
    view, ranges = detection_view(text)
    assert len(view) == len(text)
    assert [text[a:b] for a, b in ranges] == ["[00:01:23] ", "10:32 "]
    assert view == "          \nDoctor: Hi.\n     \n<kemi> hey at 10:40\n12/03/2020, 14:05 - Ann: ok"


def test_a_timestamped_transcript_is_read_as_the_plain_one():
    """The detector finds in a transcript whose turns open with a time stamp what it finds in the
    same transcript without them, and no span holds a stamp (the code before read ``00:00:40``
    as an IP address and missed the speakers of a script)."""
    detector = build_detectors("model,regex")
    turns = ["JACK SPARROW: Where is it, Will?", "WILL TURNER: With Elizabeth Swann, at 10:40.",
             "GIBBS: Prepare to cast off!", "JACK SPARROW: Pirate.", "WILL TURNER: Call 617-555-0143."]
    plain = "\n".join(turns)
    stamped = "\n".join(f"[00:00:{7 + 11 * k:02d}] {turn}" for k, turn in enumerate(turns))

    def found(text, stamp):
        out = []
        for s in detector.detect(text):
            line = text.count("\n", 0, s.start)
            out.append((s.start - stamp * line - stamp, s.end - stamp * line - stamp, s.label) if stamp
                       else (s.start, s.end, s.label))
        return out

    assert found(stamped, len("[00:00:07] ")) == found(plain, 0)
    assert [plain[a:b] for a, b, _ in found(plain, 0)] == [
        "JACK SPARROW", "Will", "WILL TURNER", "Elizabeth Swann", "GIBBS", "JACK SPARROW", "WILL TURNER",
        "617-555-0143"]


def test_the_speakers_of_a_meeting_chat_export_are_found():
    """``10:32:15 From John Smith to Everyone:``: once its stamp opened a label (decision 0181),
    the label's function words made it a description kept as structure, names and all; the
    people between ``From`` and ``to`` are left to the detectors."""
    detector = build_detectors("model,regex")
    text = ("10:32:15 From John Smith to Everyone: hello all\n"
            "10:33:02 From Maria Lopez to Everyone: hi there\n"
            "10:34:40 From John Smith to Everyone: thanks")
    assert [text[s.start:s.end] for s in detector.detect(text)] == ["John Smith", "Maria Lopez", "John Smith"]


def test_a_log_entry_after_a_time_stamp_is_no_label():
    """``14:00 Meeting with John Smith:``: a stamp made it a label, a label with a function word is
    a description kept whole (decision 0166), and the name the code before found went out
    verbatim; after a stamp such words are a log entry, read as text (decision 0181)."""
    detector = build_detectors("model,regex")
    text = ("14:00 Meeting with John Smith: budget review\n10:15 Spoke with daughter Lakshmi: she will visit.\n"
            "10:20 Pt's wife Amara: called back")
    assert [text[s.start:s.end] for s in detector.detect(text)] == ["John Smith", "Lakshmi", "Amara"]


def test_speaker_lines_read_as_labels_on_their_turns():
    """Decision 0199: a transcription service's ``Speaker  0:04`` line and the turn under it read as
    ``Speaker:      turn`` in the view (same length): the time a colon and spaces, the line break
    a space; no span keeps the time."""
    text = "Dr. Amara Okafor  0:00\r\nGood morning.\r\n\r\nMaria Lopez (00:00:04):\r\nHi, doctor.\r\n"
    view, ranges = detection_view(text)
    assert len(view) == len(text)
    assert view == "Dr. Amara Okafor:" + " " * 7 + "Good morning.\r\n\r\nMaria Lopez:" + " " * 13 + "Hi, doctor.\r\n"
    assert [text[a:b] for a, b in ranges] == ["  0:00", " (00:00:04):"]
    found = [(text[s.start:s.end], s.label) for s in build_detectors("model,regex").detect(text)]
    assert found == [("Amara Okafor", "NAME"), ("Maria Lopez", "NAME")]


def test_caption_cue_lines_read_as_line_breaks():
    """Decision 0194: a caption file's signature, cue identifiers and timing lines are spaces and
    a line break in the view; the cue text and a voice tag stay. The code before read the short
    stamps as a DATE and a PHONE, a Teams identifier as an IP address and ``WEBVTT`` as a name."""
    text = ("WEBVTT\n\n00:04.900 --> 00:09.120\nDoctor: Hello Maria.\n\n"
            "0f8b6c1e-2f4a-4c43-9a7e-2c3d1e5f6a7b/13-0\n00:00:07.010 --> 00:00:09.900\n"
            "<v Kwame Mensah>Yes, I can hear you fine.</v>")
    view, ranges = detection_view(text)
    assert len(view) == len(text)
    assert [text[a:b] for a, b in ranges] == ["WEBVTT", "00:04.900 --> 00:09.120",
                                              "0f8b6c1e-2f4a-4c43-9a7e-2c3d1e5f6a7b/13-0",
                                              "00:00:07.010 --> 00:00:09.900"]
    assert "\nDoctor: Hello Maria.\n" in view and "\n<v Kwame Mensah" in view
    assert not any(c.isdigit() for c in view)
    # a voice tag at a line's start reads as a label: its '>' is a colon in the view
    assert view.endswith("\n<v Kwame Mensah:Yes, I can hear you fine.</v>")
    found = [(text[s.start:s.end], s.label) for s in build_detectors("model,regex").detect(text)]
    assert found == [("Maria", "NAME"), ("Kwame Mensah", "NAME")]


def test_the_model_reads_a_voice_line_as_a_label_at_the_line_start():
    """Decision 0209: in the model's reading a voice line's speaker and colon move to where its tag
    opens, the rest of the tag and ``</v>`` are spaces; the same length, and the moved ranges
    say where each moved character is in the view."""
    view, _ = detection_view("x\n<v Kwame Mensah>Yes, Ama.</v>\n  <v.loud Doctor>ok</v>\nplain: <v no>")
    assert view == "x\n<v Kwame Mensah:Yes, Ama.</v>\n  <v.loud Doctor:ok</v>\nplain: <v no>"
    reading, moved = model_reading(view)
    assert reading == "x\nKwame Mensah:   Yes, Ama.    \n  Doctor:        ok    \nplain: <v no>"
    assert moved == [(2, 15, 3), (34, 41, 8)]
    for a, b, shift in moved:
        assert reading[a:b] == view[a + shift : b + shift]
    assert model_reading("Doctor: no voice tag </v>") == ("Doctor: no voice tag </v>", [])


def test_the_model_reads_a_chat_log_speaker_in_angle_brackets_as_a_label():
    """Decision 0209: ``<kemi> hey`` reads ``kemi:  hey``; a tag inside a line and a bare tag the
    view masks are no label."""
    view, _ = detection_view("<JACK SPARROW> Move.\n<kemi> Ama, hi <b>there</b>\nsee <this> too")
    reading, moved = model_reading(view)
    assert reading == "JACK SPARROW:  Move.\nkemi:  Ama, hi    there    \nsee <this> too"
    assert moved == [(0, 13, 1), (21, 26, 1)]


@given(st.lists(st.sampled_from(["<v Ann Lee>", "<v Dr. Okafor>", "<v.a b>", "hi Ama", "</v>", "\n", "\n",
                                 "  ", "<v x", ":", ">", "Man: ", "2", "<kemi> ", "<Girl #1>", " ", "<"]),
                max_size=30))
@settings(max_examples=200, deadline=None)
def test_the_model_reading_maps_every_token_back_to_the_same_characters(pieces):
    view, _ = detection_view("".join(pieces))
    reading, moved = model_reading(view)
    assert len(reading) == len(view)
    toks = tokenize(reading)
    starts, ends = moved_back(toks.starts, toks.ends, moved)
    # each token is the view's characters, but a label's colon, which stands for its tag's close
    got = [view[a:b] for a, b in zip(starts.tolist(), ends.tolist())]
    assert all(g == w or (w == ":" and g in ">:") for g, w in zip(got, toks.words, strict=True))
    assert starts.tolist() == sorted(starts.tolist())
    inside = {i for a, b, _ in moved for i in range(a, b)}
    assert all(reading[i] in (view[i], " ") for i in range(len(view)) if i not in inside)


def test_an_addressee_after_a_voice_tag_is_found_as_after_a_label():
    """A Teams transcript writes the turn right after the tag (``<v Woman>Eyram, so ...``); the
    model read ``<v Woman:Eyram`` and gave the addressee 0.31 (missed) where the plain
    transcript's ``Woman: Eyram`` gives 0.93 (decision 0209)."""
    body = ["Man: Hi there.", "Woman: Eyram, So I turned a group of seven year old girls today."]
    plain = "\n".join(body)
    teams = "WEBVTT\n\n" + "\n\n".join(
        f"a1b2c3/{k}-0\n00:00:0{k}.000 --> 00:00:0{k + 1}.000\n<v {line.replace(': ', '>', 1)}</v>"
        for k, line in enumerate(body))
    detector = build_detectors("model,regex")
    assert [plain[s.start:s.end] for s in detector.detect(plain)] == ["Eyram"]
    assert [teams[s.start:s.end] for s in detector.detect(teams)] == ["Eyram"]
    model = ModelDetector()
    starts, ends, _ = model.probabilities(teams)
    assert all(teams[a:b].strip() == teams[a:b] != "" for a, b in zip(starts.tolist(), ends.tolist()))


def test_a_chat_log_speaker_and_addressee_are_found_as_after_a_label():
    """``<JACK SPARROW> Move.``: the model missed the speaker in angle brackets that it finds as
    ``JACK SPARROW: Move.`` (decision 0209)."""
    plain = "GIBBS: Where's the Commodore?\nJACK SPARROW: He fell behind.\nGIBBS: My prayers be with him."
    chat = "\n".join("<" + line.replace(": ", "> ", 1) for line in plain.split("\n"))
    detector = build_detectors("model,regex")
    found = [plain[s.start:s.end] for s in detector.detect(plain)]
    assert "JACK SPARROW" in found
    assert [chat[s.start:s.end] for s in detector.detect(chat)] == found


def test_a_markdown_transcript_is_read_as_the_plain_one():
    """Decision 0210: ``**Hobo:** text`` was no label; the model took ``*Hobo`` for a name and read
    ``**Kemi:**`` as a place. A label in Markdown bold is a label, and the model reads it as
    ``Hobo:`` at the line's start."""
    plain = "Hobo: Ifeanyichukwu, once you go black you never go back.\nGirl #1: Yeah, Maria Lopez said so.\nKemi: Right."
    detector = build_detectors("model,regex")
    found = [(plain[s.start:s.end], s.label) for s in detector.detect(plain)]
    assert found == [("Ifeanyichukwu", "NAME"), ("Maria Lopez", "NAME"), ("Kemi", "NAME")]
    for opens, closes in (("**", ":**"), ("**", "**:"), ("__", ":__")):
        text = "\n".join(opens + line.replace(":", closes, 1) for line in plain.split("\n"))
        assert [(text[s.start:s.end], s.label) for s in detector.detect(text)] == found
