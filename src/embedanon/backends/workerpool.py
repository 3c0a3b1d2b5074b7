"""``WorkerPool``: :class:`multiprocessing.pool.Pool` with the two things the process backend needs
that the standard library keeps private.

``Pool`` has no public way to list its worker processes (to notice one killed by a signal, whose
task would otherwise be awaited for ever) or to stop without waiting on a lock a dead worker may
hold. Both read CPython's ``Pool`` internals (``_pool``, ``_worker_handler``, unchanged from 3.8
to 3.13); this subclass is the one place that does, so the backend uses a public interface and a
test fails here, not in a hung run, if CPython renames them.
"""

from __future__ import annotations

import contextlib
import multiprocessing.pool
import threading
from multiprocessing.process import BaseProcess

#: how long abandon() waits for the pool's worker handler to end its round (it ends at once unless it
#: is forking a replacement for the dead worker)
_HANDLER_WAIT_S = 2.0


class WorkerPool(multiprocessing.pool.Pool):
    """A process pool that lists its workers and can be abandoned without waiting on them.

    Constructed as :class:`multiprocessing.pool.Pool` (pass the start method's ``context``).
    """

    def workers(self) -> list[BaseProcess]:
        """The pool's worker processes now (a copy; ``exitcode`` is not None once one exited)."""
        return list(self._pool)  # type: ignore[attr-defined]

    def _kill_workers(self) -> None:
        for worker in self.workers():
            with contextlib.suppress(OSError, ValueError):
                worker.kill()  # type: ignore[attr-defined]  # Process.kill; BaseProcess stubs lack it

    def abandon(self) -> None:
        """Stop a pool one of whose workers died, without waiting on it.

        ``Pool.terminate()`` first takes the lock its idle workers hold while they wait for a task;
        a worker killed while waiting (the out-of-memory killer picks any) never gives it back, and
        terminate() then waited for ever (seen in 1 of 6 runs). The workers are killed here, and
        terminate() runs in a daemon thread that may stay stuck on that lock without keeping the
        process alive; forked workers die with their parent anyway.
        """
        # no new workers in place of the killed ones: forked by the pool's own thread, with this
        # process's signal handlers, one stopped before its initializer printed a traceback
        handler = self._worker_handler  # type: ignore[attr-defined]
        handler._state = multiprocessing.pool.TERMINATE
        self._kill_workers()
        # the handler may have been forking a replacement for the dead worker: it ends its round,
        # woken by the deaths, and sees TERMINATE; a worker it added meanwhile is killed too (a
        # loaded machine left one waiting for tasks; CI, stop 58)
        handler.join(_HANDLER_WAIT_S)
        self._kill_workers()
        threading.Thread(target=self.terminate, name="embedanon-abandoned-pool", daemon=True).start()
