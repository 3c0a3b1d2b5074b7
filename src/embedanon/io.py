"""Readers for txt / file / jsonl / csv records and the output side of a run.

A *record* is what gets one random stream: a line of a text file (format ``txt``), a whole file
(format ``file``: a note, a letter, a caption file), a JSON line, a CSV row. Only
the named fields of JSONL and CSV records change; every other field, the order and the number of
records are kept. Readers raise :class:`InputError` naming the file and the line, and never
quote the input: a headerless CSV's "header" is a data row, a JSON key may be a name.

Outputs go through :class:`embedanon._atomic.AtomicBatch` (see :func:`output_batch`), which
states the rules for temp files, special files, symbolic links and modes.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import math
import os
import re
import stat
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal, cast

from ._atomic import AtomicBatch, OutputError, is_stream, regular_target
from ._english import counted
from .compressed import decompressing, sniff, strip_suffix
from .errors import ConfigError, InputError

Format = Literal["txt", "file", "jsonl", "csv", "tsv", "parquet"]
#: ``tsv`` is CSV with a TAB delimiter: the name a ``.tsv`` file gets, and what ``--format tsv``
#: says of standard input or of a file under any name (decision 0365).
FORMATS: tuple[str, ...] = ("txt", "file", "jsonl", "csv", "tsv", "parquet")
#: extensions whose files are one record each, read as ``file`` (decision 0195): a caption
#: file's cues are one conversation (WebVTT from Zoom or Teams, SubRip)
WHOLE_FILE_SUFFIXES: tuple[str, ...] = (".vtt", ".srt")
#: what a data file's extension (after any compression suffix) says the file holds: the formats
#: embedanon reads and writes, a caption file being plain text
NAMED_AS: dict[str, str] = {
    ".jsonl": "JSON Lines", ".ndjson": "JSON Lines", ".csv": "comma-separated CSV",
    ".tsv": "tab-separated CSV", ".parquet": "Parquet", ".pq": "Parquet", ".txt": "plain text",
    **dict.fromkeys(WHOLE_FILE_SUFFIXES, "plain text"),
}  # fmt: skip
#: the extensions a data file has: those of :data:`NAMED_AS` and ``.json`` (no format of
#: embedanon's, but what a file of JSON is called); an HTML page or a directory never ends so
DATA_SUFFIXES = frozenset({*NAMED_AS, ".json"})
#: the formats whose records have named fields (``--field``)
FIELD_FORMATS: tuple[str, ...] = ("jsonl", "csv", "tsv", "parquet")
ENCODING_ERRORS = ("strict", "replace")
_CSV_FIELD_LIMIT = 1 << 30
#: How much of a text input is inspected to tell whether it is really JSON Lines.
_SNIFF_BYTES, _SNIFF_LINES = 64 * 1024, 200
_SURROGATE = re.compile("[\ud800-\udfff]")


def check_encoding_errors(encoding_errors: str) -> None:
    """Refuse an ``encoding_errors`` outside :data:`ENCODING_ERRORS` in one line (any other Python
    error handler would run: ``ignore`` drops bytes silently, ``surrogateescape`` ends in a
    traceback at the first write, a typo in a ``LookupError`` at the first invalid byte)."""
    if encoding_errors not in ENCODING_ERRORS:
        raise ConfigError(f"encoding errors must be one of {', '.join(ENCODING_ERRORS)}, "
                          f"got {encoding_errors!r}")


def detect_format(path: str, explicit: str | None = None) -> Format:
    """``explicit`` if given, else from the extension after any compression suffix
    (``.jsonl``/``.ndjson``, ``.csv``, ``.tsv``, ``.parquet``/``.pq``; ``notes.csv.gz`` is CSV;
    ``.vtt`` and ``.srt`` are ``file``, one record each), else from the content: a Parquet file is
    Parquet whatever its name; anything else is text, one record per line."""
    if explicit is not None:
        if explicit not in FORMATS:
            raise ConfigError(f"format must be one of {', '.join(FORMATS)}, got {explicit!r}")
        return explicit  # type: ignore[return-value]
    suffix = Path(strip_suffix(path)).suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if suffix in (".csv", ".tsv"):
        return suffix[1:]  # type: ignore[return-value]
    if suffix in (".parquet", ".pq"):
        return "parquet"
    if suffix in WHOLE_FILE_SUFFIXES:
        return "file"
    if path != "" and path != "-" and _starts_like_parquet(path):
        return "parquet"
    return "txt"


def csv_delimiter(path: str, form: str = "csv") -> str:
    """The delimiter of a CSV input read as ``form``: a tab for ``tsv`` (``--format tsv``, or the
    ``.tsv`` name it was chosen from) and for a ``.tsv`` name (after any compression suffix:
    ``notes.tsv.gz`` too), a comma otherwise."""
    return "\t" if form == "tsv" or strip_suffix(path).lower().endswith(".tsv") else ","


def _starts_like_parquet(path: str) -> bool:
    """Whether a regular file starts with Parquet's magic and is not text (never opens a FIFO)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as fh:
            head = fh.read(_BINARY_PEEK)
    except OSError:
        return False
    return head.startswith(b"PAR1") and not _looks_like_text(head)


def format_of_field_input(path: str, form: str, explicit: str | None, fields: Sequence[str] = ()) -> None:
    """Refuse ``--field`` for an input read as txt, saying why it is read so (the message used
    to call a Parquet file txt), and a field named twice: it was anonymized twice over, and the
    run report counted its words and its epsilon twice."""
    seen: set[str] = set()
    for name in fields:
        if name in seen:
            raise ConfigError(f"--field {name!r} is given twice; name each field once")
        seen.add(name)
    if form in FIELD_FORMATS:
        return
    shown = "<stdin>" if path == "-" else path
    why = (f"--format {form}" if explicit is not None else
           "standard input without --format" if path == "-" else
           f"a {Path(strip_suffix(path)).suffix.lower()} file is one record" if form == "file" else
           "its name has no .jsonl, .csv, .tsv or .parquet extension")
    kind = "one text" if form == "file" else "plain text"
    raise ConfigError(f"--field applies to {', '.join(FIELD_FORMATS)} input; {shown} is read as {kind} "
                      f"({why}); give --format jsonl, csv, tsv or parquet")


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
    blank: bool = False  # a blank JSONL or CSV line: written back as it is, not counted as a record


def open_input(path: str) -> IO[bytes]:
    """Binary stream of ``path`` (``-``: standard input, which is not closed by ``with``),
    decompressed when it starts like gzip, bzip2, xz or zstd data (:mod:`embedanon.compressed`)."""
    raw = _open_raw(path)
    peek = getattr(raw, "peek", None)
    kind = sniff(peek(8)[:8]) if callable(peek) else None
    if kind is None:
        return raw
    try:
        return decompressing(raw, kind, "<stdin>" if path == "-" else path)
    except BaseException:
        raw.close()
        raise


def _open_raw(path: str) -> IO[bytes]:
    if path == "-":
        if sys.stdin is None:
            raise InputError("standard input is closed")
        return cast(IO[bytes], _Unclosed(sys.stdin.buffer))
    if path == "":
        raise InputError("input path is empty; use '-' for standard input")
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise InputError(f"input not found: {path}") from None
    except IsADirectoryError:
        raise InputError(f"input is a directory: {path}") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None


def check_input(path: str) -> None:
    """Fail now, as :func:`open_input` would, when ``path`` cannot be read; without opening a
    FIFO or a device, since opening a named pipe takes its writer (whose data would be lost when
    the check closes it) and the run's own open would then wait forever."""
    if path == "-":
        return
    try:
        st = os.stat(path)
    except OSError:
        open_input(path).close()  # raises the one-line error
        return
    if stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode):
        open_input(path).close()
    elif not os.access(path, os.R_OK):
        raise InputError(f"cannot read {path}: Permission denied")


_EXPORT = "export its text to JSONL, CSV or plain text first"
#: the first bytes of binary data containers, what each is, and what to do instead
_CONTAINERS = (
    (b"PK\x03\x04", "a zip archive", "extract it first (gzip, bzip2, xz and zstd files are read "
     "as they are)"),
    (b"PAR1", "a Parquet file", "use --format parquet (or name it .parquet); a compressed Parquet "
     "file must be decompressed first"),
    (b"ARROW1", "an Arrow IPC (Feather) file", "convert it to JSONL or CSV first"),
    (b"Obj\x01", "an Avro file", "convert it to JSONL or CSV first"),
    (b"SQLite format 3\x00", "an SQLite database", _EXPORT),
    (b"\x89HDF\r\n\x1a\n", "an HDF5 file", _EXPORT),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an OLE2 document (legacy Excel or Word)", _EXPORT),
    (b"%PDF-", "a PDF document", _EXPORT),
    (b"\x93NUMPY", "a NumPy array file", _EXPORT),
)
#: how much of an input's start is inspected for the signs of a binary container
_BINARY_PEEK = 4096
#: C0 controls (and DEL) that text does not hold; tab, line breaks, form feed and escape excepted
_CONTROL = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")


def refuse_binary(fh: IO[bytes], path: str) -> None:
    """Refuse an input read as text (after :func:`open_input` decompressed it) that starts like
    compressed data again, or like an archive or binary data container (zip, Parquet, Arrow,
    Avro, SQLite, HDF5, legacy Office, PDF, NumPy): read as text it fails as invalid UTF-8, and
    ``--encoding-errors replace`` would anonymize its bytes. UTF-16 and UTF-32 text is refused
    too (see :func:`_wide_text`): with ``replace`` its words, cut by zero bytes, were released
    unchanged in a detected or hybrid scope.

    A container's signature alone is not enough (a note may start with ``PAR1``): its first
    bytes (up to 4 KiB) must also not be text, holding a control character or invalid UTF-8.
    """
    peek = getattr(fh, "peek", None)
    if peek is None:  # standard input: not looked at in advance
        return
    path = "<stdin>" if path == "-" else path  # as every other message names it
    head = peek(_BINARY_PEEK)[:_BINARY_PEEK]
    inner = sniff(head)  # open_input decompressed one layer: this is a second one
    if inner is not None:
        raise InputError(f"input {path} holds {inner}-compressed data inside its compression; "
                         "decompress it first")
    for magic, what, advice in _CONTAINERS:
        if head.startswith(magic) and not _looks_like_text(head):
            raise InputError(f"input {path} is {what}, not text; {advice}")
    wide = _wide_text(head)
    if wide is not None:  # read as UTF-8, "J\0o\0h\0n" is no word any detector finds
        name, why = wide
        raise InputError(f"input {path} is {name} text, not UTF-8 ({why}); convert it first "
                         f"(iconv -f {name} -t UTF-8)")


#: byte-order marks of the wide Unicode encodings (UTF-32 first: its LE mark starts like UTF-16's)
_WIDE_MARKS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
               (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))


def _wide_text(head: bytes) -> tuple[str, str] | None:
    """``(encoding, why)`` when ``head`` is UTF-16 or UTF-32 text: it starts with that encoding's
    byte-order mark, or (UTF-16 without a mark) zero bytes fill at least 40 % of the odd or of the
    even positions and at most 5 % of the others, as mostly-ASCII UTF-16 does. A few zero bytes in
    UTF-8 text are read as they are."""
    for mark, name in _WIDE_MARKS:
        if head.startswith(mark):
            return name, f"it starts with a {name} byte-order mark"
    if len(head) < 8:
        return None
    even, odd = head[0::2], head[1::2]
    low, high = sorted((even.count(0) / len(even), odd.count(0) / len(odd)))
    if high >= 0.4 and low <= 0.05:
        return "UTF-16", "every other byte is zero"
    return None


def _looks_like_text(head: bytes) -> bool:
    """No control character and valid UTF-8 (a character cut by the end of ``head`` is fine)."""
    if _CONTROL.search(head):
        return False
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        return False
    return True


class _Unclosed(io.BufferedIOBase):
    """Standard input seen through a ``with`` block that must not close it."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        return self._raw.read(-1 if size is None else size)

    def read1(self, size: int = -1) -> bytes:
        read1 = getattr(self._raw, "read1", None)
        return read1(size) if callable(read1) else self._raw.read(size)

    def readline(self, size: int | None = -1) -> bytes:
        return self._raw.readline(-1 if size is None else size)

    def peek(self, size: int = 0) -> bytes:
        peek = getattr(self._raw, "peek", None)
        return peek(size) if callable(peek) else b""

    def fileno(self) -> int:
        return self._raw.fileno()

    def close(self) -> None:  # leave standard input open
        pass


def _read_error(path: str, exc: OSError) -> InputError:
    return InputError(f"cannot read {path}: {exc.strerror or type(exc).__name__}")


def _not_utf8(path: str, line_no: int, byte: int) -> InputError:
    """The error for line ``line_no`` of ``path``, invalid UTF-8 at its ``byte`` (from 1)."""
    return InputError(f"{path}: line {line_no} is not valid UTF-8 (byte {byte}); "
                      "use --encoding-errors replace to substitute U+FFFD")


def _decode(raw: bytes, path: str, line_no: int, errors: str) -> str:
    try:
        return raw.decode("utf-8", errors=errors)
    except UnicodeDecodeError as exc:
        raise _not_utf8(path, line_no, exc.start + 1) from None


def read_txt(fh: IO[bytes], path: str, errors: str, *, sniff: bool = True) -> Iterator[Record]:
    """One record per line; the line ending stays outside the anonymized text. LF, CRLF and a
    carriage return alone (old Mac files) each end a line, as for CSV (decision 0631): read by
    LF alone, a CR-only file was one record.

    A UTF-8 byte-order mark at the start of the file is no part of record 1's text (it would
    change that record's output, which is a function of its text); :func:`write_txt` puts it back
    at the start of the output, as the JSONL and CSV writers keep theirs.

    Args:
        sniff: refuse input that looks like JSON Lines (its first lines, up to 64 KiB, are all
            JSON objects): read as text, keys and all would be anonymized. Pass ``False`` when the
            user asked for txt explicitly (``--format txt``).
    """
    try:
        lines: Iterator[bytes] = _bare_cr_lines(iter(fh))
        if sniff:
            head = _head_lines(lines)
            if _looks_like_jsonl(head):
                raise InputError(
                    f"{path} looks like JSON Lines, not text (its lines are JSON objects); use "
                    "--format jsonl --field NAME, or --format txt to anonymize it as plain text")
            lines = _chain(head, lines)
        for line_no, raw in enumerate(lines, 1):
            line = _decode(raw, path, line_no, errors)
            bom = "\ufeff" if line_no == 1 and line.startswith("\ufeff") else ""
            body = line[len(bom):].rstrip("\r\n")
            yield Record((body,), len(raw), (bom, line[len(bom) + len(body):]))
    except OSError as exc:
        raise _read_error(path, exc) from None


#: where a carriage return that is not part of CRLF ends a line
_BARE_CR_BYTES = re.compile(rb"(?<=\r)(?!\n)")


def _bare_cr_lines(lines: Iterator[bytes]) -> Iterator[bytes]:
    """``lines`` (split at LF, endings kept) split at each bare CR too, endings kept."""
    for raw in lines:
        if raw.count(b"\r") > raw.endswith(b"\r\n"):  # a CR besides a CRLF's
            yield from (piece for piece in _BARE_CR_BYTES.split(raw) if piece)
        else:
            yield raw


def _head_lines(lines: Iterator[bytes]) -> list[bytes]:
    head: list[bytes] = []
    size = 0
    for raw in lines:
        head.append(raw)
        size += len(raw)
        if size >= _SNIFF_BYTES or len(head) >= _SNIFF_LINES:
            break
    return head


def _chain(head: list[Any], rest: Iterator[Any]) -> Iterator[Any]:
    yield from head
    yield from rest


def _looks_like_jsonl(head: list[bytes]) -> bool:
    """Every non-blank line starts with ``{`` and ends with ``}``, and the first is a JSON object."""
    bodies = [raw.strip() for raw in head]
    bodies = [b for b in bodies if b]
    if not bodies:
        return False
    bodies[0] = bodies[0].removeprefix(b"\xef\xbb\xbf")
    if not all(b.startswith(b"{") and b.endswith(b"}") for b in bodies):
        return False
    try:
        return isinstance(json.loads(bodies[0]), dict)
    except (ValueError, RecursionError):
        return False


def write_txt(record: Record, results: tuple[str, ...]) -> str:
    bom, ending = record.payload
    return bom + results[0] + ending


def read_file(fh: IO[bytes], path: str, errors: str) -> Iterator[Record]:
    """The whole input as one record (format ``file``, decision 0195): a note, a letter, a caption
    file (``.vtt``, ``.srt``), whose lines are one text, so a name found on one line is the same
    person on the others. Its line endings are part of the text and come back as they were; a
    UTF-8 byte-order mark stays outside it, as for txt. An empty input has no record. The whole
    file is held in memory."""
    try:
        raw = fh.read()
    except OSError as exc:
        raise _read_error(path, exc) from None
    if not raw:
        return
    try:
        text = raw.decode("utf-8", errors=errors)
    except UnicodeDecodeError as exc:
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        raise _not_utf8(path, raw.count(b"\n", 0, exc.start) + 1, exc.start - line_start + 1) from None
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    yield Record((text[len(bom):],), len(raw), bom)


def write_file(record: Record, results: tuple[str, ...]) -> str:
    return record.payload + results[0]


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return obj


class _NotFinite(ValueError):
    """A JSON number that is not finite: NaN/Infinity literals, or a float that overflows."""


def _finite_float(literal: str) -> float:
    value = float(literal)
    if value in (math.inf, -math.inf):  # 1e309: json.dumps would write Infinity, not JSON
        raise _NotFinite
    return value


def _no_constant(literal: str) -> Any:  # NaN, Infinity, -Infinity: Python's extension to JSON
    raise _NotFinite


_DECODER = json.JSONDecoder(object_pairs_hook=_unique_pairs, parse_float=_finite_float,
                            parse_constant=_no_constant)


def _json_type(value: Any) -> str:
    """JSON's name for the type of a parsed value (bool before int: a bool is an int)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def parse_json_line(body: str, where: str, fields: tuple[str, ...] | list[str] = ()) -> Any:
    """One line of JSONL, parsed strictly; :class:`InputError` naming ``where`` (never the text).

    Strict: a repeated key in any object (``json.loads`` keeps the last one silently), NaN,
    Infinity and numbers beyond the double range are refused. The one JSONL parser of inputs
    (``anonymize`` and the span files of ``evaluate-detection`` and ``detector train``).

    Args:
        body: the line.
        where: how errors name the line (``"spans.jsonl: line 3"``).
        fields: names whose repetition gets its own message (the fields to anonymize).
    """
    try:
        return _DECODER.decode(body)
    except _DuplicateKey as exc:
        if exc.key in fields:
            raise InputError(
                f"{where}: field {exc.key!r} appears twice in one object "
                "(ambiguous; only one would be anonymized)") from None
        raise InputError(f"{where} has a JSON object with a repeated key "
                         "(it would be collapsed)") from None
    except _NotFinite:
        raise InputError(f"{where}: a number is not finite JSON (NaN, Infinity, "
                         "or beyond the double range)") from None
    except json.JSONDecodeError as exc:
        # where in the line (a character count, never the text): a hand-corrected span file's
        # stray comma is otherwise hard to find in a line of several thousand characters
        raise InputError(f"{where} is not valid JSON: {exc.msg} (at character {exc.pos + 1})") from None
    except RecursionError:
        raise InputError(f"{where} is JSON nested too deeply") from None
    except ValueError:  # e.g. an integer of more than 4300 digits
        raise InputError(f"{where} is not valid JSON: a number is too long") from None


def read_jsonl(fh: IO[bytes], path: str, errors: str, fields: list[str]) -> Iterator[Record]:
    """One record per JSON object line; blank lines are kept as they are.

    A named field must be a string or ``null`` and appear once; a repeated key anywhere is
    refused (it would collapse), and so is a number that is not finite (``NaN``, ``Infinity``, or
    a float such as ``1e309`` that overflows; none is JSON). Everything but the named fields'
    values is written back as read (:func:`write_jsonl`; decision 0378). A named field holding an
    unpaired surrogate escape (``"\\ud800"``) is refused, or, with ``errors="replace"``, has each
    one replaced by U+FFFD; elsewhere such escapes are written back as escapes, unchanged.
    """
    try:
        for line_no, raw in enumerate(fh, 1):
            line = _decode(raw, path, line_no, errors)
            body = line.rstrip("\r\n")
            ending = line[len(body):]
            if not body.strip():
                yield Record((), len(raw), (None, line), blank=True)
                continue
            bom = "\ufeff" if line_no == 1 and body.startswith("\ufeff") else ""
            if bom:  # a byte-order mark is kept in the output but is not JSON
                body = body[1:]
            obj, spans = _object_and_spans(body, f"{path}: line {line_no}", fields)
            if not isinstance(obj, dict):
                raise InputError(f"{path}: line {line_no} is a JSON {_json_type(obj)}, not an object")
            texts = []
            for name in fields:
                if name not in obj:
                    raise InputError(f"{path}: line {line_no} has no field {name!r}")
                value = obj[name]
                if value is not None and not isinstance(value, str):
                    raise InputError(
                        f"{path}: line {line_no}: field {name!r} is a JSON {_json_type(value)}, not a string"
                    )
                if value and _SURROGATE.search(value):
                    if errors != "replace":
                        raise InputError(
                            f"{path}: line {line_no}: field {name!r} has an unpaired surrogate escape "
                            "(\\ud800-\\udfff); use --encoding-errors replace to substitute U+FFFD")
                    value = _SURROGATE.sub("\ufffd", value)
                texts.append(value or "")
            places = tuple(None if obj[name] is None else spans[name] for name in fields)
            yield Record(tuple(texts), len(raw), (body, places, ending, bom))
    except OSError as exc:
        raise _read_error(path, exc) from None


_JSON_SPACE = re.compile(r"[ \t\n\r]*")


def _object_and_spans(body: str, where: str, fields: list[str]) -> tuple[Any, dict[str, tuple[int, int]]]:
    """``body`` parsed as :func:`parse_json_line` parses it, and, when it is an object, where the
    value of each of ``fields`` is written in it ({name: (start, end)}; see :func:`_field_spans`),
    in one pass: each top-level key and value is decoded once, at its place, by the strict
    decoder (its hooks refuse repeated keys and numbers that are not finite inside the values;
    the top-level keys are checked here with the same hook). ``parse_json_line`` followed by
    ``_field_spans`` decoded every value twice.

    Anything this walk does not accept (not an object, invalid JSON, a repeated key, a value
    nested too deeply) is handed to :func:`parse_json_line`, which raises its one message, so
    the errors are those of the plain path; ``_field_spans`` is that path's reference.
    """
    at = _after_space(body, 0)
    if body[at:at + 1] != "{":  # an array, a string, a number ... or invalid: the plain parse says
        return parse_json_line(body, where, fields), {}
    wanted = set(fields)
    pairs: list[tuple[str, Any]] = []
    spans: dict[str, tuple[int, int]] = {}
    try:
        at = _after_space(body, at + 1)  # after '{'
        while body[at] != "}":
            if body[at] != '"':  # raw_decode would take a number or a literal as a key
                raise ValueError
            key, at = _DECODER.raw_decode(body, at)
            at = _after_space(body, at)
            if body[at] != ":":
                raise ValueError
            start = _after_space(body, at + 1)
            value, at = _DECODER.raw_decode(body, start)
            pairs.append((key, value))
            if key in wanted:
                spans[key] = (start, at)
            at = _after_space(body, at)
            if body[at] == ",":
                at = _after_space(body, at + 1)
                if body[at] != '"':  # a trailing comma
                    raise ValueError
            elif body[at] != "}":
                raise ValueError
        if _after_space(body, at + 1) != len(body):  # extra data after the object
            raise ValueError
        return _unique_pairs(pairs), spans
    except (ValueError, IndexError, RecursionError):  # JSONDecodeError, _DuplicateKey, _NotFinite too
        obj = parse_json_line(body, where, fields)  # raises the plain path's message
        return obj, _field_spans(body, fields)  # not reached unless this walk is stricter than JSON


def _field_spans(body: str, fields: Sequence[str]) -> dict[str, tuple[int, int]]:
    """Where the value of each of ``fields`` is written in ``body``, a JSON object that
    :func:`parse_json_line` has accepted: {name: (start, end)} of its text, so the writer replaces
    those values and copies every other byte of the line as it was (``1e5`` stays ``1e5``).

    The plain reference of :func:`_object_and_spans`, which finds the same places while it
    parses (it decodes every value a second time)."""
    wanted = set(fields)
    spans: dict[str, tuple[int, int]] = {}
    at = _after_space(body, _after_space(body, 0) + 1)  # after '{'
    while body[at] != "}":
        key, at = _DECODER.raw_decode(body, at)
        at = _after_space(body, _after_space(body, at) + 1)  # after ':'
        _, end = _DECODER.raw_decode(body, at)
        if key in wanted:
            spans[key] = (at, end)
        at = _after_space(body, end)
        if body[at] == ",":
            at = _after_space(body, at + 1)
    return spans


def _after_space(body: str, at: int) -> int:
    """The index of the first character at or after ``at`` that is not JSON whitespace."""
    space = _JSON_SPACE.match(body, at)
    return space.end() if space is not None else at


def _escape_surrogates(text: str) -> str:
    """JSON text with unpaired surrogates (only possible inside strings) written as escapes."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def write_jsonl(record: Record, results: tuple[str, ...]) -> str:
    """The record's line with each anonymized field's value replaced (written by ``json.dumps``)
    and every other byte as read: untouched fields keep their spelling (``1e5``, ``2.50``,
    ``\u00e9``), spacing and key order; a ``null`` field stays ``null``."""
    if record.payload[0] is None:
        return str(record.payload[1])  # a blank line, kept verbatim
    body, places, ending, bom = record.payload
    values = {place: value for place, value in zip(places, results, strict=True) if place is not None}
    pieces, done = [], 0
    for (start, end), value in sorted(values.items()):
        text = json.dumps(value, ensure_ascii=False)
        pieces += [body[done:start], _escape_surrogates(text) if _SURROGATE.search(text) else text]
        done = end
    return bom + "".join(pieces) + body[done:] + ending


#: whole cells that tables write for a missing value (pandas' default ``na_values`` less the empty
#: cell; R writes ``NA``, SQL exports ``NULL``): a CSV or TSV text cell that is one of them is read
#: as an empty text and written back as it was (decision 0254); in scope all ``NA`` had become
#: a word and pandas read 1 of 9 missing values back
MISSING_MARKERS = frozenset({
    "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
    "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
})  # fmt: skip


def read_csv(fh: IO[bytes], path: str, errors: str, fields: list[str],
             delimiter: str = ",") -> Iterator[Record]:
    """One record per row after the header row; the header is yielded first as a record.

    Every row has as many cells as the header: a row with more would release its extra cells
    unchanged (an unquoted delimiter inside a note pushes the rest of the note there), one with
    fewer may hold its text in another column; both are refused, naming the row, the line it
    starts on and the counts. A blank line (no cells) is kept as it is; a text cell that is one
    of the :data:`MISSING_MARKERS` is read as an empty text. Malformed quoting is
    refused (``strict``): a quoted field still open at the end of the file would swallow the rest
    of it, and text after a closing quote would lose the quote.
    """
    # Long notes exceed the csv module's default 128 KiB field limit.
    csv.field_size_limit(max(csv.field_size_limit(), _CSV_FIELD_LIMIT))
    lines = _csv_lines(fh, path, errors)
    row_no, start = 1, 1  # the row being read (the header is row 1) and the line it starts on
    try:
        # A byte-order mark is no part of the first column name: left in front of the csv
        # module, it made a quoted name ('\ufeff"text"') keep its quotes. Written back by CsvWriter.
        first = next(lines, "")
        bom = "\ufeff" if first.startswith("\ufeff") else ""
        # every row is written with the header row's ending, as read (a peek at a pipe that had
        # delivered part of the header made one input give LF or CRLF output)
        ending = "\r\n" if first.endswith("\r\n") else "\r" if first.endswith("\r") else "\n"
        head = [first[len(bom):]] if len(first) > len(bom) else []  # a mark alone: an empty file
        reader = csv.reader(_chain(head, lines), delimiter=delimiter, strict=True)
        try:
            header = next(reader)
        except StopIteration:
            raise InputError(f"{path}: empty CSV file (a header row is needed)") from None
        names = list(header)
        _check_columns(names, fields, path, delimiter)
        cols = [names.index(f) for f in fields]
        width = len(header)
        yield Record((), 0, ("header", header, bom, ending), header=True)
        while True:
            row_no, start = row_no + 1, reader.line_num + 1
            row = next(reader, None)
            if row is None:
                break
            if row and len(row) != width:
                raise InputError(_width_message(path, row_no, start, len(row), width, delimiter))
            if not row:  # a blank line: no text, no record (it was counted as one)
                yield Record((), 0, ("row", row, [], ending), blank=True)
                continue
            yield Record(tuple("" if row[c] in MISSING_MARKERS else row[c] for c in cols),
                         sum(map(len, row)) + len(row), ("row", row, cols, ending))
    except csv.Error as exc:
        if str(exc) == "unexpected end of data":  # strict: end of file inside a quoted field
            raise InputError(f"{path}: row {row_no} (line {start}) opens a quoted field that is "
                             "never closed (an unmatched quote?)") from None
        if "expected after" in str(exc):  # strict: '"ab"cd' would silently become 'abcd'
            raise InputError(f"{path}: row {row_no} (line {start}) has text after the closing quote "
                             "of a field (a quote inside a field must be doubled)") from None
        raise InputError(f"{path}: malformed CSV in row {row_no} (line {start}): {exc}") from None
    except OSError as exc:
        raise _read_error(path, exc) from None


#: a carriage return that ends a line on its own (old Mac line ends): csv reads it as one
_BARE_CR = re.compile(r"(?<=\r)(?!\n)")


def _csv_lines(fh: IO[bytes], path: str, errors: str) -> Iterator[str]:
    """The lines of a CSV file as ``open(..., newline="")`` gives them to the csv module (ends
    kept; ``\r\n``, ``\n`` and a bare ``\r`` each end a line), each decoded on its own so that
    invalid UTF-8 is reported on the line that holds it, counted as the csv module counts lines.

    Decoding line by line instead of through a text wrapper costs nothing measurable and names
    the right line: a wrapper decodes 8 KiB chunks ahead of the reader, so its error came up
    many lines before the reader got there (audit defect 17)."""
    line_no = 0
    for raw in fh:
        try:
            line = raw.decode("utf-8", errors=errors)
        except UnicodeDecodeError as exc:
            head = raw[: exc.start]
            within = head.count(b"\r") - head.count(b"\r\n")  # bare CRs before the bad byte
            column = exc.start - head.rfind(b"\r") if within else exc.start + 1
            raise InputError(
                f"{path}: CSV line {line_no + within + 1} is not valid UTF-8 (byte {column} "
                "of the line); use --encoding-errors replace to substitute U+FFFD") from None
        if "\r" in line[:-1]:
            pieces = [piece for piece in _BARE_CR.split(line) if piece]
            line_no += len(pieces)
            yield from pieces
        else:
            line_no += 1
            yield line


def _width_message(path: str, row_no: int, start: int, cells: int, width: int, delimiter: str) -> str:
    name = {",": "comma", "\t": "tab", ";": "semicolon"}.get(delimiter, "delimiter")
    hint = f"an unquoted {name}?" if cells > width else f"a missing {name} or a cut row?"
    return (f"{path}: row {row_no} (line {start}) has {counted(cells, 'cell')} "
            f"but the header has {width} ({hint})")


def _check_columns(names: list[str], fields: list[str], path: str, delimiter: str = ",") -> None:
    """Every named field is exactly one column of the header row. Messages count the columns
    and never list them: without a header row, the first row is data."""
    for name in fields:
        count = names.count(name)
        if count > 1:
            raise InputError(f"{path}: column {name!r} appears {count} times in the header row "
                             "(ambiguous; rename the duplicates)")
        if count == 0:
            hint = ("; it looks like JSON Lines: use --format jsonl"
                    if names and names[0].lstrip().startswith("{") else
                    _delimiter_hint(names, delimiter) or
                    "; the first row must be a header row naming the columns")
            raise InputError(f"{path}: no column {name!r} in the first row ({len(names)} "
                             f"column{'s' if len(names) != 1 else ''}){hint}")


#: what a one-column first row that holds another delimiter is, and what to do
_OTHER_DELIMITERS = {
    "\t": "tab-separated: name it .tsv or give --format tsv",
    ",": "comma-separated: name it .csv or give --format csv",
    ";": "semicolon-separated: anonymize reads comma- (.csv) and tab-separated (.tsv) files; "
         "save it with commas or tabs",
}


def _delimiter_hint(names: list[str], delimiter: str) -> str | None:
    """The hint for a first row read as one column that holds another delimiter (a semicolon
    export, a tab-separated file named .csv), naming the delimiter, never the row."""
    if len(names) != 1:
        return None
    for other, hint in _OTHER_DELIMITERS.items():
        if other != delimiter and other in names[0]:
            return f"; it looks {hint}"
    return None


class CsvWriter:
    """Serialises rows one at a time with the csv module (minimal quoting), ending lines the way
    the input's header row does (:func:`read_csv` puts its ending in each record; the
    ``lineterminator`` given here ends records that carry none).

    The csv module quotes a field only for the characters of *its* line terminator, so with
    ``"\n"`` a field holding a bare ``"\r"`` would be written unquoted and read back as two
    records. Rows are therefore always serialised with ``"\r\n"`` (every field with CR or LF is
    quoted) and that final terminator is swapped for the input's.
    """

    def __init__(self, delimiter: str = ",", lineterminator: str = "\r\n") -> None:
        self._buf = io.StringIO()
        self._writer = csv.writer(self._buf, delimiter=delimiter, lineterminator="\r\n")
        self._ending = lineterminator

    def __call__(self, record: Record, results: tuple[str, ...]) -> str:
        kind = record.payload[0]
        bom = ""
        if kind == "header":
            row, bom = record.payload[1], record.payload[2]
        else:
            row = list(record.payload[1])
            for c, value in zip(record.payload[2], results, strict=True):
                if c < len(row) and row[c] not in MISSING_MARKERS:  # a marker was read as ""
                    row[c] = value
        self._writer.writerow(row)
        out = self._buf.getvalue()
        self._buf.seek(0)
        self._buf.truncate()
        ending = record.payload[3] if len(record.payload) > 3 else self._ending
        return bom + out[:-2] + ending


def check_output(path: str | None) -> None:
    """Refuse an ``-o`` that can never be written, before any work: ``''``, a path ending in a
    separator that is not a directory (``-o newdir/``), or a file whose directory is missing or
    is a regular file. ``None``, ``-``, special files and existing directories pass (whether a
    directory is acceptable depends on the number of inputs)."""
    if path is None or path == "-":
        return
    if path and (is_stream(path) or os.path.isdir(path)):
        return
    try:
        regular_target(path)
    except OutputError as exc:
        raise InputError(str(exc)) from None


def output_batch() -> AtomicBatch:
    """A set of outputs that appear only when all of them succeeded.

    ``batch.open(target)`` returns a UTF-8 text stream for ``target``: a regular file (written to
    a temp file beside it, renamed at commit), a special file or standard output (``None``/``-``;
    spooled in memory up to 16 MiB and then in an unlinked temp file, copied at commit, so
    nothing reaches the terminal or pipe when a later record fails, at the cost of output
    arriving only at the end and of temporary disk space equal to the output size).
    Anonymized outputs are private: a new file is created with mode 0600.
    """
    return AtomicBatch()


@contextmanager
def atomic_output(path: str | None) -> Iterator[IO[str]]:
    """Text stream for ``path`` that appears only when the block succeeds (see
    :func:`output_batch`; ``None`` or ``-`` means standard output, spooled until the end)."""
    with output_batch() as batch:
        yield batch.open(path)
