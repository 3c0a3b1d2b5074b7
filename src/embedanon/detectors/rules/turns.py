"""Decode rules that read a conversation: the words after a greeting (``Hi I-An!``) and the
speakers of a transcript's turns.

Each rule takes the decoded spans (sorted, disjoint) and returns them with NAME spans added; see
:mod:`embedanon.detectors.rules` for the order they run in.
"""

from __future__ import annotations

import re
from collections import Counter

from ..base import Span
from ..features import fold
from .base import RuleContext
from .common import (
    HEADER_LABELS,
    HONORIFICS,
    NO_PROPAGATION,
    WORD,
    SpanLookup,
    capitalized,
    mixed_name_case,
)

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


def _opens_clause(text: str, i: int) -> bool:
    """Whether ``text[i]`` opens its line, a speaker's turn or a sentence: the line before it, less
    spaces, is empty or ends in ``.``, ``!``, ``?``, ``:``, ``>`` or ``-``."""
    before = text[text.rfind("\n", 0, i) + 1 : i].rstrip(" \t")
    return not before or before[-1] in ".!?:>-"


def name_after_greetings(context: RuleContext, spans: list[Span]) -> list[Span]:
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
        context: the text, its case, the score (the detector's threshold) and source of an added span.
        spans: spans, sorted and disjoint.

    Returns:
        The spans with the named greetings, sorted.
    """
    text, case, score, source = context.text, context.case, context.score, context.source
    lookup = SpanLookup(spans)
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
        if all(f in context.common for f in folded):
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
    " ".join(HEADER_LABELS) + " user assistant agent bot system support nurse host guest moderator "
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


def name_speaker_turns(context: RuleContext, spans: list[Span]) -> list[Span]:
    """In a transcript, the speakers are names or roles: when at least three lines open like a chat
    turn (``Word:``, ``Word>``, ``Word -``, an honorific allowed before the word) and one of their
    speakers is a NAME span or a role word (``Tutor``, ``Patient``), every other speaker word that
    opens two turns or more, is in no span, is not a role or section word (``Plan``,
    ``Assessment``) nor in the propagation stop list, and starts with a capital (any case in a text
    without capitals; upper case only in a text without lower-case letters) becomes a NAME span on
    each of its turns, with ``score``. A two-word speaker holding a NAME span (``Raakin Talha:``)
    vouches for the transcript too (round 17).

    Args:
        context: the text, its case, the score (the detector's threshold) and source of an added span.
        spans: spans, sorted and disjoint.

    Returns:
        The spans with the added names, sorted.
    """
    text, score, source = context.text, context.score, context.source
    if text.count("\n") < 2:
        return spans
    turns = [m.span(1) for m in _TURN.finditer(text)]
    pairs = [m.span(1) for m in _TURN2.finditer(text)]
    if len(turns) + len(pairs) < 3 or not turns:
        return spans

    lookup = SpanLookup(spans)
    known = [text[a:b] for a, b in turns + pairs
             if text[a:b].lower() in _TURN_WORDS
             or any(sp.label == "NAME" for sp in lookup(a, b))]
    if not known:
        return spans
    case = context.case
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
