"""Near sets for the exponential-family sampler: per word type, its k nearest candidates with
exact weights and a bound on every other weight (see :class:`.exponential.DistanceExponential`).

Near sets depend only on the embedding and the candidate policy (not on epsilon or gamma); for
vocabularies that fit, they are computed once for every word and cached on disk. Per-type
sampling tables (weights under one epsilon) are kept in a bounded in-memory cache.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Protocol

import numpy as np

from .._cache import load_or_build
from ..vectors.exact import exact_top_k

if TYPE_CHECKING:
    from ..vectors.index import NeighborIndex



class DistanceLaw(Protocol):
    """What the near sets read of a distance-exponential mechanism
    (:class:`.exponential.DistanceExponential`)."""

    index: NeighborIndex
    epsilon: float
    gamma: float

    @property
    def inv_norm(self) -> np.ndarray:
        """float64 (V,) inverse norms of all word vectors."""
        ...


#: Added to the far similarity bound: covers float64 rounding between two dot products.
_SIM_SLACK = 1e-9
#: A sample call that meets new word types scores at least this many (see ``_prefetch``).
_PREFETCH = 256


def unit_distance(sims: np.ndarray) -> np.ndarray:
    """Euclidean distance between unit vectors from their inner product: sqrt(max(0, 2 - 2 s))."""
    return np.sqrt(np.maximum(0.0, 2.0 - 2.0 * np.asarray(sims, dtype=np.float64)))


def inverse_norms(vecs: np.ndarray) -> np.ndarray:
    """float64 (n,) 1 / ||v|| of float32 rows (1 for zero rows).

    Stored rows are unit only to float32 precision: with sims rescaled by these, d(x, x) is 0
    to 1e-8 instead of about sqrt(2 * 1e-7) = 4e-4, and d is a metric (the distance between the
    rows normalised in float64), as the privacy guarantee needs.
    """
    norms = np.sqrt(np.einsum("nd,nd->n", vecs, vecs, dtype=np.float64))
    norms[norms == 0] = 1.0
    return 1.0 / norms


def nearest_candidates(index: NeighborIndex, ids: np.ndarray, k: int,
                       inv_norm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The k candidates most similar (cosine, float64) to each word of ``ids``, exactly.

    Returns:
        pos: int64 (n, k), candidate positions (rows of ``index.candidates``), best first.
        sims: float64 (n, k), their cosine similarities.
    """
    ids = np.asarray(ids, dtype=np.int64)
    return exact_top_k(index.candidate_vectors, index.store.vectors[ids], k,
                       row_scale=inv_norm[index.candidates], query_scale=inv_norm[ids])


#: Vocabularies whose full near table fits in this many bytes get it precomputed and cached.
_NEAR_TABLE_MAX_BYTES = 256 << 20
_NEAR_TABLES: weakref.WeakKeyDictionary[NeighborIndex, dict[int, tuple[np.ndarray, np.ndarray]]] = (
    weakref.WeakKeyDictionary()
)


def near_table(index: NeighborIndex, k: int,
               inv_norm: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`nearest_candidates` of every word, computed once per embedding and kept on disk.

    The near sets depend only on the embedding and the candidate policy (not on epsilon or
    gamma), so one batched pass over the vocabulary replaces a scoring pass per new word type
    in every process. Returns (pos int32 (V, k), sims float64 (V, k)), or None when the table
    would exceed :data:`_NEAR_TABLE_MAX_BYTES` (types are then scored as they come).
    """
    n_words = len(index.store)
    if n_words * k * 12 > _NEAR_TABLE_MAX_BYTES:
        return None
    per_index = _NEAR_TABLES.setdefault(index, {})
    if k in per_index:
        return per_index[k]
    def build() -> dict[str, np.ndarray]:
        pos, sims = nearest_candidates(index, np.arange(n_words, dtype=np.int64), k, inv_norm)
        return {"pos": pos.astype(np.int32), "sims": sims}

    arrays = load_or_build(index.cache_path(f"near{k}"), build, enabled=index.use_disk_cache,
                           shapes={"pos": (n_words, k), "sims": (n_words, k)})
    table = (arrays["pos"], arrays["sims"])
    per_index[k] = table
    return table


class Tables:
    """Per-type sampling tables, rows aligned with a list of word types.

    Attributes:
        pos: int64 (U, k), candidate positions (rows of ``index.candidates``) of N(x), best first.
        cdf: float64 (U, k), normalised cumulative weights over N(x); last column exactly 1.
        p_near: float64 (U,), W_N / (W_N + C b): probability of the near branch in a round.
        delta_env: float64 (U,), b = exp(-epsilon / 2 * (delta_env - delta_min)): far weights
            are kept with probability exp(-epsilon / 2 * (delta(y) - delta_env)) <= 1.
    """

    __slots__ = ("pos", "cdf", "p_near", "delta_env")

    def __init__(self, n: int, k: int) -> None:
        self.pos = np.zeros((n, k), dtype=np.int64)
        self.cdf = np.ones((n, k), dtype=np.float64)
        self.p_near = np.zeros(n, dtype=np.float64)
        self.delta_env = np.zeros(n, dtype=np.float64)

    def put(self, rows: np.ndarray | slice, other: Tables, other_rows: np.ndarray | slice) -> None:
        self.pos[rows] = other.pos[other_rows]
        self.cdf[rows] = other.cdf[other_rows]
        self.p_near[rows] = other.p_near[other_rows]
        self.delta_env[rows] = other.delta_env[other_rows]


class TypeCache:
    """Tables of the word types seen so far; emptied when full (a deterministic, bounded cache)."""

    def __init__(self, mech: DistanceLaw, k: int, budget: int) -> None:
        self.mech = mech
        self.k = k
        self.budget = budget
        self.capacity = max(1, budget // (k * (8 + 8) + 8 + 8 + 8))
        self.slot = np.full(len(mech.index.store), -1, dtype=np.int64)
        self.tables = Tables(0, k)
        self.used = 0

    def lookup(self, types: np.ndarray) -> tuple[Tables, np.ndarray]:
        """Tables holding ``types`` (int64 (U,) word ids) and their rows in them.

        Missing types are computed (with a prefetch) and cached. Normally the rows are cache
        slots; when this call's types do not all fit, a private table is returned instead.
        """
        if self.k == 0:  # uniform proposals, envelope 1: nothing per type
            return Tables(1, 0), np.zeros(len(types), dtype=np.int64)
        slots = self.slot[types]
        missing = np.flatnonzero(slots < 0)
        if len(missing) == 0:
            return self.tables, slots
        todo = np.concatenate([types[missing], self._prefetch(types[missing])])
        fresh = self.compute(todo)
        if self.used + len(todo) <= self.capacity:
            self._insert(todo, fresh)
            return self.tables, self.slot[types]
        # Full: gather this call's rows, then empty the cache and refill it.
        mine = Tables(len(types), self.k)
        hit = np.flatnonzero(slots >= 0)
        mine.put(hit, self.tables, slots[hit])
        mine.put(missing, fresh, slice(0, len(missing)))
        self.slot.fill(-1)
        self.used = 0
        if len(types) > self.capacity:
            return mine, np.arange(len(types))
        self._insert(types, mine)
        return self.tables, self.slot[types]

    def _prefetch(self, missing: np.ndarray) -> np.ndarray:
        """Uncached word ids to score along with ``missing``, lowest ids first.

        One scoring pass streams all C candidate vectors, so a few missing types cost nearly as
        much as a block of them; embeddings list frequent words first, so filling the block with
        the lowest uncached ids warms the cache with the words most likely to come next. Never
        evicts: only while the cache has room.
        """
        want = min(_PREFETCH - len(missing), self.capacity - self.used - len(missing))
        if want <= 0:
            return missing[:0]
        free = np.flatnonzero(self.slot < 0)
        free = free[~np.isin(free, missing)]
        return free[:want]

    def _insert(self, types: np.ndarray, fresh: Tables) -> None:
        need = self.used + len(types)
        if need > len(self.tables.p_near):
            size = min(self.capacity, max(need, 2 * len(self.tables.p_near), 1024))
            grown = Tables(size, self.k)
            grown.put(slice(0, self.used), self.tables, slice(0, self.used))
            self.tables = grown
        self.tables.put(slice(self.used, need), fresh, slice(0, len(types)))
        self.slot[types] = np.arange(self.used, need)
        self.used = need

    def compute(self, types: np.ndarray) -> Tables:
        """Near sets, CDFs and far bounds of ``types`` (int64 (U,) word ids)."""
        index, k = self.mech.index, self.k
        n_cand = index.n_candidates
        half_eps, gamma = 0.5 * self.mech.epsilon, self.mech.gamma
        out = Tables(len(types), k)
        table = near_table(index, k, self.mech.inv_norm)
        if table is not None:
            pos, sims = table[0][types].astype(np.int64), table[1][types]
        else:
            pos, sims = nearest_candidates(index, types, k, self.mech.inv_norm)
        delta = np.minimum(unit_distance(sims), gamma)
        weights = np.exp(-half_eps * (delta - delta[:, :1]))
        cdf = np.cumsum(weights, axis=1)
        w_near = cdf[:, -1].copy()
        cdf /= w_near[:, None]
        cdf[:, -1] = 1.0
        out.pos[:] = pos
        out.cdf[:] = cdf
        if k < n_cand:  # every far candidate has similarity <= the k-th
            out.delta_env[:] = np.minimum(unit_distance(sims[:, -1] + _SIM_SLACK), gamma)
            bound = np.exp(-half_eps * (out.delta_env - delta[:, 0]))
            out.p_near[:] = w_near / (w_near + n_cand * bound)
        else:  # every candidate is near: no far branch
            out.p_near[:] = 1.0
        return out
