"""The bundled public attacker data: word frequencies and the name dictionary."""

from __future__ import annotations

import numpy as np
import pytest

from embedanon.errors import ConfigError
from embedanon.privacy.prior import (
    UNLISTED_WEIGHT,
    build_vocabulary,
    domain_frequencies,
    name_dictionary,
    public_prior,
    text_frequencies,
    word_frequencies,
)
from embedanon.vectors.store import EmbeddingStore


def test_word_frequencies_are_a_public_english_list() -> None:
    freqs = word_frequencies()
    assert len(freqs) == 100_000
    assert max(freqs, key=freqs.__getitem__) == "the"
    assert freqs["patient"] > freqs["echocardiogram"] > 0


def test_public_prior_normalizes_and_floors_unlisted_words() -> None:
    store = EmbeddingStore("p", ["the", "cat", "zzqx"], np.eye(3, dtype=np.float32))
    prior = public_prior(store, {"the": 0.5, "cat": 0.1})
    assert prior.sum() == pytest.approx(1.0)
    assert prior[0] / prior[1] == pytest.approx(5.0)
    assert prior[2] / prior[1] == pytest.approx(UNLISTED_WEIGHT)


def test_name_dictionary_has_every_culture_group() -> None:
    entries = name_dictionary()
    groups = {e.group for e in entries}
    assert {"american", "european", "hispanic", "african", "south_asian"} <= groups
    assert all(e.name.isascii() and e.name.isalpha() and e.name == e.name.lower() for e in entries)


def test_build_vocabulary_merges_repeats_and_uses_proxies() -> None:
    store = EmbeddingStore("p", ["the", "cat"], np.eye(2, dtype=np.float32))
    vocab = build_vocabulary(["cat", "smith", "cat"], [1.0, 2.0, 3.0], store, lambda keys: np.array([0] * len(keys)))
    assert vocab.words == ("cat", "smith")
    assert vocab.prior.tolist() == [4.0, 2.0]
    assert vocab.inputs.tolist() == [1, 0] and vocab.own.tolist() == [True, False]
    assert build_vocabulary(["smith"], [1.0], store, None).inputs.tolist() == [-1]


def test_text_frequencies_count_the_alphabetic_words_the_attacks_align() -> None:
    freqs = text_frequencies(["Apple apple, co-op 42 x2 Éclair.", ""])
    assert freqs == pytest.approx({"apple": 2 / 3, "eclair": 1 / 3})  # not co-op, 42 or x2
    assert text_frequencies(["42 -- 17", ""]) == {}


def test_domain_frequencies_mix_the_attackers_text_with_the_public_list() -> None:
    public = {"the": 0.6, "pain": 0.4}
    mixed = domain_frequencies({"pain": 1.0, "zorblax": 3.0}, public, share=0.5)
    assert sum(mixed.values()) == pytest.approx(1.0)
    assert mixed == pytest.approx({"the": 0.3, "pain": 0.2 + 0.125, "zorblax": 0.375})
    assert domain_frequencies({"zorblax": 1.0}, public, share=1.0) == pytest.approx(
        {"the": 0.0, "pain": 0.0, "zorblax": 1.0})
    with pytest.raises(ConfigError, match="no words"):
        domain_frequencies({}, public)
    for share in (0.0, 1.5):
        with pytest.raises(ConfigError, match="share"):
            domain_frequencies({"pain": 1.0}, public, share=share)
