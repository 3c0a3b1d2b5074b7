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
from typing import TYPE_CHECKING

import numpy as np

from .._validate import positive_float
from ..noise import Noise, uniform
from .base import check_ids
from .nearsets import TypeCache, inverse_norms, unit_distance

if TYPE_CHECKING:
    from ..vectors.index import NeighborIndex

#: Nearest candidates kept with exact weights per word type (see ``near_size``).
NEAR_SIZE = 64
#: Without a near set every weight is <= 1 and >= exp(-epsilon * min(2, gamma) / 2) (unit
#: vectors are at most 2 apart), so uniform proposals need at most exp(epsilon min(2, gamma) / 2)
#: rounds per token. At or below this many rounds no per-type search is done.
UNIFORM_MAX_ROUNDS = 8.0
#: Tokens per block of per-token work (a memory and cache knob only: results do not depend on
#: it). 2,048 keeps a block's gathered vector rows (2 x 2,048 x 1.5 KB) in cache: the far
#: proposals' dot products ran 1.8x faster than with 16,384 (same bits).
_TOKEN_BLOCK = 1 << 11
#: Largest float64 below 1: u / p_near may round up to 1.0, which would land past the last
#: candidate with positive weight.
_BELOW_ONE = float(np.nextafter(1.0, 0.0))
#: Attempts per token in round r: 2**r, capped here; round r draws from noise stream r.
_MAX_ATTEMPTS = 256
#: Words per float64 (block x C) similarity matrix in :meth:`DistanceExponential.log_normalizers`.
_NORMALIZER_BLOCK = 256
#: Similarities above this are recomputed exactly as :meth:`DistanceExponential.distribution`
#: does (see :meth:`DistanceExponential.log_normalizers`); below it, a rounding of 1e-16 in s
#: moves a weight by less than epsilon * 1e-14 relative.
_NEAR_ONE = 1.0 - 1e-3


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
    over the C x d candidate matrix, about the cost of one row of the ``knn`` neighbor table.
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
        self._cache: TypeCache | None = None
        self._inv_norm: np.ndarray | None = None
        self._norm_shift: np.ndarray | None = None
        self._norm_total: np.ndarray | None = None
        self._cand64: np.ndarray | None = None

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

    # -- batched exact law (the optional BatchLaw capability of .base) -------------------------
    def log_normalizers(self, word_ids: np.ndarray) -> np.ndarray:
        """log Z(x) for each word x of ``word_ids``, Z(x) = sum over candidates c of
        exp(-epsilon * min(d(x, c), gamma) / 2), so that P(y | x) = exp(-epsilon * min(d(x, y),
        gamma) / 2 - log Z(x)).

        Computed with the formula of :meth:`distribution` (same similarities, rescaling and
        stabilising shift by the nearest candidate), in blocks of float64 matrix products
        X @ C.T (similarities within 1e-3 of 1 recomputed with distribution()'s dot-product
        kernel, see :data:`_NEAR_ONE`), and cached per word on this instance (16 bytes a word,
        plus a float64 copy of the candidate matrix, 8 C d bytes, kept once made).

        Args:
            word_ids: int64 array, shape (n,), word ids of the embedding.

        Returns:
            float64 array, shape (n,).
        """
        ids = check_ids(word_ids, len(self.index.store))
        shift, total = self._normalizer_parts(ids)
        return -0.5 * self.epsilon * shift + np.log(total)

    def likelihood(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """Exact P(y_i | x_i) for aligned arrays of word ids: ``distribution(x_i)`` at y_i.

        0 where y_i is not a candidate (never an output). Costs one dot product per pair plus
        :meth:`log_normalizers` of the distinct xs (cached).

        Args:
            xs: int64 array, shape (n,), input word ids.
            ys: int64 array, shape (n,), output word ids.

        Returns:
            float64 array, shape (n,), probabilities in [0, 1].
        """
        n_words = len(self.index.store)
        xs = check_ids(xs, n_words)
        ys = check_ids(ys, n_words)
        if len(xs) != len(ys):
            raise ValueError(f"need aligned xs and ys, got {len(xs)} and {len(ys)}")
        out = np.zeros(len(xs), dtype=np.float64)
        pos = self.index.candidate_positions(ys)
        hit = np.flatnonzero(pos >= 0)
        if len(hit) == 0:
            return out
        uniq, inverse = np.unique(xs[hit], return_inverse=True)
        shift, total = self._normalizer_parts(uniq)
        shift, total = shift[inverse.reshape(-1)], total[inverse.reshape(-1)]
        vecs, cand_vecs, inv_norm = self.index.store.vectors, self.index.candidate_vectors, self.inv_norm
        for s in _blocks(len(hit)):
            at, x, c = hit[s], xs[hit[s]], pos[hit[s]]
            sims = np.einsum("ij,ij->i", vecs[x], cand_vecs[c], dtype=np.float64)
            sims *= inv_norm[x] * inv_norm[self.index.candidates[c]]
            delta = np.minimum(unit_distance(sims), self.gamma)
            # delta >= shift (the nearest candidate's): the cap keeps P(y | x) <= 1 / Z <= 1
            out[at] = np.exp(np.minimum(0.0, -0.5 * self.epsilon * (delta - shift[s]))) / total[s]
        return out

    def _normalizer_parts(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(delta_min(x), sum_c exp(-epsilon/2 (delta(x, c) - delta_min(x)))) per id, cached."""
        n_words = len(self.index.store)
        if self._norm_shift is None or len(self._norm_shift) != n_words:
            self._norm_shift = np.full(n_words, np.nan)
            self._norm_total = np.full(n_words, np.nan)
        assert self._norm_total is not None
        todo = np.unique(ids[np.isnan(self._norm_total[ids])])
        if len(todo):
            cand = self.index.candidates
            if self._cand64 is None:
                self._cand64 = self.index.candidate_vectors.astype(np.float64)
            cand64 = self._cand64
            inv_c = self.inv_norm[cand]
            half_eps = 0.5 * self.epsilon
            for s in _blocks(len(todo), _NORMALIZER_BLOCK):
                block = todo[s]
                sims = self.index.store.vectors[block].astype(np.float64) @ cand64.T
                sims *= self.inv_norm[block][:, None] * inv_c[None, :]
                # d = sqrt(2 - 2 s) amplifies the rounding of s near 1 (d(x, x) is 0 or ~2e-8
                # depending on the summation order): redo those entries with the kernel of
                # distribution() and likelihood(), so all three agree there bit for bit. Each
                # row's nearest candidate is redone too: its delta is the shift, and a shift
                # off by one rounding (1e-16) scales P(y | x) by exp(epsilon * 1e-16), above 1
                # from epsilon ~ 1e15 and inf from ~ 1e19 (words outside the candidates: 'a').
                redo_mask = sims > _NEAR_ONE
                redo_mask[np.arange(len(block)), sims.argmax(axis=1)] = True
                rows, cols = np.nonzero(redo_mask)
                if len(rows):
                    redo = np.einsum("ij,ij->i", self.index.store.vectors[block[rows]],
                                     self.index.candidate_vectors[cols], dtype=np.float64)
                    redo *= self.inv_norm[block[rows]] * inv_c[cols]
                    sims[rows, cols] = redo
                delta = np.minimum(unit_distance(sims), self.gamma)
                low = delta.min(axis=1)
                self._norm_shift[block] = low
                self._norm_total[block] = np.exp(-half_eps * (delta - low[:, None])).sum(axis=1)
        return self._norm_shift[ids], self._norm_total[ids]

    # -- sampler -----------------------------------------------------------------------------
    def sample(self, ids: np.ndarray, noise: Noise) -> np.ndarray:
        """Replacement ids for ``ids``.

        Rejection sampling with the envelope g = w on N(x) and g = b on all C candidates. An
        attempt draws u ~ U[0, 1): if u < p_near = W_N / (W_N + C b) (W_N the total near weight)
        it takes the near candidate at CDF position u / p_near and succeeds; otherwise it proposes
        a uniform candidate y and succeeds with probability w(y) / b (one more uniform) unless y
        is in N(x). An attempt yields a near y with probability w(y) / (W_N + C b) and a far y
        with (C b / (W_N + C b)) (1 / C) w(y) / b, the same expression, so the first success
        follows w exactly. Tokens without a success get 2, 4, ... (at most 256) attempts in the
        next rounds, so a call takes few rounds even when some tokens need many attempts; on the
        default embedding a token needs 1 to 2.3 attempts on average.

        Round r of token i uses 3 * attempts(r) words of noise stream r of token i (u, proposal,
        coin per attempt), whatever other tokens are in the call or what is cached.
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
        n_cand = len(candidates)
        cand_vecs = self.index.candidate_vectors
        half_eps = 0.5 * self.epsilon
        pending = np.arange(n)
        attempts = 1
        stream = 0
        while len(pending):
            draws = uniform(noise.take(pending), 3 * attempts, stream).reshape(-1, 3)
            tok = np.repeat(pending, attempts)
            row = token_row[tok]
            u = draws[:, 0]
            p_near = table.p_near[row]
            near = np.flatnonzero(u < p_near)
            far = np.flatnonzero(u >= p_near)
            proposal = np.minimum((draws[far, 1] * n_cand).astype(np.int64), n_cand - 1)
            coin = draws[far, 2]
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
                kept = coin[s] < ratio
                hit = np.flatnonzero(kept)  # only a kept proposal needs the N(x) test
                kept[hit] = ~(table.pos[row[at[hit]]] == y[hit, None]).any(axis=1)
                choice[at] = y
                success[at] = kept
            tried = success.reshape(-1, attempts)
            first = tried.argmax(axis=1)
            done = tried[np.arange(len(pending)), first]
            out[pending[done]] = candidates[choice.reshape(-1, attempts)[done, first[done]]]
            pending = pending[~done]
            attempts = min(2 * attempts, _MAX_ATTEMPTS)
            stream += 1
        return out

    def resolved_near_size(self) -> int:
        """k actually used: ``near_size``, or the automatic rule, capped at C."""
        k = self.near_size
        if k is None:
            # log of the worst-case rounds, compared in log space: exp() overflows from epsilon ~ 710
            log_rounds = 0.5 * self.epsilon * min(2.0, self.gamma)
            k = 0 if log_rounds <= math.log(UNIFORM_MAX_ROUNDS) else NEAR_SIZE
        return max(0, min(int(k), self.index.n_candidates))

    def _type_cache(self) -> TypeCache:
        k = self.resolved_near_size()
        if self._cache is None or self._cache.k != k or self._cache.budget != self.cache_bytes:
            self._cache = TypeCache(self, k, int(self.cache_bytes))
        return self._cache


def _blocks(n: int, size: int = _TOKEN_BLOCK) -> list[slice]:
    return [slice(i, min(i + size, n)) for i in range(0, n, size)]


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
        index: neighbor index of the embedding (its candidates are the outputs).
        epsilon: privacy parameter, a finite number > 0.
    """

    name = "exponential"
    summary = "SanText exponential mechanism over all candidates, epsilon*d-private (Yue et al. 2021)"
    may_return_input = True

    def __init__(self, *, index: NeighborIndex, epsilon: float) -> None:
        super().__init__(index=index, epsilon=epsilon, gamma=math.inf)
