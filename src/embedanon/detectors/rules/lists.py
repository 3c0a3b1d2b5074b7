"""The ``lists`` decode rule: the items of a list of names are names.

Three kinds of list are read, each by a function of its own, and the items they settle are added
by one :class:`_Lists` reader:

* inline lists ``A, B, C and D``, read sentence by sentence (:func:`_inline_lists`);
* numbered or bulleted lists, one item a line, the first one possibly on its header's line
  (``Attendees: 1. Dex``; :func:`_marked_lists`);
* unmarked line lists, three or more short lines (:func:`_line_lists`).

Then an item of a line list or of an inline list (not its first) that a NAME span covers in part
becomes one name when its words fit (:func:`_widened_items`).
"""

from __future__ import annotations

import re

from ..base import Span
from .base import RuleContext
from .common import (
    AFTER_TITLE_LOWER_NOT_NAMES,
    HONORIFICS,
    NO_PROPAGATION,
    QUANTIFIERS,
    WORD,
    SpanLookup,
    capitalized,
    mixed_name_case,
)

_LIST_SEP = re.compile(r",[ \t]+(?:(?:and|or)[ \t]+)?|[ \t]+(?:and|or|&)[ \t]+", re.IGNORECASE)
#: a header of one to three words and a colon, then spaces (``Attendees: ``; round 35)
_HEADER = rf"[ \t]*{WORD}(?:[ \t]+{WORD}){{0,2}}:[ \t]+"
#: a numbered or bulleted list item: the marker, then the item up to the end of line, a comma, a
#: parenthesis or a spaced dash
_LIST_ITEM = r"(?:\d{1,2}[.)]|[-*\u2022])[ \t]+([^\n,(]*?)[ \t]*(?:$|[,(]|[ \t]-[ \t])"
#: a line of a numbered or bulleted list, and the same after a header on the line (``Attendees:
#: 1. Dex``; round 35)
_LIST_LINE = re.compile(r"^[ \t]*" + _LIST_ITEM, re.MULTILINE)
_HEADED_LIST_LINE = re.compile("^" + _HEADER + _LIST_ITEM, re.MULTILINE)
_INITIAL = re.compile(r"[^\W\d_]\.")
#: a line that lists drugs, not people (the model takes some drug names for names)
_DRUG_LIST_CUE = re.compile(r"\b(?:medications?|meds|allerg\w*|drugs?|doses?|mg|tablets?|dressings?)\b",
                            re.IGNORECASE)
#: a short line that may be a list item: an optional marker, the item, then nothing, or a comma or
#: a parenthesis and the rest (not a spaced dash: ``Customer - Hi`` is a chat turn); and the same
#: after a header (``Participants: Hana Sahli, +1 ...``; round 35)
_ITEM = r"([^\s,(:][^,(:]*?)[ \t]*(?:$|[,(])"
_ITEM_LINE = re.compile(r"[ \t]*(?:(?:\d{1,2}[.)]|[-*\u2022])[ \t]+)?" + _ITEM)
_HEADED_ITEM_LINE = re.compile(_HEADER + _ITEM)
#: a sentence's end inside a line: ``.``, ``!``, ``?`` or ``;``, then spaces (round 36)
_SENTENCE_END = re.compile(r"[.!?;]+[ \t]+")

Items = list[tuple[int, int]]


def _sentence_opener(line: str, a: int, b: int, common: dict[str, float]) -> bool:
    """Whether ``line[a:b]`` opens the sentence ``line`` (:func:`_sentences`; only a colon may
    stand before it, a period inside the sentence ends an initial or an honorific) and is a
    public English word (``Then``, ``Basically``; ``common``: the word list)."""
    before = line[:a].rstrip()
    return (not before or before[-1] == ":") and line[a:b].lower() in common


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
    middle item of an inline list (round 36)."""
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


def _words_at(line: str, a: int, b: int) -> Items:
    """Word offsets in ``line[a:b]`` (relative to ``a``), trailing punctuation cut (an initial
    keeps its period)."""
    out = []
    for m in re.finditer(r"\S+", line[a:b]):
        x, y = m.span()
        while y - x > 1 and line[a + y - 1] in ".,;:!?)" and not _INITIAL.fullmatch(line[a + x : a + y]):
            y -= 1
        out.append((x, y))
    return out


class _Lists:
    """One text's lists as they are read: which item words fit a name, and the items added."""

    def __init__(self, context: RuleContext, spans: list[Span]) -> None:
        self.text = context.text
        self.case = context.case
        self.lookup = SpanLookup(spans)
        self.common = context.public
        self.added: list[Span] = []

    def fits(self, words: list[str]) -> bool:
        """Whether ``words`` may be an item of a list of names (an honorific may come first)."""
        return _item_words(words, self.case, titled=True)

    def plain(self, words: list[str]) -> bool:
        """:meth:`fits` without an honorific (what an inline item widens to)."""
        return _item_words(words, self.case)

    def settle(self, items: Items, loose: set[tuple[int, int]] | None = None) -> bool:
        """Add the free fitting items of a list of names (and those of ``loose``, middle items
        that pass as one capitalized word); whether it is one (at least two and more than half of
        its items hold a NAME span)."""
        lookup = self.lookup
        named = [sp for a, b in items for sp in lookup(a, b) if sp.label == "NAME"]
        n_named = sum(any(sp.label == "NAME" for sp in lookup(a, b)) for a, b in items)
        if n_named < 2 or 2 * n_named <= len(items):
            return False
        for a, b in items:
            if lookup(a, b):
                continue
            if loose is not None and (a, b) in loose or self.fits(self.text[a:b].split()):
                self.added.append(Span(a, b, "NAME", named[0].score, named[0].source))
        return True


def _first_item(lists: _Lists, line: str, chunk: tuple[int, int]) -> tuple[int, int] | None:
    """The first item of an inline list: the trailing fitting words (up to three) of ``chunk``,
    the text before the list's first separator; one word where case cannot tell where a name
    starts; ``(-1, -1)`` for a common word opening the sentence (``Then, Kirk and McCoy``);
    None when no word fits."""
    ws = _words_at(line, *chunk)
    at = chunk[0]
    k = len(ws)
    while k > 0 and len(ws) - k < 3 and lists.fits([line[at + a : at + b] for a, b in ws[k - 1 :]]):
        k -= 1
    if lists.case in ("lower", "upper") and k > 0:  # case cannot tell where the name starts: one word
        k = len(ws) - 1
    if k == len(ws):
        return None
    item = (chunk[0] + ws[k][0], chunk[0] + ws[-1][1])
    if k == len(ws) - 1 and _sentence_opener(line, *item, lists.common):
        return (-1, -1)  # an adverb opening a sentence is no item
    return item


def _later_items(lists: _Lists, line: str, chunks: Items, first: int, n_seps: int,
                 base: int) -> tuple[Items, set[tuple[int, int]], int]:
    """The items after the first of an inline list that starts at chunk ``first``: each middle
    chunk that fits whole (or is one capitalized word: ``loose``, in text offsets), then the
    leading fitting words of the chunk that ends the list (after an honorific). Returns the
    items (line offsets), the loose ones and the index of the chunk the list ended on."""
    items: Items = []
    loose: set[tuple[int, int]] = set()
    j = first + 1
    while j < len(chunks):
        a, b = chunks[j]
        cw = _words_at(line, a, b)
        words = [line[a + x : a + y] for x, y in cw]
        whole = lists.fits(words)
        lone = not whole and _lone_capitalized(words, lists.case)
        if (whole or lone) and j < n_seps:  # a middle item: the list goes on after it
            items.append((a + cw[0][0], a + cw[-1][1]))
            if lone:
                loose.add((base + a + cw[0][0], base + a + cw[-1][1]))
            j += 1
            continue
        # the last item: the leading fitting words of chunk j (after an honorific)
        m0 = m = int(len(cw) > 1 and _titled(words[0], lists.case))
        while m < min(m0 + 3, len(cw)) and lists.fits(words[: m + 1]):
            m += 1
        if m > m0:
            items.append((a + cw[0][0], a + cw[m - 1][1]))
        break
    return items, loose, j


def _inline_sentence(lists: _Lists, line: str, base: int) -> list[Items]:
    """Settle the inline lists of one sentence ``line`` (at text offset ``base``): three items or
    more, the last after ``and`` / ``or`` / ``&``. Returns each settled list's items after the
    first (text offsets), the ones an item found in part may widen in."""
    settled: list[Items] = []
    seps = list(_LIST_SEP.finditer(line))
    if len(seps) < 2:
        return settled
    bounds = [0] + [x for m in seps for x in m.span()] + [len(line)]
    chunks = [(bounds[2 * i], bounds[2 * i + 1]) for i in range(len(seps) + 1)]
    i = 0
    while i < len(seps):
        first = _first_item(lists, line, chunks[i])
        if first is None:
            i += 1
            continue
        later, loose, j = _later_items(lists, line, chunks, i, len(seps), base)
        items = [first, *later]
        last_sep = seps[min(j, len(seps)) - 1].group(0).strip(", \t").lower()
        if len(items) >= 3 and last_sep in ("and", "or", "&") and len(items) == j - i + 1:
            found = [(base + a, base + b) for a, b in items if a >= 0]
            if lists.settle(found, loose):  # the first item never widens: 'Meanwhile Danny'
                settled.append([(base + a, base + b) for a, b in later])
        i = max(j, i + 1)
    return settled


def _inline_lists(lists: _Lists) -> list[Items]:
    """Settle the inline lists of the text, sentence by sentence (round 36: the last item ends at
    its sentence's end, and a drug word elsewhere on a long line does not hide a list); a
    sentence that speaks of drugs (``medications``, ``mg``, ``doses`` ...) is left alone."""
    settled: list[Items] = []
    pos = 0
    for full in lists.text.split("\n"):
        start, pos = pos, pos + len(full) + 1
        for off, line in _sentences(full):
            if "," in line and not _DRUG_LIST_CUE.search(line):
                settled += _inline_sentence(lists, line, start + off)
    return settled


def _marked_lists(lists: _Lists) -> None:
    """Settle the numbered or bulleted list of the text (three lines or more; the first item may
    sit on its header's line)."""
    text = lists.text
    lines = [m.span(1) for m in _LIST_LINE.finditer(text) if m.end(1) > m.start(1)]
    lines = sorted(lines + [m.span(1) for m in _HEADED_LIST_LINE.finditer(text) if m.end(1) > m.start(1)])
    if len(lines) >= 3:
        lists.settle(lines)


def _line_blocks(text: str) -> list[Items]:
    """Runs of consecutive lines whose item (``_ITEM_LINE``) has one to three words, as offsets;
    a line ``Header: item`` (``_HEADED_ITEM_LINE``) opens a run."""
    blocks: list[Items] = []
    run: Items = []
    pos = 0
    for line in text.split("\n"):
        m = _ITEM_LINE.match(line)
        h = _HEADED_ITEM_LINE.match(line) if ":" in line else None
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


def _line_lists(lists: _Lists) -> list[Items]:
    """Settle the unmarked line lists of the text (round 17); returns the settled ones."""
    return [b for b in _line_blocks(lists.text) if len(b) >= 3 and lists.settle(b)]


def _widened_items(lists: _Lists, blocks: list[Items], inline: list[Items]) -> dict[Span, Span]:
    """NAME spans that cover part of an item of a settled line list (or a later item of a settled
    inline list), widened to the whole item when its words fit: ``{span: widened}``."""
    widened: dict[Span, Span] = {}
    text, lookup = lists.text, lists.lookup
    for block, item_fits in [(b, lists.fits) for b in blocks] + [(b, lists.plain) for b in inline]:
        for a, b in block:
            over = lookup(a, b)
            hit = [sp for sp in over if sp.label == "NAME"]
            inside = len(hit) == 1 and a <= hit[0].start and hit[0].end <= b
            if (inside and (hit[0].start, hit[0].end) != (a, b) and len(over) == 1
                    and item_fits(text[a:b].split())):
                widened[hit[0]] = Span(a, b, "NAME", hit[0].score, hit[0].source)
    return widened


def name_list_items(context: RuleContext, spans: list[Span]) -> list[Span]:
    """The items of a list of names are names: in an inline list ``A, B, C and D`` (three items or
    more, the last one after ``and`` / ``or`` / ``&``), a numbered / bulleted list or an unmarked
    line list (three lines or more), where at least two items and more than half of them hold a
    NAME span, every other item of one to three words or initials written like a name in the
    text's case (capitalized in mixed case; lower case in a text without capitals; upper case in a
    text without lower-case letters, round 32; none a function word), an honorific allowed first
    (``mrs. suomalainen``, round 33), that no span touches becomes a NAME span with the score of a
    named item.

    Inline lists are read sentence by sentence (round 36): a sentence that speaks of drugs
    (``medications``, ``mg``, ``doses`` ...) is left alone, since the model takes some drug names
    for names. Where case cannot tell where a name starts (a text without capitals, or without
    lower-case letters) the first item is one word; a first item that opens a sentence and is a
    public English word (``Then, Kirk and McCoy``) is no item; a middle item may be one
    capitalized word of any meaning in mixed-case text (``Li-Chen, April, Tiziana R. Tuzzolino
    and ...``). A numbered list's first item may sit on its header's line (round 35: ``Attendees:
    1. Dex``). An unmarked line list (round 17: ``Nomagugu Godide`` / ``Kai`` / ``Thembile``) ends
    at a line with a colon or a spaced dash (``Customer - Hi``); a line ending in ``:`` is a
    header, and what follows a comma or a parenthesis is not part of the item. An item of a line
    list, or an inline item after the first, that a NAME span covers in part (``thembile
    ndlandla`` with ``ndlandla`` found) becomes one name when its words fit.

    Args:
        context: the text and its case.
        spans: spans, sorted and disjoint.

    Returns:
        The spans with the added names, sorted.
    """
    if sum(sp.label == "NAME" for sp in spans) < 2:
        return spans
    lists = _Lists(context, spans)
    inline = _inline_lists(lists)
    _marked_lists(lists)
    blocks = _line_lists(lists)
    widened = _widened_items(lists, blocks, inline)
    if not lists.added and not widened:
        return spans
    kept = [widened.get(sp, sp) for sp in spans]
    taken = [(sp.start, sp.end) for sp in kept]
    extra: list[Span] = []
    for sp in lists.added:  # an item of a numbered list that is also a line list is added twice
        if not any(a < sp.end and sp.start < b for a, b in taken):
            extra.append(sp)
            taken.append((sp.start, sp.end))
    return sorted(kept + extra, key=lambda s: s.start)
