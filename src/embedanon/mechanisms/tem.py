"""``tem``: the Truncated Exponential Mechanism (Carvalho, Vasiloudis, Feyisetan & Wang,
"TEM: High Utility Metric Differential Privacy on Text", SDM 2023, arXiv 2107.07928)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .._validate import positive_float
from ..errors import ConfigError
from .exponential import DistanceExponential

if TYPE_CHECKING:
    from ..vectors.index import NeighborIndex

#: The paper's beta for the default threshold (its experiments use 0.001).
DEFAULT_BETA = 0.001
#: The smallest threshold: distances between unit vectors are resolved to about 2e-8 (a word's
#: distance to itself computes as up to 2.1e-8 on the default embedding), so a threshold near it
#: truncates a word's own distance like every other word's and the law turns uniform (decision
#: 0375). Any threshold keeps the epsilon*d guarantee; this one only keeps the law exact.
MIN_GAMMA = 1e-6


def default_gamma(epsilon: float, n_candidates: int, beta: float = DEFAULT_BETA) -> float:
    """The paper's threshold gamma = (2 / epsilon) * ln((1 - beta) * (|W| - 1) / beta).

    |W| is the number of output words (candidates). The paper derives it from its utility
    bound; with unit vectors (distances <= 2) it is above 2, where TEM equals ``exponential``,
    unless epsilon > ln((1 - beta) (|W| - 1) / beta) (about 16.9 for 21.7k candidates).
    """
    return (2.0 / epsilon) * math.log((1.0 - beta) * (n_candidates - 1) / beta)


class TemMechanism(DistanceExponential):
    """Truncated Exponential Mechanism (Carvalho et al., arXiv 2107.07928, Algorithm 1).

    Guarantee: epsilon*d-privacy per token (d the Euclidean distance between unit vectors):
    P(y | x) <= exp(epsilon * d(x, x')) * P(y | x') for all words x, x' and candidates y.

    Algorithm (paper): L_w = candidates within distance gamma of w; score f(y) = -d(w, y) for y in
    L_w and f(⊥) = -gamma + (2 / epsilon) * ln |W \\ L_w| for a special element ⊥ (absent when
    L_w is everything); add Gumbel(0, 2 / epsilon) noise to every score and take the argmax; if ⊥
    wins, output a uniform candidate outside L_w. The Gumbel-max is a softmax with temperature
    2 / epsilon, so ⊥ carries |W \\ L_w| * exp(-epsilon gamma / 2) and each outside word gets
    exp(-epsilon gamma / 2): the output law is exactly

        P(y | w) ∝ exp(-epsilon * min(d(w, y), gamma) / 2),

    the exponential mechanism with the distance truncated at gamma. min(d, gamma) changes by at
    most d(x, x') between inputs x, x' (triangle inequality), hence the guarantee. The log term
    in f(⊥) is what makes this hold: a bare -gamma would give ⊥ the same mass whatever the size
    of W \\ L_w, and the ratio of outside probabilities between two close words would follow the
    ratio of their outside-set sizes instead of their distance.

    This class samples that law exactly, per word type, with the rejection sampler of
    :class:`.DistanceExponential` (no range search or Gumbel draws per token, no (V, C) matrix).
    With ``gamma >= 2`` (the largest distance between unit vectors) TEM is ``exponential``.

    Args:
        index: neighbor index of the embedding (its candidates are W, the outputs).
        epsilon: privacy parameter, a finite number > 0.
        gamma: truncation threshold, a finite number >= :data:`MIN_GAMMA`; default
            :func:`default_gamma` with beta = 0.001, as in the paper, and at least
            :data:`MIN_GAMMA` (it falls below that only for epsilon above about 3e7).
    """

    name = "tem"
    summary = "truncated exponential mechanism, epsilon*d-private (Carvalho et al. 2021)"
    may_return_input = True

    def __init__(self, *, index: NeighborIndex, epsilon: float, gamma: float | None = None) -> None:
        epsilon = positive_float("epsilon", epsilon)
        if gamma is None:
            # below epsilon ~ 1e-307 the paper's threshold overflows to inf: no truncation, which
            # is its limit (any gamma >= 2 is the exponential mechanism on unit vectors)
            gamma = default_gamma(epsilon, index.n_candidates)
            if not math.isfinite(gamma):
                super().__init__(index=index, epsilon=epsilon, gamma=math.inf)
                return
            gamma = max(gamma, MIN_GAMMA)
        gamma = positive_float("gamma", gamma)
        if gamma < MIN_GAMMA:
            raise ConfigError(f"gamma must be at least {MIN_GAMMA:g} (distances between unit vectors are "
                              f"resolved to about 2e-8), got {gamma!r}")
        super().__init__(index=index, epsilon=epsilon, gamma=gamma)
