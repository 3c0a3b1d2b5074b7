"""Embedding files in foreign formats: word2vec text and binary, GloVe text, fastText ``.bin``.

The only module that imports gensim (lazily: the default embedding loads without it). Every file
is checked before gensim reads it (headers, line and record counts, UTF-8, a cut fastText
vocabulary), because gensim drops or misreads what does not fit and quotes words in its messages.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np

from .._english import counted
from .._validate import positive_int
from ..errors import ConfigError, EmbeddingError
from ..text import lookup_key
from . import store as _store
from .store import _SPACE, EmbeddingStore, check_vectors

FORMATS = ("word2vec", "word2vec-binary", "glove", "fasttext-bin")

_FASTTEXT_MAGIC = 793712314


def detect_format(path: Path) -> str:
    """Guess the format of an embedding file from its name and first bytes."""
    suffix = path.suffix.lower()
    if suffix == ".gz":
        suffix = Path(path.stem).suffix.lower()
    with open(path, "rb") as fh:
        head = fh.read(4)
    if suffix == ".bin":
        if len(head) == 4 and int.from_bytes(head, "little", signed=True) == _FASTTEXT_MAGIC:
            return "fasttext-bin"
        return "word2vec-binary"
    return "word2vec" if _header(path) is not None else "glove"


#: the UTF-8 byte-order mark some editors (Notepad, PowerShell) write at the start of a text file
_BOM = b"\xef\xbb\xbf"


def _has_bom(path: Path) -> bool:
    import gzip

    opener = gzip.open if path.suffix.lower() == ".gz" else open
    with opener(path, "rb") as fh:  # type: ignore[operator]
        return bool(fh.read(len(_BOM)) == _BOM)


def _header(path: Path) -> tuple[int, int] | None:
    """``(count, dim)`` when the first line of ``path`` is a word2vec header, else ``None``."""
    import gzip

    opener = gzip.open if path.suffix.lower() == ".gz" else open
    with opener(path, "rb") as fh:  # type: ignore[operator]
        first = fh.readline(256).removeprefix(_BOM).split()
    if len(first) == 2 and all(part.isdigit() for part in first):
        return int(first[0]), int(first[1])
    return None


def _check_header(path: Path, fmt: str, limit: int | None) -> None:
    """Refuse a word2vec header that cannot be true for a file of this size (``10**12`` rows)
    or that would not fit in memory, before gensim allocates it."""
    if fmt not in ("word2vec", "word2vec-binary"):
        return
    if _has_bom(path):  # gensim reads the header's count as an integer, and '\ufeff3000000' is not
        raise EmbeddingError(f"{path} begins with a UTF-8 byte-order mark, which cannot stand before a "
                             "word2vec header: save the file as UTF-8 without it")
    header = _header(path)
    if header is None:
        raise EmbeddingError(f"{path} has no word2vec header line ('<words> <dimension>')")
    count, dim = header
    if count == 0 or dim == 0:
        raise EmbeddingError(f"{path}: its header announces {count} words of dimension {dim}")
    rows = count if limit is None else min(count, limit)
    # Smallest possible row: one letter, a space, and per value "0 " (text) or 4 bytes (binary).
    smallest = 2 + (4 * dim if fmt == "word2vec-binary" else 2 * dim)
    size = path.stat().st_size
    if path.suffix.lower() != ".gz" and rows * smallest > size:
        raise EmbeddingError(
            f"{path}: its header announces {count} words of dimension {dim}, more than a file of "
            f"{size} bytes can hold (truncated or not a word2vec file)")
    need = rows * dim * 4
    if need > _store.memory_limit_bytes():
        raise EmbeddingError(
            f"{path}: {rows} words x {dim} would need {need / 2**30:.1f} GiB, more than the "
            f"{_store.memory_limit_bytes() / 2**30:.1f} GiB allowed (use --limit)")


def _scan_text(path: Path, fmt: str, limit: int | None) -> int | None:
    """Check a text file line by line before gensim reads it, which would silently drop lines
    past the header's count and replace bytes that are not UTF-8, and refuses a damaged line or
    a blank one only as "damaged" (no line number).

    Decodes every line that will be read (the first ``limit`` under a limit) strictly, and counts
    its values (the fields after the word, separated by single spaces, as gensim splits them):
    the header's dimension in a word2vec file, the first line's count in a GloVe file. A word2vec
    header must announce exactly the lines that follow; blank lines may end a file but not stand
    between words. Under a ``limit`` smaller than or equal to the count, lines past the limit are
    not read, so not checked. Errors name line numbers only.

    Returns:
        For GloVe, the number of lines gensim must read (trailing blank lines left out, at most
        ``limit``); None for the other formats.
    """
    import gzip

    if fmt not in ("word2vec", "glove"):
        return None
    count = dim = None
    if fmt == "word2vec":
        header = _header(path)
        if header is None:  # refused by _check_header already
            return None
        count, dim = header
    rows = count if limit is None else limit if count is None else min(count, limit)
    check_tail = count is not None and (limit is None or limit > count)
    first = 2 if fmt == "word2vec" else 1
    read = 0
    blank = 0  # number of the first blank line not yet followed by a word
    opener = gzip.open if path.suffix.lower() == ".gz" else open
    with opener(path, "rb") as fh:  # type: ignore[operator]
        for line_no, line in enumerate(fh, start=1):
            if line_no < first:
                continue
            if rows is not None and read >= rows:
                if not check_tail:
                    break
                if line.strip():
                    raise EmbeddingError(
                        f"{path}: line {line_no} is past the {count} words its header announces "
                        "(a wrong header or appended lines)")
                continue
            try:
                line.decode("utf-8")
            except UnicodeDecodeError:
                raise EmbeddingError(f"{path}: line {line_no} is not valid UTF-8") from None
            body = line.rstrip()  # bytes, as gensim strips them before splitting at b" "
            if not body:
                blank = blank or line_no
                continue
            if blank:
                raise EmbeddingError(f"{path}: line {blank} is blank; an embedding file has one word "
                                     "and its vector on every line")
            values = body.count(b" ")
            if dim is None:
                dim = values
            elif values != dim:
                raise EmbeddingError(
                    f"{path}: line {line_no} has {values} values after its word, not "
                    f"{dim} ({'its header' if fmt == 'word2vec' else 'line 1'}): a damaged line, a "
                    "word with a space in it, or not an embedding file")
            read += 1
    if count is not None and rows is not None and read < rows:
        raise EmbeddingError(
            f"{path}: its header announces {count} words but {read} lines follow it")
    if fmt == "glove" and read == 0:
        raise EmbeddingError(f"embedding file {path} has no words")
    return read if fmt == "glove" else None


#: bytes read at a time by the binary scans; also the longest word they accept
_SCAN_CHUNK = 1 << 20


class _Chunks:
    """A binary file read a chunk at a time, walked forward by :func:`_scan_binary` and
    :func:`_scan_fasttext` without holding more than about two chunks."""

    def __init__(self, fh: Any) -> None:
        self.fh, self.buf, self.pos = fh, b"", 0

    def _more(self) -> bool:
        chunk = self.fh.read(_SCAN_CHUNK)
        self.buf, self.pos = self.buf[self.pos :] + chunk, 0
        return bool(chunk)

    def past(self, marker: bytes) -> bool | None:
        """Move past the next ``marker``: True; None when it is not within :data:`_SCAN_CHUNK`
        bytes; False when the file ends first."""
        found = self.buf.find(marker, self.pos)
        while found < 0:
            if len(self.buf) - self.pos > _SCAN_CHUNK:
                return None
            if not self._more():
                return False
            found = self.buf.find(marker, self.pos)
        self.pos = found + len(marker)
        return True

    def skip(self, n: int) -> bool:
        """Move ``n`` bytes forward; False when the file ends first."""
        while len(self.buf) - self.pos < n:
            if not self._more():
                return False
        self.pos += n
        return True

    def take(self, n: int) -> bytes | None:
        """The next ``n`` bytes, or None when the file ends first."""
        if not self.skip(n):
            return None
        return self.buf[self.pos - n : self.pos]

    def rest_is_blank(self) -> bool:
        """Whether nothing but white space follows (reads to the end)."""
        rest = self.buf[self.pos :]
        while rest:
            if rest.strip():
                return False
            rest = self.fh.read(_SCAN_CHUNK)
        return True


def _scan_binary(path: Path, limit: int | None) -> None:
    """Check that a word2vec binary file holds the records its header announces, before gensim
    reads it: gensim reads ``count`` records of ``dim`` float32 values and ignores what follows,
    so a header announcing fewer words dropped the others silently, and one announcing a smaller
    dimension read float bytes as words and imported garbage.

    A record is a word, a space and ``4 * dim`` bytes (a line end before the next word is part
    of it); after the announced records only white space may follow. Under a ``limit`` smaller
    than or equal to the count, records past the limit are not read, so not checked. Errors name
    record numbers only.
    """
    import gzip

    header = _header(path)
    if header is None:  # refused by _check_header already
        return
    count, dim = header
    rows = count if limit is None else min(count, limit)
    opener = gzip.open if path.suffix.lower() == ".gz" else open
    with opener(path, "rb") as fh:  # type: ignore[operator]
        fh.readline()
        chunks = _Chunks(fh)
        for row in range(rows):
            found = chunks.past(b" ")
            if found is None:
                raise EmbeddingError(f"{path}: word {row + 1} is not followed by a space within "
                                     f"{_SCAN_CHUNK} bytes (damaged or not a word2vec binary file)")
            if not found or not chunks.skip(4 * dim):
                raise EmbeddingError(
                    f"{path}: its header announces {count} words of dimension {dim}, but the file "
                    f"ends after {row} of them (truncated or a wrong header)")
        if (limit is None or limit > count) and not chunks.rest_is_blank():
            raise EmbeddingError(
                f"{path}: data follows the {count} words of dimension {dim} its header announces "
                "(a wrong header or appended data)")


#: fastText's model file: magic number and version (int32), then its arguments: 12 int32 and a
#: double (dim and ws first), or in the old format without magic and version, 10 and a double
_FASTTEXT_ARGS, _FASTTEXT_OLD_ARGS = 12 * 4 + 8, 10 * 4 + 8


def _scan_fasttext(path: Path) -> None:
    """Walk a fastText ``.bin`` file's vocabulary before gensim reads it: gensim reads each word
    a byte at a time until its end mark, and at the end of a file cut inside the vocabulary it
    reads nothing forever (a 200-byte cut of a model hung ``embeddings import``).

    The layout (fastText's ``Args::save`` and ``Dictionary::save``): the header, the vocabulary's
    size, word and label counts (3 int32), its token count (int64), in the new format the
    pruned-index size (int64), then each entry as its bytes, a 0 byte, a count (int64) and a
    type (int8). A file that ends before the last entry, or an entry without its end mark within
    :data:`_SCAN_CHUNK` bytes, is refused naming the entry; the matrices that follow are checked
    by gensim (a short matrix fails there).
    """
    import gzip
    import struct

    opener = gzip.open if path.suffix.lower() == ".gz" else open
    with opener(path, "rb") as fh:  # type: ignore[operator]
        chunks = _Chunks(fh)
        head = chunks.take(8)
        new_format = head is not None and struct.unpack("@i", head[:4])[0] == _FASTTEXT_MAGIC
        args = _FASTTEXT_ARGS if new_format else _FASTTEXT_OLD_ARGS
        counts = chunks.take(12) if head is not None and chunks.skip(args) else None
        if counts is None or not chunks.skip(16 if new_format else 8):
            raise EmbeddingError(f"{path}: the file ends inside its fastText header (truncated, or "
                                 "not a fastText .bin file)")
        size = struct.unpack("@3i", counts)[0]
        for entry in range(max(size, 0)):
            found = chunks.past(b"\0")
            if found is None:
                raise EmbeddingError(f"{path}: vocabulary entry {entry + 1} has no end within "
                                     f"{_SCAN_CHUNK} bytes (damaged or not a fastText .bin file)")
            if not found or not chunks.skip(9):
                raise EmbeddingError(
                    f"{path}: its vocabulary announces {size} words, but the file ends after {entry} "
                    "of them (truncated, or not a fastText .bin file)")


class _QuietGensim:
    """Silence gensim's logger while reading (its warnings quote words of the file) and numpy's
    floating-point warnings (a value past float32's range, ``1e39``, printed a RuntimeWarning and
    a line of gensim's source before the one-line error: check_vectors refuses the inf it makes)."""

    def __enter__(self) -> None:
        self._logger = logging.getLogger("gensim")
        self._level = self._logger.level
        self._logger.setLevel(logging.CRITICAL + 1)
        self._errstate = np.errstate(all="ignore")
        self._errstate.__enter__()

    def __exit__(self, *_: object) -> None:
        self._errstate.__exit__(None, None, None)
        self._logger.setLevel(self._level)


def read_vectors(path: str | Path, *, fmt: str | None = None, limit: int | None = None,
                 name: str | None = None) -> EmbeddingStore:
    """Read word2vec text/binary, GloVe text or fastText ``.vec``/``.bin`` through gensim.

    Words are keyed by ``lookup_key`` (lower case, accents stripped); when two words collide
    (``Apple``/``apple``) the first one in the file, usually the more frequent, is kept. A word
    listed twice exactly, a NaN, infinite or all-zero vector, a dimension below 2, an empty file or
    a header that lies about its size, its word count (lines or binary records past the count are
    not dropped silently) or, in a binary file, its dimension, or a word of a text file that is
    not valid UTF-8 (never replaced; in a binary file, where published vectors hold words cut
    inside a character, it is replaced) is refused with an :class:`EmbeddingError` that names
    line or record numbers only: the file may not be an embedding at all but someone's notes.
    """
    path = Path(path)
    if limit is not None:
        limit = positive_int("limit", limit)
    try:
        if not path.is_file():
            raise EmbeddingError(f"embedding file not found: {path}")
        if path.stat().st_size == 0:
            raise EmbeddingError(f"embedding file {path} is empty")
        with open(path, "rb") as fh:
            head = fh.read(2)
        if len(head) == 2 and head[0] == 0x80 and 2 <= head[1] <= 5:  # pickle protocols 2-5
            raise EmbeddingError(
                f"{path} is a Python pickle (a gensim model saved with .save()), which embedanon never "
                "loads, since loading a pickle can run code: save its vectors with "
                "model.wv.save_word2vec_format(FILE, binary=True) and import FILE")
        fmt = fmt or detect_format(path)
        if fmt not in FORMATS:
            raise ConfigError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
        _check_header(path, fmt, limit)
        lines = _scan_text(path, fmt, limit)
        if fmt == "word2vec-binary":
            _scan_binary(path, limit)
        elif fmt == "fasttext-bin":
            _scan_fasttext(path)
    except OSError as exc:
        raise EmbeddingError(f"cannot read {path}: {exc.strerror or type(exc).__name__}") from None
    try:
        from gensim.models import KeyedVectors
        from gensim.models.fasttext import load_facebook_vectors
    except ImportError as exc:  # an old gensim on a newer scipy: the file is not at fault
        raise EmbeddingError(f"cannot read {fmt} files: gensim does not import ({exc}); "
                             "pip install -U 'gensim>=4.4'") from None
    try:
        with _QuietGensim():
            if fmt == "fasttext-bin":
                kv = load_facebook_vectors(str(path))
            else:
                kv = KeyedVectors.load_word2vec_format(
                    str(path), binary=fmt == "word2vec-binary", no_header=fmt == "glove",
                    # text: every line was checked to be UTF-8; binary: published files (the
                    # GoogleNews vectors) hold words cut inside a character, replaced as before
                    limit=lines if fmt == "glove" else limit,
                    unicode_errors="replace" if fmt == "word2vec-binary" else "strict",
                )
    except MemoryError:
        raise EmbeddingError(f"cannot read {path} as {fmt}: it does not fit in memory") from None
    except UnicodeDecodeError:  # text files were checked first, with line numbers
        raise EmbeddingError(f"cannot read {path} as {fmt}: a word is not valid UTF-8") from None
    except Exception as exc:  # noqa: BLE001 - gensim's messages quote the file's text; never show them
        raise EmbeddingError(
            f"cannot read {path} as {fmt}: damaged, or not in this format ({type(exc).__name__})"
        ) from None
    keys = list(kv.index_to_key)
    if limit is not None:
        keys = keys[:limit]
    if any(key is None for key in keys):  # gensim leaves unnamed zero rows for repeated words
        twice = sum(key is None for key in keys)
        raise EmbeddingError(
            f"{path}: {counted(twice, 'word')} {'is' if twice == 1 else 'are'} listed twice; "
            "an embedding needs one vector per word")
    raw = np.asarray(kv.vectors[: len(keys)])
    if len(keys) == 0:
        raise EmbeddingError(f"embedding file {path} has no words")
    header_lines = 1 if fmt in ("word2vec", "word2vec-binary") else 0
    check_vectors(str(path), raw, what="line" if fmt != "fasttext-bin" else "row",
                  first=1 + header_lines if fmt != "fasttext-bin" else 0)
    seen: dict[str, int] = {}
    rows: list[int] = []
    if fmt == "glove" and keys:  # a byte-order mark is not part of the first word
        keys[0] = str(keys[0]).removeprefix("\ufeff")
    for i, key in enumerate(keys):
        word = lookup_key(str(key))
        if word and not _SPACE.search(word) and word not in seen:
            seen[word] = i
            rows.append(i)
    vectors = np.asarray(raw[rows], dtype=np.float32)
    return EmbeddingStore(name or path.name, list(seen), vectors, source=f"{fmt}:{path}")
