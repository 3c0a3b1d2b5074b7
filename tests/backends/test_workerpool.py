"""``WorkerPool``: the process backend's pool lists its workers and is abandoned without waiting."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import time

import pytest

from embedanon.backends.workerpool import WorkerPool

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="kills a worker with SIGKILL")


def _pid(_: int) -> int:
    time.sleep(0.05)
    return os.getpid()


def test_workers_are_the_pools_processes_and_a_killed_one_shows() -> None:
    """The backend notices a worker killed by a signal through ``workers()`` (it used to read
    ``multiprocessing.pool.Pool._pool`` from outside); ``abandon()`` ends them all without waiting."""
    methods = mp.get_all_start_methods()
    pool = WorkerPool(2, context=mp.get_context("fork" if "fork" in methods else "spawn"))
    try:
        workers = pool.workers()
        assert len(workers) == 2 and all(w.exitcode is None for w in workers)
        assert set(pool.map(_pid, range(8))) <= {w.pid for w in workers}
        workers.clear()  # a copy: the pool keeps its own list
        assert len(pool.workers()) == 2
        victim = pool.workers()[0]
        assert victim.pid is not None
        os.kill(victim.pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while victim.exitcode is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert victim.exitcode == -signal.SIGKILL
        started = time.monotonic()
        pool.abandon()
        assert time.monotonic() - started < 5
        for worker in pool.workers():
            worker.join(30)
            assert worker.exitcode is not None
    finally:
        pool.terminate()


def test_abandon_right_after_a_death_leaves_no_worker_alive() -> None:
    """The pool's handler thread forks a replacement for a dead worker; abandon() called in that
    moment killed its snapshot of the workers and missed the new one, which then waited for tasks
    (a loaded CI machine, stop 58; 3 of 15 runs on an idle one)."""
    if "fork" not in mp.get_all_start_methods():
        pytest.skip("the race needs a fork start")
    for _ in range(10):
        pool = WorkerPool(2, context=mp.get_context("fork"))
        try:
            pool.map(_pid, range(4))
            victim = pool.workers()[0]
            assert victim.pid is not None
            os.kill(victim.pid, signal.SIGKILL)
            while victim.exitcode is None:
                time.sleep(0.001)
            pool.abandon()
            for worker in pool.workers():
                worker.join(10)
                assert worker.exitcode is not None
        finally:
            pool.terminate()
