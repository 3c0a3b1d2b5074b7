"""Exact (IndexFlatIP) vs HNSW search in NeighborIndex on a large (>= 200k words) embedding.

    python research/scripts/make_large_embedding.py            # once: /tmp/large-embedding.bin (~10 min)
    python research/ann_recall.py                  # -> research/ann_recall.json

Measures, per search mode: NeighborIndex construction time (graph build and efSearch
calibration included), index memory (serialised faiss index; resident-set growth), queries/s for
one batch of k = 10 searches and for single queries, recall@10 and recall@50 against exact search
(query = a sampled candidate word, the word itself excluded from both lists, as in the neighbor
table), and leak-guarded table rows/s (k = 50) on a sample of words. For reference, a raw faiss
IVF-Flat index (not a NeighborIndex mode) is measured on the same queries. Skips (exit 0) when the
embedding file is absent, e.g. on a machine without the shared data.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import faiss
import numpy as np

from embedanon.vectors.formats import read_vectors
from embedanon.vectors.index import TABLE_K, HNSWParams, NeighborIndex

OUT = Path(__file__).with_suffix(".json")
HNSW_GRID = (
    HNSWParams(m=16, ef_construction=64),
    HNSWParams(m=32, ef_construction=64),
    HNSWParams(m=32, ef_construction=200),
    HNSWParams(),  # the defaults: m=64, ef_construction=200, calibrated to recall@10 >= 0.95
)
SINGLE_QUERIES = 200


def _rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _measure(index: NeighborIndex, build_s: float, rss_before: float, queries: np.ndarray,
             table_words: np.ndarray, seed: int) -> dict[str, object]:
    ann = index._ann
    t = time.perf_counter()
    index.search(queries, 10)
    search_s = time.perf_counter() - t
    t = time.perf_counter()
    for q in queries[:SINGLE_QUERIES]:
        index.search(q[None, :], 10)
    single_s = time.perf_counter() - t
    # a seed sequence distinct from the calibration sample (seed 0) so the two never coincide
    recall10 = index.recall(sample=len(queries), k=10, rng=np.random.default_rng([seed, 1]))
    recall50 = index.recall(sample=len(queries), k=50, rng=np.random.default_rng([seed, 1]))
    store = index.store
    t = time.perf_counter()
    index._guarded_rows(store.vectors[table_words], [store.words[i] for i in table_words],
                        TABLE_K, self_ids=table_words)
    table_s = time.perf_counter() - t
    return {
        "mode": index.mode,
        "params": None if index.mode == "flat" else {
            "m": index.hnsw.m, "ef_construction": index.hnsw.ef_construction,
            "ef_search_start": index.hnsw.ef_search, "target_recall": index.hnsw.target_recall,
        },
        "calibration_ef_search_recall_at_10": index.calibration,
        "build_seconds": round(build_s, 2),
        "index_bytes": int(faiss.serialize_index(ann).size),
        "rss_growth_mb": round(_rss_mb() - rss_before, 1),
        "queries": len(queries),
        "queries_per_second_k10_batch": round(len(queries) / search_s, 1),
        "queries_per_second_k10_single": round(SINGLE_QUERIES / single_s, 1),
        "recall_at_10": round(recall10, 4),
        "recall_at_50": round(recall50, 4),
        "table_rows": len(table_words),
        "table_rows_per_second_k50": round(len(table_words) / table_s, 1),
        "table_seconds_extrapolated_all_words": round(len(store) * table_s / len(table_words), 1),
    }


def _ivf_reference(index: NeighborIndex, query_rows: np.ndarray,
                   nlist: int = 1024) -> dict[str, object]:
    """Raw faiss IndexIVFFlat on the same candidates: recall@10 and batch queries/s per nprobe."""
    from embedanon.vectors.index import recall_at_k

    base = index.candidate_vectors
    queries = base[query_rows]
    t = time.perf_counter()
    ivf = faiss.IndexIVFFlat(faiss.IndexFlatIP(base.shape[1]), base.shape[1], nlist,
                             faiss.METRIC_INNER_PRODUCT)
    ivf.train(base)
    ivf.add(base)
    build_s = time.perf_counter() - t
    _, exact = index._faiss.search(queries, 11)
    rows: list[dict[str, object]] = []
    for nprobe in (32, 64, 128):
        ivf.nprobe = nprobe
        t = time.perf_counter()
        _, found = ivf.search(queries, 11)
        qps = len(queries) / (time.perf_counter() - t)
        rows.append({
            "nprobe": nprobe, "recall_at_10": round(recall_at_k(exact, found, 10, exclude=query_rows), 4),
            "queries_per_second_k10_batch": round(qps, 1),
        })
    return {"nlist": nlist, "build_seconds": round(build_s, 2), "nprobe": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--embedding", type=Path, default=Path("/tmp/large-embedding.bin"))
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--table-words", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if not args.embedding.is_file():
        print(f"skipped: {args.embedding} not found (run research/scripts/make_large_embedding.py)")
        return 0

    t = time.perf_counter()
    store = read_vectors(args.embedding)
    load_s = time.perf_counter() - t
    rng = np.random.default_rng(args.seed)
    table_words = np.sort(rng.choice(len(store), size=args.table_words, replace=False))
    report: dict[str, object] = {
        "embedding": {
            "path": str(args.embedding), "words": len(store), "dim": store.dim,
            "load_seconds": round(load_s, 1),
        },
        "machine": {
            "cpus": os.cpu_count(), "faiss_threads": faiss.omp_get_max_threads(),
            "faiss": faiss.__version__, "numpy": np.__version__, "python": platform.python_version(),
            "load_average_at_start": os.getloadavg(),
            "note": "shared 2-core machine; other jobs ran at the same time, so times are upper bounds",
        },
        "runs": [],
    }
    runs: list[dict[str, object]] = report["runs"]  # type: ignore[assignment]

    settings: list[tuple[str, HNSWParams | None]] = [("flat", None)]
    settings += [("hnsw", params) for params in HNSW_GRID]
    queries = query_rows = None
    for mode, params in settings:
        rss = _rss_mb()
        t = time.perf_counter()
        index = NeighborIndex(store, approximate=mode, hnsw=params, use_disk_cache=False)
        build_s = time.perf_counter() - t
        if queries is None:
            report["embedding"]["candidates"] = index.n_candidates  # type: ignore[index]
            query_rows = np.sort(rng.choice(index.n_candidates, size=args.queries, replace=False))
            queries = index.candidate_vectors[query_rows]
        run = _measure(index, build_s, rss, queries, table_words, args.seed)
        run["default"] = params is None or params == HNSWParams()
        runs.append(run)
        print(json.dumps(run), file=sys.stderr)
        if mode == "flat" and query_rows is not None:
            report["reference_ivf_flat"] = _ivf_reference(index, query_rows)
            print(json.dumps(report["reference_ivf_flat"]), file=sys.stderr)
        del index
    report["machine"]["load_average_at_end"] = os.getloadavg()  # type: ignore[index]
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
