"""Decode rules that read a conversation: the words after a greeting (``Hi I-An!``), the role
labels of a transcript (structure, never spans) and the names among its speakers.

Each rule takes the decoded spans (sorted, disjoint) and returns them with NAME spans added; see
:mod:`embedanon.detectors.rules` for the order they run in.
"""

from __future__ import annotations

import re
from collections import Counter

from ..._english import GREETING_ALTERNATION, opens_clause
from ...structure import handle, mention_ranges
from ..base import Span
from ..features import fold
from ..merge import without_ranges
from .base import RuleContext
from .common import ADDRESSES, HONORIFICS, NO_PROPAGATION, WORD, SpanLookup, mixed_name_case

#: a greeting, one space or a comma and a space, then one to three words joined by single spaces
#: and followed by ``,!.?;``, a line end or the text's end
_GREETING = re.compile(
    rf"(?<![^\W_])(?:{GREETING_ALTERNATION}),?[ ]"
    rf"({WORD}(?:[ ]{WORD}){{0,2}})(?=[,!.?;]|[ \t]*(?:\r?\n|\Z))",
    re.IGNORECASE,
)


def name_after_greetings(context: RuleContext, spans: list[Span]) -> list[Span]:
    """``Hi I-An!``, ``TUTOR: GOOD MORNING THEMBILE.``: one to three words right after a greeting
    (:data:`~embedanon._english.GREETINGS`, any case, at the start of a line, a speaker's turn or a
    sentence; then one space or ``, ``) and followed by ``,!.?;`` or a line end become one NAME span with
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
        if not opens_clause(text, m.start()):
            continue
        if case == "mixed":
            shaped = all(mixed_name_case(w) for w in words)
        else:
            shaped = all(w.isupper() if case == "upper" else w.islower() for w in words)
        folded = [fold(w) for w in words]
        if not shaped or any(f in NO_PROPAGATION or f in HONORIFICS for f in folded):
            continue
        if all(w.lower() in ADDRESSES for w in words):  # ``Thank you, Ma'am.``: an address by role
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


def drop_role_labels(context: RuleContext, spans: list[Span]) -> list[Span]:
    """Role labels are structure, never spans (:mod:`embedanon.structure`): the characters of a
    transcript's role labels (``Doctor:``, ``Guest_family:``, ``Girl #2:``, the title of ``Dr.
    Yaman:``) leave the spans. Runs early, so no later rule propagates a role word into the body
    (``doctor,``), and again last, so none adds one back.

    Args:
        context: the text and its speaker labels.
        spans: spans, sorted and disjoint.

    Returns:
        The spans less the role labels' characters, sorted and disjoint.
    """
    return without_ranges(context.text, spans, context.roles)


#: how many line-start labels make a transcript whose repeated speakers are names
_MIN_TURNS = 3


def name_speaker_turns(context: RuleContext, spans: list[Span]) -> list[Span]:
    """In a transcript, the speakers are names or roles: when at least three lines open with a
    label (:func:`embedanon.structure.speaker_labels`) and one of them is a role or holds a NAME
    span, every label part that may be a name (not a role: a rare word, a common given name, a
    listed name part), opens two turns or more (one is enough when another speaker's label is a
    found name) and is in no span becomes a NAME span on each of its turns, with ``score``
    (``ZOOT:`` beside ``GALAHAD:``; ``Blessing:`` beside ``Tutor:``; ``WILL TURNER:`` beside a
    found ``JACK SPARROW:``).

    Args:
        context: the text, its speaker labels, the score (the detector's threshold) and source
            of an added span.
        spans: spans, sorted and disjoint.

    Returns:
        The spans with the added names, sorted.
    """
    labels = context.labels
    if len(labels) < _MIN_TURNS:
        return spans
    text = context.text
    lookup = SpanLookup(spans)
    parts = [(a, b) for label in labels for a, b in label.names]
    named = {text[a:b] for a, b in parts if any(sp.label == "NAME" for sp in lookup(a, b))}
    roles = any(text[a:b].strip() for label in labels if not label.names for a, b in label.roles)
    if not named and not roles:
        return spans
    count = Counter(text[a:b] for a, b in parts)
    added = [Span(a, b, "NAME", context.score, context.source) for a, b in parts
             if (count[text[a:b]] >= 2 or named) and text[a:b] not in named and not lookup(a, b)]
    return sorted(spans + added, key=lambda s: s.start) if added else spans


def _alnum(text: str, a: int, b: int) -> bool:
    """Whether ``text[a:b]`` holds a letter or a digit (nothing when ``b <= a``)."""
    return any(c.isalnum() for c in text[a:b])


def name_chat_handles(context: RuleContext, spans: list[Span]) -> list[Span]:
    """A speaker label that is a chat handle naming a person (``<tom_h>``, ``maria_99:``; a name
    part of a label shaped by :func:`embedanon.structure.handle`) becomes one NAME span, with
    ``score``, on each of its turns and wherever the text names it as a whole word (``thanks
    tom_h``, ``@tom_h``), in place of the spans inside it (the model's ``dave_`` of ``<dave_k>``; it missed
    ``<tom_h>``): a handle is an account's identifier, whatever the decode read in it (``<dave_``
    too: the bracket is no part of the name). A span reaching out of it to a letter or digit is
    left alone. Decision 0182. So does a name part of a caption's voice tag (``<v Amara
    Okafor>``, decision 0194): what a meeting tool writes there is the participant's name, and the
    model, which learnt speakers as ``Name:``, read ``<v ARTHUR>`` as an address or nothing. So
    does a handle named with ``@`` anywhere (``thanks @jenny_b``, ``@maria.lopez99``; decision
    0197): an account's identifier, though no label names it.

    Args:
        context: the text, its speaker labels, the score (the detector's threshold) and source
            of an added span.
        spans: spans, sorted and disjoint.

    Returns:
        The spans with the handles, sorted and disjoint.
    """
    text = context.text
    handles = [(a, b) for label in context.labels for a, b in label.names if handle(text[a:b])]
    # a voice tag's speaker: a span there may reach into the tag (the model's ``<v ARTHUR``) but
    # not out of it; an account named with '@' (decision 0197): a span may hold the '@', no more
    voices = [(a, b, text.rfind("<", 0, label.start), label.end + 1) for label in context.labels
              if label.voice for a, b in label.names if not handle(text[a:b])]
    voices += [(a, b, a - 1, b) for a, b in mention_ranges(text)]
    if not handles and not voices:
        return spans
    if not handles:
        return _named_whole(text, spans, sorted(voices), context)
    named = {text[a:b] for a, b in handles}
    # ``thanks tom_h``, ``@tom_h``; not inside an address (``tom_h@x.org``, ``x.tom_h.org``)
    mentions = re.compile(r"(?<![\w.])(?:" + "|".join(map(re.escape, sorted(named, key=len, reverse=True)))
                          + r")(?![\w@]|\.\w)")
    ranges = sorted({*handles, *(m.span() for m in mentions.finditer(text))} - {v[:2] for v in voices})
    return _named_whole(text, spans, sorted([*((a, b, a, b) for a, b in ranges), *voices]), context)


def _named_whole(text: str, spans: list[Span], ranges: list[tuple[int, int, int, int]],
                 context: RuleContext) -> list[Span]:
    """``spans`` with each range ``(a, b, lo, hi)`` of ``ranges`` one NAME span ``a:b``, in place of
    the spans inside it: where ``lo:hi`` is ``a:b`` (a handle), unless a span reaches out of it to
    a letter or a digit; else unless a span reaches out of ``lo:hi`` (a voice tag, where the
    model's span took in ``<v``; a handle's ``@``)."""
    lookup = SpanLookup(spans)
    replaced: set[Span] = set()
    added: list[Span] = []
    for a, b, lo, hi in ranges:
        touched = lookup(a, b)
        if (lo, hi) == (a, b):
            if any(_alnum(text, sp.start, a) or _alnum(text, b, sp.end) for sp in touched):
                continue
        elif any(sp.start < lo or sp.end > hi for sp in touched):
            continue
        if len(touched) == 1 and touched[0].label == "NAME" and (touched[0].start, touched[0].end) == (a, b):
            continue
        replaced.update(touched)
        added.append(Span(a, b, "NAME", context.score, context.source))
    if not added:
        return spans
    return sorted([sp for sp in spans if sp not in replaced] + added, key=lambda s: s.start)
