"""The one exact top-k inner-product search, independent of batching.

faiss' flat index computes small batches without BLAS (about 1.5 ms per query on 21.7k x 384),
and the float32 scores it returns can differ in the last bit with the batch shape, which could
flip near-ties between a run with ``--jobs 1`` and ``--jobs 2``. :func:`exact_top_k` instead
prefilters with a float32 GEMM and re-ranks in float64 with a proven error bound, ties broken by
the lower row, so each query's answer depends on that query alone and is exact.
"""

from __future__ import annotations

import numpy as np

#: Matrices up to this many rows are scored exactly (float64) for every query.
_EXACT_MAX_ROWS = 256
#: The float32 prefilter keeps about this many times k rows per query.
_PREFILTER_FACTOR = 3
_QUERY_BLOCK = 128


def exact_top_k(matrix: np.ndarray, queries: np.ndarray, k: int, *,
                row_scale: np.ndarray | None = None,
                query_scale: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The k rows of ``matrix`` with the largest scaled inner products with each query, exactly.

    The score of row c for query q is ``<q, matrix[c]> * query_scale[q] * row_scale[c]``
    computed in float64 (scales default to 1; pass inverse norms to rank by cosine). Up to
    :data:`_EXACT_MAX_ROWS` rows, all are scored in float64. Otherwise a float32 GEMM prefilters:
    it keeps the rows above a threshold tau taken from a strided sample of the scores (about
    3 k of them), and those within 2 * err of the k-th float32 score (the only ones that can be
    in the top k) are re-ranked in float64. The result is the exact top k whenever the k-th
    float64 score is >= tau + 2 * err (err bounds the float32 rounding, 2 * d * 2**-24, plus the
    scales' departure from 1), since a dropped row scores < tau + err; queries where that fails
    are redone with a lower tau. Either way every row outside the result scores <= the k-th
    one, and the result does not depend on which other queries share the GEMM.

    Args:
        matrix: float32 array, shape (C, d), rows of norm about 1 (or scaled to it).
        queries: float32 array, shape (n, d).
        k: 1 <= k <= C.
        row_scale: optional float64 (C,).
        query_scale: optional float64 (n,).

    Returns:
        pos: int64 (n, k), row positions in ``matrix``, best first (ties: lower row first).
        sims: float64 (n, k), their scores.
    """
    matrix = np.ascontiguousarray(matrix, dtype=np.float32)
    queries = np.atleast_2d(np.asarray(queries, dtype=np.float32))
    n_rows, dim = matrix.shape
    n = len(queries)
    if not 1 <= k <= n_rows:
        raise ValueError(f"k must be in [1, {n_rows}], got {k}")
    rs = np.ones(n_rows) if row_scale is None else np.asarray(row_scale, dtype=np.float64)
    qs = np.ones(n) if query_scale is None else np.asarray(query_scale, dtype=np.float64)
    pos = np.empty((n, k), dtype=np.int64)
    sims = np.empty((n, k), dtype=np.float64)
    if n_rows <= max(_EXACT_MAX_ROWS, _PREFILTER_FACTOR * k):
        for start in range(0, n, _QUERY_BLOCK):
            s = slice(start, min(start + _QUERY_BLOCK, n))
            full = np.einsum("bd,cd->bc", queries[s], matrix, dtype=np.float64)
            full *= qs[s, None] * rs
            cols = np.broadcast_to(np.arange(n_rows), full.shape)
            order = np.lexsort((cols, -full), axis=-1)[:, :k]
            pos[s] = order
            sims[s] = np.take_along_axis(full, order, axis=1)
        return pos, sims
    slack = max(float(np.abs(rs - 1.0).max()), float(np.abs(qs - 1.0).max()) if n else 0.0)
    err = 2.0 * dim * 2.0**-24 + 3.0 * slack
    stride = max(1, n_rows // 2048)
    sample_len = len(range(0, n_rows, stride))
    rank = max(1, min(sample_len, round(sample_len * _PREFILTER_FACTOR * k / n_rows)))
    for start in range(0, n, _QUERY_BLOCK):
        q = queries[start : start + _QUERY_BLOCK]
        approx = q @ matrix.T
        taus = -np.partition(-approx[:, ::stride], rank - 1, axis=1)[:, rank - 1]
        for i, row in enumerate(approx):
            tau = float(taus[i])
            query = q[i].astype(np.float64) * qs[start + i]
            while True:
                cols = np.flatnonzero(row >= tau)
                if len(cols) >= k:
                    # Only rows within 2 err of the k-th float32 score can make the top k.
                    kept = row[cols]
                    cols = cols[kept >= np.partition(kept, len(kept) - k)[len(kept) - k] - 2 * err]
                    exact = (matrix[cols].astype(np.float64) @ query) * rs[cols]
                    best = np.lexsort((cols, -exact))[:k]
                    if exact[best[-1]] >= tau + 2 * err:
                        pos[start + i] = cols[best]
                        sims[start + i] = exact[best]
                        break
                # rare: too few kept, or a near-tie at tau; lower tau and redo
                kth = float(np.partition(row, n_rows - k - 1)[n_rows - k - 1]) if k < n_rows else -np.inf
                tau = min(tau - 0.05, kth - 4 * err)
    return pos, sims
