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

from collections.abc import Collection, Sequence

import numpy as np

from ..._validate import positive_int
from ...vectors.index import NeighborIndex
from ...vectors.store import EmbeddingStore
from ..prior import AttackerVocabulary, NameEntry, ProxyFn, build_vocabulary, public_prior, word_frequencies


def composed_proxies(index: NeighborIndex) -> ProxyFn:
    """The pipeline's proxy rule: the nearest guarded candidate of the composed vector (-1: none).

    Proxies are computed in memory only and never written to disk.
    """
    from ...vectors.compose import ComposedSearch

    search = ComposedSearch(index)

    def proxies(keys: list[str]) -> np.ndarray:
        placed, rows = search.neighbors(list(keys), 1)
        return np.where(placed, rows[:, 0], -1).astype(np.int64)

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
    missing = sorted((w for w in freqs if store.id_of(w) < 0), key=lambda w: (-freqs[w], w))[:extra_words]
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
