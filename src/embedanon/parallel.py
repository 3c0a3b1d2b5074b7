"""Ordered, bounded, lazy parallel map over worker processes."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any


def _worker_init() -> None:
    # One faiss/BLAS thread per worker: the pool already uses every core, and OpenMP or BLAS
    # threads oversubscribed across processes make small searches many times slower.
    import faiss
    from threadpoolctl import threadpool_limits

    faiss.omp_set_num_threads(1)
    threadpool_limits(1)


def parallel_map(func: Any, items: Iterable[Any], *, jobs: int) -> Iterator[Any]:
    """Ordered, lazy map over ``items``, in ``jobs`` processes when ``jobs > 1``.

    At most ``4 * jobs`` items are in flight, so memory stays bounded on inputs of any size.
    Workers are forked where the platform allows it, so they inherit the loaded runtimes.
    """
    if jobs == 1:
        yield from map(func, items)
        return
    import multiprocessing as mp

    methods = mp.get_all_start_methods()
    ctx = mp.get_context("fork" if "fork" in methods else "spawn")
    with ctx.Pool(jobs, initializer=_worker_init) as pool:
        inflight: deque[Any] = deque()
        for item in items:
            inflight.append(pool.apply_async(func, (item,)))
            if len(inflight) >= 4 * jobs:
                yield inflight.popleft().get()
        while inflight:
            yield inflight.popleft().get()
