"""The one atomic writer: every file embedanon writes goes through this module.

Files appear complete or not at all. A regular file is written to a temporary file in the
target's own directory and renamed over the target once the writing succeeded; several files
written together (:class:`AtomicBatch`) are renamed only after *all* of them succeeded, and a
stop signal that arrives once the renames began waits for the last of them. A target
that is not a regular file (``/dev/null``, a terminal, a FIFO, ``/dev/stdout``, standard output
itself) cannot be replaced: it is written as a stream, from a spool that is copied to it only
on success, so a failure still writes nothing there.

Mode rule (one for everything):

* **private** files hold text or data derived from the text being anonymized (anonymized
  outputs, run reports, review pages, trained detectors): created ``0600`` (directories
  ``0700``, owner only) whatever the umask,
  because nobody has reviewed them yet;
* **public** files are derived from public resources only (neighbor-table caches, imported
  embeddings, calibration outputs): created ``0666 & ~umask`` (directories ``0777 & ~umask``),
  like any file a program creates; a copy of an embedding file that not everyone may read (its
  cached fast form, an imported copy) is private, since its words may be the names in the notes;
* replacing an existing regular file the user owns keeps that file's permission bits: a ``chmod``
  the user made survives a rerun (another user's file lends none); except a file that holds the
  original text (a review page, a span file: ``original=True``), which is ``0600`` whatever the
  file it replaces allowed (decision 0376).

Symbolic links are followed: the file they point to is replaced, in its own directory, and the
link stays; but not a link or pipe that another user put in a sticky directory everyone may write
(:func:`refuse_planted`). Temporary files are named ``.<target name>.embedanon-<host>-<pid>-<random>.tmp``;
they are removed when writing fails, on SIGINT/SIGTERM (see :func:`install_signal_handlers`) and
at interpreter exit, and leftovers of a process that no longer runs (``kill -9``, power loss) are
removed by the next successful write into the same directory. ``<host>`` names the machine and
process namespace (:func:`_host_token`): a pid means something only there, so a run on another
host or in another container that shares the directory (NFS, a mounted volume) never has its
live temp files taken for leftovers.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import io
import os
import re
import signal
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import IO, Any

import numpy as np

from .errors import EmbedanonError

#: A spooled stream output stays in memory up to this size, then spills to an unlinked temp file.
SPOOL_MEMORY_BYTES = 16 * 1024 * 1024
_TAG = "embedanon"
_TEMP_RE = re.compile(r"^\..*\." + _TAG + r"-([0-9a-f]{8})-(\d+)-[A-Za-z0-9_]+\.tmp$")
#: Our temp files and directories not yet renamed or removed (removed at exit and on signals).
_LIVE: set[Path] = set()
_PROCESS_START = time.time()


class OutputError(EmbedanonError):
    """An output cannot be written (missing or read-only directory, full disk, closed stdout)."""


class TargetExists(OutputError):
    """An output written with ``exclusive=True`` exists already (it is never replaced)."""


class Terminated(BaseException):
    """Raised in the main thread by the SIGTERM handler so that cleanups run (exit 128 + signum)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


# -- modes -------------------------------------------------------------------------------------
def _umask() -> int:
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def new_file_mode(*, private: bool) -> int:
    """Permission bits of a new file under the mode rule (module docstring)."""
    return 0o600 if private else 0o666 & ~_umask()


def new_dir_mode(*, private: bool) -> int:
    """Permission bits of a new directory under the mode rule."""
    return 0o700 if private else 0o777 & ~_umask()


# -- targets -----------------------------------------------------------------------------------
def _describe(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def is_stream(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` must be written as a stream: it exists and is not a regular file (a
    character device, FIFO or socket), or it names a descriptor (``/dev/stdout``, ``/dev/fd/N``,
    ``/proc/self/fd/N``), which must not be replaced even when it refers to a regular file."""
    text = os.path.abspath(os.fspath(path))
    if text in ("/dev/stdout", "/dev/stderr") or re.match(r"^/(dev|proc/[^/]+)/fd/\d+$", text):
        return True
    try:
        st = os.stat(path)
    except OSError:
        return False
    return not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode)


def refuse_planted(path: str | os.PathLike[str]) -> None:
    """Refuse to write through a symbolic link, FIFO or socket at ``path`` that another user owns,
    in a directory that is sticky and that everyone may write (``/tmp``): as the kernel's
    ``protected_symlinks`` and ``protected_fifos`` do, since resolving the link here skips the
    kernel's check. Such a link or pipe was planted there by another user (security audit: a
    release was written into another user's file, or down their pipe). The owner of the directory
    and the user who runs embedanon may own one.

    Raises:
        OutputError: with one line naming the path.
    """
    text = os.fspath(path)
    if os.name != "posix" or text in ("", "-"):
        return
    try:
        st = os.lstat(text)
        parent = os.stat(os.path.dirname(os.path.abspath(text)))
    except OSError:
        return
    planted = stat.S_ISLNK(st.st_mode) or stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode)
    shared = parent.st_mode & stat.S_ISVTX and parent.st_mode & stat.S_IWOTH
    if planted and shared and st.st_uid not in (os.geteuid(), parent.st_uid):
        raise OutputError(f"output {text} is a link or pipe that another user owns, in a directory "
                          "everyone may write; it is not written through")


def regular_target(path: str | os.PathLike[str], *, stream_ok: bool = True) -> Path:
    """The file that writing ``path`` replaces: ``path`` with symbolic links resolved.

    Args:
        path: the output path.
        stream_ok: whether the command could write ``-`` instead (the empty-path message says so).

    Raises:
        OutputError: the path is empty, ends in a separator without being a directory, is a
            directory, or its directory is missing or not a directory.
    """
    text = os.fspath(path)
    if text == "":
        raise OutputError("output path is empty; use '-' for standard output" if stream_ok
                          else "output path is empty; name a file")
    trailing = text.endswith(os.sep) or bool(os.altsep and text.endswith(os.altsep))
    if trailing and not os.path.isdir(text):
        raise OutputError(f"output {text} is not a directory (it ends in {os.sep!r})")
    if os.path.isdir(text):
        raise OutputError(f"output {text} is a directory")
    real = Path(os.path.realpath(text))
    parent = real.parent
    if not parent.exists():
        raise OutputError(f"output directory does not exist: {parent}")
    if not parent.is_dir():
        raise OutputError(f"output directory is not a directory: {parent}")
    return real


def private_target(path: str | os.PathLike[str], what: str) -> Path:
    """:func:`regular_target` for a file that holds original text (``what``: ``the review
    page``): standard output and special files (a device, a FIFO, ``/dev/stdout``) are refused
    too, before any work.

    Raises:
        OutputError: with one line naming the problem.
    """
    text = os.fspath(path)
    if text == "-" or (text and is_stream(text)):
        raise OutputError(f"{what} contains original text and is written to a regular file only, not to "
                          "standard output or a special file")
    return regular_target(text, stream_ok=False)


def writable_directory(path: str | os.PathLike[str]) -> Path:
    """Check, before any long work, that files can be created in directory ``path`` (made later
    if missing); return it.

    Raises:
        OutputError: ``path`` is empty or not a directory, or it (or, when missing, its nearest
            existing parent) is not writable.
    """
    text = os.fspath(path)
    if text == "":
        raise OutputError("output directory is empty; use '.' for the current directory")
    target = Path(text)
    probe = target
    while not probe.exists():
        if probe.is_symlink():
            raise OutputError(f"output directory {text} is a broken symbolic link")
        probe = probe.parent
    if not probe.is_dir():
        what = "is not a directory" if probe == target else f"is under {probe}, which is not a directory"
        raise OutputError(f"output directory {text} {what}")
    why = unwritable(probe)
    if why is not None:
        raise OutputError(f"cannot write to {probe}: {why}")
    return target


def unwritable(directory: str | os.PathLike[str]) -> str | None:
    """Why no file can be created in ``directory`` (as ``strerror`` says it: a read-only mount,
    which a chmod does not cure, or missing permission), or None when one can."""
    if os.access(directory, os.W_OK | os.X_OK):
        return None
    with contextlib.suppress(OSError, AttributeError):  # no statvfs (Windows): permission
        if os.statvfs(directory).f_flag & os.ST_RDONLY:
            return os.strerror(errno.EROFS)
    return os.strerror(errno.EACCES)


# -- temp files --------------------------------------------------------------------------------
def _host_token() -> str:
    """8 hex digits naming this host and process namespace: the host name and, where there is one,
    the pid namespace (two containers on one host may share a host name)."""
    import hashlib
    import socket

    parts = [socket.gethostname()]
    with contextlib.suppress(OSError):
        parts.append(str(os.stat("/proc/self/ns/pid").st_ino))
    return hashlib.blake2b("\x00".join(parts).encode("utf-8", "surrogatepass"), digest_size=4).hexdigest()


_HOST = _host_token()


def _make_temp(target: Path, *, directory: bool = False) -> Path:
    prefix = f".{target.name}.{_TAG}-{_HOST}-{os.getpid()}-"
    try:
        if directory:
            made = Path(tempfile.mkdtemp(prefix=prefix, suffix=".tmp", dir=target.parent))
        else:
            fd, name = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=target.parent)
            os.close(fd)
            made = Path(name)
    except OSError as exc:
        raise OutputError(f"cannot write to {target.parent}: {_describe(exc)}") from None
    _LIVE.add(made)
    return made


def _remove(path: Path) -> None:
    _LIVE.discard(path)
    try:
        if path.is_dir() and not path.is_symlink():
            import shutil

            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    except OSError:
        pass


@atexit.register
def _cleanup_live() -> None:
    for path in list(_LIVE):
        _remove(path)


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it runs, under another user
        return True
    return True


def clean_stale_temps(directory: str | os.PathLike[str]) -> int:
    """Remove our own leftover temp files in ``directory``: named by :func:`_make_temp` on this
    host and process namespace, made by a process that no longer runs, and last modified before
    this process started. Returns how many were removed; never raises."""
    removed = 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        match = _TEMP_RE.match(entry.name)
        if not match:
            continue
        try:
            old = entry.stat(follow_symlinks=False).st_mtime < _PROCESS_START
        except OSError:
            continue
        if old and match.group(1) == _HOST and not _pid_alive(int(match.group(2))):
            _remove(Path(entry.path))
            removed += 1
    return removed


def _existing_mode(target: Path) -> int | None:
    """The permission bits of the regular file ``target`` replaces, where the user owns it: a mode
    another user chose (``0666`` on their file) is not copied onto a release."""
    try:
        st = os.stat(target)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or (hasattr(os, "geteuid") and st.st_uid != os.geteuid()):
        return None
    return stat.S_IMODE(st.st_mode)


# -- signals -----------------------------------------------------------------------------------
_STOP_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))
#: The stop signal received, if any. An exception raised by a signal handler is swallowed when it
#: lands in an at-fork callback, a finalizer or a ``__del__`` ("Exception ignored in ..."), and
#: the program would carry on; every write and :meth:`AtomicBatch.commit` check this flag, so a
#: run that was told to stop never puts an output in place.
_received: int | None = None


def _stop(signum: int) -> BaseException:
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    global _received
    _received = signum
    raise _stop(signum)


def _unraisable_hook(previous: Callable[[Any], object]) -> Callable[[Any], object]:
    """``sys.unraisablehook`` that stays silent on this module's own stop exceptions once a stop
    signal arrived: swallowed where they landed (a finalizer, a gc callback such as
    distributed's), they were printed as "Exception ignored in ..." with a traceback, while the
    flag above still stops the run with its one line. Every other unraisable goes to ``previous``."""

    def hook(unraisable: Any) -> object:
        if _received is not None and isinstance(unraisable.exc_value, (Terminated, KeyboardInterrupt)):
            return None
        return previous(unraisable)

    hook.embedanon_stop_hook = True  # type: ignore[attr-defined]
    return hook


def check_stop() -> None:
    """Raise ``KeyboardInterrupt`` or :class:`Terminated` if a stop signal arrived (see above)."""
    if _received is not None:
        raise _stop(_received)


def install_signal_handlers() -> None:
    """Make SIGTERM (and SIGHUP) raise :class:`Terminated` and SIGINT ``KeyboardInterrupt``, and
    remember them (:func:`check_stop`), so that ``finally`` blocks and the temp-file cleanup run;
    where such an exception is swallowed (a finalizer), it is not printed either.
    Handlers someone else installed are kept. Main thread only; a no-op elsewhere."""
    import threading

    global _received
    if threading.current_thread() is not threading.main_thread():
        return
    _received = None  # a new command starts; a signal of an earlier one (in-process) is spent
    for signum in _STOP_SIGNALS:
        if signal.getsignal(signum) in (signal.SIG_DFL, None, signal.default_int_handler):
            signal.signal(signum, _on_signal)
    if not getattr(sys.unraisablehook, "embedanon_stop_hook", False):
        sys.unraisablehook = _unraisable_hook(sys.unraisablehook)


@contextlib.contextmanager
def signals_deferred(*, stop_later: bool = False) -> Iterator[None]:
    """Hold SIGINT/SIGTERM/SIGHUP while the block runs (e.g. while a pool forks its workers: an
    exception raised inside ``os.fork``'s at-fork callbacks is printed and ignored) and act on
    the first one when it ends, as its handler would have. Handlers are swapped for a recorder
    (a signal mask would not do: BLAS and OpenMP threads would still take the signal). Workers
    forked inside inherit the recorder; :func:`worker_signal_defaults` replaces it.

    Args:
        stop_later: where the handler is this module's own, only remember the signal: the run
            stops at its next write or commit (:func:`check_stop`), not as the block ends (a
            batch's renames: those done cannot be taken back, so the others must follow).
    """
    import threading

    global _received
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    owner = os.getpid()

    def record(number: int, frame: FrameType | None) -> None:
        if os.getpid() != owner:  # a worker forked inside the block, before its initializer ran:
            signal.signal(number, signal.SIG_DFL)  # the pool's terminate() must still end it
            os.kill(os.getpid(), number)
            return
        caught.append(number)

    previous = {signum: signal.getsignal(signum) for signum in _STOP_SIGNALS}
    for signum in _STOP_SIGNALS:
        signal.signal(signum, record)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if caught:
        handler = previous[caught[0]]
        if stop_later and handler is _on_signal:
            _received = caught[0]
        elif callable(handler):
            handler(caught[0], None)
        elif handler == signal.SIG_DFL:
            os.kill(os.getpid(), caught[0])


def worker_signal_defaults() -> None:
    """Initializer for worker processes: ignore SIGINT (the parent handles Ctrl-C, stops the pool
    and prints the one line), restore the default SIGTERM/SIGHUP (a pool's ``terminate()`` must
    end a worker quietly, not raise :class:`Terminated` in it with a traceback), replacing any
    handler inherited by the fork (see :func:`signals_deferred`).

    The worker also leaves the command's process group for one of its own: a signal sent to the
    whole group (``timeout``, ``kill -- -PGID``, a closed terminal's SIGHUP) killed a worker that
    could hold the pool's result-queue lock, and the parent's ``pool.terminate()`` then waited for
    that lock for ever (``timeout 3 anonymize --jobs 2``: one run in six hung). The parent alone
    ends its workers: ``pool.terminate()``, or PR_SET_PDEATHSIG when it dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for signum in _STOP_SIGNALS:
        if signum != signal.SIGINT:
            signal.signal(signum, signal.SIG_DFL)
    if hasattr(os, "setpgid"):
        with contextlib.suppress(OSError):  # a session leader cannot; it keeps the old behaviour
            os.setpgid(0, 0)


# -- writing -----------------------------------------------------------------------------------
class _Guarded(io.TextIOBase):
    """Text writer that turns write errors into one-line :class:`OutputError`\\ s.

    Args:
        spooled: ``raw`` is the spool of a stream output (standard output, a FIFO): what fails
            is the spool's file in the temporary directory, not the stream, which is written
            only at commit.
    """

    def __init__(self, raw: IO[str], shown: str, *, spooled: bool = False) -> None:
        self._raw = raw
        self._shown = shown
        self._spooled = spooled

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:  # type: ignore[override]
        check_stop()
        try:
            return self._raw.write(text)
        except OSError as exc:
            raise self._error(exc) from None

    def flush(self) -> None:
        if self._raw.closed:  # the guard owns nothing: its finalizer ran after the file was closed
            return  # (Python 3.13 printed 'Exception ignored ... closed file' after every -o run)
        try:
            self._raw.flush()
        except OSError as exc:
            raise self._error(exc) from None

    def _error(self, exc: OSError) -> OutputError:
        if self._spooled:  # a full /tmp said 'cannot write standard output' with room behind it
            return _spool_error(self._shown, exc)
        return OutputError(f"cannot write {self._shown}: {_describe(exc)}")


def _spool_error(shown: str, exc: OSError) -> OutputError:
    """The error of a stream output's spool (see :class:`_Guarded`)."""
    return OutputError(f"cannot hold {shown} until the run ends: {_describe(exc)} in "
                       f"{tempfile.gettempdir()} (TMPDIR); set TMPDIR to a directory with room "
                       "or write with -o FILE")


@dataclass(eq=False)
class _Pending:
    shown: str
    fh: IO[Any]  # what the caller writes to (a temp file or a spool)
    temp: Path | None = None  # regular targets: the temp file renamed at commit
    target: Path | None = None
    stream: str | None = None  # stream targets: the path, or "-" for standard output
    mode: int = 0o600
    keep: bool = False  # a resumable run's temp file: kept on abort, for the next --resume
    exclusive: bool = False  # published by a hard link that fails if the target exists
    finished: bool = False  # written, flushed, fsynced and closed (:meth:`AtomicBatch.finish_written`)


class AtomicBatch:
    """Several outputs that appear together: all on :meth:`commit`, none on :meth:`abort`.

    Use as a context manager (commit on success, abort on any exception, also
    ``KeyboardInterrupt``)::

        with AtomicBatch() as batch:
            for src, dst in pairs:
                convert(src, batch.open(dst))

    Regular files are renamed over their targets only after every output of the batch was
    written, flushed and fsynced, so a failure on the second input leaves the first one's
    previous output untouched. Streams (standard output, devices, FIFOs) are spooled and copied
    at commit, after the renames. Output text is UTF-8 and newlines are written as given.
    """

    def __init__(self) -> None:
        self._pending: list[_Pending] = []
        self._done = False

    def __enter__(self) -> AtomicBatch:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *_: object) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.abort()

    def open(self, path: str | os.PathLike[str] | None, *, private: bool = True,
             binary: bool = False, follow_links: bool = True,
             exclusive: bool = False, original: bool = False) -> IO[Any]:
        """A writable stream for ``path`` (``None`` or ``-``: standard output).

        Args:
            path: target file.
            private: mode rule for a new file (see the module docstring).
            binary: bytes instead of UTF-8 text.
            follow_links: False for files in a directory others may write (caches): whatever
                is at ``path`` (a symbolic link, a FIFO, a device) is replaced by the rename,
                never followed or written through, and ``path`` is never a stream.
            exclusive: never replace an existing file: a regular file only, published at
                commit by a hard link that fails when the target exists by then (two processes
                creating one file: exactly one succeeds, the other gets :class:`TargetExists`).
            original: the file holds the original text: ``0600`` even where it replaces a file
                that others could read (implies ``private``).

        Raises:
            OutputError: the target cannot be written (see :func:`regular_target`).
            TargetExists: ``exclusive`` and the target exists.
        """
        if self._done:
            raise RuntimeError("this batch is already committed or aborted")
        text = "-" if path is None else os.fspath(path)
        if exclusive and (text == "-" or is_stream(text) or os.path.lexists(text)):
            what = "standard output" if text == "-" else text
            raise TargetExists(f"{what} already exists; it is never replaced")
        if not follow_links:
            return self._open_in_place(text, private=private, binary=binary)
        refuse_planted(text)
        if text == "-" or is_stream(text):
            # The spool lives until commit or abort, beyond this call: no context manager.
            spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY_BYTES, mode="w+b")  # noqa: SIM115
            handle: IO[Any] = spool if binary else io.TextIOWrapper(
                spool, encoding="utf-8", newline="", write_through=True)  # type: ignore[arg-type]
            shown = "standard output" if text == "-" else text
            self._pending.append(_Pending(shown, handle, stream=text))
            return handle if binary else _Guarded(handle, shown, spooled=True)  # type: ignore[return-value]
        target = regular_target(text)
        _refuse_stdin(target, text)
        mode = None if original else _existing_mode(target)
        return self._open_temp(text, target, mode, private=private or original, binary=binary,
                               exclusive=exclusive)

    def _open_in_place(self, text: str, *, private: bool, binary: bool) -> IO[Any]:
        """:meth:`open` with ``follow_links=False``: a temp file beside ``text`` itself (its
        directory not resolved past the last component), renamed over whatever is there."""
        target = Path(os.path.abspath(text))
        if not target.parent.is_dir():
            raise OutputError(f"output directory does not exist: {target.parent}")
        try:
            st = os.lstat(target)
        except OSError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise OutputError(f"output {text} is a directory")
        mode = stat.S_IMODE(st.st_mode) if st is not None and stat.S_ISREG(st.st_mode) else None
        return self._open_temp(text, target, mode, private=private, binary=binary)

    def _open_temp(self, text: str, target: Path, mode: int | None, *, private: bool, binary: bool,
                   exclusive: bool = False) -> IO[Any]:
        """A temp file beside ``target`` (mkstemp: O_CREAT | O_EXCL | O_NOFOLLOW, mode 0600), kept
        as pending until commit renames it over ``target`` with ``mode`` (None: a new file's)."""
        temp = _make_temp(target)
        try:
            fh: IO[Any] = open(temp, "wb") if binary else open(  # noqa: SIM115
                temp, "w", encoding="utf-8", newline="")
        except OSError as exc:
            _remove(temp)
            raise OutputError(f"cannot write to {target.parent}: {_describe(exc)}") from None
        self._pending.append(_Pending(text, fh, temp, target,
                                      mode=new_file_mode(private=private) if mode is None else mode,
                                      exclusive=exclusive))
        return fh if binary else _Guarded(fh, text)  # type: ignore[return-value]

    def finish_written(self) -> None:
        """Flush, fsync and close every regular output opened so far, whose writing is over:
        :meth:`commit` then only renames them. A run over many inputs calls it after each, so it
        never holds more than one output's file open (1,100 inputs had hit the open-file limit,
        ``ulimit -n``, after all the work)."""
        for p in self._pending:
            if p.temp is not None and not p.finished:
                _finish_temp(p)
                p.finished = True

    def commit(self) -> None:
        """Flush, fsync and rename every regular output, then copy every spooled stream."""
        if self._done:
            return
        try:
            check_stop()
            self.finish_written()
            with signals_deferred(stop_later=True):  # all in place or none: a signal between
                for p in self._pending:                # two renames left a mixed release
                    if p.temp is not None:
                        assert p.target is not None
                        try:
                            _publish(p.temp, p.target, exclusive=p.exclusive)
                        except FileExistsError:
                            raise TargetExists(f"{p.shown} already exists; it is never replaced") from None
                        except OSError as exc:
                            raise OutputError(f"cannot write {p.shown}: {_describe(exc)}") from None
                        _LIVE.discard(p.temp)
            for directory in {p.target.parent for p in self._pending if p.target is not None}:
                clean_stale_temps(directory)
            for p in self._pending:
                if p.stream is not None:
                    _copy_spool(p)
        except BaseException:
            self.abort()
            raise
        self._done = True

    def abort(self) -> None:
        """Discard every output not yet in place (temp files removed, spools dropped)."""
        self._done = True
        for p in self._pending:
            with contextlib.suppress(Exception):
                p.fh.close()
            if p.temp is not None and not p.keep:
                _remove(p.temp)

    def open_kept(self, path: str | os.PathLike[str], temp: Path, offset: int, *,
                  private: bool = True) -> IO[bytes]:
        """A binary stream for ``path`` written into ``temp``, a temp file with a stable name
        that outlives a failed or interrupted batch (a resumable run, :mod:`embedanon.resume`):
        created if missing (``O_EXCL``-free, never through a link), cut to ``offset`` bytes (what
        its journal says was written completely) and positioned there. It is renamed over
        ``path`` at commit like any output, and kept, not removed, on abort.

        Raises:
            OutputError: the target or the temp file cannot be written.
        """
        if self._done:
            raise RuntimeError("this batch is already committed or aborted")
        text = os.fspath(path)
        refuse_planted(text)
        target = regular_target(text, stream_ok=False)
        mode = _existing_mode(target)
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(temp, flags, 0o600)
            fh = os.fdopen(fd, "r+b")
            fh.truncate(offset)
            fh.seek(offset)
        except OSError as exc:
            raise OutputError(f"cannot write to {temp.parent}: {_describe(exc)}") from None
        self._pending.append(_Pending(text, fh, temp, target, keep=True,
                                      mode=new_file_mode(private=private) if mode is None else mode))
        return fh


def _publish(temp: Path, target: Path, *, exclusive: bool) -> None:
    """Rename ``temp`` over ``target``; ``exclusive``: link it there instead, which fails with
    :class:`FileExistsError` when ``target`` exists, then remove ``temp``. A file system without
    hard links (FAT, some network shares) gets a check and a rename: a race between the two
    leaves the later writer's file, which is why the check is made as late as possible."""
    if not exclusive:
        os.replace(temp, target)
        return
    try:
        os.link(temp, target)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        if os.path.lexists(target):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(target)) from None
        os.replace(temp, target)
        return
    _remove(temp)


def _finish_temp(p: _Pending) -> None:
    assert p.temp is not None
    try:
        p.fh.flush()
        os.fsync(p.fh.fileno())
        p.fh.close()
        os.chmod(p.temp, p.mode)
    except OSError as exc:
        raise OutputError(f"cannot write {p.shown}: {_describe(exc)}") from None


def _copy_spool(p: _Pending) -> None:
    """Copy a spooled stream output to its destination (standard output or a special file)."""
    fh = p.fh
    try:
        fh.flush()
    except OSError as exc:
        raise _spool_error(p.shown, exc) from None
    raw = fh.buffer if isinstance(fh, io.TextIOWrapper) else fh
    raw.seek(0)
    if p.stream == "-":
        out = getattr(sys.stdout, "buffer", None) if sys.stdout is not None else None
        if sys.stdout is None:
            raise OutputError("standard output is closed")
        try:
            sys.stdout.flush()
            if out is None:  # a text-only stdout (tests, IDEs)
                sys.stdout.write(raw.read().decode("utf-8"))
            else:
                _pump(raw, out.write)
                out.flush()
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:  # ValueError: stdout was closed by the program
            why = _describe(exc) if isinstance(exc, OSError) else "it is closed"
            raise OutputError(f"cannot write to standard output: {why}") from None
        return
    assert p.stream is not None
    try:
        # O_APPEND is not used: a device or FIFO has no position, and O_TRUNC does not apply.
        with open(p.stream, "ab") as dest:
            _pump(raw, dest.write)
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(f"cannot write {p.shown}: {_describe(exc)}") from None


#: Set when a spooled output began to be copied to its stream (standard output, a FIFO ...):
#: an interruption after that has written part of the output, which cannot be taken back.
STREAMED = threading.Event()


def _pump(src: IO[bytes], write: Callable[[memoryview], int | None]) -> None:
    """Copy ``src`` to ``write`` until every byte is written.

    A raw stream may write fewer bytes than it was given and return the count: standard output
    is one under ``python -u`` or ``PYTHONUNBUFFERED`` (a ``FileIO``), where a full disk or a
    reader that went away first shows as a short write and only the *next* write raises
    (ENOSPC, EPIPE). Ignoring the count truncated the output with exit status 0.
    """
    while chunk := src.read(1 << 20):
        view = memoryview(chunk)
        while view:
            STREAMED.set()  # from here on an interruption leaves a stream cut short
            written = write(view)
            if not written:  # None: a non-blocking stream that would block; 0: no progress
                code = errno.EAGAIN if written is None else errno.EIO
                raise OSError(code, os.strerror(code))
            view = view[written:]


def stdin_file_stat() -> os.stat_result | None:
    """The ``stat`` of the regular file standard input reads; None for a pipe, a terminal, or a
    closed standard input."""
    try:
        st = os.fstat(sys.stdin.fileno()) if sys.stdin is not None else None
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return None
    return st if st is not None and stat.S_ISREG(st.st_mode) else None


def _refuse_stdin(target: Path, shown: str) -> None:
    """Refuse a target that is the file standard input reads (``anonymize - -o a.txt < a.txt``)."""
    st_in = stdin_file_stat()
    if st_in is None:
        return
    try:
        st_out = os.stat(target)
    except (OSError, ValueError):
        return
    if (st_in.st_dev, st_in.st_ino) == (st_out.st_dev, st_out.st_ino):
        raise OutputError(f"output {shown} is the file standard input reads; choose another -o")


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], *, private: bool, binary: bool = False,
                 follow_links: bool = True, exclusive: bool = False,
                 original: bool = False) -> Iterator[IO[Any]]:
    """One output file written atomically (a batch of one; ``follow_links``, ``exclusive``
    (never replacing an existing file), ``original`` (0600 whatever it replaces): see
    :meth:`AtomicBatch.open`)."""
    with AtomicBatch() as batch:
        yield batch.open(path, private=private, binary=binary, follow_links=follow_links,
                         exclusive=exclusive, original=original)


class NotRegularFile(OSError):
    """A file expected to be regular is a symbolic link, FIFO, device, socket or directory."""


def open_regular(path: str | os.PathLike[str]) -> IO[bytes]:
    """Open ``path`` for reading only if it is a regular file: a symbolic link as its last
    component is not followed and a FIFO is not waited on (``O_NOFOLLOW | O_NONBLOCK``, then
    ``fstat``), so a link or a named pipe planted in a cache can neither redirect a read nor hang
    it.

    Raises:
        NotRegularFile: ``path`` is not a regular file.
        OSError: it cannot be opened (missing: ``FileNotFoundError``).
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(
        os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # the last component is a symbolic link
            raise NotRegularFile(errno.ELOOP, "a symbolic link", os.fspath(path)) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(errno.EINVAL, "not a regular file", os.fspath(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


@contextlib.contextmanager
def atomic_directory(path: str | os.PathLike[str], *, private: bool) -> Iterator[Path]:
    """A directory filled in a temp directory beside ``path`` and renamed over it on success.

    An existing directory at ``path`` is replaced (it is renamed aside first, then removed), so
    readers never see a half-filled one. Yields the temp directory to fill (created ``0700``);
    on success every directory and file in it gets its mode under the mode rule and the files
    are fsynced before the rename. Any failure removes the temp directory and leaves ``path`` as
    it was; an ``OSError`` becomes one :class:`OutputError` line naming ``path``.
    """
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot write to {target.parent}: {_describe(exc)}") from None
    temp = _make_temp(target, directory=True)
    try:
        yield temp
        check_stop()
        _seal_tree(temp, private=private)
        _replace_directory(temp, target)
        clean_stale_temps(target.parent)
    except OSError as exc:
        _remove(temp)
        raise OutputError(f"cannot write {target}: {_describe(exc)}") from None
    except BaseException:
        _remove(temp)
        raise


#: how often a directory is put in place when other processes publish one there at the same time
_PUBLISH_TRIES = 8


def _replace_directory(temp: Path, target: Path) -> None:
    """Rename the filled ``temp`` over ``target``, setting an existing ``target`` aside first (a
    directory is replaced only when empty). Another process may publish ``target`` between the
    two renames (runs started together build one cache directory): the rename then fails with
    ENOTEMPTY or EEXIST and is tried again, the last writer's directory staying (concurrency
    audit, stop 58: 31 of 160 publishes of four processes at once failed). Any other failure
    puts the previous directory back, when nothing took its place, and is raised."""
    for attempt in range(_PUBLISH_TRIES):
        old = None
        if target.exists():
            old = _make_temp(target, directory=True)
            try:
                os.replace(target, old)
            except FileNotFoundError:  # another process set it aside first
                _remove(old)
                old = None
        try:
            os.replace(temp, target)
        except OSError as exc:
            if old is not None:  # put the previous directory back; a newer one may be there now
                try:
                    os.replace(old, target)
                    _LIVE.discard(old)
                except OSError:
                    _remove(old)
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST) or attempt == _PUBLISH_TRIES - 1:
                raise
            continue
        _LIVE.discard(temp)
        if old is not None:
            _remove(old)
        return


def _seal_tree(root: Path, *, private: bool) -> None:
    """Give every directory and file under ``root`` its mode (mode rule) and fsync the files, so
    the rename that follows publishes complete files only."""
    for directory, dirs, files in os.walk(root):
        os.chmod(directory, new_dir_mode(private=private))
        for name in dirs:
            os.chmod(os.path.join(directory, name), new_dir_mode(private=private))
        for name in files:
            path = os.path.join(directory, name)
            os.chmod(path, new_file_mode(private=private))
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


def save_npz(path: Path, **arrays: np.ndarray) -> None:
    """``np.savez`` through :func:`atomic_write` (a public file): never a half-written ``path``."""
    with atomic_write(path, private=False, binary=True) as fh:
        np.savez(fh, **arrays)  # type: ignore[arg-type]
