"""``laplace``: multivariate Laplace noise in the embedding, decoded to the nearest candidate word
(Feyisetan, Balle, Drake & Diethe, WSDM 2020).

The helpers here (:func:`polar_noise`, :func:`perturb_and_decode`) are shared with
:mod:`.mahalanobis`, which only reshapes the noise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .._validate import positive_float
from ..noise import Noise, uniform
from .base import check_ids

if TYPE_CHECKING:
    from ..vectors.index import NeighborIndex

#: Tokens whose noise is held in memory at once (a memory knob only: every token's noise comes
#: from its own noise address, so the output is the same for any value).
CHUNK = 1 << 12
#: Streams of a token's noise: stream 0 holds the radius and the first direction; a direction
#: of norm zero (probability about 2**-53 per coordinate pair) is redrawn from the next stream.
_MAX_STREAMS = 64


def polar_noise(noise: Noise, d: int, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """Radii and directions of vectors with density proportional to ``exp(-epsilon * ||x||_2)``.

    In polar coordinates that density is proportional to ``r**(d-1) * exp(-epsilon * r)`` (the
    sphere of radius r has area proportional to r**(d-1)) times the uniform law on directions,
    so x = r * u with r ~ Gamma(shape=d, scale=1/epsilon) and u uniform on the unit sphere,
    independent. r is the inverse Gamma CDF of one uniform (exact law, no rejection); u is a
    normalised vector of d standard normals from Box-Muller pairs.

    Args:
        noise: n rows; each token uses ``2 * ceil(d / 2) + 1`` words of stream 0.
        d: dimension (>= 1).
        epsilon: privacy parameter, > 0.

    Returns:
        radii: float64 (n,), huge for tiny epsilon, and ``inf`` where the Gamma quantile divided
            by epsilon overflows float64 (epsilon below about 1e-305 for d = 384): see
            :func:`noisy_queries` for how an infinite radius is decoded.
        directions: float64 (n, d), unit rows.
    """
    from scipy.special import gammaincinv

    pairs = (d + 1) // 2
    n = len(noise)
    directions = np.empty((n, d), dtype=np.float64)
    todo = np.arange(n)
    radii = np.empty(n, dtype=np.float64)
    for stream in range(_MAX_STREAMS):
        u = uniform(noise.take(todo), 2 * pairs + 1, stream)
        if stream == 0:
            with np.errstate(over="ignore"):  # tiny epsilon: inf is the radius's limit, kept
                radii[:] = gammaincinv(d, u[:, 0]) / epsilon
        length = np.sqrt(-2.0 * np.log1p(-u[:, 1 : 1 + pairs]))  # 1 - u in (0, 1]
        angle = 2.0 * np.pi * u[:, 1 + pairs :]
        gauss = np.concatenate([length * np.cos(angle), length * np.sin(angle)], axis=1)[:, :d]
        norms = np.linalg.norm(gauss, axis=1)
        ok = norms > 0
        directions[todo[ok]] = gauss[ok] / norms[ok, None]
        todo = todo[~ok]
        if not len(todo):
            return radii, directions
    raise RuntimeError("could not draw a noise direction")  # probability below 2**-3000


def noisy_queries(vectors: np.ndarray, radii: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """float32 (n, d) queries whose best inner-product candidate is the nearest to
    ``vectors + radii * offsets`` (each row scaled by 1 / max(1, r), which keeps the ranking and
    keeps every value finite whatever epsilon is).

    An infinite radius (epsilon so small that the radius overflows float64) gives the query
    ``offsets`` alone: the limit of the scaled query as r grows, so the output is the candidate
    nearest the noise direction, whatever the input word. That is the mechanism's own limit, not
    a floor on epsilon: already at epsilon = 1e-300 the scaled input vector (about 1e-300)
    vanishes in float32, so releases just above and just below the overflow have the same law,
    and an output independent of the input satisfies every epsilon's guarantee.
    """
    scale = 1.0 / np.maximum(1.0, radii)
    with np.errstate(invalid="ignore"):  # inf * 0 where the radius overflowed, replaced below
        weight = np.where(np.isinf(radii), 1.0, radii * scale)
    return (vectors * scale[:, None] + offsets * weight[:, None]).astype(np.float32)


def nearest_candidates(index: NeighborIndex, vecs: np.ndarray) -> np.ndarray:
    """Word id of the candidate nearest to each row of ``vecs`` in Euclidean distance.

    Args:
        index: neighbor index of the embedding.
        vecs: float32 array, shape (m, d), any norms.

    Returns:
        int64 array, shape (m,), candidate word ids.
    """
    # The index ranks by inner product. For unit candidates c, ||z - c||^2 = ||z||^2 + 1 - 2<z, c>,
    # so the nearest candidate to z in Euclidean distance is the one of largest inner product
    # with z, whatever the norm of z: no need to normalise the noisy vectors. (An HNSW index
    # compares the same scores, so scaling z changes nothing there either; its answer may miss
    # the true nearest word, which costs utility, not privacy: it is still a function of z.)
    _, ids = index.search(vecs, 1)
    if (ids < 0).any():  # not on finite queries with k = 1, flat or HNSW
        raise RuntimeError("neighbor search found no candidate for a noisy vector")
    return ids[:, 0]


class LaplaceMechanism:
    """Multivariate Laplace mechanism (Feyisetan, Balle, Drake & Diethe, "Privacy- and
    utility-preserving textual analysis via calibrated multivariate perturbations", WSDM 2020).

    Guarantee: epsilon * d_2 metric differential privacy per token. For any two words x, x' and
    any output word y,
    ``P(M(x) = y) <= exp(epsilon * ||phi(x) - phi(x')||_2) * P(M(x') = y)``, where phi(w) is the
    unit embedding vector of w. The noisy vector z has density proportional to
    ``exp(-epsilon * ||z - phi(x)||_2)``, whose ratio between x and x' is bounded by the triangle
    inequality; decoding to a word is post-processing. Vectors are unit, so any two words are
    (2 * epsilon)-indistinguishable. Tokens get independent noise: a document's guarantee is the
    sum over positions that differ.

    Algorithm: z = phi(w) + r * u with r ~ Gamma(d, 1/epsilon) and u uniform on the unit sphere
    of R^d; output the candidate word nearest to z (Euclidean). A word may come back as itself,
    which the guarantee requires. Vectorised: noise and batched searches for blocks of
    :data:`CHUNK` tokens (exact unless the index was built approximate). The search query is
    z / max(1, r), which has the same nearest candidate and stays finite for any epsilon.

    Args:
        index: neighbor index of the embedding.
        epsilon: privacy parameter, a finite number > 0; larger means less noise.
    """

    name = "laplace"
    summary = "nearest word to the vector plus multivariate Laplace noise (Feyisetan et al. 2020)"
    may_return_input = True

    def __init__(self, *, index: NeighborIndex, epsilon: float) -> None:
        self.epsilon = positive_float("epsilon", epsilon)
        self.index = index
        self.dim = index.store.dim

    def noise(self, noise: Noise) -> np.ndarray:
        """The noise vectors ``sample`` adds for the tokens of ``noise``.

        Returns:
            float64 array, shape (n, d): rows r * u, norms r ~ Gamma(d, 1/epsilon).
        """
        radii, directions = polar_noise(noise, self.dim, self.epsilon)
        return directions * radii[:, None]

    def sample(self, ids: np.ndarray, noise: Noise) -> np.ndarray:
        ids = check_ids(ids, len(self.index.store))
        return perturb_and_decode(self.index, ids, noise,
                                  lambda part: polar_noise(part, self.dim, self.epsilon))


def perturb_and_decode(index: NeighborIndex, ids: np.ndarray, noise: Noise,
                       draw: Callable[[Noise], tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Nearest candidate to ``phi(ids[i]) + r_i * offset_i`` for every i, in blocks of tokens.

    Args:
        index: neighbor index of the embedding.
        ids: int64 array, shape (n,), valid word ids.
        noise: n rows of noise.
        draw: maps a block's noise to (radii float64 (m,), offsets float64 (m, d)).

    Returns:
        int64 array, shape (n,), candidate word ids.
    """
    out = np.empty(len(ids), dtype=np.int64)
    vectors = index.store.vectors
    for start in range(0, len(ids), CHUNK):
        rows = np.arange(start, min(start + CHUNK, len(ids)))
        radii, offsets = draw(noise.take(rows))
        out[rows] = nearest_candidates(index, noisy_queries(vectors[ids[rows]], radii, offsets))
    return out
