"""``exponential``: SanText's exponential mechanism over the whole candidate vocabulary
(Yue, Du, Wang, Li & Huang, Findings of ACL 2021).

The sampler here (:class:`DistanceExponential`) draws exactly from
``P(y | x) ∝ exp(-epsilon * min(d(x, y), gamma) / 2)``; :mod:`.tem` reuses it with a finite
``gamma``. It never holds a (V, C) matrix: per word type it keeps the k nearest candidates with
their exact weights and bounds every other weight by one constant, then samples by rejection,
which is exact (see :meth:`DistanceExponential.sample`). Memory is O(block x C) while a block of
new word types is scored, plus O(k) per cached type.
"""

from __future__ import annotations

import math
import weakref
from typing import TYPE_CHECKING

import numpy as np

from .._atomic import load_or_build
from .._validate import positive_float
from .base import check_ids, register

if TYPE_CHECKING:
    from ..vectors.index import NeighborIndex

#: Nearest candidates kept with exact weights per word type (see ``near_size``).
NEAR_SIZE = 64
#: Without a near set every weight is <= 1 and >= exp(-epsilon * min(2, gamma) / 2) (unit
#: vectors are at most 2 apart), so uniform proposals need at most exp(epsilon min(2, gamma) / 2)
#: rounds per token. At or below this many rounds no per-type search is done.
UNIFORM_MAX_ROUNDS = 8.0
#: Candidate vocabularies up to this size are scored exactly (float64) for every type.
_EXACT_MAX_CANDIDATES = 256
#: The float32 prefilter keeps about this many times k candidates per type.
_PREFILTER_FACTOR = 3
#: Added to the far similarity bound: covers float64 rounding between two dot products.
_SIM_SLACK = 1e-9
#: Word types per block of similarity computation; tokens per block of per-token work. Memory
#: knobs only: all random numbers of a rejection round are drawn before the blocks.
_TYPE_BLOCK = 128
_TOKEN_BLOCK = 1 << 14
#: A sample call that meets new word types scores at least this many (see ``_prefetch``).
_PREFETCH = 256
#: Largest float64 below 1: u / p_near may round up to 1.0, which would land past the last
#: candidate with positive weight.
_BELOW_ONE = float(np.nextafter(1.0, 0.0))


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


class DistanceExponential:
    """Exact sampler of ``P(y | x) ∝ exp(-epsilon * min(d(x, y), gamma) / 2)``, y a candidate.

    d is the Euclidean distance between the word vectors normalised to unit length (in float64,
    see :func:`inverse_norms`). With ``gamma = inf`` this is SanText's
    mechanism; with a finite ``gamma`` it is the output law of TEM (see :mod:`.tem`).

    The first time a word type x is seen, its k nearest candidates N(x) are found (exactly:
    :func:`nearest_candidates`); their weights w(y) = exp(-epsilon/2 * (delta(y) - delta_min))
    (delta = min(d, gamma), delta_min the nearest one's) are kept as a CDF, and every other
    candidate's weight is at most b = w at the k-th similarity. These O(k) numbers are cached per
    type (a call that meets new types also scores the lowest uncached ids, up to
    :data:`_PREFETCH` types: embeddings list frequent words first), bounded by ``cache_bytes``;
    the cache only saves time, the output never depends on it. Scoring a type costs one pass
    over the C x d candidate matrix, about the cost of one row of the ``knn`` neighbour table.
    When exp(epsilon * min(2, gamma) / 2) <= :data:`UNIFORM_MAX_ROUNDS`, k = 0: no search, plain
    uniform proposals with envelope 1.

    Attributes:
        near_size: k, or None (default) for the rule above with k = :data:`NEAR_SIZE`. May be set
            on an instance before sampling (tests do); it changes speed, never the law.
        cache_bytes: memory bound of the per-type cache (default 256 MiB, about 1 KB a type).
    """

    name = "distance_exponential"
    may_return_input = True
    near_size: int | None = None
    cache_bytes = 256 << 20

    def __init__(self, *, index: NeighborIndex, epsilon: float, gamma: float = math.inf) -> None:
        self.index = index
        self.epsilon = positive_float("epsilon", epsilon)
        self.gamma = float(gamma)
        self._cache: _TypeCache | None = None
        self._inv_norm: np.ndarray | None = None

    @property
    def inv_norm(self) -> np.ndarray:
        """float64 (V,) inverse norms of all word vectors (see :func:`inverse_norms`)."""
        if self._inv_norm is None:
            self._inv_norm = inverse_norms(self.index.store.vectors)
        return self._inv_norm

    # -- exact law ---------------------------------------------------------------------------
    def distribution(self, word_id: int) -> np.ndarray:
        """Exact output law for one word.

        Returns:
            float64 array, shape (C,): probabilities over ``index.candidates``, summing to 1.
        """
        word_id = int(check_ids(np.array([word_id]), len(self.index.store))[0])
        x = self.index.store.vectors[word_id]
        sims = np.einsum("cd,d->c", self.index.candidate_vectors, x, dtype=np.float64)
        sims *= self.inv_norm[word_id] * self.inv_norm[self.index.candidates]
        delta = np.minimum(unit_distance(sims), self.gamma)
        weights = np.exp(-0.5 * self.epsilon * (delta - delta.min()))
        return weights / weights.sum()

    # -- sampler -----------------------------------------------------------------------------
    def sample(self, ids: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Replacement ids for ``ids``.

        Rejection sampling with the envelope g = w on N(x) and g = b on all C candidates. An
        attempt draws u ~ U[0, 1): if u < p_near = W_N / (W_N + C b) (W_N the total near weight)
        it takes the near candidate at CDF position u / p_near and succeeds; otherwise it proposes
        a uniform candidate y (one integer) and succeeds with probability w(y) / b (one more
        uniform) unless y is in N(x). An attempt yields a near y with probability
        w(y) / (W_N + C b) and a far y with (C b / (W_N + C b)) (1 / C) w(y) / b, the same
        expression, so the first success follows w exactly. Tokens without a success get 2, 4,
        ... (at most 256) attempts in the next rounds, so a call takes few rounds even when some
        tokens need many attempts; on the default embedding a token needs 1 to 2.3 attempts on
        average (the worst case is near epsilon = 10).

        Random numbers are drawn per token in token order, round by round, so they depend on the
        sequence of words and their vectors only, never on id values or on what is cached.

        Args:
            ids: int64 array, shape (n,), word ids of the embedding.
            rng: the only source of randomness.

        Returns:
            int64 array, shape (n,), candidate word ids.
        """
        ids = check_ids(ids, len(self.index.store))
        n = len(ids)
        out = np.empty(n, dtype=np.int64)
        if n == 0:
            return out
        types, inverse = np.unique(ids, return_inverse=True)
        table, rows = self._type_cache().lookup(types)
        token_row = rows[inverse.reshape(-1)]
        word_vecs = self.index.store.vectors
        inv_norm = self.inv_norm
        candidates = self.index.candidates
        cand_vecs = self.index.candidate_vectors
        half_eps = 0.5 * self.epsilon
        pending = np.arange(n)
        attempts = 1
        while len(pending):
            tok = np.repeat(pending, attempts)
            row = token_row[tok]
            u = rng.random(len(tok))
            p_near = table.p_near[row]
            near = np.flatnonzero(u < p_near)
            far = np.flatnonzero(u >= p_near)
            proposal = rng.integers(0, len(candidates), size=len(far))
            coin = rng.random(len(far))
            choice = np.empty(len(tok), dtype=np.int64)
            success = np.zeros(len(tok), dtype=bool)
            success[near] = True
            for s in _blocks(len(near)):  # inverse CDF within the type's near set
                at = near[s]
                v = np.minimum(u[at] / p_near[at], _BELOW_ONE)
                pick = (table.cdf[row[at]] <= v[:, None]).sum(axis=1)
                choice[at] = table.pos[row[at], pick]
            for s in _blocks(len(far)):  # uniform proposal, kept with probability w(y) / b
                at, y = far[s], proposal[s]
                x = ids[tok[at]]
                sims = np.einsum("ij,ij->i", word_vecs[x], cand_vecs[y], dtype=np.float64)
                sims *= inv_norm[x] * inv_norm[candidates[y]]
                delta = np.minimum(unit_distance(sims), self.gamma)
                # <= 1 for far y; y in N(x) is refused below (the cap avoids overflow there)
                ratio = np.exp(np.minimum(0.0, -half_eps * (delta - table.delta_env[row[at]])))
                in_near = (table.pos[row[at]] == y[:, None]).any(axis=1)
                choice[at] = y
                success[at] = (coin[s] < ratio) & ~in_near
            tried = success.reshape(-1, attempts)
            first = tried.argmax(axis=1)
            done = tried[np.arange(len(pending)), first]
            out[pending[done]] = candidates[choice.reshape(-1, attempts)[done, first[done]]]
            pending = pending[~done]
            attempts = min(2 * attempts, 256)
        return out

    def resolved_near_size(self) -> int:
        """k actually used: ``near_size``, or the automatic rule, capped at C."""
        k = self.near_size
        if k is None:
            worst_rounds = math.exp(0.5 * self.epsilon * min(2.0, self.gamma))
            k = 0 if worst_rounds <= UNIFORM_MAX_ROUNDS else NEAR_SIZE
        return max(0, min(int(k), self.index.n_candidates))

    def _type_cache(self) -> _TypeCache:
        k = self.resolved_near_size()
        if self._cache is None or self._cache.k != k or self._cache.budget != self.cache_bytes:
            self._cache = _TypeCache(self, k, int(self.cache_bytes))
        return self._cache


def nearest_candidates(index: NeighborIndex, ids: np.ndarray, k: int,
                       inv_norm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The k candidates most similar to each query, exactly and independently of batching.

    Similarity is the float64 inner product of the float32 vectors, divided by their norms (see
    :func:`inverse_norms`); ties go to the lower candidate position. Up to
    :data:`_EXACT_MAX_CANDIDATES` candidates, all are scored in float64. Otherwise a float32 GEMM
    prefilters: it keeps the candidates above a threshold tau taken from a strided sample of the
    row (about 3 k of them), and those within 2 * err of the k-th float32 score (the only ones
    that can be in the top k) are re-ranked in float64. The result is the exact top k
    whenever the k-th float64 similarity is >= tau + 2 * err (err bounds the float32 rounding,
    2 * d * 2**-24, plus the norms' departure from 1), since a dropped candidate has similarity
    < tau + err; rows where that fails are redone with a lower tau. Either way every candidate
    outside the result has similarity <= the k-th one, and the result does not depend on which
    other queries share the GEMM.

    Args:
        index: the neighbour index (its candidate vectors).
        ids: int64 array, shape (n,), word ids of the queries.
        k: 1 <= k <= C.
        inv_norm: float64 array, shape (V,), :func:`inverse_norms` of all word vectors.

    Returns:
        pos: int64 (n, k), candidate positions (rows of ``index.candidates``), best first.
        sims: float64 (n, k), their similarities.
    """
    cand = index.candidate_vectors
    n_cand, dim = cand.shape
    n = len(ids)
    vecs = index.store.vectors
    inv_cand = inv_norm[index.candidates]
    pos = np.empty((n, k), dtype=np.int64)
    sims = np.empty((n, k), dtype=np.float64)
    if n_cand <= max(_EXACT_MAX_CANDIDATES, _PREFILTER_FACTOR * k):
        for s in _blocks(n, _TYPE_BLOCK):
            full = np.einsum("bd,cd->bc", vecs[ids[s]], cand, dtype=np.float64)
            full *= inv_norm[ids[s], None] * inv_cand
            cols = np.broadcast_to(np.arange(n_cand), full.shape)
            order = np.lexsort((cols, -full), axis=-1)[:, :k]
            pos[s] = order
            sims[s] = np.take_along_axis(full, order, axis=1)
        return pos, sims
    slack = float(np.abs(inv_norm - 1.0).max())
    err = 2.0 * dim * 2.0**-24 + 3.0 * slack
    stride = max(1, n_cand // 2048)
    sample_len = len(range(0, n_cand, stride))
    rank = max(1, min(sample_len, round(sample_len * _PREFILTER_FACTOR * k / n_cand)))
    for s in _blocks(n, _TYPE_BLOCK):
        q = vecs[ids[s]]
        approx = q @ cand.T
        taus = -np.partition(-approx[:, ::stride], rank - 1, axis=1)[:, rank - 1]
        for i, row in enumerate(approx):
            tau = float(taus[i])
            query = q[i].astype(np.float64) * inv_norm[ids[s.start + i]]
            while True:
                cols = np.flatnonzero(row >= tau)
                if len(cols) >= k:
                    # Only candidates within 2 err of the k-th float32 score can make the top k.
                    kept = row[cols]
                    cols = cols[kept >= np.partition(kept, len(kept) - k)[len(kept) - k] - 2 * err]
                    exact = (cand[cols].astype(np.float64) @ query) * inv_cand[cols]
                    best = np.lexsort((cols, -exact))[:k]
                    if exact[best[-1]] >= tau + 2 * err:
                        pos[s.start + i] = cols[best]
                        sims[s.start + i] = exact[best]
                        break
                # rare: too few kept, or a near-tie at tau; lower tau and redo
                kth = float(np.partition(row, n_cand - k - 1)[n_cand - k - 1])
                tau = min(tau - 0.05, kth - 4 * err)
    return pos, sims


#: Vocabularies whose full near table fits in this many bytes get it precomputed and cached.
_NEAR_TABLE_MAX_BYTES = 256 << 20
_NEAR_TABLES: weakref.WeakKeyDictionary[NeighborIndex, dict[int, tuple[np.ndarray, np.ndarray]]] = (
    weakref.WeakKeyDictionary()
)


def _near_table(index: NeighborIndex, k: int,
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


class _Tables:
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

    def put(self, rows: np.ndarray | slice, other: _Tables, other_rows: np.ndarray | slice) -> None:
        self.pos[rows] = other.pos[other_rows]
        self.cdf[rows] = other.cdf[other_rows]
        self.p_near[rows] = other.p_near[other_rows]
        self.delta_env[rows] = other.delta_env[other_rows]


class _TypeCache:
    """Tables of the word types seen so far; emptied when full (a deterministic, bounded cache)."""

    def __init__(self, mech: DistanceExponential, k: int, budget: int) -> None:
        self.mech = mech
        self.k = k
        self.budget = budget
        self.capacity = max(1, budget // (k * (8 + 8) + 8 + 8 + 8))
        self.slot = np.full(len(mech.index.store), -1, dtype=np.int64)
        self.tables = _Tables(0, k)
        self.used = 0

    def lookup(self, types: np.ndarray) -> tuple[_Tables, np.ndarray]:
        """Tables holding ``types`` (int64 (U,) word ids) and their rows in them.

        Missing types are computed (with a prefetch) and cached. Normally the rows are cache
        slots; when this call's types do not all fit, a private table is returned instead.
        """
        if self.k == 0:  # uniform proposals, envelope 1: nothing per type
            return _Tables(1, 0), np.zeros(len(types), dtype=np.int64)
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
        mine = _Tables(len(types), self.k)
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

    def _insert(self, types: np.ndarray, fresh: _Tables) -> None:
        need = self.used + len(types)
        if need > len(self.tables.p_near):
            size = min(self.capacity, max(need, 2 * len(self.tables.p_near), 1024))
            grown = _Tables(size, self.k)
            grown.put(slice(0, self.used), self.tables, slice(0, self.used))
            self.tables = grown
        self.tables.put(slice(self.used, need), fresh, slice(0, len(types)))
        self.slot[types] = np.arange(self.used, need)
        self.used = need

    def compute(self, types: np.ndarray) -> _Tables:
        """Near sets, CDFs and far bounds of ``types`` (int64 (U,) word ids)."""
        index, k = self.mech.index, self.k
        n_cand = index.n_candidates
        half_eps, gamma = 0.5 * self.mech.epsilon, self.mech.gamma
        out = _Tables(len(types), k)
        table = _near_table(index, k, self.mech.inv_norm)
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


def _blocks(n: int, size: int = _TOKEN_BLOCK) -> list[slice]:
    return [slice(i, min(i + size, n)) for i in range(0, n, size)]


@register("exponential", "SanText exponential mechanism over all candidates, epsilon*d-private "
                         "(Yue et al. 2021)")
class ExponentialMechanism(DistanceExponential):
    """SanText (Yue, Du, Wang, Li & Huang, "Differential Privacy for Text Analytics via Natural Text
    Sanitization", Findings of ACL 2021).

    Guarantee: epsilon*d-privacy (metric DP) per token, d the Euclidean distance between the
    words' unit vectors: P(y | x) <= exp(epsilon * d(x, x')) * P(y | x') for all words x, x' and
    candidates y. The numerator exp(-epsilon d(x, y) / 2) changes by at most exp(epsilon d(x, x')
    / 2) (triangle inequality), and so does the normaliser: hence the 1/2.

    Algorithm: P(y | x) = exp(-epsilon * ||phi(x) - phi(y)|| / 2) / Z(x) over every candidate y
    (the input word included when it is a candidate). Sampled exactly, per word type, without a
    (V, C) matrix: see :meth:`DistanceExponential.sample`.

    Args:
        index: neighbour index of the embedding (its candidates are the outputs).
        epsilon: privacy parameter, a finite number > 0.
    """

    name = "exponential"
    may_return_input = True

    def __init__(self, *, index: NeighborIndex, epsilon: float) -> None:
        super().__init__(index=index, epsilon=epsilon, gamma=math.inf)
