"""NeighborIndex: faiss search over the candidate vocabulary and cached neighbour tables.

Only candidate words (see :class:`CandidatePolicy`) are indexed, so every id this module returns is
a legal replacement. Ids are rows of the :class:`EmbeddingStore` (word ids), never faiss rows.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

import faiss
import numpy as np

from .._validate import positive_int
from ..errors import ConfigError
from ..leakguard import keys_are_variants
from .defaults import cache_dir
from .store import CandidatePolicy, EmbeddingStore

log = logging.getLogger(__name__)

#: Neighbour tables are computed this wide once and sliced for any smaller k.
TABLE_K = 50
_PAD = 24


class NeighborIndex:
    """Exact inner-product (cosine) search over an embedding's candidate words.

    Args:
        store: the embedding.
        policy: which words may be replacements.
        use_disk_cache: keep neighbour tables under ``$EMBEDANON_CACHE/tables``.
    """

    def __init__(self, store: EmbeddingStore, policy: CandidatePolicy | None = None, *,
                 use_disk_cache: bool = True) -> None:
        self.store = store
        self.policy = policy or CandidatePolicy()
        self.candidates = store.candidate_ids(self.policy)  # (C,) int64 word ids
        if len(self.candidates) < 2:
            raise ConfigError(
                f"embedding {store.name!r} has {len(self.candidates)} candidate words under "
                f"{self.policy}; at least 2 are needed"
            )
        self.candidate_vectors = np.ascontiguousarray(store.vectors[self.candidates])
        self.is_candidate = np.zeros(len(store), dtype=bool)
        self.is_candidate[self.candidates] = True
        self._faiss = faiss.IndexFlatIP(store.dim)
        self._faiss.add(self.candidate_vectors)
        self._tables: dict[int, np.ndarray] = {}
        self.use_disk_cache = use_disk_cache

    @property
    def n_candidates(self) -> int:
        return len(self.candidates)

    # -- raw search --------------------------------------------------------------------------
    def search(self, vecs: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """k nearest candidates of each query vector.

        Args:
            vecs: float32 array, shape (n, d), unit rows.
            k: number of neighbours.

        Returns:
            D: float32 (n, k) cosine similarities, best first.
            I: int64 (n, k) word ids; -1 where fewer than k candidates exist.
        """
        queries = np.ascontiguousarray(np.atleast_2d(vecs), dtype=np.float32)
        D, rows = self._faiss.search(queries, min(k, self.n_candidates))
        ids = np.where(rows >= 0, self.candidates[np.maximum(rows, 0)], -1)
        if k > self.n_candidates:
            pad = k - self.n_candidates
            ids = np.pad(ids, ((0, 0), (0, pad)), constant_values=-1)
            D = np.pad(D, ((0, 0), (0, pad)), constant_values=-np.inf)
        return D, ids

    # -- guarded neighbour lists -------------------------------------------------------------
    def guarded_neighbors(self, vec: np.ndarray, key: str, k: int) -> np.ndarray:
        """Ids of the k nearest candidates of ``vec`` that are not variants of word ``key``."""
        rows = self._guarded_rows(np.atleast_2d(vec), [key], k, self_ids=None)
        return rows[0]

    def table(self, k: int) -> np.ndarray:
        """Leak-guarded neighbour table: int32 (V, k), row w = the k nearest candidates of word w,
        best first, excluding w itself and every variant of w (see :mod:`embedanon.leakguard`)."""
        k = positive_int("k", k, maximum=self.n_candidates - 1)
        width = max(k, TABLE_K)
        if width not in self._tables:
            self._tables[width] = self._load_or_build(width)
        return self._tables[width][:, :k]

    def _cache_path(self, width: int) -> Path:
        name = f"{self.store.fingerprint}-{self.policy.key()}-k{width}.npy"
        return cache_dir() / "tables" / name

    def _load_or_build(self, width: int) -> np.ndarray:
        path = self._cache_path(width)
        if self.use_disk_cache and path.is_file():
            try:
                table = np.load(path)
                if table.shape == (len(self.store), width):
                    return table
            except (OSError, ValueError):
                pass  # a corrupt cache is rebuilt below
        width = min(width, self.n_candidates - 1)
        log.info("building neighbour table: %d words x %d", len(self.store), width)
        table = self._guarded_rows(
            self.store.vectors, self.store.words, width, self_ids=np.arange(len(self.store))
        ).astype(np.int32)
        if self.use_disk_cache:
            _atomic_save(path, table)
        return table

    def _guarded_rows(self, vecs: np.ndarray, keys: list[str], k: int,
                      self_ids: np.ndarray | None) -> np.ndarray:
        n = len(keys)
        out = np.full((n, k), -1, dtype=np.int64)
        todo = np.arange(n)
        search_k = min(k + _PAD, self.n_candidates)
        words = self.store.words
        while len(todo):
            _, ids = self.search(vecs[todo], search_k)
            unfinished = []
            for row, q in zip(ids, todo):
                key = keys[q]
                own = -1 if self_ids is None else int(self_ids[q])
                kept = [int(c) for c in row if c >= 0 and c != own
                        and not keys_are_variants(key, words[c])][:k]
                if len(kept) == k or search_k >= self.n_candidates:
                    if len(kept) < k:
                        raise ConfigError(
                            f"k={k} is too large: word #{q} has only {len(kept)} candidates that "
                            f"are not variants of itself"
                        )
                    out[q] = kept
                else:
                    unfinished.append(q)
            todo = np.asarray(unfinished, dtype=np.int64)
            search_k = min(search_k * 4, self.n_candidates)
        return out


def _atomic_save(path: Path, array: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npy.tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            np.save(fh, array)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
