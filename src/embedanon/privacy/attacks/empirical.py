"""An empirical-law attacker for mechanisms without a closed-form law (``laplace``, ``mahalanobis``).

The attacker knows the tool, so it can run the mechanism itself. :class:`EmpiricalLaw` estimates
P(y | x) by drawing ``draws`` outputs of the mechanism for each candidate input x (with its own
noise, independent of the release) and counting: P̂(y | x) = (count(x -> y) + a) / (draws + a C)
over the C candidates (a = ``smoothing``; 0 gives the plain frequency). The
candidate inputs of y are restricted as in :class:`~.likelihood.DenseLaw` (y's ``neighbors``
nearest words, y itself and the caller's extra words).

Any rule that ranks words is a valid guessing rule, so the figures it gives are, in
expectation, **lower bounds** on what an attacker with the same prior achieves: unseen pairs
score 0 (a miss) unless smoothed, and sampling error only makes the ranking worse than the exact
law's. Smoothing matters for the multi-release attack, where one unseen pair would otherwise zero
a product of likelihoods.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._validate import positive_int
from ...errors import ConfigError
from ...noise import GeneratorNoise
from ...vectors.index import NeighborIndex
from .likelihood import DenseLaw, Likelihood, likelihood_for

#: Pseudo-count of the attacks' empirical law (Jeffreys' 1/2, fixed a priori).
EMPIRICAL_SMOOTHING = 0.5


class EmpiricalLaw:
    """P̂(y | x) from ``draws`` runs of ``mechanism.sample`` per input word (cached per word).

    Args:
        mechanism: has ``sample(ids, noise)``.
        index: the neighbor index the mechanism was built on.
        draws: runs per input word.
        neighbors: nearest words of y considered as pre-images (see :class:`DenseLaw`).
        seed: seed of the attacker's own noise.
        smoothing: a >= 0, pseudo-count of every (input, candidate) pair (0.5: Jeffreys).
    """

    exact = False

    def __init__(self, mechanism: Any, index: NeighborIndex, *, draws: int = 200, neighbors: int = 50,
                 seed: int = 0, smoothing: float = 0.0) -> None:
        self.mechanism = mechanism
        self.index = index
        self.draws = positive_int("draws", draws)
        if not smoothing >= 0 or smoothing == float("inf"):
            raise ConfigError(f"smoothing must be a finite number >= 0, got {smoothing}")
        self.smoothing = float(smoothing)
        self._near = DenseLaw(mechanism, index, neighbors=neighbors)
        self._rng = np.random.default_rng(seed)
        self._sampled = np.zeros(len(index.store), dtype=bool)
        self._keys = np.zeros(0, dtype=np.int64)  # sorted x * V + y of the observed pairs
        self._counts = np.zeros(0, dtype=np.int64)

    def preimages(self, ys: np.ndarray, extra: np.ndarray | None = None) -> list[np.ndarray]:
        return self._near.preimages(ys, extra)

    def pairs(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        xs = np.asarray(xs, dtype=np.int64)
        ys = np.asarray(ys, dtype=np.int64)
        self.sample_inputs(xs)
        n = len(self.index.store)
        keys = xs * n + ys
        counts = np.zeros(len(xs))
        if len(self._keys):
            at = np.minimum(np.searchsorted(self._keys, keys), len(self._keys) - 1)
            counts = np.where(self._keys[at] == keys, self._counts[at], 0).astype(np.float64)
        a = self.smoothing
        estimate = (counts + a) / (self.draws + a * self.index.n_candidates)
        return np.where(self.index.candidate_positions(ys) >= 0, estimate, 0.0)

    def sample_inputs(self, xs: np.ndarray, block: int = 256) -> None:
        """Run the mechanism ``draws`` times on each word of ``xs`` not sampled yet."""
        todo = np.unique(np.asarray(xs, dtype=np.int64))
        todo = todo[~self._sampled[todo]]
        n = len(self.index.store)
        new_keys = [self._keys]
        new_counts = [self._counts]
        for start in range(0, len(todo), block):
            chunk = todo[start:start + block]
            inputs = np.repeat(chunk, self.draws)
            outputs = self.mechanism.sample(inputs, GeneratorNoise(self._rng, len(inputs)))
            keys, counts = np.unique(inputs * n + np.asarray(outputs, dtype=np.int64), return_counts=True)
            new_keys.append(keys)
            new_counts.append(counts)
            self._sampled[chunk] = True
        if len(new_keys) > 1:
            keys = np.concatenate(new_keys)
            order = np.argsort(keys, kind="stable")
            self._keys, self._counts = keys[order], np.concatenate(new_counts)[order]


def attacker_law(mechanism: Any, index: NeighborIndex, *, neighbors: int = 50, empirical_draws: int = 0,
                 smoothing: float = 0.0, seed: int = 0) -> Likelihood:
    """The likelihood an attacker who knows the tool uses: the exact law when the mechanism has
    one (:func:`~.likelihood.likelihood_for`), else, with ``empirical_draws`` > 0, an
    :class:`EmpiricalLaw` from that many runs per candidate input.

    Raises:
        ConfigError: no exact law and ``empirical_draws`` is 0.
    """
    if hasattr(mechanism, "distribution") or not empirical_draws:
        return likelihood_for(mechanism, index, neighbors=neighbors)
    return EmpiricalLaw(mechanism, index, draws=empirical_draws, neighbors=neighbors, seed=seed,
                        smoothing=smoothing)
