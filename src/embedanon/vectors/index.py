"""NeighborIndex: faiss search over the candidate vocabulary and cached neighbor tables.

Only candidate words (see :class:`CandidatePolicy`) are indexed, so every id this module returns is
a legal replacement. Ids are rows of the :class:`EmbeddingStore` (word ids), never faiss rows.

Search is exact (``IndexFlatIP``) by default. ``approximate="hnsw"`` (or ``"auto"`` for very large
vocabularies) searches an HNSW graph instead, with efSearch calibrated to a target recall; recall
against exact search is measured by :meth:`NeighborIndex.recall` (``research/ann_recall.py``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import faiss
import numpy as np

from .._cache import load_or_build
from .._paths import cache_dir
from .._validate import fraction, positive_int
from ..errors import ConfigError
from ..leakguard import keys_are_variants, oov_variants
from .exact import exact_top_k
from .store import CandidatePolicy, EmbeddingStore

log = logging.getLogger(__name__)

#: Neighbor tables are computed this wide once and sliced for any smaller k.
TABLE_K = 50
_PAD = 24
#: Peak memory of building a neighbor table, per cell (word x neighbor). Measured: about 60
#: bytes of Python/numpy heap (tracemalloc, 6k words, widths 100-1000), and 5.4 GB resident for
#: k = 1000 on the 21.7k-word default embedding (about 250 bytes, with the search's scratch).
TABLE_BYTES_PER_CELL = 256


def check_table_memory(n_rows: int, k: int, *, limit_bytes: int | None = None) -> None:
    """Refuse a neighbor table of ``n_rows`` x ``k`` whose build would exceed the memory limit.

    Args:
        n_rows: words in the embedding (rows of the table).
        k: neighbors per row (the table is built at least :data:`TABLE_K` wide).
        limit_bytes: the limit (default: half the physical memory,
            :func:`~embedanon.vectors.store.memory_limit_bytes`).

    Raises:
        ConfigError: one line naming k, the estimate and the limit.
    """
    from .store import memory_limit_bytes

    limit = memory_limit_bytes() if limit_bytes is None else limit_bytes
    need = int(n_rows) * max(int(k), TABLE_K) * TABLE_BYTES_PER_CELL
    if need > limit:
        largest = max(limit // (max(int(n_rows), 1) * TABLE_BYTES_PER_CELL), 0)
        raise ConfigError(
            f"k={k} needs about {need / 2**30:.1f} GiB to build the neighbor table of {n_rows} "
            f"words, more than the {limit / 2**30:.1f} GiB limit (half the memory); choose k <= "
            f"{largest}")
#: Values accepted by ``NeighborIndex(approximate=...)`` (``None`` means ``"flat"``).
SEARCH_MODES = ("flat", "hnsw", "auto")
#: ``approximate="auto"`` searches exactly below this many candidate words, with HNSW from it on.
#: On 2 cores, 199k candidates x 100 d, exact batch search (2.8k queries/s) still beat HNSW at
#: recall@10 >= 0.95 (0.85k/s; single queries: 0.25k/s vs 0.5k/s); exact cost grows linearly, so
#: the batch crossover is probably near a million words (extrapolated; research/ann_recall.json).
AUTO_HNSW_MIN = 1_000_000
#: Calibration of efSearch (see :class:`HNSWParams`): queries, k, seed and the largest efSearch.
_CALIBRATION_SAMPLE, _CALIBRATION_K, _CALIBRATION_SEED, _MAX_EF_SEARCH = 500, 10, 0, 4096


@dataclass(frozen=True, slots=True)
class HNSWParams:
    """Parameters of the HNSW graph (faiss ``IndexHNSWFlat``, inner-product metric).

    How many search steps a given recall needs depends on the embedding: on clustered synthetic
    data efSearch = 128 gives recall@10 > 0.99; on a 317k-word word2vec embedding (min_count=1,
    199k candidates, d = 100) it gives 0.84 with these defaults, and 0.95 needs efSearch = 1024
    (2048 with m = 32; never with m = 16, ef_construction = 64), see ``research/ann_recall.json``.
    So by default efSearch is calibrated once, after building: starting at ``ef_search`` it is
    doubled (up to 4096) until recall@10 against exact search, measured on 500 candidate words
    with a fixed seed, reaches ``target_recall``.

    Attributes:
        m: graph degree (links per node per layer); memory grows by about ``2 * m * 4`` bytes/word.
        ef_construction: beam width while building; higher builds slower and a better graph.
        ef_search: beam width while searching (faiss uses ``max(ef_search, k)``); the starting
            point of the calibration when ``target_recall`` is set.
        target_recall: recall@10 that calibration aims for, in (0, 1]; ``None`` keeps
            ``ef_search`` as given.
    """

    m: int = 64
    ef_construction: int = 200
    ef_search: int = 128
    target_recall: float | None = 0.95

    def __post_init__(self) -> None:
        positive_int("m", self.m)
        positive_int("ef_construction", self.ef_construction)
        positive_int("ef_search", self.ef_search)
        if self.target_recall is not None:
            fraction("target_recall", self.target_recall)
            if self.target_recall == 0:
                raise ConfigError("target_recall must be a number in (0, 1] or None, got 0")

    def key(self) -> str:
        target = "" if self.target_recall is None else f"-r{self.target_recall:g}"
        return f"hnsw{self.m}-{self.ef_construction}-{self.ef_search}{target}"


def _resolve_mode(approximate: object, n_candidates: int) -> str:
    if approximate is None:
        return "flat"
    if not isinstance(approximate, str):
        raise TypeError(
            f"approximate must be None or one of {', '.join(SEARCH_MODES)}, "
            f"got {type(approximate).__name__} {approximate!r}"
        )
    if approximate not in SEARCH_MODES:
        raise ConfigError(
            f"approximate must be None or one of {', '.join(SEARCH_MODES)}, got {approximate!r}"
        )
    if approximate == "auto":
        return "hnsw" if n_candidates >= AUTO_HNSW_MIN else "flat"
    return approximate


class NeighborIndex:
    """Inner-product (cosine) search over an embedding's candidate words, exact or HNSW.

    Args:
        store: the embedding.
        policy: which words may be replacements.
        use_disk_cache: keep neighbor tables under ``$EMBEDANON_CACHE/tables``.
        approximate: ``None`` or ``"flat"`` for exact search; ``"hnsw"`` for an HNSW graph;
            ``"auto"`` for HNSW from :data:`AUTO_HNSW_MIN` candidates on, exact below and also
            when the graph misses ``hnsw.target_recall`` at the largest efSearch.
        hnsw: graph parameters for HNSW (default :class:`HNSWParams`).

    Attributes:
        mode: ``"flat"`` or ``"hnsw"``, the search actually used (``"auto"`` resolved).
        calibration: in HNSW mode, ``(ef_search, recall@10)`` pairs tried by the efSearch
            calibration, the one in use last; empty otherwise.
        _faiss: always the exact ``IndexFlatIP`` (recall reference; supports ``range_search``).
        _ann: the index :meth:`search`, :meth:`guarded_neighbors` and :meth:`table` query:
            ``_faiss`` itself in flat mode, an ``IndexHNSWFlat`` in HNSW mode.
    """

    def __init__(self, store: EmbeddingStore, policy: CandidatePolicy | None = None, *,
                 use_disk_cache: bool = True, approximate: str | None = None,
                 hnsw: HNSWParams | None = None) -> None:
        if hnsw is not None and not isinstance(hnsw, HNSWParams):
            raise TypeError(f"hnsw must be an HNSWParams, got {type(hnsw).__name__}")
        self.store = store
        self.policy = policy or CandidatePolicy()
        self.candidates = store.candidate_ids(self.policy)  # (C,) int64 word ids
        if len(self.candidates) < 2:
            raise ConfigError(
                f"embedding {store.name!r} has {len(self.candidates)} candidate words "
                f"({self.policy.describe()}); at least 2 are needed"
            )
        self.candidate_vectors = np.ascontiguousarray(store.vectors[self.candidates])
        self.is_candidate = np.zeros(len(store), dtype=bool)
        self.is_candidate[self.candidates] = True
        self._position = np.full(len(store), -1, dtype=np.int64)
        self._position[self.candidates] = np.arange(len(self.candidates))
        self.mode = _resolve_mode(approximate, len(self.candidates))
        self.hnsw = hnsw or HNSWParams()
        self._faiss = faiss.IndexFlatIP(store.dim)
        self._faiss.add(self.candidate_vectors)
        self._ann: faiss.Index = self._faiss
        self.calibration: list[tuple[int, float]] = []
        if self.mode == "hnsw":
            graph = faiss.IndexHNSWFlat(store.dim, self.hnsw.m, faiss.METRIC_INNER_PRODUCT)
            graph.hnsw.efConstruction = self.hnsw.ef_construction
            graph.hnsw.efSearch = self.hnsw.ef_search
            graph.add(self.candidate_vectors)
            self._ann = graph
            if self.hnsw.target_recall is not None:
                reached = self._calibrate(graph, self.hnsw.target_recall)
                if not reached and approximate == "auto":
                    log.warning("approximate='auto' falls back to exact search")
                    self.mode, self._ann = "flat", self._faiss
        self._tables: dict[int, np.ndarray] = {}
        self.use_disk_cache = use_disk_cache

    @property
    def n_candidates(self) -> int:
        return len(self.candidates)

    def candidate_positions(self, word_ids: np.ndarray) -> np.ndarray:
        """Positions in :attr:`candidates` of candidate word ids (int64, -1 for non-candidates)."""
        return self._position[np.asarray(word_ids, dtype=np.int64)]

    # -- raw search --------------------------------------------------------------------------
    def search(self, vecs: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """k nearest candidates of each query vector.

        Args:
            vecs: float32 array, shape (n, d), unit rows.
            k: number of neighbors.

        Returns:
            D: float32 (n, k) cosine similarities, best first.
            I: int64 (n, k) word ids; -1 where fewer than k candidates exist.
        """
        D, ids = self._search(self._ann, vecs, min(k, self.n_candidates))
        if k > self.n_candidates:
            pad = k - self.n_candidates
            ids = np.pad(ids, ((0, 0), (0, pad)), constant_values=-1)
            D = np.pad(D, ((0, 0), (0, pad)), constant_values=-np.inf)
        return D, ids

    def _search(self, index: faiss.Index, vecs: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``index.search`` with faiss rows mapped to word ids; -1 (and D = -inf) where missing."""
        queries = np.ascontiguousarray(np.atleast_2d(vecs), dtype=np.float32)
        D, rows = index.search(queries, k)
        missing = rows < 0  # HNSW may return fewer than k results
        ids = self.candidates[np.maximum(rows, 0)]
        if missing.any():
            ids[missing] = -1
            D[missing] = -np.inf
        return D, ids

    def recall(self, *, sample: int = 1000, k: int = 10,
               rng: np.random.Generator | None = None) -> float:
        """Recall@k of :meth:`search` against exact search, over a sample of candidate words.

        Each query is the vector of a sampled candidate word; the word itself is removed from both
        result lists (the neighbor table never contains it), so recall measures the k nearest
        *other* words. Recall is ``|approx & exact| / k``, averaged over the queries; it is 1.0 in
        flat mode.

        Args:
            sample: number of query words (at most the number of candidates), drawn without
                replacement.
            k: neighbors compared per query.
            rng: source of the sample (default: OS entropy).
        """
        k = positive_int("k", k, maximum=self.n_candidates - 1)
        sample = min(positive_int("sample", sample), self.n_candidates)
        rng = np.random.default_rng() if rng is None else rng
        rows = np.sort(rng.choice(self.n_candidates, size=sample, replace=False))
        queries = self.candidate_vectors[rows]
        _, exact = self._search(self._faiss, queries, k + 1)
        _, found = self._search(self._ann, queries, k + 1)
        return recall_at_k(exact, found, k, exclude=self.candidates[rows])

    def _calibrate(self, graph: faiss.IndexHNSWFlat, target: float) -> bool:
        """Double efSearch until recall@10 on a fixed sample reaches ``target`` (see HNSWParams);
        return whether it did."""
        k = min(_CALIBRATION_K, self.n_candidates - 1)
        rng = np.random.default_rng(_CALIBRATION_SEED)  # a fixed sample: same graph, same choice
        size = min(_CALIBRATION_SAMPLE, self.n_candidates)
        rows = np.sort(rng.choice(self.n_candidates, size=size, replace=False))
        queries = self.candidate_vectors[rows]
        _, exact = self._search(self._faiss, queries, k + 1)
        ef = self.hnsw.ef_search
        while True:
            graph.hnsw.efSearch = ef
            _, found = self._search(graph, queries, k + 1)
            self.calibration.append((ef, recall_at_k(exact, found, k, exclude=self.candidates[rows])))
            if self.calibration[-1][1] >= target or ef >= _MAX_EF_SEARCH:
                break
            ef = min(2 * ef, _MAX_EF_SEARCH)
        ef, recall = self.calibration[-1]
        if recall < target:
            log.warning("HNSW recall@%d is %.3f < %.3f at efSearch=%d (%d candidates); exact search "
                        "(approximate='flat') may be as fast", k, recall, target, ef, self.n_candidates)
            return False
        log.info("HNSW efSearch=%d gives recall@%d %.3f on %d words", ef, k, recall, size)
        return True

    # -- guarded neighbor lists -------------------------------------------------------------
    def guarded_neighbors_many(self, vecs: np.ndarray, keys: list[str], k: int) -> np.ndarray:
        """Batched :meth:`guarded_neighbors`: int64 (n, k) for float32 (n, d) unit ``vecs``."""
        return self._guarded_rows(np.atleast_2d(vecs), keys, k, self_ids=None)

    def guarded_neighbors(self, vec: np.ndarray, key: str, k: int) -> np.ndarray:
        """Ids of the k nearest candidates of ``vec`` that are not variants of word ``key``."""
        rows = self._guarded_rows(np.atleast_2d(vec), [key], k, self_ids=None)
        return rows[0]

    def table(self, k: int) -> np.ndarray:
        """Leak-guarded neighbor table: int32 (V, k), row w = the k nearest candidates of word w,
        best first, excluding w itself and every variant of w (see :mod:`embedanon.leakguard`)."""
        k = positive_int("k", k, maximum=self.n_candidates - 1)
        width = min(max(k, TABLE_K), self.n_candidates - 1)
        if width not in self._tables:
            self._tables[width] = self._load_or_build(width)
        table = self._tables[width][:, :k]
        short = np.flatnonzero(table[:, -1] < 0)
        if len(short):
            q = int(short[0])
            have = int((table[q] >= 0).sum())
            raise ConfigError(
                f"k={k} is too large: word #{q} has only {have} candidates that are not variants "
                f"of itself"
            )
        return table

    def cache_path(self, what: str) -> Path:
        """Cache file of an array derived from this embedding and candidate policy.

        The name binds the file to the embedding's content hash (``store.fingerprint``), the
        candidate policy, the search mode and ``what`` (array and width); inside, an HMAC over the
        name and the arrays is verified on every load (see :mod:`embedanon._cache`).
        """
        # Exact tables keep their historical name; approximate ones name the graph parameters.
        mode = "" if self.mode == "flat" else f"-{self.hnsw.key()}"
        return cache_dir() / "tables" / f"{self.store.fingerprint}-{self.policy.key()}{mode}-{what}.npz"

    def _load_or_build(self, width: int) -> np.ndarray:
        check_table_memory(len(self.store), width)

        def build() -> dict[str, np.ndarray]:
            log.info("building neighbor table: %d words x %d", len(self.store), width)
            # Rows that cannot be filled (tiny vocabularies) end in -1; table(k) checks its k columns.
            table = self._guarded_rows(
                self.store.vectors, self.store.words, width, self_ids=np.arange(len(self.store)),
                allow_short=True,
            ).astype(np.int32)
            return {"table": table}

        return load_or_build(self.cache_path(f"k{width}"), build, enabled=self.use_disk_cache,
                             shapes={"table": (len(self.store), width)})["table"]

    def _guarded_rows(self, vecs: np.ndarray, keys: list[str], k: int,
                      self_ids: np.ndarray | None, allow_short: bool = False) -> np.ndarray:
        """The k nearest candidates of each row of ``vecs`` that are neither ``self_ids[q]`` nor
        a variant of ``keys[q]``: int64 (n, k), best first.

        Rows with too many excluded words among their first ``k + _PAD`` neighbors are searched
        again, 4 times wider each round. The first round queries :attr:`_ann`; the later rounds,
        which concern few rows, query the exact index, which alone can prove that a word has fewer
        than k admissible neighbors.
        """
        n = len(keys)
        out = np.full((n, k), -1, dtype=np.int64)
        todo = np.arange(n)
        search_k = min(k + _PAD, self.n_candidates)
        words = self.store.words
        variants = keys_are_variants if self_ids is not None else oov_variants  # None: OOV words
        index = self._ann
        while len(todo):
            if self.mode == "flat":
                # BLAS GEMM + float64 re-rank: faster than faiss on small batches, and each row's
                # answer is independent of the batch (see embedanon.vectors.exact).
                ids = self.candidates[exact_top_k(self.candidate_vectors, vecs[todo], search_k)[0]]
            else:
                _, ids = self._search(index, vecs[todo], search_k)
            if self_ids is not None:
                ids[ids == np.asarray(self_ids)[todo, None]] = -1
            exhausted = index is self._faiss and search_k >= self.n_candidates
            unfinished = []
            # Plain Python ints (tolist) and an early stop at k keep this loop cheap; the leak
            # guard itself is a Python function, called once per inspected neighbor.
            for q, row in zip(todo.tolist(), ids.tolist(), strict=True):
                key = keys[q]
                kept = []
                for c in row:
                    if c >= 0 and not variants(key, words[c]):
                        kept.append(c)
                        if len(kept) == k:
                            break
                if len(kept) == k:
                    out[q] = kept
                elif exhausted and allow_short:
                    out[q, : len(kept)] = kept
                elif exhausted:
                    raise ConfigError(
                        f"k={k} is too large: word #{q} has only {len(kept)} candidates that "
                        f"are not variants of itself"
                    )
                else:
                    unfinished.append(q)
            todo = np.asarray(unfinished, dtype=np.int64)
            search_k = min(search_k * 4, self.n_candidates)
            index = self._faiss
        return out


def recall_at_k(exact: np.ndarray, found: np.ndarray, k: int,
                exclude: np.ndarray | None = None) -> float:
    """Mean recall@k of ``found`` against the reference lists ``exact``.

    Args:
        exact: int array (n, >= k), reference ids per query, best first; -1 = missing.
        found: int array (n, >= k), ids to evaluate, best first; -1 = missing.
        k: list length compared.
        exclude: optional int array (n,), one id per query removed from both lists before
            truncating to k (the query's own word).

    Returns:
        The mean over queries of ``|found[:k] & exact[:k]| / k``, in [0, 1].
    """
    exact = np.atleast_2d(exact)
    found = np.atleast_2d(found)
    if exact.shape[0] != found.shape[0]:
        raise ValueError(f"exact and found need the same number of rows, got {exact.shape}, "
                         f"{found.shape}")
    k = positive_int("k", k)
    total = 0
    for q, (ref, got) in enumerate(zip(exact.tolist(), found.tolist(), strict=True)):
        drop = -1 if exclude is None else int(exclude[q])
        ref_k = set([c for c in ref if c >= 0 and c != drop][:k])
        got_k = [c for c in got if c >= 0 and c != drop][:k]
        total += len(ref_k.intersection(got_k))
    return total / (k * max(len(exact), 1))
