"""knn mechanism: exact distribution, sampler fit, negative control, registry."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chisquare

from embedanon.errors import ConfigError
from embedanon.mechanisms import available, build_mechanism, register
from embedanon.mechanisms.base import first_occurrence_unique
from embedanon.mechanisms.knn import KnnMechanism
from embedanon.noise import Noise, uniform
from embedanon.vectors.index import NeighborIndex
from tests.helpers.noise import keyed_noise


def _reference_distribution(index: NeighborIndex, word_id: int, k: int) -> dict[int, float]:
    """Independent reference: brute-force cosine ranking of the other candidates, top k."""
    vecs = index.store.vectors
    sims = [(float(vecs[word_id] @ vecs[j]), j) for j in index.candidates.tolist() if j != word_id]
    sims.sort(key=lambda t: -t[0])
    return {j: 1.0 / k for _, j in sims[:k]}


@pytest.mark.parametrize("k", [1, 3, 7])
def test_exact_distribution_matches_reference(tiny_index: NeighborIndex, k: int) -> None:
    mech = KnnMechanism(index=tiny_index, k=k)
    for wid in range(len(tiny_index.store)):
        law = mech.distribution(wid)
        ref = _reference_distribution(tiny_index, wid, k)
        expected = np.zeros(tiny_index.n_candidates)
        for j, p in ref.items():
            expected[tiny_index.candidate_positions(np.array([j]))[0]] = p
        assert law == pytest.approx(expected)


def _chi_square_p(index: NeighborIndex, mech_sample, wid: int, k: int, n: int, seed: int) -> float:  # type: ignore[no-untyped-def]
    ref = _reference_distribution(index, wid, k)
    out = mech_sample(np.full(n, wid), keyed_noise(seed, n))
    support = sorted(set(ref) | set(out.tolist()))
    observed = np.array([(out == j).sum() for j in support])
    expected = np.array([ref.get(j, 1e-12) * n for j in support])
    return float(chisquare(observed, expected * observed.sum() / expected.sum()).pvalue)


def test_sampler_fits_exact_distribution(tiny_index: NeighborIndex) -> None:
    """Chi-square goodness of fit at a fixed seed, n = 6000 draws, k = 3 categories.

    At significance 0.001 a correct sampler fails with probability 0.001 for a random seed; the
    seed is fixed, so the outcome is deterministic. With n = 6000 the test detects a deviation of
    0.05 in any cell probability with power > 0.999 (noncentrality n * sum(delta^2/p) >= 45).
    """
    mech = KnnMechanism(index=tiny_index, k=3)
    for wid in range(8):
        assert _chi_square_p(tiny_index, mech.sample, wid, 3, 6000, seed=wid) > 1e-3


def test_negative_control_wrong_sampler_fails(tiny_index: NeighborIndex) -> None:
    """A sampler biased towards the nearest neighbor (weights 1/2, 1/4, 1/4) must be rejected."""
    mech = KnnMechanism(index=tiny_index, k=3)

    def biased(ids: np.ndarray, noise: Noise) -> np.ndarray:
        u = uniform(noise, 1)[:, 0]
        picks = np.searchsorted([0.5, 0.75], u, side="right")
        return mech.table[ids, picks].astype(np.int64)

    assert _chi_square_p(tiny_index, biased, 0, 3, 6000, seed=0) < 1e-3


def test_never_returns_input(tiny_index: NeighborIndex) -> None:
    mech = KnnMechanism(index=tiny_index, k=7)
    ids = np.repeat(np.arange(8), 500)
    out = mech.sample(ids, keyed_noise(0, len(ids)))
    assert not (out == ids).any()
    assert set(out.tolist()) <= set(tiny_index.candidates.tolist())


def test_reproducible_and_seed_sensitive(tiny_index: NeighborIndex) -> None:
    mech = KnnMechanism(index=tiny_index, k=5)
    ids = np.arange(8).repeat(20)
    a = mech.sample(ids, keyed_noise(1, len(ids)))
    b = mech.sample(ids, keyed_noise(1, len(ids)))
    c = mech.sample(ids, keyed_noise(2, len(ids)))
    np.testing.assert_array_equal(a, b)
    assert (a != c).any()


@pytest.mark.parametrize("k", [0, -1, 8, 100])
def test_invalid_k(tiny_index: NeighborIndex, k: int) -> None:
    with pytest.raises(ConfigError, match="k must be"):
        KnnMechanism(index=tiny_index, k=k)


@pytest.mark.parametrize("k", [True, 2.5, "3", None])
def test_k_wrong_type(tiny_index: NeighborIndex, k: object) -> None:
    with pytest.raises(TypeError, match="k must be an integer"):
        KnnMechanism(index=tiny_index, k=k)  # type: ignore[arg-type]


def test_registry(tiny_index: NeighborIndex) -> None:
    assert "knn" in available()
    mech = build_mechanism("KNN", tiny_index, k=2, epsilon=None)
    assert mech.name == "knn" and mech.k == 2  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="does not take 'epsilon'"):
        build_mechanism("knn", tiny_index, epsilon=1.0)
    with pytest.raises(ConfigError, match="unknown mechanism 'nope'"):
        build_mechanism("nope", tiny_index)
    with pytest.raises(ValueError, match="already registered"):
        register("knn", "duplicate")(KnnMechanism)


def test_first_occurrence_unique() -> None:
    ids = np.array([5, 2, 5, 9, 2, 1])
    uniq, inv = first_occurrence_unique(ids)
    assert uniq.tolist() == [5, 2, 9, 1]
    np.testing.assert_array_equal(uniq[inv], ids)
