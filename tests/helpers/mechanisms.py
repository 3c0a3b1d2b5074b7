"""Hand-made mechanisms whose N_w is known exactly, for the calibration and recommendation tests."""

from __future__ import annotations

import numpy as np

from embedanon.noise import Noise, uniform
from embedanon.vectors.index import NeighborIndex


class KeepWithProbability:
    """Keeps the word with probability 1 - exp(-epsilon), else moves to the next word id:
    N_w = 1 - exp(-epsilon) exactly."""

    name = "keep"
    may_return_input = True

    def __init__(self, *, index: NeighborIndex, epsilon: float) -> None:
        self.p = 1 - np.exp(-epsilon)
        self.n = len(index.store)

    def sample(self, ids: np.ndarray, noise: Noise) -> np.ndarray:
        ids = np.asarray(ids, dtype=np.int64)
        return np.where(uniform(noise, 1)[:, 0] < self.p, ids, (ids + 1) % self.n)
