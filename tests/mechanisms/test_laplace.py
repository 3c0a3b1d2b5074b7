"""The ``laplace`` mechanism: noise law, exact 1-d distribution, decoding, validation.

Statistical tests run at fixed seeds, so they are deterministic; their thresholds come from stated
bounds so that a correct sampler would pass at (almost) any seed and a wrong one fails.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from embedanon.errors import ConfigError
from embedanon.mechanisms import Mechanism, available, build_mechanism
from embedanon.mechanisms import laplace as laplace_module
from embedanon.mechanisms.laplace import LaplaceMechanism, polar_noise
from embedanon.vectors.index import NeighborIndex
from embedanon.vectors.store import CandidatePolicy, EmbeddingStore
from tests.helpers.noise import keyed_noise

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
N_KS = 20_000
ALPHA = 1e-6  # false-rejection probability allowed to each statistical test


def dkw_threshold(n: int, alpha: float = ALPHA) -> float:
    """t with P(sup |F_n - F| > t) <= alpha for n iid draws (DKW with Massart's constant:
    P(D_n > t) <= 2 exp(-2 n t^2)). For n = 20,000 and alpha = 1e-6, t = 0.019."""
    return math.sqrt(math.log(2 / alpha) / (2 * n))


def index_of(vecs: np.ndarray, words: list[str] | None = None, min_length: int = 1) -> NeighborIndex:
    words = words or [f"w{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(len(vecs))]
    store = EmbeddingStore("test", words, np.asarray(vecs, dtype=np.float32))
    return NeighborIndex(store, CandidatePolicy(min_length=min_length), use_disk_cache=False)


def random_index(n_words: int = 8, dim: int = 8, seed: int = 0, min_length: int = 1) -> NeighborIndex:
    vecs = np.random.default_rng(seed).normal(size=(n_words, dim))
    words = WORDS if n_words == len(WORDS) else None
    return index_of(vecs, words, min_length)


# -- the noise law ---------------------------------------------------------------------------------
@pytest.mark.parametrize("d", [1, 8, 384])
def test_radius_follows_gamma(d: int) -> None:
    """Norms of 20,000 noise vectors against Gamma(d, 1/epsilon): KS statistic below the DKW
    threshold t = 0.019 (a correct sampler exceeds it with probability <= 1e-6)."""
    epsilon = 2.0
    radii = polar_noise(keyed_noise(1, N_KS), d, epsilon)[0]
    result = stats.kstest(radii, stats.gamma(d, scale=1 / epsilon).cdf)
    assert result.statistic < dkw_threshold(N_KS)


def _wrong_noise(kind: str, d: int, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    if kind == "double_epsilon":  # calibrated for 2 epsilon but claiming epsilon
        return LaplaceMechanism(index=random_index(dim=d), epsilon=2 * epsilon).noise(keyed_noise(1, N_KS))
    # Gaussian noise with the right mean norm: the radius law has the wrong shape
    g = rng.standard_normal((N_KS, d))
    return g * (d / epsilon) / stats.chi(d).mean()


def _wrong_law(kind: str, d: int, epsilon: float) -> stats.rv_continuous:
    if kind == "double_epsilon":
        return stats.gamma(d, scale=1 / (2 * epsilon))
    return stats.chi(d, scale=(d / epsilon) / stats.chi(d).mean())


@pytest.mark.parametrize("d", [8, 64])
@pytest.mark.parametrize("kind", ["double_epsilon", "gaussian"])
def test_wrong_radius_law_fails_the_same_ks_test(kind: str, d: int) -> None:
    """Negative control. The wrong law is at sup-distance > 2t from Gamma(d, 1/epsilon), so its
    sample statistic exceeds t except with probability <= 1e-6 (DKW applied to the wrong law)."""
    epsilon = 2.0
    right = stats.gamma(d, scale=1 / epsilon)
    wrong = _wrong_law(kind, d, epsilon)
    grid = np.linspace(0, right.ppf(1 - 1e-9), 20_001)
    assert np.abs(wrong.cdf(grid) - right.cdf(grid)).max() > 2 * dkw_threshold(N_KS)  # power
    radii = np.linalg.norm(_wrong_noise(kind, d, epsilon, np.random.default_rng(1)), axis=1)
    assert stats.kstest(radii, right.cdf).statistic > dkw_threshold(N_KS)


def _projection_statistic(noise: np.ndarray, direction: np.ndarray) -> float:
    """KS statistic of (u . v + 1) / 2 against Beta((d-1)/2, (d-1)/2), the law of one coordinate
    of a uniform unit vector in R^d (d >= 2)."""
    d = noise.shape[1]
    u = noise / np.linalg.norm(noise, axis=1, keepdims=True)
    proj = (u.astype(np.float64) @ direction + 1) / 2
    return float(stats.kstest(proj, stats.beta((d - 1) / 2, (d - 1) / 2).cdf).statistic)


@pytest.mark.parametrize("d", [2, 8, 64])
def test_direction_is_uniform_on_the_sphere(d: int) -> None:
    """Projection of 20,000 directions on a fixed random axis: KS against the Beta law below the
    DKW threshold t = 0.019 (alpha 1e-6). The mean direction has norm <= 1/sqrt(n) + 0.04 except
    with probability exp(-n 0.04^2 / 8) < 1e-8 (McDiarmid, each draw moves the mean by <= 2/n)."""
    noise = LaplaceMechanism(index=random_index(dim=d), epsilon=1.0).noise(keyed_noise(2, N_KS))
    axis = np.random.default_rng(3).normal(size=d)
    assert _projection_statistic(noise, axis / np.linalg.norm(axis)) < dkw_threshold(N_KS)
    u = noise / np.linalg.norm(noise, axis=1, keepdims=True)
    assert np.linalg.norm(u.mean(axis=0)) < 1 / math.sqrt(N_KS) + 0.04


def test_anisotropic_direction_fails_the_projection_test() -> None:
    """Negative control: normalised Gaussians with one axis stretched 1.5x are not uniform."""
    d = 8
    g = np.random.default_rng(2).standard_normal((N_KS, d))
    g[:, 0] *= 1.5
    assert _projection_statistic(g, np.eye(d)[0]) > 3 * dkw_threshold(N_KS)


# -- exact: two words on a line ---------------------------------------------------------------------
def _flip_probability(epsilon: float) -> float:
    """Words +1 and -1 in R^1: noise is sign * Exponential(rate epsilon), so the output changes
    iff the sign is against the word (1/2) and the radius exceeds 1 (exp(-epsilon))."""
    return 0.5 * math.exp(-epsilon)


def test_one_dimensional_distribution_is_exact_and_private() -> None:
    """Exact distribution on {+1, -1}, the privacy inequality checked on it with no sampling, then
    the sampler against it: 20,000 draws, Hoeffding |p_hat - p| <= t = 0.019 except with
    probability 2 exp(-2 n t^2) = 1e-6. Negative control: the 2-epsilon mechanism is 0.12 away
    (> 2t), so it fails the same check."""
    epsilon = 0.5
    p = _flip_probability(epsilon)
    dist = {0: {0: 1 - p, 1: p}, 1: {0: p, 1: 1 - p}}  # dist[x][y] = P(M(x) = y)
    distance = 2.0  # |phi(alpha) - phi(bravo)|
    for y in (0, 1):
        assert dist[0][y] <= math.exp(epsilon * distance) * dist[1][y]
        assert dist[1][y] <= math.exp(epsilon * distance) * dist[0][y]

    t = dkw_threshold(N_KS)  # the same formula as Hoeffding's bound for a mean of 0/1 draws
    # Embeddings need d >= 2, so the 1-d mechanism is its noise plus the (brute-force tested)
    # nearest-word decoding: alpha = +1 comes out as bravo = -1 iff 1 + r u < 0.
    def flip(eps: float) -> np.ndarray:
        radii, directions = polar_noise(keyed_noise(4, N_KS), 1, eps)
        return (1.0 + radii * directions[:, 0] < 0).astype(np.float64)

    flips = flip(epsilon)
    assert abs(flips.mean() - p) < t
    wrong = flip(2 * epsilon)
    assert abs(p - _flip_probability(2 * epsilon)) > 2 * t
    assert abs(wrong.mean() - p) > t


# -- decoding ---------------------------------------------------------------------------------------
def _brute_force_check(index: NeighborIndex, ids: np.ndarray, noise: np.ndarray, out: np.ndarray) -> None:
    """Each output is a candidate nearest to z = phi(w) + noise by float64 Euclidean distance, up
    to float32 rounding in the batched search (squared distances within 1e-4 * (1 + ||z||)), and
    is the exact argmin almost always."""
    z = index.store.vectors[ids].astype(np.float64) + noise
    cands = index.candidate_vectors.astype(np.float64)
    dist = (z**2).sum(1)[:, None] + (cands**2).sum(1)[None, :] - 2 * z @ cands.T
    assert index.is_candidate[out].all()
    rows = np.searchsorted(index.candidates, out)  # candidates are sorted word ids
    assert np.array_equal(index.candidates[rows], out)
    chosen = dist[np.arange(len(ids)), rows]
    assert (chosen - dist.min(axis=1) <= 1e-4 * (1 + np.linalg.norm(z, axis=1))).all()
    assert (out == index.candidates[dist.argmin(axis=1)]).mean() > 0.99


@pytest.mark.parametrize("epsilon", [0.5, 5.0, 50.0])
def test_sample_is_the_nearest_candidate_to_the_noisy_vector(epsilon: float) -> None:
    """Batched faiss decoding against brute force with the same draws; 'echo' and 'golf' are not
    candidates (min_length 5), so inputs need not be candidates but outputs must be."""
    index = random_index(min_length=5)
    assert not index.is_candidate[[4, 6]].any()
    ids = np.random.default_rng(5).integers(0, 8, size=2000)
    mech = LaplaceMechanism(index=index, epsilon=epsilon)
    out = mech.sample(ids, keyed_noise(6, len(ids)))
    _brute_force_check(index, ids, mech.noise(keyed_noise(6, len(ids))), out)


def test_chunking_does_not_change_the_output(monkeypatch: pytest.MonkeyPatch) -> None:
    index = random_index()
    ids = np.random.default_rng(5).integers(0, 8, size=100)
    mech = LaplaceMechanism(index=index, epsilon=1.0)
    whole = mech.sample(ids, keyed_noise(7, len(ids)))
    monkeypatch.setattr(laplace_module, "CHUNK", 7)
    assert np.array_equal(mech.sample(ids, keyed_noise(7, len(ids))), whole)


# -- behaviour --------------------------------------------------------------------------------------
def test_large_epsilon_returns_the_input() -> None:
    """If the noise radius is below half the smallest distance between two words, the input is
    strictly the nearest candidate. At epsilon = 1e4 the chance that any of 5,000 radii exceeds it
    is bounded below 1e-9 (Gamma tail), so every output must equal its input."""
    index, epsilon, n = random_index(), 1e4, 5000
    vecs = index.store.vectors.astype(np.float64)
    gaps = np.linalg.norm(vecs[:, None] - vecs[None], axis=-1) + 3 * np.eye(len(vecs))
    assert n * stats.gamma(index.store.dim, scale=1 / epsilon).sf(gaps.min() / 2) < 1e-9
    ids = np.random.default_rng(8).integers(0, 8, size=n)
    out = LaplaceMechanism(index=index, epsilon=epsilon).sample(ids, keyed_noise(9, len(ids)))
    assert np.array_equal(out, ids)


def test_small_epsilon_spreads_the_output_and_hides_the_input() -> None:
    """At epsilon = 0.01 the noise norm (~800) dwarfs the sphere, so the output hardly depends on
    the input: the output laws for 'alpha' and 'bravo' are within a factor e^{0.02}, and a
    chi-square test of 4,000 + 4,000 draws does not tell them apart (p > 1e-6). Negative control:
    at epsilon = 3 the same test separates them. Each of the 8 words is nearest to about 6-16 % of
    directions (measured), so all must appear and the input's share stays below 1/4."""
    index, n = random_index(), 4000

    def table(epsilon: float) -> np.ndarray:
        mech = LaplaceMechanism(index=index, epsilon=epsilon)
        rows = [np.bincount(mech.sample(np.full(n, w), keyed_noise(10 + w, n)), minlength=8)
                for w in (0, 1)]
        return np.array(rows)

    spread = table(0.01)
    assert (spread > 0).all()
    assert spread[0, 0] / n < 0.25
    assert stats.chi2_contingency(spread).pvalue > ALPHA
    peaked = table(3.0)
    assert stats.chi2_contingency(peaked[:, peaked.sum(axis=0) > 0]).pvalue < ALPHA


@pytest.mark.parametrize("epsilon", [1e-310, 5e-324])
def test_epsilon_so_small_the_radius_overflows(epsilon: float) -> None:
    """QA B2: below about 1e-305 the radius Gamma(d)/epsilon is inf in float64, and the query
    became nan (no candidate, RuntimeError). Now the output is the candidate nearest the noise
    direction, the limit of z / r: exactly the same for every input under the same noise, and
    exactly the brute-force argmax of <u, c> over candidates (no warning either)."""
    index, n = random_index(min_length=5), 2000
    mech = LaplaceMechanism(index=index, epsilon=epsilon)
    with np.errstate(all="raise"):
        radii, directions = polar_noise(keyed_noise(13, n), index.store.dim, epsilon)
        outs = [mech.sample(np.full(n, w), keyed_noise(13, n)) for w in (0, 4, 7)]
    assert np.isinf(radii).all()
    assert np.array_equal(outs[0], outs[1]) and np.array_equal(outs[0], outs[2])
    cands = index.store.vectors[index.candidates].astype(np.float64)
    queries = directions.astype(np.float32).astype(np.float64)
    assert (outs[0] == index.candidates[(queries @ cands.T).argmax(axis=1)]).mean() > 0.99
    assert len(np.unique(outs[0])) == index.n_candidates  # spread over every candidate


def test_same_seed_same_output_different_seed_different_output() -> None:
    mech = LaplaceMechanism(index=random_index(), epsilon=1.0)
    ids = np.arange(200) % 8
    first = mech.sample(ids, keyed_noise(11, len(ids)))
    assert np.array_equal(first, mech.sample(ids, keyed_noise(11, len(ids))))
    assert not np.array_equal(first, mech.sample(ids, keyed_noise(12, len(ids))))


def test_a_tokens_output_depends_on_its_own_noise_only() -> None:
    """Reproducibility contract: token i's output is the same alone or in any batch."""
    mech = LaplaceMechanism(index=random_index(), epsilon=1.0)
    ids = np.arange(50) % 8
    noise = keyed_noise(13, len(ids))
    whole = mech.sample(ids, noise)
    alone = [int(mech.sample(ids[i : i + 1], noise.take(np.array([i])))[0]) for i in range(0, 50, 7)]
    assert alone == whole[::7].tolist()


@pytest.mark.parametrize(
    ("epsilon", "error"),
    [(0, ConfigError), (-1, ConfigError), (float("nan"), ConfigError), (float("inf"), ConfigError),
     (True, TypeError), ("1", TypeError), (None, TypeError)],
)
def test_invalid_epsilon_is_rejected(epsilon: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="epsilon"):
        LaplaceMechanism(index=random_index(), epsilon=epsilon)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1, 8])
def test_ids_outside_the_embedding_are_rejected(bad: int) -> None:
    mech = LaplaceMechanism(index=random_index(), epsilon=1.0)
    with pytest.raises(IndexError, match=str(bad)):
        mech.sample(np.array([0, bad]), keyed_noise(0, len(np.array([0, bad]))))


def test_empty_input() -> None:
    out = LaplaceMechanism(index=random_index(), epsilon=1.0).sample(np.array([], dtype=np.int64), keyed_noise(0, len(np.array([], dtype=np.int64))))
    assert out.shape == (0,) and out.dtype == np.int64


def test_registry_builds_it() -> None:
    assert available()["laplace"].params == ("epsilon",)
    mech = build_mechanism("laplace", random_index(), epsilon=1.0)
    assert isinstance(mech, LaplaceMechanism) and isinstance(mech, Mechanism)
    assert mech.name == "laplace" and mech.may_return_input
    with pytest.raises(ConfigError, match="does not take 'lam'"):
        build_mechanism("laplace", random_index(), epsilon=1.0, lam=0.5)


@pytest.mark.default_embedding
def test_default_embedding_decoding_matches_brute_force(default_index: NeighborIndex) -> None:
    ids = np.random.default_rng(14).integers(0, len(default_index.store), size=200)
    mech = LaplaceMechanism(index=default_index, epsilon=30.0)
    out = mech.sample(ids, keyed_noise(15, len(ids)))
    _brute_force_check(default_index, ids, mech.noise(keyed_noise(15, len(ids))), out)
