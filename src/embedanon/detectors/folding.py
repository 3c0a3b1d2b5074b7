"""A folded view of a text, for matching the allow and deny lists, with offsets back to the text.

Folding one character: its compatibility decomposition (NFKD: full-width ``Ｚ`` is ``Z``, the
ligature ``ﬁ`` is ``fi``), case-folded (``ß`` is ``ss``), decomposed again, less its combining
marks (``ó`` is ``o``, in NFC or NFD); a typographic apostrophe or hyphen is the ASCII one
(``O’Brien`` is ``O'Brien``); a format character (Unicode category ``Cf``: zero-width
space and joiners, soft hyphen, byte-order mark, bidirectional controls) folds to nothing. Folding
is per character, so every character of the folded text comes from exactly one character of the
original, and a match in the folded text maps back to whole original characters.

Accents are ignored on purpose: for a deny list, matching too much is the safe direction. The
allow list, where matching too much releases a word, compares with :func:`strict_key` instead:
width, case and format characters ignored, accents kept.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from ..text import without_format

_NOT_ASCII = re.compile(r"[^\x00-\x7f]+")
#: Typographic apostrophes and hyphens, folded to the ASCII character a list entry is typed with.
_TYPOGRAPHIC = {"\u2018": "'", "\u2019": "'", "\u02bc": "'", "\u2010": "-", "\u2011": "-"}


@lru_cache(maxsize=1 << 14)
def fold_char(ch: str) -> str:
    """The folded form of one character (possibly empty, possibly several characters)."""
    if ch.isascii():
        return ch.lower()  # what the steps below give for ASCII, without them
    if unicodedata.category(ch) == "Cf":
        return ""
    if ch in _TYPOGRAPHIC:  # NFKD keeps them apart from the ASCII ones
        return _TYPOGRAPHIC[ch]
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", ch).casefold())
    return "".join(c for c in folded if not unicodedata.category(c).startswith("M"))


def fold_key(value: str) -> str:
    """How a list entry or a span's text is compared: folded character by character, whitespace
    runs made one space, stripped (``"  van\\u00a0 der BERG "`` -> ``"van der berg"``)."""
    return " ".join("".join(fold_char(ch) for ch in value).split())


def strict_key(value: str) -> str:
    """How an allow entry and a span's text are compared: NFKC (full-width ``Ｚ`` is ``Z``),
    case-folded, format characters dropped, whitespace runs made one space, stripped; accents are
    kept (``René`` is not ``Rene``), so an allow entry never drops a word it does not spell."""
    if value.isascii():
        return " ".join(value.lower().split())
    text = without_format(unicodedata.normalize("NFKC", value))
    return " ".join(unicodedata.normalize("NFC", text.casefold()).split())


def folded_view(text: str) -> tuple[str, list[int] | None]:
    """``text`` folded character by character, and the original index of each folded character.

    Returns:
        ``(view, origins)``: ``view[j]`` comes from ``text[origins[j]]``. For an ASCII text the
        view is ``text.lower()``, offsets unchanged, and ``origins`` is None (the identity).
    """
    if text.isascii():
        return text.lower(), None
    parts: list[str] = []
    origins: list[int] = []
    done = 0
    for match in _NOT_ASCII.finditer(text):
        start, end = match.span()
        parts.append(text[done:start].lower())
        origins.extend(range(done, start))
        for i in range(start, end):
            piece = fold_char(text[i])
            parts.append(piece)
            origins.extend([i] * len(piece))
        done = end
    parts.append(text[done:].lower())
    origins.extend(range(done, len(text)))
    return "".join(parts), origins


def original_span(text: str, origins: list[int] | None, start: int, end: int) -> tuple[int, int]:
    """The characters of ``text`` that the folded characters ``[start, end)`` come from, widened
    over the characters right after them that fold to nothing (combining marks, zero-width
    characters), so a span never ends inside a combining sequence."""
    if origins is None:
        return start, end
    first, last = origins[start], origins[end - 1] + 1
    while last < len(text) and not fold_char(text[last]):
        last += 1
    return first, last


def folded_pattern(key: str) -> re.Pattern[str]:
    """Whole-word occurrences of a :func:`fold_key` in a :func:`folded_view`: a space of the key
    matches any whitespace run, a word character (letter, digit, ``_``) must not touch either end.
    """
    body = r"\s+".join(re.escape(word) for word in key.split(" "))
    return re.compile(r"(?<!\w)" + body + r"(?!\w)")
