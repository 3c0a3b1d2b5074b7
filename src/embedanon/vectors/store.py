"""EmbeddingStore: words and unit vectors, loaded from any common format.

This is the only module that imports gensim (lazily: the default embedding loads without it).
Vectors are held as a float32, C-contiguous (V, d) array of unit rows, so inner product is cosine
similarity and ``2 - 2 * cos`` is the squared Euclidean distance.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._validate import positive_int
from ..errors import ConfigError, EmbeddingError
from ..text import lookup_key

FORMATS = ("word2vec", "word2vec-binary", "glove", "fasttext-bin")


def _unit(vecs: np.ndarray) -> np.ndarray:
    vecs = np.ascontiguousarray(vecs, dtype=np.float32)
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    if np.all(np.abs(norms - 1.0) <= 1e-6):
        return vecs  # already unit: keep the exact bits (fingerprints stay stable)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(vecs / norms, dtype=np.float32)


@dataclass(frozen=True, slots=True)
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
            "\n".join(sorted(self.allowlist)).encode()
        ).hexdigest()[:12]
        return f"m{self.min_length}-a{int(self.alphabetic)}-{allow or 'all'}"

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
    _fingerprint: str | None = field(init=False, default=None, repr=False)

    def __post_init__(self) -> None:
        if self.vectors.ndim != 2 or self.vectors.shape[0] != len(self.words):
            raise EmbeddingError(
                f"embedding {self.name!r}: {len(self.words)} words but vectors of shape "
                f"{self.vectors.shape}"
            )
        if len(self.words) == 0:
            raise EmbeddingError(f"embedding {self.name!r} has no words")
        self.vectors = _unit(self.vectors)
        self._index = {w: i for i, w in enumerate(self.words)}
        if len(self._index) != len(self.words):
            raise EmbeddingError(f"embedding {self.name!r} has duplicate words")
        if self.piece_vectors is None:
            self.piece_vectors = np.zeros((0, self.dim), dtype=np.float32)
        self.piece_vectors = _unit(self.piece_vectors)
        self._piece_index = {p: i for i, p in enumerate(self.pieces)}

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

    def vector(self, word: str) -> np.ndarray:
        i = self.id_of(word)
        if i < 0:
            raise KeyError(word)
        return self.vectors[i]

    @property
    def fingerprint(self) -> str:
        """Content hash of words and vectors, used to key on-disk caches."""
        if self._fingerprint is None:
            h = hashlib.sha256()
            h.update("\n".join(self.words).encode("utf-8"))
            h.update(np.ascontiguousarray(self.vectors).tobytes())
            self._fingerprint = h.hexdigest()[:20]
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
        start = 0
        while start < len(key):
            end = len(key)
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
        """Unit vector for an out-of-vocabulary word: the mean of its wordpiece rows, or None."""
        pieces = self.wordpieces(word)
        if not pieces:
            return None
        assert self.piece_vectors is not None
        rows = [self.piece_vectors[r] if cont else self.vectors[r] for cont, r in pieces]
        mean = np.asarray(np.mean(rows, axis=0, dtype=np.float32))
        norm = float(np.linalg.norm(mean))
        return None if norm == 0 else np.asarray(mean / norm, dtype=np.float32)

    # -- persistence -------------------------------------------------------------------------
    def save(self, directory: Path) -> None:
        """Write the fast-loading form (``vectors.npy``, ``words.txt``, ``meta.json``) atomically."""
        directory = Path(directory)
        directory.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".import-", dir=directory.parent))
        try:
            np.save(tmp / "vectors.npy", self.vectors)
            (tmp / "words.txt").write_text("\n".join(self.words), encoding="utf-8")
            if self.pieces:
                assert self.piece_vectors is not None
                np.save(tmp / "pieces.npy", self.piece_vectors)
                (tmp / "pieces.txt").write_text("\n".join(self.pieces), encoding="utf-8")
            meta = {"name": self.name, "source": self.source, "words": len(self), "dim": self.dim}
            (tmp / "meta.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
            if directory.exists():
                _rmtree(directory)
            os.replace(tmp, directory)
        except BaseException:
            _rmtree(tmp)
            raise

    @classmethod
    def load_saved(cls, directory: Path) -> EmbeddingStore:
        """Load the form written by :meth:`save` (vectors memory-mapped)."""
        directory = Path(directory)
        try:
            meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
            words = (directory / "words.txt").read_text(encoding="utf-8").split("\n")
            vectors = np.load(directory / "vectors.npy")
            pieces: list[str] = []
            piece_vectors = None
            if (directory / "pieces.txt").exists():
                pieces = (directory / "pieces.txt").read_text(encoding="utf-8").split("\n")
                piece_vectors = np.load(directory / "pieces.npy")
        except (OSError, ValueError) as exc:
            raise EmbeddingError(f"cannot read saved embedding {directory}: {exc}") from exc
        return cls(meta["name"], words, vectors, pieces, piece_vectors, meta.get("source", ""))


def _rmtree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


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
    import gzip

    opener = gzip.open if path.suffix.lower() == ".gz" else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as fh:  # type: ignore[operator]
        first = fh.readline().split()
    if len(first) == 2 and all(part.isdigit() for part in first):
        return "word2vec"
    return "glove"


def read_vectors(path: str | Path, *, fmt: str | None = None, limit: int | None = None,
                 name: str | None = None) -> EmbeddingStore:
    """Read word2vec text/binary, GloVe text or fastText ``.vec``/``.bin`` through gensim.

    Words are keyed by ``lookup_key`` (lower case, accents stripped); when two words collide
    (``Apple``/``apple``) the first one in the file, usually the more frequent, is kept.
    """
    path = Path(path)
    if not path.is_file():
        raise EmbeddingError(f"embedding file not found: {path}")
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise ConfigError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    try:
        from gensim.models import KeyedVectors
        from gensim.models.fasttext import load_facebook_vectors

        if fmt == "fasttext-bin":
            kv = load_facebook_vectors(str(path))
        else:
            kv = KeyedVectors.load_word2vec_format(
                str(path), binary=fmt == "word2vec-binary", no_header=fmt == "glove",
                limit=limit, unicode_errors="replace",
            )
    except (OSError, ValueError, EOFError, UnicodeError) as exc:
        raise EmbeddingError(f"cannot read {path} as {fmt}: {exc}") from exc
    keys = list(kv.index_to_key)
    if limit is not None:
        keys = keys[:limit]
    seen: dict[str, int] = {}
    rows: list[int] = []
    for i, key in enumerate(keys):
        word = lookup_key(str(key))
        if word and not re.search(r"\s", word) and word not in seen:
            seen[word] = i
            rows.append(i)
    vectors = np.asarray(kv.vectors[rows], dtype=np.float32)
    return EmbeddingStore(name or path.name, list(seen), vectors, source=f"{fmt}:{path}")
