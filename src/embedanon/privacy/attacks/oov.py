"""Attacker vocabularies beyond the embedding: public words and person names through their proxies.

A word the embedding lacks is not replaced uniformly at random: the mechanism runs on its
*proxy*, the nearest guarded candidate of its composed wordpiece vector, and the proxy is a
public, deterministic function of the word. So the attacker inverts the replacement to proxies
and then to the words whose proxy it is (:mod:`embedanon.privacy.attacks.bayes` does both at
once). This module builds the vocabularies that attack ranks:

* :func:`extended_vocabulary`: the embedding's words plus the most frequent public words it
  lacks, all with public frequencies (for out-of-vocabulary tokens in general);
* :func:`names_vocabulary`: the public name dictionary, each culture group's first names and
  surnames given equal total weight (for tokens a detector, a span file or a capitalization cue
  marks as names).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence
from functools import lru_cache

import numpy as np

from ..._cache import load_or_build
from ..._validate import positive_int
from ...lexicon import word_frequencies
from ...vectors.index import NeighborIndex
from ...vectors.store import EmbeddingStore
from ..prior import AttackerVocabulary, NameEntry, ProxyFn, build_vocabulary, name_dictionary, public_prior

#: The public words outside the embedding whose proxies are kept in the disk cache: the most
#: frequent of the bundled list, which every out-of-vocabulary attack adds by default (computing
#: their proxies took about half the attacks' time on a 30-record review page).
CACHED_PUBLIC_WORDS = 20_000


def public_oov_words(store: EmbeddingStore, frequencies: dict[str, float], count: int) -> list[str]:
    """The ``count`` most frequent words of ``frequencies`` outside the embedding (ties by word);
    for the bundled list, worked out once per embedding and count."""
    if frequencies is word_frequencies():
        return list(_bundled_oov_words(store, count))
    return _most_frequent_missing(store, frequencies, count)


def _most_frequent_missing(store: EmbeddingStore, frequencies: dict[str, float], count: int) -> list[str]:
    return sorted((w for w in frequencies if store.id_of(w) < 0), key=lambda w: (-frequencies[w], w))[:count]


@lru_cache(maxsize=4)
def _bundled_oov_words(store: EmbeddingStore, count: int) -> tuple[str, ...]:
    return tuple(_most_frequent_missing(store, word_frequencies(), count))


def public_name_words(store: EmbeddingStore) -> list[str]:
    """The names of the bundled public name dictionary outside the embedding, sorted."""
    return sorted({e.name for e in name_dictionary() if store.id_of(e.name) < 0})


def composed_proxies(index: NeighborIndex, *, cache_public: bool = True) -> ProxyFn:
    """The pipeline's proxy rule: the nearest guarded candidate of the composed vector (-1: none).

    A word's proxy is a deterministic function of the word and the embedding. Proxies of the
    :data:`CACHED_PUBLIC_WORDS` most frequent public words outside the embedding (the bundled
    list) and of the bundled name dictionary's names outside it (public data both) are read from
    the disk cache when the index keeps one, and computed and stored there on first use; every
    other word's proxy (a private word among them) is computed in memory only and never written
    to disk. The cached answers equal the computed ones (tested).
    """
    from ...vectors.compose import SHORTLIST, ComposedSearch

    search = ComposedSearch(index)
    table: dict[str, int] | None = None if cache_public and index.use_disk_cache else {}

    def compute(keys: list[str]) -> np.ndarray:
        placed, rows = search.neighbors(keys, 1)
        return np.where(placed, rows[:, 0], -1).astype(np.int64)

    def public() -> dict[str, int]:
        nonlocal table
        if table is None:
            words = public_oov_words(index.store, word_frequencies(), CACHED_PUBLIC_WORDS)
            chosen = set(words)
            words += [w for w in public_name_words(index.store) if w not in chosen]
            digest = hashlib.sha256("\n".join(words).encode("utf-8")).hexdigest()[:16]
            path = index.cache_path(f"oov-proxies-s{SHORTLIST}-{len(words)}-{digest}")
            arrays = load_or_build(path, lambda: {"ids": compute(words)}, enabled=True,
                                   shapes={"ids": (len(words),)})
            table = dict(zip(words, arrays["ids"].tolist(), strict=True))
        return table

    def proxies(keys: list[str]) -> np.ndarray:
        keys = list(keys)
        known = public()
        out = np.array([known.get(k, -2) for k in keys], dtype=np.int64)
        todo = np.flatnonzero(out == -2)
        if len(todo):
            out[todo] = compute([keys[i] for i in todo.tolist()])
        return out

    return proxies


def extended_vocabulary(store: EmbeddingStore, proxies: ProxyFn | None, *, extra_words: int = 20_000,
                        frequencies: dict[str, float] | None = None,
                        include: Collection[str] = ()) -> AttackerVocabulary:
    """The embedding's words (prior from ``frequencies``) and the ``extra_words`` most frequent
    listed words it lacks, plus every word of ``include`` it lacks (an attacker's own words; each
    needs a frequency)."""
    extra_words = positive_int("extra_words", extra_words)
    freqs = word_frequencies() if frequencies is None else frequencies
    prior = public_prior(store, freqs)
    scale = sum(freqs.get(w, 0.0) for w in store.words) / max(float(prior.sum()), 1e-300)
    missing = public_oov_words(store, freqs, extra_words)
    chosen = set(missing)
    missing += sorted(w for w in include if w not in chosen and store.id_of(w) < 0)
    words = [*store.words, *missing]
    weights = np.concatenate([prior * scale, [freqs[w] for w in missing]])
    return build_vocabulary(words, weights, store, proxies)


def names_vocabulary(entries: Sequence[NameEntry], store: EmbeddingStore,
                     proxies: ProxyFn | None) -> AttackerVocabulary:
    """Names with weights normalized to equal mass per (culture group, part)."""
    totals: dict[tuple[str, str], float] = {}
    for e in entries:
        totals[(e.group, e.part)] = totals.get((e.group, e.part), 0.0) + e.weight
    words = [e.name for e in entries]
    weights = [e.weight / totals[(e.group, e.part)] for e in entries]
    return build_vocabulary(words, weights, store, proxies)
