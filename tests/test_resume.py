"""anonymize --resume: an interrupted run continues to the bytes of an uninterrupted one (issue 34)."""

from __future__ import annotations

import errno
import gzip
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from embedanon import files
from embedanon import resume as resumable
from embedanon.backends.base import build_backend
from embedanon.errors import ConfigError
from embedanon.keys import write_key_file
from embedanon.pipeline import Anonymizer
from tests.helpers.embeddings import write_glove

_WORDS = ["patient", "doctor", "nurse", "hospital", "clinic", "pain", "ache", "heart", "chest",
          "river", "table", "window", "music", "green", "house", "garden", "paper", "stone"]


def _lines(n: int) -> str:
    return "".join(f"the patient {_WORDS[i % 18]} has chest pain near the {_WORDS[(i * 7) % 18]} {i}\n"
                   for i in range(n))


@pytest.fixture
def glove(tmp_path: Path) -> Path:
    return write_glove(tmp_path / "tiny.glove.txt", _WORDS)


@pytest.fixture
def key(tmp_path: Path) -> Path:
    write_key_file(tmp_path / "release.key")
    return tmp_path / "release.key"


class Interrupting:
    """The processes engine, interrupted (as Ctrl-C is) after ``chunks`` results."""

    name = "interrupting"

    def __init__(self, chunks: int) -> None:
        self.chunks, self.inner, self.seen = chunks, build_backend("processes", jobs=1), 0

    def map(self, func: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        for result in self.inner.map(func, items):  # counted over the inputs of the run
            if self.seen == self.chunks:
                raise KeyboardInterrupt
            self.seen += 1
            yield result


@pytest.fixture(autouse=True)
def every_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    """A checkpoint after every chunk, and chunks of 8 KiB: many places to be interrupted."""
    import functools

    from embedanon.backends.base import chunk_texts

    monkeypatch.setattr(files, "CHECKPOINT_SECONDS", 0.0)
    monkeypatch.setattr(files, "chunk_texts", functools.partial(chunk_texts, max_bytes=8192))


def _inputs(tmp_path: Path) -> list[str]:
    (tmp_path / "a.txt").write_text(_lines(4000), encoding="utf-8")
    rows = "".join(f'{i},"{line}",x\n' if i % 50 else f"{i},,x\n" for i, line in enumerate(_lines(4000).splitlines()))
    (tmp_path / "b.csv").write_text("id,text,label\n" + rows, encoding="utf-8")
    blank = "".join(json.dumps({"text": line, "n": i}) + ("\n\n" if i % 97 == 0 else "\n")
                    for i, line in enumerate(_lines(3000).splitlines()))
    (tmp_path / "c.jsonl").write_text(blank, encoding="utf-8")
    return [str(tmp_path / name) for name in ("a.txt", "b.csv", "c.jsonl")]


def test_interrupted_runs_resume_to_the_same_bytes(tmp_path: Path, glove: Path, key: Path) -> None:
    inputs = _inputs(tmp_path)
    anonymizer = Anonymizer(str(glove), key=str(key))
    whole = files.anonymize_files(inputs, str(tmp_path / "whole"), anonymizer, count_words=True)
    out = str(tmp_path / "resumed")
    for chunks in (5, 20, 10):  # interrupted three times, at different places of different inputs
        with pytest.raises(KeyboardInterrupt):
            files.anonymize_files(inputs, out, anonymizer, backend=Interrupting(chunks), resume=True,
                                  count_words=True)
        assert sorted(os.listdir(out)) == sorted(f".{Path(p).name}.embedanon-resume.{s}"
                                                 for p in inputs for s in ("json", "tmp")
                                                 if (Path(out) / f".{Path(p).name}.embedanon-resume.json").exists())
    stats = files.anonymize_files(inputs, out, anonymizer, resume=True, count_words=True)
    for path in inputs:
        name = Path(path).name
        assert (Path(out) / name).read_bytes() == (tmp_path / "whole" / name).read_bytes(), name
    assert sorted(os.listdir(out)) == sorted(Path(p).name for p in inputs)  # journals and temps gone
    assert (stats.records, stats.texts, stats.words, stats.draws) == (whole.records, whole.texts, whole.words,
                                                                       whole.draws)


def _limited(soft: int, hard: int | None = None) -> Callable[[], None]:
    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard or resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    return limit


@pytest.mark.skipif(sys.platform == "win32", reason="no open-file limit to set")
def test_more_inputs_than_the_open_file_limit(tmp_path: Path, glove: Path, key: Path) -> None:
    """Steward audit: 1,100 one-note files failed at the end with 'Too many open files' (every
    output's temp file stayed open until the commit), and with --resume every rerun failed at the
    same point (each output's journal holds a lock). Now each output is closed when its input is
    done, and --resume raises the soft limit or refuses, before any work, where the hard one is
    too low."""
    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(150):
        (folder / f"n{i:03d}.txt").write_text(f"patient {i} saw the doctor\n", encoding="utf-8")
    cli = [sys.executable, "-m", "embedanon", "anonymize", *sorted(map(str, folder.iterdir())), "--key", str(key),
           "--embedding", str(glove), "-q"]
    plain = subprocess.run([*cli, "-o", str(tmp_path / "plain")], capture_output=True, text=True, timeout=300,
                           preexec_fn=_limited(96))
    assert plain.returncode == 0, plain.stderr[-500:]
    resumed = subprocess.run([*cli, "-o", str(tmp_path / "resumed"), "--resume"], capture_output=True, text=True,
                             timeout=300, preexec_fn=_limited(96))
    assert resumed.returncode == 0, resumed.stderr[-500:]
    assert len(os.listdir(tmp_path / "plain")) == 150
    for name in os.listdir(tmp_path / "plain"):
        assert (tmp_path / "resumed" / name).read_bytes() == (tmp_path / "plain" / name).read_bytes()
    refused = subprocess.run([*cli, "-o", str(tmp_path / "refused"), "--resume"], capture_output=True, text=True,
                             timeout=300, preexec_fn=_limited(96, 128))
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr[-500:]
    assert "--resume over 150 inputs needs 214 open files" in refused.stderr
    assert not (tmp_path / "refused").exists()


@pytest.mark.slow
def test_a_killed_process_resumes_to_the_same_bytes(tmp_path: Path, glove: Path, key: Path) -> None:
    """SIGKILL: no handler runs; the temp file may hold more than the journal says."""
    src = tmp_path / "big.txt"
    src.write_text(_lines(60000), encoding="utf-8")
    cli = [sys.executable, "-m", "embedanon", "anonymize", str(src), "--key", str(key), "--embedding", str(glove),
           "-q"]
    whole = subprocess.run([*cli, "-o", str(tmp_path / "whole.txt")], capture_output=True, timeout=300)
    assert whole.returncode == 0, whole.stderr[-500:]
    proc = subprocess.Popen([*cli, "-o", str(tmp_path / "out.txt"), "--resume"], stderr=subprocess.PIPE)
    journal = tmp_path / ".out.txt.embedanon-resume.json"
    deadline = time.monotonic() + 120
    while True:
        assert proc.poll() is None and time.monotonic() < deadline, "finished before it could be killed"
        if journal.exists() and json.loads(journal.read_text(encoding="utf-8"))["progress"]["records"] > 0:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    assert not (tmp_path / "out.txt").exists()
    again = subprocess.run([*cli, "-o", str(tmp_path / "out.txt"), "--resume"], capture_output=True, timeout=300)
    assert again.returncode == 0, again.stderr[-500:]
    assert (tmp_path / "out.txt").read_bytes() == (tmp_path / "whole.txt").read_bytes()
    assert not journal.exists() and not (tmp_path / ".out.txt.embedanon-resume.tmp").exists()


def _interrupted(tmp_path: Path, glove: Path, key: Path) -> tuple[str, str, Anonymizer]:
    src = tmp_path / "a.txt"
    src.write_text(_lines(4000), encoding="utf-8")
    anonymizer = Anonymizer(str(glove), key=str(key))
    with pytest.raises(KeyboardInterrupt):
        files.anonymize_files([str(src)], str(tmp_path / "o.txt"), anonymizer, backend=Interrupting(1), resume=True)
    return str(src), str(tmp_path / "o.txt"), anonymizer


def test_a_resumed_runs_speed_counts_only_what_it_anonymized(tmp_path: Path, glove: Path, key: Path) -> None:
    """Left by the audits: the report's mb_per_s divided every byte, the interrupted run's
    included, by this run's time, so a run resumed near its end reported a speed it never had."""
    src, out, anonymizer = _interrupted(tmp_path, glove, key)
    written = json.loads(resumable.journal_path(out).read_text(encoding="utf-8"))["progress"]["records"]
    assert written > 0
    report = tmp_path / "r.json"
    stats = files.anonymize_files([src], out, anonymizer, resume=True, report=(
        str(report), lambda stats: files.run_report(anonymizer, stats, 2.0, engine="processes", jobs=1)))
    counts = json.loads(report.read_text(encoding="utf-8"))
    assert stats.records == 4000 and counts["counts"]["resumed_records"] == written
    assert 0 < counts["counts"]["resumed_bytes"] < stats.bytes_in == counts["counts"]["bytes"]
    assert counts["mb_per_s"] == round((stats.bytes_in - stats.resumed_bytes) / 1e6 / 2.0, 3)
    # counting the words of the part already written anonymizes it again: then it is in the speed
    (tmp_path / "again").mkdir()
    src, out, anonymizer = _interrupted(tmp_path / "again", glove, key)
    stats = files.anonymize_files([src], out, anonymizer, resume=True, count_words=True)
    assert stats.resumed_bytes > 0 and files.run_bytes(stats) == stats.bytes_in


@pytest.mark.parametrize(("first", "then"), [("txt", None), (None, "txt")])
def test_format_txt_given_or_not_resumes_the_same_run(tmp_path: Path, glove: Path, key: Path,
                                                      first: str | None, then: str | None) -> None:
    """Left by the audits: a run of notes.txt started with --format txt and continued without it
    (or the other way) was refused as 'the options changed', though both read the file alike."""
    src = tmp_path / "a.txt"
    src.write_text(_lines(4000), encoding="utf-8")
    anonymizer = Anonymizer(str(glove), key=str(key))
    files.anonymize_files([str(src)], str(tmp_path / "whole.txt"), anonymizer)
    out = str(tmp_path / "o.txt")
    with pytest.raises(KeyboardInterrupt):
        files.anonymize_files([str(src)], out, anonymizer, fmt=first, backend=Interrupting(3), resume=True)
    files.anonymize_files([str(src)], out, anonymizer, fmt=then, resume=True)
    assert Path(out).read_bytes() == (tmp_path / "whole.txt").read_bytes()
    table = tmp_path / "b.csv"  # read as text, then as CSV: another run, refused
    table.write_text("text\n" + _lines(4000), encoding="utf-8")
    out = str(tmp_path / "o.anon")  # a name of no format (o.txt names text, which CSV is not)
    with pytest.raises(KeyboardInterrupt):
        files.anonymize_files([str(table)], out, anonymizer, fmt="txt", backend=Interrupting(3), resume=True)
    with pytest.raises(ConfigError, match="^--resume: the options changed"):
        files.anonymize_files([str(table)], out, anonymizer, resume=True)


def test_a_changed_input_options_or_key_is_refused(tmp_path: Path, glove: Path, key: Path) -> None:
    src, out, anonymizer = _interrupted(tmp_path, glove, key)
    other_key = tmp_path / "other.key"
    write_key_file(other_key)
    with pytest.raises(ConfigError, match="^--resume: the release key changed since the interrupted run"):
        files.anonymize_files([src], out, Anonymizer(str(glove), key=str(other_key)), resume=True)
    with pytest.raises(ConfigError, match="^--resume: the options changed"):
        files.anonymize_files([src], out, Anonymizer(str(glove), key=str(key), k=5), resume=True)
    with pytest.raises(ConfigError, match="^--resume: the options changed"):
        files.anonymize_files([src], out, anonymizer, resume=True, encoding_errors="replace")
    with open(src, "a", encoding="utf-8") as fh:
        fh.write("one more line\n")
    with pytest.raises(ConfigError, match=f"^--resume: the input {src} changed"):
        files.anonymize_files([src], out, anonymizer, resume=True)
    assert not Path(out).exists() and resumable.journal_path(out).exists()
    files.anonymize_files([src], out, anonymizer)  # a run without --resume starts again and cleans up
    assert not resumable.journal_path(out).exists() and not resumable.temp_path(out).exists()


def test_a_file_the_options_name_edited_in_place_is_refused(tmp_path: Path, glove: Path, key: Path) -> None:
    """The configuration holds the --candidates list and an embedding file by path only: edited
    between the runs, resuming spliced two releases (found by the data audit, by hand: 2,201
    records under one candidate list, the rest under the other, exit 0)."""
    src = tmp_path / "a.txt"
    src.write_text(_lines(4000), encoding="utf-8")
    candidates = tmp_path / "candidates.txt"
    candidates.write_text("\n".join(_WORDS) + "\n", encoding="utf-8")
    out = str(tmp_path / "o.txt")
    anonymizer = Anonymizer(str(glove), key=str(key), allowlist=str(candidates))
    with pytest.raises(KeyboardInterrupt):
        files.anonymize_files([str(src)], out, anonymizer, backend=Interrupting(1), resume=True)
    candidates.write_text("\n".join(_WORDS[::2]) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="^--resume: the options changed .*or a file they name"):
        files.anonymize_files([str(src)], out, anonymizer, resume=True)
    candidates.write_text("\n".join(_WORDS) + "\n", encoding="utf-8")
    write_glove(glove, _WORDS, seed=1)  # the same words, other vectors
    with pytest.raises(ConfigError, match="^--resume: the options changed .*or a file they name"):
        files.anonymize_files([str(src)], out, anonymizer, resume=True)
    assert not Path(out).exists() and resumable.journal_path(out).exists()


def test_an_embedding_imported_again_under_its_name_is_refused(tmp_path: Path, glove: Path, key: Path) -> None:
    """An imported embedding is named, not given by path: imported again with other vectors
    between the runs, resuming spliced two releases (found by the data audit, by hand: killed at
    78,328 of 200,000 lines, re-imported, resumed with exit 0 to neither release)."""
    from embedanon.vectors.defaults import import_embedding

    src = tmp_path / "a.txt"
    src.write_text(_lines(4000), encoding="utf-8")
    out = str(tmp_path / "o.txt")
    import_embedding(glove, name="resume-test-embedding", overwrite=True)
    anonymizer = Anonymizer("resume-test-embedding", key=str(key))
    with pytest.raises(KeyboardInterrupt):
        files.anonymize_files([str(src)], out, anonymizer, backend=Interrupting(1), resume=True)
    import_embedding(write_glove(tmp_path / "other.glove.txt", _WORDS, seed=1), name="resume-test-embedding",
                     overwrite=True)
    with pytest.raises(ConfigError, match="^--resume: the options changed .*or a file they name"):
        files.anonymize_files([str(src)], out, anonymizer, resume=True)


def test_the_journal_holds_no_unkeyed_digest_of_the_input(tmp_path: Path, glove: Path, key: Path) -> None:
    """The journal stays on disk after an interruption: a plain sha256 of the input let anyone
    holding it confirm a guessed input (found by the data audit: a templated letter's name)."""
    import hashlib

    src, out, _ = _interrupted(tmp_path, glove, key)
    data = Path(src).read_bytes()
    journal = resumable.journal_path(out).read_text(encoding="utf-8")
    for digest in (hashlib.sha256(data), hashlib.sha1(data), hashlib.md5(data), hashlib.blake2b(data)):
        assert digest.hexdigest() not in journal


def test_a_second_run_continuing_the_same_output_is_refused(tmp_path: Path, glove: Path, key: Path) -> None:
    """Two ``--resume`` runs of one output wrote into one kept file; one cutting it to the
    journal's checkpoint left a hole of NUL bytes in the other's output, exit 0 (found by the
    data audit, by hand: 249,867 NUL bytes in a 6.9 MB release)."""
    fcntl = pytest.importorskip("fcntl")
    src, out, anonymizer = _interrupted(tmp_path, glove, key)
    kept = resumable.temp_path(out).read_bytes()
    with open(resumable.temp_path(out), "r+b") as other:  # the other run's lock
        fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(ConfigError, match="^--resume: another run is writing .*o.txt now"):
            files.anonymize_files([src], out, anonymizer, resume=True)
    assert resumable.temp_path(out).read_bytes() == kept and not Path(out).exists()
    files.anonymize_files([src], out, anonymizer, resume=True)  # the lock is gone: it continues
    assert Path(out).read_bytes() == files_output(tmp_path, src, anonymizer)


def files_output(tmp_path: Path, src: str, anonymizer: Anonymizer) -> bytes:
    whole = tmp_path / "whole.txt"
    files.anonymize_files([src], str(whole), anonymizer)
    return whole.read_bytes()


def test_resume_under_a_fresh_key_is_refused_up_front(tmp_path: Path, glove: Path) -> None:
    """A --fresh-key run's key is not kept: its journal could never be continued, yet it was kept
    and, run again, refused only then as 'the release key changed' (found by the data audit)."""
    from embedanon.noise import ReleaseKey

    src = tmp_path / "a.txt"
    src.write_text(_lines(10), encoding="utf-8")
    out = tmp_path / "o.txt"
    with pytest.raises(ConfigError, match="^--resume cannot continue a run under --fresh-key"):
        files.anonymize_files([str(src)], str(out), Anonymizer(str(glove), key=ReleaseKey.fresh()), resume=True)
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "tiny.glove.txt"]


def test_kept_bytes_that_changed_are_refused(tmp_path: Path, glove: Path, key: Path) -> None:
    src, out, anonymizer = _interrupted(tmp_path, glove, key)
    temp = resumable.temp_path(out)
    data = bytearray(temp.read_bytes())
    data[10] ^= 1
    temp.write_bytes(bytes(data))
    with pytest.raises(ConfigError, match="does not hold what its journal says"):
        files.anonymize_files([src], out, anonymizer, resume=True)
    temp.write_bytes(b"")
    with pytest.raises(ConfigError, match="does not hold what its journal says"):
        files.anonymize_files([src], out, anonymizer, resume=True)


@pytest.mark.parametrize(("inputs", "output", "message"), [
    (["-"], "o.txt", "standard input cannot be read again"),
    (["a.txt"], None, "needs -o FILE or DIR"),
    (["a.txt"], "o.txt.gz", "cannot continue a compressed output"),
    (["p.parquet"], "o.parquet", "a Parquet file is written whole"),
])
def test_what_cannot_be_resumed_is_refused_up_front(tmp_path: Path, glove: Path, key: Path, inputs: list[str],
                                                   output: str | None, message: str) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    (tmp_path / "a.txt").write_text("the patient\n", encoding="utf-8")
    pq.write_table(pa.table({"text": ["the patient"]}), tmp_path / "p.parquet")
    paths = [p if p == "-" else str(tmp_path / p) for p in inputs]
    with pytest.raises(ConfigError, match=message):
        files.anonymize_files(paths, None if output is None else str(tmp_path / output),
                              Anonymizer(str(glove), key=str(key)), resume=True)
    assert not [p for p in os.listdir(tmp_path) if "resume" in p or p.startswith("o.")]


def test_resume_of_a_compressed_input(tmp_path: Path, glove: Path, key: Path) -> None:
    src = tmp_path / "a.txt.gz"
    src.write_bytes(gzip.compress(_lines(3000).encode()))
    anonymizer = Anonymizer(str(glove), key=str(key))
    files.anonymize_files([str(src)], str(tmp_path / "whole.txt"), anonymizer)
    with pytest.raises(KeyboardInterrupt):
        files.anonymize_files([str(src)], str(tmp_path / "o.txt"), anonymizer, backend=Interrupting(1), resume=True)
    files.anonymize_files([str(src)], str(tmp_path / "o.txt"), anonymizer, resume=True)
    assert (tmp_path / "o.txt").read_bytes() == (tmp_path / "whole.txt").read_bytes()


@pytest.mark.parametrize(("scope", "runs"), [
    ("all", [(20, False)]),
    ("hybrid", [(20, False)]),
    ("all", [(12, False), (5, True)]),  # stopped again while counting the first part again
    ("all", [(5, True), (12, False), (3, True)]),  # counted, then not, then partly again
    ("hybrid", [(2, False)]),  # stopped in the first input
])
def test_a_report_asked_for_only_when_resuming_counts_the_whole_input(
        tmp_path: Path, glove: Path, key: Path, scope: str, runs: list[tuple[int, bool]]) -> None:
    """``anonymize --resume`` interrupted without ``--report``, then resumed with it: the report's
    word and draw counts (the epsilon spent) covered only the records of the second run, and
    none of an input the interrupted run had finished (found by the second CLI audit, by hand:
    3,296,531 of 4,089,733 word tokens on a 24.5 MB input)."""
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"  # a's journal completes first
    first.write_text("".join(f"{line} {'and the pain ' * (60 if i == 3 else 0)}\n"
                             for i, line in enumerate(_lines(300).splitlines())), encoding="utf-8")
    second.write_text(_lines(4000), encoding="utf-8")
    inputs = [str(first), str(second)]
    anonymizer = Anonymizer(str(glove), key=str(key), scope=scope)
    whole = files.anonymize_files(inputs, str(tmp_path / "whole"), anonymizer, count_words=True)
    out = str(tmp_path / "out")
    for chunks, counting in runs:
        with pytest.raises(KeyboardInterrupt):
            files.anonymize_files(inputs, out, anonymizer, backend=Interrupting(chunks), resume=True,
                                  count_words=counting)
    stats = files.anonymize_files(inputs, out, anonymizer, resume=True, count_words=True)
    for name in ("a.txt", "b.txt"):
        assert (Path(out) / name).read_bytes() == (tmp_path / "whole" / name).read_bytes()
    counted = ("records", "texts", "bytes_in", "words", "draws", "longest_draws", "longest_record_draws")
    assert [getattr(stats, name) for name in counted] == [getattr(whole, name) for name in counted]
    assert whole.longest_draws > 60  # the longest record was in the interrupted part


def test_a_run_without_resume_leaves_a_live_resumable_runs_files(tmp_path: Path, glove: Path, key: Path) -> None:
    """A run without ``--resume`` removes, on success, the leftovers of a resumable run of its
    output; it removed those of one still running, which then failed with 'No such file or
    directory (.../.o.txt.embedanon-resume.tmp)' (found by the second CLI audit, by hand: two
    runs of one output started a few seconds apart, the first with --resume)."""
    fcntl = pytest.importorskip("fcntl")
    src, out, anonymizer = _interrupted(tmp_path, glove, key)
    journal = resumable.journal_path(out).read_bytes()
    kept = resumable.temp_path(out).read_bytes()
    with open(resumable.temp_path(out), "r+b") as live:  # the resumable run, still running
        fcntl.flock(live.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        files.anonymize_files([src], out, anonymizer)
    assert resumable.journal_path(out).read_bytes() == journal
    assert resumable.temp_path(out).read_bytes() == kept
    assert Path(out).read_bytes() == files_output(tmp_path, src, anonymizer)
    files.anonymize_files([src], out, anonymizer)  # no run holds them now: they are removed
    assert not resumable.journal_path(out).exists() and not resumable.temp_path(out).exists()


class _FullDisk(io.RawIOBase):
    """The kept file on a disk that fills after ``room`` bytes (ENOSPC from then on)."""

    def __init__(self, fh: Any, room: int) -> None:
        self.fh, self.room = fh, room

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        if len(data) > self.room:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room -= len(data)
        return int(self.fh.write(data))

    def fileno(self) -> int:
        return int(self.fh.fileno())

    def tell(self) -> int:
        return int(self.fh.tell())


@pytest.mark.parametrize("where", ["write", "fsync"])
def test_a_full_disk_in_a_resumable_run_names_the_output(tmp_path: Path, glove: Path, key: Path,
                                                         monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """A resumable run on a full disk said 'error: No space left on device', naming nothing: the
    write's own error, which names the output, was replaced by the same error raised again when
    the text stream was detached, or came from the checkpoint's flush (found by the second CLI
    audit, by hand, on a 1 MB tmpfs)."""
    from embedanon import _cache
    from embedanon._atomic import AtomicBatch, OutputError

    # os.fsync fails for the whole process while patched: a cache write then turns disk caching off
    # for the rest of the session (_cache.warn_disabled); restored at teardown
    monkeypatch.setattr(_cache, "_disabled", None)
    src = tmp_path / "a.txt"
    src.write_text(_lines(4000), encoding="utf-8")
    out = str(tmp_path / "o.txt")
    if where == "write":
        open_kept = AtomicBatch.open_kept
        monkeypatch.setattr(AtomicBatch, "open_kept", lambda self, *a, **k: io.BufferedWriter(
            _FullDisk(open_kept(self, *a, **k), 20_000)))
    else:
        monkeypatch.setattr(resumable.os, "fsync", _no_space)
    with pytest.raises(OutputError, match=f"^cannot write {re.escape(out)}: No space left on device$"):
        files.anonymize_files([str(src)], out, Anonymizer(str(glove), key=str(key)), resume=True)
    assert not Path(out).exists()


def _no_space(*_: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_inputs_and_named_files_behind_symbolic_links_resume(tmp_path: Path, glove: Path, key: Path) -> None:
    """``--resume`` refused an input that is a symbolic link ('--resume: cannot read notes.txt: a
    symbolic link'), and so a --candidates list, an embedding or a model directory behind one (a
    Hugging Face snapshot is links to blobs), though the same run without --resume reads them
    (found by the second CLI audit, by hand). Links are followed; what they point to is bound."""
    real = tmp_path / "store" / "a.txt"
    real.parent.mkdir()
    real.write_text(_lines(4000), encoding="utf-8")
    (tmp_path / "a.txt").symlink_to(real)
    words = tmp_path / "store" / "words.txt"
    words.write_text("\n".join(_WORDS) + "\n", encoding="utf-8")
    (tmp_path / "words.txt").symlink_to(words)
    linked_glove = tmp_path / "glove-link.txt"
    linked_glove.symlink_to(glove)
    anonymizer = Anonymizer(str(linked_glove), key=str(key), allowlist=str(tmp_path / "words.txt"))
    src, out = str(tmp_path / "a.txt"), str(tmp_path / "o.txt")
    with pytest.raises(KeyboardInterrupt):
        files.anonymize_files([src], out, anonymizer, backend=Interrupting(3), resume=True)
    files.anonymize_files([src], out, anonymizer, resume=True)
    assert Path(out).read_bytes() == files_output(tmp_path, src, anonymizer)
    with pytest.raises(KeyboardInterrupt):
        files.anonymize_files([src], out, anonymizer, backend=Interrupting(3), resume=True)
    real.write_text(_lines(4001), encoding="utf-8")  # what the link points to changed
    with pytest.raises(ConfigError, match=f"^--resume: the input {src} changed"):
        files.anonymize_files([src], out, anonymizer, resume=True)


def test_an_input_that_is_a_pipe_is_refused_up_front(tmp_path: Path, glove: Path, key: Path) -> None:
    fifo = tmp_path / "notes.txt"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match=f"^--resume needs input files: {fifo} is not a regular file"):
        files.anonymize_files([str(fifo)], str(tmp_path / "o.txt"), Anonymizer(str(glove), key=str(key)),
                              resume=True)


def test_an_output_behind_a_symbolic_link_keeps_its_files_beside_the_file_it_replaces(
        tmp_path: Path, glove: Path, key: Path) -> None:
    """``-o link --resume``, the link pointing into another directory: the kept file was made
    beside the link and renamed over the file the link points to at the end, which across file
    systems fails, every time, after all the work ('cannot write lres.txt: Invalid cross-device
    link'; found by the second CLI audit, by hand, the link pointing into a tmpfs). Without
    --resume the temp file is made beside the real file; so are the kept file and journal now."""
    src = tmp_path / "a.txt"
    src.write_text(_lines(4000), encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    real = tmp_path / "elsewhere" / "released.txt"
    link = tmp_path / "out.txt"
    link.symlink_to(real)
    anonymizer = Anonymizer(str(glove), key=str(key))
    with pytest.raises(KeyboardInterrupt):
        files.anonymize_files([str(src)], str(link), anonymizer, backend=Interrupting(3), resume=True)
    assert sorted(os.listdir(tmp_path / "elsewhere")) == [".released.txt.embedanon-resume.json",
                                                          ".released.txt.embedanon-resume.tmp"]
    files.anonymize_files([str(src)], str(link), anonymizer, resume=True)
    assert link.is_symlink() and real.read_bytes() == files_output(tmp_path, str(src), anonymizer)
    assert os.listdir(tmp_path / "elsewhere") == ["released.txt"]


def test_a_run_continued_by_another_embedanon_version_says_so(tmp_path: Path, glove: Path, key: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Upgraded between the two runs, the refusal listed only options the user had not changed
    ('the options changed (embedding, mechanism, scope, format, fields ...)'; found by the second
    CLI audit, by hand)."""
    import embedanon

    src, out, anonymizer = _interrupted(tmp_path, glove, key)
    monkeypatch.setattr(embedanon, "__version__", embedanon.__version__ + ".post1")
    with pytest.raises(ConfigError, match=r"^--resume: the options changed .*the embedanon version"):
        files.anonymize_files([src], out, anonymizer, resume=True)


def test_a_journal_written_under_other_reading_rules_is_refused(tmp_path: Path, glove: Path, key: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A journal counts records: continued by a reader that cuts records differently (decision
    0631: a bare CR now ends a text line), its count would skip the wrong lines."""
    src, out, anonymizer = _interrupted(tmp_path, glove, key)
    monkeypatch.setattr(files, "READER_REVISION", files.READER_REVISION + 1)
    with pytest.raises(ConfigError, match="^--resume: the options changed"):
        files.anonymize_files([src], out, anonymizer, resume=True)



@pytest.mark.parametrize("outputs", ["file", "directory"])
def test_a_run_stopped_before_its_first_chunk_leaves_nothing(tmp_path: Path, glove: Path, key: Path,
                                                             outputs: str) -> None:
    """Left by the audit: Ctrl-C (or SIGTERM) before the first chunk of a ``--resume`` run
    completed said 'no output was written' and left an empty ``.o.txt.embedanon-resume.tmp``
    beside the output, though no journal spoke for it. Only the files this run created go: the
    kept files of an earlier interrupted run stay, to be continued."""
    inputs = _inputs(tmp_path)[: 1 if outputs == "file" else 2]
    out = str(tmp_path / ("o.txt" if outputs == "file" else "out"))
    first = out if outputs == "file" else str(Path(out) / Path(inputs[0]).name)  # the first output
    anonymizer = Anonymizer(str(glove), key=str(key))
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(KeyboardInterrupt):
        files.anonymize_files(inputs, out, anonymizer, backend=Interrupting(0), resume=True)
    assert sorted(os.listdir(tmp_path)) == before  # no kept file, nor a directory made for one
    with pytest.raises(KeyboardInterrupt):  # some chunks of the first input checkpointed
        files.anonymize_files(inputs, out, anonymizer, backend=Interrupting(3), resume=True)
    kept = resumable.temp_path(first).read_bytes()
    assert kept and resumable.journal_path(first).exists()
    with pytest.raises(KeyboardInterrupt):  # stopped again before a chunk: what was kept stays
        files.anonymize_files(inputs, out, anonymizer, backend=Interrupting(0), resume=True)
    assert resumable.temp_path(first).read_bytes() == kept and resumable.journal_path(first).exists()
