"""``knn``: random replacement among nearest neighbours (Abdalla et al., JAMIA 2020)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._validate import positive_int
from .base import register

if TYPE_CHECKING:
    from ..vectors.index import NeighborIndex

DEFAULT_K = 10


@register("knn", "uniform draw among the k nearest candidates (Abdalla et al. 2020)")
class KnnMechanism:
    """Random replacement (Abdalla, Abdalla, Rudzicz & Hirst, JAMIA 2020).

    Guarantee: not differential privacy. Every word is replaced (100 % recall of sensitive words
    by design) and never by itself or a variant of itself (see :mod:`embedanon.leakguard`); an
    attacker who knows the embedding can narrow the original down to the words whose k-neighbour
    lists contain the replacement.

    Algorithm: look up word w's row of the leak-guarded neighbour table (its k nearest candidates
    by cosine, self and variants removed) and pick one uniformly: P(y | w) = 1/k for y in N_k(w).
    One table lookup per token.

    Args:
        index: neighbour index of the embedding.
        k: neighbourhood size, 1 <= k < number of candidates (default 10).
    """

    name = "knn"
    may_return_input = False

    def __init__(self, *, index: NeighborIndex, k: int = DEFAULT_K) -> None:
        self.k = positive_int("k", k, maximum=index.n_candidates - 1)
        self.table = index.table(self.k)

    def sample(self, ids: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        ids = np.asarray(ids, dtype=np.int64)
        picks = rng.integers(0, self.k, size=ids.shape[0])
        return self.table[ids, picks].astype(np.int64)

    def distribution(self, word_id: int) -> dict[int, float]:
        """Exact output distribution for one word: {replacement id: probability}."""
        return {int(j): 1.0 / self.k for j in self.table[word_id]}
