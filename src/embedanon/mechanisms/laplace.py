"""``laplace``: multivariate Laplace noise in the embedding, decoded to the nearest candidate word
(Feyisetan, Balle, Drake & Diethe, WSDM 2020).

The helpers here (:func:`laplace_noise`, :func:`nearest_candidates`) are shared
with :mod:`.mahalanobis`, which only reshapes the noise.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from .._validate import positive_float
from .base import check_ids, register

if TYPE_CHECKING:
    from ..vectors.index import NeighborIndex

#: Rows of noise held in memory at once (a memory knob only: the random stream, and so the
#: output, is the same for any value, because all radii are drawn before the directions).
CHUNK = 1 << 15


def laplace_noise(n: int, d: int, epsilon: float, rng: np.random.Generator,
                  chunk: int | None = None) -> Iterator[np.ndarray]:
    """Draw ``n`` vectors with density proportional to ``exp(-epsilon * ||x||_2)`` in R^d.

    In polar coordinates that density is proportional to ``r**(d-1) * exp(-epsilon * r)``
    (the sphere of radius r has area proportional to r**(d-1)) times the uniform law on
    directions, so x = r * u with r ~ Gamma(shape=d, scale=1/epsilon) and u uniform on the unit
    sphere (a normalised standard normal vector), independent.

    Draw order: all n radii (float64), then n * d standard normals (float32), row by row. It
    depends on n and d only, never on which words are perturbed.

    Args:
        n: number of vectors.
        d: dimension.
        epsilon: privacy parameter, > 0.
        rng: the only source of randomness.
        chunk: rows per yielded block (default :data:`CHUNK`).

    Yields:
        float32 arrays of shape (m, d), m <= chunk, n rows in all.
    """
    chunk = chunk or CHUNK
    radii = rng.gamma(shape=d, scale=1.0 / epsilon, size=n)
    for start in range(0, n, chunk):
        stop = min(start + chunk, n)
        gauss = rng.standard_normal((stop - start, d), dtype=np.float32)
        norms = np.linalg.norm(gauss, axis=1)
        # A zero vector has no direction; redraw it (rejection keeps the law exact). In float32
        # this needs d == 1 and a draw of exactly 0.0, so it essentially never runs.
        while not norms.all():
            zero = norms == 0
            gauss[zero] = rng.standard_normal((int(zero.sum()), d), dtype=np.float32)
            norms = np.linalg.norm(gauss, axis=1)
        gauss *= (radii[start:stop] / norms).astype(np.float32)[:, None]
        yield gauss


def nearest_candidates(index: NeighborIndex, vecs: np.ndarray) -> np.ndarray:
    """Word id of the candidate nearest to each row of ``vecs`` in Euclidean distance.

    Args:
        index: neighbour index of the embedding.
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
        raise RuntimeError("neighbour search found no candidate for a noisy vector")
    return ids[:, 0]


@register("laplace", "nearest word to the vector plus multivariate Laplace noise (Feyisetan et al. 2020)")
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
    which the guarantee requires. Vectorised: noise for all tokens, then batched searches of
    :data:`CHUNK` tokens (exact unless the index was built approximate).

    Args:
        index: neighbour index of the embedding.
        epsilon: privacy parameter, a finite number > 0; larger means less noise.
    """

    name = "laplace"
    may_return_input = True

    def __init__(self, *, index: NeighborIndex, epsilon: float) -> None:
        self.epsilon = positive_float("epsilon", epsilon)
        self.index = index
        self.dim = index.store.dim

    def noise(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """The noise vectors ``sample`` adds for n tokens, drawn the same way from ``rng``.

        Returns:
            float32 array, shape (n, d): rows r * u, norms r ~ Gamma(d, 1/epsilon).
        """
        return concat_blocks(laplace_noise(n, self.dim, self.epsilon, rng), self.dim)

    def sample(self, ids: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Replacement ids for ``ids``.

        Args:
            ids: int64 array, shape (n,), word ids of the embedding.
            rng: the only source of randomness.

        Returns:
            int64 array, shape (n,), candidate word ids.
        """
        ids = check_ids(ids, len(self.index.store))
        return perturb_and_decode(self.index, ids, laplace_noise(len(ids), self.dim, self.epsilon, rng))


def concat_blocks(blocks: Iterator[np.ndarray], dim: int) -> np.ndarray:
    """All noise blocks as one float32 (n, dim) array (n may be 0)."""
    parts = list(blocks)
    return np.concatenate(parts) if parts else np.zeros((0, dim), dtype=np.float32)


def perturb_and_decode(index: NeighborIndex, ids: np.ndarray, noise: Iterator[np.ndarray]) -> np.ndarray:
    """Nearest candidate to ``phi(ids[i]) + noise[i]`` for every i.

    Args:
        index: neighbour index of the embedding.
        ids: int64 array, shape (n,), valid word ids.
        noise: float32 blocks of shape (m, d), n rows in all, in order.

    Returns:
        int64 array, shape (n,), candidate word ids.
    """
    out = np.empty(len(ids), dtype=np.int64)
    vectors = index.store.vectors
    start = 0
    for block in noise:
        stop = start + len(block)
        block += vectors[ids[start:stop]]  # in place: the block is ours, float32 throughout
        out[start:stop] = nearest_candidates(index, block)
        start = stop
    return out
