"""Readers for txt / jsonl / csv records and an atomic writer.

A *record* is what gets one random stream: a line of a text file, a JSON line, a CSV row. Only
the named fields of JSONL and CSV records change; every other field, the order and the number of
records are kept. Readers raise :class:`InputError` naming the file and the line.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from .errors import ConfigError, InputError

Format = Literal["txt", "jsonl", "csv"]
FORMATS: tuple[str, ...] = ("txt", "jsonl", "csv")
ENCODING_ERRORS = ("strict", "replace")
_CSV_FIELD_LIMIT = 1 << 30


def detect_format(path: str, explicit: str | None = None) -> Format:
    """``explicit`` if given, else from the extension (``.jsonl``/``.ndjson``, ``.csv``/``.tsv``)."""
    if explicit is not None:
        if explicit not in FORMATS:
            raise ConfigError(f"format must be one of {', '.join(FORMATS)}, got {explicit!r}")
        return explicit  # type: ignore[return-value]
    suffix = Path(path).suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if suffix in (".csv", ".tsv"):
        return "csv"
    return "txt"


@dataclass(frozen=True, slots=True)
class Record:
    """One record: the texts to anonymize and how to put the results back.

    Attributes:
        texts: the strings to anonymize, in field order.
        nbytes: size of the record in the input (for progress).
    """

    texts: tuple[str, ...]
    nbytes: int
    payload: Any = None  # format-specific: parsed object, row, or line ending
    header: bool = False  # a CSV header row: written back, not counted as a record


def open_input(path: str) -> IO[bytes]:
    if path == "-":
        return sys.stdin.buffer
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise InputError(f"input not found: {path}") from None
    except IsADirectoryError:
        raise InputError(f"input is a directory: {path}") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None


def _decode(raw: bytes, path: str, line_no: int, errors: str) -> str:
    try:
        return raw.decode("utf-8", errors=errors)
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path}: line {line_no} is not valid UTF-8 (byte {exc.start + 1}); "
            "use --encoding-errors replace to substitute U+FFFD"
        ) from None


def read_txt(fh: IO[bytes], path: str, errors: str) -> Iterator[Record]:
    """One record per line; the line ending stays outside the anonymized text."""
    for line_no, raw in enumerate(fh, 1):
        line = _decode(raw, path, line_no, errors)
        body = line.rstrip("\r\n")
        yield Record((body,), len(raw), line[len(body):])


def write_txt(record: Record, results: tuple[str, ...]) -> str:
    return results[0] + record.payload


def read_jsonl(fh: IO[bytes], path: str, errors: str, fields: list[str]) -> Iterator[Record]:
    """One record per JSON object line; blank lines are kept as they are."""
    for line_no, raw in enumerate(fh, 1):
        line = _decode(raw, path, line_no, errors)
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        if not body.strip():
            yield Record((), len(raw), (None, line, fields))
            continue
        bom = "\ufeff" if line_no == 1 and body.startswith("\ufeff") else ""
        if bom:  # a byte-order mark is kept in the output but is not JSON
            body = body[1:]
        try:
            obj = json.loads(body)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: line {line_no} is not valid JSON: {exc.msg}") from None
        if not isinstance(obj, dict):
            raise InputError(f"{path}: line {line_no} is a JSON {type(obj).__name__}, not an object")
        texts = []
        for name in fields:
            if name not in obj:
                raise InputError(f"{path}: line {line_no} has no field {name!r}")
            value = obj[name]
            if value is not None and not isinstance(value, str):
                raise InputError(
                    f"{path}: line {line_no}: field {name!r} is {type(value).__name__}, not a string"
                )
            texts.append(value or "")
        yield Record(tuple(texts), len(raw), (obj, ending, fields, bom))


def write_jsonl(record: Record, results: tuple[str, ...]) -> str:
    obj, ending, fields, *bom = record.payload
    if obj is None:
        return ending  # a blank line, kept verbatim
    for name, value in zip(fields, results, strict=True):
        if obj[name] is not None:
            obj[name] = value
    return "".join(bom) + json.dumps(obj, ensure_ascii=False) + ending


def read_csv(fh: IO[bytes], path: str, errors: str, fields: list[str],
             delimiter: str = ",") -> Iterator[Record]:
    """One record per row after the header row; the header is yielded first as a record."""
    text = io.TextIOWrapper(fh, encoding="utf-8", errors=errors, newline="")
    # Long notes exceed the csv module's default 128 KiB field limit.
    csv.field_size_limit(max(csv.field_size_limit(), _CSV_FIELD_LIMIT))
    reader = csv.reader(text, delimiter=delimiter)
    try:
        try:
            header = next(reader)
        except StopIteration:
            raise InputError(f"{path}: empty CSV file (a header row is needed)") from None
        # A byte-order mark sticks to the first column name; match names without it.
        names = [h.lstrip("\ufeff") if i == 0 else h for i, h in enumerate(header)]
        missing = [f for f in fields if f not in names]
        if missing:
            raise InputError(
                f"{path}: no column {missing[0]!r}; columns are: {', '.join(header)}"
            )
        cols = [names.index(f) for f in fields]
        yield Record((), 0, ("header", header), header=True)
        for row in reader:
            # A short row keeps its shape: absent cells are anonymized as "" and not written.
            yield Record(tuple(row[c] if c < len(row) else "" for c in cols),
                         sum(map(len, row)) + len(row), ("row", row, cols))
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path}: not valid UTF-8 near CSV line {reader.line_num + 1} (byte {exc.start + 1} of "
            "a chunk); use --encoding-errors replace to substitute U+FFFD"
        ) from None
    except csv.Error as exc:
        raise InputError(f"{path}: malformed CSV at line {reader.line_num}: {exc}") from None
    finally:
        text.detach()


def detect_line_terminator(fh: IO[bytes]) -> str:
    """``"\\r\\n"`` when the first line of ``fh`` ends so, else ``"\\n"`` (reads nothing away)."""
    peek = getattr(fh, "peek", None)
    head = peek(65536)[:65536] if callable(peek) else b""
    first = head.split(b"\n", 1)[0]
    return "\r\n" if first.endswith(b"\r") else "\n"


class CsvWriter:
    """Serialises rows one at a time with the csv module (minimal quoting), ending lines the way
    the input did."""

    def __init__(self, delimiter: str = ",", lineterminator: str = "\r\n") -> None:
        self._buf = io.StringIO()
        self._writer = csv.writer(self._buf, delimiter=delimiter, lineterminator=lineterminator)

    def __call__(self, record: Record, results: tuple[str, ...]) -> str:
        kind = record.payload[0]
        if kind == "header":
            row = record.payload[1]
        else:
            row = list(record.payload[1])
            for c, value in zip(record.payload[2], results, strict=True):
                if c < len(row):
                    row[c] = value
        self._writer.writerow(row)
        out = self._buf.getvalue()
        self._buf.seek(0)
        self._buf.truncate()
        return out


@contextmanager
def atomic_output(path: str | None) -> Iterator[IO[str]]:
    """Text stream for ``path`` that appears only when the block succeeds (temp file + rename).

    ``None`` or ``-`` means standard output (which cannot be made atomic).
    """
    if path is None or path == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise InputError(f"output directory does not exist: {directory}")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
