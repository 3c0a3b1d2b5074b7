"""Compressed inputs and outputs: gzip, bzip2, xz and zstd, read and written as streams.

An input is decompressed when its first bytes say it is compressed (whatever its name), so
``mtsamples.csv.gz`` and ``zcat notes.txt.gz | anonymize -`` both work; the format of the text
inside comes from the name without its compression suffix (``.csv.gz`` is CSV). An output is
compressed only when ``-o`` ends in a compression suffix; otherwise it is plain text.

gzip, bzip2 and xz come with Python; zstd needs the ``zstandard`` package (``pip install
'embedanon[zstd]'``), asked for only when a zstd file is met. Outputs are reproducible: a gzip
header carries no time and no file name, so the same release under the same key is the same
bytes.

Damaged or cut-short compressed data is one :class:`~embedanon.errors.InputError` naming the
input and the compression, never a traceback of the decompressor.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from ._atomic import OutputError, _Guarded
from .errors import InputError

#: first bytes of each compressed format
MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b", "gzip"), (b"\xfd7zXZ\x00", "xz"), (b"BZh", "bzip2"), (b"\x28\xb5\x2f\xfd", "zstd"))
#: the file-name suffixes of each format (an output named so is compressed)
SUFFIXES: dict[str, str] = {".gz": "gzip", ".gzip": "gzip", ".bz2": "bzip2", ".xz": "xz",
                            ".zst": "zstd", ".zstd": "zstd"}
_ZSTD_EXTRA = "pip install 'embedanon[zstd]' (the zstandard package)"


def sniff(head: bytes) -> str | None:
    """The compression ``head`` (an input's first bytes) starts with, or None."""
    for magic, name in MAGIC:
        if head.startswith(magic) and (name != "bzip2" or head[3:4] in b"123456789"):
            return name
    return None


def is_compressed(path: str) -> bool:
    """Whether the file ``path`` starts as a compressed one (False when it cannot be read: the
    run then says why)."""
    try:
        with open(path, "rb") as fh:
            return sniff(fh.read(8)) is not None
    except OSError:
        return False


def by_name(path: str | os.PathLike[str]) -> str | None:
    """The compression a file name asks for (``out.csv.gz``: gzip), or None."""
    return SUFFIXES.get(os.path.splitext(os.fspath(path))[1].lower())


def strip_suffix(path: str) -> str:
    """``path`` without its compression suffix (``notes.csv.gz`` -> ``notes.csv``)."""
    root, suffix = os.path.splitext(path)
    return root if suffix.lower() in SUFFIXES else path


class _Decompressed(io.RawIOBase):
    """A decompressing stream whose errors are one-line :class:`InputError`\\ s and whose
    position in the compressed file is known (progress on compressed inputs)."""

    def __init__(self, raw: IO[bytes], kind: str, shown: str) -> None:
        self._raw, self._kind, self._shown = raw, kind, shown
        self._inner = _open_reader(raw, kind, shown)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            data = self._inner.read(len(buffer))
        except OSError as exc:
            if exc.errno is not None:  # the file itself cannot be read (EIO ...): the caller says so
                raise
            raise self._damaged() from None  # BadGzipFile, bzip2's "Invalid data stream"
        except (EOFError, lzma.LZMAError, zlib.error):  # cut short, or damaged
            raise self._damaged() from None
        except Exception as exc:  # zstandard.ZstdError (the package may be absent: no name to catch)
            if type(exc).__name__ != "ZstdError":
                raise
            raise self._damaged() from None
        buffer[: len(data)] = data
        return len(data)

    def _damaged(self) -> InputError:
        return InputError(f"input {self._shown} is {self._kind}-compressed but its data is damaged or "
                          "cut short")

    def compressed_position(self) -> int:
        """Bytes of the compressed file read so far (0 when it cannot tell)."""
        try:
            return self._raw.tell()
        except (OSError, ValueError, AttributeError):
            return 0

    def close(self) -> None:
        if not self.closed:
            try:
                self._inner.close()
            finally:
                self._raw.close()
        super().close()


def _open_reader(raw: IO[bytes], kind: str, shown: str) -> Any:
    if kind == "gzip":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if kind == "bzip2":
        return bz2.BZ2File(raw, mode="rb")
    if kind == "xz":
        return lzma.LZMAFile(raw, mode="rb")
    try:
        import zstandard
    except ImportError:
        raise InputError(f"input {shown} is zstd-compressed; reading it needs {_ZSTD_EXTRA}") from None
    return _ZstdReader(raw, zstandard)


class _ZstdReader:
    """zstd frames one after another, decompressed; a frame cut short is an ``EOFError`` (the
    package's own stream reader ends quietly there, which would release part of a file)."""

    def __init__(self, raw: IO[bytes], zstandard: Any) -> None:
        self._raw, self._zstandard = raw, zstandard
        self._frame: Any = None
        self._ready = bytearray()

    def read(self, size: int) -> bytes:
        while len(self._ready) < size:
            chunk = self._raw.read(1 << 16)
            if not chunk:
                if self._frame is not None and not self._frame.eof:
                    raise EOFError("zstd frame cut short")
                break
            while chunk:
                if self._frame is None or self._frame.eof:
                    self._frame = self._zstandard.ZstdDecompressor().decompressobj()
                self._ready += self._frame.decompress(chunk)
                chunk = self._frame.unused_data if self._frame.eof else b""
        out = bytes(self._ready[:size])
        del self._ready[:size]
        return out

    def close(self) -> None:
        self._ready.clear()


def decompressing(raw: IO[bytes], kind: str, shown: str) -> IO[bytes]:
    """A buffered (``peek``-able, line-iterable) stream of the decompressed bytes of ``raw``;
    closing it closes ``raw``."""
    return io.BufferedReader(_Decompressed(raw, kind, shown), buffer_size=1 << 16)


def compressed_position(fh: IO[bytes]) -> int | None:
    """For a stream made by :func:`decompressing`: the compressed bytes read so far; None for
    any other stream (its own bytes are the progress)."""
    raw = getattr(fh, "raw", None)
    return raw.compressed_position() if isinstance(raw, _Decompressed) else None


class _Finishing(io.RawIOBase):
    """A compressing writer over ``raw`` that :meth:`finish` ends without closing ``raw``."""

    def __init__(self, raw: IO[bytes], kind: str) -> None:
        self._raw = raw
        # the writers live until finish(), beyond this call: no context managers (SIM115)
        if kind == "gzip":  # no time, no name in the header: the same input gives the same bytes
            self._inner: Any = gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0)
        elif kind == "bzip2":
            self._inner = bz2.BZ2File(raw, mode="wb")  # noqa: SIM115
        elif kind == "xz":
            self._inner = lzma.LZMAFile(raw, mode="wb")  # noqa: SIM115
        else:
            try:
                import zstandard
            except ImportError:
                raise InputError(f"writing a .zst output needs {_ZSTD_EXTRA}") from None
            self._inner = zstandard.ZstdCompressor().stream_writer(raw, closefd=False)

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self._inner.write(data)
        return len(data)

    def finish(self) -> None:
        """Write the compressed stream's end (``raw`` stays open: the atomic writer commits it)."""
        self._inner.close()


@contextmanager
def text_output(raw: IO[bytes], kind: str, shown: str) -> Iterator[IO[str]]:
    r"""A UTF-8 text stream (newlines as given) over the binary output ``raw``, compressed with
    ``kind``; write errors are one-line :class:`~embedanon._atomic.OutputError`\ s naming
    ``shown``. The compressed stream is ended when the block succeeds."""
    sink = _Finishing(raw, kind)
    text = io.TextIOWrapper(sink, encoding="utf-8", newline="", write_through=True)  # type: ignore[type-var]
    try:
        yield _Guarded(text, shown)  # type: ignore[misc]
        text.flush()
        try:
            sink.finish()
        except OSError as exc:
            raise OutputError(f"cannot write {shown}: {exc.strerror or type(exc).__name__}") from None
    finally:
        text.detach()
