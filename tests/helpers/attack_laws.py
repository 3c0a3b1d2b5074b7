"""Hand-made mechanisms with exact laws on a 12-word vocabulary, for the attack tests."""

from __future__ import annotations

import numpy as np

from embedanon.vectors.index import NeighborIndex
from embedanon.vectors.store import CandidatePolicy, EmbeddingStore

WORDS = ["apple", "bread", "cheese", "dinner", "eagle", "forest", "garden", "harbor", "island",
         "jungle", "kettle", "lemon"]


def twelve_word_index() -> NeighborIndex:
    """The 12 words with seeded random 6-d vectors; every word is a candidate."""
    vecs = np.random.default_rng(1).normal(size=(len(WORDS), 6)).astype(np.float32)
    return NeighborIndex(EmbeddingStore("twelve", WORDS, vecs), CandidatePolicy(min_length=1),
                         use_disk_cache=False)


class MatrixLaw:
    """A hand-made mechanism: P(y | x) = matrix[x, y] over the 12 candidates."""

    name = "matrix"

    def __init__(self, matrix: np.ndarray, *, may_return_input: bool = True) -> None:
        self.matrix = matrix
        self.may_return_input = may_return_input

    def distribution(self, word_id: int) -> np.ndarray:
        return self.matrix[word_id].copy()


def knn_like(k: int, seed: int) -> np.ndarray:
    """(12, 12) law uniform on k random other words per row (like knn)."""
    rng = np.random.default_rng(seed)
    out = np.zeros((12, 12))
    for x in range(12):
        out[x, rng.choice([j for j in range(12) if j != x], size=k, replace=False)] = 1 / k
    return out


def dense(seed: int) -> np.ndarray:
    """(12, 12) law with every entry positive (like the epsilon mechanisms)."""
    return np.random.default_rng(seed).dirichlet(np.full(12, 0.7), size=12)
