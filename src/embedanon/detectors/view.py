"""The text as the detectors read it: the same characters, less the web's tags and the typography.

**HTML tags** (decision 0173). Web exports (reviews, forum posts, learning-platform essays) keep
their line breaks as tags. The detectors read such a tag as words: on IMDB reviews the model took
``<br /><br />`` and the name after it for an ADDRESS, a URL ran on into ``<br``, and a name in
``<i>...</i>`` was missed. The detectors therefore read a **view** of the text, of the same
length, where each tag of :data:`BLOCK_TAGS` is spaces and a line break (the next line starts right
after the tag) and each tag of :data:`INLINE_TAGS` is spaces, and no span keeps a tag's
characters (:func:`~.merge.without_ranges`), so a surrogate never eats one.

Only bare tags are masked: a tag with attributes (``<a href="...">``, ``<p class="x">``) stays as
it is, since an attribute may hold a personal URL or e-mail that the detectors must see. Text
between angle brackets that is no tag of the lists (``<STUDENT>``, ``<3``, ``<browser>``) stays
too.

**Time stamps** (decision 0181). Chat and meeting tools write a clock time before each speaker
(``[00:01:23] Doctor: ...``, ``10:32 <kemi> hey``). The model, which learnt that a line opens
with its speaker, then read the time as an IP address or a date and missed the speaker's name
(``[00:00:07] JACK SPARROW:``). In the view such a stamp (:func:`~embedanon.structure.clock_ranges`:
a clock time without a date, before a speaker label) is spaces and a line break, like a block
tag, so the label opens a line again; no span keeps it.

**Caption files** (decision 0194). A WebVTT or SubRip file (a Zoom or Teams transcript) writes a
signature, then per cue an identifier, a timing line and the cue's text. The model read the
timing's short stamps as dates and phones (``00:04.500``), a Teams identifier as an IP address,
and ``WEBVTT`` as a name. In the view those lines (:func:`~embedanon.structure.cue_lines`) are
spaces and a line break; no span keeps them. A voice tag that opens a line (``<v Man>aulia, no
thanks``) ends in a colon in the view (``<v Man:aulia``), so its speaker reads as a label does,
``Man: aulia``; on dev's Teams exports recall rose 0.893 → 0.924 with it.

**The model's reading of a label written as a tag** (decisions 0209, 0210). The view keeps every
character in place, so a voice tag reads ``<v Man:aulia, no thanks</v>``, a chat log's turn
``<Man> aulia, no thanks`` and a Markdown transcript's ``**Man:** aulia, no thanks``; the model,
whose features see a label's line start and the space after its colon, read the addressee there
as a name with probability 0.31 or not at all, where ``Man: aulia`` gives 0.93, and missed
speakers in angle brackets (``<JACK SPARROW>``). The model alone therefore reads a further
:func:`model_reading` of the view, of the same length, where each such label's speaker and a
colon move to where its tag opens and the rest of the tag becomes spaces (``Man:   aulia, no
thanks    ``, ``</v>`` spaces too; ``Man:  aulia, no thanks``; ``Man:    aulia, no thanks``),
and the offsets of the speaker's tokens are moved back (:func:`moved_back`); every other
detector, rule and the verifier read the view.

**Typographic quotes** (decision 0174). Word processors and phones write ``’`` for the apostrophe
and ``“ ”`` ``‘ ’`` for quotes; the shipped model and rules were built on ASCII text, so a span
took the quotes in (``“Ann Lee”``, ``Grace’``) and ``Daniel’s`` was missed. In the view each
character of :data:`QUOTES` is its ASCII form, one character for one.
"""

from __future__ import annotations

import re

import numpy as np

from ..structure import VOICE_OPEN, clock_stamps, cue_lines, tag_labels

#: tags that end a line of text (their masked view is spaces and a line break)
BLOCK_TAGS = frozenset((
    "br", "p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "td", "th",
    "table", "thead", "tbody", "blockquote", "pre", "hr", "dl", "dt", "dd", "section", "article",
    "header", "footer", "figure", "figcaption", "caption",
))  # fmt: skip
#: tags inside a line (their masked view is spaces)
INLINE_TAGS = frozenset((
    "i", "b", "u", "s", "em", "strong", "span", "a", "font", "sup", "sub", "small", "big", "tt",
    "code", "mark", "q", "cite", "abbr", "del", "ins", "strike", "center",
))  # fmt: skip
#: typographic quotes and apostrophes -> their ASCII form (one character each)
QUOTES: dict[int, str] = {
    **{ord(c): "'" for c in "\u2018\u2019\u201a\u201b\u2032\u2039\u203a"},
    **{ord(c): '"' for c in "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"},
}
#: a voice tag at a line's start, up to the ``>`` that closes it (decision 0194)
_VOICE_END = re.compile(rf"^([ \t]*{VOICE_OPEN}[^<>:\n]{{1,80}}?)>", re.MULTILINE)
_VOICE_CLOSE = "</v>"
_ANY_QUOTE = re.compile("[" + "".join(chr(c) for c in QUOTES) + "]")
_TAGS = BLOCK_TAGS | INLINE_TAGS
#: a bare opening, closing or empty tag: ``<br>``, ``<br/>``, ``<br />``, ``</p>``, ``<I>``
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]{0,9})\s*/?>")


def markup_ranges(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` of every bare tag of :data:`BLOCK_TAGS` or :data:`INLINE_TAGS` in
    ``text``, sorted and disjoint (none when the text holds no ``<``)."""
    if "<" not in text:
        return []
    return [m.span() for m in _TAG.finditer(text) if m.group(2).lower() in _TAGS]


def masked(text: str, ranges: list[tuple[int, int]]) -> str:
    """``text`` with each range of :func:`markup_ranges` (or of
    :func:`~embedanon.structure.clock_ranges`) replaced by characters of its length: spaces and a
    line break for a block tag or a time stamp, spaces for an inline tag. Same length, so a span
    of the view is a span of ``text``."""
    if not ranges:
        return text
    pieces: list[str] = []
    at = 0
    for a, b in ranges:
        pieces.append(text[at:a])
        name = _TAG.fullmatch(text, a, b)
        block = name is None or name.group(2).lower() in BLOCK_TAGS
        pieces.append((" " * (b - a - 1) + "\n") if block else " " * (b - a))
        at = b
    pieces.append(text[at:])
    return "".join(pieces)


def _joined(view: str, stamps: list[tuple[int, int]]) -> str:
    """``view`` with each speaker line's time a colon and spaces and the line break after it a
    space (decision 0199): ``Doctor  0:04`` + a line break + the turn reads ``Doctor:      the
    turn``, the shape the model learnt."""
    chars = list(view)
    for a, b in stamps:
        chars[a:b] = ":" + " " * (b - a - 1)
        j = b
        while j < len(chars) and chars[j] in " \t":
            j += 1
        if j < len(chars) and chars[j] == "\r":
            chars[j] = " "
            j += 1
        if j < len(chars) and chars[j] == "\n":
            chars[j] = " "
    return "".join(chars)


def detection_view(text: str) -> tuple[str, list[tuple[int, int]]]:
    """The text as the detectors read it, of the same length (tags and time stamps masked by
    :func:`masked`, quotes folded by :data:`QUOTES`; ``text`` itself when it holds none), and the
    ranges of the tags and stamps, which no span may keep (sorted, disjoint)."""
    tags = markup_ranges(text)
    clocks, joins = clock_stamps(text) if ":" in text else ([], [])
    stamps = [*clocks, *cue_lines(text)]
    if stamps:
        tags = sorted(tags + stamps)
    view = masked(text, tags)
    if joins:
        view = _joined(view, joins)
    if "<v" in view:
        view = _VOICE_END.sub(lambda m: m.group(1) + ":", view)
    if _ANY_QUOTE.search(view) is not None:
        view = view.translate(QUOTES)
    return view, tags


def model_reading(view: str) -> tuple[str, list[tuple[int, int, int]]]:
    """The view as the model reads it (decisions 0209, 0210): the speaker of each label written in
    a tag (:func:`~embedanon.structure.tag_labels`) and a colon moved to where its tag opens, the
    rest of the tag spaces, and every ``</v>`` spaces when a voice tag was moved (``<v
    Man:aulia</v>`` -> ``Man:   aulia    ``, ``<Man> aulia`` -> ``Man:  aulia``, ``**Man:** aulia``
    -> ``Man:    aulia``), the same length; and the moved
    ranges ``(start, end, shift)``: a character of ``reading[start:end]`` is ``view``'s at ``+
    shift``, but the colon, which stands where the tag closes (``>``). ``view`` itself and no
    range when it holds no such label."""
    labels = tag_labels(view)
    if not labels:
        return view, []
    chars = list(view)
    moved: list[tuple[int, int, int]] = []
    for opens, start, end, closes in labels:
        chars[opens:closes] = view[start:end] + ":" + " " * (closes - opens - (end - start) - 1)
        moved.append((opens, opens + end - start + 1, start - opens))
    reading = "".join(chars)
    if "<v" in view:  # a moved speaker holds no '<': every '</v>' is the view's
        reading = reading.replace(_VOICE_CLOSE, " " * len(_VOICE_CLOSE))
    return reading, moved


def moved_back(starts: np.ndarray, ends: np.ndarray,
               moved: list[tuple[int, int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """Token offsets of a :func:`model_reading` as offsets of the view: a token inside a moved
    range shifts by its shift (a token never straddles one: a range is a speaker and its colon,
    with spaces or a line's start around it). Copies; the order stays sorted."""
    if not moved:
        return starts, ends
    starts, ends = starts.copy(), ends.copy()
    for a, b, shift in moved:
        lo, hi = np.searchsorted(starts, a), np.searchsorted(starts, b)
        starts[lo:hi] += shift
        ends[lo:hi] += shift
    return starts, ends
