"""The other names of a record, which a name surrogate must not resemble (issue 9's cross-name rule).

A NAME surrogate (and the name parts of an e-mail surrogate) must not equal or be a variant
(:func:`~embedanon.leakguard.keys_are_variants`) of a word of the record's other names. What is
compared are *pieces*: the lookup keys of a name's letter runs (:func:`name_keys`) split at
hyphens and spaces (:func:`pieces_of`).

:class:`AvoidNames` holds those pieces, built once per record: :meth:`AvoidNames.of` from texts,
or :meth:`AvoidNames.for_record` for a surrogate of each of the record's own names. A record
with :data:`INDEX_FROM` name keys or more gets a :class:`~embedanon.leakguard.VariantIndex`
instead, shared by every span of the record, so a candidate is tested by lookups instead of a scan
of every other name. Likewise the pieces a span adds (:meth:`AvoidNames.plus`: the other parts of
the name being replaced) are indexed, once per span, when there are :data:`INDEX_FROM` or more of
them, so a name of thousands of parts costs lookups per part, not a scan of every other part. The
answers are the same in every form (``tests/surrogates/test_avoid.py``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..leakguard import VariantIndex, keys_are_variants
from .keys import entity_key

#: name keys in a record (or pieces added at once by :meth:`AvoidNames.plus`) from which they are
#: looked up in an index instead of scanned
INDEX_FROM = 64

_LETTER_RUNS = re.compile(r"[^\W\d_]{2,}")
_SEPARATORS = re.compile(r"[\s\-\u2010]+")


def name_keys(text: str) -> frozenset[str]:
    """The keys of the words of ``text`` a surrogate must avoid (letter runs of two or more)."""
    return frozenset(entity_key(w) for w in _LETTER_RUNS.findall(text))


def key_pieces(word: str) -> list[str]:
    """The parts of a name key split at hyphens and spaces: ``pin-yu`` -> ``pin``, ``yu``."""
    return [p for p in _SEPARATORS.split(word) if p]


def pieces_of(keys: Iterable[str]) -> frozenset[str]:
    """The pieces of some name keys (:func:`key_pieces` of each)."""
    return frozenset(piece for word in keys for piece in key_pieces(word))


@dataclass(frozen=True, slots=True)
class AvoidNames:
    """The pieces a name surrogate must not be a variant of.

    Either the pieces themselves (tested one by one), or, for a record with many names, a
    :class:`~embedanon.leakguard.VariantIndex` shared by the record's spans plus further
    ``pieces``, less the index's ``removed`` pieces (looked up); and, for a span of many parts,
    the index ``added`` of its own pieces (looked up). :meth:`blocks` gives the same answer in
    every form: whether a piece is a variant of one of
    ``pieces | (index.keys - removed) | added.keys``.

    Attributes:
        pieces: pieces tested one by one.
        index: the record's shared index, or None.
        removed: pieces of ``index`` that are not to be avoided here (only with an index).
        added: an index of the many pieces one :meth:`plus` added (a span's own), or None.
    """

    pieces: frozenset[str] = frozenset()
    index: VariantIndex | None = None
    removed: frozenset[str] = frozenset()
    added: VariantIndex | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.pieces, frozenset) or not isinstance(self.removed, frozenset):
            raise TypeError("pieces and removed must be frozensets")
        if self.index is None and self.removed:
            raise ValueError("removed pieces need an index to be removed from")

    @classmethod
    def of(cls, texts: Iterable[str]) -> AvoidNames:
        """Every word of ``texts`` (e.g. the record's NAME spans), built once, shared by calls."""
        if isinstance(texts, str):
            raise TypeError("texts must be an iterable of names, not one str")
        return cls.for_record(list(texts))(None)

    @classmethod
    def for_record(cls, names: Sequence[str]) -> Callable[[str | None], AvoidNames]:
        """``others(original)``: what a surrogate of ``original``, one of the record's ``names``,
        must avoid: the keys of every name in ``names`` less those only ``original`` itself holds
        (all of them for ``None`` or a text not in ``names``). Past :data:`INDEX_FROM` keys, the
        record's pieces as one shared index, less the pieces only ``original``'s own keys hold.

        The keys are read in one pass, not one pass per name, and answers are cached per distinct
        text, so a record with thousands of names costs neither a scan per name nor per span."""
        own_keys = {n: name_keys(n) for n in dict.fromkeys(names)}
        texts_with = Counter(k for keys in own_keys.values() for k in keys)
        every = frozenset(texts_with)
        index: VariantIndex | None = None
        key_pieces_of: dict[str, frozenset[str]] = {}
        keys_with: Counter[str] = Counter()
        if len(every) >= INDEX_FROM:
            key_pieces_of = {k: pieces_of((k,)) for k in every}
            keys_with = Counter(q for pieces in key_pieces_of.values() for q in pieces)
            index = VariantIndex(keys_with)
        cache: dict[str | None, AvoidNames] = {}

        def others(original: str | None) -> AvoidNames:
            hit = cache.get(original)
            if hit is None:
                own = own_keys.get(original, frozenset()) if original is not None else frozenset()
                alone = {k for k in own if texts_with[k] == 1}
                if index is None:
                    hit = cls(pieces_of(every - alone))
                else:  # the pieces every key of which is one of `alone`'s
                    held = Counter(q for k in alone for q in key_pieces_of[k])
                    hit = cls(index=index, removed=frozenset(q for q, n in held.items() if n == keys_with[q]))
                cache[original] = hit
            return hit

        return others

    def plus(self, more: Iterable[str]) -> AvoidNames:
        """These pieces and ``more`` (the other parts of the name being replaced).

        :data:`INDEX_FROM` or more new pieces are indexed (once, here: a span calls this once
        and each of its parts adds its own few pieces to the result), fewer are scanned. Of
        many, those the record's index already holds are only taken out of ``removed`` (the
        name's own pieces, usually), so the record's index is not built a second time."""
        new = frozenset(more)
        if len(new) < INDEX_FROM:  # a part's own pieces: a small copy, not one of ``removed``
            return AvoidNames(self.pieces | new, self.index, self.removed, self.added)
        removed = self.removed
        if self.index is not None:
            removed, new = removed - new, new - self.index.keys
        if len(new) < INDEX_FROM:
            return AvoidNames(self.pieces | new, self.index, removed, self.added)
        if self.added is not None:
            new |= self.added.keys
        return AvoidNames(self.pieces, self.index, removed, VariantIndex(new))

    def blocks(self, piece: str) -> bool:
        """Whether ``piece`` is a variant of a piece to avoid."""
        if any(keys_are_variants(piece, other) for other in self.pieces):
            return True
        if self.added is not None and self.added.variants(piece):
            return True
        return self.index is not None and any(v not in self.removed for v in self.index.variants(piece))


#: nothing to avoid
NO_NAMES = AvoidNames()

__all__ = ["INDEX_FROM", "NO_NAMES", "AvoidNames", "key_pieces", "name_keys", "pieces_of"]
