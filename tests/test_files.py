"""files.py: outputs checked against every file a run reads (QA D1), and the count of records
released in full scope because detection failed (QA W2)."""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from embedanon import files
from embedanon.errors import ConfigError
from embedanon.pipeline import Anonymizer
from tests.helpers.embeddings import write_glove

_WORDS = ["patient", "doctor", "nurse", "hospital", "clinic", "pain", "ache", "heart", "chest",
          "river", "table", "window", "music", "green", "house", "garden", "paper", "stone"]


@pytest.fixture
def glove(tmp_path: Path) -> Path:
    return write_glove(tmp_path / "tiny.glove.txt", _WORDS)


# -- same file ----------------------------------------------------------------------------------
def test_same_file_by_inode_or_by_resolved_path(tmp_path: Path) -> None:
    a = tmp_path / "a"
    a.write_text("x", encoding="utf-8")
    os.link(a, tmp_path / "hard")
    os.symlink(a, tmp_path / "soft")
    os.symlink(tmp_path / "new", tmp_path / "dangling")
    assert files.same_file(str(a), str(tmp_path / "hard"))
    assert files.same_file(str(a), str(tmp_path / "soft"))
    assert files.same_file(str(tmp_path / "sub" / ".." / "new"), str(tmp_path / "dangling"))  # neither exists
    assert not files.same_file(str(a), str(tmp_path / "new"))
    (tmp_path / "b").write_text("x", encoding="utf-8")
    assert not files.same_file(str(a), str(tmp_path / "b"))  # same content is not the same file


def test_file_identity_agrees_with_same_file(tmp_path: Path) -> None:
    """check_paths looks outputs up by file_identity (one pass, not every pair: 1,100 inputs took
    17 s); same_file stays the plain reference, and the two agree on every pair."""
    a = tmp_path / "a.txt"
    a.write_text("x", encoding="utf-8")
    (tmp_path / "b").write_text("x", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    os.link(a, tmp_path / "hard")
    os.symlink(a, tmp_path / "soft")
    os.symlink(tmp_path / "new", tmp_path / "dangling")
    paths = [str(a), str(tmp_path / "hard"), str(tmp_path / "soft"), str(tmp_path / "b"),
             str(tmp_path / "new"), str(tmp_path / "dangling"), str(tmp_path / "sub" / ".." / "new"),
             str(tmp_path / "sub"), str(tmp_path / "other"), "-"]
    for x in paths:
        for y in paths:
            ident = files.file_identity(x)
            assert (ident is not None and ident == files.file_identity(y)) == files.same_file(x, y), (x, y)


def test_check_paths_names_both_options(tmp_path: Path) -> None:
    key = tmp_path / "k"
    key.write_text("key", encoding="utf-8")
    reads = [("input", str(tmp_path / "in.txt")), ("--key", str(key)), ("--deny", None)]
    with pytest.raises(ConfigError, match=rf"^--report {key} is the same file as --key {key}; "
                                          "choose another --report$"):
        files.check_paths(reads, [("output", str(tmp_path / "o.txt")), ("--report", str(key))])
    with pytest.raises(ConfigError, match="^--report .*r.json is the same file as output .*r.json"):
        files.check_paths(reads, [("output", str(tmp_path / "r.json")), ("--report", str(tmp_path / "r.json"))])
    with pytest.raises(ConfigError, match="both write to standard output"):
        files.check_paths(reads, [("output", None), ("--report", "-")])
    files.check_paths(reads, [("output", None), ("--report", str(tmp_path / "r.json"))])
    files.check_paths(reads, [("output", "/dev/null"), ("--report", "/dev/null")])  # streams
    if os.path.exists("/dev/stdout"):  # standard output's own file is standard output
        with pytest.raises(ConfigError, match="--report /dev/stdout and output - both write to standard output"):
            files.check_paths(reads, [("output", None), ("--report", "/dev/stdout")])


def test_release_files_are_every_file_option(tmp_path: Path, glove: Path) -> None:
    got = files.release_files(key="K", candidates="A", allow="W", deny="D", embedding=str(glove),
                              detector_option=["model_path=M", "model_threshold=0.4", "transformer-path=T"],
                              mechanism="knn", llm_url="http://x")
    assert got == [("--key", "K"), ("--candidates", "A"), ("--allow", "W"), ("--deny", "D"),
                   ("--embedding", str(glove)), ("--detector-option model_path", "M"),
                   ("--detector-option transformer-path", "T")]
    assert ("--embedding", "minilm") not in files.release_files(embedding="minilm")  # a name, not a file


def test_anonymize_files_refuses_an_output_that_is_an_input(tmp_path: Path, glove: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text("chest pain\n", encoding="utf-8")
    anonymizer = Anonymizer(str(glove), "knn", seed=1)
    with pytest.raises(ConfigError, match="is the same file as input"):
        files.anonymize_files([str(src)], None, anonymizer, report=(str(src), lambda s: "{}"))
    assert src.read_text(encoding="utf-8") == "chest pain\n"


# -- full-scope fallbacks -------------------------------------------------------------------------
@pytest.fixture
def failing_detection(monkeypatch: pytest.MonkeyPatch) -> None:
    """Detection fails (as an unreachable LLM does) on every text that mentions a garden.
    Workers are forked, so ``--jobs 2`` sees the patch too."""
    from embedanon.pipeline import document

    real = document.detect

    def detect(detector: object, text: str) -> object:
        return None if "garden" in text else real(detector, text)

    monkeypatch.setattr(document, "detect", detect)


@pytest.mark.parametrize("jobs", [1, 2])
def test_fallbacks_are_counted_per_record(tmp_path: Path, glove: Path, failing_detection: None,
                                          jobs: int) -> None:
    src = tmp_path / "in.jsonl"
    rows = [{"a": "chest pain", "b": "the garden"}, {"a": "garden house", "b": "green garden"},
            {"a": "river", "b": "stone"}, {"a": "paper", "b": None}] * 50
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    scoped = Anonymizer(str(glove), "knn", seed=1, scope="hybrid", detectors="regex")
    stats = files.anonymize_files([str(src)], str(out), scoped, fields=["a", "b"], jobs=jobs)
    assert (stats.records, stats.full_scope_fallbacks) == (200, 100)  # records, not texts (150)
    assert files.fallback_notice(stats) == (
        "notice: detection failed on 100 of 200 records; they were released in full scope "
        "(every word perturbed)")
    whole = Anonymizer(str(glove), "knn", seed=1)
    stats = files.anonymize_files([str(src)], str(tmp_path / "all.jsonl"), whole, fields=["a", "b"], jobs=jobs)
    assert stats.full_scope_fallbacks == 0 and files.fallback_notice(stats) is None


def test_counting_leaves_the_output_unchanged(tmp_path: Path, glove: Path, failing_detection: None) -> None:
    """run_counted gives the texts run_task gives, byte for byte."""
    from embedanon.pipeline.document import Task, run_task

    texts = ("chest pain in the garden", "doctor house", "", "nurse 555-0134")
    for scope in ("all", "hybrid", "detected"):
        anonymizer = Anonymizer(str(glove), "knn", seed=3, scope=scope,
                                detectors=None if scope == "all" else "regex")
        task = Task(texts, anonymizer.config, anonymizer.key)
        out, flags, _, guarded = files.run_counted(task)
        assert out == run_task(task)
        assert flags == ([False] * 4 if scope == "all" else [True, False, False, False])
        assert guarded == 0  # knn never returns a word as itself: the name guard never redraws


@pytest.mark.parametrize("scope", ["all", "hybrid"])
def test_one_corpus_exported_as_txt_and_as_jsonl_or_csv_is_one_release(tmp_path: Path, glove: Path,
                                                                       scope: str) -> None:
    """QA pass 4: the field name was part of a record's identity, so the same notes released from
    a .txt file and from a JSONL field (or a renamed CSV column) got fresh noise: a second release
    (two-release intersection top-1 0.325 -> 0.670). Under one key they are now the same text."""
    notes = ["chest pain in the garden", "the doctor saw the river house", "nurse 555-0134 stone"]
    (tmp_path / "n.txt").write_text("\n".join(notes) + "\n", encoding="utf-8")
    (tmp_path / "n.jsonl").write_text("".join(json.dumps({"note": n}) + "\n" for n in notes),
                                      encoding="utf-8")
    (tmp_path / "n.csv").write_text("id,body\n" + "".join(f"{i},{n}\n" for i, n in enumerate(notes)),
                                    encoding="utf-8")
    anonymizer = Anonymizer(str(glove), "knn", seed=4, scope=scope,
                            detectors=None if scope == "all" else "regex")
    files.anonymize_files([str(tmp_path / "n.txt")], str(tmp_path / "o.txt"), anonymizer)
    files.anonymize_files([str(tmp_path / "n.jsonl")], str(tmp_path / "o.jsonl"), anonymizer, fields=["note"])
    files.anonymize_files([str(tmp_path / "n.csv")], str(tmp_path / "o.csv"), anonymizer, fields=["body"])
    txt = (tmp_path / "o.txt").read_text(encoding="utf-8").splitlines()
    jsonl = [json.loads(line)["note"] for line in (tmp_path / "o.jsonl").read_text(encoding="utf-8").splitlines()]
    csv_rows = [line.split(",", 1)[1] for line in (tmp_path / "o.csv").read_text(encoding="utf-8").splitlines()[1:]]
    assert txt == jsonl == csv_rows
    assert all(a != b for a, b in zip(txt, notes, strict=True))


@pytest.mark.parametrize(("name", "data", "field"), [
    ("n.jsonl", '{"t": "chest pain"}\n\n   \n{"t": "the river"}\n\n', "t"),
    ("n.csv", "id,t\n1,chest pain\n\n2,the river\n\n", "t"),
])
def test_blank_lines_are_kept_but_not_counted_as_records(tmp_path: Path, glove: Path, name: str,
                                                         data: str, field: str) -> None:
    """Left by the audits: the run summary and report counted each blank JSONL/CSV line as a
    record (4 records for 2 notes). They are written back as they are and counted as none."""
    (tmp_path / name).write_text(data, encoding="utf-8")
    anonymizer = Anonymizer(str(glove), "knn", seed=2)
    out = tmp_path / ("o" + name[1:])
    stats = files.anonymize_files([str(tmp_path / name)], str(out), anonymizer, fields=[field])
    assert (stats.records, stats.texts) == (2, 2)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [line.strip() == "" for line in lines] == [line.strip() == "" for line in data.splitlines()]
    assert "chest" not in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["n.csv", "n.tsv"])
def test_a_missing_value_marker_in_a_text_column_is_kept(tmp_path: Path, glove: Path, name: str) -> None:
    """Decision 0254: R's ``NA``, SQL's ``NULL`` and pandas' other missing-value markers became
    words in scope all (``NA`` -> ``TS``), so pandas read 1 of 9 missing values back. A whole cell
    that is one is read as an empty text and written back as it was; a cell that only holds one
    (``None of it``, ``NA ``) is text."""
    sep = "\t" if name.endswith(".tsv") else ","
    markers = ["NA", "NULL", "N/A", "NaN", "#N/A", "nan", "None", "null", "<NA>"]
    rows = [f"{i}{sep}{m}{sep}{i}" for i, m in enumerate(markers)]
    rows += [f"20{sep}None of it{sep}20", f"21{sep}NA {sep}21", f"22{sep}chest pain{sep}22"]
    (tmp_path / name).write_text(f"id{sep}t{sep}k\n" + "\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / ("o" + name[1:])
    stats = files.anonymize_files([str(tmp_path / name)], str(out), Anonymizer(str(glove), "knn", seed=2),
                                  fields=["t"])
    assert stats.records == len(rows)
    cells = [line.split(sep)[1] for line in out.read_text(encoding="utf-8").splitlines()[1:]]
    assert cells[: len(markers)] == markers
    assert cells[len(markers):] != ["None of it", "NA ", "chest pain"]
    assert "chest" not in cells[-1]


def test_report_has_the_fallback_count(tmp_path: Path, glove: Path, failing_detection: None) -> None:
    src = tmp_path / "in.txt"
    src.write_text("the garden\nriver stone\n", encoding="utf-8")
    report = tmp_path / "r.json"
    anonymizer = Anonymizer(str(glove), "knn", seed=1, scope="hybrid", detectors="regex")
    files.anonymize_files([str(src)], str(tmp_path / "o.txt"), anonymizer, report=(
        str(report), lambda stats: files.run_report(anonymizer, stats, 1.0, engine="processes", jobs=1)))
    assert json.loads(report.read_text(encoding="utf-8"))["counts"]["full_scope_fallbacks"] == 1
    assert oct(report.stat().st_mode & 0o777) == "0o600"


def test_config_digest_is_keyed_and_cannot_confirm_a_guessed_deny_list(tmp_path: Path, glove: Path) -> None:
    """Audit defect 3: the report's config_digest was sha256(repr(config)), and the config holds
    the deny list, so a guessed list could be confirmed offline from a report."""
    import hashlib

    from embedanon.noise import ReleaseKey

    deny = {"Zorblat Quexley": "NAME"}
    one, two = ReleaseKey.from_seed(1), ReleaseKey.from_seed(2)
    a = Anonymizer(str(glove), scope="detected", detectors="regex", deny=deny, key=one)
    again = Anonymizer(str(glove), scope="detected", detectors="regex", deny=deny, key=one)
    other_key = Anonymizer(str(glove), scope="detected", detectors="regex", deny=deny, key=two)
    other_list = Anonymizer(str(glove), scope="detected", detectors="regex", deny={"Mary": "NAME"}, key=one)
    assert a.digest() == again.digest()  # provenance: same config and key, same digest
    assert a.digest() not in (other_key.digest(), other_list.digest())
    guesser = hashlib.sha256(repr(a.config).encode()).hexdigest()[:12]  # what the attack computed
    assert a.digest() != guesser
    stats = files.RunStats()
    report = json.loads(files.run_report(a, stats, 1.0, engine="processes", jobs=1))
    assert report["config_digest"] == a.digest() and "Zorblat" not in json.dumps(report)


# -- inputs that are not plain text files (QA pass 4) --------------------------------------------
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_read_once(tmp_path: Path, glove: Path) -> None:
    """The input check opened and closed every input before the run: for a FIFO that took the
    writer, whose data was lost, and the run's own open waited forever."""
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w", encoding="utf-8") as fh:
            fh.write("chest pain in the garden\n")

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    out = tmp_path / "out.txt"
    done: list[files.RunStats] = []
    runner = threading.Thread(target=lambda: done.append(files.anonymize_files(
        [str(fifo)], str(out), Anonymizer(str(glove), "knn", seed=1))), daemon=True)
    runner.start()
    runner.join(timeout=60)
    assert done, "the run waited forever on the pipe"
    assert done[0].records == 1 and len(out.read_text(encoding="utf-8").split()) == 5


@pytest.mark.parametrize(("magic", "name"), [(b"\x1f\x8b\x08\x00", "gzip"), (b"\xfd7zXZ\x00", "xz"),
                                             (b"BZh91AY", "bzip2"), (b"PK\x03\x04", "zip")])
def test_damaged_compressed_input_is_refused_never_read_as_text(tmp_path: Path, glove: Path, magic: bytes,
                                                                name: str) -> None:
    """Read as text, a .gz failed as invalid UTF-8 and the message suggested --encoding-errors
    replace, which anonymized the compressed bytes. Compressed input is now decompressed
    (tests/test_compressed.py); data that only starts like it is refused, never anonymized."""
    src = tmp_path / "in.txt"
    src.write_bytes(magic + b"\x00rest of the archive")
    expected = "is a zip archive, not text" if name == "zip" else f"is {name}-compressed but its data is damaged"
    with pytest.raises(files.InputError, match=expected):
        files.anonymize_files([str(src)], str(tmp_path / "o.txt"), Anonymizer(str(glove), "knn", seed=1),
                              encoding_errors="replace")
    assert not (tmp_path / "o.txt").exists()
    src.write_bytes(b"BZh is how a note may start\n")  # text that only looks like a magic number
    files.anonymize_files([str(src)], str(tmp_path / "o.txt"), Anonymizer(str(glove), "knn", seed=1))


PARQUET_HEAD = bytes.fromhex("5041523115041500150c4c15041500")  # PAR1 and a thrift page header


@pytest.mark.parametrize(("head", "what"), [
    (PARQUET_HEAD, "a Parquet file"),
    (b"ARROW1\x00\x00\xff\xff\xff\xff", "an Arrow IPC (Feather) file"),
    (b"Obj\x01\x04\x14avro.codec", "an Avro file"),
    (b"SQLite format 3\x00\x10\x00", "an SQLite database"),
    (b"\x89HDF\r\n\x1a\n\x00\x00", "an HDF5 file"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00", "an OLE2 document"),
    (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "a PDF document"),
    (b"\x93NUMPY\x01\x00v\x00", "a NumPy array file"),
])
@pytest.mark.parametrize("fmt", [None, "csv"])
def test_binary_containers_are_refused_up_front(tmp_path: Path, glove: Path, head: bytes, what: str,
                                                fmt: str | None) -> None:
    """QA 5A: a .parquet input was 'line 1 is not valid UTF-8 ...; use --encoding-errors replace',
    and following the hint anonymized the binary file as text."""
    src = tmp_path / "in.bin"
    src.write_bytes(head + b"\x00Zebulonius" * 20)
    anonymizer = Anonymizer(str(glove), "knn", seed=1)
    with pytest.raises(files.InputError) as info:
        files.anonymize_files([str(src)], str(tmp_path / "o.anon"), anonymizer, fmt=fmt,
                              encoding_errors="replace")
    message = str(info.value)
    # Parquet is now read as Parquet when no --format says otherwise: this one is broken
    expected = "is not a readable Parquet file" if what == "a Parquet file" and fmt is None else f"is {what}"
    assert message.startswith(f"input {src} {expected}") and "Zebulonius" not in message
    assert any(hint in message for hint in ("convert it to JSONL or CSV", "export its text", "--format parquet",
                                            "Parquet file (ArrowInvalid)"))
    assert not (tmp_path / "o.anon").exists()
    with pytest.raises(files.InputError, match=re.escape(expected)):  # privacy-report's reader too
        files.read_texts(str(src), fmt=fmt, encoding_errors="replace")


_NOTE = "Zebulonius Smith went home\nMary called\n"


@pytest.mark.parametrize(("data", "name", "what"), [
    (b"\xff\xfe" + _NOTE.encode("utf-16-le"), "in.txt", "UTF-16"),
    (b"\xfe\xff" + _NOTE.encode("utf-16-be"), "in.txt", "UTF-16"),
    (_NOTE.encode("utf-16-le"), "in.txt", "UTF-16"),  # no byte-order mark: every other byte is 0
    (("text\n" + _NOTE).encode("utf-16"), "in.csv", "UTF-16"),
    (b"\xff\xfe\x00\x00" + _NOTE.encode("utf-32-le"), "in.txt", "UTF-32"),
])
@pytest.mark.parametrize("errors", ["strict", "replace"])
def test_utf16_and_utf32_text_is_refused_never_read_as_utf8(tmp_path: Path, glove: Path, data: bytes, name: str,
                                                            what: str, errors: str) -> None:
    """Found by hand on a Notepad/PowerShell-style UTF-16 file: it was 'not valid UTF-8 (byte 1);
    use --encoding-errors replace', and with that option every name came through a detected-scope
    release unchanged ('J\\x00o\\x00h\\x00n'), since no detector reads a word cut by zero bytes."""
    src = tmp_path / name
    src.write_bytes(data)
    with pytest.raises(files.InputError) as info:
        files.anonymize_files([str(src)], str(tmp_path / ("o" + src.suffix)), Anonymizer(str(glove), seed=1),
                              encoding_errors=errors)
    message = str(info.value)
    assert message.startswith(f"input {src} is {what} text, not UTF-8") and "convert it" in message
    assert "Zebulonius" not in message and not (tmp_path / ("o" + src.suffix)).exists()


@pytest.mark.parametrize(("data", "what"), [
    (b"\xff\xfe" + _NOTE.encode("utf-16-le"), "is UTF-16 text, not UTF-8"),
    (b"PK\x03\x04\x14\x00\x00\x00\x08\x00", "is a zip archive, not text"),
])
def test_binary_standard_input_is_named_as_standard_input(glove: Path, data: bytes, what: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """'cat notes.zip | anonymize -' said 'input - is a zip archive' where every other message
    about standard input says <stdin> (found by the second CLI audit, by hand)."""
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(data))))
    with pytest.raises(files.InputError, match=f"^input <stdin> {what}"):
        files.anonymize_files(["-"], None, Anonymizer(str(glove), seed=1))


def test_text_with_a_few_zero_bytes_is_still_read(tmp_path: Path, glove: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_bytes(b"the patient\x00 has pain\n" * 3 + b"\x00\x00\n")
    assert files.anonymize_files([str(src)], str(tmp_path / "o.txt"), Anonymizer(str(glove), seed=1)).records == 4


@pytest.mark.parametrize("line", [b"PAR1 is the ward we moved to\n", b"%PDF-export of the notes follows\n",
                                  b"ARROW1 delivered\n"])
def test_text_that_starts_with_a_container_signature_is_read(tmp_path: Path, glove: Path, line: bytes) -> None:
    src = tmp_path / "in.txt"
    src.write_bytes(line + b"and a second line\n")
    stats = files.anonymize_files([str(src)], str(tmp_path / "o.txt"), Anonymizer(str(glove), "knn", seed=1))
    assert stats.records == 2


def test_several_inputs_to_standard_output_name_the_fix(tmp_path: Path) -> None:
    """QA: 'output - and output - both write to standard output' for two inputs and no -o."""
    for output in (None, "-"):
        with pytest.raises(ConfigError, match="^2 inputs need -o DIR, a directory"):
            files.plan_outputs(["a.txt", "b.txt"], output)
    assert files.plan_outputs(["a.txt"], None) == [None]


@pytest.mark.parametrize("name", ["single.csv", "single.TSV", "single.jsonl", "single.json", "single.parquet",
                                  "single.txt", "single.csv.gz", "single.bz2", "single.xz", "single.zst"])
def test_several_inputs_refuse_an_output_named_like_a_file(tmp_path: Path, name: str) -> None:
    """Left by the audit: ``anonymize a.csv b.parquet -o out/single.csv`` made a directory named
    ``single.csv``, silently. Refused before any work, unless that directory exists already or
    the name ends in '/'; one input still writes the file."""
    inputs = [str(tmp_path / "a.csv"), str(tmp_path / "b.csv")]
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / name
    with pytest.raises(ConfigError, match=f"^-o {re.escape(str(out))} is named like a file "
                                          f"\\({re.escape(Path(name).suffix.lower())}\\), but several "
                                          "inputs need a directory"):
        files.plan_outputs(inputs, str(out))
    assert not out.exists()
    assert files.plan_outputs(inputs, str(out) + os.sep) == [str(out / "a.csv"), str(out / "b.csv")]
    assert files.plan_outputs(inputs[:1], str(out)) == [str(out)]
    out.mkdir()
    assert files.plan_outputs(inputs, str(out)) == [str(out / "a.csv"), str(out / "b.csv")]
    assert files.plan_outputs(inputs, str(tmp_path / "out" / "release.v2")) == [  # no file's suffix
        str(tmp_path / "out" / "release.v2" / "a.csv"), str(tmp_path / "out" / "release.v2" / "b.csv")]


@pytest.mark.parametrize(("name", "data", "output", "message"), [
    ("in.jsonl", '{"text": "the patient"}\n', "out.parquet",
     "output .*out.parquet is named as Parquet, but anonymize writes its input's format, JSON Lines "
     "for .*in.jsonl; name the output .jsonl"),
    ("in.csv", "text\nthe patient\n", "out.jsonl", "named as JSON Lines.*comma-separated CSV.*name the output .csv"),
    ("in.tsv", "text\tid\nthe patient\t1\n", "out.csv.gz", "named as comma-separated CSV.*tab-separated CSV"),
    ("in.txt", "the patient\n", "out.csv", "named as comma-separated CSV.*plain text.*name the output .txt"),
    # a caption file is one text: the fix names its own extension (decision 0195)
    ("in.vtt", "WEBVTT\n\n00:01.000 --> 00:02.000\nthe patient\n", "out.jsonl",
     "named as JSON Lines.*plain text for .*in.vtt; name the output .vtt"),
    # a CLI audit: CSV, JSON lines (and Parquet bytes) under a .txt name, which anonymize then
    # read back as one record per line and refused ('looks like JSON Lines, not text')
    ("in.csv", "text\nthe patient\n", "out.txt", "named as plain text.*comma-separated CSV.*name the output .csv"),
    ("in.jsonl", '{"text": "the patient"}\n', "out.txt", "named as plain text.*JSON Lines.*name the output .jsonl"),
    ("in.txt", "the patient\n", "out.srt", None),  # a caption file's name: text
])
def test_an_output_named_as_another_format_is_refused(tmp_path: Path, glove: Path, name: str, data: str,
                                                      output: str, message: str | None) -> None:
    """Found by hand: ``anonymize notes.jsonl -o out.parquet`` wrote JSON text under a Parquet name
    (and CSV into ``.jsonl``, Parquet bytes into ``.jsonl``): the output is always in the input's
    format, so a name that says otherwise is refused before any work, and nothing is written."""
    (tmp_path / name).write_text(data, encoding="utf-8")
    anonymizer = Anonymizer(str(glove), seed=1)
    if message is None:
        files.anonymize_files([str(tmp_path / name)], str(tmp_path / output), anonymizer)
        return
    with pytest.raises(ConfigError, match=message):
        files.anonymize_files([str(tmp_path / name)], str(tmp_path / output), anonymizer)
    assert not (tmp_path / output).exists()
    text_names = ("out.txt", "out.vtt") if name in ("in.txt", "in.vtt") else ()
    for fine in ("out" + Path(name).suffix, "out" + Path(name).suffix + ".gz", "out.anon", *text_names):
        files.anonymize_files([str(tmp_path / name)], str(tmp_path / fine), anonymizer)  # no format named
    # named like the input, read in a format the user chose: the choice is theirs
    files.anonymize_files([str(tmp_path / name)], str(tmp_path / ("chosen" + Path(name).suffix)), anonymizer,
                          fmt="txt" if name != "in.txt" else None)


@pytest.mark.parametrize(("mechanism", "options", "params"), [
    ("knn", {}, {"k": 10}),
    ("knn", {"k": 3}, {"k": 3}),
    ("mahalanobis", {"epsilon": 20.0}, {"epsilon": 20.0, "lam": 0.2}),
])
def test_report_settings_state_the_mechanism_parameters_in_force(
        glove: Path, mechanism: str, options: dict[str, float], params: dict[str, float]) -> None:
    """Found by hand: a default knn run reported ``"params": {}``, so the release officer's
    report did not say which k the release was made with (a default parameter was left out)."""
    anonymizer = Anonymizer(str(glove), mechanism, seed=1, **options)
    report = json.loads(files.run_report(anonymizer, files.RunStats(), 1.0, engine="processes", jobs=1))
    assert report["settings"]["params"] == params


def test_a_line_of_a_file_with_carriage_return_endings_is_released_as_the_same_line_elsewhere(
        tmp_path: Path, glove: Path) -> None:
    """A record's identity is its text (docs/releasing.md): a line of an old Mac (CR) file gets
    the output the same line gets in an LF file; it was one record with the whole file."""
    lines = ["the patient has chest pain", "the nurse saw the doctor", "river table window"]
    (tmp_path / "lf.txt").write_bytes("\n".join(lines).encode() + b"\n")
    (tmp_path / "cr.txt").write_bytes("\r".join(lines).encode() + b"\r")
    from embedanon.noise import ReleaseKey

    anonymizer = Anonymizer(str(glove), key=ReleaseKey.from_seed(3))
    stats = files.anonymize_files([str(tmp_path / "cr.txt")], str(tmp_path / "cr.out"), anonymizer)
    files.anonymize_files([str(tmp_path / "lf.txt")], str(tmp_path / "lf.out"), anonymizer)
    assert stats.records == 3
    assert (tmp_path / "cr.out").read_bytes().split(b"\r") == (tmp_path / "lf.out").read_bytes().split(b"\n")


class _Trickle(io.RawIOBase):
    """A pipe whose writer sends a few bytes at a time (a network stream, a slow producer)."""

    def __init__(self, data: bytes, step: int) -> None:
        self.data, self.step = data, step

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        chunk, self.data = self.data[: self.step], self.data[self.step:]
        buffer[: len(chunk)] = chunk
        return len(chunk)


@pytest.mark.parametrize(("ending", "step"), [("\r\n", 3), ("\r\n", 1 << 16), ("\n", 3), ("\r", 3)])
def test_csv_output_line_endings_do_not_depend_on_how_the_input_arrives(
        glove: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], ending: str,
        step: int) -> None:
    """The CSV writer took its line ending from a peek at the input: on a pipe that had delivered
    only part of the header row, a CRLF file came out with LF endings, so one input gave two
    outputs (found by the second CLI audit, by hand: '(printf "id,te"; sleep 1; printf
    "xt\\r\\n1,John Smith\\r\\n") | anonymize - --format csv --field text'). The header row's own
    ending, as read, is used."""
    import sys

    data = ending.join(["id,text", "1,the patient has chest pain", "2,the nurse", ""]).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(_Trickle(data, step))))
    files.anonymize_files(["-"], None, Anonymizer(str(glove), seed=1), fmt="csv")
    out = capsys.readouterr().out
    assert out.count(ending) == 3 and out.startswith("id,text" + ending)
    if ending != "\r\n":
        assert "\r\n" not in out
