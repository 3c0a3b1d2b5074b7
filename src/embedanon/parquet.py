"""Parquet records: the named text columns of a Parquet file anonymized row group by row group.

``anonymize notes.parquet -o out.parquet --field text`` reads one row group at a time
(:meth:`pyarrow.parquet.ParquetFile.read_row_group`), sends its texts through the same chunks as
every other format, and writes the row group back when all its texts are back, with the same
number of rows. Every other column is written from the very arrays that were read, so its
values, types, nulls and the file's schema metadata (a pandas index, say) are unchanged; each
column keeps its compression codec. A missing value (null) stays null. A record is a row.

Needs pyarrow (``pip install 'embedanon[parquet]'``); Parquet is read from a file, never from
standard input or a compressed file (it is read by seeking; it compresses its own columns).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any

from .errors import ConfigError, InputError
from .io import Record


def _pyarrow() -> tuple[Any, Any]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ConfigError("Parquet needs pyarrow: pip install 'embedanon[parquet]'") from None
    return pa, pq


def _is_text(pa: Any, kind: Any) -> bool:
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_null(kind)
                or getattr(pa.types, "is_string_view", lambda _: False)(kind))


#: rows per batch when a row group is only read (``records(write_back=False)``)
READ_BATCH_ROWS = 1024


class _Sink:
    """The output as the Parquet writer sees it.

    A run that stops (a damaged row group, SIGTERM, ``--require-english``) never closes its
    writer: the atomic writer closes and removes the temp file, and when the writer is collected
    pyarrow closes it and writes the footer into that closed file, which Python printed as
    "Exception ignored ... write to closed file" with a traceback under the run's one-line error.
    A write after the file was closed goes nowhere unless :meth:`ParquetJob.close` makes it, so a
    footer that belongs in the output is never dropped.
    """

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self.finishing = False

    @property
    def closed(self) -> bool:
        return self._raw.closed

    def write(self, data: bytes) -> int:
        if self._raw.closed and not self.finishing:
            return len(data)  # the writer of a stopped run, collected: its file is gone
        return self._raw.write(data)


class ParquetJob:
    """The records of one Parquet input and the writer that puts their results back.

    Args:
        path: the input file.
        sink: the binary output (a temp file of the atomic writer, or a spool).
        fields: the text columns to anonymize.
        shown: how messages name the input.
    """

    def __init__(self, path: str, sink: IO[bytes], fields: list[str], shown: str) -> None:
        pa, pq = self._pa, self._pq = _pyarrow()
        if path == "-":
            raise InputError("Parquet cannot be read from standard input (it is read by seeking); "
                             "give the file")
        with open(path, "rb") as fh:
            from .compressed import sniff

            kind = sniff(fh.read(8))
        if kind is not None:
            raise InputError(f"input {shown} is a {kind}-compressed Parquet file; decompress it first "
                             "(Parquet compresses its own columns)")
        try:
            self._file = pq.ParquetFile(path)
            schema = self._file.schema_arrow
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise InputError(f"input {shown} is not a readable Parquet file ({type(exc).__name__})") from None
        self._shown, self._fields = shown, fields
        for name in fields:
            count = schema.names.count(name)
            if count == 0:
                raise InputError(f"{shown}: no column {name!r} ({len(schema.names)} columns)")
            if count > 1:
                raise InputError(f"{shown}: column {name!r} appears {count} times (ambiguous)")
            kind = schema.field(name).type
            if not _is_text(pa, kind):
                raise InputError(f"{shown}: column {name!r} is of type {kind}, not text")
        self._columns = [schema.names.index(name) for name in fields]
        metadata = self._file.metadata
        codecs: dict[str, str] = {}
        if metadata.num_row_groups:
            group = metadata.row_group(0)
            for j in range(group.num_columns):
                column = group.column(j)
                codec = column.compression.lower()
                # the footer says UNCOMPRESSED where the writer takes "none": an uncompressed
                # file (pandas' to_parquet(compression=None)) was refused as unwritable
                codecs[column.path_in_schema] = "none" if codec == "uncompressed" else codec
        try:
            self._sink = _Sink(sink)
            self._writer = pq.ParquetWriter(self._sink, schema, compression=codecs or "snappy")
        except (pa.ArrowException, ValueError) as exc:  # a nested schema's codec map, say
            raise InputError(f"{shown}: cannot write this Parquet schema back "
                             f"({type(exc).__name__})") from None
        self._tables: dict[int, Any] = {}
        self._results: dict[int, list[list[str | None]]] = {}

    def records(self, *, write_back: bool = True) -> Iterator[Record]:
        """One record per row; a row group is read when the previous one has been handed out.

        Args:
            write_back: keep each row group until :meth:`write` has its rows' results. False for
                a reader that only reads (``detect``, ``privacy-report``, a review sample): it
                then reads only the named columns, :data:`READ_BATCH_ROWS` rows at a time (the
                same records), and :meth:`write` must not be called.
        """
        metadata = self._file.metadata
        for group in range(self._file.num_row_groups):
            info = metadata.row_group(group)  # its bytes in the file: progress against the file size
            size = sum(info.column(j).total_compressed_size for j in range(info.num_columns))
            if write_back:
                table = self._read(group, lambda g: self._file.read_row_group(g))
                rows = table.num_rows
                if rows == 0:
                    self._writer.write_table(table)
                    continue
                self._tables[group] = table
                self._results[group] = [[] for _ in self._fields]
                parts: Iterator[list[list[str | None]]] = iter([[table.column(c).to_pylist()
                                                                 for c in self._columns]])
            else:
                rows = info.num_rows
                parts = self._batches(group)
            row = 0
            for values in parts:
                for at in range(len(values[0])):  # the row group's bytes spread over its rows: progress
                    nbytes = size // rows + (size % rows if row == rows - 1 else 0)
                    texts = tuple(column[at] or "" for column in values)
                    yield Record(texts, nbytes, (group, row, rows, tuple(c[at] is None for c in values)))
                    row += 1

    def _read(self, group: int, read: Any) -> Any:
        """``read(group)``, or the one-line error naming the row group that cannot be read."""
        pa = self._pa
        try:
            return read(group)
        except (pa.ArrowException, OSError) as exc:
            raise InputError(f"{self._shown}: row group {group + 1} cannot be read "
                             f"({type(exc).__name__})") from None

    def _batches(self, group: int) -> Iterator[list[list[str | None]]]:
        """The named columns' values of row group ``group``, :data:`READ_BATCH_ROWS` rows at a
        time (a reader that only reads holds one batch of its text columns, not the row group
        with every column: 524 MB peak for 50,000 IMDB reviews in one row group, see decision
        0411)."""
        batches = self._read(group, lambda g: self._file.iter_batches(
            batch_size=READ_BATCH_ROWS, row_groups=[g], columns=self._fields))
        while True:
            batch = self._read(group, lambda _: next(batches, None))
            if batch is None:
                return
            yield [batch.column(name).to_pylist() for name in self._fields]

    def write(self, record: Record, results: tuple[str, ...]) -> None:
        """Take one row's results; write its row group when its last row is back."""
        pa = self._pa
        group, row, rows, missing = record.payload
        for slot, value, null in zip(self._results[group], results, missing, strict=True):
            slot.append(None if null else value)
        if row < rows - 1:
            return
        table = self._tables.pop(group)
        for column, name, values in zip(self._columns, self._fields, self._results.pop(group), strict=True):
            kind = table.schema.field(name).type
            if pa.types.is_dictionary(kind):
                array = pa.array(values, type=kind.value_type).dictionary_encode().cast(kind)
            elif pa.types.is_null(kind):
                array = pa.nulls(len(values))
            else:
                array = pa.array(values, type=kind)
            table = table.set_column(column, table.schema.field(name), array)
        self._writer.write_table(table, row_group_size=rows)

    def close(self) -> None:
        """Write the file's footer (the atomic writer then commits the file)."""
        self._sink.finishing = True
        self._writer.close()
