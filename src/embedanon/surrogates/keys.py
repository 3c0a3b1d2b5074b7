"""Entity keys: one spelling of an entity for the contexts of its keyed draws, so every spelling
of one entity gets one surrogate."""

from __future__ import annotations

import unicodedata

from ..text import lookup_key, without_format

#: apostrophes and hyphens that join the pieces of one name, written as their ASCII forms in keys
_ASCII_JOINERS = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2010": "-", "\u2011": "-"})


def entity_key(text: str) -> str:
    """Normalized entity text for a context: compatibility forms folded (NFKC: full-width
    ``Ｓｍｉｔｈ``, ligatures), format characters dropped (zero-width spaces and joiners, soft
    hyphens), typographic apostrophes and hyphens written ``'`` and ``-`` (``O’Brien`` is
    ``O'Brien``), then :func:`~embedanon.text.lookup_key` (accents stripped, case folded) and spaces
    collapsed; so every spelling of one entity gets one surrogate."""
    if not text.isascii():
        text = without_format(unicodedata.normalize("NFKC", text)).translate(_ASCII_JOINERS)
    return " ".join(lookup_key(text).replace("\x00", "").split())
