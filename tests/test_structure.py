"""Speaker and role labels (``embedanon.structure``): roles are structure, names are left to the
detectors (tables with negative controls); every range lies inside its label and the label's
characters are split, not lost."""

from __future__ import annotations

import pytest

from embedanon.structure import role_ranges, speaker_labels, tag_labels


def _split(text: str) -> list[tuple[str, list[str]]]:
    return [(text[label.start : label.end], [text[a:b] for a, b in label.names]) for label in speaker_labels(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # roles: common words, numbered speakers, descriptions, underscores, single letters
        ("Doctor: Hi.\nPatient: Hello.\n", [("Doctor", []), ("Patient", [])]),
        ("teacher: ok\nstudent: fine\n", [("teacher", []), ("student", [])]),
        ("Guest_family: He is fine.\nGuest_clinician: Good.", [("Guest_family", []), ("Guest_clinician", [])]),
        ("Q: Why?\nA: Because.\n", [("Q", []), ("A", [])]),
        ("Guy #1: So?\nTeen girl on cell: No.\nIrate man on cell: Hey!\n",
         [("Guy #1", []), ("Teen girl on cell", []), ("Irate man on cell", [])]),
        ("Black guy: Yo.\nSCENE 24: [wind]\nLEFT HEAD: What?\n", [("Black guy", []), ("SCENE 24", []), ("LEFT HEAD", [])]),
        ("BLACK KNIGHT: None shall pass.\nInterviewer: And then?\n", [("BLACK KNIGHT", []), ("Interviewer", [])]),
        ("KNIGHTS OF NI: Ni!\nNanny to little boy: Hush.\n", [("KNIGHTS OF NI", []), ("Nanny to little boy", [])]),
        # names: rare words, common given names, listed names below the common ranks, titles apart
        ("ARTHUR: Halt!\nBEDEVERE: Quiet!\n", [("ARTHUR", ["ARTHUR"]), ("BEDEVERE", ["BEDEVERE"])]),
        ("WILL TURNER: Lift it.\nGIBBS: Aye.\n", [("WILL TURNER", ["WILL TURNER"]), ("GIBBS", ["GIBBS"])]),
        ("Layla: Wait.\nmari: C'mon.\nJohn: No.\n", [("Layla", ["Layla"]), ("mari", ["mari"]), ("John", ["John"])]),
        ("Dr. Yaman: Fine.\nARTHUR and BLACK KNIGHT: Aaah!\n",
         [("Dr. Yaman", ["Yaman"]), ("ARTHUR and BLACK KNIGHT", ["ARTHUR"])]),
        ("Guy #1 (wearing do-rag): You know?\n", [("Guy #1 (wearing do-rag)", [])]),
        # rare nouns for a kind of person are roles (WordNet's noun.person); a listed name never is
        ("Hobo: Spare change?\nCRONE: Agh!\nBO'SUN: Haul him up.\nHeathens: No!\n",
         [("Hobo", []), ("CRONE", []), ("BO'SUN", []), ("Heathens", [])]),
        ("Patsy: Aye.\nHUNTER: Go.\nTolu: Yes.\n", [("Patsy", ["Patsy"]), ("HUNTER", ["HUNTER"]), ("Tolu", ["Tolu"])]),
        # one-word coinages for a kind of person are roles; a listed surname so spelled is not,
        # nor a name ending in -man (decision 0169)
        ("Shopgirl: Hi.\nFRATBOY: Yo.\nBusinessguy: No.\nMailwoman: Here.\n",
         [("Shopgirl", []), ("FRATBOY", []), ("Businessguy", []), ("Mailwoman", [])]),
        ("McGirl: Hi.\nNorman: Yes.\n", [("McGirl", ["McGirl"]), ("Norman", ["Norman"])]),
        # chat logs: a speaker in angle brackets; 'Word>' only beside 'Word:' labels, as before
        ("<teacher> hi\n<student> hello\n<kemi> hey\n", [("teacher", []), ("student", []), ("kemi", ["kemi"])]),
        ("x > y\nteacher> hi\n", []),
        ("Guy: Yo.\nteacher> hi\n", [("Guy", []), ("teacher", [])]),
        # after a chat or meeting tool's time stamp (decision 0181), with a date or not
        ("[00:01:23] Doctor: Hi.\n[00:01:30] Patient: Hello.\n", [("Doctor", []), ("Patient", [])]),
        ("10:32 - teacher: ok\n10:33 <kemi> hey\n[10:34 AM] Layla: hi\n00:02:05.250 ARTHUR: Halt!\n",
         [("teacher", []), ("kemi", ["kemi"]), ("Layla", ["Layla"]), ("ARTHUR", ["ARTHUR"])]),
        # a transcription service's speaker lines (decision 0199): the speaker, the time after it,
        # the turn on the next line; two at least; a log entry, a lone line, a last line are none
        ("Dr. Amara Okafor  0:00\nGood morning.\n\nPatient  0:04\nHi.\n\nSpeaker 3\t1:02:10\nok\n",
         [("Dr. Amara Okafor", ["Amara Okafor"]), ("Patient", []), ("Speaker 3", [])]),
        ("Maria Lopez (00:00:03):\nHello.\nSpeaker 2 (01:13):\nHi.\n", [("Maria Lopez", ["Maria Lopez"]), ("Speaker 2", [])]),
        ("Lunch with John Smith  12:30\nBring files\nCall Ann  13:00\nok\n", [("Call Ann", ["Call Ann"])]),
        ("Total  3:45\nnext line\n", []),
        ("Doctor  0:04\nHi.\nPatient  0:09", []),
        # a caption's voice tag (decision 0194): the speaker, after '<v' and its classes
        ("<v Amara Okafor>Hi.</v>\n<v.loud Doctor>Sit.</v>\n<v ARTHUR and BLACK KNIGHT>Aaah!</v>\n",
         [("Amara Okafor", ["Amara Okafor"]), ("Doctor", []), ("ARTHUR and BLACK KNIGHT", ["ARTHUR"])]),
        ("12/03/2020, 14:05 - John Smith: coming?\n2021-04-05 09:12:44 <kemi> hi\n",
         [("John Smith", ["John Smith"]), ("kemi", ["kemi"])]),
        ("3:15 PM: Doctor arrived.\n10:30: start\n", []),
        # after a stamp, words with a function word or a description are a log entry, no label;
        # a speaker's name, a role, a role code are labels
        ("14:00 Meeting with John Smith: budget\n10:15 Spoke with daughter Lakshmi: ok\n[10:16] Girl on cell: hi\n"
         "10:17 Pt's wife Amara: called\n", []),
        ("[00:01:40] Guest_family: yes\n[10:34 AM] Speaker 1: ok\n10:20 Daughter Lakshmi: ok\n",
         [("Guest_family", []), ("Speaker 1", []), ("Daughter Lakshmi", ["Daughter Lakshmi"])]),
        # a meeting tool's chat export: the people between 'from' and 'to' are read apart
        ("10:32:15 From John Smith to Everyone: hi\nfrom kemi to everyone: hey\nFrom the back row: boo\n",
         [("From John Smith to Everyone", ["John Smith"]), ("from kemi to everyone", ["kemi"]),
          ("From the back row", [])]),
        # chat handles (decision 0182): a name part makes the whole handle a name; roles, codes,
        # titles and file names stay roles
        ("<maria_99> hi\n<tom_h> yo\ndave.k: ok\n<Guest_family> ok\nGuest_clinician: fine\n",
         [("maria_99", ["maria_99"]), ("tom_h", ["tom_h"]), ("dave.k", ["dave.k"]), ("Guest_family", []),
          ("Guest_clinician", [])]),
        ("<user99> x\nSpeaker_A: y\nDoctor_1: z\nP1: a\nsetup.py: b\n",
         [("user99", []), ("Speaker_A", []), ("Doctor_1", []), ("P1", []), ("setup.py", [])]),
        # in angle brackets a run that reads as a name is enough; before a colon a listed name part
        ("<kemi_2> hi\n<nsToolkit.h> x\nkemi_2: ok\nnsToolkit.h: y\n",
         [("kemi_2", ["kemi_2"]), ("nsToolkit.h", ["nsToolkit.h"]), ("kemi_2", []), ("nsToolkit.h", [])]),
        # a name after a function word is a name (decision 0257): the role words stay structure;
        # a dictionary word, a brand alone, a word in capitals or a title alone is none
        ("Mother of Jessica Davis: x\nSon of Kwame: y\nLetter to Mr. Adu: z\n",
         [("Mother of Jessica Davis", ["Jessica Davis"]), ("Son of Kwame", ["Kwame"]),
          ("Letter to Mr. Adu", ["Adu"])]),
        ("Seen by James Brown today. INDICATION: x\nHistory of Present Illness: y\nGirl on Nextel: z\n"
         "Wife of the Doctor: a\nNotes of Dr.: b\n",
         [("Seen by James Brown today. INDICATION", ["James Brown"]), ("History of Present Illness", []),
          ("Girl on Nextel", []), ("Wife of the Doctor", []), ("Notes of Dr.", [])]),
        # a phone, a record number or a date is no label's number: the line start is text
        ("Phone call with John at 555-123-4567: x\nNote for Ann Lee (MRN 5551234): y\nSCENE 24: z\n"
         "Room 101: a\nFirefox 0.8: b\n",
         [("SCENE 24", []), ("Room 101", []), ("Firefox 0.8", [])]),
        # not labels: a sentence, a time, a URL, a colon inside a line
        ("The patient said the following about it: fine.\nAt 10:30 he left.\nSee http://x.org\nA b: c\n",
         [("A b", [])]),
    ],
)
def test_labels_are_split_into_roles_and_names(text, expected):
    from embedanon.structure import clock_ranges

    assert _split(text) == expected
    assert clock_ranges(text) == [label.clock for label in speaker_labels(text) if label.clock is not None]


@pytest.mark.parametrize("text", ["Doctor: Hi.\nARTHUR and BLACK KNIGHT: Aaah!\nDr. Yaman: ok\n", "Guy #2 (x): y\n", ""])
def test_ranges_partition_each_label(text):
    for label in speaker_labels(text):
        ranges = sorted([*label.roles, *label.names])
        assert all(label.start <= a < b <= label.end for a, b in ranges)
        assert all(x[1] <= y[0] for x, y in zip(ranges, ranges[1:], strict=False))
        covered = "".join(text[a:b] for a, b in ranges).replace(" ", "")
        assert covered == text[label.start : label.end].replace(" ", "")
    assert role_ranges(text) == [r for label in speaker_labels(text) for r in label.roles]


@pytest.mark.parametrize(
    ("text", "stamps"),
    [
        ("[00:01:23] Doctor: Hi.\n10:32 - teacher: ok\n00:02:05.250 <kemi> hey\n",
         ["[00:01:23] ", "10:32 - ", "00:02:05.250 "]),
        # a date with the time is left to the detectors (a date is PII); no label, no stamp
        ("12/03/2020, 14:05 - Ann: hi\n10:30 he left.\nAt 10:31 Doctor: no\n", []),
    ],
)
def test_time_stamps_before_speakers_are_structure(text, stamps):
    from embedanon.structure import clock_ranges

    assert [text[a:b] for a, b in clock_ranges(text)] == stamps
    # the stamps without the labels' split are the split labels' stamps
    assert clock_ranges(text) == [label.clock for label in speaker_labels(text) if label.clock is not None]
    assert [text[a:b] for a, b in role_ranges(text) if any(c.isdigit() for c in text[a:b])] == stamps


_VTT = ("WEBVTT - clinic call\n\n"
        "1\n00:01.000 --> 00:04.500 align:start position:10%\nDoctor: Hello Maria.\n\n"
        "0f8b6c1e-2f4a-4c43-9a7e-2c3d1e5f6a7b/12-0\n00:00:03.120 --> 00:00:06.480\n"
        "<v.loud Amara Okafor>Good <c.yellow>morning</c>, <00:00:05.000>can you hear me?</v>\n")
_SRT = "1\r\n00:00:01,000 --> 00:00:04,500\r\nDoctor: Hi.\r\n\r\n2\r\n00:00:04,900 --> 00:00:09,120\r\nOk.\r\n"


@pytest.mark.parametrize(
    ("text", "lines", "tags"),
    [
        (_VTT, ["WEBVTT", "1", "00:01.000 --> 00:04.500 align:start position:10%",
                "0f8b6c1e-2f4a-4c43-9a7e-2c3d1e5f6a7b/12-0", "00:00:03.120 --> 00:00:06.480"],
         ["<v.loud ", ">", "<c.yellow>", "</c>", "<00:00:05.000>", "</v>"]),
        (_SRT, ["1", "00:00:01,000 --> 00:00:04,500", "2", "00:00:04,900 --> 00:00:09,120"], []),
        # negative controls: a range of times in prose, an arrow in a log, a word line before a
        # timing (no identifier with a digit), a voice tag's speaker, 'WEBVTT' inside a text
        ("We met 10:00 --> 11:00 on Monday.\nx --> y\nFrom 00:01.000 --> 00:02.000 it ran.\n", [], []),
        ("Intro\n00:01.000 --> 00:04.500\nHi.\nAbout WEBVTT files.\n", ["00:01.000 --> 00:04.500"], []),
        ("<v>hi</v> <vet Sam> <c Ann>", [], ["</v>"]),
    ],
)
def test_caption_structure_is_found(text, lines, tags):
    """Decision 0194: a caption file's signature, cue identifiers and timing lines are its cue
    lines; with WebVTT's cue tags (a voice tag's ``<v `` and ``>``, not its speaker) they are its
    structure, and role structure (kept as written, never in a span)."""
    from embedanon.structure import caption_ranges, cue_lines

    assert [text[a:b] for a, b in cue_lines(text)] == lines
    got = [text[a:b] for a, b in caption_ranges(text)]
    assert sorted(got) == sorted(lines + tags)
    ranges = caption_ranges(text)
    assert all(x[1] <= y[0] for x, y in zip(ranges, ranges[1:], strict=False))
    assert set(ranges) <= set(role_ranges(text))


@pytest.mark.parametrize(
    ("text", "handles"),
    [
        ("@jenny_b thanks!\nthanks @Kwame_M, see you\nping @maria.lopez99 about it", ["jenny_b", "Kwame_M", "maria.lopez99"]),
        ("DM me (@anne_k) or \"@jogliore\" or @Jenny.", ["anne_k", "jogliore", "Jenny"]),
        # negative controls: an address, masked words, common words, a name too long for a handle
        ("mail anne@x.org, he f^@ks it up, sh#@t, bad @ss, @SSholes!, @everyone @home", []),
        ("@" + "a" * 31 + "_x", []),
    ],
)
def test_handles_named_with_at_signs(text, handles):
    """Decision 0197: ``@`` and a handle, after a space, a line start or an opening bracket or
    quote, shaped like a handle or reading as a name; no address nor a word masked with ``@``."""
    from embedanon.structure import mention_ranges

    assert [text[a:b] for a, b in mention_ranges(text)] == handles


def test_tag_labels_are_voice_tags_angle_brackets_and_bold_at_a_line_start():
    """Decisions 0209 and 0210: where a label's tag opens, its speaker and where the tag ends, for
    the model's reading."""
    text = ("<v Amara Okafor>hi</v>\n<v.loud Dr. Ruiz:ok\n<kemi> hey\nDoctor: fine\nsee <this> too\n<b>x\n"
            "**Guy #1:** yes\n**Kemi Ade**: no\n__Nurse:__ ok\n**Bold** not a label\n**Mixed:__ no")
    assert [(text[o:a], text[a:b], text[b:c]) for o, a, b, c in tag_labels(text)] == [
        ("<v ", "Amara Okafor", ">"), ("<v.loud ", "Dr. Ruiz", ":"), ("<", "kemi", ">"),
        ("**", "Guy #1", ":**"), ("**", "Kemi Ade", "**:"), ("__", "Nurse", ":__")]
    assert tag_labels("Doctor: no tag") == []


def test_a_label_in_markdown_bold_is_a_label():
    """Decision 0210: ``**Doctor:** text`` (a Markdown transcript) was no label: ``**Hobo:**`` went
    to the detectors and came back a name, ``*Hobo``."""
    text = "**Hobo:** Once you go.\n**Girl #1**: Yeah.\n**Kemi:** Right."
    assert [(text[x.start:x.end], [text[a:b] for a, b in x.names]) for x in speaker_labels(text)] == [
        ("Hobo", []), ("Girl #1", []), ("Kemi", ["Kemi"])]


def test_a_lower_case_label_that_describes_its_speaker_is_a_role() -> None:
    """Decision 0231: in lower case a description lost the capitals that mark it (``Tween girl``:
    a capital, then lower case), and ``tween girl``, ``frat guy``, ``mta conductor`` were read as
    names (dev lower-cased: 10 of 248 role labels flagged, now 3). A name stays a name."""
    text = ("tween girl: omg\nfrat guy: dude\nmta conductor: next stop\nguido kid's mom: stop it\n"
            "maria: hi\ntunde bakare: ok\nmaria girl: hey\n")
    shown = {text[label.start:label.end]: ([text[a:b] for a, b in label.names], [text[a:b] for a, b in label.roles])
             for label in speaker_labels(text)}
    for described in ("tween girl", "frat guy", "mta conductor", "guido kid's mom"):
        assert shown[described] == ([], [described]), described
    assert shown["maria"][0] == ["maria"] and shown["tunde bakare"][0] == ["tunde bakare"]
    assert shown["maria girl"][0] == ["maria girl"]  # a common given name first: no description


def test_a_persons_possessive_in_a_label_is_a_name() -> None:
    """Decision 0264 (structure audit): ``Tamika's mum called again re:`` was a role label, kept as
    written in every scope, so hybrid scope released the name verbatim. A capitalized possessive
    that is no dictionary word and reads as a name is a name; ``Doctor's note``, ``Patient's
    wife`` stay roles."""
    for text, name in (("Tamika's mum called again re: transport", "Tamika"),
                       ("Beatriz's dad phoned re: the invoice", "Beatriz")):
        (label,) = speaker_labels(text)
        assert [text[a:b] for a, b in label.names] == [name]
    for text in ("Doctor's note: rest", "Patient's wife: hello", "God's plan: go"):
        (label,) = speaker_labels(text)
        assert label.names == ()


def test_a_handle_with_a_one_letter_suffix_is_no_log_entry() -> None:
    """Decision 0264 (structure audit): in ``[10:32] <kwame_a> ok``, the ``a`` of the handle was
    read as the article, so the line was a log entry and the handle (a name, 0182) stayed as
    written; ``<kwame_b>`` was found. A function word still makes a log entry."""
    text = "[10:32] <kwame_a> ok see you\n[10:33] <maria_b> fine"
    assert [[text[a:b] for a, b in label.names] for label in speaker_labels(text)] == [["kwame_a"], ["maria_b"]]
    assert speaker_labels("[10:32] Meeting with John Smith: ok") == []


def test_a_listed_surname_after_a_title_in_a_label_is_a_name() -> None:
    """Decision 0265: ``Dr. Smith:``, ``Mrs. Jones:`` and ``Dr. Baker:`` were role labels, since
    each surname is also an English word, so detected and hybrid scope kept them as written (a
    record that never named the doctor in its body released ``Dr. Smith:`` on every turn). After
    a title, listed names are names; ``Mr. President:`` and ``Madam Chair:`` stay roles."""
    for text, name in (("Dr. Smith: How are you?", "Smith"), ("Mrs. Jones: I feel dizzy.", "Jones"),
                       ("Dr. Baker: Since when?", "Baker")):
        (label,) = speaker_labels(text)
        assert [text[a:b] for a, b in label.names] == [name], text
    for text in ("Mr. President: thank you", "Madam Chair: order", "Nurse: ready"):
        (label,) = speaker_labels(text)
        assert label.names == (), text
