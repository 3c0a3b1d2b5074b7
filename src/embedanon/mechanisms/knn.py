"""``knn``: random replacement among nearest neighbors (Abdalla et al., JAMIA 2020)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._validate import positive_int
from ..noise import Noise, integers
from .base import check_ids

if TYPE_CHECKING:
    from ..vectors.index import NeighborIndex

DEFAULT_K = 10


class KnnMechanism:
    """Random replacement (Abdalla, Abdalla, Rudzicz & Hirst, JAMIA 2020).

    Guarantee: not differential privacy. Every word is replaced (100 % recall of sensitive words
    by design) and never by itself or a variant of itself (see :mod:`embedanon.leakguard`); an
    attacker who knows the embedding can narrow the original down to the words whose k-neighbor
    lists contain the replacement.

    Algorithm: look up word w's row of the leak-guarded neighbor table (its k nearest candidates
    by cosine, self and variants removed) and pick one uniformly: P(y | w) = 1/k for y in N_k(w).
    One table lookup per token; the pick is one keyed integer in [0, k).

    Args:
        index: neighbor index of the embedding.
        k: neighborhood size, 1 <= k < number of candidates (default 10).
    """

    name = "knn"
    summary = "uniform draw among the k nearest candidates (Abdalla et al. 2020)"
    may_return_input = False

    def __init__(self, *, index: NeighborIndex, k: int = DEFAULT_K) -> None:
        self.k = positive_int("k", k, maximum=index.n_candidates - 1,
                              why=f"the embedding has only {index.n_candidates} candidate words")
        self.index = index
        self.table = index.table(self.k)

    def sample(self, ids: np.ndarray, noise: Noise) -> np.ndarray:
        ids = check_ids(ids, len(self.table))
        return self.table[ids, integers(noise, self.k)].astype(np.int64)

    def distribution(self, word_id: int) -> np.ndarray:
        """Exact output law: 1/k on each of the word's k neighbors, as float64 (C,)."""
        word_id = int(check_ids(np.array([word_id]), len(self.table))[0])
        out = np.zeros(self.index.n_candidates, dtype=np.float64)
        np.add.at(out, self.index.candidate_positions(self.table[word_id]), 1.0 / self.k)
        return out

    def law_table(self) -> tuple[np.ndarray, np.ndarray]:
        """Every word's law at once (:class:`~embedanon.mechanisms.base.TableLaw`): its k
        neighbors, int64 (V, k), each with probability 1/k, float64 (V, k)."""
        ids = np.asarray(self.table, dtype=np.int64)
        return ids, np.full(ids.shape, 1.0 / self.k)
