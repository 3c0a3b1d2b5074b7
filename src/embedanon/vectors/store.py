"""EmbeddingStore: words and unit vectors, loaded from any common format.

This is the only module that imports gensim (lazily: the default embedding loads without it).
Vectors are held as a float32, C-contiguous (V, d) array of unit rows, so inner product is cosine
similarity and ``2 - 2 * cos`` is the squared Euclidean distance.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._atomic import atomic_directory, open_regular
from .._english import counted
from .._validate import positive_int
from ..errors import ConfigError, EmbeddingError
from ..text import lookup_key

FORMATS = ("word2vec", "word2vec-binary", "glove", "fasttext-bin")
_SPACE = re.compile(r"\s")


#: rows per block of :func:`row_norms`
_NORM_BLOCK = 1024


def row_norms(vecs: np.ndarray) -> np.ndarray:
    """``np.linalg.norm(vecs, axis=1, keepdims=True)``, bit for bit, a block of rows at a time.

    The whole-table call makes two temporaries the size of the table; on this kind of machine
    their first-touch page faults cost 0.1-0.4 s of CPU per table at every start (the default
    embedding has two tables). Blocks of 1,024 rows reuse one small buffer; each row's norm is
    computed the same way (tested equal)."""
    out = np.empty((len(vecs), 1), dtype=np.result_type(vecs.dtype, np.float32))
    for i in range(0, len(vecs), _NORM_BLOCK):
        out[i : i + _NORM_BLOCK] = np.linalg.norm(vecs[i : i + _NORM_BLOCK], axis=1, keepdims=True)
    return out


def _unit(vecs: np.ndarray) -> np.ndarray:
    vecs = np.ascontiguousarray(vecs, dtype=np.float32)
    norms = row_norms(vecs)
    if np.all(np.abs(norms - 1.0) <= 1e-6):
        return vecs  # already unit: keep the exact bits (fingerprints stay stable)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(vecs / norms, dtype=np.float32)


def check_vectors(name: str, vecs: np.ndarray, what: str = "row", first: int = 0) -> None:
    """Refuse vectors no mechanism can use: non-finite values, all-zero rows, d < 2.

    Messages name the embedding and a row (or file line) number, never a word: an embedding file
    given by mistake may be someone's notes.

    Args:
        name: the embedding, for messages.
        vecs: float array, shape (V, d).
        what: ``"row"`` or ``"line"``, how positions are named in messages.
        first: number of the first row (1 for file lines after no header).

    Raises:
        EmbeddingError: on the first problem found.
    """
    if vecs.ndim != 2 or vecs.shape[1] < 2:
        d = vecs.shape[1] if vecs.ndim == 2 else vecs.ndim
        raise EmbeddingError(f"embedding {name!r} has dimension {d}; at least 2 is needed")
    if len(vecs) == 0:
        return
    with np.errstate(over="ignore", invalid="ignore"):  # inf + -inf, or finite rows that overflow
        sums = vecs.sum(axis=1)
    # a non-finite value makes its row's sum non-finite: only then is every value looked at
    bad = np.zeros(len(vecs), dtype=bool) if np.isfinite(sums).all() else ~np.isfinite(vecs).all(axis=1)
    if bad.any():
        raise EmbeddingError(
            f"embedding {name!r}: {counted(int(bad.sum()), 'vector')} "
            f"{'contains' if bad.sum() == 1 else 'contain'} NaN or infinite values "
            f"(first at {what} {int(np.argmax(bad)) + first})")
    zero = ~np.any(vecs != 0, axis=1)
    if zero.any():
        raise EmbeddingError(
            f"embedding {name!r}: {counted(int(zero.sum()), 'vector')} "
            f"{'is' if zero.sum() == 1 else 'are'} all zeros "
            f"(first at {what} {int(np.argmax(zero)) + first}); a zero vector has no direction")


def check_words(name: str, words: list[str], what: str = "words") -> None:
    """Refuse empty, whitespace-containing or repeated words (messages give row numbers only)."""
    for i, word in enumerate(words):
        if not isinstance(word, str) or not word or _SPACE.search(word):
            raise EmbeddingError(
                f"embedding {name!r}: {what[:-1]} #{i} is empty or contains whitespace")
    distinct = set(words)
    if len(distinct) != len(words):
        seen: set[str] = set()
        first = -1
        for i, word in enumerate(words):
            if word in seen:
                first = i
                break
            seen.add(word)
        raise EmbeddingError(
            f"embedding {name!r}: {len(words) - len(distinct)} {what} are repeated "
            f"(first repeat at row #{first})")


@dataclass(frozen=True, slots=True, repr=False)
class CandidatePolicy:
    """Which words of an embedding may be used as replacements (the public candidate vocabulary).

    Attributes:
        min_length: shortest candidate, in letters.
        alphabetic: only words made of letters (no digits, underscores, phrases).
        allowlist: optional set of lower-case words (e.g. a public frequency list); candidates must
            be in it.
    """

    min_length: int = 2
    alphabetic: bool = True
    allowlist: frozenset[str] | None = None

    def __post_init__(self) -> None:
        positive_int("min_length", self.min_length)

    def key(self) -> str:
        allow = "" if self.allowlist is None else hashlib.sha1(
            "\n".join(sorted(self.allowlist)).encode("utf-8", "surrogatepass")
        ).hexdigest()[:12]
        return f"m{self.min_length}-a{int(self.alphabetic)}-{allow or 'all'}"

    def __repr__(self) -> str:
        # Never the allowlist's words: a list of patient names given by mistake must not be echoed.
        allow = "None" if self.allowlist is None else f"<{len(self.allowlist)} words>"
        return (f"CandidatePolicy(min_length={self.min_length}, alphabetic={self.alphabetic}, "
                f"allowlist={allow})")

    __str__ = __repr__

    def accepts(self, word: str) -> bool:
        if len(word) < self.min_length:
            return False
        if self.alphabetic and not word.isalpha():
            return False
        return self.allowlist is None or word in self.allowlist


@dataclass(eq=False)
class EmbeddingStore:
    """Words and their unit vectors.

    Attributes:
        name: the embedding's name (``minilm-words``) or source path.
        words: lookup keys (lower case, accents stripped), unique, in file order.
        vectors: float32 array, shape (V, d), unit rows.
        pieces: continuation wordpieces (without ``##``) usable to compose vectors for
            out-of-vocabulary words, or empty.
        piece_vectors: float32 array, shape (P, d), unit rows (P may be 0).
    """

    name: str
    words: list[str]
    vectors: np.ndarray
    pieces: list[str] = field(default_factory=list)
    piece_vectors: np.ndarray | None = None
    source: str = ""
    _index: dict[str, int] = field(init=False, repr=False)
    _piece_index: dict[str, int] = field(init=False, repr=False)
    _longest: tuple[int, int] = field(init=False, default=(0, 0), repr=False)  # word, piece
    _fingerprint: str | None = field(init=False, default=None, repr=False)

    def __post_init__(self) -> None:
        if self.vectors.ndim != 2 or self.vectors.shape[0] != len(self.words):
            raise EmbeddingError(
                f"embedding {self.name!r}: {len(self.words)} words but vectors of shape "
                f"{self.vectors.shape}"
            )
        if len(self.words) == 0:
            raise EmbeddingError(f"embedding {self.name!r} has no words")
        check_vectors(self.name, self.vectors)
        check_words(self.name, self.words)
        self.vectors = _unit(self.vectors)
        self._index = {w: i for i, w in enumerate(self.words)}
        if self.piece_vectors is None:
            self.piece_vectors = np.zeros((0, self.dim), dtype=np.float32)
        if self.piece_vectors.ndim != 2 or self.piece_vectors.shape != (len(self.pieces), self.dim):
            raise EmbeddingError(
                f"embedding {self.name!r}: {len(self.pieces)} wordpieces but piece vectors of shape "
                f"{self.piece_vectors.shape}"
            )
        if self.pieces:
            check_vectors(self.name, self.piece_vectors)
            check_words(self.name, self.pieces, what="wordpieces")
        self.piece_vectors = _unit(self.piece_vectors)
        self._piece_index = {p: i for i, p in enumerate(self.pieces)}
        self._longest = (max(map(len, self.words)), max(map(len, self.pieces), default=0))

    # -- basic facts -------------------------------------------------------------------------
    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and lookup_key(word) in self._index

    def id_of(self, word: str) -> int:
        """Row of ``word`` (any case), or -1 when it is not in the embedding."""
        return self._index.get(lookup_key(word), -1)

    def id_of_key(self, key: str) -> int:
        """Row of a word already passed through :func:`~embedanon.text.lookup_key`, or -1."""
        return self._index.get(key, -1)

    def vector(self, word: str) -> np.ndarray:
        i = self.id_of(word)
        if i < 0:
            raise KeyError(word)
        return self.vectors[i]

    @property
    def fingerprint(self) -> str:
        """Content hash (sha256, 24 hex digits) of the words, vectors, wordpieces and piece
        vectors; computed once per store. Names every on-disk cache derived from the store."""
        if self._fingerprint is None:
            h = hashlib.sha256()
            for name, rows in (("words", self.words), ("pieces", self.pieces)):
                h.update(f"{name}\0{len(rows)}\0".encode())
                h.update("\n".join(rows).encode("utf-8", "surrogatepass"))
            assert self.piece_vectors is not None
            for array in (self.vectors, self.piece_vectors):
                h.update(f"\0{array.dtype.str}{array.shape}\0".encode())
                if array.size:  # memoryview cannot cast an empty (0, d) array
                    h.update(np.ascontiguousarray(array).data.cast("B"))
            self._fingerprint = h.hexdigest()[:24]
        return self._fingerprint

    def candidate_ids(self, policy: CandidatePolicy) -> np.ndarray:
        """int64 array of the ids of words that ``policy`` admits as replacements."""
        return np.fromiter(
            (i for i, w in enumerate(self.words) if policy.accepts(w)), dtype=np.int64
        )

    # -- out-of-vocabulary composition -------------------------------------------------------
    def wordpieces(self, word: str) -> list[tuple[bool, int]] | None:
        """Greedy longest-match WordPiece segmentation of ``word``'s key.

        Returns (is_continuation, row) pairs, rows into ``vectors`` for the first piece and into
        ``piece_vectors`` for continuations; ``None`` when the word cannot be segmented or the
        embedding has no wordpieces.
        """
        if not self.pieces:
            return None
        key = lookup_key(word)
        out: list[tuple[bool, int]] = []
        longest_word, longest_piece = self._longest
        start = 0
        while start < len(key):
            # no entry is longer than the longest one: O(len * longest), not O(len^2) lookups
            end = min(len(key), start + (longest_word if start == 0 else longest_piece))
            found = -1
            while end > start:
                sub = key[start:end]
                found = self._index.get(sub, -1) if start == 0 else self._piece_index.get(sub, -1)
                if found >= 0:
                    break
                end -= 1
            if found < 0:
                return None
            out.append((start > 0, found))
            start = end
        return out

    def compose(self, word: str) -> np.ndarray | None:
        """Unit float32 vector for an out-of-vocabulary word: the mean of its wordpiece rows, or None."""
        pieces = self.wordpieces(word)
        vec = self.compose_pieces(pieces) if pieces else None
        return None if vec is None else vec.astype(np.float32)

    def compose_pieces(self, pieces: list[tuple[bool, int]]) -> np.ndarray | None:
        """The one wordpiece composition: float64 unit mean of the rows of ``pieces`` (from
        :meth:`wordpieces`), or None when they sum to zero."""
        assert self.piece_vectors is not None
        total = np.zeros(self.dim, dtype=np.float64)
        for cont, r in pieces:
            total += self.piece_vectors[r] if cont else self.vectors[r]
        norm = float(np.sqrt(total @ total))
        return None if norm == 0 else total / norm

    # -- persistence -------------------------------------------------------------------------
    def save(self, directory: Path, *, extra: dict[str, str] | None = None, private: bool = False) -> None:
        """Write the fast-loading form (``vectors.npy``, ``words.txt``, ``meta.json``) atomically;
        ``extra`` entries go into ``meta.json`` too (a cache's HMAC). Modes follow the umask (a
        public artefact, see :mod:`embedanon._atomic`) unless ``private`` (owner only: a copy of
        a file others may not read, whose words may be private)."""
        with atomic_directory(directory, private=private) as tmp:
            np.save(tmp / "vectors.npy", self.vectors)
            (tmp / "words.txt").write_text("\n".join(self.words), encoding="utf-8")
            if self.pieces:
                assert self.piece_vectors is not None
                np.save(tmp / "pieces.npy", self.piece_vectors)
                (tmp / "pieces.txt").write_text("\n".join(self.pieces), encoding="utf-8")
            meta = {"name": self.name, "source": self.source, "words": len(self), "dim": self.dim,
                    "fingerprint": self.fingerprint, **(extra or {})}
            (tmp / "meta.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")

    @classmethod
    def load_saved(cls, directory: Path) -> EmbeddingStore:
        """Load the form written by :meth:`save`, validated like any embedding.

        Raises:
            EmbeddingError: a file is missing or damaged, or the content is not a valid
                embedding (the message never quotes its words).
        """
        return cls.load_saved_with_meta(directory)[0]

    @classmethod
    def load_saved_with_meta(cls, directory: Path) -> tuple[EmbeddingStore, dict[str, Any]]:
        """:meth:`load_saved`, and the directory's ``meta.json`` (e.g. a cache's HMAC). Only
        regular files are read (a link, FIFO or device there is damage, never waited on)."""
        directory = Path(directory)

        def read(name: str) -> bytes:
            with open_regular(directory / name) as fh:
                return fh.read()

        try:
            meta = json.loads(read("meta.json").decode("utf-8"))
            words = read("words.txt").decode("utf-8").split("\n")
            vectors = np.load(io.BytesIO(read("vectors.npy")), allow_pickle=False)
            pieces: list[str] = []
            piece_vectors = None
            if (directory / "pieces.txt").exists():
                pieces = read("pieces.txt").decode("utf-8").split("\n")
                piece_vectors = np.load(io.BytesIO(read("pieces.npy")), allow_pickle=False)
            name, source = str(meta["name"]), str(meta.get("source", ""))
        except (OSError, ValueError, KeyError, TypeError, EOFError) as exc:
            raise EmbeddingError(
                f"cannot read saved embedding {directory}: damaged or incomplete ({type(exc).__name__})"
            ) from None
        store = cls(name, words, vectors, pieces, piece_vectors, source)
        expected = meta.get("fingerprint")
        if expected is not None and expected != store.fingerprint:
            raise EmbeddingError(f"saved embedding {directory} does not match its fingerprint (modified?)")
        return store, meta


def read_allowlist(path: str | Path) -> frozenset[str]:
    """The lookup keys of a public word list (the first whitespace-separated field of each
    non-blank line).

    Raises:
        ConfigError: the file cannot be read, is not UTF-8 (the message names the line, never its
            content) or has no words.
    """
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read allowlist {path}: {exc.strerror or type(exc).__name__}") from None
    words = []
    for line_no, line in enumerate(raw.split(b"\n"), 1):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ConfigError(
                f"allowlist {path}: line {line_no} is not valid UTF-8 (byte {exc.start + 1})"
            ) from None
        fields = text.split()
        if fields:
            words.append(lookup_key(fields[0].lstrip("\ufeff") if line_no == 1 else fields[0]))
    if not words:
        raise ConfigError(f"allowlist {path} has no words")
    return frozenset(w for w in words if w)


# -- reading foreign formats through gensim ------------------------------------------------------
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
    if need > memory_limit_bytes():
        raise EmbeddingError(
            f"{path}: {rows} words x {dim} would need {need / 2**30:.1f} GiB, more than the "
            f"{memory_limit_bytes() / 2**30:.1f} GiB allowed (use --limit)")


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
            raise EmbeddingError(f"{path}: the file ends inside its fastText header (truncated)")
        size = struct.unpack("@3i", counts)[0]
        for entry in range(max(size, 0)):
            found = chunks.past(b"\0")
            if found is None:
                raise EmbeddingError(f"{path}: vocabulary entry {entry + 1} has no end within "
                                     f"{_SCAN_CHUNK} bytes (damaged or not a fastText .bin file)")
            if not found or not chunks.skip(9):
                raise EmbeddingError(
                    f"{path}: its vocabulary announces {size} words, but the file ends after {entry} "
                    "of them (truncated)")


def memory_limit_bytes() -> int:
    """Largest array embedanon allocates for an embedding or a table: half the physical memory
    (4 GiB where it cannot be read)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")) // 2
    except (ValueError, OSError, AttributeError):
        return 4 * 2**30


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
