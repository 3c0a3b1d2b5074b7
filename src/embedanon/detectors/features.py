"""Token features for the trained ``model`` detector (numpy only, no torch).

A text is cut into fine tokens (letter/digit runs and single punctuation characters) with their
offsets. Each token gets ``SLOTS`` hashed sparse feature ids in ``[0, buckets)`` (its word, shape,
affixes, character trigrams, embedding clusters, the words and shapes around it, the shape of the
whitespace-delimited chunk it sits in, its place in the line) and three rows of a dense embedding
table (previous, own, next word: the shipped MiniLM input embedding, composed from wordpieces for
words outside it). The same code featurizes training data and text at detection time, so the two
cannot drift apart.

Hashes are ``zlib.crc32`` (stable across processes; Python's ``hash`` is salted).
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..errors import ConfigError
from ..lexicon import word_frequencies

TOKEN_RE = re.compile(r"[^\W\d_]+|\d+|[^\w\s]|_", re.UNICODE)
#: Sparse feature ids per token (fixed per featurizer, so scoring is one gather + sum).
SLOTS = 48
#: The first ``OWN_SLOTS`` ids of a token are its own word's (word, shape, affixes, trigrams,
#: clusters); the context and layout ids follow. ``Featurizer(absent_affixes=True)`` widens both
#: by ``ABSENT_AFFIXES`` (its ``own_slots`` and ``slots``).
OWN_SLOTS = 24
ABSENT_AFFIXES = 6
_NEWLINE_RE = re.compile("\n")
#: distinct words (and chunks) a detecting featurizer remembers before it empties its caches
CACHE_LIMIT = 300_000
_PAD = 0  # feature id 0 is reserved for "no feature" and its weights stay zero
#: tokens whose context columns are hashed together (decision 0224): one block for most texts,
#: and a long record's temporaries stay this size instead of five times its context columns
_HASH_BLOCK = 4096


def _crc(text: str) -> int:
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


def word_shape(token: str) -> str:
    """Case/digit shape with runs capped at two: ``Okafor`` -> ``Xxx``, ``2023`` -> ``dd``."""
    out: list[str] = []
    for ch in token:
        c = "X" if ch.isupper() else "x" if ch.isalpha() else "d" if ch.isdigit() else ch
        if len(out) >= 2 and out[-1] == c and out[-2] == c:
            continue
        out.append(c)
    return "".join(out)


def chunk_shape(chunk: str) -> str:
    """Shape of a whitespace-delimited chunk with runs collapsed: ``a.b@x.org`` -> ``x.x@x.x``."""
    out: list[str] = []
    for ch in chunk:
        c = "x" if ch.isalpha() else "d" if ch.isdigit() else ch
        if out and out[-1] == c and c in "xd":
            continue
        out.append(c)
    return "".join(out)[:24]


#: Upper rank limits of :func:`frequency_band` (the shipped public list holds 100,000 words).
FREQUENCY_BANDS = (1_000, 10_000, 30_000)


def frequency_band(rank: int) -> str:
    """A word's band in a public frequency list from its rank (0 = most frequent, -1 = absent):
    ``absent``, ``<1000``, ``<10000``, ``<30000`` or ``listed`` (the rest of the list)."""
    if rank < 0:
        return "absent"
    for limit in FREQUENCY_BANDS:
        if rank < limit:
            return f"<{limit}"
    return "listed"


def fold(token: str) -> str:
    """Lower case without accents (the embedding's lookup key)."""
    decomposed = unicodedata.normalize("NFD", token)
    return "".join(ch for ch in decomposed if not unicodedata.category(ch).startswith("M")).lower()


@dataclass(frozen=True, slots=True)
class Tokens:
    """Fine tokens of one text.

    Attributes:
        starts, ends: int64 arrays (T,), character offsets of each token.
        words: the token strings.
    """

    starts: np.ndarray
    ends: np.ndarray
    words: list[str]


def tokenize(text: str) -> Tokens:
    """Letter runs, digit runs and single other characters, with offsets (whitespace dropped)."""
    spans = [(m.start(), m.end()) for m in TOKEN_RE.finditer(text)]
    starts = np.fromiter((s for s, _ in spans), dtype=np.int64, count=len(spans))
    ends = np.fromiter((e for _, e in spans), dtype=np.int64, count=len(spans))
    return Tokens(starts, ends, [text[s:e] for s, e in spans])


class Featurizer:
    """Maps texts to (sparse ids, dense rows) for the linear token classifier.

    Args:
        buckets: size of the hashed sparse feature space (a power of two).
        vocab_rows: float32 (V, d) unit rows of the word embedding, or None for no dense features.
        row_of: callable ``word -> row`` into ``vocab_rows`` (or -1 when absent).
        compose: callable ``word -> vector or None`` for words outside the embedding.
        clusters: list of float32 (K, d) centroid arrays; each gives one cluster-id feature.
        word_rank: callable ``folded word -> rank`` in a public frequency list (-1 when absent):
            each letter token then gets its :func:`frequency_band` as one more own feature
            (public knowledge of the word, the same for words never seen in training); None:
            no such feature (the features of models trained without it).
        band_context: with ``word_rank``, each letter token also gets its band crossed with
            the previous word, with the next word (two context ids: "a word outside the list,
            after ``said``") and with its own shape (one own id, ``Xxx`` + absent), so the
            combination of an unknown word and a name slot gets its own weight (round 26).
        absent_spelling: with ``word_rank``, the affix and trigram features of a letter token
            absent from the list are kept apart from those of listed words (their own hashed
            ids), so what ``-ile`` says is learned from English words for English words and from
            the rest for the rest (round 27).
        absent_affixes: with ``word_rank``, a letter token absent from the list keeps all its
            features and gets a second copy of its six affixes that only absent words fire, so
            training learns the correction absent words need on top of the shared weights
            (feature augmentation; round 28). Widens the own block by ``ABSENT_AFFIXES``.
        cache_limit: how many distinct words (and chunks) to remember; when a text starts with the
            cache this full, the caches and the composed dense rows are emptied first
            (:meth:`clear`; features are pure functions of the word, so output never depends on
            what was seen before). None: no limit (training, where the examples hold row ids
            into the dense table until the end).
    """

    def __init__(
        self,
        *,
        buckets: int,
        vocab_rows: np.ndarray | None,
        row_of: Callable[[str], int],
        compose: Callable[[str], np.ndarray | None],
        clusters: Sequence[np.ndarray] = (),
        word_rank: Callable[[str], int] | None = None,
        band_context: bool = False,
        absent_spelling: bool = False,
        absent_affixes: bool = False,
        cache_limit: int | None = None,
    ) -> None:
        if buckets < 1024 or buckets & (buckets - 1):
            raise ConfigError(f"buckets must be a power of two >= 1024, got {buckets}")
        for flag, on in (("band_context", band_context), ("absent_spelling", absent_spelling),
                         ("absent_affixes", absent_affixes)):
            if on and word_rank is None:  # a manifest may ask for it: a user-facing error
                raise ConfigError(f"{flag} needs frequency_bands (a word_rank)")
        self._absent_affixes = absent_affixes
        #: own-word ids per token, and ids per token in all
        self.own_slots = OWN_SLOTS + (ABSENT_AFFIXES if absent_affixes else 0)
        self.slots = SLOTS + (ABSENT_AFFIXES if absent_affixes else 0)
        self._band_context = band_context
        self._absent_spelling = absent_spelling
        self.buckets = buckets
        self._mask = buckets - 1
        self._row_of = row_of
        self._compose = compose
        self._clusters = list(clusters)
        self._word_rank = word_rank
        dim = 0 if vocab_rows is None else int(vocab_rows.shape[1])
        self._vocab = vocab_rows
        self.dim = dim
        # Dense table: row 0 = zero vector (padding / unknown), then vocabulary rows, then composed
        # rows appended on first sight of an out-of-vocabulary word (capacity doubles when full).
        n_vocab = 0 if vocab_rows is None else len(vocab_rows)
        self._table = np.zeros((1 + n_vocab + 1024, dim), dtype=np.float32)
        if vocab_rows is not None:
            self._table[1 : 1 + n_vocab] = vocab_rows
        self._n_dense = 1 + n_vocab
        #: rows that never change: the zero row and the embedding's (composed rows follow them)
        self.fixed_rows = 1 + n_vocab
        #: bumped by every :meth:`clear` (composed rows are then numbered anew)
        self.generation = 0
        self._limit = cache_limit
        # Cluster ids of every vocabulary word, once (same argmax as the per-word product: checked
        # equal for the shipped clusters and embedding).
        self._vocab_clusters = [
            np.argmax(vocab_rows @ cents.T, axis=1) if vocab_rows is not None else np.zeros(0, np.int64)
            for cents in self._clusters
        ]
        #: per word: its row in ``_facts``: its ``own_slots`` own ids (zero-padded), then its word
        #: hash, shape hash, cluster, dense row and band hash (a text's facts are one gather)
        self._cache: dict[str, int] = {}
        self._facts = np.zeros((1024, self.own_slots + 5), dtype=np.int64)
        self._chunks: dict[str, tuple[int, int]] = {}

    # -- per-word facts (cached) ----------------------------------------------------------------
    def _word(self, token: str) -> int:
        """The row of ``token``'s facts in ``_facts`` (computed on first sight)."""
        hit = self._cache.get(token)
        if hit is not None:
            return hit
        facts = self.word_facts(token)
        row = len(self._cache)
        if row == len(self._facts):
            self._facts = np.concatenate((self._facts, np.zeros_like(self._facts)))
        self._facts[row] = facts
        self._cache[token] = row
        return row

    def word_facts(self, token: str) -> tuple[int, ...]:
        """``token``'s own ids (``own_slots``, zero-padded), word hash, shape hash, cluster, dense
        row and band hash; a word outside the embedding gets a composed dense row here."""
        key = fold(token)
        shape = word_shape(token)
        feats = [f"w={key}", f"s={shape}", f"len={min(len(token), 12)}"]
        band_hash = 0  # 0: no band context for this token
        if token[:1].isalpha():
            band = None if self._word_rank is None else frequency_band(self._word_rank(key))
            # affixes and trigrams of a word outside the public list: their own weights (round 27)
            pre = "a|" if self._absent_spelling and band == "absent" else ""
            affixes = [
                f"p1={key[:1]}",
                f"p2={key[:2]}",
                f"p3={key[:3]}",
                f"x2={key[-2:]}",
                f"x3={key[-3:]}",
                f"x4={key[-4:]}",
            ]
            feats += [pre + f for f in affixes]
            padded = f"<{key}>"
            feats += [f"{pre}g={padded[i : i + 3]}" for i in range(min(len(padded) - 2, 10))]
            if self._absent_affixes and band == "absent":
                feats += ["b|" + f for f in affixes]
            if band is not None:  # among the spelling features: spelling dropout drops it
                feats.append(f"fq={band}")
                if self._band_context:
                    feats.append(f"fqs={band}|{shape}")
                    band_hash = _crc(band) or 1
        elif token.isdigit():
            feats.append(f"nd={min(len(token), 12)}")
        row = -1
        vec = None
        if self.dim:
            row = self._row_of(key) if token[:1].isalnum() else -1
            feats.append(f"iv={row >= 0}")
            if row >= 0 and self._vocab is not None:
                vec = self._vocab[row]
                dense_row = row + 1
            else:
                vec = self._compose(key) if token[:1].isalpha() else None
                if vec is not None:
                    if self._n_dense == len(self._table):
                        grown = np.zeros((2 * len(self._table), self.dim), dtype=np.float32)
                        grown[: self._n_dense] = self._table
                        self._table = grown
                    dense_row = self._n_dense
                    self._table[dense_row] = vec
                    self._n_dense += 1
                else:
                    dense_row = 0
        else:
            dense_row = 0
        cluster = 0
        if vec is not None:
            for level, cents in enumerate(self._clusters):
                c = int(self._vocab_clusters[level][row]) if row >= 0 else int(np.argmax(cents @ vec))
                feats.append(f"c{level}={c}")
                if level == len(self._clusters) - 1:
                    cluster = c + 1
        ids = [(_crc(f) & self._mask) or 1 for f in feats][: self.own_slots]
        ids += [_PAD] * (self.own_slots - len(ids))
        return (*ids, _crc(key), _crc(shape), cluster, dense_row, band_hash)

    def clear(self) -> None:
        """Forget every word and chunk and the composed dense rows (a new :attr:`generation`)."""
        self._cache.clear()
        self._chunks.clear()
        self._n_dense = self.fixed_rows
        self.generation += 1

    @property
    def dense_table(self) -> np.ndarray:
        """float32 (R, d): row 0 zeros, then embedding rows, then composed rows (a view)."""
        return self._table[: self._n_dense]

    # -- per-text features ------------------------------------------------------------------------
    def featurize(self, text: str, toks: Tokens) -> tuple[np.ndarray, np.ndarray]:
        """Sparse ids int64 (T, ``slots``) and dense row ids int64 (T, 3) for the tokens of ``text``.

        The row ids index :attr:`dense_table` until the next call empties the caches (see
        ``cache_limit``); read the table before featurizing another text."""
        ids, dense, _ = self.featurize_words(text, toks)
        return ids, dense

    @property
    def words_seen(self) -> int:
        """How many words the cache holds (their rows in :meth:`own_ids` are ``0 .. words_seen - 1``)."""
        return len(self._cache)

    def own_ids(self, first: int, stop: int) -> np.ndarray:
        """int64 (stop - first, ``own_slots``): the own-word ids of the cached words of those rows."""
        return self._facts[first:stop, : self.own_slots]

    def featurize_words(self, text: str, toks: Tokens) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`featurize`, and each token's word row intp (T,): its own ids are that row of
        :meth:`own_ids` (until the next call empties the caches; a new :attr:`generation`)."""
        n = len(toks.words)
        ids = np.zeros((n, self.slots), dtype=np.int64)
        if n == 0:
            return ids, np.zeros((0, 3), dtype=np.int64), np.zeros(0, dtype=np.intp)
        if self._limit is not None and max(len(self._cache), len(self._chunks)) >= self._limit:
            self.clear()  # at a text's start: every row id this call returns stays valid
        col = self.own_slots
        get = self._cache.get
        rows = [get(w) for w in toks.words]
        if None in rows:  # words seen first here (a word twice: one row, made at its first sight)
            rows = [self._word(w) if r is None else r for r, w in zip(rows, toks.words, strict=True)]
        word_rows = np.fromiter(rows, dtype=np.intp, count=n)
        facts = self._facts[word_rows]
        ids[:, :col] = facts[:, :col]
        whash, shash, clus, drow = facts[:, col], facts[:, col + 1], facts[:, col + 2], facts[:, col + 3]
        mask = self._mask

        def shifted(arr: np.ndarray, off: int, pad: int) -> np.ndarray:
            out = np.full(n, pad, dtype=np.int64)
            if off < 0:
                out[-off:] = arr[:off]
            elif off > 0:
                out[:-off] = arr[off:]
            else:
                out[:] = arr
            return out

        columns: list[np.ndarray] = []
        salts: list[int] = []

        def put(values: np.ndarray, salt: int) -> None:  # hashed together below, in one pass
            columns.append(values)
            salts.append(salt)

        pad_word = 0x5A5A5A5
        for off in (-3, -2, -1, 1, 2, 3):
            put(shifted(whash, off, pad_word + off), 10 + off)
        for off in (-2, -1, 1, 2):
            put(shifted(shash, off, pad_word + off), 20 + off)
        for off in (-1, 1):
            put(shifted(clus, off, 9999), 30 + off)
        w1, s0, w_1 = shifted(whash, 1, pad_word), shash, shifted(whash, -1, pad_word)
        put(w_1 * 31 + s0, 40)
        put(s0 * 31 + w1, 41)
        put(w_1 * 17 + w1, 42)
        put(shifted(shash, -1, 7) * 31 * 31 + s0 * 31 + shifted(shash, 1, 7), 43)

        # Layout: glue to neighbors, position in line, chunk shape and chunk markers.
        starts, ends = toks.starts, toks.ends
        glue_left = np.zeros(n, dtype=np.int64)
        glue_left[1:] = starts[1:] == ends[:-1]
        glue_right = np.zeros(n, dtype=np.int64)
        glue_right[:-1] = glue_left[1:]
        chunk_id = np.cumsum(1 - glue_left) - 1
        newlines = np.fromiter((m.start() for m in _NEWLINE_RE.finditer(text)), dtype=np.int64)
        line_no = np.searchsorted(newlines, starts)
        first_of_line = np.searchsorted(line_no, line_no, side="left")
        pos_in_line = np.minimum(np.arange(n) - first_of_line, 5)
        put(glue_left * 2 + glue_right, 50)
        put(pos_in_line, 51)
        bounds = np.flatnonzero(glue_left == 0)  # where a chunk starts (glue_left[0] is 0)
        chunk_feat = np.zeros(len(bounds), dtype=np.int64)
        chunk_flags = np.zeros(len(bounds), dtype=np.int64)
        chunk_ends = np.concatenate((bounds[1:], [n]))
        cache = self._chunks
        for j, (a, b) in enumerate(zip(starts[bounds].tolist(), ends[chunk_ends - 1].tolist(), strict=True)):
            chunk = text[a:b]
            hit = cache.get(chunk)
            if hit is None:
                low = chunk.lower()
                hit = (
                    _crc(chunk_shape(chunk)),
                    ("@" in chunk)
                    + 2 * ("http" in low or "www." in low)
                    + 4 * ("/" in chunk)
                    + 8 * (sum(ch.isdigit() for ch in chunk) >= 5),
                )
                cache[chunk] = hit
            chunk_feat[j], chunk_flags[j] = hit
        put(chunk_feat[chunk_id], 60)
        put(chunk_flags[chunk_id], 61)
        put(chunk_flags[chunk_id] * 8 + np.minimum(np.arange(n) - bounds[chunk_id], 7), 62)
        put(
            np.concatenate(([0], chunk_flags))[np.maximum(chunk_id, 0)] * 97
            + chunk_flags[np.minimum(chunk_id + 1, len(bounds) - 1)],
            63,
        )
        banded = 0
        if self._band_context:
            band = facts[:, col + 4]
            put(w_1 * 29 + band, 44)
            put(band * 29 + w1, 45)
            banded = 2  # the last two context columns: padding where a token has no band
        assert col + len(columns) <= self.slots
        salted = np.array(salts, dtype=np.int64)[:, None] * 0x85EBCA77 + 0x165667B1
        for a in range(0, n, _HASH_BLOCK):  # in blocks of tokens: the temporaries stay small
            b = min(n, a + _HASH_BLOCK)
            whole = b - a == n
            h = (np.stack(columns if whole else [c[a:b] for c in columns]) * 0x9E3779B1 + salted) & 0xFFFFFFFF
            h ^= h >> 15
            h &= mask
            h[h == 0] = 1
            if banded:
                h[len(columns) - banded :, (band if whole else band[a:b]) == 0] = _PAD
            ids[a:b, col : col + len(columns)] = h.T
        dense = np.stack([shifted(drow, -1, 0), drow, shifted(drow, 1, 0)], axis=1)
        return ids, dense, word_rows


def spherical_kmeans(vecs: np.ndarray, k: int, *, seed: int, iters: int = 12) -> np.ndarray:
    """float32 (k, d) unit centroids of unit rows ``vecs`` (cosine k-means, seeded)."""
    rng = np.random.default_rng(seed)
    cents = vecs[rng.choice(len(vecs), size=k, replace=False)].copy()
    for _ in range(iters):
        assign = np.argmax(vecs @ cents.T, axis=1)
        sums = np.zeros_like(cents)
        np.add.at(sums, assign, vecs)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        empty = norms[:, 0] == 0
        sums[empty] = vecs[rng.choice(len(vecs), size=int(empty.sum()), replace=False)]
        norms[empty] = 1.0
        cents = (sums / norms).astype(np.float32)
    return cents


# -- the public word list (wordfreq): bands, common words -------------------------------------
@lru_cache(maxsize=1)
def _public_words() -> tuple[str, ...]:
    """The shipped public English list (wordfreq), most frequent first (as listed, not folded)."""
    return tuple(w for w, _ in sorted(word_frequencies().items(), key=lambda kv: -kv[1]))


@lru_cache(maxsize=1)
def public_ranks() -> dict[str, int]:
    """{folded word: rank} in the shipped public English list (wordfreq; 0 = most frequent;
    a rank counts distinct folded words)."""
    ranks: dict[str, int] = {}
    for word in _public_words():
        ranks.setdefault(fold(word), len(ranks))
    return ranks


@lru_cache(maxsize=4)
def common_words(n: int) -> frozenset[str]:
    """The ``n`` most frequent words of the shipped public English list (wordfreq), folded; none
    for ``n <= 0``. Shared by the ``name_pairs`` rule and training's ``keep_words``."""
    return frozenset(fold(w) for w in _public_words()[: max(n, 0)])
