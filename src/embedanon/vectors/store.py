"""EmbeddingStore: words and unit vectors, validated, saved and loaded in embedanon's fast form.

Files in foreign formats (word2vec, GloVe, fastText) are read by :mod:`.formats`. Vectors are
held as a float32, C-contiguous (V, d) array of unit rows, so inner product is cosine similarity
and ``2 - 2 * cos`` is the squared Euclidean distance.
"""

from __future__ import annotations

import hashlib
import io
import json
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

    def describe(self) -> str:
        """The policy in words for a message (``of at least 2 letters, letters only``), as a
        user set it (the shortest word, the candidate list), never the list's words."""
        parts = [f"of at least {self.min_length} letters"]
        if self.alphabetic:
            parts.append("letters only")
        if self.allowlist is not None:
            parts.append(f"among the {len(self.allowlist):,} words of the candidate list")
        return ", ".join(parts)

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


def memory_limit_bytes() -> int:
    """Largest array embedanon allocates for an embedding or a table: half the physical memory
    (4 GiB where it cannot be read)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")) // 2
    except (ValueError, OSError, AttributeError):
        return 4 * 2**30
