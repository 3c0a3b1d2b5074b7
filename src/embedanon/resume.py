"""Resumable runs: ``anonymize --resume`` continues an interrupted run from its last completed
chunk, to the bytes an uninterrupted run writes.

A run started with ``--resume`` writes each output into a temp file with a stable name beside
it, ``.<name>.embedanon-resume.tmp``, and after each completed chunk records in a journal,
``.<name>.embedanon-resume.json`` (both private, 0600), how many records are written, how many
bytes that is, the sha256 of those bytes and the run's counts. The journal is bound to

* the input: an HMAC of its bytes under a subkey of the release key;
* the options: the keyed configuration digest (:meth:`~embedanon.Anonymizer.digest`), the
  format, fields, encoding-error rule and the output's compression, the embedanon version, and
  the content of every file the configuration names (the ``--candidates`` list, an embedding
  file or imported embedding, a detector's model directory): the configuration holds only their
  paths or names, and a file edited or imported again between the two runs would splice two
  releases;
* the key: its public fingerprint.

Run again with ``--resume``, the run checks all three and the kept bytes, cuts the temp file to
the last completed chunk, skips the records already written (read again, not anonymized) and
goes on; a change of any is refused with one line saying which, since continuing would splice
two different releases. Records are a pure function of (text, configuration, key), so the
result is byte-identical to an uninterrupted run. When the whole batch succeeds the temp files
are renamed over their targets (all together, as always) and the journals removed. A run
stopped before its first chunk of an output completed leaves no kept file for it: without a
journal there is nothing to continue from.

Without ``--resume`` nothing changes: a run is all or nothing, and a successful run removes a
resumable run's leftovers for its outputs. Standard input, standard output and Parquet
outputs cannot be resumed (refused up front).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any

from ._atomic import OutputError, atomic_write, open_regular
from .errors import ConfigError, InputError

_TAG = "embedanon-resume"
#: the RunStats fields a journal carries (counts only, never text)
COUNTS = ("records", "texts", "bytes_in", "words", "draws", "longest_draws", "longest_record_draws",
          "full_scope_fallbacks", "guarded")
#: those counted only when the run counts words (``anonymize --report``; :attr:`Progress.counted`)
WORD_COUNTS = ("words", "draws", "longest_draws", "longest_record_draws", "guarded")


def temp_path(target: str) -> Path:
    """The kept temp file of a resumable output: beside the file it will be renamed over, the
    target with symbolic links resolved (beside a link into another file system, the rename
    failed, every time, after all the work)."""
    path = Path(os.path.realpath(target))
    return path.parent / f".{path.name}.{_TAG}.tmp"


def journal_path(target: str) -> Path:
    """The journal of a resumable output (beside its :func:`temp_path`)."""
    path = Path(os.path.realpath(target))
    return path.parent / f".{path.name}.{_TAG}.json"


def remove_leftovers(target: str) -> None:
    """Remove a resumable run's temp file and journal for ``target`` (after a successful run),
    unless a resumable run still writing it holds its lock (:meth:`Journal.lock`): removed under
    it, that run failed at its next checkpoint with 'No such file or directory'."""
    if _locked(temp_path(target)):
        return
    for path in (temp_path(target), journal_path(target)):
        with contextlib.suppress(OSError):
            path.unlink()


def _locked(path: Path) -> bool:
    """Whether another open file holds the :meth:`Journal.lock` of the kept file ``path``."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): no lock to respect
        return False
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
                     | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def _feed(digest: Any, path: str) -> None:
    """Update ``digest`` (a hashlib or hmac object) with the bytes of the regular file ``path``,
    through any symbolic links (a file the user named: the run reads it so too)."""
    with open_regular(os.path.realpath(path)) as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)


def input_digest(path: str, mac_key: bytes) -> str:
    """HMAC-SHA256 under ``mac_key`` (a subkey of the release key) of the input file's bytes (as
    stored: a compressed input is hashed compressed).

    Keyed, because the journal stays on disk after an interruption: a plain sha256 of a short or
    templated input let anyone holding the journal confirm a guessed text (a name in a letter).
    """
    digest = hmac.new(mac_key, digestmod=hashlib.sha256)
    try:
        _feed(digest, path)
    except OSError as exc:
        raise InputError(f"--resume: cannot read {path}: {exc.strerror or type(exc).__name__}") from None
    return digest.hexdigest()


def content_digest(path: str) -> str:
    """sha256 of a file's bytes, or of a directory's files (their relative names, sizes and
    bytes, in sorted order)."""
    digest = hashlib.sha256()
    root = Path(path)
    files = [root] if not root.is_dir() else sorted(
        p for p in root.rglob("*") if p.is_file())
    try:
        for file in files:
            digest.update(f"{file.relative_to(root).as_posix()}\0{file.stat().st_size}\0".encode(
                "utf-8", "surrogatepass"))
            _feed(digest, str(file))
    except OSError as exc:
        raise InputError(f"--resume: cannot read {path}: {exc.strerror or type(exc).__name__}") from None
    return digest.hexdigest()


def named_files(named: dict[str, object]) -> dict[str, str]:
    """The content digest of each value of ``named`` (what -> a path given in the options) that
    names an existing file or directory; other values (names, URLs, numbers) are left out."""
    return {what: content_digest(value) for what, value in sorted(named.items())
            if isinstance(value, str) and value and os.path.exists(value)}


@dataclass(frozen=True)
class Binding:
    """What a journal is valid for (see the module docstring)."""

    input: str
    options: str
    key: str


@dataclass
class Progress:
    """A journal's state: records and bytes written completely, their sha256, the counts, and
    whether those include the :data:`WORD_COUNTS` of every record written (a journal without
    the flag, or a run without ``--report``: they do not)."""

    records: int = 0
    offset: int = 0
    sha256: str = hashlib.sha256().hexdigest()
    complete: bool = False
    counts: dict[str, int] | None = None
    counted: bool = False


class Journal:
    """The journal of one resumable output.

    Args:
        target: the output path.
        source: the input path (named in messages).
        binding: what the journal is valid for.
    """

    def __init__(self, target: str, source: str, binding: Binding) -> None:
        self.target, self.source, self.binding = target, source, binding
        self.path, self.temp = journal_path(target), temp_path(target)
        self._hash = hashlib.sha256()
        self.progress = Progress()
        self._lock: int | None = None
        self._created = False  # whether this run created the kept temp file (see :meth:`discard`)

    def lock(self) -> None:
        """Hold an exclusive lock on the kept temp file (created if missing) until
        :meth:`unlock`: two runs continuing one output wrote into the same file, and one of them
        cutting it to the journal's checkpoint left the other's output with a hole of NUL
        bytes, renamed over the target with exit 0.

        Raises:
            ConfigError: another run holds the lock.
            OutputError: the temp file cannot be created.
        """
        try:
            import fcntl
        except ImportError:  # no flock (Windows): unguarded, as before
            return
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            try:  # O_EXCL first: whether this run creates the file decides :meth:`discard`
                fd = os.open(self.temp, flags | os.O_EXCL, 0o600)
                created = True
            except FileExistsError:
                fd, created = os.open(self.temp, flags, 0o600), False
        except OSError as exc:
            raise OutputError(f"cannot write to {self.temp.parent}: "
                              f"{exc.strerror or type(exc).__name__}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise ConfigError(f"--resume: another run is writing {self.target} now (its kept file "
                              f"{self.temp.name} is locked); wait for it to end") from None
        self._lock, self._created = fd, created

    def discard(self) -> None:
        """After a failed or interrupted run, remove the kept temp file if this run created it
        and no journal was written for it (stopped before its first chunk completed): without a
        journal it holds nothing a later run could continue from, and the run says no output
        was written. Only while the lock is held, so never another run's file; a file that was
        there before this run is left as it is."""
        if self._lock is None or not self._created or os.path.lexists(self.path):
            return
        with contextlib.suppress(OSError):
            self.temp.unlink()

    def unlock(self) -> None:
        """Release :meth:`lock` (at the end of the run, whatever its outcome)."""
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def load(self) -> Progress:
        """The state to continue from: the journal's, checked against the binding and the kept
        bytes; a fresh start when there is no journal.

        Raises:
            ConfigError: the journal is for another input, other options or another key, or
                the kept temp file does not hold what the journal says (one line each).
        """
        try:
            with open_regular(self.path) as fh:
                data = json.loads(fh.read().decode("utf-8"))
            binding = Binding(**data["binding"])
            progress = Progress(**data["progress"])
        except FileNotFoundError:
            self._start_fresh()
            return self.progress
        except (OSError, ValueError, KeyError, TypeError):
            raise ConfigError(f"--resume: the journal {self.path} is damaged; delete it (and "
                              f"{self.temp.name}) to start again") from None
        for field, what in (("key", "the release key changed"),  # first: the options digest is keyed
                            ("input", f"the input {self.source} changed"),
                            ("options", "the options changed (embedding, mechanism, scope, format, "
                                        "fields ...), or a file they name (--candidates, an "
                                        "embedding or model file), or the embedanon version")):
            if getattr(binding, field) != getattr(self.binding, field):
                raise ConfigError(f"--resume: {what} since the interrupted run of {self.target}; "
                                  f"run without --resume to start again")
        self._check_kept(progress)
        self.progress = progress
        return progress

    def _start_fresh(self) -> None:
        self.progress = Progress()
        # a temp file without its journal holds nothing to trust
        if self._lock is not None:  # emptied, not removed: the lock is held on it
            os.ftruncate(self._lock, 0)
            return
        with contextlib.suppress(OSError):
            self.temp.unlink()

    def _check_kept(self, progress: Progress) -> None:
        digest = hashlib.sha256()
        left = progress.offset
        try:
            with open_regular(self.temp) as fh:
                while left > 0 and (chunk := fh.read(min(left, 1 << 20))):
                    digest.update(chunk)
                    left -= len(chunk)
        except OSError:
            left = -1
        if left != 0 or digest.hexdigest() != progress.sha256:
            raise ConfigError(f"--resume: the kept output {self.temp} does not hold what its journal "
                              "says (changed or cut short); run without --resume to start again")
        self._hash = digest

    def checkpoint(self, fh: IO[bytes], records: int, counts: dict[str, int], *,
                   complete: bool = False, counted: bool = False) -> None:
        """Record that ``records`` records are written completely to ``fh`` (the kept temp
        file): flush and fsync it, hash what was added, then replace the journal atomically."""
        try:
            fh.flush()
            os.fsync(fh.fileno())
        except OSError as exc:  # a full disk: one line naming the output
            raise OutputError(f"cannot write {self.target}: {exc.strerror or type(exc).__name__}") from None
        offset = fh.tell()
        if offset > self.progress.offset:
            with open_regular(self.temp) as reader:
                reader.seek(self.progress.offset)
                left = offset - self.progress.offset
                while left > 0 and (chunk := reader.read(min(left, 1 << 20))):
                    self._hash.update(chunk)
                    left -= len(chunk)
        self.progress = Progress(records, offset, self._hash.hexdigest(), complete, dict(counts), counted)
        data = {"binding": asdict(self.binding), "progress": asdict(self.progress)}
        with atomic_write(self.path, private=True, follow_links=False) as out:
            out.write(json.dumps(data, indent=1) + "\n")

    def remove(self) -> None:
        """Remove the journal (the temp file has been renamed over the target)."""
        with contextlib.suppress(OSError):
            self.path.unlink()


def check_resumable(inputs: list[str], targets: list[str | None], formats: list[str]) -> None:
    """Refuse ``--resume`` up front where a run cannot be continued."""
    from .compressed import by_name

    for path, target, form in zip(inputs, targets, formats, strict=True):
        if path == "-":
            raise ConfigError("--resume needs input files: standard input cannot be read again")
        if os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path):
            raise ConfigError(f"--resume needs input files: {path} is not a regular file (a pipe or "
                              "device cannot be read again)")
        if target is None or target == "-":
            raise ConfigError("--resume needs -o FILE or DIR: what went to standard output cannot be "
                              "taken back")
        from ._atomic import is_stream

        if is_stream(target):
            raise ConfigError(f"--resume needs a regular output file, not {target}")
        if form == "parquet":
            raise ConfigError("--resume applies to txt, jsonl, csv and tsv outputs (a Parquet file is "
                              "written whole)")
        if by_name(target) is not None:
            raise ConfigError(f"--resume cannot continue a compressed output ({target}); write it "
                              "uncompressed and compress it afterwards")


#: open files a run needs besides its journals' locks (inputs, outputs, the model, the embedding)
SPARE_DESCRIPTORS = 64


def reserve_descriptors(inputs: int) -> None:
    """Make room for a resumable run's locks: each output's journal holds one open file until the
    run ends (:meth:`Journal.lock`). The soft open-file limit (``ulimit -n``) is raised as far as
    the hard limit allows; where that is too little the run is refused before any work (a
    directory of 1,100 notes had failed near the end, and every rerun at the same point).

    Raises:
        ConfigError: the hard limit is below what ``inputs`` outputs need.
    """
    try:
        import resource
    except ImportError:  # no setrlimit (Windows): no flock either, so no lock to hold
        return
    need = inputs + SPARE_DESCRIPTORS
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= need:
        return
    if hard != resource.RLIM_INFINITY and hard < need:
        raise ConfigError(f"--resume over {inputs:,} inputs needs {need:,} open files and this "
                          f"system allows {hard:,} (ulimit -Hn); resume them in smaller groups")
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))
    if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < need:
        raise ConfigError(f"--resume over {inputs:,} inputs needs {need:,} open files and the "
                          f"limit is {soft:,} (ulimit -n); raise it or resume them in smaller groups")


def options_digest(parts: dict[str, Any]) -> str:
    """The options part of a :class:`Binding`: sha256 of ``parts`` (already free of secrets)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()
