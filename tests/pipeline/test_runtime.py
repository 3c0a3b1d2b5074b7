"""The runtime's thread-safety rule: work on a runtime (detection included) runs under its lock,
and a fork never hands a worker a lock that another thread of the parent held."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time

import pytest

from embedanon import Anonymizer
from embedanon.detectors.base import Span
from tests.helpers.noise import fast_key

pytestmark = pytest.mark.default_embedding

TEXTS = [f"Record {i}: Mary Jones called about chest pain." for i in range(20)]


def _many_in_a_thread(anon: Anonymizer, timeout: float) -> list[str] | None:
    """``anon.anonymize_many(TEXTS, jobs=2)`` in a daemon thread; None if it is not back in time."""
    out: dict[str, list[str]] = {}
    runner = threading.Thread(target=lambda: out.setdefault("texts", list(anon.anonymize_many(TEXTS, jobs=2))),
                              daemon=True)
    runner.start()
    runner.join(timeout)
    return out.get("texts")


@pytest.mark.skipif(not hasattr(os, "register_at_fork") or "fork" not in multiprocessing.get_all_start_methods(),
                    reason="workers are forked only where the platform can fork")
def test_workers_forked_while_another_thread_holds_the_lock_do_not_hang() -> None:
    """QA pass 5: ``anonymize_many(jobs=2)`` while another thread anonymized forked workers that
    inherited the held lock and waited on it for ever. The holder keeps the lock until the pool's
    workers exist (so on the old code the fork happens under it) or for one second (the fork now
    waits for the lock, so no worker appears before it is released)."""
    anon = Anonymizer(key=fast_key(5))
    expected = [anon.anonymize(t) for t in TEXTS]
    lock = anon.runtime.lock
    held = threading.Event()

    def hold() -> None:
        with lock:
            held.set()
            deadline = time.monotonic() + 1.0
            while not multiprocessing.active_children() and time.monotonic() < deadline:
                time.sleep(0.01)

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    assert held.wait(10)
    assert _many_in_a_thread(anon, 60) == expected, "anonymize_many hung: a forked worker inherited a held lock"


@pytest.mark.skipif(not hasattr(os, "register_at_fork") or "fork" not in multiprocessing.get_all_start_methods(),
                    reason="workers are forked only where the platform can fork")
def test_a_lock_held_for_good_delays_a_fork_but_never_hangs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A thread that never lets go of a runtime's lock (stuck, or waiting for the fork itself) made
    every later fork of the process wait for ever; the full suite hung here once. The fork now
    waits a bounded time and the workers forget that runtime and build their own."""
    from embedanon.pipeline import runtime as runtime_module

    monkeypatch.setattr(runtime_module, "_FORK_WAIT", 0.2)
    anon = Anonymizer(key=fast_key(7))
    expected = [anon.anonymize(t) for t in TEXTS]
    held, done = threading.Event(), threading.Event()

    def hold_for_good() -> None:
        with anon.runtime.lock:
            held.set()
            done.wait(120)

    threading.Thread(target=hold_for_good, daemon=True).start()
    assert held.wait(10)
    texts = _many_in_a_thread(anon, 90)
    done.set()
    assert texts == expected


class _LockProbe:
    """A detector that finds nothing and notes, at each call, whether the runtime's lock was free
    (another thread could take it)."""

    name = "probe"

    def __init__(self, lock: threading.RLock) -> None:
        self.lock = lock
        self.free: list[bool] = []

    def detect(self, text: str) -> list[Span]:
        def try_lock() -> None:
            got = self.lock.acquire(blocking=False)
            if got:
                self.lock.release()
            self.free.append(got)

        other = threading.Thread(target=try_lock)
        other.start()
        other.join()
        return []


@pytest.mark.parametrize("scope", ["detected", "hybrid"])
def test_detection_runs_under_the_runtime_lock(scope: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """QA pass 5: threads sharing a scoped Anonymizer ran the model detector outside the lock and
    raced on its caches (``ValueError: could not broadcast ...``)."""
    anon = Anonymizer(key=fast_key(6), scope=scope, detectors="regex")
    probe = _LockProbe(anon.runtime.lock)
    monkeypatch.setattr(anon.runtime, "_detector", probe)
    anon.anonymize_document(TEXTS[0])
    list(anon.anonymize_many(TEXTS[:3]))
    assert probe.free == [False] * 4
