"""The one atomic writer: all-or-nothing outputs, modes, special files, links, temp-file hygiene."""

from __future__ import annotations

import errno
import os
import re
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from embedanon import _atomic
from embedanon._atomic import (
    AtomicBatch,
    OutputError,
    atomic_directory,
    atomic_write,
    clean_stale_temps,
    is_stream,
    regular_target,
    writable_directory,
)

ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False


def _temps(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


@pytest.fixture
def umask_022():  # type: ignore[no-untyped-def]
    old = os.umask(0o022)
    yield
    os.umask(old)


# -- modes --------------------------------------------------------------------------------------
def test_private_files_are_0600_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        with atomic_write(tmp_path / "out.txt", private=True) as fh:
            fh.write("x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "out.txt").stat().st_mode) == 0o600


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_public_files_follow_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    old = os.umask(umask)
    try:
        with atomic_write(tmp_path / "cache.bin", private=False, binary=True) as fh:
            fh.write(b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "cache.bin").stat().st_mode) == mode


def test_replacing_a_file_keeps_its_mode(tmp_path: Path, umask_022: None) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old", encoding="utf-8")
    os.chmod(target, 0o640)
    with atomic_write(target, private=True) as fh:
        fh.write("new")
    assert target.read_text(encoding="utf-8") == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_file_holding_the_original_text_is_0600_whatever_it_replaces(tmp_path: Path,
                                                                       umask_022: None) -> None:
    target = tmp_path / "page.html"
    target.write_text("old", encoding="utf-8")
    os.chmod(target, 0o644)
    with atomic_write(target, private=True, original=True) as fh:
        fh.write("new")
    assert target.read_text(encoding="utf-8") == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    with atomic_write(tmp_path / "new.html", private=False, original=True) as fh:  # implies private
        fh.write("x")
    assert stat.S_IMODE((tmp_path / "new.html").stat().st_mode) == 0o600


def test_another_users_file_lends_no_mode(tmp_path: Path, umask_022: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Security audit: a release written over another user's file (through a link) took that
    file's mode, 0666 there, so that user could read and change it. A mode is kept only from a
    file the user owns; otherwise a release is 0600."""
    target = tmp_path / "out.txt"
    target.write_text("old", encoding="utf-8")
    os.chmod(target, 0o666)
    monkeypatch.setattr(os, "geteuid", lambda: target.stat().st_uid + 1)  # the file is another's
    with atomic_write(target, private=True) as fh:
        fh.write("new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


@pytest.mark.skipif(not ROOT, reason="giving a link to another user needs root")
def test_a_link_or_pipe_another_user_planted_in_a_shared_directory_is_not_written_through(
        tmp_path: Path) -> None:
    """Security audit: in a sticky directory everyone may write (``/tmp``), another user's link
    to their own file (or to the victim's ``.bashrc``) got the release, and so did their FIFO:
    resolving the link in Python skips the kernel's ``protected_symlinks``. Such a path is now
    refused, before anything is written; the user's own link there is still followed."""
    shared, victim = tmp_path / "shared", tmp_path / "victim"
    shared.mkdir()
    victim.mkdir()
    os.chmod(shared, 0o1777)
    precious = victim / "bashrc"
    precious.write_text("precious", encoding="utf-8")
    link, pipe = shared / "release.csv", shared / "pipe.csv"
    link.symlink_to(precious)
    os.mkfifo(pipe)
    os.lchown(link, 4321, 4321)
    os.chown(pipe, 4321, 4321)
    for path in (link, pipe):
        with pytest.raises(OutputError, match="another user owns"), AtomicBatch() as batch:
            batch.open(path).write("release")
    assert precious.read_text(encoding="utf-8") == "precious"
    os.lchown(link, os.geteuid(), os.getegid())  # the user's own link
    with AtomicBatch() as batch:
        batch.open(link).write("release")
    assert precious.read_text(encoding="utf-8") == "release" and link.is_symlink()


# -- all or nothing -----------------------------------------------------------------------------
def test_batch_renames_only_when_everything_succeeded(tmp_path: Path) -> None:
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("precious a", encoding="utf-8")
    with pytest.raises(RuntimeError), AtomicBatch() as batch:
        batch.open(first).write("new a")
        batch.open(second).write("new b")
        raise RuntimeError("the second input failed")
    assert first.read_text(encoding="utf-8") == "precious a" and not second.exists()
    assert _temps(tmp_path) == []
    with AtomicBatch() as batch:  # the same batch, succeeding: both appear
        batch.open(first).write("new a")
        batch.open(second).write("new b")
    assert first.read_text(encoding="utf-8") == "new a" and second.read_text(encoding="utf-8") == "new b"
    assert _temps(tmp_path) == []


def test_keyboard_interrupt_removes_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    with pytest.raises(KeyboardInterrupt), atomic_write(target, private=True) as fh:
        fh.write("half")
        assert _temps(tmp_path)  # the temp file exists while writing (negative control)
        raise KeyboardInterrupt
    assert not target.exists() and _temps(tmp_path) == []


def test_text_is_utf8_and_newlines_are_kept(tmp_path: Path) -> None:
    with atomic_write(tmp_path / "o.txt", private=True) as fh:
        fh.write("caf\u00e9\r\nx\n")
    assert (tmp_path / "o.txt").read_bytes() == "caf\u00e9\r\nx\n".encode()


# -- targets ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("path", "message"), [
    ("", "output path is empty"),
    ("newdir/", "is not a directory (it ends in"),
    ("missing/out.txt", "output directory does not exist"),
    ("afile/out.txt", "is not a directory"),
    (".", "is a directory"),
])
def test_targets_that_cannot_be_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: str,
                                        message: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    with pytest.raises(OutputError, match=message.replace("(", r"\(")):
        regular_target(path)
    assert sorted(os.listdir(tmp_path)) == ["afile"]  # never a file named newdir


def test_symbolic_links_are_followed(tmp_path: Path) -> None:
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    (real_dir / "target.txt").write_text("old", encoding="utf-8")
    link = tmp_path / "link.txt"
    link.symlink_to(real_dir / "target.txt")
    with atomic_write(link, private=True) as fh:
        fh.write("new")
    assert link.is_symlink() and (real_dir / "target.txt").read_text(encoding="utf-8") == "new"
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to(real_dir / "created.txt")
    with atomic_write(dangling, private=True) as fh:
        fh.write("made")
    assert dangling.is_symlink() and (real_dir / "created.txt").read_text(encoding="utf-8") == "made"
    assert _temps(tmp_path) == [] and _temps(real_dir) == []


def test_dev_null_stays_a_device() -> None:
    with atomic_write("/dev/null", private=True) as fh:
        fh.write("gone")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@pytest.mark.parametrize("path", ["/dev/stdout", "/dev/stderr", "/dev/fd/1", "/proc/self/fd/2", "/dev/null"])
def test_descriptor_paths_are_streams(path: str) -> None:
    assert is_stream(path)


def test_regular_files_are_not_streams(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x", encoding="utf-8")
    assert not is_stream(tmp_path / "f") and not is_stream(tmp_path / "missing")


def test_fifo_is_written_as_a_stream(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text(encoding="utf-8")))
    reader.start()
    with atomic_write(fifo, private=True) as fh:
        fh.write("through the pipe\n")
    reader.join(timeout=10)
    assert got == ["through the pipe\n"] and stat.S_ISFIFO(fifo.stat().st_mode)


def test_failed_stream_writes_nothing(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(RuntimeError), atomic_write(fifo, private=True) as fh:
        fh.write("partial")
        raise RuntimeError
    # Nothing opened the FIFO: a non-blocking open for writing finds no reader... and no writer
    # ever connected, so a reader opened now sees end of file at once.
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        assert os.read(fd, 100) == b""
    finally:
        os.close(fd)


def test_stdout_is_spooled_until_commit(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    with pytest.raises(RuntimeError), AtomicBatch() as batch:
        batch.open(None).write("line 1\n")
        raise RuntimeError("invalid UTF-8 further down")
    assert capsysbinary.readouterr().out == b""
    with AtomicBatch() as batch:
        out = batch.open("-")
        out.write("line 1\n")
        assert capsysbinary.readouterr().out == b""  # nothing before the end
    assert capsysbinary.readouterr().out == b"line 1\n"


def test_dev_full_is_one_line() -> None:
    with pytest.raises(OutputError, match="No space left on device") as info, \
            atomic_write("/dev/full", private=True) as fh:
        fh.write("x" * 100)
    assert len(str(info.value).splitlines()) == 1


def test_full_disk_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out.txt"
    target.write_text("precious", encoding="utf-8")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(_atomic.os, "fsync", full)
    with pytest.raises(OutputError, match="No space left on device"), atomic_write(target, private=True) as fh:
        fh.write("new")
    assert target.read_text(encoding="utf-8") == "precious" and _temps(tmp_path) == []


def test_unwritable_directory_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(**_: object) -> tuple[int, str]:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(_atomic.tempfile, "mkstemp", denied)
    with pytest.raises(OutputError, match="cannot write to .*Permission denied"):
        AtomicBatch().open(tmp_path / "out.txt")


@pytest.mark.skipif(ROOT, reason="root can write into read-only directories")
def test_read_only_directory_for_real(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    os.chmod(locked, 0o500)
    try:
        with pytest.raises(OutputError, match="Permission denied"):
            AtomicBatch().open(locked / "out.txt")
        with pytest.raises(OutputError, match="Permission denied"):
            writable_directory(locked)
    finally:
        os.chmod(locked, 0o700)


def test_a_directory_on_a_read_only_file_system_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """'-o DIR/' and '--report' on a read-only mount said 'Permission denied', which a chmod does
    not cure (found by the second CLI audit, by hand: a tmpfs remounted read-only; a file output
    there already said 'Read-only file system')."""
    from embedanon.files import check_report

    monkeypatch.setattr(_atomic.os, "access", lambda *_, **__: False)
    monkeypatch.setattr(_atomic.os, "statvfs", lambda _: os.statvfs_result((0,) * 8 + (os.ST_RDONLY, 255)))
    with pytest.raises(OutputError, match=f"^cannot write to {tmp_path}: Read-only file system$"):
        writable_directory(tmp_path / "new")
    with pytest.raises(OutputError, match=f"^--report: cannot write to {tmp_path}: Read-only file system$"):
        check_report(str(tmp_path / "report.json"))
    monkeypatch.setattr(_atomic.os, "statvfs", lambda _: os.statvfs_result((0,) * 10))
    with pytest.raises(OutputError, match="Permission denied$"):  # negative control: writable mount
        writable_directory(tmp_path / "new")


def test_a_full_temporary_directory_under_standard_output_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Standard output is held in a spool until the run ends, past 16 MiB in a file in TMPDIR.
    With TMPDIR full, 'anonymize big.txt > out.txt' said 'cannot write standard output: No space
    left on device' though out.txt's disk had room (found by the second CLI audit, by hand: a
    1 MB tmpfs as TMPDIR, a 28 MB output)."""
    import tempfile

    def full(*_: object, **__: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(_atomic, "SPOOL_MEMORY_BYTES", 16)
    monkeypatch.setattr(tempfile, "TemporaryFile", full)
    batch = AtomicBatch()
    out = batch.open("-")
    with pytest.raises(OutputError, match=f"^cannot hold standard output until the run ends: No space left "
                                          f"on device in {re.escape(tempfile.gettempdir())} \\(TMPDIR\\)"):
        out.write("anonymized text " * 10)
    batch.abort()


def test_writable_directory(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    assert writable_directory(tmp_path / "new" / "deeper") == tmp_path / "new" / "deeper"
    with pytest.raises(OutputError, match="is not a directory"):
        writable_directory(tmp_path / "file")
    with pytest.raises(OutputError, match="is under"):
        writable_directory(tmp_path / "file" / "sub")
    with pytest.raises(OutputError, match="empty"):
        writable_directory("")


def test_stdin_file_is_never_replaced(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("my input", encoding="utf-8")
    code = "from embedanon._atomic import atomic_write\n" \
           f"with atomic_write({str(target)!r}, private=True) as fh: fh.write('x')\n"
    with open(target, "rb") as stdin:
        proc = subprocess.run([sys.executable, "-c", code], stdin=stdin, capture_output=True,
                              text=True, timeout=60)
    assert proc.returncode != 0 and "the file standard input reads" in proc.stderr
    assert target.read_text(encoding="utf-8") == "my input"
    with open(tmp_path / "other.txt", "w") as other:  # negative control: another file as stdin
        other.write("x")
    with open(tmp_path / "other.txt", "rb") as stdin:
        ok = subprocess.run([sys.executable, "-c", code], stdin=stdin, capture_output=True, timeout=60)
    assert ok.returncode == 0 and target.read_text(encoding="utf-8") == "x"


# -- temp-file hygiene --------------------------------------------------------------------------
def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_stale_temps_of_dead_processes_are_cleaned(tmp_path: Path) -> None:
    from embedanon._atomic import _HOST

    dead = _dead_pid()
    other_host = "0" * 8 if _HOST != "0" * 8 else "1" * 8
    stale = tmp_path / f".out.txt.embedanon-{_HOST}-{dead}-abc123.tmp"
    fresh = tmp_path / f".new.txt.embedanon-{_HOST}-{dead}-def456.tmp"
    mine = tmp_path / f".mine.txt.embedanon-{_HOST}-{os.getpid()}-ghi789.tmp"
    # QA pass 4: a live run in another container or on another host sharing the directory has a
    # pid this process cannot see; its temp files were deleted and that run failed at the end
    elsewhere = tmp_path / f".out.txt.embedanon-{other_host}-{dead}-jkl012.tmp"
    foreign = tmp_path / ".out.txt.other-tool.tmp"
    for path in (stale, fresh, mine, elsewhere, foreign):
        path.write_text("anonymized text", encoding="utf-8")
    for path in (stale, mine, elsewhere, foreign):
        os.utime(path, (1_000_000, 1_000_000))  # long before this process started
    os.utime(fresh, None)  # touched now: may belong to a run on another machine
    with atomic_write(tmp_path / "result.txt", private=True) as fh:
        fh.write("ok")
    assert not stale.exists() and fresh.exists() and mine.exists() and foreign.exists()
    assert elsewhere.exists()
    assert clean_stale_temps(tmp_path) == 0


_WRITER = textwrap.dedent("""
    import sys, time
    from embedanon._atomic import AtomicBatch, install_signal_handlers
    install_signal_handlers()
    with AtomicBatch() as batch:
        batch.open(sys.argv[1]).write("anonymized " * 100000)
        print("ready", flush=True)
        time.sleep(60)
""")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signals_remove_temp_files(tmp_path: Path, signum: int) -> None:
    target = tmp_path / "out.txt"
    target.write_text("precious", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(target)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    assert _temps(tmp_path)  # negative control: the temp file is there while it runs
    proc.send_signal(signum)
    proc.wait(timeout=30)
    assert proc.returncode != 0
    assert target.read_text(encoding="utf-8") == "precious" and _temps(tmp_path) == []


def test_sigkill_leftovers_are_cleaned_by_the_next_run(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(target)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    proc.kill()
    proc.wait(timeout=30)
    assert len(_temps(tmp_path)) == 1  # kill -9 cannot be caught
    time.sleep(0.05)
    code = f"from embedanon._atomic import atomic_write\nwith atomic_write({str(target)!r}, private=True) as f: f.write('ok')"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    assert _temps(tmp_path) == [] and target.read_text(encoding="utf-8") == "ok"


# -- directories --------------------------------------------------------------------------------
def test_atomic_directory_replaces_or_keeps(tmp_path: Path, umask_022: None) -> None:
    target = tmp_path / "emb"
    with atomic_directory(target, private=False) as tmp:
        (tmp / "a").write_text("1", encoding="utf-8")
    assert (target / "a").read_text(encoding="utf-8") == "1"
    assert stat.S_IMODE(target.stat().st_mode) == 0o755
    with pytest.raises(RuntimeError), atomic_directory(target, private=False) as tmp:
        (tmp / "a").write_text("2", encoding="utf-8")
        raise RuntimeError
    assert (target / "a").read_text(encoding="utf-8") == "1"
    with atomic_directory(target, private=False) as tmp:
        (tmp / "b").write_text("3", encoding="utf-8")
    assert sorted(p.name for p in target.iterdir()) == ["b"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["emb"]


def test_worker_signal_defaults() -> None:
    code = ("import signal\nfrom embedanon._atomic import install_signal_handlers, worker_signal_defaults\n"
            "install_signal_handlers()\nassert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL\n"
            "worker_signal_defaults()\n"
            "assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN\n"
            "assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_a_swallowed_signal_still_stops_the_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A handler's exception can be swallowed (at-fork callbacks, finalizers): the flag it set
    must still stop every later write and the commit."""
    target = tmp_path / "out.txt"
    target.write_text("precious", encoding="utf-8")
    batch = AtomicBatch()
    out = batch.open(target)
    out.write("first records")
    monkeypatch.setattr(_atomic, "_received", signal.SIGTERM)
    with pytest.raises(_atomic.Terminated):
        out.write("more")
    with pytest.raises(_atomic.Terminated):
        batch.commit()
    assert target.read_text(encoding="utf-8") == "precious" and _temps(tmp_path) == []
    monkeypatch.setattr(_atomic, "_received", signal.SIGINT)
    with pytest.raises(KeyboardInterrupt), atomic_write(target, private=True) as fh:
        fh.write("x")
    assert target.read_text(encoding="utf-8") == "precious"


def test_signals_deferred_delivers_after_the_block() -> None:
    code = textwrap.dedent("""
        import os, signal
        from embedanon._atomic import Terminated, install_signal_handlers, signals_deferred
        install_signal_handlers()
        try:
            with signals_deferred():
                os.kill(os.getpid(), signal.SIGTERM)
                print("inside", flush=True)
            print("not reached", flush=True)
        except Terminated:
            print("terminated after", flush=True)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["inside", "terminated", "after"], proc.stderr


def test_a_signal_while_a_batch_is_renamed_into_place_waits_for_the_last_rename(tmp_path: Path) -> None:
    """SIGTERM between two renames of a batch left the first output new and the others old (a
    mixed release), and the message said no output was written (found by the second CLI audit,
    by hand: 1,500 inputs re-released under another key into their output directory, SIGTERM
    as the first output changed: 1 of 1,500 new, exit 143). The renames, once begun, all
    complete; the run stops at its next write or commit."""
    code = textwrap.dedent("""
        import os, signal, sys
        from pathlib import Path
        from embedanon import _atomic
        _atomic.install_signal_handlers()
        publish = _atomic._publish
        def publish_and_signal(temp, target, *, exclusive):
            publish(temp, target, exclusive=exclusive)
            os.kill(os.getpid(), signal.SIGTERM)  # after the first rename of the batch
        _atomic._publish = publish_and_signal
        with _atomic.AtomicBatch() as batch:
            for name in ("a.txt", "b.txt", "c.txt"):
                batch.open(Path(sys.argv[1]) / name).write("new")
        print("committed", flush=True)
        try:
            _atomic.check_stop()
        except _atomic.Terminated:
            print("stops after", flush=True)
    """)
    for name in ("a.txt", "b.txt", "c.txt"):
        (tmp_path / name).write_text("old", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                          timeout=60)
    assert [(tmp_path / name).read_text(encoding="utf-8") for name in ("a.txt", "b.txt", "c.txt")] == \
        ["new"] * 3, proc.stderr
    assert proc.stdout.split() == ["committed", "stops", "after"], proc.stderr
    assert _temps(tmp_path) == []


# -- standard output: short writes and errors -----------------------------------------------------
class _ShortWriter:
    """A raw stream that writes at most ``step`` bytes per call and says so (like a ``FileIO``
    on a pipe or a nearly full disk), then raises ``error`` once ``limit`` bytes are in."""

    def __init__(self, step: int, limit: int | None = None, error: int = errno.ENOSPC) -> None:
        self.data = bytearray()
        self.step, self.limit, self.error = step, limit, error

    def write(self, chunk: bytes) -> int:
        if self.limit is not None and len(self.data) >= self.limit:
            raise OSError(self.error, os.strerror(self.error))
        n = min(self.step, len(chunk))
        self.data += bytes(chunk[:n])
        return n

    def flush(self) -> None:
        pass


class _FakeStdout:
    def __init__(self, buffer: _ShortWriter) -> None:
        self.buffer = buffer

    def write(self, text: str) -> int:
        raise AssertionError("the binary layer must be used")

    def flush(self) -> None:
        pass


def _to_stdout(monkeypatch: pytest.MonkeyPatch, raw: _ShortWriter, data: bytes) -> None:
    monkeypatch.setattr(_atomic.sys, "stdout", _FakeStdout(raw))
    with AtomicBatch() as batch:
        batch.open("-", binary=True).write(data)


def test_short_writes_to_stdout_are_completed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A raw stdout (``python -u``, PYTHONUNBUFFERED) may take fewer bytes than given; the copy
    goes on until every byte is written (it used to stop after the first short write)."""
    data = bytes(range(256)) * 9000  # 2.3 MB: several 1 MiB chunks
    raw = _ShortWriter(step=65536)
    _to_stdout(monkeypatch, raw, data)
    assert bytes(raw.data) == data


@pytest.mark.parametrize(("number", "message"), [
    (errno.ENOSPC, "cannot write to standard output: No space left on device"),
    (errno.EIO, "cannot write to standard output: Input/output error"),
])
def test_full_disk_behind_stdout_is_one_line(monkeypatch: pytest.MonkeyPatch, number: int,
                                             message: str) -> None:
    """The tmpfs case: a short write first, the error on the next one."""
    with pytest.raises(OutputError) as info:
        _to_stdout(monkeypatch, _ShortWriter(step=65536, limit=65536, error=number), b"x" * 300_000)
    assert str(info.value) == message


def test_closed_pipe_behind_stdout_stays_a_broken_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    """A short write, then EPIPE: BrokenPipeError reaches the CLI (exit 141, no message)."""
    with pytest.raises(BrokenPipeError):
        _to_stdout(monkeypatch, _ShortWriter(step=65536, limit=65536, error=errno.EPIPE), b"x" * 300_000)


def test_a_stream_that_takes_nothing_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(OutputError, match="standard output"):
        _to_stdout(monkeypatch, _ShortWriter(step=0), b"x" * 10)


def test_atomic_directory_private_modes_nested_and_nothing_left_on_failure(
        tmp_path: Path, umask_022: None, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "model"
    with atomic_directory(target, private=True) as tmp:
        (tmp / "weights.npz").write_bytes(b"w")
        (tmp / "sub").mkdir()
        (tmp / "sub" / "f").write_bytes(b"f")
    modes = {p.relative_to(target).as_posix(): stat.S_IMODE(p.stat().st_mode) for p in target.rglob("*")}
    assert stat.S_IMODE(target.stat().st_mode) == 0o700
    assert modes == {"weights.npz": 0o600, "sub": 0o700, "sub/f": 0o600}

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(_atomic.os, "fsync", full)
    with pytest.raises(OutputError, match=f"cannot write {target}: No space left on device"), \
            atomic_directory(target, private=True) as tmp:
        (tmp / "weights.npz").write_bytes(b"new")
    assert (target / "weights.npz").read_bytes() == b"w"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


@pytest.mark.parametrize("streamed", [False, True])
def test_an_interruption_says_whether_a_stream_got_part_of_the_output(capsys, streamed) -> None:
    """QA pass 4: SIGTERM during the copy of a spooled output to a pipe left the reader with the
    first 64 KiB, and the message said no output was written."""
    import typer

    from embedanon._atomic import STREAMED
    from embedanon.cli.common import handle_errors

    @handle_errors
    def command() -> None:
        raise KeyboardInterrupt

    was = STREAMED.is_set()
    STREAMED.set() if streamed else STREAMED.clear()
    try:
        with pytest.raises(typer.Exit):
            command()
    finally:
        STREAMED.set() if was else STREAMED.clear()
    err = capsys.readouterr().err
    assert ("is incomplete" in err) == streamed and ("no output was written" in err) != streamed


def test_pumping_to_a_stream_sets_the_flag() -> None:
    import io

    from embedanon._atomic import STREAMED, _pump

    was = STREAMED.is_set()
    STREAMED.clear()
    try:
        _pump(io.BytesIO(b""), lambda view: len(view))
        assert not STREAMED.is_set()  # nothing to copy: nothing went out
        _pump(io.BytesIO(b"abc"), lambda view: len(view))
        assert STREAMED.is_set()
    finally:
        STREAMED.set() if was else STREAMED.clear()


_FINALIZERS = textwrap.dedent("""
    import os, signal
    from embedanon._atomic import Terminated, check_stop, install_signal_handlers

    install_signal_handlers()


    class Broken:
        def __del__(self):
            raise ValueError("a finalizer's own error")


    class Signalled:
        def __del__(self):  # the signal lands in a finalizer, as in distributed's gc callback
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(100_000):
                pass


    Broken()
    Signalled()
    try:
        check_stop()
    except Terminated:
        print("stopped")
""")


def test_a_stop_swallowed_in_a_finalizer_is_not_printed() -> None:
    """CI: SIGTERM landed in distributed's gc callback and Python printed "Exception ignored in"
    with our Terminated's traceback above the run's one line. The stop still happens (the flag),
    and only our own stop exceptions are kept quiet: another finalizer's error is still printed."""
    run = subprocess.run([sys.executable, "-c", _FINALIZERS], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "stopped\n"
    assert "ValueError: a finalizer's own error" in run.stderr  # the negative control
    assert "Terminated" not in run.stderr and "_on_signal" not in run.stderr, run.stderr


def _process_group(_: int) -> int:
    return os.getpgid(0)


@pytest.mark.skipif(not hasattr(os, "setpgid"), reason="POSIX process groups")
def test_pool_workers_leave_the_command_s_process_group() -> None:
    """Found by hand: ``timeout 3 anonymize big.jsonl --jobs 2 -o out.jsonl`` hung for ever about
    one run in six. ``timeout`` (like ``kill -- -PGID`` or a closed terminal's SIGHUP) signals the
    whole process group; a worker killed while it held the pool's result-queue lock left the
    parent's ``pool.terminate()`` waiting for that lock. Workers in a group of their own are
    ended by the parent only (``terminate()``, or PR_SET_PDEATHSIG when it dies)."""
    from embedanon.backends.processes import ProcessBackend

    groups = set(ProcessBackend(jobs=2).map(_process_group, range(8)))
    assert os.getpgid(0) not in groups


def test_a_written_file_leaves_no_exception_at_exit(tmp_path: Path) -> None:
    """The text guard's finalizer flushed a file its batch had already closed: Python 3.13 (and
    3.11 in development mode) printed 'Exception ignored ... I/O operation on closed file' after
    every command that wrote a file (packaging audit)."""
    script = textwrap.dedent(f"""
        from embedanon._atomic import AtomicBatch
        with AtomicBatch() as batch:
            fh = batch.open({str(tmp_path / 'out.txt')!r})
            fh.write("released\\n")
        del fh
        import gc; gc.collect()
    """)
    run = subprocess.run([sys.executable, "-X", "dev", "-c", script], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}, check=False)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "out.txt").read_text() == "released\n"
    assert "Exception ignored" not in run.stderr and "closed file" not in run.stderr


def _publish_at_the_barrier(barrier: Any, results: Any, target: str, i: int) -> None:
    barrier.wait()
    try:
        with atomic_directory(target, private=True) as tmp:
            (tmp / "a.txt").write_text(str(i) * 100, encoding="utf-8")
            (tmp / "b.txt").write_text(str(i), encoding="utf-8")
        results.put("ok")
    except Exception as exc:  # noqa: BLE001  # the test reports what failed
        results.put(type(exc).__name__)


@pytest.mark.skipif(sys.platform == "win32", reason="fork start")
def test_processes_publishing_one_directory_at_once_all_succeed(tmp_path: Path) -> None:
    """Concurrency audit (stop 58): runs started together on an empty cache publish one directory;
    between the existence check and the rename another one landed there, and 31 of 160 publishes
    failed with 'Directory not empty' (that run then went without its cache). Every publisher
    now succeeds, the directory is one writer's whole, and no temp directory is left."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    for round_ in range(6):
        base = tmp_path / f"r{round_}"
        base.mkdir()
        target = base / "vectors"
        if round_ % 2:
            target.mkdir()
            (target / "a.txt").write_text("old", encoding="utf-8")
        barrier, results = ctx.Barrier(4), ctx.Queue()
        workers = [ctx.Process(target=_publish_at_the_barrier, args=(barrier, results, str(target), i))
                   for i in range(4)]
        for w in workers:
            w.start()
        outcomes = [results.get(timeout=60) for _ in workers]
        for w in workers:
            w.join(60)
        assert outcomes == ["ok"] * 4
        a, b = (target / "a.txt").read_text(encoding="utf-8"), (target / "b.txt").read_text(encoding="utf-8")
        assert a == b * 100
        assert [p.name for p in base.iterdir()] == ["vectors"]
