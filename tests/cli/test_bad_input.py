"""The bad-input and fault table (issue 10): every case ends in one line on stderr naming the
problem, never any of the input's text, the documented exit status, nothing partial, no temp
files left, and a pre-existing output untouched.

Inputs carry a canary word (``Zebulonius``) that must never appear on stderr. Most cases run
through typer's CliRunner with a tiny embedding (fast); signals, pipes and closed descriptors
need a real process and run through ``python -m embedanon``.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedanon import _atomic, _cache
from embedanon.cli import app
from embedanon.vectors import defaults
from tests.helpers.embeddings import write_glove

CANARY = "Zebulonius"
PRECIOUS = "precious output\n"
runner = CliRunner()

_WORDS = ["patient", "doctor", "nurse", "hospital", "clinic", "pain", "ache", "heart", "chest",
          "river", "table", "window", "music", "green", "house", "garden", "paper", "stone"]


def _glove(path: Path, words: list[str] = _WORDS, dim: int = 6) -> Path:
    return write_glove(path, words, dim)


@dataclass
class Env:
    """A case's directory: a tiny embedding, a good input and a pre-existing output."""

    tmp: Path
    embedding: Path = field(init=False)
    good: Path = field(init=False)
    out: Path = field(init=False)
    inputs: set[str] = field(default_factory=set)
    originals: dict[str, bytes] = field(default_factory=dict)  # every input file's bytes

    def __post_init__(self) -> None:
        self.embedding = _glove(self.tmp / "tiny.glove.txt")
        self.good = self.write("good.txt", f"{CANARY} has chest pain\n")
        self.out = self.write("out.anon", PRECIOUS)  # a name of no format: every input may write it

    def write(self, name: str, text: str | bytes) -> Path:
        path = self.tmp / name
        path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
        self.inputs.add(name)
        self.originals[name] = path.read_bytes()
        return path

    def run(self, *args: str, stdin: bytes | None = None, output: bool = True,
            embedding: bool = True):  # type: ignore[no-untyped-def]
        extra = (["-o", str(self.out)] if output else []) + (
            ["--embedding", str(self.embedding)] if embedding else [])
        return runner.invoke(app, ["anonymize", *args, *extra], input=stdin)


@dataclass(frozen=True)
class Case:
    """One row: how to run it, what the one line says, and the exit status."""

    run: Callable[[Env, pytest.MonkeyPatch], object]
    message: str
    code: int = 2
    lead: str | None = None  # set while the fix waits for wiring in files.py/cli (see the report)


def _case(message: str, code: int = 2, lead: str | None = None):  # type: ignore[no-untyped-def]
    return lambda fn: Case(fn, message, code, lead)


# -- the table ----------------------------------------------------------------------------------
def _nested(n: int) -> bytes:
    return b'{"text": "' + CANARY.encode() + b'", "x": ' + b"[" * n + b"]" * n + b"}\n"


CASES: dict[str, Case] = {
    # inputs that would be printed or silently mis-anonymized
    "headerless csv": _case("no column 'text' in the first row (3 columns)")(
        lambda e, m: e.run(str(e.write("rows.csv", f"{CANARY} Smith,chest pain,54\n1,a,b\n")))),
    "csv format on txt": _case("no column 'text' in the first row")(
        lambda e, m: e.run(str(e.write("notes.txt", f"{CANARY}, seen today\n")), "--format", "csv")),
    "csv format on jsonl": _case("looks like JSON Lines")(
        lambda e, m: e.run(str(e.write("n.jsonl", f'{{"text": "{CANARY}"}}\n')), "--format", "csv")),
    "two csv columns named text": _case("column 'text' appears 2 times")(
        lambda e, m: e.run(str(e.write("d.csv", f"text,id,text\n{CANARY},1,{CANARY}\n")))),
    "duplicate json field": _case("field 'text' appears twice")(
        lambda e, m: e.run(str(e.write("d.jsonl", f'{{"text": "a", "text": "{CANARY}"}}\n')))),
    "duplicate json key": _case("repeated key")(
        lambda e, m: e.run(str(e.write("k.jsonl", f'{{"text": "a", "{CANARY}": 1, "{CANARY}": 2}}\n')))),
    "jsonl in a .txt file": _case("looks like JSON Lines")(
        lambda e, m: e.run(str(e.write("x.txt", f'{{"text": "{CANARY}", "{CANARY}": "b"}}\n')))),
    "jsonl on stdin": _case("looks like JSON Lines")(
        lambda e, m: e.run("-", stdin=f'{{"text": "{CANARY}"}}\n'.encode(), output=False)),
    "lone surrogate in a named field": _case("field 'text' has an unpaired surrogate")(
        lambda e, m: e.run(str(e.write("s.jsonl", b'{"text": "\\ud800 ' + CANARY.encode() + b'"}\n')))),
    "json nested 100000 deep": _case("line 1 is JSON nested too deeply")(
        lambda e, m: e.run(str(e.write("deep.jsonl", _nested(100_000))))),
    "json number of 5000 digits": _case("a number is too long")(
        lambda e, m: e.run(str(e.write("n.jsonl", f'{{"text": "{CANARY}", "n": {"9" * 5000}}}\n')))),
    "csv row with extra cells": _case("row 2 (line 2) has 4 cells but the header has 2 (an unquoted comma?)")(
        lambda e, m: e.run(str(e.write("rag.csv", f"id,text\n1,Patient {CANARY}, DOB 1961-03-02, 12 Elm St\n")))),
    "csv row with fewer cells": _case("row 3 (line 3) has 1 cell but the header has 3")(
        lambda e, m: e.run(str(e.write("few.csv", f"id,text,note\n1,a,b\n{CANARY} Smith\n")))),
    "csv quote never closed": _case("row 2 (line 2) opens a quoted field that is never closed")(
        lambda e, m: e.run(str(e.write("q.csv", f'id,text\n1,"unterminated {CANARY}\n2,b\n')))),
    "json Infinity": _case("line 1: a number is not finite JSON")(
        lambda e, m: e.run(str(e.write("inf.jsonl", f'{{"text": "{CANARY}", "big": 1e309}}\n')))),
    "json NaN": _case("line 2: a number is not finite JSON")(
        lambda e, m: e.run(str(e.write("nan.jsonl", f'{{"text": "a"}}\n{{"text": "{CANARY}", "n": NaN}}\n')))),
    "jsonl line null": _case("line 2 is a JSON null, not an object")(
        lambda e, m: e.run(str(e.write("null.jsonl", f'{{"text": "{CANARY}"}}\nnull\n')))),
    "invalid utf-8 on stdin": _case("line 3 is not valid UTF-8")(
        lambda e, m: e.run("-", stdin=f"{CANARY} one\n{CANARY} two\ncaf\xe9\n".encode("latin-1"),
                           output=False)),
    "invalid utf-8 in a file": _case("line 2 is not valid UTF-8")(
        lambda e, m: e.run(str(e.write("l.txt", f"{CANARY}\ncaf\xe9\n".encode("latin-1"))))),
    # embeddings and allowlists
    "notes given as embedding": _case("line 2 has 2 values after its word, not 3 (line 1): a damaged line, "
                                      "a word with a space in it, or not an embedding file")(
        lambda e, m: e.run(str(e.good), "--embedding",
                           str(e.write("notes.txt", f"seen {CANARY} chest pain\nMary visited Boston\n")),
                           embedding=False)),
    "empty embedding": _case("is empty")(
        lambda e, m: e.run(str(e.good), "--embedding", str(e.write("e.txt", b"")), embedding=False)),
    "embedding header claims 10^12 rows": _case("more than a file of")(
        lambda e, m: e.run(str(e.good), "--embedding",
                           str(e.write("lie.txt", f"1000000000000 3\n{CANARY} 1 2 3\n")), embedding=False)),
    "nan in embedding": _case("NaN or infinite values")(
        lambda e, m: e.run(str(e.good), "--embedding",
                           str(e.write("nan.txt", f"{CANARY} 1 2\nother nan 1\nthird 1 1\n")), embedding=False)),
    "zero vector in embedding": _case("all zeros")(
        lambda e, m: e.run(str(e.good), "--embedding",
                           str(e.write("z.txt", f"{CANARY} 1 2\nother 0 0\nthird 1 1\n")), embedding=False)),
    "duplicate word in embedding": _case("listed twice")(
        lambda e, m: e.run(str(e.good), "--embedding",
                           str(e.write("dup.txt", f"3 2\n{CANARY} 1 2\n{CANARY} 1 2\nother 1 1\n")),
                           embedding=False)),
    "embedding of dimension 1": _case("dimension 1")(
        lambda e, m: e.run(str(e.good), "--embedding",
                           str(e.write("d1.txt", f"{CANARY} 1\nother 2\nthird 3\n")), embedding=False)),
    "candidate list of patient names": _case("has 0 candidate words")(
        lambda e, m: e.run(str(e.good), "--candidates",
                           str(e.write("names.txt", f"{CANARY}\nMaryjane\nBostonia\n")))),
    "candidate list not utf-8": _case("al.txt: line 2 is not valid UTF-8")(
        lambda e, m: e.run(str(e.good), "--candidates",
                           str(e.write("al.txt", f"doctor\n{CANARY} caf\xe9\n".encode("latin-1"))))),
    "k over the memory bound": _case("needs about")(
        lambda e, m: (m.setattr("embedanon.vectors.store.memory_limit_bytes", lambda: 1024),
                      e.run(str(e.good), "--k", "16"))[1]),
    # output paths
    "output ''": _case("output path is empty")(
        lambda e, m: (m.chdir(e.tmp), e.run("good.txt", "-o", "", output=False))[1]),
    "output newdir/ under a regular file": _case("which is not a directory")(
        lambda e, m: e.run(str(e.good), "-o", str(e.out / "newdir") + "/", output=False)),
    "output under a regular file": _case("is not a directory")(
        lambda e, m: e.run(str(e.good), "-o", str(e.out / "x.txt"), output=False)),
    "output directory missing": _case("output directory does not exist")(
        lambda e, m: e.run(str(e.good), "-o", str(e.tmp / "no" / "x.txt"), output=False)),
    "output /dev/full": _case("No space left on device")(
        lambda e, m: e.run(str(e.good), "-o", "/dev/full", output=False)),
    "disk full": _case("No space left on device")(
        lambda e, m: (m.setattr(_atomic.os, "fsync", _raise(errno.ENOSPC)), e.run(str(e.good)))[1]),
    "output directory read-only": _case("Permission denied")(
        lambda e, m: (m.setattr(_atomic.tempfile, "mkstemp", _raise(errno.EACCES)), e.run(str(e.good)))[1]),
    "second of two inputs fails": _case("line 1 is not valid JSON")(
        lambda e, m: _two_inputs(e)),
    "several inputs to -o a file name": _case(
        "-o {tmp}/new/single.csv is named like a file (.csv), but several inputs need a directory")(
        lambda e, m: e.run(str(e.good), str(e.write("b.txt", "chest pain\n")), "-o",
                           str(e.tmp / "new" / "single.csv"), output=False)),
    "stdin given twice": _case("'-'")(
        lambda e, m: e.run("-", "-", stdin=f"{CANARY}\n".encode(), output=False)),
    # outputs that would replace a file the run reads, or another output (QA D1, D4)
    "output is the key": _case("output {tmp}/release.key is the same file as --key {tmp}/release.key")(
        lambda e, m: e.run(str(e.good), "--key", str(_key(e)), "-o", str(_key(e)), output=False)),
    "output is a hard link to the key": _case("is the same file as --key")(
        lambda e, m: e.run(str(e.good), "--key", str(_key(e)), "-o", str(_link(e, _key(e), hard=True)),
                           output=False)),
    "output is the deny list": _case("output {tmp}/deny.tsv is the same file as --deny {tmp}/deny.tsv")(
        lambda e, m: e.run(str(e.good), "--scope", "hybrid", "--deny", str(_deny(e)), "-o", str(_deny(e)),
                           output=False)),
    "output is the allow list": _case("is the same file as --allow")(
        lambda e, m: e.run(str(e.good), "--scope", "hybrid", "--allow", str(e.write("allow.txt", "Dr\n")),
                           "-o", str(e.tmp / "allow.txt"), output=False)),
    "output is the candidate list": _case("is the same file as --candidates")(
        lambda e, m: e.run(str(e.good), "--candidates", str(e.write("words.txt", "doctor\nnurse\n")),
                           "-o", str(e.tmp / "words.txt"), output=False)),
    "output is the embedding": _case("is the same file as --embedding")(
        lambda e, m: e.run(str(e.good), "-o", str(e.embedding), output=False)),
    "output inside the model directory": _case("is inside --detector-option model_path")(
        lambda e, m: e.run(str(e.good), "--scope", "hybrid", "--detector-option", f"model_path={_model(e)}",
                           "-o", str(_model(e) / "weights.npz"), output=False)),
    "report is the input": _case("--report {tmp}/good.txt is the same file as input {tmp}/good.txt")(
        lambda e, m: e.run(str(e.good), "--report", str(e.good))),
    "report is the output": _case("--report {tmp}/out.anon is the same file as output {tmp}/out.anon")(
        lambda e, m: e.run(str(e.good), "--report", str(e.out))),
    "report is the key": _case("--report {tmp}/release.key is the same file as --key")(
        lambda e, m: e.run(str(e.good), "--key", str(_key(e)), "--report", str(_key(e)))),
    "report is a link to the input": _case("is the same file as input")(
        lambda e, m: e.run(str(e.good), "--report", str(_link(e, e.good)))),
    "report and output both on stdout": _case("both write to standard output")(
        lambda e, m: e.run(str(e.good), "--report", "-", output=False)),
    "report in a missing directory": _case("--report: output directory does not exist")(
        lambda e, m: e.run(str(e.good), "--report", str(e.tmp / "nodir" / "r.json"))),
    "report is a directory": _case("--report: output {tmp}/rdir is a directory")(
        lambda e, m: (_mkdir(e, "rdir"), e.run(str(e.good), "--report", str(e.tmp / "rdir")))[1]),
    "review page is the key": _case("output {tmp}/release.key is the same file as --key")(
        lambda e, m: runner.invoke(app, ["review", str(e.good), "--key", str(_key(e)), "-o", str(_key(e)),
                                         "--embedding", str(e.embedding), "--no-attacks"])),
    "review page is the deny list": _case("is the same file as --deny")(
        lambda e, m: runner.invoke(app, ["review", str(e.good), "--scope", "hybrid", "--deny", str(_deny(e)),
                                         "-o", str(_deny(e)), "--embedding", str(e.embedding)])),
    # other commands
    "embeddings import of notes": _case("damaged, or not in this format")(
        lambda e, m: runner.invoke(app, ["embeddings", "import", str(e.write("n.txt", f"a {CANARY} b\nc d e\n")),
                                         "--name", "notes"])),
    "embeddings import of an empty file": _case("is empty")(
        lambda e, m: runner.invoke(app, ["embeddings", "import", str(e.write("e.vec", b""))])),
    "embeddings info of notes": _case("damaged, or not in this format")(
        lambda e, m: runner.invoke(app, ["embeddings", "info", str(e.write("n2.txt", f"a {CANARY}\nb c\n"))])),
    "keygen in a directory every user can write": _case(
        "is in {tmp}/open, a directory every user can write (mode 0777)")(
        lambda e, m: _keygen_in_open(e)),
    "calibrate -o at a file": _case("is not a directory")(
        lambda e, m: runner.invoke(app, ["calibrate", "-m", "knn", "--k", "2", "--embedding", str(e.embedding),
                                         "-o", str(e.out), "--no-plot"])),
    "calibrate -o under a file": _case("which is not a directory")(
        lambda e, m: runner.invoke(app, ["calibrate", "-m", "knn", "--k", "2", "--embedding", str(e.embedding),
                                         "-o", str(e.out / "sub"), "--no-plot"])),
}


def _raise(number: int) -> Callable[..., object]:
    def fail(*_: object, **__: object) -> object:
        raise OSError(number, os.strerror(number))

    return fail


def _key(e: Env) -> Path:
    """A release key in the case's directory (made once), counted as an input."""
    path = e.tmp / "release.key"
    if not path.exists():
        assert runner.invoke(app, ["keygen", str(path)]).exit_code == 0
        e.inputs.add(path.name)
        e.originals[path.name] = path.read_bytes()
    return path


def _deny(e: Env) -> Path:
    return e.tmp / "deny.tsv" if (e.tmp / "deny.tsv").exists() else e.write("deny.tsv", f"NAME\t{CANARY}\n")


def _link(e: Env, target: Path, *, hard: bool = False) -> Path:
    path = e.tmp / f"link-to-{target.name}"
    if not path.exists():
        (os.link if hard else os.symlink)(target, path)
        e.inputs.add(path.name)
    return path


def _mkdir(e: Env, name: str) -> Path:
    path = e.tmp / name
    path.mkdir(exist_ok=True)
    e.inputs.add(name)
    return path


def _keygen_in_open(e: Env):  # type: ignore[no-untyped-def]
    """keygen into a directory every user can write (0777, not sticky): refused, nothing written."""
    folder = _mkdir(e, "open")
    folder.chmod(0o777)
    result = runner.invoke(app, ["keygen", str(folder / "release.key")])
    assert os.listdir(folder) == [], "a key was written"
    return result


def _model(e: Env) -> Path:
    """A directory given as a trained model (never loaded: the refusal comes first)."""
    path = _mkdir(e, "model")
    (path / "weights.npz").write_bytes(b"weights")
    e.originals["model/weights.npz"] = b"weights"
    return path


def _two_inputs(e: Env):  # type: ignore[no-untyped-def]
    outdir = e.tmp / "outdir"
    outdir.mkdir()
    (outdir / "a.jsonl").write_text(PRECIOUS, encoding="utf-8")
    a = e.write("a.jsonl", f'{{"text": "{CANARY}"}}\n')
    b = e.write("b.jsonl", "{broken\n")
    result = e.run(str(a), str(b), "-o", str(outdir), output=False)
    assert (outdir / "a.jsonl").read_text(encoding="utf-8") == PRECIOUS, "first output was changed"
    assert sorted(os.listdir(outdir)) == ["a.jsonl"]
    return result


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    monkeypatch.setenv("EMBEDANON_HOME", str(tmp_path / ".home"))
    monkeypatch.setattr(_cache, "_disabled", None)
    defaults._load_named.cache_clear()
    yield Env(tmp_path)
    defaults._load_named.cache_clear()


def _leftovers(root: Path) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.name.endswith(".tmp") or ".embedanon-" in p.name]


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input(env: Env, monkeypatch: pytest.MonkeyPatch, name: str, request: pytest.FixtureRequest) -> None:
    case = CASES[name]
    if case.lead:
        request.applymarker(pytest.mark.xfail(reason=f"needs the lead's wiring: {case.lead}", strict=True))
    before = {p.name for p in env.tmp.iterdir()}
    result = case.run(env, monkeypatch)
    err = result.stderr  # type: ignore[attr-defined]
    assert result.exit_code == case.code, (name, result.output)  # type: ignore[attr-defined]
    # a failing disk also fails the cache's write, which the run survives with a one-line warning
    cache = ("warning: cannot write the cache", "warning: cannot create the cache")
    lines = [line for line in err.splitlines() if not line.startswith(cache)]
    assert len(lines) == 1 and lines[0].startswith("error: ") and err.endswith(lines[0] + "\n"), err
    assert case.message.format(tmp=env.tmp) in err, err
    assert CANARY.lower() not in err.lower() and "mary" not in err.lower(), err
    assert CANARY not in result.stdout, "partial output on stdout"  # type: ignore[attr-defined]
    assert env.out.read_text(encoding="utf-8") == PRECIOUS
    for name, data in env.originals.items():  # no input replaced either (key, word list, model)
        assert (env.tmp / name).read_bytes() == data, f"{name} was replaced"
    assert _leftovers(env.tmp) == []
    created = {p.name for p in env.tmp.iterdir()} - before - env.inputs - {".home", "outdir"}
    assert not created, f"created {created}"


def test_the_table_covers_the_issue() -> None:
    """A guard against silently dropping rows: the issue's bullets each have a case."""
    assert len(CASES) >= 35


# -- what is not an error: special files, links, surrogates kept, modes -------------------------
def test_special_outputs_are_streams_and_links_are_followed(env: Env) -> None:
    assert env.run(str(env.good), "-o", "/dev/null", output=False).exit_code == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    real = env.write("real.txt", PRECIOUS)
    link = env.tmp / "link.txt"
    link.symlink_to(real)
    assert env.run(str(env.good), "-o", str(link), output=False).exit_code == 0
    assert link.is_symlink() and real.read_text(encoding="utf-8") != PRECIOUS
    fifo = env.tmp / "fifo"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text(encoding="utf-8")))
    reader.start()
    assert env.run(str(env.good), "-o", str(fifo), output=False).exit_code == 0
    reader.join(timeout=30)
    assert got and got[0].count("\n") == 1 and stat.S_ISFIFO(fifo.stat().st_mode)
    assert _leftovers(env.tmp) == []


def test_surrogates_outside_named_fields_survive(env: Env) -> None:
    src = env.write("s.jsonl", b'{"text": "chest pain", "id": "x\\udc00y"}\n')
    result = env.run(str(src))
    assert result.exit_code == 0, result.output
    assert '"id": "x\\udc00y"' in env.out.read_text(encoding="utf-8")


def test_new_outputs_are_private(env: Env) -> None:
    old = os.umask(0o022)
    try:
        result = env.run(str(env.good), "-o", str(env.tmp / "new.txt"), output=False)
    finally:
        os.umask(old)
    assert result.exit_code == 0 and stat.S_IMODE((env.tmp / "new.txt").stat().st_mode) == 0o600


def test_explicit_txt_format_overrides_the_jsonl_sniffing(env: Env) -> None:
    src = env.write("x.txt", '{"text": "chest pain"}\n')
    result = env.run(str(src), "--format", "txt")
    assert result.exit_code == 0
    assert env.out.read_text(encoding="utf-8").count("\n") == 1


# -- real processes: descriptors, pipes, signals, caches ----------------------------------------
def _cli(env: Env, *args: str, **kwargs) -> list[str]:  # type: ignore[no-untyped-def]
    return [sys.executable, "-m", "embedanon", "anonymize", *args, "--embedding", str(env.embedding)]


def _proc_env(env: Env, **extra: str) -> dict[str, str]:
    return {**os.environ, "EMBEDANON_HOME": str(env.tmp / ".home"), **extra}


def test_stdin_that_is_the_output_file(env: Env) -> None:
    with open(env.out, "rb") as stdin:
        proc = subprocess.run(_cli(env, "-", "-o", str(env.out)), stdin=stdin, capture_output=True,
                              text=True, env=_proc_env(env), timeout=120)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1
    assert "standard input" in proc.stderr or "same file as input -" in proc.stderr
    assert env.out.read_text(encoding="utf-8") == PRECIOUS


@pytest.mark.slow
def test_broken_pipe_exits_141_quietly(env: Env) -> None:
    big = env.write("big.txt", "chest pain in the patient\n" * 60_000)
    proc = subprocess.Popen(_cli(env, str(big)), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=_proc_env(env))
    assert proc.stdout is not None and proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 141 and err == b"", err.decode()


@pytest.mark.slow
def test_broken_pipe_with_unbuffered_stdout_exits_141(env: Env) -> None:
    """Under PYTHONUNBUFFERED (or ``python -u``) standard output is a raw stream: the write
    that meets the closed pipe returns a short count and only the next one fails. The copy
    used to ignore the count and exit 0 with the output cut (QA D2)."""
    big = env.write("big.txt", "chest pain in the patient\n" * 12_000)  # about 300 KB, one chunk
    proc = subprocess.Popen(_cli(env, str(big)), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=_proc_env(env, PYTHONUNBUFFERED="1"))
    assert proc.stdout is not None and proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 141 and err == b"", err.decode()


@pytest.mark.slow
def test_closed_stdout_is_one_line(env: Env) -> None:
    code = "import os, sys, runpy; os.close(1); sys.argv = ['embedanon'] + sys.argv[1:]; " \
           "runpy.run_module('embedanon', run_name='__main__')"
    proc = subprocess.run([sys.executable, "-c", code, "anonymize", str(env.good), "--embedding",
                           str(env.embedding)], capture_output=False, stderr=subprocess.PIPE, text=True,
                          env=_proc_env(env), timeout=120)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert "standard output" in proc.stderr


@pytest.mark.slow
def test_dev_stdout_is_written_as_a_stream(env: Env) -> None:
    proc = subprocess.run(_cli(env, str(env.good), "-o", "/dev/stdout", "-q"), capture_output=True, text=True,
                          env=_proc_env(env), timeout=120)
    assert proc.returncode == 0 and proc.stdout.count("\n") == 1 and proc.stderr == ""


@pytest.mark.slow
@pytest.mark.parametrize(("signum", "code", "jobs"), [
    (signal.SIGTERM, 143, "1"), (signal.SIGINT, 130, "1"),
    (signal.SIGINT, 130, "2"), (signal.SIGTERM, 143, "2"),
])
def test_signals_exit_with_one_line_and_no_temp_files(env: Env, signum: int, code: int, jobs: str) -> None:
    big = env.write("big.txt", f"{CANARY} has chest pain in the garden\n" * 400_000)
    proc = subprocess.Popen(_cli(env, str(big), "-o", str(env.out), "--jobs", jobs), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=_proc_env(env))
    deadline = time.monotonic() + 120
    while not [p for p in env.tmp.iterdir() if p.name.startswith(".out.anon.")]:
        assert proc.poll() is None and time.monotonic() < deadline, "never started writing"
        time.sleep(0.05)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == code, err
    assert len(err.splitlines()) == 1 and "no output was written" in err and CANARY not in err
    assert env.out.read_text(encoding="utf-8") == PRECIOUS and _leftovers(env.tmp) == []


@pytest.mark.slow
def test_unwritable_cache_is_one_warning(env: Env) -> None:
    proc = subprocess.run(_cli(env, str(env.good)), capture_output=True, text=True, timeout=120,
                          env=_proc_env(env, EMBEDANON_CACHE=str(env.out / "cache")))
    assert proc.returncode == 0 and proc.stdout.count("\n") == 1
    # the warning, then the run's summary line (and the notice of the test's own private embedding)
    lines = [line for line in proc.stderr.splitlines() if not line.startswith("notice: embedding ")]
    assert len(lines) == 2 and "without the disk cache" in lines[0] and lines[1].startswith("anonymized "), lines


@pytest.mark.parametrize("report", ["nodir/r.json", "rdir"])
def test_a_bad_report_path_writes_no_output(env: Env, report: str) -> None:
    """QA D4: the report used to be checked only after the outputs were committed, so the run
    failed (exit 2) with its output written anyway."""
    (env.tmp / "rdir").mkdir()
    fresh = env.tmp / "fresh.txt"
    result = env.run(str(env.good), "-o", str(fresh), "--report", str(env.tmp / report), output=False)
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, result.output
    assert not fresh.exists() and _leftovers(env.tmp) == []


def test_report_commits_with_the_outputs(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """The report is in the outputs' batch: when the report cannot be written at the end (here:
    its directory vanished after the check), no output appears either."""
    from embedanon.cli import anonymize as command

    fresh, report = env.tmp / "fresh.txt", env.tmp / "late" / "r.json"
    (env.tmp / "late").mkdir()
    original = command.run_report

    def late(*args: object, **kwargs: object) -> str:
        (env.tmp / "late").rmdir()
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(command, "run_report", late)
    result = env.run(str(env.good), "-o", str(fresh), "--report", str(report), output=False)
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, result.output
    assert not fresh.exists() and _leftovers(env.tmp) == []
