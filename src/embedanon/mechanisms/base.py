"""What a mechanism is: the :class:`Mechanism` protocol and the optional :class:`ExactLaw`
capability.

A mechanism maps word ids to replacement word ids. It validates its parameters once, in a
keyword-only ``__init__``, holds no random state of its own and draws only from the
:class:`~embedanon.noise.Noise` it is given, row i for token i, so a token's output is a pure
function of (its word, the parameters, its noise address): the same whichever process, batch or
engine handles it.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from ..noise import Noise


@runtime_checkable
class Mechanism(Protocol):
    """Replaces words: ``sample(ids, noise) -> ids``.

    Attributes:
        name: registry name (``knn``, ``laplace``, ...).
        may_return_input: whether a word may come back as itself. True of the metric-DP
            mechanisms, whose guarantee requires it; then the pipeline applies no leak-guard
            redraw (a redraw that looks at the original word would change the mechanism's law).
            False of ``knn``, whose neighborhoods exclude the word and its variants; the
            pipeline then also redraws variants for words outside the embedding.
    """

    name: str
    may_return_input: bool

    def sample(self, ids: np.ndarray, noise: Noise) -> np.ndarray:
        """Replacement ids for ``ids``.

        Args:
            ids: int64 array, shape (n,), word ids of the embedding.
            noise: n rows of random words; row i is token i's, the only randomness used.

        Returns:
            int64 array, shape (n,), candidate word ids.
        """
        ...


@runtime_checkable
class ExactLaw(Protocol):
    """A mechanism whose output law is known in closed form (``knn``, ``exponential``, ``tem``).

    Optional capability :class:`BatchLaw` (``exponential``, ``tem``): the same law evaluated in
    batches, for callers (the attacks of :mod:`embedanon.privacy`) that need P(y | x) for many
    pairs; callers test for it with ``isinstance(mechanism, BatchLaw)`` and fall back to
    ``distribution`` otherwise.
    """

    def distribution(self, word_id: int) -> np.ndarray:
        """P(output = candidate j | word): float64 array (C,) over ``index.candidates``, sum 1."""
        ...


@runtime_checkable
class TableLaw(Protocol):
    """Optional capability of an :class:`ExactLaw` with small support (``knn``): every word's law
    as one table, so that the attacks invert it for the whole vocabulary in a few array
    operations instead of one ``distribution`` call per word.

    ``law_table()`` returns ``(ids, probabilities)``, int64 and float64 arrays of shape (V, s):
    row x lists word ids y (embedding rows, not candidate positions) with P(y | x) in the same
    cell; a repeated id counts with the sum of its cells, zero cells are ignored. It must agree
    with ``distribution`` (the attacks' tests compare both).
    """

    def law_table(self) -> tuple[np.ndarray, np.ndarray]:
        """``(ids, probabilities)``: int64 (V, s) word ids and float64 (V, s) their probabilities."""
        ...


@runtime_checkable
class BatchLaw(Protocol):
    """Optional capability of an :class:`ExactLaw`: its law for many (input, output) pairs at once.

    ``likelihood(xs, ys)[i]`` equals ``distribution(xs[i])`` at the candidate ``ys[i]`` (to
    float64 rounding, 1e-12 relative) and is 0 when ``ys[i]`` is not a candidate.
    """

    def log_normalizers(self, word_ids: np.ndarray) -> np.ndarray:
        """float64 (n,) log of the normalizing constant Z(x) of each word's law (cached)."""
        ...

    def likelihood(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """float64 (n,) P(output = ys[i] | input = xs[i]) for aligned int64 word-id arrays."""
        ...


def check_ids(ids: np.ndarray, n_words: int) -> np.ndarray:
    """``ids`` as an int64 array of shape (n,), every value a row of the embedding.

    Raises:
        IndexError: an id outside [0, n_words) (numpy would silently wrap negative ones).
    """
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)
    if len(ids) and (ids.min() < 0 or ids.max() >= n_words):
        bad = ids[(ids < 0) | (ids >= n_words)][0]
        raise IndexError(f"word ids must be in [0, {n_words}), got {bad}")
    return ids


def first_occurrence_unique(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unique values of ``ids`` in order of first occurrence, and the inverse map.

    Returns (uniques, inverse) with ``uniques[inverse] == ids``.
    """
    uniq, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return uniq[order], rank[inverse.reshape(-1)]
