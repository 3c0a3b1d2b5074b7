"""Engines give byte-identical output: in-process, worker processes and a Dask LocalCluster
(2 worker processes on 127.0.0.1), under one key."""

from __future__ import annotations

import os
import time
from typing import Any

import pytest

from embedanon import Anonymizer
from embedanon.backends import build_backend, chunk_texts
from embedanon.errors import ConfigError
from tests.helpers.noise import fast_key

pytestmark = pytest.mark.default_embedding

DOCS = [f"Patient {name} was seen on 2024-0{i % 9 + 1}-1{i % 10} for chest pain, MRN {1000 + i}."
        for i, name in enumerate(["John", "Amina", "Wei", "Olusegun", "María", "Zyxqv"] * 7)]


@pytest.fixture(scope="module")
def anon() -> Anonymizer:
    return Anonymizer(key=fast_key(8))


def test_chunking_respects_limits() -> None:
    texts = ["x" * 10] * 25
    chunks = list(chunk_texts(texts, max_bytes=35, max_texts=100))
    assert [len(c) for c in chunks] == [4] * 6 + [1]
    assert sum(chunks, []) == texts
    assert [len(c) for c in chunk_texts(texts, max_bytes=10**6, max_texts=7)] == [7, 7, 7, 4]


@pytest.mark.slow
def test_processes_engine_matches_in_process(anon: Anonymizer) -> None:
    serial = list(anon.anonymize_many(DOCS))
    assert list(anon.anonymize_many(DOCS, jobs=2)) == serial


def test_unknown_engine_is_one_line_error() -> None:
    with pytest.raises(ConfigError, match="unknown engine 'spark'; choose one of dask, processes"):
        build_backend("spark")


@pytest.fixture(scope="module")
def client():  # type: ignore[no-untyped-def]
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=":0")
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_dask_engine_is_byte_identical(anon: Anonymizer, client) -> None:  # type: ignore[no-untyped-def]
    local = list(anon.anonymize_many(DOCS))
    engine = build_backend("dask", client=client)
    assert list(anon.anonymize_many(DOCS, backend=engine)) == local


def test_dask_bag_and_dataframe_apis(anon: Anonymizer, client) -> None:  # type: ignore[no-untyped-def]
    import dask.bag as db
    import dask.dataframe as dd
    import pandas as pd

    from embedanon.dask import anonymize_bag, anonymize_dataframe

    bag = db.from_sequence(DOCS, npartitions=5)
    assert anonymize_bag(bag, anon.config, anon.key).compute() == list(anon.anonymize_many(DOCS))
    frame = pd.DataFrame({"id": range(len(DOCS)), "text": DOCS, "note": [None] + DOCS[1:]})
    out = anonymize_dataframe(dd.from_pandas(frame, npartitions=3), ["text", "note"], anon.config,
                              anon.key).compute()
    assert out["id"].tolist() == list(range(len(DOCS)))
    assert out["text"].tolist() == list(anon.anonymize_many(DOCS))
    assert out["note"].isna().tolist() == [True] + [False] * (len(DOCS) - 1)
    assert out["note"].tolist()[1:] == list(anon.anonymize_many(DOCS[1:]))


def test_local_dask_cluster_lets_in_only_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """QA pass 5: the local cluster of ``--engine dask`` took any client on 127.0.0.1, which could
    run code on the workers and read the queued tasks (texts and the release key). Now every
    member listens on TLS only and a client needs this run's certificate: a plain TCP client and
    a client with other (self-made) certificates are both refused."""
    distributed = pytest.importorskip("distributed")
    from distributed.security import Security

    from embedanon.backends import dask as dask_engine

    made: list[object] = []
    start = dask_engine._client

    def keep(scheduler: str | None) -> object:  # the engine's own client, to look at its cluster
        made.append(start(scheduler))
        return made[-1]

    monkeypatch.setattr(dask_engine, "_client", keep)
    results = dask_engine.DaskBackend().map(abs, [-1, -2])
    try:
        assert next(results) == 1  # the cluster is up until the map ends
        ours: Any = made[0]
        address = ours.scheduler.address
        workers = ours.scheduler_info()["workers"]
        assert address.startswith("tls://127.0.0.1:")
        assert len(workers) == 2
        assert all(a.startswith("tls://") for w, info in workers.items() for a in (w, info["nanny"]))
        for attempt in ({"address": address.replace("tls://", "tcp://", 1)},
                        {"address": address, "security": Security.temporary()}):
            with pytest.raises(OSError):  # CommClosedError: the connection is dropped at the handshake
                distributed.Client(timeout=5, **attempt).close()
        assert list(results) == [2]
    finally:
        results.close()  # closes the cluster if an assertion failed first


@pytest.mark.slow
def test_cli_dask_engine_is_quiet_unless_verbose(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """distributed logs each scheduler step at INFO on stderr (about 30 lines a run); the CLI shows
    them only with --verbose."""
    import subprocess
    import sys

    pytest.importorskip("distributed")
    src = tmp_path / "in.txt"
    src.write_text("Patient John was seen.\nAmina called.\n", encoding="utf-8")
    outs = []
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**__import__("os").environ, "TMPDIR": str(scratch)}
    for extra in ([], ["--verbose"]):
        run = subprocess.run([sys.executable, "-m", "embedanon", "anonymize", str(src), "-o",
                              str(tmp_path / f"out{len(extra)}.txt"), "--engine", "dask",
                              *extra], capture_output=True, text=True, timeout=300, env=env)
        assert run.returncode == 0, run.stderr[-500:]
        outs.append(run.stderr)
    # QA pass 4: no warnings either, without --verbose; only the run's summary line
    assert outs[0].startswith("anonymized 2 records (2 texts, ") and len(outs[0].splitlines()) == 1, outs[0]
    # with -v the library's info lines show after their logger's name (one style for every
    # command since the CLI's warnings were unified: "distributed.scheduler: ...")
    assert any(line.startswith("distributed.") for line in outs[1].splitlines()), outs[1]
    assert list(scratch.iterdir()) == []  # the local cluster's scratch space is removed (QA pass 4)
    assert (tmp_path / "out0.txt").read_bytes() == (tmp_path / "out1.txt").read_bytes()
    # the local cluster (TLS since QA pass 5) changes no byte; the default key reaches its workers
    local = Anonymizer()
    expected = "".join(local.anonymize(line) + "\n" for line in src.read_text(encoding="utf-8").splitlines())
    assert (tmp_path / "out0.txt").read_text(encoding="utf-8") == expected


@pytest.mark.slow
def test_dask_waits_are_bounded_with_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Audit defect 5: an address speaking another protocol (the dashboard's HTTP port) hung the
    run past 300 s, and a cluster whose workers were all killed made the client wait forever."""
    distributed = pytest.importorskip("distributed")
    import http.server
    import threading

    from embedanon.backends import dask as engine

    monkeypatch.setattr(engine, "CONNECT_SECONDS", 3.0)
    monkeypatch.setattr(engine, "NO_WORKERS_SECONDS", 3.0)
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # the handshake bytes are no HTTP request
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        began = time.monotonic()
        with pytest.raises(ConfigError, match="did not answer within 3 s"):
            list(build_backend("dask", scheduler=f"tcp://127.0.0.1:{server.server_address[1]}").map(len, ["a"]))
        assert time.monotonic() - began < 30
    finally:
        server.shutdown()
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        began = time.monotonic()
        with pytest.raises(ConfigError, match="has had no workers for 3 s; no output was written"):
            list(engine.DaskBackend(client=client).map(len, ["a", "b"]))
        assert time.monotonic() - began < 30


def test_sigterm_to_a_local_dask_run_is_one_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Audit defect 15: a local Dask worker printed a traceback on SIGTERM. The run is stopped
    while its local cluster works; stderr holds the run's one line and nothing from the workers."""
    pytest.importorskip("distributed")
    import signal
    import subprocess
    import sys

    from tests.helpers.embeddings import write_glove

    words = ["patient", "doctor", "nurse", "hospital", "clinic", "pain", "ache", "heart", "chest", "river",
             "table", "stone"]
    glove = write_glove(tmp_path / "tiny.glove.txt", words)
    src = tmp_path / "big.txt"
    src.write_text("".join(f"the patient {words[i % 12]} has chest pain {i}\n" for i in range(150_000)),
                   encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "embedanon", "anonymize", str(src), "-o", str(tmp_path / "o.txt"),
                             "--seed", "1", "--embedding", str(glove), "--engine", "dask"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not [p for p in tmp_path.iterdir() if p.name.startswith(".o.txt.") and p.stat().st_size]:  # results
        assert proc.poll() is None and time.monotonic() < deadline, "never started writing"
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    assert err.splitlines() == ["error: terminated by SIGTERM; no output was written"], err
    assert not (tmp_path / "o.txt").exists()


def _distributed_level() -> int:
    import logging

    return logging.getLogger("distributed.worker").getEffectiveLevel()


@pytest.mark.slow
def test_local_cluster_workers_log_nothing_below_critical_unless_verbose(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Audit defect 15, deterministically: the workers are processes of their own, so the run's
    logger levels do not reach them; a worker that lost its peer on SIGTERM logged a traceback at
    ERROR. Quiet runs start their workers with distributed's loggers at CRITICAL."""
    pytest.importorskip("distributed")
    import logging

    from embedanon.backends.dask import _client

    root = logging.getLogger()
    monkeypatch.setattr(root, "level", logging.WARNING)  # a run without --verbose
    monkeypatch.delenv("DASK_LOGGING__DISTRIBUTED", raising=False)
    before = dict(os.environ)
    client = _client(None)
    # distributed's nannies write their pre-spawn variables into this process's environment;
    # _client puts it back, so a later cluster or child process (a --verbose run) is not silenced
    assert dict(os.environ) == before
    try:
        levels = client.run(_distributed_level)
    finally:
        client.close()
        client.cluster.close()
    assert len(levels) == 2 and set(levels.values()) == {logging.CRITICAL}


@pytest.mark.parametrize(("inflight", "error"), [("4", TypeError), (0, ConfigError)])
def test_dask_engine_checks_inflight_up_front(inflight: object, error: type) -> None:
    """API audit: ``DaskBackend(inflight="4")`` was accepted and failed inside ``map`` with
    ``'>=' not supported between instances of 'int' and 'str'``; 0 was accepted too."""
    from embedanon.backends import dask as dask_engine

    with pytest.raises(error, match="inflight must be an integer"):
        dask_engine.DaskBackend(inflight=inflight)  # type: ignore[arg-type]


def test_a_quiet_dask_run_gives_the_logger_levels_back() -> None:
    """API audit: a quiet run (a Python session's default WARNING root level) set distributed's,
    asyncio's and tornado's loggers to CRITICAL for the rest of the process, silencing the
    user's own later use of distributed; the run now puts their levels back."""
    pytest.importorskip("distributed")
    import logging

    from embedanon.backends import dask as dask_engine

    names = ["distributed", "distributed.client", "asyncio", "tornado"]
    before = {name: logging.getLogger(name).level for name in names}
    original = before["distributed.client"]
    logging.getLogger("distributed.client").setLevel(logging.ERROR)
    before["distributed.client"] = logging.ERROR
    try:
        assert list(dask_engine.DaskBackend().map(abs, [-1, -2])) == [1, 2]
        assert {name: logging.getLogger(name).level for name in names} == before
    finally:
        logging.getLogger("distributed.client").setLevel(original)


def test_dask_engine_refuses_a_scheduler_beside_a_client() -> None:
    """API audit: ``DaskBackend(scheduler=..., client=...)`` ran on the client and ignored the
    scheduler address without a word."""
    from embedanon.backends import dask as dask_engine

    with pytest.raises(ConfigError, match="a scheduler or a client, not both"):
        dask_engine.DaskBackend(scheduler="tcp://127.0.0.1:8786", client=object())


def test_a_scheduler_without_tls_is_warned_about(caplog: pytest.LogCaptureFixture) -> None:
    """Security audit: a plain ``tcp://`` scheduler (the README's own recipe) was used without a
    word, though each task carries the original text and the release key unencrypted and any
    client of that scheduler can run code on its workers. It is warned about; ``tls://`` is not."""
    pytest.importorskip("distributed")
    from embedanon.backends.dask import check_scheduler

    with caplog.at_level("WARNING", logger="embedanon.backends.dask"):
        assert check_scheduler("tls://10.0.0.5:8786") == "tls://10.0.0.5:8786"
        assert not caplog.records
        check_scheduler("tcp://10.0.0.5:8786")
    assert len(caplog.records) == 1 and "not tls://" in caplog.records[0].getMessage()
    assert "release key" in caplog.records[0].getMessage()


_KILLED_WORKER = """
import os, signal, sys
from embedanon.backends import build_backend
from embedanon.errors import ConfigError

def work(item):
    if item == 5:
        os.kill(os.getpid(), signal.SIGKILL)  # as the out-of-memory killer does
    return item

for attempt in range(6):  # Pool.terminate() then hung in about 1 run of 6
    try:
        print(list(build_backend("processes", jobs=2).map(work, range(40))))
    except ConfigError as exc:
        message = str(exc)
    else:
        sys.exit(0)
print(message)
sys.exit(2)
"""


def test_a_killed_worker_ends_the_run_with_one_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A pool worker killed by SIGKILL took its task with it and the run waited for ever (found
    by the data audit: ``kill -9`` of one ``--jobs 2`` worker, the command still running 10
    minutes later); six runs, since stopping the pool could hang too."""
    import subprocess
    import sys

    script = tmp_path / "killed.py"
    script.write_text(_KILLED_WORKER, encoding="utf-8")
    started = time.monotonic()
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr[-500:]
    assert done.stdout.strip() == ("a worker process died (killed by SIGKILL: out of memory? try fewer "
                                   "--jobs); no output was written")
    assert time.monotonic() - started < 60


def test_a_service_speaking_another_protocol_is_not_called_out_of_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--scheduler`` at a port whose service speaks first (an SSH banner) made distributed read
    its first eight bytes as a frame length and allocate exabytes: the run said 'out of memory (try
    a smaller --k ...)' (found walking docs/usage.md's --scheduler example)."""
    distributed = pytest.importorskip("distributed")
    import socket
    import threading

    from embedanon.backends import dask as engine

    monkeypatch.setattr(engine, "CONNECT_SECONDS", 5.0)
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def banner() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            conn.sendall(b"SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13\r\n" * 4)
            time.sleep(0.5)
            conn.close()

    threading.Thread(target=banner, daemon=True).start()
    address = f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    try:
        with pytest.raises(ConfigError, match="not as a Dask scheduler") as err:
            engine._connect(distributed.Client, address)
        assert "memory" not in str(err.value) and address in str(err.value)
    finally:
        stop.set()
        listener.close()


def test_the_dask_engine_without_its_extra_is_one_line(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """A plain install's --engine dask (the README's first Dask example: a local cluster) ended in
    a 40-line ModuleNotFoundError traceback, exit 1; now one line, exit 2, before any work."""
    from typer.testing import CliRunner

    from embedanon.cli import app

    monkeypatch.setitem(__import__("sys").modules, "dask", None)  # import dask raises ImportError
    src = tmp_path / "in.txt"
    src.write_text("Patient John was seen.\n", encoding="utf-8")
    for extra in ([], ["--scheduler", "tcp://127.0.0.1:8786"]):
        result = CliRunner().invoke(app, ["anonymize", str(src), "-o", str(tmp_path / "out.txt"),
                                          "--fresh-key", "--engine", "dask", *extra])
        assert result.exit_code == 2, result.output
        assert "pip install 'embedanon[dask]'" in result.output and "Traceback" not in result.output
        assert not (tmp_path / "out.txt").exists()
    with pytest.raises(ConfigError, match=r"embedanon\[dask\]"):
        build_backend("dask")
