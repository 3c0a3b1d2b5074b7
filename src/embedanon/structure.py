"""The structure of a text that is not its content: the speaker and role labels of transcripts.

A line of a transcript, a script or a chat log opens with who speaks: ``Doctor:``, ``teacher:``,
``Guest_family:``, ``Q:``, ``Girl #2:``, ``Teen girl on cell:``, ``BLACK KNIGHT:``, ``ARTHUR:``,
``Layla:``, in Markdown bold too (``**Doctor:**``, ``**Doctor**:``; decision 0210). A label that
names a role is structure: no detector may make a span of it (the model's tagger, trained on text
where a line-start word is often a name, reads ``Doctor:`` as one) and the detected and hybrid
scopes keep it as written; so nothing propagates from it either (the lower-case ``doctor,`` of
the body stays). A label that may be a person's name (``ARTHUR``,
``Layla``, ``mari``) is left to the detectors, whose spans then propagate to the same name in the
body, so label and body get the same surrogate.

What a role is, from public word lists only (:mod:`embedanon.lexicon`), never from the corpus:
a label part is a *role* when it holds a number (``Guy #1``, ``SCENE 24``) or a function word
(``KNIGHTS OF NI``; but the capitalized words after the function word that read as a person's
name are a name, ``Jessica Davis`` of ``Mother of Jessica Davis``, decision 0257; and a line
start holding a phone, a record number or a date is no label at all), when none of its words is
name-like, or when it is a description (a
capitalized word followed by lower-case words in a text with both cases, ``Irate man on cell``)
without a common given name. A word is *name-like* (:func:`~embedanon.lexicon.name_like`) when
it is not among the 20,000 most frequent public English words (``Bedevere``, ``mawu``), when it
is a given name that at least 0.1 % of the US population bears in Faker's en_US lists (``Jack``,
``Arthur``; ``Guy`` is 0.026 %), or a listed given name or surname below the 5,000 most frequent
words (``Gibbs``, ``Turner``; not ``Black`` nor ``Knight``); in a label, never when it is an English
noun for a kind of person (:func:`~embedanon.lexicon.person_noun`: ``Hobo``, ``CRONE``) or a one-word
coinage for one that is no listed name part (``Shopgirl``, ``Fratboy``, ``Mailwoman``). In a label
with capitals only its capitalized words count (``Older black gentleman``); ``Black guy`` is a
role. Titles (``Dr.``, ``Lord``) are structure too: a name span after one keeps only the name.

A caption file's lines that are no cue text (``WEBVTT``, a cue's identifier and its timing line,
``00:00:01.000 --> 00:00:04.250``) and WebVTT's cue tags are structure as well
(:func:`caption_ranges`, decision 0194); a voice tag's speaker (``<v Amara Okafor>``) is a label,
and so is a speaker on a line of its own with the time after it (``Speaker 2  0:04``, decision
0199), its time structure.

This module is the per-text structure pass that the detectors (:mod:`embedanon.detectors`) and
the scopes (:mod:`embedanon.pipeline.scope`) both read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ._english import TITLES
from .lexicon import dictionary_word, folded, name_like, name_parts, person_noun, weighty_name

#: a line-start label: one to six words (letters first; digits, ``#``, ``_``, ``-``, ``'``, ``.``,
#: ``&``, ``,`` and parentheses inside), then ``:`` or ``>`` and a space or the line's end; or the
#: same words in angle brackets, as chat logs write a speaker (``<teacher> hi``, ``<kemi> hey``)
_LABEL_WORDS = r"[^\W\d_][\w#'.&,()\- \t]{0,39}?"
#: a clock time (``10:32``, ``09:12:44``, ``00:01:23.456``, ``3:05 PM``)
_CLOCK = r"\d{1,2}:\d\d(?::\d\d(?:[.,]\d{1,3})?)?(?:[ \t]?[AaPp]\.?[Mm]\.?)?"
#: a numeric date before a clock time (``12/03/2020,``, ``2021-04-05``, ``05.04.21``)
_STAMP_DATE = r"\d{1,4}[./-]\d{1,2}[./-]\d{1,4},?[ \tT]"
#: what a chat or meeting tool writes before a speaker (decision 0181): a clock time, after a date
#: or not, in brackets or not, then a dash or not, and spaces (``[00:01:23] Doctor:``, ``10:32
#: <kemi> hi``, ``12/03/2020, 14:05 - Ann:``, ``2021-04-05 09:12:44 <dave_k>``); structure when it
#: holds no date
_STAMP = rf"[\[(]?(?P<date>{_STAMP_DATE})?{_CLOCK}[\])]?(?:[ \t]+[-\u2013|](?=[ \t]))?[ \t]+"
#: the opening of a WebVTT voice tag, up to its speaker (``<v ``, ``<v.loud ``; decision 0194)
VOICE_OPEN = r"<v(?:\.[\w-]+)*[ \t]+"
#: a line-start label, after a chat tool's time stamp or not: a voice tag's speaker, a speaker in
#: angle brackets or words before ``:`` or ``>``, those in Markdown bold too (``**Doctor:**``,
#: ``**Doctor**:``, ``__Doctor:__``; decision 0210)
_LABEL = re.compile(rf"^[ \t]*(?:(?P<stamp>{_STAMP})(?![AaPp]\.?[Mm]\b))?"
                    rf"(?:{VOICE_OPEN}(?P<voice>{_LABEL_WORDS})[>:]"
                    rf"|(?:<(?P<angle>{_LABEL_WORDS})>|(?P<bold>\*\*|__)?(?P<plain>{_LABEL_WORDS})"
                    rf"(?(bold)(?:(?P=bold)[ \t]*:|[ \t]*:(?P=bold))|[ \t]*[:>]))(?=[ \t]|\r?$))",
                    re.MULTILINE)
_SHORT_CLOCK = r"\d{1,2}:\d\d(?::\d\d)?"
#: a speaker on a line of its own, the time after it and the turn on the next line, as
#: transcription services export (decision 0199): ``Dr. Amara Okafor  0:04`` (Otter),
#: ``Speaker 2 (00:01:13):`` (Rev); the time and what joins it to the speaker are its ``stamp``
_SPEAKER_LINE = re.compile(
    rf"^[ \t]*(?P<plain>{_LABEL_WORDS})(?P<stamp>(?:(?:[ \t]{{2,}}|\t[ \t]*){_SHORT_CLOCK}"
    rf"|[ \t]+\({_SHORT_CLOCK}\)):?)[ \t]*(?=\r?\n[ \t]*\S)"
    r"(?P<voice>(?!))?(?P<angle>(?!))?(?P<bold>(?!))?(?P<date>(?!))?", re.MULTILINE)
#: how many speaker lines make a transcription service's export (one alone is a line of text)
_MIN_SPEAKER_LINES = 2
#: remarks inside a label: ``(wearing do-rag)``
_REMARK = re.compile(r"\([^)]*\)")
#: what joins several speakers in one label: ``ARTHUR and BLACK KNIGHT``, ``A & B``, ``A, B``
_JOIN = re.compile(r"[ \t]+(?:and|&)[ \t]+|,[ \t]*", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")
#: a word that owns what follows (``Maria's``): its owner
_POSSESSOR = re.compile(r"([^\W\d_]+)['\u2019]s")
#: lower-case words that may stand inside a name (``Maria de Souza``)
NAME_PARTICLES = frozenset({"de", "da", "di", "del", "della", "van", "von", "der", "den", "le", "la", "du",
                            "al", "el", "bin", "ibn", "ben", "dos", "das", "y"})
_MAX_WORDS = 6
#: words of a description, never of a name (``KNIGHTS OF NI``, ``Nanny to little boy``)
_FUNCTION_WORDS = frozenset({"of", "the", "on", "to", "with", "in", "at", "for", "from", "a", "an", "by"})
#: a meeting tool's chat export writes its speaker ``From John Smith to Everyone`` (decision
#: 0181): in such a label the people between ``from`` and ``to`` are read apart, so a name there
#: is left to the detectors (not a description's word, as in ``Nanny to little boy``)
_HEADER = re.compile(r"[ \t]*from[ \t]+(?=\S)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class SpeakerLabel:
    """One line-start label.

    Attributes:
        start, end: the label's characters (before its colon).
        roles: character ranges of the label that are structure (role words, titles, numbers,
            remarks, joiners): never part of a span.
        names: character ranges of the parts that may be a person's name: left to the detectors.
        clock: the time stamp a chat or meeting tool wrote before the label (``[00:01:23]``,
            ``10:32 -``) and the spaces after it, structure too; None when there is none or a
            date comes with it (a date is left to the detectors).
        voice: whether the label is the speaker of a caption's voice tag (``<v Amara Okafor>``,
            decision 0194), which a meeting tool writes as the participant's name or a role.
    """

    start: int
    end: int
    roles: tuple[tuple[int, int], ...]
    names: tuple[tuple[int, int], ...]
    clock: tuple[int, int] | None = None
    voice: bool = False


#: a one-word coinage for a kind of person: a word of two letters or more, then one of these
#: (``Shopgirl``, ``Fratboy``, ``Businessguy``, ``Mailwoman``, ``McChick``; decision 0169). No
#: ``man`` (``Norman``, ``Coleman``) nor ``gal`` (``Segal``): names end so.
_PERSON_COMPOUND = re.compile(r"[^\W\d_]{2,}(?:girl|boy|guy|dude|lady|chick|woman)", re.IGNORECASE)


def _name_like(word: str) -> bool:
    """:func:`~embedanon.lexicon.name_like` for a word or any piece of a joined word
    (``Okafor-Adeyemi``; not ``SHORT-TERM``), unless the word is a noun for a kind of person
    (:func:`~embedanon.lexicon.person_noun`: ``Hobo``, ``CRONE``, ``BO'SUN``), which no listed
    name part is, or a one-word coinage for one that is no listed name part (``Shopgirl``)."""
    if person_noun(word):
        return False
    if _PERSON_COMPOUND.fullmatch(word) and folded(word) not in name_parts():
        return False
    return any(name_like(piece) for piece in re.split(r"['\u2019-]", word))


#: a chat handle: one token whose letters are joined by ``_`` or ``.`` or that holds digits
#: (``tom_h``, ``maria_99``, ``jenny.b``, ``Guest_family``; decision 0182)
_HANDLE = re.compile(r"[^\W\d_][\w.]*\w")
_HANDLE_SIGNS = re.compile(r"[_.\d]")
_LETTER_RUNS = re.compile(r"[^\W\d_]+")


def handle(token: str) -> bool:
    """Whether ``token`` is shaped like a chat handle (:data:`_HANDLE`)."""
    return _HANDLE.fullmatch(token) is not None and _HANDLE_SIGNS.search(token) is not None


#: an account named in the body of a text: ``@`` after a space, a line's start or an opening
#: bracket or quote, and a handle (``@jenny_b``, ``@Kwame_M``, ``@maria.lopez99``; not
#: ``anne@x.org``, ``f#@king``, ``sh#@t``; decision 0197)
_MENTION = re.compile(r"(?:^|(?<=[\s(\[{\"'<]))@([^\W\d_]\w*(?:\.\w+)*)(?![\w@])", re.MULTILINE)


def mention_ranges(text: str) -> list[tuple[int, int]]:
    """The handles named with ``@`` in ``text`` (:data:`_MENTION`), without the ``@``, in order:
    up to 30 characters, shaped like a handle (:func:`handle`) or reading as a name
    (:func:`~embedanon.lexicon.name_like`: ``@jenny``, not ``@everyone``), and no word masked with
    ``@`` for ``a`` (``bad @ss``, ``@SSholes``: an English word with ``a`` for the ``@``)."""
    if "@" not in text:
        return []
    return [m.span(1) for m in _MENTION.finditer(text)
            if len(token := m.group(1)) <= 30 and (handle(token) or name_like(token))
            and not dictionary_word("a" + token)]


def _handle_is_name(token: str, angle: bool) -> bool:
    """Whether a handle names a person: a run of its letters, two or more, is a listed name part
    (in angle brackets, as chat logs write a speaker: or reads as a name, ``kemi_2``), no title
    and no noun for a kind of person (``tom_h``, ``maria_99``, ``dave.k``; not ``Guest_family``,
    ``Guest_clinician``, ``Doctor_1``, ``Speaker_A``, ``user99``, ``nsToolkitCompsCID.h:``)."""
    parts = name_parts()
    return any(len(run) > 1 and (folded(run) in parts or (angle and name_like(run)))
               and run.lower() not in TITLES and not person_noun(run)
               for run in _LETTER_RUNS.findall(token))


def _part_is_name(words: list[str], caseless: bool) -> bool:
    """Whether the words of one speaker (titles removed) may be a person's name."""
    if not words or any(w.lower() in _FUNCTION_WORDS for w in words):  # 'KNIGHTS OF NI', 'Guy on cell'
        return False
    if _described_in_lower_case(words, caseless):  # 'tween girl', 'frat guy' (decision 0231)
        return False
    shown = words if caseless or not any(w[:1].isupper() for w in words) else \
        [w for w in words if w[:1].isupper()]
    if not any(_name_like(w) for w in shown):
        return False
    return not (_descriptive(words, caseless) and not any(weighty_name(w, "first") for w in words))


#: words for a person that end a description of a speaker though a name list holds them
#: (``frat guy``, ``tourist lady``, ``mets fan``)
_PERSON_HEADS = frozenset(("guy", "guys", "lady", "ladies", "man", "men", "fan", "fans"))


def _described_in_lower_case(words: list[str], caseless: bool) -> bool:
    """Whether a label written in lower case describes its speaker (decision 0231): two words or
    more, a noun for a kind of person after the first (:func:`~embedanon.lexicon.person_noun` or
    :data:`_PERSON_HEADS`: ``tween girl``, ``mta conductor``, ``guido kid's mom``, ``mets fan
    nearby``), and no common given name first (``maria girl`` stays a name). In capitals the
    same labels read as descriptions by their case (:func:`_descriptive`)."""
    if not caseless or len(words) < 2 or weighty_name(words[0], "first"):
        return False
    keys = (re.sub(r"['\u2019]s$", "", w.lower()) for w in words[1:])  # text.py is no room below
    return any(k in _PERSON_HEADS or person_noun(k) for k in keys)


def _descriptive(words: list[str], caseless: bool) -> bool:
    """Whether the words read as a description: a capitalized word, then a lower-case word that
    is no name particle (``Irate man on cell``, ``Pt's wife Amara``), in a label with capitals."""
    return not caseless and bool(words) and words[0][:1].isupper() and any(
        w.islower() and w.lower() not in NAME_PARTICLES for w in words[1:])


def _objects(words: list[tuple[int, int, str]], caseless: bool) -> list[list[tuple[int, int, str]]]:
    """The runs of words after a function word of a role label that may be a person's name
    (decision 0257): ``Jessica Davis`` of ``Mother of Jessica Davis``, ``Zorvath Quillmere`` of
    ``Note for Zorvath Quillmere``; not ``Present Illness`` of ``History of Present Illness`` nor
    ``NI`` of ``KNIGHTS OF NI``: in a label with both cases, the capitalized words (not in
    capitals) that open the run, none of them a dictionary word. And, anywhere in such a label, a
    capitalized possessive that reads as a name and is no dictionary word (``Tamika`` of
    ``Tamika's mum called again re``; not ``Doctor's note``)."""
    out: list[list[tuple[int, int, str]]] = []
    runs: list[list[tuple[int, int, str]]] = []
    after = False
    for word in words:
        if word[2].lower() in _FUNCTION_WORDS:
            after = True
            runs.append([])
        elif after:
            runs[-1].append(word)
    for run in runs:
        # the capitalized words that open the run ('James Brown' of 'James Brown today.')
        head, titled = _without_titles(run[: next((i for i, w in enumerate(run) if not _capitalized(w[2])),
                                                   len(run))])  # 'Dr. Smith': a title makes it a name
        if head and not caseless and (titled or _object_is_name([w for _, _, w in head])):
            out.append(head)
    taken = {w[0] for run in out for w in run}
    for start, _, written in words:  # ``Tamika's mum called again re:``: a person's possessive (0264)
        owner = _POSSESSOR.fullmatch(written)
        if (owner and start not in taken and not caseless and _capitalized(written)
                and not dictionary_word(owner.group(1)) and _part_is_name([owner.group(1)], caseless=False)):
            out.append([(start, start + len(owner.group(1)), owner.group(1))])
    return sorted(out)


def _without_titles(words: list[tuple[int, int, str]]) -> tuple[list[tuple[int, int, str]], bool]:
    """``words`` less the titles that open them (``Dr.``, ``LORD``), and whether there were any."""
    titled = False
    while words and words[0][2].rstrip(".").lower() in TITLES:
        words, titled = words[1:], True
    return words, titled


def _listed_after_title(words: list[str]) -> bool:
    """Whether the words after a title are a listed name though each is also an English word
    (``Smith``, ``Baker``, ``Jones`` of ``Dr. Smith:``, decision 0265): at most three, each
    capitalized, a listed surname or given name and no word for a person (``Mr. President``)."""
    last, first = name_parts("last"), name_parts("first")
    return 0 < len(words) <= 3 and all(
        w[:1].isupper() and ((key := folded(w.rstrip("."))) in last or key in first) and not person_noun(w)
        for w in words)


def _capitalized(word: str) -> bool:
    return word[:1].isupper() and not (word.isupper() and len(word) > 1)


def _object_is_name(words: list[str]) -> bool:
    """Two name-like words or more, or one listed given name (``Kwame``; not a brand, ``Nextel``),
    and no dictionary word."""
    if any(dictionary_word(w.rstrip(".")) for w in words):
        return False
    return ((len(words) > 1 or folded(words[0]) in name_parts("first"))
            and _part_is_name(words, caseless=False))


def _runs(words: list[tuple[int, int, str]], header: bool) -> list[list[tuple[int, int, str]]]:
    """The words of one speaker as one run; in a chat export's header label, the runs between
    ``from`` and ``to`` (``From | John Smith | Everyone``)."""
    if not header:
        return [words]
    runs: list[list[tuple[int, int, str]]] = [[]]
    for word in words:
        if word[2].lower() in ("from", "to"):
            runs.append([])
        else:
            runs[-1].append(word)
    return [run for run in runs if run]


def _split(label: str, at: int, angle: bool = False) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The role and name ranges of one label text starting at offset ``at`` (``angle``: written in
    angle brackets, ``<kemi>``)."""
    roles: list[tuple[int, int]] = []
    names: list[tuple[int, int]] = []
    masked = _REMARK.sub(lambda m: " " * len(m.group()), label)
    pos = 0
    caseless = label.lower() == label
    header = _HEADER.match(masked) is not None
    for piece in [*_JOIN.finditer(masked), None]:
        a, b = pos, piece.start() if piece is not None else len(masked)
        pos = piece.end() if piece is not None else len(masked)
        token = masked[a:b].strip()
        if handle(token):  # ``<tom_h>``, ``maria_99:`` (decision 0182): a name whole, or a role
            if _handle_is_name(token, angle):
                start = a + masked[a:b].index(token)
                names.append((at + start, at + start + len(token)))
            continue
        numbered = any(c.isdigit() for c in masked[a:b])
        for words in _runs([(m.start(), m.end(), m.group()) for m in _WORD.finditer(masked, a, b)], header):
            words, titled = _without_titles(words)  # 'Dr. Yaman', 'LORD CUTLER BECKETT': titles are roles
            plain = [w for _, _, w in words]
            if words and not numbered and (_part_is_name(plain, caseless=caseless)
                                           or (titled and _listed_after_title(plain))):
                names.append((at + words[0][0], at + words[-1][1]))
            elif words and not numbered:
                names += [(at + run[0][0], at + run[-1][1]) for run in _objects(words, caseless)]
    cuts = sorted(names)
    pos = at
    for a, b in [*cuts, (at + len(label), at + len(label))]:
        if a > pos:
            roles.append((pos, a))
        pos = max(pos, b)
    return roles, names


def _handle_free(label: str, words: list[str]) -> list[str]:
    """``words`` less the pieces of a chat handle (``kwame_a``: its ``a`` is no article)."""
    if "_" not in label:
        return words
    return [w for t in label.split() if not handle(t.strip("<>[]():")) for w in _WORD.findall(t)]


def _log_entry(label: str, words: list[str]) -> bool:
    """Whether the words after a time stamp are a log entry rather than a speaker (decision 0181):
    they hold a function word or read as a description, and are no chat export's ``From ... to``."""
    if _HEADER.match(label) is not None:
        return False
    if any(w.lower() in _FUNCTION_WORDS for w in _handle_free(label, words)):
        return True
    return _descriptive(label.split(), label.lower() == label)  # ``Guest_family`` is one word here


def speaker_labels(text: str) -> list[SpeakerLabel]:
    """The line-start labels of ``text`` (``Word:`` ... up to six words before a colon or ``>`` and
    a space or the line's end, or in angle brackets: ``<Word>``; after a chat tool's time stamp
    or not), in text order, each split into role ranges and name ranges (module docstring). After
    a time stamp, words with a function word or that read as a description are a log entry, no
    label (``14:00 Meeting with John Smith:``, ``10:15 Pt's wife Amara:``), but for a chat
    export's ``From John Smith to Everyone``. A speaker on a line of its own with the time after it
    (:data:`_SPEAKER_LINE`, two such lines or more) is a label, its time the label's clock."""
    out = []
    for m, group in _label_matches(text):
        roles, names = _split(m.group(group), m.start(group), angle=group != "plain")
        out.append(SpeakerLabel(m.start(group), m.end(group), tuple(roles), tuple(names), _clock(m),
                                voice=group == "voice"))
    return out


def tag_labels(text: str) -> list[tuple[int, int, int, int]]:
    """The labels written in a tag: a caption's voice tag (``<v Amara Okafor>``, or
    ``<v Amara Okafor:`` as the detection view writes it), a chat log's ``<kemi>`` and a label in
    Markdown bold (``**Doctor:**``, ``**Doctor**:``); for each, in text order, where its tag opens
    (the ``<``, the ``**``), its speaker's ``(start, end)`` and where the tag and colon end. The
    model reads such a label as ``speaker:`` at the tag's start
    (:func:`~embedanon.detectors.view.model_reading`, decisions 0209 and 0210)."""
    if "<" not in text and "**" not in text and "__" not in text:
        return []
    out = []
    for m, group in _label_matches(text):
        if group == "plain" and m.group("bold") is None:
            continue
        start, end = m.span(group)
        opens = m.start("bold") if group == "plain" else text.rfind("<", 0, start)
        out.append((opens, start, end, m.end()))
    return out


#: a value no speaker label holds: five digits or more, or digits joined by ``-`` or ``/`` (a
#: phone, a record number, a date); a label's number is short (``Guy #1``, ``SCENE 24``, ``Room
#: 101``, ``Firefox 0.8``). Such a line start is text, which the detectors read (decision 0257)
_VALUE_IN_LABEL = re.compile(r"\d{5,}|\d[-/]\d")


def _label_matches(text: str) -> Iterator[tuple[re.Match[str], str]]:
    """The matches of :data:`_LABEL` in ``text`` that are labels, each with the name of the group
    that holds the label's words (``voice``, ``angle`` or ``plain``)."""
    colon = ":" in text
    if not colon and "<" not in text:
        return
    matches = list(_LABEL.finditer(text))
    lines = list(_SPEAKER_LINE.finditer(text)) if colon and "\n" in text else []
    if len(lines) >= _MIN_SPEAKER_LINES:
        matches = sorted(matches + lines, key=lambda m: m.start())
    for m in matches:
        group = next(g for g in ("voice", "angle", "plain") if m.group(g) is not None)
        if group == "plain" and not colon:  # 'Word>' labels only in a text that has 'Word:' ones too
            continue
        label = m.group(group)
        words = _WORD.findall(label)
        if len(words) > _MAX_WORDS:
            continue
        if _VALUE_IN_LABEL.search(label):  # 'Phone call with John at 555-123-4567:' (decision 0257)
            continue
        if m.group("stamp") is not None and _log_entry(label, words):
            continue  # '14:00 Meeting with John Smith:', '10:15 Pt's wife Amara:': a log entry
        yield m, group


def _clock(m: re.Match[str]) -> tuple[int, int] | None:
    """The time stamp of a label's match when it holds no date (:attr:`SpeakerLabel.clock`)."""
    return m.span("stamp") if m.group("stamp") is not None and m.group("date") is None else None


def clock_stamps(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """:func:`clock_ranges`, and those of them that follow the speakers of a transcription
    service's export (:data:`_SPEAKER_LINE`, decision 0199: ``Dr. Amara Okafor  0:04``) with what
    joins them to the speaker, from one pass over the labels; each sorted."""
    clocks: list[tuple[int, int]] = []
    joined: list[tuple[int, int]] = []
    for m, _ in _label_matches(text):
        clock = _clock(m)
        if clock is not None:
            clocks.append(clock)
            if m.re is _SPEAKER_LINE:
                joined.append(clock)
    return clocks, joined


def clock_ranges(text: str) -> list[tuple[int, int]]:
    """The time stamps (:attr:`SpeakerLabel.clock`) before the speaker labels of ``text``, sorted;
    what :func:`speaker_labels` gives, without splitting the labels."""
    return clock_stamps(text)[0]


#: a caption file's time stamp (decision 0194): WebVTT's, hours optional (``00:04.500``,
#: ``01:02:03.456``), or SubRip's (``00:00:01,000``)
_CUE_TIME = r"(?:\d{1,3}:)?[0-5]\d:[0-5]\d[.,]\d{3}"
#: a cue's timing line: two stamps joined by an arrow, then WebVTT's cue settings or nothing
#: (``00:01.000 --> 00:04.500 align:start position:10%``)
_CUE_TIMING = re.compile(rf"^[ \t]*{_CUE_TIME}[ \t]+-->[ \t]+{_CUE_TIME}"
                         r"(?:[ \t]+[\w-]+:[\w.%,-]+)*[ \t]*(?=\r?$)", re.MULTILINE)
#: a cue's identifier, the line before its timing: one token that holds a digit (``12``,
#: ``0f8b6c1e-2f4a-4c43-9a7e-2c3d1e5f6a7b/12-0``, ``intro-1``)
_CUE_ID = re.compile(r"[ \t]*(?=[^\s<>]*\d)[^\s<>]+[ \t]*\r?\n")
#: the signature that opens a WebVTT file (after a byte-order mark or not)
_WEBVTT = re.compile(r"\ufeff?WEBVTT(?=[ \t]|\r?\n|$)")
#: WebVTT's cue tags: a voice's opening tag, whose speaker is left to the detectors (``<v Amara
#: Okafor>``, ``<v.loud Dr. Lee>``: only ``<v `` and ``>`` are structure), the closing tags, class
#: spans (``<c.yellow>``), a language (``<lang en-GB>``) and the time stamps inside a cue
_VOICE = re.compile(rf"({VOICE_OPEN})[^<>:\n]{{1,80}}?([>:])")
_CUE_TAG = re.compile(r"</(?:v|c|lang|ruby|rt)>|<c(?:\.[\w-]+)*>"
                      r"|<lang[ \t]+[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*>"
                      r"|<(?:\d{1,3}:)?[0-5]\d:[0-5]\d\.\d{3}>")


def cue_lines(text: str) -> list[tuple[int, int]]:
    """The lines of a caption file in ``text`` that are no cue text (sorted, disjoint; decision
    0194): the ``WEBVTT`` signature at its start, each cue's timing line (``00:00:01.000 -->
    00:00:04.250``, SubRip's ``00:00:01,000 --> ...``, WebVTT's settings after) and the identifier
    on the line before it (``12``, a Teams export's ``0f8b6c1e-.../12-0``), without their line
    breaks. None when the text holds none of them."""
    out: list[tuple[int, int]] = []
    head = _WEBVTT.match(text)
    if head is not None:
        out.append(head.span())
    if "-->" not in text:
        return out
    for m in _CUE_TIMING.finditer(text):
        start = m.start() + len(m.group()) - len(m.group().lstrip())
        line = text.rfind("\n", 0, max(m.start() - 1, 0)) + 1
        ident = _CUE_ID.fullmatch(text, line, m.start()) if line < m.start() else None
        if ident is not None:
            word = ident.group().strip()
            at = line + ident.group().index(word)
            out.append((at, at + len(word)))
        out.append((start, m.end()))
    return out


def caption_ranges(text: str) -> list[tuple[int, int]]:
    """The structure of a caption file in ``text`` (sorted, disjoint; decision 0194): its
    :func:`cue_lines` and WebVTT's cue tags (``<v `` and ``>`` of a voice tag, whose speaker is
    left to the detectors; ``</v>``, ``<c.yellow>``, ``<lang en>``, ``<00:00:05.000>``)."""
    out = cue_lines(text)
    if "<" in text:
        tags = [piece for m in _VOICE.finditer(text) for piece in (m.span(1), m.span(2))]
        tags.extend(m.span() for m in _CUE_TAG.finditer(text))
        out = union_ranges(out, sorted(tags))
    return out


def union_ranges(first: list[tuple[int, int]], second: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The characters of two lists of sorted ranges, as one sorted, disjoint list."""
    out: list[tuple[int, int]] = []
    for a, b in sorted([*first, *second]):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def role_ranges(text: str) -> list[tuple[int, int]]:
    """The characters of ``text`` that are speaker or role structure (sorted, disjoint): the role
    ranges of its labels, the clock times before them and a caption file's structure
    (:func:`caption_ranges`)."""
    out: list[tuple[int, int]] = []
    for label in speaker_labels(text):
        if label.clock is not None:
            out.append(label.clock)
        out.extend(label.roles)
    captions = caption_ranges(text)
    return union_ranges(out, captions) if captions else out
