"""The ``mahalanobis`` mechanism: covariance, whitened noise law, shaping, lam = 0, validation.

Statistical tests run at fixed seeds; thresholds come from stated bounds (see each docstring).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from embedanon.errors import ConfigError
from embedanon.mechanisms import Mechanism, available, build_mechanism
from embedanon.mechanisms.laplace import LaplaceMechanism
from embedanon.mechanisms.mahalanobis import MahalanobisMechanism
from embedanon.vectors.index import NeighborIndex
from embedanon.vectors.store import CandidatePolicy, EmbeddingStore
from tests.helpers.noise import keyed_noise

from .test_laplace import _brute_force_check

N = 20_000
ALPHA = 1e-6


def dkw_threshold(n: int, alpha: float = ALPHA) -> float:
    """t with P(sup |F_n - F| > t) <= alpha (DKW/Massart: P(D_n > t) <= 2 exp(-2 n t^2));
    0.019 for n = 20,000."""
    return math.sqrt(math.log(2 / alpha) / (2 * n))


def make_index(n_words: int, dim: int, stretch: tuple[float, ...] = (), seed: int = 0,
               min_length: int = 1) -> NeighborIndex:
    """Random words whose vectors are stretched along the first axes before normalising, so the
    embedding's covariance has clearly unequal eigenvalues."""
    vecs = np.random.default_rng(seed).normal(size=(n_words, dim))
    vecs[:, : len(stretch)] *= stretch
    words = [chr(97 + i // 26 // 26) + chr(97 + i // 26 % 26) + chr(97 + i % 26) + "x" * (i % 3)
             for i in range(n_words)]
    store = EmbeddingStore("test", words, vecs.astype(np.float32))
    return NeighborIndex(store, CandidatePolicy(min_length=min_length), use_disk_cache=False)


@pytest.fixture(scope="module")
def skewed() -> NeighborIndex:
    """300 words in R^8, stretched 4x and 2x along two axes."""
    return make_index(300, 8, stretch=(4.0, 2.0))


def reference_sigma(index: NeighborIndex, lam: float) -> np.ndarray:
    """Sigma_lam computed independently: numpy's biased covariance of the candidate vectors,
    divided by its mean variance, mixed with the identity."""
    cov = np.cov(index.candidate_vectors.astype(np.float64), rowvar=False, bias=True)
    d = cov.shape[0]
    return lam * cov / (np.trace(cov) / d) + (1 - lam) * np.eye(d)


def whitened(noise: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """Rows x mapped to L^{-1} x with sigma = L L^T: ||L^{-1} x|| = ||x||_RM."""
    return np.linalg.solve(np.linalg.cholesky(sigma), noise.astype(np.float64).T).T


# -- the metric -----------------------------------------------------------------------------------
@pytest.mark.parametrize("lam", [0.2, 0.8, 1.0])
def test_cov_root_squares_to_the_regularized_covariance(skewed: NeighborIndex, lam: float) -> None:
    mech = MahalanobisMechanism(index=skewed, epsilon=1.0, lam=lam)
    assert mech.cov_root is not None and mech.cov_root.dtype == np.float64
    sigma = reference_sigma(skewed, lam)
    root = mech.cov_root.astype(np.float64)
    np.testing.assert_allclose(root, root.T, atol=1e-6)
    np.testing.assert_allclose(root @ root, sigma, atol=1e-5)
    assert np.trace(sigma) == pytest.approx(8)  # same expected noise energy as laplace


@pytest.mark.parametrize("lam", [0.2, 0.8, 1.0])
def test_whitened_radius_follows_gamma(skewed: NeighborIndex, lam: float) -> None:
    """||noise||_RM for 20,000 draws against Gamma(d, 1/epsilon): the density is proportional to
    exp(-epsilon ||z||_RM) iff the whitened noise is multivariate Laplace. KS statistic below the
    DKW threshold t = 0.019 (a correct sampler exceeds it with probability <= 1e-6)."""
    epsilon = 3.0
    noise = MahalanobisMechanism(index=skewed, epsilon=epsilon, lam=lam).noise(keyed_noise(1, N))
    radii = np.linalg.norm(whitened(noise, reference_sigma(skewed, lam)), axis=1)
    assert stats.kstest(radii, stats.gamma(8, scale=1 / epsilon).cdf).statistic < dkw_threshold(N)


def test_renormalized_direction_fails_the_whitened_radius_test(skewed: NeighborIndex) -> None:
    """Negative control: shaping the direction and then renormalising it to unit length (so the
    Euclidean norm is Gamma) is a different law, not epsilon * d_RM private. Its statistic must
    exceed t; with the 4x-stretched axis it does by a wide margin."""
    epsilon, lam = 3.0, 0.8
    mech = MahalanobisMechanism(index=skewed, epsilon=epsilon, lam=lam)
    shaped = mech.noise(keyed_noise(1, N)).astype(np.float64)
    radii = np.random.default_rng(2).gamma(8, 1 / epsilon, size=N)
    wrong = shaped / np.linalg.norm(shaped, axis=1, keepdims=True) * radii[:, None]
    wrong_radii = np.linalg.norm(whitened(wrong, reference_sigma(skewed, lam)), axis=1)
    assert stats.kstest(wrong_radii, stats.gamma(8, scale=1 / epsilon).cdf).statistic > 2 * dkw_threshold(N)


def test_whitened_direction_is_uniform(skewed: NeighborIndex) -> None:
    """Projection of whitened directions on a fixed random axis:
    (u . v + 1)/2 ~ Beta((d-1)/2, (d-1)/2); KS below t = 0.019 (alpha 1e-6). The raw (unwhitened)
    directions fail the same test on the stretched axis (negative control)."""
    d, lam = 8, 0.8
    noise = MahalanobisMechanism(index=skewed, epsilon=1.0, lam=lam).noise(keyed_noise(3, N))
    beta = stats.beta((d - 1) / 2, (d - 1) / 2).cdf
    axis = np.random.default_rng(4).normal(size=d)
    axis /= np.linalg.norm(axis)

    def statistic(x: np.ndarray, v: np.ndarray) -> float:
        u = x / np.linalg.norm(x, axis=1, keepdims=True)
        return float(stats.kstest((u @ v + 1) / 2, beta).statistic)

    assert statistic(whitened(noise, reference_sigma(skewed, lam)), axis) < dkw_threshold(N)
    assert statistic(noise.astype(np.float64), np.eye(d)[0]) > 3 * dkw_threshold(N)


def test_noise_is_larger_along_the_top_principal_axis(skewed: NeighborIndex) -> None:
    """Variance of the noise along eigenvector v_i of Sigma_lam is E[r^2]/d * mu_i, with
    E[r^2] = d(d+1)/epsilon^2. The projection p has kurtosis 3(d+3)/(d+1) = 3.67 at d = 8, so
    the mean of 50,000 values p^2 has relative error sd sqrt(2.67/50,000) = 0.0073; a 10 %
    tolerance is 13 sd (Chebyshev alone bounds a miss by 0.5 %). Negative control: spherical
    (laplace, lam = 0) noise misses the shaped variances by far more than 10 %."""
    d, epsilon, lam, n = 8, 2.0, 0.8, 50_000
    mu, vecs = np.linalg.eigh(reference_sigma(skewed, lam))
    assert mu[-1] / mu[0] > 3  # the store is clearly anisotropic
    axes = vecs[:, [0, -1]]
    expected = (d + 1) / epsilon**2 * mu[[0, -1]]

    def variances(lam_: float) -> np.ndarray:
        mech = MahalanobisMechanism(index=skewed, epsilon=epsilon, lam=lam_)
        noise = mech.noise(keyed_noise(5, n))
        return ((noise.astype(np.float64) @ axes) ** 2).mean(axis=0)

    np.testing.assert_allclose(variances(lam), expected, rtol=0.1)
    spherical = variances(0.0)
    np.testing.assert_allclose(spherical, (d + 1) / epsilon**2, rtol=0.1)
    assert (np.abs(spherical / expected - 1) > 0.1).all()


# -- lam = 0 is laplace -----------------------------------------------------------------------------
def test_lam_zero_is_exactly_laplace(skewed: NeighborIndex) -> None:
    ids = np.random.default_rng(6).integers(0, 300, size=3000)
    mahalanobis = MahalanobisMechanism(index=skewed, epsilon=5.0, lam=0)
    laplace = LaplaceMechanism(index=skewed, epsilon=5.0)
    assert mahalanobis.cov_root is None
    assert np.array_equal(mahalanobis.sample(ids, keyed_noise(7, len(ids))),
                          laplace.sample(ids, keyed_noise(7, len(ids))))
    assert np.array_equal(mahalanobis.noise(keyed_noise(8, 100)),
                          laplace.noise(keyed_noise(8, 100)))


def test_lam_to_zero_converges_to_laplace_noise(skewed: NeighborIndex) -> None:
    """The lam > 0 path (matrix product) agrees with the identity shortcut as lam -> 0: with
    lam = 1e-6 the shaping moves each noise vector by at most ~ lam * (mu_max - 1) of its norm."""
    a = MahalanobisMechanism(index=skewed, epsilon=1.0, lam=1e-6).noise(keyed_noise(9, 500))
    b = LaplaceMechanism(index=skewed, epsilon=1.0).noise(keyed_noise(9, 500))
    assert np.abs(a - b).max() <= 1e-4 * np.linalg.norm(b, axis=1).max()


# -- decoding and behaviour -------------------------------------------------------------------------
def test_sample_is_the_nearest_candidate_to_the_noisy_vector() -> None:
    """Decoding against brute force with the same draws; words of 3 letters are not candidates
    (min_length 4), so outputs must be candidates even when inputs are not."""
    index = make_index(60, 8, stretch=(3.0,), min_length=4)
    assert 0 < index.n_candidates < 60
    ids = np.random.default_rng(10).integers(0, 60, size=2000)
    mech = MahalanobisMechanism(index=index, epsilon=5.0, lam=0.5)
    out = mech.sample(ids, keyed_noise(11, len(ids)))
    _brute_force_check(index, ids, mech.noise(keyed_noise(11, len(ids))), out)


def test_large_epsilon_returns_the_input(skewed: NeighborIndex) -> None:
    """The noise is r * Sigma^{1/2} u with ||Sigma^{1/2} u|| <= sqrt(mu_max); if that is below half
    the smallest gap between words the input is strictly nearest. At epsilon = 1e4 the chance any
    of 5,000 draws exceeds it is below 1e-9 (Gamma tail), so every output equals its input."""
    epsilon, lam, n = 1e4, 0.8, 5000
    vecs = skewed.store.vectors.astype(np.float64)
    gaps = np.linalg.norm(vecs[:, None] - vecs[None], axis=-1) + 3 * np.eye(len(vecs))
    reach = gaps.min() / 2 / math.sqrt(np.linalg.eigvalsh(reference_sigma(skewed, lam)).max())
    assert n * stats.gamma(8, scale=1 / epsilon).sf(reach) < 1e-9
    ids = np.random.default_rng(12).integers(0, 300, size=n)
    out = MahalanobisMechanism(index=skewed, epsilon=epsilon, lam=lam).sample(ids, keyed_noise(13, len(ids)))
    assert np.array_equal(out, ids)


def test_same_seed_same_output_different_seed_different_output(skewed: NeighborIndex) -> None:
    mech = MahalanobisMechanism(index=skewed, epsilon=1.0)
    ids = np.arange(200)
    first = mech.sample(ids, keyed_noise(14, len(ids)))
    assert np.array_equal(first, mech.sample(ids, keyed_noise(14, len(ids))))
    assert not np.array_equal(first, mech.sample(ids, keyed_noise(15, len(ids))))
    noise = keyed_noise(16, len(ids))  # a token's output depends on its own noise only
    whole = mech.sample(ids, noise)
    assert [int(mech.sample(ids[i : i + 1], noise.take(np.array([i])))[0]) for i in (0, 99, 199)] == (
        whole[[0, 99, 199]].tolist())


@pytest.mark.parametrize(
    ("params", "error", "name"),
    [({"epsilon": 0}, ConfigError, "epsilon"), ({"epsilon": float("nan")}, ConfigError, "epsilon"),
     ({"epsilon": True}, TypeError, "epsilon"), ({"epsilon": "1"}, TypeError, "epsilon"),
     ({"epsilon": 1.0, "lam": -0.1}, ConfigError, "lam"), ({"epsilon": 1.0, "lam": 1.5}, ConfigError, "lam"),
     ({"epsilon": 1.0, "lam": float("nan")}, ConfigError, "lam"),
     ({"epsilon": 1.0, "lam": float("inf")}, ConfigError, "lam"),
     ({"epsilon": 1.0, "lam": True}, TypeError, "lam"), ({"epsilon": 1.0, "lam": "0.2"}, TypeError, "lam")],
)
def test_invalid_parameters_are_rejected(skewed: NeighborIndex, params: dict, error: type[Exception],
                                         name: str) -> None:
    with pytest.raises(error, match=name):
        MahalanobisMechanism(index=skewed, **params)


def test_lam_one_needs_a_full_rank_covariance() -> None:
    """8 words in R^8 span at most 7 dimensions once centred: the lam = 1 metric is not a norm."""
    with pytest.raises(ConfigError, match="lam must be < 1"):
        MahalanobisMechanism(index=make_index(8, 8), epsilon=1.0, lam=1.0)
    MahalanobisMechanism(index=make_index(8, 8), epsilon=1.0, lam=0.99)


def test_registry_builds_it(skewed: NeighborIndex) -> None:
    assert available()["mahalanobis"].params == ("epsilon", "lam")
    mech = build_mechanism("mahalanobis", skewed, epsilon=1.0)
    assert isinstance(mech, MahalanobisMechanism) and isinstance(mech, Mechanism)
    assert mech.lam == 0.2 and mech.name == "mahalanobis" and mech.may_return_input
    assert build_mechanism("mahalanobis", skewed, epsilon=1.0, lam=0.5).lam == 0.5


@pytest.mark.default_embedding
def test_default_embedding(default_index: NeighborIndex) -> None:
    """The real embedding (d = 384): decoding matches brute force."""
    mech = MahalanobisMechanism(index=default_index, epsilon=30.0, lam=0.5)
    assert mech.cov_root is not None and mech.cov_root.shape == (384, 384)
    ids = np.random.default_rng(17).integers(0, len(default_index.store), size=200)
    out = mech.sample(ids, keyed_noise(18, len(ids)))
    _brute_force_check(default_index, ids, mech.noise(keyed_noise(18, len(ids))), out)
