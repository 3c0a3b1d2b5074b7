"""Change rate, N_w and S_w: exact values on hand-made inputs."""

from __future__ import annotations

import numpy as np
import pytest

from embedanon.errors import InputError
from embedanon.mechanisms.knn import KnnMechanism
from embedanon.privacy.metrics import (
    ChangeStats,
    align_tokens,
    change_rate,
    change_stats,
    distinct_per_row,
    word_statistics,
)
from embedanon.vectors.index import NeighborIndex


class Identity:
    """Always returns the input (no privacy at all)."""

    name = "identity"
    may_return_input = True

    def sample(self, ids: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return np.asarray(ids, dtype=np.int64).copy()


class Constant:
    """Always returns word 0."""

    name = "constant"
    may_return_input = True

    def sample(self, ids: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return np.zeros(len(ids), dtype=np.int64)


# ------------------------------------------------------------------------------------------------
# change rate
# ------------------------------------------------------------------------------------------------
ORIGINAL = "John, 54, has chest-pain."
ANONYMIZED = "Mark, 71, has brain-ache."


def test_change_stats_counts_words_only() -> None:
    # non-space tokens: John , 54 , has chest-pain .  -> 7; words: John has chest-pain -> 3
    stats = change_stats(ORIGINAL, ANONYMIZED)
    assert stats == ChangeStats(tokens=7, word_tokens=3, changed_words=2)
    assert change_rate(ORIGINAL, ANONYMIZED) == pytest.approx(2 / 3)


def test_fixture_separates_a_rate_that_counts_punctuation_and_numbers() -> None:
    # Negative control: a broken rate over every non-space token (54 -> 71 changed, punctuation
    # kept) gives 3/7, so the exact 2/3 above fails for it.
    pairs = [(a, b) for a, b in align_tokens(ORIGINAL, ANONYMIZED) if a.kind != "space"]
    broken = sum(a.text != b.text for a, b in pairs) / len(pairs)
    assert broken == pytest.approx(3 / 7)
    assert broken != pytest.approx(change_rate(ORIGINAL, ANONYMIZED))


def test_case_only_difference_is_not_a_change() -> None:
    assert change_stats("The Patient", "the PATIENT") == ChangeStats(2, 2, 0)


def test_empty_text_has_nan_rate() -> None:
    stats = change_stats("  ...  ", "  ...  ")
    assert stats == ChangeStats(3, 0, 0)
    assert np.isnan(stats.change_rate)


@pytest.mark.parametrize("anonymized", ["Mark 71 has brain-ache.", "Mark, 71, has brain-ache!",
                                        "Mark, 71, has brain ache."])
def test_misaligned_texts_raise_without_quoting_them(anonymized: str) -> None:
    with pytest.raises(InputError, match="does not align") as err:
        change_stats(ORIGINAL, anonymized)
    for word in ("John", "chest", "Mark", "brain"):
        assert word not in str(err.value)


def test_change_stats_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError):
        ChangeStats(tokens=2, word_tokens=3, changed_words=1)


# ------------------------------------------------------------------------------------------------
# N_w and S_w
# ------------------------------------------------------------------------------------------------
def test_distinct_per_row_matches_sets() -> None:
    rng = np.random.default_rng(3)
    samples = rng.integers(0, 6, size=(50, 9))
    assert distinct_per_row(samples).tolist() == [len(set(r)) for r in samples.tolist()]


def test_identity_has_n_w_one_and_s_w_one(tiny_index: NeighborIndex) -> None:
    ids = np.arange(8)
    stats = word_statistics(Identity(), ids, 20, np.random.default_rng(0),
                            vectors=tiny_index.store.vectors)
    assert stats.n_w.tolist() == [1.0] * 8
    assert stats.s_w.tolist() == [1] * 8
    np.testing.assert_allclose(stats.cosine, 1.0, rtol=1e-6)


def test_constant_mechanism(tiny_index: NeighborIndex) -> None:
    stats = word_statistics(Constant(), np.arange(8), 10, np.random.default_rng(0))
    assert stats.n_w.tolist() == [1.0] + [0.0] * 7
    assert stats.s_w.tolist() == [1] * 8
    assert np.isnan(stats.cosine).all()  # no vectors given


def test_knn_never_returns_the_word_and_uses_all_k(tiny_index: NeighborIndex) -> None:
    # P(some word shows fewer than 3 of its k = 3 outputs in 200 draws) <= 8 * 3 * (2/3)**200 < 1e-33.
    mech = KnnMechanism(index=tiny_index, k=3)
    stats = word_statistics(mech, np.arange(8), 200, np.random.default_rng(1),
                            vectors=tiny_index.store.vectors)
    assert stats.n_w.tolist() == [0.0] * 8
    assert stats.s_w.tolist() == [3] * 8
    # Mean cosine vs the exact mean over each row (Hoeffding: 200 draws in [-1, 1], t = 0.4
    # gives 2 exp(-200 * 0.4**2 / 2) < 1e-6 per word).
    vecs = tiny_index.store.vectors
    exact = np.array([np.mean(vecs[w] @ vecs[mech.table[w]].T) for w in range(8)])
    np.testing.assert_allclose(stats.cosine, exact, atol=0.4)


def test_word_statistics_is_seeded(tiny_index: NeighborIndex) -> None:
    mech = KnnMechanism(index=tiny_index, k=4)
    a = word_statistics(mech, np.arange(8), 5, np.random.default_rng(9))
    b = word_statistics(mech, np.arange(8), 5, np.random.default_rng(9))
    assert a.s_w.tolist() == b.s_w.tolist()
