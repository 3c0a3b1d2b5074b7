"""The proxies of the public out-of-vocabulary words and public names are cached on disk and equal
the computed ones; every other word (a private one) is computed in memory and never looked up in
the cache."""

from __future__ import annotations

import numpy as np
import pytest

from embedanon import Anonymizer
from embedanon.lexicon import word_frequencies
from embedanon.privacy.attacks import oov
from embedanon.vectors.compose import ComposedSearch


@pytest.mark.default_embedding
def test_cached_public_proxies_equal_the_computed_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    index = Anonymizer(seed=1).runtime.index
    public = oov.public_oov_words(index.store, word_frequencies(), oov.CACHED_PUBLIC_WORDS)
    rng = np.random.default_rng(4)
    names = oov.public_name_words(index.store)
    sample = [public[i] for i in rng.choice(len(public), 300, replace=False)] + \
        [names[i] for i in rng.choice(len(names), 100, replace=False)]
    private = ["zebulonius", "quexleyvan", "mrn88213x"]
    plain = oov.composed_proxies(index, cache_public=False)(sample + private)
    first = oov.composed_proxies(index)(sample + private)  # builds (or reads) the cache
    asked: list[list[str]] = []
    real = ComposedSearch.neighbors

    def counting(self: ComposedSearch, keys: list[str], k: int):  # type: ignore[no-untyped-def]
        asked.append(list(keys))
        return real(self, keys, k)

    monkeypatch.setattr(ComposedSearch, "neighbors", counting)
    second = oov.composed_proxies(index)(sample + private)
    assert plain.tolist() == first.tolist() == second.tolist()
    assert (plain >= 0).sum() > 350
    assert asked == [private]  # the public words came from the cache; the others were computed
    files = list((index.cache_path("x").parent).glob("*oov-proxies-*"))
    assert len(files) == 1


def test_public_words_are_the_most_frequent_missing_ones() -> None:
    index = Anonymizer(seed=1).runtime.index
    freqs = {"zzqa": 5.0, "the": 9.0, "zzqb": 7.0, "zzqc": 5.0}
    assert oov.public_oov_words(index.store, freqs, 2) == ["zzqb", "zzqa"]  # "the" is in the embedding
    bundled = oov.public_oov_words(index.store, word_frequencies(), 50)  # worked out once, copied
    bundled.append("changed")
    assert oov.public_oov_words(index.store, word_frequencies(), 50) == bundled[:-1]
