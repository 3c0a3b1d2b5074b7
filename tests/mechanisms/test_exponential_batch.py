"""The batched exact law of ``exponential`` / ``tem`` (``log_normalizers``, ``likelihood``) against
``distribution()`` by brute force, on tiny and default embeddings."""

from __future__ import annotations

import math

import numpy as np
import pytest

from embedanon.mechanisms.base import BatchLaw, ExactLaw
from embedanon.mechanisms.exponential import DistanceExponential, ExponentialMechanism
from embedanon.mechanisms.knn import KnnMechanism
from embedanon.mechanisms.laplace import LaplaceMechanism
from embedanon.mechanisms.tem import TemMechanism
from embedanon.vectors.index import NeighborIndex
from embedanon.vectors.store import CandidatePolicy
from tests.conftest import make_store

RTOL = 1e-12


def brute_pairs(mech: DistanceExponential, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """P(y | x) read off ``distribution(x)`` one word at a time (0 for non-candidates)."""
    pos = {int(c): j for j, c in enumerate(mech.index.candidates.tolist())}
    laws = {x: mech.distribution(x) for x in set(xs.tolist())}
    return np.array([laws[x][pos[y]] if y in pos else 0.0 for x, y in zip(xs.tolist(), ys.tolist(), strict=True)])


def tiny_index(n: int = 40, *, min_length: int = 1, seed: int = 0) -> NeighborIndex:
    words = [f"w{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(n)]
    words[:3] = ["a", "b", "c"]  # too short for min_length=2: non-candidates
    return NeighborIndex(make_store(words, dim=5, seed=seed), CandidatePolicy(min_length=min_length),
                         use_disk_cache=False)


def all_pairs(index: NeighborIndex) -> tuple[np.ndarray, np.ndarray]:
    n = len(index.store)
    return np.repeat(np.arange(n), n), np.tile(np.arange(n), n)


@pytest.mark.parametrize("build", [
    lambda ix: ExponentialMechanism(index=ix, epsilon=3.0),
    lambda ix: ExponentialMechanism(index=ix, epsilon=40.0),
    lambda ix: TemMechanism(index=ix, epsilon=10.0, gamma=0.7),
    lambda ix: TemMechanism(index=ix, epsilon=30.0),
])
@pytest.mark.parametrize("min_length", [1, 2])
def test_likelihood_equals_distribution_on_every_pair_of_a_tiny_vocabulary(build, min_length: int) -> None:
    index = tiny_index(min_length=min_length)
    mech = build(index)
    xs, ys = all_pairs(index)
    got = mech.likelihood(xs, ys)
    want = brute_pairs(mech, xs, ys)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=0)
    if min_length == 2:  # non-candidates are never outputs
        assert (got[ys < 3] == 0).all() and (got[ys >= 3] > 0).all()
    # the law of each x sums to 1 over its outputs
    np.testing.assert_allclose(got.reshape(len(index.store), -1).sum(axis=1), 1.0, rtol=1e-12)


def test_log_normalizers_are_log_sums_of_the_unnormalized_weights() -> None:
    index = tiny_index()
    mech = TemMechanism(index=index, epsilon=6.0, gamma=0.9)
    vecs = index.store.vectors.astype(np.float64)
    unit = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
    for x in range(len(index.store)):
        d = [min(math.dist(unit[x], unit[c]), 0.9) for c in index.candidates.tolist()]
        want = math.log(math.fsum(math.exp(-3.0 * v) for v in d))
        # 1e-7: the code's d(x, x) = sqrt(2 - 2 s) is 0 or ~2e-8 by rounding of s (distribution()
        # shares it exactly, see the pairwise tests); the formula itself is what this checks
        assert mech.log_normalizers(np.array([x]))[0] == pytest.approx(want, rel=1e-7)


def test_order_duplicates_and_cache_do_not_change_the_values() -> None:
    index = tiny_index()
    fresh, warm = ExponentialMechanism(index=index, epsilon=9.0), ExponentialMechanism(index=index, epsilon=9.0)
    rng = np.random.default_rng(3)
    xs, ys = rng.integers(0, 40, 300), rng.integers(0, 40, 300)
    warm.log_normalizers(np.arange(40)[::-1])
    first = fresh.likelihood(xs, ys)
    assert (first == warm.likelihood(xs, ys)).all()
    order = rng.permutation(300)
    assert (fresh.likelihood(xs[order], ys[order]) == first[order]).all()
    assert (fresh.likelihood(xs[:0], ys[:0]) == np.zeros(0)).all()


def test_negative_control_a_different_epsilon_is_detected() -> None:
    index = tiny_index()
    xs, ys = all_pairs(index)
    want = brute_pairs(ExponentialMechanism(index=index, epsilon=9.0), xs, ys)
    other = ExponentialMechanism(index=index, epsilon=9.0 * (1 + 1e-9)).likelihood(xs, ys)
    assert not np.allclose(other, want, rtol=RTOL, atol=0)


def test_bad_ids_and_misaligned_arrays_are_refused() -> None:
    mech = ExponentialMechanism(index=tiny_index(), epsilon=2.0)
    with pytest.raises(IndexError):
        mech.likelihood(np.array([40]), np.array([0]))
    with pytest.raises(IndexError):
        mech.log_normalizers(np.array([-1]))
    with pytest.raises(ValueError, match="aligned"):
        mech.likelihood(np.array([1, 2]), np.array([0]))


def test_capability_is_declared_only_by_the_exponential_family() -> None:
    index = tiny_index()
    assert isinstance(ExponentialMechanism(index=index, epsilon=1.0), BatchLaw)
    assert isinstance(TemMechanism(index=index, epsilon=1.0), BatchLaw)
    assert isinstance(KnnMechanism(index=index, k=3), ExactLaw)
    assert not isinstance(KnnMechanism(index=index, k=3), BatchLaw)
    assert not isinstance(LaplaceMechanism(index=index, epsilon=1.0), BatchLaw)


@pytest.mark.default_embedding
@pytest.mark.parametrize("name", ["exponential", "tem"])
def test_likelihood_equals_distribution_on_the_default_embedding(default_index: NeighborIndex, name: str) -> None:
    # tem at epsilon 20: default gamma ~1.69 < 2, so truncation is active
    mech = (ExponentialMechanism(index=default_index, epsilon=14.0) if name == "exponential"
            else TemMechanism(index=default_index, epsilon=20.0))
    rng = np.random.default_rng(5)
    n_cand = default_index.n_candidates
    # words that are candidates (their self-pair is the rounding-sensitive one), and some that are not
    inputs = rng.choice(default_index.candidates, 6, replace=False).tolist()
    non_cand = np.setdiff1d(np.arange(len(default_index.store)), default_index.candidates)
    inputs += rng.choice(non_cand, min(2, len(non_cand)), replace=False).tolist()
    for x in inputs:
        law = mech.distribution(x)
        got = mech.likelihood(np.full(n_cand, x), default_index.candidates)
        np.testing.assert_allclose(got, law, rtol=RTOL, atol=0)
    if len(non_cand):
        assert (mech.likelihood(np.array(inputs[:1]), non_cand[:1]) == 0).all()


@pytest.mark.parametrize("epsilon", [1e6, 1e300])
def test_likelihood_of_words_outside_the_candidates_stays_a_probability_at_huge_epsilon(
        default_index: NeighborIndex, epsilon: float) -> None:
    """Mechanism audit: likelihood() of 'a', 's', 'x' (in the default embedding, too short to be
    candidates) at their nearest candidate was 1.0000000005 at epsilon = 1e6 and inf from about
    1e19 (privacy-report at --epsilon 1e300 warned of an overflow and its attacks read NaN
    posteriors): log_normalizers took the shift from the matrix product, one rounding away from
    the pair kernel, and epsilon scales that rounding. Any finite epsilon runs (docs/mechanisms.md)."""
    index = default_index
    xs = np.setdiff1d(np.arange(len(index.store)), index.candidates).astype(np.int64)
    _, nearest = index.search(index.store.vectors[xs], 2)
    xs, ys = np.repeat(xs, 2), nearest.reshape(-1)
    mech = ExponentialMechanism(index=index, epsilon=epsilon)
    with np.errstate(under="ignore"):
        got = mech.likelihood(xs, ys)
        want = brute_pairs(mech, xs, ys)
    assert np.isfinite(got).all() and got.max() <= 1.0
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=0)
