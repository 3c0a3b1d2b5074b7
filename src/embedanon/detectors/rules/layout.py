"""Decode rules that read how a text is laid out: list items and unmarked line lists of names,
name particles (``d'``, ``'s``) and a word written before its own e-mail address.
"""

from __future__ import annotations

import re

from ..base import Span
from .common import (
    AFTER_TITLE_LOWER_NOT_NAMES,
    HONORIFICS,
    NO_PROPAGATION,
    QUANTIFIERS,
    WORD,
    SpanLookup,
    capitalized,
    mixed_name_case,
    text_case,
)

_LIST_SEP = re.compile(r",[ \t]+(?:(?:and|or)[ \t]+)?|[ \t]+(?:and|or|&)[ \t]+", re.IGNORECASE)
#: a header of one to three words and a colon, then spaces (``Attendees: ``; round 35)
_HEADER = rf"[ \t]*{WORD}(?:[ \t]+{WORD}){{0,2}}:[ \t]+"
#: a numbered or bulleted list item: the marker, then the item up to the end of line, a comma, a
#: parenthesis or a spaced dash
_LIST_ITEM = r"(?:\d{1,2}[.)]|[-*\u2022])[ \t]+([^\n,(]*?)[ \t]*(?:$|[,(]|[ \t]-[ \t])"
#: a line of a numbered or bulleted list, and the same after a header on the line (``Attendees:
#: 1. Dex``; round 35, ``header_items``)
_LIST_LINE = re.compile(r"^[ \t]*" + _LIST_ITEM, re.MULTILINE)
_HEADED_LIST_LINE = re.compile("^" + _HEADER + _LIST_ITEM, re.MULTILINE)
_INITIAL = re.compile(r"[^\W\d_]\.")
#: a line that lists drugs, not people (the model takes some drug names for names)
_DRUG_LIST_CUE = re.compile(r"\b(?:medications?|meds|allerg\w*|drugs?|doses?|mg|tablets?|dressings?)\b",
                            re.IGNORECASE)


def _sentence_opener(line: str, a: int, b: int, *, sentence: bool = False) -> bool:
    """Whether line[a:b] opens a sentence and is a common English word (``Then``, ``Basically``);
    ``sentence``: ``line`` is one sentence (:func:`_sentences`), so a period inside it ends an
    initial or an honorific, no sentence (``TO MICHELLE-CAPA H. HALIM, ...``)."""
    from embedanon.privacy.prior import word_frequencies

    before = line[:a].rstrip()
    ends = ":" if sentence else ".!?:"
    return (not before or before[-1] in ends) and line[a:b].lower() in word_frequencies()


#: a sentence's end inside a line: ``.``, ``!``, ``?`` or ``;``, then spaces (round 36, ``name_series``)
_SENTENCE_END = re.compile(r"[.!?;]+[ \t]+")


def _sentences(line: str) -> list[tuple[int, str]]:
    """The sentences of a line with their offsets, cut after ``.``, ``!``, ``?`` or ``;`` and
    spaces; not after an initial (``H. Halim``) or an honorific (``mrs. suomalainen``)."""
    out: list[tuple[int, str]] = []
    a = 0
    for m in _SENTENCE_END.finditer(line):
        p = m.start()
        if line[p] == ".":
            w = p
            while w > 0 and line[w - 1].isalpha():
                w -= 1
            if p - w == 1 or line[w:p].lower() in HONORIFICS:
                continue
        out.append((a, line[a : m.end()]))
        a = m.end()
    out.append((a, line[a:]))
    return out


def _lone_capitalized(words: list[str], case: str) -> bool:
    """One word written like a name in mixed-case text, whatever it means (``April``, ``An``): a
    middle item of an inline list with ``series`` (round 36)."""
    return case == "mixed" and len(words) == 1 and re.fullmatch(WORD, words[0]) is not None \
        and mixed_name_case(words[0])


def _titled(word: str, case: str) -> bool:
    """Whether ``word`` is an honorific (``Mrs``, ``Dr.``) written in the text's case."""
    if word.rstrip(".").lower() not in HONORIFICS:
        return False
    return word.islower() if case == "lower" else word.isupper() if case == "upper" else word[0].isupper()


def _item_words(words: list[str], case: str, *, titled: bool = False) -> bool:
    """Words that can make up a name in a list: 1-3 of them, each a fitting word or an initial;
    with ``titled`` (round 33) an honorific may come first (``mrs. suomalainen``)."""
    if titled and len(words) > 1 and _titled(words[0], case):
        words = words[1:]
    if not 1 <= len(words) <= 3:
        return False
    for k, w in enumerate(words):
        if k > 0 and _INITIAL.fullmatch(w) and (w[0].islower() if case == "lower" else w[0].isupper()):
            continue
        if not re.fullmatch(WORD, w) or w.lower() in NO_PROPAGATION or w.lower() in QUANTIFIERS:
            return False
        if case == "lower" and (not w.islower() or w in AFTER_TITLE_LOWER_NOT_NAMES):
            return False
        if case == "upper" and (not w.isupper() or w.lower() in AFTER_TITLE_LOWER_NOT_NAMES):
            return False
        if case == "mixed" and not capitalized(w):
            return False
    return True


def name_list_items(text: str, spans: list[Span], *, line_lists: bool = False, upper: bool = False,
                    titled: bool = False, headed: bool = False, series: bool = False) -> list[Span]:
    """The items of a list of names are names: in an inline list ``A, B, C and D`` (three items or
    more, the last one after ``and`` / ``or`` / ``&``) or in a numbered / bulleted list (three lines
    or more), where at least two items and more than half of them hold a NAME span, every other
    item of one to three capitalized words or initials (lower-case words in a text without
    capitals; in upper-case text nothing, or see ``upper``) that no span touches becomes a NAME
    span with the score of a named item. An inline list on a line that speaks of drugs
    (``medications``, ``mg``, ``doses`` ...) is left alone: the model takes some drug names for
    names. In a text without capitals the first item
    is one word (nothing tells where a name starts); a first item that opens a sentence and is a
    common English word (``Then, Kirk and McCoy``; ``wordfreq``'s list) is no item.

    With ``line_lists`` (round 17) a list may also be three or more consecutive short lines without
    markers (``Nomagugu Godide`` / ``Kai`` / ``Thembile``; a line ending in ``:`` is a header, not
    an item; what follows a comma or parenthesis is not part of the item; a line with a colon or a
    spaced dash is no item, ``Customer - Hi``), and an item of such a
    line list that a NAME span only partly covers (``thembile ndlandla`` with ``ndlandla`` found)
    becomes one name when its words fit.

    With ``upper`` (round 32) it runs on upper-case text too, as on text without capitals (the
    other case that says nothing): an item is one to three upper-case words or initials, none a
    function word or one of :data:`AFTER_TITLE_LOWER_NOT_NAMES`, and an inline list's first item
    is one word (``CONTACTS: KAJJI BASHAARAT, LI, AURORA W. NIEMINEN AND YAWAR``).

    Args:
        text: the text.
        spans: spans, sorted and disjoint.
        line_lists: also unmarked line lists, and complete partly found line items.
        upper: also upper-case text.
        titled: an item may start with an honorific (round 33: ``thuthukile, mrs. suomalainen,
            and kaysan`` is a list of three).
        headed: a list's first item may sit on its header's line (round 35: ``Attendees: 1. Dex``
            opens a numbered list, ``Participants: Hana Sahli, +1 ...`` a line list).
        series: inline lists are read sentence by sentence, not line by line (round 36: so the
            last item ends at its sentence's end, ``..., AND PACE. TEMPERATURE: 97.9``, and a
            drug word elsewhere on a long line no longer hides the list); a middle item may be
            one capitalized word of any meaning in mixed-case text (``Li-Chen, April, Tiziana
            R. Tuzzolino and ...``, ``..., An and Juan Pablo Nuñez``); and an inline item the
            model found only part of (``Qi`` of ``and Qi Fan.``) becomes one name when its words
            fit, as in line lists, unless it is the first item (whose words are guessed back from
            the separator: ``Meanwhile [Danny], Rusty and ...``).

    Returns:
        The spans with the added names, sorted.
    """
    if sum(sp.label == "NAME" for sp in spans) < 2:
        return spans
    case = text_case(text)
    if case == "upper" and not upper:
        return spans
    added: list[Span] = []
    lookup = SpanLookup(spans)

    def fits(words: list[str]) -> bool:
        return _item_words(words, case, titled=titled)

    def plain(words: list[str]) -> bool:  # an inline item widens to its words, never to an honorific
        return _item_words(words, case)

    def settle(items: list[tuple[int, int]], loose: set[tuple[int, int]] | None = None) -> bool:
        """Add the free fitting items of a list of names (and those of ``loose``, middle items
        ``series`` lets pass); whether it is one (at least two and more than half of its items
        hold a NAME span)."""
        named = [sp for a, b in items for sp in lookup(a, b) if sp.label == "NAME"]
        n_named = sum(any(sp.label == "NAME" for sp in lookup(a, b)) for a, b in items)
        if n_named < 2 or 2 * n_named <= len(items):
            return False
        for a, b in items:
            if not lookup(a, b) and (loose is not None and (a, b) in loose or fits(text[a:b].split())):
                added.append(Span(a, b, "NAME", named[0].score, named[0].source))
        return True

    def words_at(line: str, a: int, b: int) -> list[tuple[int, int]]:
        """Word offsets in line[a:b], trailing punctuation cut (an initial keeps its period)."""
        out = []
        for m in re.finditer(r"\S+", line[a:b]):
            x, y = m.span()
            while y - x > 1 and line[a + y - 1] in ".,;:!?)" and not _INITIAL.fullmatch(line[a + x : a + y]):
                y -= 1
            out.append((x, y))
        return out

    # inline lists, line by line (with ``series``, sentence by sentence)
    inline: list[list[tuple[int, int]]] = []  # the inline lists of names, for ``series``
    pos = 0
    for full in text.split("\n"):
        start, pos = pos, pos + len(full) + 1
        for off, line in _sentences(full) if series else [(0, full)]:
            base = start + off
            if "," not in line or _DRUG_LIST_CUE.search(line):
                continue
            seps = list(_LIST_SEP.finditer(line))
            if len(seps) < 2:
                continue
            bounds = [0] + [x for m in seps for x in m.span()] + [len(line)]
            chunks = [(bounds[2 * i], bounds[2 * i + 1]) for i in range(len(seps) + 1)]
            i = 0
            while i < len(seps):
                # first item: the trailing fitting words of chunk i
                ws = words_at(line, *chunks[i])
                k = len(ws)
                while k > 0 and len(ws) - k < 3 and fits([line[chunks[i][0] + a : chunks[i][0] + b]
                                                          for a, b in ws[k - 1 :]]):
                    k -= 1
                if case in ("lower", "upper") and k > 0:  # case cannot tell where the name starts: one word
                    k = len(ws) - 1
                if k == len(ws):
                    i += 1
                    continue
                items = [(chunks[i][0] + ws[k][0], chunks[i][0] + ws[-1][1])]
                if k == len(ws) - 1 and _sentence_opener(line, *items[0], sentence=series):
                    items[0] = (-1, -1)  # 'Then, Kirk and McCoy': an adverb opening a sentence is no item
                loose: set[tuple[int, int]] = set()  # middle items only ``series`` lets in
                j = i + 1
                while j < len(chunks):
                    a, b = chunks[j]
                    cw = words_at(line, a, b)
                    words = [line[a + x : a + y] for x, y in cw]
                    whole = fits(words)
                    lone = not whole and series and _lone_capitalized(words, case)
                    if (whole or lone) and j < len(seps):  # a middle item: the list goes on after it
                        items.append((a + cw[0][0], a + cw[-1][1]))
                        if lone:
                            loose.add((base + a + cw[0][0], base + a + cw[-1][1]))
                        j += 1
                        continue
                    # the last item: the leading fitting words of chunk j (after an honorific, if allowed)
                    m0 = m = int(titled and len(cw) > 1 and _titled(words[0], case))
                    while m < min(m0 + 3, len(cw)) and fits(words[: m + 1]):
                        m += 1
                    if m > m0:
                        items.append((a + cw[0][0], a + cw[m - 1][1]))
                    break
                last_sep = seps[min(j, len(seps)) - 1].group(0).strip(", \t").lower()
                if len(items) >= 3 and last_sep in ("and", "or", "&") and len(items) == j - i + 1:
                    found = [(base + a, base + b) for a, b in items if a >= 0]
                    if settle(found, loose) and series:  # the first item never widens:
                        inline.append([(base + a, base + b) for a, b in items[1:]])  # 'Meanwhile Danny'
                i = max(j, i + 1)
    # numbered / bulleted lists
    lines = [m.span(1) for m in _LIST_LINE.finditer(text) if m.end(1) > m.start(1)]
    if headed:
        lines = sorted(lines + [m.span(1) for m in _HEADED_LIST_LINE.finditer(text) if m.end(1) > m.start(1)])
    if len(lines) >= 3:
        settle(lines)
    widened: dict[Span, Span] = {}
    blocks = [b for b in _line_blocks(text, headed=headed) if len(b) >= 3 and settle(b)] if line_lists else []
    for block, item_fits in [(b, fits) for b in blocks] + [(b, plain) for b in inline]:
        for a, b in block:  # an item the model found only part of
            over = lookup(a, b)
            hit = [sp for sp in over if sp.label == "NAME"]
            inside = len(hit) == 1 and a <= hit[0].start and hit[0].end <= b
            if (inside and (hit[0].start, hit[0].end) != (a, b) and len(over) == 1
                    and item_fits(text[a:b].split())):
                widened[hit[0]] = Span(a, b, "NAME", hit[0].score, hit[0].source)
    if not added and not widened:
        return spans
    kept = [widened.get(sp, sp) for sp in spans]
    taken = [(sp.start, sp.end) for sp in kept]
    extra: list[Span] = []
    for sp in added:  # an item of a numbered list that is also a line list is added twice
        if not any(a < sp.end and sp.start < b for a, b in taken):
            extra.append(sp)
            taken.append((sp.start, sp.end))
    return sorted(kept + extra, key=lambda s: s.start)


#: a short line that may be a list item: an optional marker, the item, then nothing, or a comma or
#: a parenthesis and the rest (not a spaced dash: ``Customer - Hi`` is a chat turn); and the same
#: after a header (``Participants: Hana Sahli, +1 ...``; round 35)
_ITEM = r"([^\s,(:][^,(:]*?)[ \t]*(?:$|[,(])"
_ITEM_LINE = re.compile(r"[ \t]*(?:(?:\d{1,2}[.)]|[-*\u2022])[ \t]+)?" + _ITEM)
_HEADED_ITEM_LINE = re.compile(_HEADER + _ITEM)


def _line_blocks(text: str, *, headed: bool = False) -> list[list[tuple[int, int]]]:
    """Runs of consecutive lines whose item (``_ITEM_LINE``) has one to three words, as offsets;
    with ``headed`` a line ``Header: item`` (``_HEADED_ITEM_LINE``) opens a run."""
    blocks: list[list[tuple[int, int]]] = []
    run: list[tuple[int, int]] = []
    pos = 0
    for line in text.split("\n"):
        m = _ITEM_LINE.match(line)
        h = _HEADED_ITEM_LINE.match(line) if headed and ":" in line else None
        if h and 1 <= len(h.group(1).split()) <= 3:
            if run:
                blocks.append(run)
            run = [(pos + h.start(1), pos + h.end(1))]
        elif m and 1 <= len(m.group(1).split()) <= 3 and not line.rstrip().endswith(":"):
            run.append((pos + m.start(1), pos + m.end(1)))
        else:
            if run:
                blocks.append(run)
            run = []
        pos += len(line) + 1
    if run:
        blocks.append(run)
    return blocks


#: after a name: a Dutch / French / Italian particle written apart, then the rest of the surname
#: (``Ella-Yfke 's Gravensande``, ``Jake d' Heripon``; an initial's period may come first)
_PARTICLE_AFTER = re.compile(rf"(\.)?[ \t]+(?:'[sS]|[dDlL]')[ \t]+({WORD})")
_PARTICLE_END = re.compile(r"(?:^|[ \t])[dDlL]'$")
_WORD_AFTER = re.compile(rf"[ \t]+({WORD})")


def join_name_particles(text: str, spans: list[Span]) -> list[Span]:
    """A surname particle written apart belongs to the name before it: a NAME span followed by
    `` 's Word`` / `` d' Word`` / `` l' Word`` (after an initial, its period may come between), or
    ending on ``d'`` / ``l'`` and followed by a word, is widened over that word, when the word is
    in no span and capitalized (lower case in a text without capitals).

    Args:
        text: the text.
        spans: spans, sorted and disjoint.

    Returns:
        The spans, widened where a particle follows.
    """
    if "'" not in text:
        return spans
    caseless = text.lower() == text
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


def name_before_own_email(text: str, spans: list[Span], *, score: float, source: str) -> list[Span]:
    """A word right before its own e-mail address in brackets is a name: ``Wage (wage94@...)``
    when the word (three letters or more, in no span, not a mailbox word such as ``Support`` or
    ``Info``) is one of the address's local-part pieces (split at ``.``, ``_``, ``-``, ``+`` and
    digits), whatever its case.

    Args:
        text: the text.
        spans: spans, sorted and disjoint.
        score: the score of an added span (the detector's threshold).
        source: the detector name of an added span.

    Returns:
        The spans with the added names, sorted.
    """
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
