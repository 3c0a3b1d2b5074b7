"""Fork scenarios of ``tests/pipeline/test_runtime.py``, each run in a fresh interpreter
(``python -m tests.helpers.fork_scenarios NAME``): the runtime's fork hooks are what is tested,
not the threads other tests leave in the pytest process (a fork beside those can block in a lock
no code here owns). Prints ``ok`` when ``anonymize_many(jobs=2)`` came back with the in-process
output in time, else ``hung`` or ``differs``."""

from __future__ import annotations

import multiprocessing
import sys
import threading
import time

from embedanon import Anonymizer
from tests.helpers.noise import fast_key

TEXTS = [f"Record {i}: Mary Jones called about chest pain." for i in range(20)]


def _many_in_a_thread(anon: Anonymizer, timeout: float) -> list[str] | None:
    """``anon.anonymize_many(TEXTS, jobs=2)`` in a daemon thread; None if it is not back in time."""
    out: dict[str, list[str]] = {}
    runner = threading.Thread(target=lambda: out.setdefault("texts", list(anon.anonymize_many(TEXTS, jobs=2))),
                              daemon=True)
    runner.start()
    runner.join(timeout)
    return out.get("texts")


def held_briefly() -> list[str] | None:
    """Another thread holds the lock until the pool's workers exist (so without the fork hook the
    fork happens under it) or for one second (with it, no worker appears before it is released)."""
    anon = Anonymizer(key=fast_key(5))
    expected = [anon.anonymize(t) for t in TEXTS]
    held = threading.Event()

    def hold() -> None:
        with anon.runtime.lock:
            held.set()
            deadline = time.monotonic() + 1.0
            while not multiprocessing.active_children() and time.monotonic() < deadline:
                time.sleep(0.01)

    threading.Thread(target=hold, daemon=True).start()
    assert held.wait(10)
    texts = _many_in_a_thread(anon, 60)
    return None if texts is None else [str(texts == expected)]


def held_for_good() -> list[str] | None:
    """Another thread never lets go of the lock: the fork waits a bounded time (0.2 s here) and
    the workers forget that runtime and build their own."""
    from embedanon.pipeline import runtime as runtime_module

    runtime_module._FORK_WAIT = 0.2
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
    return None if texts is None else [str(texts == expected)]


if __name__ == "__main__":
    result = {"held_briefly": held_briefly, "held_for_good": held_for_good}[sys.argv[1]]()
    print("hung" if result is None else "ok" if result == ["True"] else "differs")
