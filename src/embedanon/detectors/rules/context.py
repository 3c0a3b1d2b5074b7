"""Decode rules that read the words around a name: coordinations (``A and B``), other
occurrences of a found name, ``Last, First`` header lines, honorifics, greetings and speaker
turns.

Each rule takes the decoded spans (sorted, disjoint) and returns them with NAME spans added or
widened; see :mod:`embedanon.detectors.rules` for the order they run in.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from ..base import Span
from ..features import common_words, fold
from .common import (
    AFTER_TITLE_LOWER_NOT_NAMES,
    HONORIFICS,
    NO_PROPAGATION,
    QUANTIFIERS,
    WORD,
    SpanLookup,
    capitalized,
    covered_tokens,
    mixed_name_case,
    text_case,
    title_word,
)

_CONNECTORS = frozenset({"and", "or", "&"})
#: a token of ``_CONNECTORS`` somewhere in a text (a letter run ``and`` / ``or`` in any case, or ``&``)
_CONNECTOR_WORD = re.compile(r"(?<![^\W\d_])(?:and|or)(?![^\W\d_])|&", re.IGNORECASE)


def extend_coordinations(
    text: str, starts: np.ndarray, ends: np.ndarray, spans: list[Span], *, case_aware: bool = False
) -> list[Span]:
    """Coordinated proper nouns share their type: in ``A and B`` / ``A, B`` / ``A or B`` where one
    side is a NAME span and the other side is one or two title-case words that are in no span and
    not followed (or, on the left, preceded) by another title-case word, the other side becomes a
    NAME span too, with the score of its partner (a bare comma does not link: ``Yesterday, Ana
    came``). Case-sensitive, so lower- and upper-case texts are left as decoded, unless
    ``case_aware``: then in a text without capitals the other side is one or two lower-case words
    (not in the stop lists) followed by no further word (``czermak and nomthandazo.``; not
    ``kimura and shibase started``). Upper-case texts stay as decoded either way.

    Args:
        text: the text.
        starts, ends: token offsets (``tokenize``).
        spans: decoded spans, sorted and disjoint.
        case_aware: also texts without capitals (round 15).

    Returns:
        The spans with the added names, sorted.
    """
    if not spans or not _CONNECTOR_WORD.search(text):
        return spans
    words = [text[a:b] for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
    n = len(words)
    taken = covered_tokens(starts, ends, spans)
    tok_of = {int(a): i for i, a in enumerate(starts.tolist())}
    end_of = {int(b): i for i, b in enumerate(ends.tolist())}
    added: list[Span] = []
    case = text_case(text) if case_aware else "mixed"
    if case == "lower":
        def fits(w: str) -> bool:
            return (len(w) > 1 and w.isalpha() and w not in NO_PROPAGATION
                    and w not in AFTER_TITLE_LOWER_NOT_NAMES and w not in QUANTIFIERS)

        def phrase_goes_on(w: str) -> bool:  # a lower-case name ends the list ('and shibase started': no)
            return w.isalpha() and w not in QUANTIFIERS
    else:  # in upper-case text a name looks like any other word ('INNUENDO AND BASELESS CONCLUSIONS')
        def fits(w: str) -> bool:
            return title_word(w)

        def phrase_goes_on(w: str) -> bool:
            return w[:1].isupper()

    def run(i: int, step: int) -> list[int]:
        """Up to two adjacent free fitting tokens from token i in direction step."""
        out: list[int] = []
        while 0 <= i < n and len(out) < 2 and not taken[i] and fits(words[i]):
            out.append(i)
            i += step
        if not out or (0 <= i < n and phrase_goes_on(words[i])):
            return []  # part of a longer capitalized phrase (an organization, a title): leave it
        return out

    for sp in spans:
        if sp.label != "NAME":
            continue
        first, last = tok_of.get(sp.start), end_of.get(sp.end)
        if first is None or last is None:
            continue
        for step, edge in ((1, last), (-1, first)):
            j = edge + step
            if step == 1 and 0 <= j < n and words[j] == ",":  # 'A, and B' (a bare comma is not enough)
                j += step
            if not (0 <= j < n and words[j].lower() in _CONNECTORS):
                continue
            j += step
            if step == -1 and 0 <= j < n and words[j] == ",":
                j += step
            got = run(j, step)
            if got:
                a, b = min(got), max(got)
                if b > a and starts[b] != ends[a] + 1:  # two words: only separated by one space
                    continue
                taken[a : b + 1] = True
                added.append(Span(int(starts[a]), int(ends[b]), "NAME", sp.score, sp.source))
    return sorted(spans + added, key=lambda s: s.start) if added else spans


def _shape(word: str) -> str | None:
    """'title' / 'upper' / 'lower' for a purely alphabetic word, else None."""
    if not word.isalpha():
        return None
    if word.islower():
        return "lower"
    if word.isupper():
        return "upper" if len(word) > 1 else "title"
    if word[0].isupper() and word[1:].islower():
        return "title"
    return None


def propagate_names(
    text: str, starts: np.ndarray, ends: np.ndarray, spans: list[Span], *, case_aware: bool = False
) -> list[Span]:
    """A name found once is a name everywhere in the same text: every word of a NAME span
    (alphabetic, two letters or more, not in ``NO_PROPAGATION``) marks its other occurrences that
    no span covers as NAME spans, with the score of the span it came from. Shapes must agree: a
    title- or upper-case word marks title- and upper-case occurrences, a lower-case word only
    lower-case ones (a name ``Will`` leaves the verb ``will`` alone). With ``case_aware`` an
    irregularly cased word (``COmfort``, ``McKay``) marks its occurrences of the very same spelling.
    Nothing outlives the call.

    Args:
        text: the text.
        starts, ends: token offsets (``tokenize``).
        spans: decoded spans, sorted and disjoint.
        case_aware: irregularly cased words propagate too, by exact spelling (round 15).

    Returns:
        The spans with the added names, sorted.
    """
    found: dict[tuple[str, bool | None], Span] = {}  # (word, capitalized? / None: exact) -> its span
    for sp in spans:
        if sp.label != "NAME":
            continue
        for w in re.findall(r"[^\W\d_]+", text[sp.start : sp.end]):
            shape = _shape(w)
            if len(w) < 2 or w.lower() in NO_PROPAGATION:
                continue
            if shape is not None:
                found.setdefault((w.lower(), shape != "lower"), sp)
            elif case_aware:
                found.setdefault((w, None), sp)
    if not found:
        return spans
    covered = covered_tokens(starts, ends, spans)
    keys = {word.lower() for word, _ in found}  # a token can only match a key it lowers to
    added: list[Span] = []
    for i in np.flatnonzero(~covered).tolist():
        a, b = int(starts[i]), int(ends[i])
        w = text[a:b]
        if w.lower() not in keys:
            continue
        shape = _shape(w)
        if shape is None:
            partner = found.get((w, None)) if case_aware and w.isalpha() else None
        else:
            partner = found.get((w.lower(), shape != "lower"))
        if partner is not None:
            added.append(Span(a, b, "NAME", partner.score, partner.source))
    return sorted(spans + added, key=lambda s: s.start) if added else spans


_LABELS_TEXT = (
    "name|patient|pt|student|pupil|client|resident|member|author|from|to|cc|attn|contact|parent|"
    "guardian|teacher|tutor|provider|physician|doctor|employee|customer|applicant"
)
#: ``LABEL: A, B`` on a line of its own (A and B single words)
_INVERTED = re.compile(
    rf"^[ \t]*(?:{_LABELS_TEXT})(?:[ \t]+name)?[ \t]*:[ \t]*({WORD})[ \t]*,[ \t]*({WORD})[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)


def _case(word: str) -> str | None:
    """The letter-case shape of a word whose hyphen / apostrophe parts are alphabetic."""
    parts = [p for p in re.split(r"['-]", word) if p]
    shapes = {_shape(p) for p in parts}
    return shapes.pop() if len(shapes) == 1 else None


def join_inverted_names(text: str, spans: list[Span], *, case_aware: bool = False) -> list[Span]:
    """``NAME: Okafor, Patience``: a line that is, after a header label (``name``, ``patient``,
    ``student`` ... optionally followed by ``name``, then ``:``), exactly ``A, B`` with single
    words A and B, where one is exactly a NAME span (A's may include the comma) and the other is in
    no span, has the same case shape and is not a function word, becomes one NAME span ``A, B``
    with its partner's score. With ``case_aware`` the case shapes need only agree on the first
    letter (``Adu, COmfort``, ``Ntanzi, S'fiso-sibongile``).

    Args:
        text: the text.
        spans: spans, sorted and disjoint.
        case_aware: compare first letters, not whole case shapes (round 15).

    Returns:
        The spans with the joined names, sorted.
    """
    if not spans or "," not in text or ":" not in text:
        return spans
    out = list(spans)
    for m in _INVERTED.finditer(text):
        (a0, a1), (b0, b1) = m.span(1), m.span(2)
        left = [i for i, sp in enumerate(out) if sp.start < a1 and a0 < sp.end]
        right = [i for i, sp in enumerate(out) if sp.start < b1 and b0 < sp.end]
        if bool(left) == bool(right) or len(left + right) != 1:
            continue  # both or neither side found already, or more than one span
        i = (left + right)[0]
        sp = out[i]
        named, free = ((a0, a1), (b0, b1)) if left else ((b0, b1), (a0, a1))
        # exactly the word; on the left also the word with its comma (the model often starts the
        # inverted name there and stops)
        tail = text[named[1] : sp.end].strip(" \t") if sp.end >= named[1] else None
        if sp.label != "NAME" or sp.start != named[0] or tail not in ("", "," if left else ""):
            continue
        other = text[free[0] : free[1]]
        if other.lower() in NO_PROPAGATION:
            continue
        if case_aware:
            if other[0].isupper() != text[named[0]].isupper():
                continue
        else:
            shape = _case(other)
            if shape is None or shape != _case(text[named[0] : named[1]]):
                continue
        out[i] = Span(a0, b1, "NAME", sp.score, sp.source)
    return out


#: ``Mr. He``, ``mr. fu``, ``Dr Okafor``: an honorific, an optional period, one space or tab, a word
_HONORIFIC = re.compile(rf"\b({'|'.join(HONORIFICS)})\.?[ \t]({WORD})", re.IGNORECASE)


#: words after an honorific that are not a name in any case (``Mr. and Mrs. Okafor``)
_AFTER_TITLE_NOT_NAMES = frozenset({"and", "or", "the", "a", "an", "of"})


def name_after_honorifics(text: str, spans: list[Span], *, score: float, source: str) -> list[Span]:
    """The word right after ``Mr``, ``Mrs``, ``Ms``, ``Mx``, ``Dr`` or ``Prof`` (a period optional,
    then one space or tab) is a name whatever it spells (``Mrs. He``): when no span covers it, it is
    alphabetic (hyphen / apostrophe parts allowed), has two letters or more and is not ``and``,
    ``or``, ``the``, ``a``, ``an``, ``of``, it becomes a NAME span with ``score``. A lower-case word
    counts only in a text without any upper-case letter (``mr. fu`` in a lower-case note, not
    ``Dr. said`` nor ``a 10 ms delay``) and when it is not in the propagation stop list or
    ``AFTER_TITLE_LOWER_NOT_NAMES`` (``the dr. said``); after an upper-case honorific only an
    upper-case word (``DR. OKAFOR``, not ``history of MS. Patient denies``).

    Args:
        text: the text.
        spans: spans, sorted and disjoint.
        score: the score of an added span (the detector's threshold).
        source: the detector name of an added span.

    Returns:
        The spans with the added names, sorted.
    """
    if not any(c in text for c in "MmDdPp"):
        return spans
    caseless = text.lower() == text  # lower-case words count only in text without capitals
    added: list[Span] = []
    lookup = SpanLookup(spans)
    for m in _HONORIFIC.finditer(text):
        a, b = m.span(2)
        word, title = m.group(2), m.group(1)
        shape = _case(word)
        if shape is None or len(word) < 2 or word.lower() in _AFTER_TITLE_NOT_NAMES:
            continue
        if shape == "lower" and (not caseless or word in NO_PROPAGATION
                                 or word in AFTER_TITLE_LOWER_NOT_NAMES):
            continue
        if title.isupper() and shape != "upper":  # 'history of MS. Patient denies ...'
            continue
        if lookup(a, b):
            continue
        added.append(Span(a, b, "NAME", score, source))
    return sorted(spans + added, key=lambda s: s.start) if added else spans


#: greetings, thanks and farewells a name follows (``Hi I-An!``, ``GOOD MORNING THEMBILE.``)
_GREETINGS = ("hi", "hello", "hey", "dear", "thanks", "thank you", "good morning", "good afternoon",
              "good evening", "sorry", "bye", "goodbye", "welcome")
#: a greeting, one space or a comma and a space, then one to three words joined by single spaces
#: and followed by ``,!.?;``, a line end or the text's end
_GREETING = re.compile(
    rf"(?<![^\W_])(?:{'|'.join(g.replace(' ', '[ ]') for g in _GREETINGS)}),?[ ]"
    rf"({WORD}(?:[ ]{WORD}){{0,2}})(?=[,!.?;]|[ \t]*(?:\r?\n|\Z))",
    re.IGNORECASE,
)
#: how many of the most frequent public English words a greeting's words may not all be
_GREETING_COMMON = 20_000


def _opens_clause(text: str, i: int) -> bool:
    """Whether ``text[i]`` opens its line, a speaker's turn or a sentence: the line before it, less
    spaces, is empty or ends in ``.``, ``!``, ``?``, ``:``, ``>`` or ``-``."""
    before = text[text.rfind("\n", 0, i) + 1 : i].rstrip(" \t")
    return not before or before[-1] in ".!?:>-"


def name_after_greetings(text: str, spans: list[Span], *, score: float, source: str) -> list[Span]:
    """``Hi I-An!``, ``TUTOR: GOOD MORNING THEMBILE.``: one to three words right after a greeting
    (:data:`_GREETINGS`, any case, at the start of a line, a speaker's turn or a sentence; then
    one space or ``, ``) and followed by ``,!.?;`` or a line end become one NAME span with
    ``score`` when every word has the text's case (capitalized in mixed text, hyphen pieces
    included; all capitals in upper-case text; lower case in text without capitals), none is a
    function word or an honorific, at least one is not among the 20,000 most frequent public
    English words (``Hi everyone!``, ``Dear Sir,``, ``Thank you all.`` never qualify), and the
    words touch no span but NAME spans inside them, which the new span replaces
    (``Hi [An] Su!`` → ``Hi [An Su]!``). The new span has ``score`` even where it replaces a
    confident span: after a greeting the comma ends the name, and *inverted_pairs*, which reads
    the score, must not join the message's first word to it (``Hi Chashida, Immunosuppression.``;
    round 34's check after its verdict). Round 34.

    Args:
        text: the text.
        spans: spans, sorted and disjoint.
        score: the score of an added span (the detector's threshold).
        source: the detector name of an added span.

    Returns:
        The spans with the named greetings, sorted.
    """
    case = text_case(text)
    lookup = SpanLookup(spans)
    common: frozenset[str] | None = None
    replaced: set[Span] = set()
    added: list[Span] = []
    for m in _GREETING.finditer(text):
        a, b = m.span(1)
        words = m.group(1).split(" ")
        if not _opens_clause(text, m.start()):
            continue
        if case == "mixed":
            shaped = all(mixed_name_case(w) for w in words)
        else:
            shaped = all(w.isupper() if case == "upper" else w.islower() for w in words)
        folded = [fold(w) for w in words]
        if not shaped or any(f in NO_PROPAGATION or f in HONORIFICS for f in folded):
            continue
        common = common if common is not None else common_words(_GREETING_COMMON)
        if all(f in common for f in folded):
            continue
        touched = lookup(a, b)
        if any(sp.label != "NAME" or sp.start < a or sp.end > b or sp in replaced for sp in touched):
            continue
        replaced.update(touched)
        added.append(Span(a, b, "NAME", score, source))
    if not added:
        return spans
    return sorted([sp for sp in spans if sp not in replaced] + added, key=lambda s: s.start)


#: role and section words that open a line the way a chat speaker does (``Tutor:``, ``Plan:``)
_TURN_WORDS_TEXT = (
    _LABELS_TEXT.replace("|", " ") + " user assistant agent bot system support nurse host guest moderator "
    "interviewer interviewee speaker caller operator counselor therapist clinician advisor instructor "
    "mentor mom dad mother father me q a question answer plan assessment impression history note "
    "diagnosis subjective objective procedure findings comment comments summary reason result results "
    "update edit subject re fwd warning error info example step tip date time phone email address age "
    "dob sex gender location hospital ward unit room medications allergies exam vitals mrn id ssn acct "
    "account"
)
_TURN_WORDS = frozenset(_TURN_WORDS_TEXT.split())
#: speaker words that never become names
_NOT_SPEAKERS = _TURN_WORDS | NO_PROPAGATION
#: a line opening like a chat turn: an optional honorific, one word, then ``:``, ``>`` or `` -``
_TURN = re.compile(
    rf"^[ \t]*(?:(?:{'|'.join(HONORIFICS)})\.?[ \t]+)?({WORD})(?:[ \t]*[:>]|[ \t]+-)[ \t]",
    re.MULTILINE | re.IGNORECASE,
)
#: the same with a two-word speaker (``Raakin Talha:``), which can only vouch for a transcript
_TURN2 = re.compile(rf"^[ \t]*({WORD}[ \t]+{WORD})(?:[ \t]*[:>]|[ \t]+-)[ \t]", re.MULTILINE)


def name_speaker_turns(
    text: str, spans: list[Span], *, score: float, source: str, two_word_speakers: bool = False
) -> list[Span]:
    """In a transcript, the speakers are names or roles: when at least three lines open like a chat
    turn (``Word:``, ``Word>``, ``Word -``, an honorific allowed before the word) and one of their
    speakers is a NAME span or a role word (``Tutor``, ``Patient``), every other speaker word that
    opens two turns or more, is in no span, is not a role or section word (``Plan``,
    ``Assessment``) nor in the propagation stop list, and starts with a capital (any case in a text
    without capitals; upper case only in a text without lower-case letters) becomes a NAME span on
    each of its turns, with ``score``.

    Args:
        text: the text.
        spans: spans, sorted and disjoint.
        score: the score of an added span (the detector's threshold).
        source: the detector name of an added span.
        two_word_speakers: a two-word speaker holding a NAME span (``Raakin Talha:``) vouches for
            the transcript too (round 17).

    Returns:
        The spans with the added names, sorted.
    """
    if text.count("\n") < 2:
        return spans
    turns = [m.span(1) for m in _TURN.finditer(text)]
    pairs = [m.span(1) for m in _TURN2.finditer(text)] if two_word_speakers else []
    if len(turns) + len(pairs) < 3 or not turns:
        return spans

    lookup = SpanLookup(spans)
    known = [text[a:b] for a, b in turns + pairs
             if text[a:b].lower() in _TURN_WORDS
             or any(sp.label == "NAME" for sp in lookup(a, b))]
    if not known:
        return spans
    case = text_case(text)
    count = Counter(text[a:b] for a, b in turns)
    added: list[Span] = []
    for a, b in turns:
        w = text[a:b]
        if count[w] < 2 or w in known or len(w) < 2 or w.lower() in _NOT_SPEAKERS:
            continue
        if case == "mixed" and not capitalized(w):
            continue
        if lookup(a, b):
            continue
        added.append(Span(a, b, "NAME", score, source))
    return sorted(spans + added, key=lambda s: s.start) if added else spans


#: the separators of an inline list: ``, `` / ``, and `` / `` and `` / `` or `` / `` & ``
