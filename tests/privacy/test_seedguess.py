"""Seed guessing from the release alone and from known plaintext, on a toy keyed substitution."""

from __future__ import annotations

import random

import pytest

from embedanon.errors import ConfigError
from embedanon.privacy.seedguess import binomial_tail, guess_seed

VOCAB = [f"w{c}{d}" for c in "abcdefghij" for d in "abcdefghij"]  # 100 words of letters


def toy_anonymize(seed: int, texts):
    """Each word -> a word chosen by (seed, document, position): noise keyed by position only."""
    out = []
    for d, text in enumerate(texts):
        words = text.split()
        rng = random.Random(f"{seed}/{d}")
        picks = [rng.randrange(10) for _ in words]
        out.append(" ".join(VOCAB[(VOCAB.index(w) + 1 + p) % 100] for w, p in zip(words, picks)))
    return out


def documents(n: int, seed: int):
    rng = random.Random(seed)
    return [" ".join(rng.choice(VOCAB) for _ in range(30)) for _ in range(n)]


def half_right(released, originals):
    rng = random.Random(1)
    return [" ".join(o if rng.random() < 0.5 else rng.choice(VOCAB) for o in doc.split()) for doc in originals]


def test_output_only_finds_a_small_seed_and_nothing_under_fresh_entropy() -> None:
    docs = documents(5, 0)
    release = toy_anonymize(13, docs)
    def recon(r):
        return half_right(r, docs)
    assert guess_seed(None, release, toy_anonymize, range(40), reconstruct=recon) == 13
    fresh = toy_anonymize(10**9 + 7, docs)
    assert guess_seed(None, fresh, toy_anonymize, range(40), reconstruct=recon) is None
    # negative control: a reconstruction that knows nothing finds nothing
    assert guess_seed(None, release, toy_anonymize, range(40),
                      reconstruct=lambda r: documents(5, 99)) is None


def test_known_plaintext_is_an_exact_replay() -> None:
    docs = documents(3, 2)
    assert guess_seed(docs, toy_anonymize(7, docs), toy_anonymize, range(10)) == 7
    assert guess_seed(docs, toy_anonymize(70, docs), toy_anonymize, range(10)) is None
    with pytest.raises(ConfigError, match="reconstruct"):
        guess_seed(None, toy_anonymize(7, docs), toy_anonymize, range(3))


def test_binomial_tail_matches_a_direct_sum() -> None:
    from math import comb

    for n, k, p in [(10, 3, 0.2), (30, 0, 0.5), (30, 30, 0.9), (50, 12, 0.1)]:
        direct = sum(comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))
        assert binomial_tail(k, n, p) == pytest.approx(min(direct, 1.0))
