"""Engines give byte-identical output: in-process, worker processes and a Dask LocalCluster
(2 worker processes on 127.0.0.1), under one key."""

from __future__ import annotations

from typing import Any

import pytest

from embedanon import Anonymizer
from embedanon.backends import build_backend, chunk_texts
from embedanon.backends.dask import anonymize_dataframe
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

    from embedanon.backends.dask import anonymize_bag, anonymize_dataframe

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
                              str(tmp_path / f"out{len(extra)}.txt"), "--seed", "1", "--engine", "dask",
                              *extra], capture_output=True, text=True, timeout=300, env=env)
        assert run.returncode == 0, run.stderr[-500:]
        outs.append(run.stderr)
    assert outs[0] == ""  # QA pass 4: no warnings either, without --verbose
    assert "INFO distributed" in outs[1]
    assert list(scratch.iterdir()) == []  # the local cluster's scratch space is removed (QA pass 4)
    assert (tmp_path / "out0.txt").read_bytes() == (tmp_path / "out1.txt").read_bytes()
    local = Anonymizer(seed=1)  # the local cluster (TLS since QA pass 5) changes no byte
    expected = "".join(local.anonymize(line) + "\n" for line in src.read_text(encoding="utf-8").splitlines())
    assert (tmp_path / "out0.txt").read_text(encoding="utf-8") == expected


def _frame(kind: str):  # type: ignore[no-untyped-def]
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    if kind == "int-name":
        return dd.from_pandas(pd.DataFrame({0: ["a", "b"]}), npartitions=1)
    if kind == "same-names":
        return dd.from_pandas(pd.DataFrame([["a", "b"]], columns=["text", "text"]), npartitions=1)
    return dd.from_pandas(pd.DataFrame({"id": [1, 2], "text": ["a", "b"]}), npartitions=1)


@pytest.mark.parametrize(
    ("kind", "columns", "error", "message"),
    [("plain", "text", TypeError, r"columns must be a list of column names, not one str; use \['text'\]"),
     ("plain", None, TypeError, "columns must be a list of column names, got NoneType"),
     ("plain", ["id"], TypeError, "column 'id' has dtype int64, not text"),
     ("plain", ["nope"], ConfigError, "column 'nope' is not in the dataframe"),
     ("int-name", [0], TypeError, r"columns\[0\] must be a column name \(str\), got int"),
     ("same-names", ["text"], ConfigError, "column 'text' appears 2 times in the dataframe")],
)
def test_dask_dataframe_refuses_bad_columns_before_any_work(anon: Anonymizer, kind, columns, error, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error, match=f"^{message}"):
        anonymize_dataframe(_frame(kind), columns, anon.config, anon.key)  # lazy: no .compute() needed


@pytest.mark.parametrize(
    ("make", "message"),
    [(lambda pd, dd, db: pd.DataFrame({"text": ["a"]}),
      r"frame must be a dask.dataframe.DataFrame, got pandas.DataFrame; wrap it with "
      r"dask.dataframe.from_pandas\(frame, npartitions=N\)$"),
     (lambda pd, dd, db: ["a"], "frame must be a dask.dataframe.DataFrame, got list; "),
     (lambda pd, dd, db: dd.from_pandas(pd.DataFrame({"text": ["a"]}), npartitions=1)["text"],
      r"frame must be a dask.dataframe.DataFrame, got dask.dataframe.Series; .*series.to_frame\(\)$"),
     (lambda pd, dd, db: db.from_sequence(["a"]), "frame must be a dask.dataframe.DataFrame, got dask.bag.Bag; ")],
    ids=["pandas", "list", "series", "bag"],
)
def test_dask_dataframe_refuses_what_is_not_a_dask_frame(anon: Anonymizer, make, message: str) -> None:  # type: ignore[no-untyped-def]
    dd = pytest.importorskip("dask.dataframe")
    import dask.bag as db
    import pandas as pd

    with pytest.raises(TypeError, match=f"^{message}"):
        anonymize_dataframe(make(pd, dd, db), ["text"], anon.config, anon.key)


@pytest.mark.parametrize("bag", [["a"], ("a",), None], ids=["list", "tuple", "none"])
def test_dask_bag_refuses_what_is_not_a_bag(anon: Anonymizer, bag: object) -> None:
    pytest.importorskip("dask.bag")
    from embedanon.backends.dask import anonymize_bag

    with pytest.raises(TypeError, match=rf"^bag must be a dask.bag.Bag, got {type(bag).__name__}; make one "
                                        r"with dask.bag.from_sequence\(texts\)$"):
        anonymize_bag(bag, anon.config, anon.key)


def test_dask_dataframe_anonymizes_a_repeated_column_once(anon: Anonymizer) -> None:
    """QA pass 5: ``["text", "text"]`` anonymized the column twice; it is one column, as a
    repeated ``--field`` is on the command line."""
    dask = pytest.importorskip("dask")
    frame = _frame("plain")
    with dask.config.set(scheduler="synchronous"):
        twice = anonymize_dataframe(frame, ["text", "text"], anon.config, anon.key).compute()
        once = anonymize_dataframe(frame, ["text"], anon.config, anon.key).compute()
    assert twice["text"].tolist() == once["text"].tolist() == [anon.anonymize(t) for t in ["a", "b"]]


@pytest.mark.parametrize("value", [5, 3.5, True, b"SECRET bytes", {"k": "SECRET"}, ["SECRET"]],
                         ids=["int", "float", "bool", "bytes", "dict", "list"])
def test_dask_dataframe_refuses_a_value_that_is_not_a_string(anon: Anonymizer, value: object) -> None:
    """QA pass 5: an ``object`` column's numbers, bytes or dicts were anonymized as ``str(value)``;
    they are refused like a non-string JSONL field, naming the column and the type (never the
    value). Missing values stay missing."""
    dask = pytest.importorskip("dask")
    import dask.dataframe as dd
    import pandas as pd

    texts = pd.Series(["John Smith", None, float("nan"), pd.NA, "Mary Jones"], dtype=object)
    with dask.config.set({"dataframe.convert-string": False, "scheduler": "synchronous"}):
        clean = dd.from_pandas(pd.DataFrame({"text": texts}), npartitions=2)
        assert str(clean.dtypes["text"]) == "object"
        out = anonymize_dataframe(clean, ["text"], anon.config, anon.key).compute()["text"].tolist()
        assert out[0] == anon.anonymize("John Smith") and out[4] == anon.anonymize("Mary Jones")
        assert out[1] is None and out[2] != out[2] and out[3] is pd.NA
        bad = dd.from_pandas(pd.DataFrame({"text": pd.Series(["John Smith", value], dtype=object)}),
                             npartitions=1)
        with pytest.raises(TypeError) as info:
            anonymize_dataframe(bad, ["text"], anon.config, anon.key).compute()
    assert str(info.value) == (f"column 'text' holds a {type(value).__name__} value; only str and "
                               "missing values can be anonymized")
    assert "SECRET" not in str(info.value)


def test_dask_apis_refuse_a_wrong_key_up_front(anon: Anonymizer) -> None:
    db = pytest.importorskip("dask.bag")
    from embedanon.backends.dask import anonymize_bag

    with pytest.raises(TypeError, match="key must be a ReleaseKey"):
        anonymize_bag(db.from_sequence(["a"]), anon.config, None)  # type: ignore[arg-type]


def test_dask_apis_take_a_key_file_path_like_the_cli(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue 34: the Dask API took only a ReleaseKey; it reads a key file path as --key does."""
    dask = pytest.importorskip("dask")
    import dask.bag as db

    from embedanon.backends.dask import anonymize_bag
    from embedanon.noise import write_key_file

    path = tmp_path / "release.key"
    write_key_file(path)
    anon = Anonymizer(key=str(path))
    with dask.config.set(scheduler="synchronous"):
        by_path = anonymize_dataframe(_frame("plain"), ["text"], anon.config, str(path)).compute()
        by_key = anonymize_dataframe(_frame("plain"), ["text"], anon.config, anon.key).compute()
        bag = anonymize_bag(db.from_sequence(["John Smith", "Mary"]), anon.config, path).compute()
    assert by_path.equals(by_key) and bag == [anon.anonymize("John Smith"), anon.anonymize("Mary")]
    with pytest.raises(ConfigError, match="cannot read key file"):
        anonymize_bag(db.from_sequence(["a"]), anon.config, str(tmp_path / "missing.key"))
