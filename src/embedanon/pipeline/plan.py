"""Lexical plans: how each distinct token is replaced, decided once per process and cached.

A plan is a pure, immutable function of the token (and the embedding): which parts are word
parts (and their embedding ids), which are digits/letters of a code, which are kept as they are
(joiners ``'`` ``’`` ``-`` and English clitics). Caching plans never changes output.

* ``int`` plan: the token is one word part found in the embedding: ``case * V + word_id``
  (the common case, kept as a bare int so the hot path can vectorise it);
* :class:`Composite` plan: a sequence of :data:`Part` s.

Words outside the embedding are *placed* in one batched call per plan request
(:meth:`Lexicon.plans`): their vector is composed from wordpieces, their nearest admissible
candidate becomes the *proxy* the mechanism runs on. Placement results live only in this
process's memory (proxies of private words are never written to disk).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

import numpy as np

from ..text import JOINERS, case_code, is_clitic, is_word_part, lookup_key, split_joined
from ..vectors.compose import ComposedSearch
from ..vectors.placements import PublicPlacements, load_public_placements
from ..vectors.store import EmbeddingStore
from .codes import code_chars

#: Guarded candidates kept per out-of-vocabulary word for the leak-guard redraw.
SAFE_K = 10
_CACHE_LIMIT = 500_000


@dataclass(frozen=True, slots=True)
class Word:
    """A word part to replace.

    Attributes:
        word_id: embedding id, the proxy of an out-of-vocabulary word, or -1 (no vector: a
            uniformly random candidate is drawn).
        case: case code of the original (:data:`embedanon.text.LOWER` ...).
        guard: lookup key of an out-of-vocabulary word (its outputs are checked against it);
            None for words of the embedding, whose neighborhoods are guarded already.
        safe: guarded nearest candidates of the out-of-vocabulary word (redraw pool).
    """

    word_id: int
    case: int
    guard: str | None = None
    safe: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Code:
    """Digits and letters of a number or code (combining marks already dropped)."""

    chars: str


Part = Union[str, Word, Code]


@dataclass(frozen=True, slots=True)
class Composite:
    """The plan of a token that is not a single word of the embedding.

    Attributes:
        parts: one part per non-empty joiner-split piece of the token, in order.
        words: its word parts, in order (what the mechanism replaces).
        chars: the drawn characters of each code part, in order.
        n_chars: total drawn characters.
    """

    parts: tuple[Part, ...]
    words: tuple[Word, ...]
    chars: tuple[str, ...]
    n_chars: int


Plan = Union[int, Composite]


class Lexicon:
    """Plans of tokens for one embedding, cached (bounded) in this process.

    Args:
        store: the embedding.
        composer: places out-of-vocabulary words (None: they get no vector).
    """

    def __init__(self, store: EmbeddingStore, composer: ComposedSearch | None) -> None:
        self.store = store
        self.composer = composer
        self.n_words = len(store)
        self._plans: dict[str, Plan] = {}
        self._codes: dict[str, int] = {}  # the int plans, and -1 for composite ones (same keys)
        self._public: PublicPlacements | None = None
        self._public_loaded = False

    def plans(self, tokens: list[str]) -> list[Plan]:
        """Plans of ``tokens`` (alphanumeric tokens of :func:`embedanon.text.split_words`).

        New tokens are planned together: their out-of-vocabulary parts are placed in one search,
        whose per-word answer does not depend on the batch. When the cache would outgrow its
        bound it is emptied first (plans are deterministic, so output is the same).
        """
        cache = self._plans
        out = list(map(cache.get, tokens))
        if None not in out:
            return out  # type: ignore[return-value]
        missing = [t for t in dict.fromkeys(tokens) if t not in cache]
        if len(cache) + len(missing) > _CACHE_LIMIT:
            cache.clear()
            self._codes.clear()
            missing = list(dict.fromkeys(tokens))  # every token of the call is planned again
        drafts: dict[str, tuple[Part, ...]] = {}
        id_of_key, n_words, codes = self.store.id_of_key, self.n_words, self._codes
        for token in missing:
            if token.isalpha() and token.isascii():  # the common case: one plain word
                word_id = id_of_key(token.lower())
                if word_id >= 0:  # what _finish makes of a single word of the embedding
                    cache[token] = codes[token] = case_code(token) * n_words + word_id
                    continue
            drafts[token] = self._parts(token)
        oov = list(dict.fromkeys(part.guard for parts in drafts.values() for part in parts
                                 if type(part) is Word and part.guard is not None))
        placed = self.place(oov)
        for token, parts in drafts.items():
            plan = cache[token] = self._finish(parts, placed)
            codes[token] = plan if type(plan) is int else -1
        return list(map(cache.__getitem__, tokens))  # every token is planned now

    def codes(self, tokens: list[str]) -> np.ndarray:
        """int64 (n,): the int plan of each token, -1 where its plan is a :class:`Composite`.

        Only for tokens just planned by :meth:`plans` (a C-speed lookup, no Python per token).
        """
        return np.fromiter(map(self._codes.__getitem__, tokens), dtype=np.int64, count=len(tokens))

    def place(self, keys: list[str]) -> dict[str, tuple[int, tuple[int, ...]]]:
        """Proxy and guarded candidates of each out-of-vocabulary key that has wordpieces.

        Public words come from the shipped table (:mod:`embedanon.vectors.placements`), the
        others are computed here; both are the same function of the word.
        """
        if not keys or self.composer is None:
            return {}
        if not self._public_loaded:
            self._public = load_public_placements(self.composer.index, SAFE_K)
            self._public_loaded = True
        out: dict[str, tuple[int, tuple[int, ...]]] = {}
        todo = keys
        if self._public is not None:
            todo = []
            for key in keys:
                row = self._public.get(key)
                if row is None:
                    todo.append(key)
                else:
                    out[key] = (row[0], row)
        if todo:
            ok, rows = self.composer.neighbors(todo, SAFE_K)
            for key, good, row in zip(todo, ok.tolist(), rows.tolist(), strict=True):
                if good:
                    out[key] = (row[0], tuple(row))
        return out

    def _parts(self, token: str) -> tuple[Part, ...]:
        if token.isalpha() and token.isascii():
            return (self._word(token),)
        pieces = [p for p in split_joined(token) if p]
        parts: list[Part] = []
        for i, piece in enumerate(pieces):
            if len(piece) == 1 and piece in JOINERS:
                parts.append(piece)
            elif is_word_part(piece):
                parts.append(piece if is_clitic(pieces, i) else self._word(piece))
            else:
                parts.append(Code(code_chars(piece)))
        return tuple(parts)

    def _word(self, part: str) -> Word:
        key = lookup_key(part)
        word_id = self.store.id_of_key(key)
        return Word(word_id, case_code(part), None if word_id >= 0 else key)

    def _finish(self, parts: tuple[Part, ...],
                placed: dict[str, tuple[int, tuple[int, ...]]]) -> Plan:
        done: list[Part] = []
        for part in parts:
            if type(part) is Word and part.guard is not None and part.guard in placed:
                proxy, safe = placed[part.guard]
                part = Word(proxy, part.case, part.guard, safe)
            done.append(part)
        if len(done) == 1 and type(done[0]) is Word and done[0].guard is None:
            return done[0].case * self.n_words + done[0].word_id
        chars = tuple(p.chars for p in done if type(p) is Code)
        return Composite(tuple(done), tuple(p for p in done if type(p) is Word), chars,
                         sum(map(len, chars)))


