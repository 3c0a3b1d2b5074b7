"""Pool workers never outlive the process that forked them (Linux): an orphaned worker holds its
own input pipe open, so it would block for ever and keep the parent's stderr open."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux-only")

#: A parent that starts a pool, waits until its workers are busy in a long task, then dies
#: without reaping them.
PARENT = """
import os, sys, time
def task(x):
    time.sleep(0.05 if x < 4 else 600)
    return x
if sys.argv[1] == "backend":
    from embedanon.backends.processes import ProcessBackend
    results = ProcessBackend(jobs=2).map(task, range(100))
else:  # a plain pool: the failure mode this guards against
    import multiprocessing as mp
    results = mp.get_context("fork").Pool(2).imap(task, range(100))
for _ in range(4):
    next(results)
me = str(os.getpid())
children = [p for p in os.listdir("/proc") if p.isdigit()
            and open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1] == me]
time.sleep(0.3)  # both workers are in a 600 s task now
print(" ".join(children), flush=True)
os._exit(0)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            state = next(line for line in f if line.startswith("State:"))
    except (FileNotFoundError, ProcessLookupError):
        return False
    return "Z" not in state.split()[1]  # a zombie has exited


def _orphans(kind: str, tmp_path, wait: float) -> list[int]:  # type: ignore[no-untyped-def]
    """The workers of ``kind``'s dead parent still alive after up to ``wait`` seconds."""
    # files, not pipes: an orphan holding a pipe open is exactly what would hang a reader here
    out, err = tmp_path / f"{kind}.out", tmp_path / f"{kind}.err"
    with open(out, "w") as fo, open(err, "w") as fe:
        code = subprocess.run([sys.executable, "-c", PARENT, kind], stdout=fo, stderr=fe, timeout=120,
                              stdin=subprocess.DEVNULL).returncode
    assert code == 0, err.read_text()
    pids = [int(p) for p in out.read_text().split()]
    assert len(pids) >= 2  # the workers (and the pool's helpers, if any were processes)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if _alive(p)]


def test_workers_die_with_their_parent(tmp_path):
    assert _orphans("backend", tmp_path, wait=10) == []


@pytest.mark.slow
def test_negative_control_a_plain_pools_workers_outlive_their_parent(tmp_path):
    left = _orphans("plain", tmp_path, wait=2)
    try:
        assert left, "a plain pool's workers exited on their own: the test above proves nothing here"
    finally:
        for pid in left:
            os.kill(pid, 9)


STOPPED = textwrap.dedent("""
    import signal, time
    from embedanon.backends import processes

    init = processes._worker_init

    def deaf(parent):  # a worker that misses the SIGTERM of pool.terminate()
        init(parent)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)

    processes._worker_init = deaf
    results = processes.ProcessBackend(jobs=2).map(time.sleep, [0] + [600] * 8)  # then busy
    next(results)
    try:
        results.throw(KeyboardInterrupt)
    except KeyboardInterrupt:
        print("stopped", flush=True)
""")


def test_a_stopped_run_does_not_wait_for_a_worker_that_missed_its_sigterm() -> None:
    """A --jobs 2 run stopped by SIGTERM was found alive half an hour later (found by the second
    CLI audit: an orphan of test_signals_exit_with_one_line_and_no_temp_files under load; gdb:
    the parent in Pool.terminate()'s join of a worker that, blocked on the task queue's lock the
    parent held, had not died of terminate()'s SIGTERM; not reproduced in 70 hand-sent SIGTERMs,
    so the worker here ignores it). A stopped run now kills its workers (SIGKILL cannot be
    missed) and does not wait for them."""
    proc = subprocess.run([sys.executable, "-c", STOPPED], capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["stopped"], proc.stderr[-2000:]
