"""Decode rules that read how a name is written beside other things: name particles (``d'``,
``'s``), a word written before its own e-mail address, and what an EMAIL span must hold (an
address; a chat handle ``@Liam`` is a name). Lists of names: :mod:`.lists`.
"""

from __future__ import annotations

import re

from ...lexicon import folded, name_parts
from ..base import Span
from .base import RuleContext
from .common import NO_PROPAGATION, WORD, SpanLookup, mixed_name_case

#: after a name: a Dutch / French / Italian particle written apart, then the rest of the surname
#: (``Ella-Yfke 's Gravensande``, ``Jake d' Heripon``; an initial's period may come first)
_PARTICLE_AFTER = re.compile(rf"(\.)?[ \t]+(?:'[sS]|[dDlL]')[ \t]+({WORD})")
_PARTICLE_END = re.compile(r"(?:^|[ \t])[dDlL]'$")
_WORD_AFTER = re.compile(rf"[ \t]+({WORD})")


def join_name_particles(context: RuleContext, spans: list[Span]) -> list[Span]:
    """A surname particle written apart belongs to the name before it: a NAME span followed by
    `` 's Word`` / `` d' Word`` / `` l' Word`` (after an initial, its period may come between), or
    ending on ``d'`` / ``l'`` and followed by a word, is widened over that word, when the word is
    in no span and capitalized (lower case in a text without capitals).

    Args:
        context: the text and its case.
        spans: spans, sorted and disjoint.

    Returns:
        The spans, widened where a particle follows.
    """
    text = context.text
    if "'" not in text:
        return spans
    caseless = context.caseless
    out = list(spans)
    for k, sp in enumerate(out):
        if sp.label != "NAME":
            continue
        hi = out[k + 1].start if k + 1 < len(out) else len(text)
        m = _PARTICLE_AFTER.match(text, sp.end)
        if m and m.group(1) and not re.search(r"(?:^|\W)[^\W\d_]$", text[sp.start : sp.end]):
            m = None  # a period after a name that is no initial ends a sentence
        if m is None and _PARTICLE_END.search(text[sp.start : sp.end]):
            m = _WORD_AFTER.match(text, sp.end)
        if m is None or m.end() > hi:
            continue
        word = m.group(m.lastindex or 0)
        if not (word.islower() if caseless else word[0].isupper()) or word.lower() in NO_PROPAGATION:
            continue
        out[k] = Span(sp.start, m.end(), sp.label, sp.score, sp.source)
    return out


#: ``Wage (wage94@example.com)``, ``Lungile <nyazitla_lungile@example.org>``
_WORD_BEFORE_EMAIL = re.compile(rf"({WORD})[ \t]*[(<][ \t]*([\w.+-]+)@[\w-]+(?:\.[\w-]+)+[ \t]*[)>]")
#: mailbox words that are no names
_MAILBOX_WORDS = frozenset({
    "info", "support", "sales", "admin", "office", "help", "service", "services", "team", "hr", "billing",
    "webmaster", "noreply", "contact", "mail", "email", "enquiries", "inquiries", "press", "media", "jobs",
    "careers", "hello",
})


def name_before_own_email(context: RuleContext, spans: list[Span]) -> list[Span]:
    """A word right before its own e-mail address in brackets is a name: ``Wage (wage94@...)``
    when the word (three letters or more, in no span, not a mailbox word such as ``Support`` or
    ``Info``) is one of the address's local-part pieces (split at ``.``, ``_``, ``-``, ``+`` and
    digits), whatever its case.

    Args:
        context: the text, the score (the detector's threshold) and source of an added span.
        spans: spans, sorted and disjoint.

    Returns:
        The spans with the added names, sorted.
    """
    text, score, source = context.text, context.score, context.source
    if "@" not in text or ("(" not in text and "<" not in text):  # what the pattern needs
        return spans
    added: list[Span] = []
    lookup = SpanLookup(spans)
    for m in _WORD_BEFORE_EMAIL.finditer(text):
        word, local = m.group(1), m.group(2).lower()
        a, b = m.span(1)
        if len(word) < 3 or word.lower() in _MAILBOX_WORDS or word.lower() in NO_PROPAGATION:
            continue
        if word.lower() not in {p for p in re.split(r"[._+\-\d]+", local) if p}:
            continue
        if lookup(a, b):
            continue
        added.append(Span(a, b, "NAME", score, source))
    return sorted(spans + added, key=lambda s: s.start) if added else spans


#: an e-mail address: a local part, ``@``, a domain with a dot
_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
#: a chat handle: ``@`` right before a word, not inside one (``@Liam``)
_HANDLE = re.compile(r"(?<![\w@])@([^\W\d_][\w'\u2019-]*)")


def email_shapes(context: RuleContext, spans: list[Span]) -> list[Span]:
    """An EMAIL span holds an e-mail address. The model reads other things around an ``@`` as
    one (``@Liam, @Aisha``, ``[@ comdlg32.dll``, ``@import``): a span with addresses in it keeps
    each address as its own span; a span without one is no e-mail: each chat handle in it whose
    word is written like a name (capitalized in text with both cases, a listed name part in text
    without capitals) becomes a NAME span over the word, and the rest goes.

    Args:
        context: the text and its case.
        spans: spans, sorted and disjoint.

    Returns:
        The spans, sorted and disjoint.
    """
    if not any(sp.label == "EMAIL" for sp in spans):
        return spans
    text = context.text
    parts = name_parts()
    out: list[Span] = []
    for sp in spans:
        if sp.label != "EMAIL":
            out.append(sp)
            continue
        piece = text[sp.start : sp.end]
        addresses = list(_ADDRESS.finditer(piece))
        if addresses:
            out.extend(Span(sp.start + m.start(), sp.start + m.end(), "EMAIL", sp.score, sp.source)
                       for m in addresses)
            continue
        for m in _HANDLE.finditer(piece):
            word = m.group(1)
            named = folded(word) in parts if context.caseless else mixed_name_case(word)
            if named and word.lower() not in NO_PROPAGATION:
                out.append(Span(sp.start + m.start(1), sp.start + m.end(1), "NAME", sp.score, sp.source))
    return out
