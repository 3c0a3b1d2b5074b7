"""P(y | x) for the attacks: what a replacement y says about the mechanism's input x.

Two implementations of one :class:`Likelihood` protocol, chosen by :func:`likelihood_for` from the
mechanism's ``distribution(word_id)`` capability (an array over ``index.candidates`` or a dict
{candidate id: probability}):

* :class:`SparseLaw`: laws with small support, smaller than the candidate set (``knn``: 1/k on
  k neighbors), are inverted once
  into a reverse table, so the pre-images of y are *all* words x with P(y | x) > 0, exactly;
* :class:`DenseLaw`: laws over every candidate (``exponential``, ``tem``, evaluated in batches
  through their ``likelihood(xs, ys)`` when they have it); the pre-images of y
  are restricted to its ``neighbors`` nearest words, y itself and the caller's extra words (the
  most probable under the prior). Any restriction is a valid guessing rule, so figures are, in
  expectation, lower bounds on the Bayes-optimal attacker with the same prior.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from ..._validate import positive_int
from ...errors import ConfigError
from ...mechanisms.base import BatchLaw, TableLaw
from ...vectors.exact import exact_top_k
from ...vectors.index import NeighborIndex

#: A law with at most this many non-zero entries is inverted exactly (see :class:`SparseLaw`).
MAX_SPARSE_SUPPORT = 256
_BLOCK = 256


class Likelihood(Protocol):
    """Exact P(y | x) of a mechanism, and a candidate set of pre-images of y.

    Attributes:
        exact: whether :meth:`preimages` returns every x with P(y | x) > 0.
    """

    exact: bool

    def preimages(self, ys: np.ndarray, extra: np.ndarray | None = None) -> list[np.ndarray]:
        """For each y: int64 ascending word ids x considered as its pre-images."""
        ...

    def pairs(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """float64 (n,) P(y_i | x_i) for aligned int64 arrays of word ids."""
        ...


def _law_as_pairs(law: Any, index: NeighborIndex) -> tuple[np.ndarray, np.ndarray]:
    """(candidate word ids, probabilities) of the non-zero entries of one ``distribution()``."""
    if isinstance(law, dict):
        ys = np.fromiter((int(k) for k in law), dtype=np.int64, count=len(law))
        ps = np.fromiter((float(v) for v in law.values()), dtype=np.float64, count=len(law))
    else:
        law = np.asarray(law, dtype=np.float64)
        if law.shape != (index.n_candidates,):
            raise TypeError(f"distribution() must return {index.n_candidates} probabilities over "
                            f"the candidates, got shape {law.shape}")
        pos = np.flatnonzero(law)
        ys, ps = index.candidates[pos].astype(np.int64), law[pos]
    keep = ps > 0
    return ys[keep], ps[keep]


class SparseLaw:
    """Exact inverse of a law with small support, as a reverse table over every word.

    A mechanism with the :class:`~embedanon.mechanisms.base.TableLaw` capability (``knn``) is
    inverted from its table in a few array operations; any other from one ``distribution`` call
    per word (the plain reference, also taken with ``use_table=False``; tests compare both).

    Args:
        mechanism: has ``distribution(word_id)``.
        index: the neighbor index the mechanism was built on.
        use_table: read the mechanism's ``law_table()`` when it has one.
    """

    exact = True

    def __init__(self, mechanism: Any, index: NeighborIndex, *, use_table: bool = True) -> None:
        n = len(index.store)
        if use_table and isinstance(mechanism, TableLaw):
            xs, ys, ps = _table_pairs(mechanism, n)
        else:
            xs, ys, ps = _distribution_pairs(mechanism, index, n)
        order = np.lexsort((xs, ys))
        self._ys, self._xs, self._ps = ys[order], xs[order], ps[order]
        self._pair_keys = ys[order] * n + xs[order]  # sorted: (y, x) lexicographic
        self._n = n

    def preimages(self, ys: np.ndarray, extra: np.ndarray | None = None) -> list[np.ndarray]:
        ys = np.asarray(ys, dtype=np.int64)
        lo = np.searchsorted(self._ys, ys, "left")
        hi = np.searchsorted(self._ys, ys, "right")
        return [self._xs[a:b] for a, b in zip(lo.tolist(), hi.tolist(), strict=True)]

    def pairs(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        keys = np.asarray(ys, dtype=np.int64) * self._n + np.asarray(xs, dtype=np.int64)
        at = np.minimum(np.searchsorted(self._pair_keys, keys), len(self._pair_keys) - 1)
        found = self._pair_keys[at] == keys
        return np.where(found, self._ps[at], 0.0)


def _distribution_pairs(mechanism: Any, index: NeighborIndex,
                        n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, y, P(y | x)) of every non-zero entry, one ``distribution(x)`` call per word."""
    xs_parts, ys_parts, ps_parts = [], [], []
    for x in range(n):
        ys, ps = _law_as_pairs(mechanism.distribution(x), index)
        if len(ys) > MAX_SPARSE_SUPPORT:
            raise ConfigError(f"the law of word {x} has {len(ys)} outputs, more than "
                              f"{MAX_SPARSE_SUPPORT}: use DenseLaw")
        xs_parts.append(np.full(len(ys), x, dtype=np.int64))
        ys_parts.append(ys)
        ps_parts.append(ps)
    return np.concatenate(xs_parts), np.concatenate(ys_parts), np.concatenate(ps_parts)


def _table_pairs(mechanism: TableLaw, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, y, P(y | x)) of every non-zero entry from ``law_table()``, repeated ids summed."""
    ids, probs = mechanism.law_table()
    ids = np.asarray(ids, dtype=np.int64)
    probs = np.asarray(probs, dtype=np.float64)
    if ids.ndim != 2 or ids.shape != probs.shape or len(ids) != n:
        raise TypeError(f"law_table() must return two ({n}, s) arrays, got {ids.shape} and {probs.shape}")
    if ids.shape[1] > MAX_SPARSE_SUPPORT:
        raise ConfigError(f"the law table has {ids.shape[1]} outputs per word, more than "
                          f"{MAX_SPARSE_SUPPORT}: use DenseLaw")
    xs = np.repeat(np.arange(n, dtype=np.int64), ids.shape[1])
    keys = xs * n + ids.ravel()
    unique, inverse = np.unique(keys, return_inverse=True)
    sums = np.bincount(inverse.ravel(), weights=probs.ravel(), minlength=len(unique))
    keep = sums > 0
    return unique[keep] // n, unique[keep] % n, sums[keep]


class DenseLaw:
    """P(y | x) from ``distribution(x)`` over a restricted candidate set of pre-images.

    When the mechanism has the batched capability :class:`~embedanon.mechanisms.base.BatchLaw`
    (``exponential``, ``tem``: ``likelihood(xs, ys)``), :meth:`pairs` is one vectorized call to it
    (the mechanism caches each word's normalizer) and :meth:`prefetch` does nothing; otherwise
    each needed law comes from ``distribution(x)`` and is cached here.

    Args:
        mechanism: has ``distribution(word_id)``.
        index: the neighbor index the mechanism was built on.
        neighbors: nearest words of y (by cosine, over every word) considered as pre-images.
    """

    exact = False

    def __init__(self, mechanism: Any, index: NeighborIndex, *, neighbors: int = 50) -> None:
        self.mechanism = mechanism
        self.index = index
        self.neighbors = positive_int("neighbors", neighbors)
        self.batched = isinstance(mechanism, BatchLaw)
        self._cache: dict[int, dict[int, float]] = {}
        self._near: dict[int, np.ndarray] = {}
        self._columns: dict[int, int] = {}
        self._matrix: np.ndarray | None = None

    def prefetch(self, ys: np.ndarray) -> None:
        """Compute P(y | x) for every word x and each of ``ys`` once (one law per word).

        Afterwards :meth:`pairs` on these ys is a gather from a float64 (V, len(ys)) matrix, so
        callers that attack the same replacements under several priors or releases pay for each
        law once. Memory: 8 * V * len(ys) bytes. A no-op for a :class:`BatchLaw` mechanism,
        whose pairs cost one dot product each (plus a normalizer per word, cached).
        """
        if self.batched:
            return
        ys = np.unique(np.asarray(ys, dtype=np.int64))
        pos = self.index.candidate_positions(ys)  # -1: not a candidate, never an output
        matrix = np.zeros((len(self.index.store), len(ys)), dtype=np.float64)
        for x in range(len(self.index.store)):
            law = self.mechanism.distribution(x)
            if isinstance(law, dict):
                matrix[x] = [float(law.get(int(y), 0.0)) for y in ys.tolist()]
            else:
                matrix[x] = np.where(pos >= 0, np.asarray(law, dtype=np.float64)[np.maximum(pos, 0)], 0.0)
        self._columns = {int(y): j for j, y in enumerate(ys.tolist())}
        self._matrix = matrix

    def preimages(self, ys: np.ndarray, extra: np.ndarray | None = None) -> list[np.ndarray]:
        ys = np.asarray(ys, dtype=np.int64)
        extra = np.zeros(0, dtype=np.int64) if extra is None else np.asarray(extra, dtype=np.int64)
        near = self.nearest(ys)
        return [np.unique(np.concatenate([row, extra, [y]]).astype(np.int64))
                for y, row in zip(ys.tolist(), near, strict=True)]

    def nearest(self, ys: np.ndarray) -> list[np.ndarray]:
        """The ``neighbors`` nearest words of each y (by inner product, best first), cached per y on
        this instance."""
        ys = np.asarray(ys, dtype=np.int64)
        vecs = self.index.store.vectors
        size = len(vecs)
        todo = np.array(sorted({int(y) for y in ys.tolist()} - self._near.keys()), dtype=np.int64)
        for start in range(0, len(todo), _BLOCK):
            chunk = todo[start:start + _BLOCK]
            if self.neighbors >= size:
                near = np.broadcast_to(np.arange(size), (len(chunk), size))
            else:  # the one exact top-k (vectors.exact): ties go to the lower row
                near, _ = exact_top_k(vecs, vecs[chunk], self.neighbors)
            for y, row in zip(chunk.tolist(), near, strict=True):
                self._near[y] = np.array(row, dtype=np.int64)
        return [self._near[int(y)] for y in ys.tolist()]

    def pairs(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        xs = np.asarray(xs, dtype=np.int64)
        ys = np.asarray(ys, dtype=np.int64)
        if self.batched:
            return np.asarray(self.mechanism.likelihood(xs, ys), dtype=np.float64)
        if self._matrix is not None and all(int(y) in self._columns for y in np.unique(ys).tolist()):
            cols = np.array([self._columns[int(y)] for y in ys.tolist()], dtype=np.int64)
            return self._matrix[xs, cols]
        out = np.empty(len(xs), dtype=np.float64)
        todo: dict[int, set[int]] = {}
        for x, y in zip(xs.tolist(), ys.tolist(), strict=True):
            row = self._cache.get(x)
            if row is None or y not in row:
                todo.setdefault(x, set()).add(y)
        for x, needed in todo.items():
            law_ys, law_ps = _law_as_pairs(self.mechanism.distribution(x), self.index)
            order = np.argsort(law_ys)
            law_ys, law_ps = law_ys[order], law_ps[order]
            want = np.array(sorted(needed), dtype=np.int64)
            at = np.minimum(np.searchsorted(law_ys, want), max(len(law_ys) - 1, 0))
            hit = (law_ys[at] == want) if len(law_ys) else np.zeros(len(want), dtype=bool)
            values = np.where(hit, law_ps[at] if len(law_ys) else 0.0, 0.0)
            self._cache.setdefault(x, {}).update(zip(want.tolist(), values.tolist(), strict=True))
        for i, (x, y) in enumerate(zip(xs.tolist(), ys.tolist(), strict=True)):
            out[i] = self._cache[x][y]
        return out


def likelihood_for(mechanism: Any, index: NeighborIndex, *, neighbors: int = 50) -> Likelihood:
    """The likelihood of a mechanism with ``distribution(word_id)``: sparse if its laws are.

    Raises:
        ConfigError: the mechanism has no exact law (``laplace``, ``mahalanobis``).
    """
    if not hasattr(mechanism, "distribution"):
        raise ConfigError(f"mechanism {getattr(mechanism, 'name', '?')!r} has no exact law to attack")
    if isinstance(mechanism, BatchLaw):
        # A law over every candidate, evaluated in batches: never probed for a small support.
        # At a huge epsilon its float64 law underflows to one point, and inverting it word by
        # word would take one dense law per word (minutes; issue 34, defect 7).
        return DenseLaw(mechanism, index, neighbors=neighbors)
    probe, _ = _law_as_pairs(mechanism.distribution(0), index)
    if len(probe) <= MAX_SPARSE_SUPPORT and len(probe) < index.n_candidates:
        try:
            return SparseLaw(mechanism, index)
        except ConfigError:
            pass
    return DenseLaw(mechanism, index, neighbors=neighbors)
