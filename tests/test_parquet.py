"""Parquet in the file job: text columns anonymized row group by row group, the rest unchanged."""

from __future__ import annotations

import gc
import gzip
import io
import sys
from pathlib import Path

import pytest

from embedanon import files
from embedanon.errors import ConfigError, InputError
from embedanon.pipeline import Anonymizer
from tests.helpers.embeddings import write_glove

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

_WORDS = ["patient", "doctor", "nurse", "hospital", "clinic", "pain", "ache", "heart", "chest",
          "river", "table", "window", "music", "green", "house", "garden", "paper", "stone"]
NOTES = ["the patient has chest pain", None, "", "river stone garden", "doctor", None, "green house paper"]


@pytest.fixture
def anonymizer(tmp_path: Path) -> Anonymizer:
    return Anonymizer(str(write_glove(tmp_path / "tiny.glove.txt", _WORDS)), seed=3)


def _table() -> object:
    table = pa.table({
        "id": pa.array(range(len(NOTES)), pa.int64()),
        "text": pa.array(NOTES, pa.string()),
        "summary": pa.array([n and n.upper() for n in NOTES], pa.large_string()),
        "ward": pa.array(["a", "b", "a", "c", "a", "b", "a"]).dictionary_encode(),
        "score": pa.array([1.5, None, 2.0, 3.25, 0.0, -1.0, 7.0]),
    })
    return table.replace_schema_metadata({b"origin": b"kept"})


def _write(path: Path) -> Path:
    pq.write_table(_table(), path, row_group_size=3, compression="zstd")
    return path


def test_text_columns_change_and_everything_else_is_kept(tmp_path: Path, anonymizer: Anonymizer) -> None:
    src = _write(tmp_path / "in.parquet")
    stats = files.anonymize_files([str(src)], str(tmp_path / "out.parquet"), anonymizer,
                                  fields=["text", "summary"])
    out = pq.ParquetFile(tmp_path / "out.parquet")
    got, before = out.read(), _table()
    assert stats.records == len(NOTES) and got.schema.equals(before.schema, check_metadata=True)
    assert out.metadata.num_row_groups == 3 and [out.metadata.row_group(i).num_rows for i in range(3)] == [3, 3, 1]
    assert out.metadata.row_group(0).column(0).compression == "ZSTD"
    for name in ("id", "ward", "score"):
        assert got.column(name).equals(before.column(name)), name
    texts = got.column("text").to_pylist()
    assert [t is None for t in texts] == [n is None for n in NOTES] and texts[2] == ""  # nulls stay null
    # each text's output is the function of its text that every format gives (a txt run)
    plain = tmp_path / "plain.txt"
    plain.write_text("\n".join(n for n in NOTES if n) + "\n", encoding="utf-8")
    files.anonymize_files([str(plain)], str(tmp_path / "plain.out.txt"), anonymizer)
    assert [t for t in texts if t] == (tmp_path / "plain.out.txt").read_text(encoding="utf-8").splitlines()
    assert not set(texts) & {n for n in NOTES if n}


def test_parquet_is_found_by_its_content_and_field_errors_name_why(tmp_path: Path, anonymizer: Anonymizer) -> None:
    """Issue 34: with --field, a Parquet file not named .parquet was called 'txt'."""
    src = tmp_path / "export.dat"
    src.write_bytes(_write(tmp_path / "in.parquet").read_bytes())
    files.anonymize_files([str(src)], str(tmp_path / "out.parquet"), anonymizer, fields=["text"])
    assert pq.read_table(tmp_path / "out.parquet").num_rows == len(NOTES)
    (tmp_path / "notes.dat").write_text("the patient\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"notes\.dat is read as plain text \(its name has no \.jsonl"):
        files.anonymize_files([str(tmp_path / "notes.dat")], str(tmp_path / "o"), anonymizer, fields=["text"])


@pytest.mark.parametrize(("fields", "message"), [
    (["missing"], "no column 'missing' (5 columns)"),
    (["score"], "column 'score' is of type double, not text"),
])
def test_bad_columns_are_refused_before_any_output(tmp_path: Path, anonymizer: Anonymizer, fields: list[str],
                                                   message: str) -> None:
    src = _write(tmp_path / "in.parquet")
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        files.anonymize_files([str(src)], str(tmp_path / "out.parquet"), anonymizer, fields=fields)
    assert not (tmp_path / "out.parquet").exists()


def test_what_parquet_cannot_be(tmp_path: Path, anonymizer: Anonymizer) -> None:
    src = _write(tmp_path / "in.parquet")
    (tmp_path / "in.parquet.gz").write_bytes(gzip.compress(src.read_bytes()))
    with pytest.raises(InputError, match="gzip-compressed Parquet file; decompress it first"):
        files.anonymize_files([str(tmp_path / "in.parquet.gz")], str(tmp_path / "o.parquet"), anonymizer)
    with pytest.raises(ConfigError, match="Parquet compresses its own columns"):
        files.anonymize_files([str(src)], str(tmp_path / "o.parquet.gz"), anonymizer)
    (tmp_path / "broken.parquet").write_bytes(src.read_bytes()[:-40])
    with pytest.raises(InputError, match="is not a readable Parquet file"):
        files.anonymize_files([str(tmp_path / "broken.parquet")], str(tmp_path / "o.parquet"), anonymizer)
    assert not (tmp_path / "o.parquet").exists()


def test_read_texts_reads_parquet_like_anonymize(tmp_path: Path) -> None:
    src = _write(tmp_path / "in.parquet")
    assert files.read_texts(str(src)) == ["" if n is None else n for n in NOTES]


def test_an_uncompressed_file_keeps_its_columns_uncompressed(tmp_path: Path, anonymizer: Anonymizer) -> None:
    # pandas' to_parquet(compression=None) writes this; it was refused as "cannot write this
    # Parquet schema back" (the footer's UNCOMPRESSED is no codec name the writer takes)
    src = tmp_path / "in.parquet"
    pq.write_table(_table(), src, row_group_size=3, compression={"text": "none", "summary": "zstd"})
    files.anonymize_files([str(src)], str(tmp_path / "out.parquet"), anonymizer, fields=["text", "summary"])
    group = pq.ParquetFile(tmp_path / "out.parquet").metadata.row_group(0)
    codecs = {group.column(j).path_in_schema: group.column(j).compression for j in range(group.num_columns)}
    assert codecs["text"] == "UNCOMPRESSED" and codecs["summary"] == "ZSTD"
    assert pq.read_table(tmp_path / "out.parquet").column("id").equals(_table().column("id"))


def test_a_failed_run_prints_nothing_after_its_error(tmp_path: Path, anonymizer: Anonymizer,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # A run stopped after its Parquet writer was made (a damaged row group, SIGTERM,
    # --require-english) left the writer unclosed; when it was collected, pyarrow wrote the footer
    # into the temp file the atomic writer had closed and removed, and Python printed
    # "Exception ignored in ParquetWriter.__del__ ... write to closed file" under the one-line error
    unraisable: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    src = tmp_path / "de.parquet"
    german = "Der Patient wurde am Montag mit starken Schmerzen in die Klinik gebracht und dort untersucht"
    pq.write_table(pa.table({"text": [german] * 40}), src)
    with pytest.raises(InputError, match="does not look like English"):
        files.anonymize_files([str(src)], str(tmp_path / "out.parquet"), anonymizer, fields=["text"],
                              language="require")
    gc.collect()
    assert not unraisable and not list(tmp_path.glob("*out.parquet*"))


def _records(path: Path, fields: list[str], *, write_back: bool) -> list[tuple[object, ...]]:
    from embedanon.parquet import ParquetJob

    job = ParquetJob(str(path), io.BytesIO(), fields, str(path))
    return [(r.texts, r.nbytes, r.payload) for r in job.records(write_back=write_back)]


@pytest.mark.parametrize("batch_rows", [1, 2, 3, 1024])
@pytest.mark.parametrize("row_group_size", [1, 3, 7])
def test_reading_only_in_batches_gives_the_records_of_whole_row_groups(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      batch_rows: int, row_group_size: int) -> None:
    """The batched read (``records(write_back=False)``: detect, review, privacy-report) against
    its plain reference, the whole row group that ``anonymize`` reads: the same texts, sizes
    and places, null and dictionary columns included, for batches smaller than, straddling and
    larger than the row groups (an empty row group too)."""
    import embedanon.parquet as eparquet

    monkeypatch.setattr(eparquet, "READ_BATCH_ROWS", batch_rows)
    table = _table().append_column("empty", pa.nulls(len(NOTES)))
    path = tmp_path / "in.parquet"
    with pq.ParquetWriter(path, table.schema) as writer:
        writer.write_table(table.slice(0, 0))  # a row group with no rows
        writer.write_table(table, row_group_size=row_group_size)
    for fields in (["text"], ["summary", "text"], ["ward"], ["empty", "text"]):
        assert _records(path, fields, write_back=False) == _records(path, fields, write_back=True)


def test_reading_only_holds_a_batch_of_the_released_columns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Left by the audits: ``read_record_texts`` (detect, privacy-report, review) read each row
    group whole, every column of it; a steward's file is often one row group (pyarrow's default
    holds a million rows), so the whole file sat in memory: 524 MB peak for 50,000 IMDB reviews
    (decision 0411). A reader that only reads takes the named columns in bounded batches and
    never a row group whole."""
    import embedanon.parquet as eparquet

    seen: list[tuple[int, tuple[str, ...]]] = []
    iter_batches = pq.ParquetFile.iter_batches

    def spy(self, batch_size=65536, row_groups=None, columns=None, **options):  # type: ignore[no-untyped-def]
        for batch in iter_batches(self, batch_size, row_groups, columns, **options):
            seen.append((batch.num_rows, tuple(batch.schema.names)))
            yield batch

    def whole(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a row group was read whole")

    monkeypatch.setattr(eparquet, "READ_BATCH_ROWS", 2)
    monkeypatch.setattr(pq.ParquetFile, "iter_batches", spy)
    monkeypatch.setattr(pq.ParquetFile, "read_row_group", whole)
    src = _write(tmp_path / "in.parquet")  # row groups of 3 rows
    assert files.read_texts(str(src)) == ["" if n is None else n for n in NOTES]
    assert seen and all(rows <= 2 and names == ("text",) for rows, names in seen)
