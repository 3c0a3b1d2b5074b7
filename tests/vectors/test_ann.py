"""Approximate (HNSW) search in NeighborIndex, checked against brute-force numpy references.

The synthetic embedding is clustered Gaussian data (a few hundred "topics", each word a noisy copy of
its topic's direction), which, like real embeddings, has dense neighborhoods rather than uniform
noise. HNSW must reach recall@10 >= 0.95 on it with the default parameters; a deliberately weak
graph (M = 2, efSearch = 1) must not, so the recall measurement is shown to be able to fail.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

from embedanon.errors import ConfigError
from embedanon.leakguard import is_variant
from embedanon.vectors import index as index_module
from embedanon.vectors.index import HNSWParams, NeighborIndex, recall_at_k
from embedanon.vectors.store import CandidatePolicy, EmbeddingStore

ALL = CandidatePolicy(min_length=1)
WEAK = HNSWParams(m=2, ef_construction=2, ef_search=1, target_recall=None)


def _words(n: int) -> list[str]:
    """n distinct alphabetic words (bijective base 26 after a 'w')."""
    out = []
    for i in range(1, n + 1):
        letters = []
        while i:
            i, r = divmod(i - 1, 26)
            letters.append(chr(97 + r))
        out.append("w" + "".join(letters))
    return out


def _clustered(n: int, d: int, clusters: int, seed: int, spread: float = 1.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(clusters, d))
    centers /= np.linalg.norm(centers, axis=1, keepdims=True)
    labels = rng.integers(0, clusters, size=n)
    vecs = centers[labels] + rng.normal(scale=spread / np.sqrt(d), size=(n, d))
    return vecs.astype(np.float32)


@pytest.fixture(scope="module")
def big_store() -> EmbeddingStore:
    """20k words x 48 d, 200 clusters (seeded)."""
    return EmbeddingStore("clustered", _words(20_000), _clustered(20_000, 48, 200, seed=7))


@pytest.fixture(scope="module")
def hnsw_index(big_store: EmbeddingStore) -> NeighborIndex:
    return NeighborIndex(big_store, ALL, approximate="hnsw", use_disk_cache=False)


def _exact_knn(queries: np.ndarray, base: np.ndarray, k: int,
               exclude: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Brute-force inner-product top k (numpy only): similarities and rows, best first."""
    sims = queries.astype(np.float64) @ base.astype(np.float64).T
    if exclude is not None:
        sims[np.arange(len(queries)), exclude] = -np.inf
    rows = np.argsort(-sims, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(sims, rows, axis=1), rows


# -- exact mode against numpy ---------------------------------------------------------------------
def test_flat_search_matches_numpy_brute_force() -> None:
    rng = np.random.default_rng(3)
    words = _words(3000)
    vecs = _clustered(3000, 24, 30, seed=3)
    # a policy that drops a third of the words, so faiss rows and word ids differ
    policy = CandidatePolicy(min_length=1, allowlist=frozenset(words[i] for i in range(3000) if i % 3))
    store = EmbeddingStore("seeded", words, vecs)
    index = NeighborIndex(store, policy, use_disk_cache=False, approximate="flat")
    queries = rng.normal(size=(200, 24)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)

    D, ids = index.search(queries, 20)

    ref_D, ref_rows = _exact_knn(queries, store.vectors[index.candidates], 20)
    ref_ids = index.candidates[ref_rows]
    np.testing.assert_allclose(D, ref_D, atol=1e-5)
    # Ids may differ only between near-tied neighbors (float32 vs float64 rounding): the returned
    # id at each rank must have the reference similarity of that rank.
    got_sims = np.take_along_axis(queries.astype(np.float64) @ store.vectors.T.astype(np.float64),
                                  ids, axis=1)
    np.testing.assert_allclose(got_sims, ref_D, atol=1e-5)
    assert (ids == ref_ids).mean() > 0.999
    assert index._ann is index._faiss and index.mode == "flat"


# -- recall ----------------------------------------------------------------------------------------
def test_recall_at_k_by_hand() -> None:
    exact = np.array([[0, 1, 2, 3], [4, 5, 6, 7]])
    found = np.array([[0, 2, 9, -1], [5, 4, 7, 6]])
    assert recall_at_k(exact, found, 3) == pytest.approx((2 / 3 + 2 / 3) / 2)
    assert recall_at_k(exact, exact, 4) == 1.0
    # excluding each query's own id (0 and 4) shifts both lists before truncating to k:
    # [1, 2] vs [2, 9] and [5, 6] vs [5, 7]
    assert recall_at_k(exact, found, 2, exclude=np.array([0, 4])) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="same number of rows"):
        recall_at_k(exact, found[:1], 2)


@pytest.mark.slow
def test_hnsw_recall_is_at_least_095(hnsw_index: NeighborIndex) -> None:
    assert hnsw_index.mode == "hnsw" and hnsw_index._ann is not hnsw_index._faiss
    # calibration kept the starting efSearch, so this measures the default graph and efSearch
    assert [ef for ef, _ in hnsw_index.calibration] == [HNSWParams().ef_search]
    recall = hnsw_index.recall(sample=1000, k=10, rng=np.random.default_rng(1))
    assert recall >= 0.95, recall


@pytest.mark.slow
def test_calibration_raises_ef_search_until_the_target(big_store: EmbeddingStore) -> None:
    params = HNSWParams(m=8, ef_construction=16, ef_search=4, target_recall=0.95)
    index = NeighborIndex(big_store, ALL, approximate="hnsw", hnsw=params, use_disk_cache=False)
    efs = [ef for ef, _ in index.calibration]
    recalls = [r for _, r in index.calibration]
    assert efs == [4 * 2**i for i in range(len(efs))] and len(efs) > 1
    assert recalls[0] < 0.95 <= recalls[-1] and all(r < 0.95 for r in recalls[:-1])
    # An independent sample of 1000 queries agrees within sampling error: per-query recall has a
    # standard deviation of at most 0.5, so the mean's is <= 0.016 and usually ~0.005 here.
    assert index.recall(sample=1000, k=10, rng=np.random.default_rng(2)) >= 0.93


def test_unreachable_target_is_logged(big_store: EmbeddingStore, monkeypatch: pytest.MonkeyPatch,
                                      caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(index_module, "_MAX_EF_SEARCH", 2)
    params = HNSWParams(m=2, ef_construction=2, ef_search=1, target_recall=0.95)
    store = EmbeddingStore("t", big_store.words[:5000], big_store.vectors[:5000])
    with caplog.at_level(logging.WARNING, logger="embedanon.vectors.index"):
        index = NeighborIndex(store, ALL, approximate="hnsw", hnsw=params, use_disk_cache=False)
    assert [ef for ef, _ in index.calibration] == [1, 2]
    assert "HNSW recall@10 is" in caplog.text and "< 0.950 at efSearch=2" in caplog.text


@pytest.mark.slow
def test_weak_hnsw_fails_the_recall_bar(big_store: EmbeddingStore) -> None:
    """Negative control: the same measurement rejects a graph with M = 2 and efSearch = 1."""
    weak = NeighborIndex(big_store, ALL, approximate="hnsw", hnsw=WEAK, use_disk_cache=False)
    recall = weak.recall(sample=500, k=10, rng=np.random.default_rng(0))
    assert recall < 0.5, recall


def test_recall_agrees_with_numpy_reference(hnsw_index: NeighborIndex) -> None:
    """NeighborIndex.recall re-derived from a numpy brute force on the same sampled queries."""
    sample, k = 300, 10
    rows = np.sort(np.random.default_rng(5).choice(hnsw_index.n_candidates, size=sample, replace=False))
    base = hnsw_index.candidate_vectors
    _, truth = _exact_knn(base[rows], base, k, exclude=rows)
    _, found = hnsw_index.search(base[rows], k + 1)
    found_rows = np.searchsorted(hnsw_index.candidates, found)  # word ids -> candidate rows
    hits = 0
    for q in range(sample):
        mine = [r for r in found_rows[q].tolist() if r != rows[q]][:k]
        hits += len(set(mine) & set(truth[q].tolist()))
    expected = hits / (sample * k)
    measured = hnsw_index.recall(sample=sample, k=k, rng=np.random.default_rng(5))
    assert measured == pytest.approx(expected, abs=1e-3)


def test_flat_recall_is_one(big_store: EmbeddingStore) -> None:
    small = EmbeddingStore("small", big_store.words[:2000], big_store.vectors[:2000])
    index = NeighborIndex(small, ALL, use_disk_cache=False)
    assert index.recall(sample=200, k=10, rng=np.random.default_rng(1)) == 1.0


# -- HNSW mode through every search path -----------------------------------------------------------
def test_hnsw_search_returns_candidate_word_ids(big_store: EmbeddingStore) -> None:
    words, vecs = big_store.words[:4000], big_store.vectors[:4000]
    policy = CandidatePolicy(min_length=1, allowlist=frozenset(words[::2]))
    store = EmbeddingStore("half", words, vecs)
    index = NeighborIndex(store, policy, approximate="hnsw", use_disk_cache=False)
    D, ids = index.search(store.vectors[:300], 10)
    assert set(ids.ravel().tolist()) <= set(index.candidates.tolist())
    np.testing.assert_allclose(D, np.take_along_axis(store.vectors[:300] @ store.vectors.T, ids, axis=1),
                               atol=1e-5)
    assert (np.diff(D, axis=1) <= 1e-6).all()
    D, ids = index.search(store.vectors[:2], index.n_candidates + 3)  # k > candidates: padded
    assert (ids[:, -3:] == -1).all() and np.isneginf(D[:, -3:]).all()


@pytest.mark.slow
def test_hnsw_table_keeps_the_leak_guard_and_matches_exact() -> None:
    words = _words(3000)
    store = EmbeddingStore("t", words, _clustered(3000, 16, 40, seed=11))
    flat = NeighborIndex(store, ALL, use_disk_cache=False).table(10)
    approx = NeighborIndex(store, ALL, approximate="hnsw", use_disk_cache=False).table(10)
    assert approx.shape == flat.shape and approx.dtype == flat.dtype
    for wid, row in enumerate(approx.tolist()):
        assert wid not in row and len(set(row)) == 10
        assert not any(is_variant(words[wid], words[j]) for j in row)
    assert recall_at_k(flat, approx, 10) >= 0.95


class _HolesIndex:
    """Wraps a faiss index and keeps only 2 results in every other row, as HNSW may (I = -1)."""

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self.inner = inner

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        D, rows = self.inner.search(queries, k)
        D[::2, 2:] = -3.4e38
        rows[::2, 2:] = -1
        return D, rows


def test_minus_one_results_are_handled() -> None:
    store = EmbeddingStore("t", _words(500), _clustered(500, 16, 10, seed=2))
    index = NeighborIndex(store, ALL, use_disk_cache=False)
    reference = index.table(5).copy()
    index._tables.clear()
    index._ann = _HolesIndex(index._faiss)
    D, ids = index.search(store.vectors[:4], 6)
    assert (ids[::2, 2:] == -1).all() and np.isneginf(D[::2, 2:]).all() and (ids[1::2] >= 0).all()
    # rows left short (2 < k) by the holes are searched again, exactly: the table is unchanged
    np.testing.assert_array_equal(index.table(5), reference)


# -- configuration ---------------------------------------------------------------------------------
def test_auto_mode_switches_on_candidate_count(monkeypatch: pytest.MonkeyPatch) -> None:
    store = EmbeddingStore("t", _words(300), _clustered(300, 8, 5, seed=4))
    assert NeighborIndex(store, ALL, approximate="auto", use_disk_cache=False).mode == "flat"
    monkeypatch.setattr(index_module, "AUTO_HNSW_MIN", 300)
    assert NeighborIndex(store, ALL, approximate="auto", use_disk_cache=False).mode == "hnsw"


def test_auto_falls_back_to_exact_when_the_target_is_missed(monkeypatch: pytest.MonkeyPatch) -> None:
    store = EmbeddingStore("t", _words(3000), _clustered(3000, 32, 30, seed=4, spread=1.5))
    monkeypatch.setattr(index_module, "AUTO_HNSW_MIN", 1000)
    monkeypatch.setattr(index_module, "_MAX_EF_SEARCH", 1)
    params = HNSWParams(m=2, ef_construction=2, ef_search=1, target_recall=0.95)
    auto = NeighborIndex(store, ALL, approximate="auto", hnsw=params, use_disk_cache=False)
    assert auto.calibration[-1][1] < 0.95
    assert auto.mode == "flat" and auto._ann is auto._faiss
    assert auto.recall(sample=200, k=10, rng=np.random.default_rng(0)) == 1.0
    explicit = NeighborIndex(store, ALL, approximate="hnsw", hnsw=params, use_disk_cache=False)
    assert explicit.mode == "hnsw"  # asked for by name: kept, with a warning


def test_approximate_tables_have_their_own_cache_file() -> None:
    store = EmbeddingStore("t", _words(300), _clustered(300, 8, 5, seed=4))
    flat = NeighborIndex(store, ALL, use_disk_cache=False)
    approx = NeighborIndex(store, ALL, approximate="hnsw", hnsw=WEAK, use_disk_cache=False)
    assert flat.cache_path("k50") != approx.cache_path("k50")
    assert WEAK.key() in approx.cache_path("k50").name


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"approximate": "annoy"}, ConfigError, "approximate must be None or one of flat, hnsw, auto"),
        ({"approximate": 1}, TypeError, "approximate must be None or one of"),
        ({"hnsw": {"m": 8}}, TypeError, "hnsw must be an HNSWParams"),
    ],
)
def test_bad_arguments_are_refused(tiny_store: EmbeddingStore, kwargs: dict, error: type,
                                   match: str) -> None:
    with pytest.raises(error, match=match):
        NeighborIndex(tiny_store, ALL, use_disk_cache=False, **kwargs)


def test_bad_hnsw_params_are_refused() -> None:
    with pytest.raises(ConfigError, match="m must be an integer >= 1, got 0"):
        HNSWParams(m=0)
    with pytest.raises(TypeError, match="ef_search must be an integer"):
        HNSWParams(ef_search=1.5)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="target_recall must be a number in"):
        HNSWParams(target_recall=1.5)
    with pytest.raises(ConfigError, match="target_recall must be a number in"):
        HNSWParams(target_recall=0.0)
