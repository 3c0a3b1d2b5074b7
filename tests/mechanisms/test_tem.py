"""The ``tem`` mechanism (Truncated Exponential Mechanism): the paper's algorithm as an independent
reference (closed form, and checked by simulation), the metric-DP inequality checked exactly, the
sampler against the exact law, negative controls, reproducibility, validation and memory.

Statistical tests run at fixed seeds, so they are deterministic. Each chi-square test rejects at
ALPHA = 1e-6 (a correct sampler fails one with probability 1e-6 at a random seed); negative
controls come with a power check.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from embedanon.errors import ConfigError
from embedanon.mechanisms import Mechanism, available, build_mechanism
from embedanon.mechanisms.exponential import ExponentialMechanism
from embedanon.mechanisms.tem import DEFAULT_BETA, MIN_GAMMA, TemMechanism, default_gamma
from embedanon.vectors.index import NeighborIndex
from embedanon.vectors.store import CandidatePolicy, EmbeddingStore
from tests.helpers.noise import keyed_noise
from tests.mechanisms.test_exponential import (
    ALPHA,
    DP_TOLERANCE,
    N_PER_WORD,
    cells_of,
    chi_square_power,
    chi_square_pvalues,
    euclidean,
    medium_index,
    pooled,
    worst_dp_excess,
)

GAMMAS = [0.3, 0.8, 1.2, 1.5, 2.5]


# -- the paper's algorithm, independently -------------------------------------------------------------
def paper_scores(index: NeighborIndex, x: int, epsilon: float, gamma: float,
                 log_term: bool = True) -> tuple[list[int], list[int], list[float]]:
    """Algorithm 1 of Carvalho et al.: L_x = candidates within gamma; scores -d(x, y) on L_x and
    -gamma + 2 ln|W \\ L_x| / epsilon for ⊥ (last, when W \\ L_x is not empty). ``log_term=False``
    is the wrong variant with a bare -gamma for ⊥."""
    dist = [euclidean(index.store, x, y) for y in index.candidates.tolist()]
    inside = [i for i, d in enumerate(dist) if d <= gamma]
    outside = [i for i, d in enumerate(dist) if d > gamma]
    scores = [-dist[i] for i in inside]
    if outside:
        scores.append(-gamma + (2 * math.log(len(outside)) / epsilon if log_term else 0.0))
    return inside, outside, scores


def reference_law(index: NeighborIndex, x: int, epsilon: float, gamma: float,
                  log_term: bool = True) -> np.ndarray:
    """Closed form of the paper's algorithm: argmax of score + Gumbel(2 / epsilon) picks i with
    probability softmax(epsilon * score / 2)_i; ⊥'s share is split evenly outside L_x."""
    inside, outside, scores = paper_scores(index, x, epsilon, gamma, log_term)
    top = max(scores)
    weights = [math.exp(epsilon * (s - top) / 2) for s in scores]
    total = math.fsum(weights)
    law = np.zeros(index.n_candidates)
    for i, w in zip(inside, weights[:len(inside)], strict=True):
        law[i] = w / total
    for i in outside:
        law[i] = weights[-1] / total / len(outside)
    return law


def simulate_paper(index: NeighborIndex, x: int, epsilon: float, gamma: float, n: int,
                   rng: np.random.Generator) -> np.ndarray:
    """n runs of the paper's algorithm as written (Gumbel noise, argmax, uniform fallback):
    counts per candidate position."""
    inside, outside, scores = paper_scores(index, x, epsilon, gamma)
    noisy = np.array(scores) + rng.gumbel(0.0, 2.0 / epsilon, size=(n, len(scores)))
    winner = noisy.argmax(axis=1)
    picks = np.empty(n, dtype=np.int64)
    is_bottom = winner == len(inside)
    picks[~is_bottom] = np.array(inside, dtype=np.int64)[winner[~is_bottom]]
    picks[is_bottom] = np.array(outside, dtype=np.int64)[rng.integers(0, max(1, len(outside)),
                                                                      int(is_bottom.sum()))]
    return np.bincount(picks, minlength=index.n_candidates)


# -- the reference itself ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("epsilon", "gamma"), [(2.0, 0.8), (6.0, 1.2), (3.0, 1.5)])
def test_closed_form_reference_matches_the_paper_by_simulation(tiny_index: NeighborIndex,
                                                               epsilon: float, gamma: float) -> None:
    """The softmax reading of the Gumbel-max is what the tests below rely on: 10,000 simulated
    runs per word fit it (chi-square at ALPHA)."""
    rng = np.random.default_rng(0)
    for x in range(8):
        law = reference_law(tiny_index, x, epsilon, gamma)
        cells = cells_of(law, N_PER_WORD)
        counts = simulate_paper(tiny_index, x, epsilon, gamma, N_PER_WORD, rng)
        assert stats.chisquare(pooled(counts, cells), N_PER_WORD * pooled(law, cells)).pvalue > ALPHA


# -- exact law --------------------------------------------------------------------------------------
@pytest.mark.parametrize("epsilon", [1.0, 3.0, 10.0])
@pytest.mark.parametrize("gamma", GAMMAS)
def test_distribution_matches_paper(tiny_index: NeighborIndex, epsilon: float, gamma: float) -> None:
    mech = TemMechanism(index=tiny_index, epsilon=epsilon, gamma=gamma)
    for x in range(8):
        law = mech.distribution(x)
        assert law.shape == (8,) and law.dtype == np.float64
        np.testing.assert_allclose(law, reference_law(tiny_index, x, epsilon, gamma),
                                   rtol=1e-6, atol=1e-15)


def test_distribution_with_non_candidate_inputs(tiny_store: EmbeddingStore) -> None:
    index = NeighborIndex(tiny_store, CandidatePolicy(min_length=5), use_disk_cache=False)
    mech = TemMechanism(index=index, epsilon=4.0, gamma=1.2)
    for x in range(8):  # echo (4) and golf (6) are inputs only
        np.testing.assert_allclose(mech.distribution(x), reference_law(index, x, 4.0, 1.2), rtol=1e-6)
    out = mech.sample(np.repeat(np.arange(8), 200), keyed_noise(0, len(np.repeat(np.arange(8), 200))))
    assert set(out.tolist()) <= set(index.candidates.tolist())


@pytest.mark.parametrize("epsilon", [1.0, 5.0])
def test_gamma_at_least_2_is_the_exponential_mechanism(tiny_index: NeighborIndex,
                                                       epsilon: float) -> None:
    """Unit vectors are at most 2 apart, so L_x is everything and TEM is SanText."""
    tem = TemMechanism(index=tiny_index, epsilon=epsilon, gamma=2.0)
    exp = ExponentialMechanism(index=tiny_index, epsilon=epsilon)
    for x in range(8):
        np.testing.assert_allclose(tem.distribution(x), exp.distribution(x), rtol=1e-12)


def test_default_gamma_is_the_papers() -> None:
    assert default_gamma(2.0, 1001) == pytest.approx(math.log(0.999 * 1000 / 0.001))
    assert DEFAULT_BETA == 0.001


def test_default_gamma_on_the_tiny_vocabulary(tiny_index: NeighborIndex) -> None:
    mech = TemMechanism(index=tiny_index, epsilon=4.0)
    assert mech.gamma == pytest.approx(0.5 * math.log(0.999 * 7 / 0.001))
    built = build_mechanism("tem", tiny_index, epsilon=4.0, gamma=None)
    assert isinstance(built, TemMechanism) and built.gamma == mech.gamma


@pytest.mark.parametrize("epsilon", [1.0, 3.0, 10.0])
@pytest.mark.parametrize("gamma", GAMMAS)
def test_metric_dp_inequality_holds_exactly(tiny_store: EmbeddingStore, epsilon: float,
                                            gamma: float) -> None:
    """P(y|x) <= exp(eps d(x, x')) P(y|x') for all inputs (candidates or not) and outputs."""
    for policy in (CandidatePolicy(min_length=1), CandidatePolicy(min_length=5)):
        index = NeighborIndex(tiny_store, policy, use_disk_cache=False)
        mech = TemMechanism(index=index, epsilon=epsilon, gamma=gamma)
        assert worst_dp_excess(index, mech.distribution, epsilon) <= math.log1p(DP_TOLERANCE)


@pytest.mark.parametrize(("epsilon", "gamma"), [(1.0, 1.5), (3.0, 1.5), (3.0, 2.5)])
def test_double_epsilon_fails_the_inequality(tiny_index: NeighborIndex, epsilon: float,
                                             gamma: float) -> None:
    """Negative control: the law of TEM at 2 eps, checked at eps, breaks the inequality (by
    more than 0.15 in log-probability on these words; at small gamma truncation hides it)."""
    double = TemMechanism(index=tiny_index, epsilon=2 * epsilon, gamma=gamma)
    assert worst_dp_excess(tiny_index, double.distribution, epsilon) > 0.15


@pytest.mark.parametrize(("epsilon", "gamma"), [(1.0, 0.3), (1.0, 0.8), (1.0, 1.2), (3.0, 0.8)])
def test_bottom_without_log_term_fails_the_inequality(tiny_index: NeighborIndex, epsilon: float,
                                                      gamma: float) -> None:
    """Negative control: ⊥ scored a bare -gamma (without (2 / eps) ln|W \\ L|) gives the
    outside words a mass that ignores how many they are, and breaks eps*d-privacy by > 0.3."""

    def no_log(x: int) -> np.ndarray:
        return reference_law(tiny_index, x, epsilon, gamma, log_term=False)

    assert worst_dp_excess(tiny_index, no_log, epsilon) > 0.3


# -- sampler against the exact law ------------------------------------------------------------------
@pytest.mark.parametrize(("epsilon", "gamma", "near_size", "seed"), [
    (2.0, 0.8, None, 1),   # automatic rule: k = 0, uniform proposals
    (6.0, 1.2, 1, 2),      # far branch with truncated weights
    (6.0, 0.5, 3, 3),      # gamma below most distances: the far weights are all equal
    (12.0, 1.5, 2, 4),
    (12.0, 1.0, None, 5),  # automatic rule: k = 64 (capped at 8), inverse CDF only
])
def test_sampler_fits_exact_law(tiny_index: NeighborIndex, epsilon: float, gamma: float,
                                near_size: int | None, seed: int) -> None:
    """10,000 draws per word, chi-square against distribution(), each at ALPHA = 1e-6."""
    mech = TemMechanism(index=tiny_index, epsilon=epsilon, gamma=gamma)
    mech.near_size = near_size
    pvalues = chi_square_pvalues(tiny_index, mech.sample, mech.distribution, list(range(8)),
                                 N_PER_WORD, seed)
    assert min(pvalues) > ALPHA


def test_sampler_with_wrong_epsilon_fails_chi_square(tiny_index: NeighborIndex) -> None:
    """Negative control: draws of TEM at 2 eps tested against the eps law (power checked)."""
    right = TemMechanism(index=tiny_index, epsilon=3.0, gamma=1.2)
    wrong = TemMechanism(index=tiny_index, epsilon=6.0, gamma=1.2)
    wrong.near_size = 2
    for x in range(8):
        assert chi_square_power(right.distribution(x), wrong.distribution(x), N_PER_WORD) > 0.999
    pvalues = chi_square_pvalues(tiny_index, wrong.sample, right.distribution, list(range(8)),
                                 N_PER_WORD, seed=6)
    assert max(pvalues) < ALPHA


def test_sampler_fits_exact_law_on_medium_vocabulary() -> None:
    """600 clustered words, the float32 prefilter path, a gamma that truncates: 20,000 draws for
    each of 4 words, binned chi-square at ALPHA."""
    index = medium_index()
    mech = TemMechanism(index=index, epsilon=10.0, gamma=0.9)
    mech.near_size = 8
    pvalues = chi_square_pvalues(index, mech.sample, mech.distribution, [0, 1, 2, 3], 20_000, 7)
    assert min(pvalues) > ALPHA


# -- reproducibility, validation, registry ---------------------------------------------------------------
def test_same_seed_same_output_and_seeds_differ(tiny_index: NeighborIndex) -> None:
    mech = TemMechanism(index=tiny_index, epsilon=6.0, gamma=1.0)
    ids = np.tile(np.arange(8), 50)
    a = mech.sample(ids, keyed_noise(11, len(ids)))
    assert np.array_equal(a, mech.sample(ids, keyed_noise(11, len(ids))))
    assert not np.array_equal(a, mech.sample(ids, keyed_noise(12, len(ids))))
    assert np.isin(a, tiny_index.candidates).all()


def test_output_does_not_depend_on_cache_state() -> None:
    index = medium_index()
    doc = np.random.default_rng(0).integers(0, 600, 300)
    fresh = TemMechanism(index=index, epsilon=8.0, gamma=0.9)
    warm = TemMechanism(index=index, epsilon=8.0, gamma=0.9)
    warm.sample(np.random.default_rng(1).integers(0, 600, 1000), keyed_noise(2, len(np.random.default_rng(1).integers(0, 600, 1000))))
    assert np.array_equal(fresh.sample(doc, keyed_noise(3, len(doc))),
                          warm.sample(doc, keyed_noise(3, len(doc))))


@pytest.mark.parametrize("name", ["epsilon", "gamma"])
@pytest.mark.parametrize("value", [0, -1, float("nan"), float("inf")])
def test_invalid_values(tiny_index: NeighborIndex, name: str, value: float) -> None:
    params = {"epsilon": 1.0, "gamma": 0.5, name: value}
    with pytest.raises(ConfigError, match=f"{name} must be a finite number > 0"):
        TemMechanism(index=tiny_index, **params)


@pytest.mark.parametrize("name", ["epsilon", "gamma"])
@pytest.mark.parametrize("value", [True, "1", [0.5]])
def test_invalid_types(tiny_index: NeighborIndex, name: str, value: object) -> None:
    params: dict[str, object] = {"epsilon": 1.0, "gamma": 0.5, name: value}
    with pytest.raises(TypeError, match=name):
        TemMechanism(index=tiny_index, **params)  # type: ignore[arg-type]


def test_registry(tiny_index: NeighborIndex) -> None:
    assert available()["tem"].params == ("epsilon", "gamma")
    mech = build_mechanism("tem", tiny_index, epsilon=1.0, gamma=0.5)
    assert isinstance(mech, TemMechanism) and isinstance(mech, Mechanism)
    assert mech.name == "tem" and mech.may_return_input and mech.gamma == 0.5
    with pytest.raises(ConfigError, match="gamma must be"):
        build_mechanism("tem", tiny_index, epsilon=1.0, gamma=-2)


@pytest.mark.default_embedding
def test_default_embedding_sampler_fits_exact_law(default_index: NeighborIndex) -> None:
    """epsilon 20 with the paper's gamma (1.69 < 2, so truncation is active): 20,000 draws of
    'movie' and 'good', binned chi-square at ALPHA."""
    mech = TemMechanism(index=default_index, epsilon=20.0)
    assert 1.6 < mech.gamma < 1.8
    words = [default_index.store.id_of("movie"), default_index.store.id_of("good")]
    pvalues = chi_square_pvalues(default_index, mech.sample, mech.distribution, words, 20_000, 8)
    assert min(pvalues) > ALPHA


@pytest.mark.parametrize("epsilon", [5e-324, 1e-310])
def test_tiny_epsilon_runs_with_the_default_gamma(tiny_index: NeighborIndex, epsilon: float) -> None:
    """Mechanism audit: 'anonymize -m tem --epsilon 5e-324' failed with 'gamma must be a finite
    number > 0, got inf' although no --gamma was given and docs/mechanisms.md says any finite
    epsilon > 0 runs: the paper's default threshold 2/epsilon * ln(...) overflows. Its limit, no
    truncation, is the exponential mechanism."""
    tem = TemMechanism(index=tiny_index, epsilon=epsilon)
    assert tem.gamma == math.inf
    exp = ExponentialMechanism(index=tiny_index, epsilon=epsilon)
    np.testing.assert_array_equal(tem.distribution(0), exp.distribution(0))
    ids = np.zeros(50, dtype=np.int64)
    out = tem.sample(ids, keyed_noise(7, len(ids)))
    assert (out == exp.sample(ids, keyed_noise(7, len(ids)))).all()


@pytest.mark.default_embedding
@pytest.mark.parametrize("epsilon", [1e9, 1e12, 1e300])
def test_huge_epsilon_keeps_every_word_on_the_default_embedding(default_index: NeighborIndex,
                                                                epsilon: float) -> None:
    """Decision 0375: at epsilon 1e9 the paper's threshold (3.4e-8) was above some words' computed
    distance to themselves (2.1e-8 for 'to') and below nothing else, so the law put exp(-10.5) on
    the word and exp(-16.9) on each of 21,717 others: 'to' came back as 'logging'. The threshold
    now stops at MIN_GAMMA, and a huge epsilon keeps every word, as it does for exponential."""
    tem = TemMechanism(index=default_index, epsilon=epsilon)
    assert tem.gamma == MIN_GAMMA
    store = default_index.store
    ids = np.array([store.id_of(w) for w in ("to", "the", "walking", "store", "to")], dtype=np.int64)
    assert (tem.sample(ids, keyed_noise(3, len(ids))) == ids).all()
    assert tem.distribution(int(ids[0]))[np.flatnonzero(default_index.candidates == ids[0])[0]] > 0.999


def test_a_gamma_below_the_distance_resolution_is_refused(tiny_index: NeighborIndex) -> None:
    with pytest.raises(ConfigError, match="gamma must be at least 1e-06"):
        TemMechanism(index=tiny_index, epsilon=5.0, gamma=1e-9)
    assert TemMechanism(index=tiny_index, epsilon=5.0, gamma=MIN_GAMMA).gamma == MIN_GAMMA
