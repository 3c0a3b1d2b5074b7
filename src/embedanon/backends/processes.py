"""``processes``: this process (``jobs=1``) or a pool of forked worker processes."""

from __future__ import annotations

import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .._validate import positive_int
from ..errors import ConfigError


def _die_with_parent(parent: int) -> None:
    """Linux: ask the kernel to SIGKILL this worker when the process that forked it exits, and
    leave at once if it already has. A worker the pool failed to reap (the parent stopped by a
    signal at a bad moment, then exiting) would otherwise live on as an orphan, keep running and
    hold the parent's stderr open, so a caller waiting for the command's end waits for ever
    (seen once in CI: ``--jobs 2`` and SIGTERM under load). Elsewhere a no-op."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # no libc prctl: keep the old behaviour
        return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def _worker_init(parent: int) -> None:
    # Die with the parent first (see _die_with_parent), then one faiss/BLAS thread per worker:
    # the pool already uses every core, and OpenMP or BLAS threads oversubscribed across
    # processes make small searches many times slower. Workers ignore SIGINT: the parent
    # handles it and terminates the pool, so one line is printed.
    _die_with_parent(parent)

    import faiss
    from threadpoolctl import threadpool_limits

    from .._atomic import worker_signal_defaults

    worker_signal_defaults()  # SIGINT ignored, SIGTERM default (pool.terminate() ends us quietly)
    faiss.omp_set_num_threads(1)
    threadpool_limits(1)


#: Most worker processes per CPU available to this process (see :func:`max_jobs`).
JOBS_PER_CPU = 4


def available_cpus() -> int:
    """CPUs this process may run on: its affinity mask where the platform has one (a container
    or ``taskset`` limit), else the machine's count."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def max_jobs() -> int:
    """The largest ``jobs`` accepted: :data:`JOBS_PER_CPU` x :func:`available_cpus`.

    Each worker holds its own copy of the runtimes and tables (hundreds of MB), and past the
    CPU count more workers only add memory: ``--jobs 100000`` once forked until the machine ran
    out of memory. Four per CPU leaves room for I/O-bound runs without allowing that.
    """
    return JOBS_PER_CPU * available_cpus()


class ProcessBackend:
    """Ordered, lazy map in ``jobs`` processes (in this process when ``jobs == 1``).

    At most ``4 * jobs`` tasks are in flight, so memory stays bounded on inputs of any size.
    Workers are forked where the platform allows it, so they inherit the loaded runtimes.
    ``jobs`` may be at most :func:`max_jobs` (4 x the CPUs available).
    """

    name = "processes"

    def __init__(self, *, jobs: int = 1) -> None:
        self.jobs = positive_int("jobs", jobs)
        if self.jobs > max_jobs():
            raise ConfigError(f"jobs must be at most {max_jobs()} ({JOBS_PER_CPU} x the "
                              f"{available_cpus()} CPUs available), got {self.jobs}")

    def map(self, func: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        if self.jobs == 1:
            yield from map(func, items)
            return
        import multiprocessing as mp

        methods = mp.get_all_start_methods()
        ctx = mp.get_context("fork" if "fork" in methods else "spawn")
        from .._atomic import signals_deferred
        from .workerpool import WorkerPool

        pool = None
        try:
            with signals_deferred():  # a signal inside fork's at-fork callbacks would be swallowed
                pool = WorkerPool(self.jobs, initializer=_worker_init, initargs=(os.getpid(),), context=ctx)
            workers = pool.workers()
            inflight: deque[Any] = deque()
            for item in items:
                inflight.append(pool.apply_async(func, (item,)))
                if len(inflight) >= 4 * self.jobs:
                    yield _result(inflight.popleft(), workers)
            while inflight:
                yield _result(inflight.popleft(), workers)
            pool.close()
        except WorkerDied:
            assert pool is not None
            pool.abandon()
            pool = None
            raise
        except BaseException as exc:
            # stopped (Ctrl-C, SIGTERM, the caller closing us): never wait for the workers.
            # terminate() SIGTERMs and joins them, and one that had not died of it waited for
            # ever on the task queue's lock terminate() holds: a run stopped by SIGTERM was
            # found alive half an hour later
            if pool is not None and not isinstance(exc, Exception):
                pool.abandon()
                pool = None
            raise
        finally:
            if pool is not None:
                pool.terminate()
                pool.join()


class WorkerDied(ConfigError):
    """A worker process of the pool died (killed by a signal): its task is lost."""


#: seconds between two checks that the workers live, while a result is awaited
WORKER_CHECK_SECONDS = 0.5


def _result(pending: Any, workers: list[Any]) -> Any:
    """The result of ``pending`` (an ``AsyncResult``), or one line when a worker died.

    A pool worker killed by a signal (the out-of-memory killer, ``kill -9``) takes its task with
    it: the pool starts a new worker but the task's result never comes, and ``get()`` waited for
    ever. A worker of this pool never exits on its own (no ``maxtasksperchild``), so any exit
    code is a death.
    """
    import multiprocessing as mp

    while True:
        try:
            return pending.get(timeout=WORKER_CHECK_SECONDS)
        except mp.TimeoutError:
            dead = [w for w in workers if w.exitcode is not None]
            if dead:
                code = dead[0].exitcode
                how = (f"killed by {signal.Signals(-code).name}" if code < 0 and -code in
                       signal.valid_signals() else f"exit status {code}")
                hint = ": out of memory? try fewer --jobs" if code == -signal.SIGKILL else ""
                raise WorkerDied(f"a worker process died ({how}{hint}); no output was written") from None
