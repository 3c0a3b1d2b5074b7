"""Public attacker knowledge: an English word-frequency prior and a dictionary of person names.

Both come from public sources and are bundled with the package (see ``data/SOURCE.md`` and
``scripts/build_attack_data.py``), never from the corpus being attacked (the word list lives in
:mod:`embedanon.lexicon`, which the detectors read too):

* :func:`word_frequencies`: the 100,000 most frequent alphabetic English words of ``wordfreq``
  (Speer et al.), with their frequencies;
* :func:`name_dictionary`: first names and surnames of Faker's person providers, by culture group,
  with Faker's weights where it has them.

A stronger attacker also holds text of the corpus's kind (published notes of the same specialty,
other essays of the same course): :func:`text_frequencies` counts its words and
:func:`domain_frequencies` mixes them with the public list (``privacy-report --attacker-text``).
That text is the attacker's, passed in by the caller; nothing here reads the corpus attacked.

An :class:`AttackerVocabulary` is what an attack ranks: words (strings), the embedding id the
mechanism runs on for each (the word's own row, or its proxy when the embedding lacks it, see
:mod:`embedanon.runtime`) and a prior weight.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..errors import ConfigError
from ..lexicon import data_lines, word_frequencies
from ..text import lookup_key, tokenize
from ..vectors.store import EmbeddingStore

#: Weight of an embedding word absent from the frequency list, relative to the rarest listed word.
UNLISTED_WEIGHT = 0.5
#: Share of the attacker's own text in a domain prior (:func:`domain_frequencies`); the rest is the
#: public list. Fixed a priori at half and half, not fitted to any corpus the figures are measured on.
DOMAIN_SHARE = 0.5


def _aligned_words(texts: Iterable[str]) -> Iterator[str]:
    """Lookup keys of the alphabetic word tokens of ``texts``, the words the attacks align
    (hyphenated and mixed tokens are not counted)."""
    return (lookup_key(t.text) for text in texts for t in tokenize(text)
            if t.kind == "word" and t.text.isalpha())


def text_frequencies(texts: Iterable[str]) -> dict[str, float]:
    """{lookup key: relative frequency} of the words of ``texts`` the attacks align; empty when
    there are none."""
    counts = Counter(_aligned_words(texts))
    total = sum(counts.values())
    return {w: c / total for w, c in counts.items()} if total else {}


def has_aligned_words(texts: Iterable[str]) -> bool:
    """Whether :func:`text_frequencies` of ``texts`` would be non-empty (stops at the first word)."""
    return next(_aligned_words(texts), None) is not None


def domain_frequencies(own: dict[str, float], public: dict[str, float] | None = None, *,
                       share: float = DOMAIN_SHARE) -> dict[str, float]:
    """A domain prior: ``share`` of the mass from the attacker's own word frequencies ``own`` (e.g.
    :func:`text_frequencies`), the rest from the public list; each side is normalized first, so
    the result sums to 1.

    Args:
        own: {word: frequency} of the attacker's text, not empty.
        public: {word: frequency}; default :func:`word_frequencies`.
        share: in (0, 1].
    """
    if not own:
        raise ConfigError("the attacker's text has no words")
    if not 0.0 < share <= 1.0:
        raise ConfigError(f"share must be in (0, 1], got {share}")
    public = word_frequencies() if public is None else public
    p_total, o_total = sum(public.values()), sum(own.values())
    out = {w: (1.0 - share) * f / p_total for w, f in public.items()} if p_total > 0 else {}
    for w, f in own.items():
        out[w] = out.get(w, 0.0) + share * f / o_total
    return out


def public_prior(store: EmbeddingStore, frequencies: dict[str, float] | None = None) -> np.ndarray:
    """float64 (V,) prior over the embedding's words from a public frequency list.

    Words the list lacks get :data:`UNLISTED_WEIGHT` times the rarest listed frequency, so they
    can still be guessed. The result sums to 1.

    Args:
        store: the embedding (its ``words`` are lookup keys).
        frequencies: {word: frequency}; default :func:`word_frequencies`.
    """
    freqs = word_frequencies() if frequencies is None else frequencies
    if not freqs:
        raise ConfigError("the frequency list is empty")
    floor = UNLISTED_WEIGHT * min(freqs.values())
    prior = np.array([freqs.get(w, floor) for w in store.words], dtype=np.float64)
    return prior / prior.sum()


@dataclass(frozen=True, slots=True)
class NameEntry:
    """One dictionary name: lookup key, ``first`` or ``last``, culture group and weight (> 0)."""

    name: str
    part: str
    group: str
    weight: float

    def __post_init__(self) -> None:
        if not self.name or self.part not in ("first", "last") or not self.weight > 0:
            raise ValueError(f"invalid name entry (part {self.part!r}, weight {self.weight})")


@lru_cache(maxsize=1)
def name_dictionary() -> tuple[NameEntry, ...]:
    """The bundled public name dictionary (Faker's person names), one entry per (name, part, group)."""
    out = []
    for line in data_lines("names.tsv.gz"):
        name, part, group, weight = line.split("\t")
        out.append(NameEntry(name, part, group, float(weight)))
    return tuple(out)


@dataclass(frozen=True, slots=True, eq=False)
class AttackerVocabulary:
    """The words an attacker ranks, the mechanism input of each, and its prior weight.

    Attributes:
        words: lookup keys, unique.
        inputs: int64 (n,) embedding id the mechanism runs on for each word (-1: never placed,
            such a word is never guessed).
        prior: float64 (n,) non-negative weights (need not sum to 1).
        own: bool (n,) whether the word is itself an embedding row (``inputs`` is its own id).
    """

    words: tuple[str, ...]
    inputs: np.ndarray
    prior: np.ndarray
    own: np.ndarray

    def __post_init__(self) -> None:
        n = len(self.words)
        if not (self.inputs.shape == self.prior.shape == self.own.shape == (n,)):
            raise ValueError(f"attacker vocabulary arrays must all have shape ({n},)")
        if len(set(self.words)) != n:
            raise ValueError("attacker vocabulary words must be unique")
        if not np.all(np.isfinite(self.prior)) or (self.prior < 0).any():
            raise ValueError("attacker vocabulary prior must be finite and non-negative")

    def __len__(self) -> int:
        return len(self.words)

    def position(self) -> dict[str, int]:
        """{word: row} (built on each call; callers keep it)."""
        return {w: i for i, w in enumerate(self.words)}

    def by_input(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """CSR grouping by input: (inputs sorted unique, starts (u+1,), rows ordered by input)."""
        order = np.argsort(self.inputs, kind="stable")
        keys = self.inputs[order]
        uniq, starts = np.unique(keys, return_index=True)
        return uniq, np.append(starts, len(keys)).astype(np.int64), order.astype(np.int64)


ProxyFn = Callable[[list[str]], np.ndarray]


def build_vocabulary(words: Sequence[str], weights: Sequence[float] | np.ndarray, store: EmbeddingStore,
                     proxies: ProxyFn | None) -> AttackerVocabulary:
    """Attacker vocabulary of ``words`` (lookup keys; repeats have their weights added).

    Words in the embedding run the mechanism on their own row; the others on their proxy, from
    ``proxies(keys) -> int64 ids`` (-1 when a word cannot be placed; ``None``: never placed).
    """
    merged: dict[str, float] = {}
    for word, weight in zip(words, np.asarray(weights, dtype=np.float64).tolist(), strict=True):
        merged[word] = merged.get(word, 0.0) + weight
    keys = list(merged)
    ids = np.array([store.id_of(w) for w in keys], dtype=np.int64)
    own = ids >= 0
    missing = [w for w, o in zip(keys, own.tolist(), strict=True) if not o]
    if missing:
        placed = (np.asarray(proxies(missing), dtype=np.int64) if proxies is not None
                  else np.full(len(missing), -1, dtype=np.int64))
        if placed.shape != (len(missing),):
            raise ValueError(f"proxies() must return {len(missing)} ids, got shape {placed.shape}")
        ids[~own] = placed
    prior = np.array([merged[w] for w in keys], dtype=np.float64)
    return AttackerVocabulary(tuple(keys), ids, prior, own)


def embedding_vocabulary(store: EmbeddingStore, prior: np.ndarray) -> AttackerVocabulary:
    """The embedding's own words, each its own input, with ``prior`` (V,)."""
    prior = np.asarray(prior, dtype=np.float64)
    if prior.shape != (len(store),):
        raise ConfigError(f"prior must have {len(store)} weights, got shape {prior.shape}")
    ids = np.arange(len(store), dtype=np.int64)
    return AttackerVocabulary(tuple(store.words), ids, prior, np.ones(len(store), dtype=bool))
