"""NeighborIndex: faiss ids against a brute-force numpy reference; guarded neighbor tables."""

from __future__ import annotations

import numpy as np
import pytest

from embedanon.errors import ConfigError
from embedanon.leakguard import is_variant
from embedanon.vectors.index import NeighborIndex
from embedanon.vectors.store import CandidatePolicy, EmbeddingStore

from ..conftest import make_store


def _brute_force(store: EmbeddingStore, cand: np.ndarray, queries: np.ndarray, k: int) -> np.ndarray:
    sims = queries @ store.vectors[cand].T
    order = np.argsort(-sims, axis=1, kind="stable")[:, :k]
    return cand[order]


def test_search_matches_brute_force_on_seeded_data() -> None:
    rng = np.random.default_rng(42)
    words = [f"w{i}x" for i in range(500)]  # 'w123x' are not alphabetic: use a policy without it
    store = EmbeddingStore("seeded", words, rng.normal(size=(500, 16)).astype(np.float32))
    index = NeighborIndex(store, CandidatePolicy(min_length=1, alphabetic=False), use_disk_cache=False)
    queries = rng.normal(size=(50, 16)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    D, ids = index.search(queries, 10)
    ref = _brute_force(store, index.candidates, queries, 10)
    np.testing.assert_array_equal(ids, ref)
    np.testing.assert_allclose(D, np.take_along_axis(queries @ store.vectors.T, ids, axis=1), rtol=1e-5)


def test_search_pads_with_minus_one(tiny_index: NeighborIndex) -> None:
    D, ids = tiny_index.search(tiny_index.store.vectors[:2], 12)
    assert ids.shape == (2, 12)
    assert (ids[:, 8:] == -1).all() and (ids[:, :8] >= 0).all()


def test_only_candidates_are_indexed() -> None:
    store = make_store(["alpha", "b", "charlie", "x9", "delta", "echo"])
    index = NeighborIndex(store, CandidatePolicy(min_length=2), use_disk_cache=False)
    assert sorted(store.words[i] for i in index.candidates) == ["alpha", "charlie", "delta", "echo"]
    _, ids = index.search(store.vectors, 4)
    assert set(ids.ravel().tolist()) <= set(index.candidates.tolist())


def test_table_excludes_self_and_variants() -> None:
    words = ["john", "johns", "johnny", "james", "mary", "marie", "patient", "patients", "doctor",
             "nurse", "alpha", "bravo"]
    store = make_store(words, dim=4, seed=1)
    index = NeighborIndex(store, CandidatePolicy(min_length=1), use_disk_cache=False)
    table = index.table(3)
    for wid, row in enumerate(table):
        assert wid not in row
        for j in row:
            assert not is_variant(words[wid], words[j]), (words[wid], words[j])
    # the rows are the nearest allowed ones, in order
    allowed = [j for j in np.argsort(-(store.vectors @ store.vectors[0]))
               if j != 0 and not is_variant("john", words[j])]
    assert table[0].tolist() == allowed[:3]


def test_table_is_cached_on_disk(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("EMBEDANON_CACHE", str(tmp_path))
    store = make_store(["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"])
    first = NeighborIndex(store, CandidatePolicy(min_length=1)).table(2)
    files = list((tmp_path / "tables").glob("*.npz"))
    assert len(files) == 1
    second = NeighborIndex(store, CandidatePolicy(min_length=1)).table(2)
    np.testing.assert_array_equal(first, second)


def test_k_too_large_is_refused(tiny_index: NeighborIndex) -> None:
    with pytest.raises(ConfigError, match="k must be at most 7"):
        tiny_index.table(8)
    with pytest.raises(ConfigError, match="k must be an integer >= 1"):
        tiny_index.table(0)


def test_too_few_candidates() -> None:
    with pytest.raises(ConfigError, match="candidate words"):
        NeighborIndex(make_store(["a", "b", "c"]), CandidatePolicy(min_length=2), use_disk_cache=False)
