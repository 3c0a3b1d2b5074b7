"""Privacy metrics: change rate, N_w and S_w (Feyisetan, Balle, Drake & Diethe, WSDM 2020).

* **change rate**: fraction of the word tokens of a text (tokens of kind ``word``, see
  :mod:`embedanon.text`) whose replacement differs from the original, ignoring case. Whitespace,
  punctuation, numbers and codes are not words and are not counted.
* **N_w**: for a word w and n draws of the mechanism, the fraction of draws that return w itself
  (Feyisetan et al. count draws; a fraction reads the same for any n). 1 means no privacy.
* **S_w**: the number of distinct outputs among the n draws of w. 1 means a deterministic map.

Nothing here logs or returns text: only counts, rates and word ids.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from .._validate import positive_int
from ..errors import ConfigError, InputError
from ..mechanisms.base import Mechanism
from ..noise import GeneratorNoise
from ..text import ALNUM_KINDS, Token, lookup_key, tokenize

#: Words sampled per chunk in :func:`word_statistics` (bounds memory: chunk * draws * d floats).
_CHUNK_WORDS = 64
#: At most this many draws are sampled in one call (a mechanism holds about 1 kB per draw): fewer
#: words per chunk when ``draws`` exceeds 1,024, so the chunks of the defaults are unchanged.
CHUNK_DRAWS = 1 << 16
#: The most draws per word :func:`word_statistics` accepts: N_w is then resolved to 1e-5, and one
#: word's draws (one chunk) stay within about 0.2 GB.
MAX_DRAWS = 100_000


def check_draws(draws: object, name: str = "draws") -> int:
    """``draws`` as an int in [1, :data:`MAX_DRAWS`] (before any long work).

    Raises:
        ConfigError: out of range; TypeError: not an int.
    """
    draws = positive_int(name, draws)
    if draws > MAX_DRAWS:
        raise ConfigError(f"{name} must be at most {MAX_DRAWS:,}, got {draws:,} (N_w is resolved to "
                          f"1/{MAX_DRAWS:,} already; more draws only cost memory and time)")
    return draws


# ------------------------------------------------------------------------------------------------
# Change rate
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ChangeStats:
    """Token counts of an (original, anonymized) pair.

    Attributes:
        tokens: tokens of the original that are not whitespace (words, numbers, codes, punctuation).
        word_tokens: tokens of kind ``word``.
        changed_words: word tokens whose replacement differs from the original (ignoring case).
    """

    tokens: int
    word_tokens: int
    changed_words: int

    def __post_init__(self) -> None:
        if not 0 <= self.changed_words <= self.word_tokens <= self.tokens:
            raise ValueError(
                f"need 0 <= changed_words <= word_tokens <= tokens, got {self.changed_words}, "
                f"{self.word_tokens}, {self.tokens}"
            )

    @property
    def change_rate(self) -> float:
        """changed_words / word_tokens (nan for a text without words)."""
        return self.changed_words / self.word_tokens if self.word_tokens else float("nan")

    def __add__(self, other: ChangeStats) -> ChangeStats:
        return ChangeStats(self.tokens + other.tokens, self.word_tokens + other.word_tokens,
                           self.changed_words + other.changed_words)


def align_tokens(original: str, anonymized: str) -> list[tuple[Token, Token]]:
    """Pair the tokens of a text with those of its anonymized version.

    The anonymizer keeps whitespace and punctuation and replaces each alphanumeric token by one
    alphanumeric token, so the two token sequences align one to one.

    Raises:
        InputError: the texts do not align (the message gives a position, never text).
    """
    a, b = tokenize(original), tokenize(anonymized)
    if len(a) != len(b):
        raise InputError(
            f"anonymized text does not align with the original: {len(b)} tokens, expected {len(a)}"
        )
    for pos, (x, y) in enumerate(zip(a, b, strict=True)):
        kept = x.kind not in ALNUM_KINDS
        if (kept and x.text != y.text) or (not kept and y.kind not in ALNUM_KINDS):
            raise InputError(f"anonymized text does not align with the original at token {pos}")
    return list(zip(a, b, strict=True))


# -- change counts from a document's items (the review page and privacy-report count alike) --

class DocumentLike(Protocol):
    """:class:`~embedanon.pipeline.document.AnonymizedDocument` or anything shaped like it."""

    @property
    def text(self) -> str: ...
    @property
    def items(self) -> Sequence[Any]: ...


def check_items(original: str, document: DocumentLike) -> None:
    """Items lie inside both texts, in order, without overlapping.

    Raises:
        ValueError: an item breaks that (names the item's position, never any text).
    """
    prev_end = prev_new_end = 0
    for pos, item in enumerate(document.items):
        if not (prev_end <= item.start <= item.end <= len(original)):
            raise ValueError(f"item {pos} has original offsets out of order or outside the text")
        if not (prev_new_end <= item.new_start <= item.new_end <= len(document.text)):
            raise ValueError(f"item {pos} has new offsets out of order or outside the text")
        prev_end, prev_new_end = item.end, item.new_end


def scan(original: str, document: DocumentLike) -> tuple[int, int, list[tuple[int, int]]]:
    """Walk the original's tokens against the items (one pass, items in order).

    Returns:
        ``(words, changed, kept)``: word tokens; word tokens whose released form differs,
        ignoring case; and the ``(start, end)`` offsets of alphanumeric tokens no item touches.
    """
    check_items(original, document)
    items = list(document.items)
    words = changed = 0
    kept: list[tuple[int, int]] = []
    i = 0
    for token in tokenize(original):
        if token.kind not in ALNUM_KINDS:
            continue
        start, end = token.start, token.end
        # Skip items that end before this token (a zero-length item at ``start`` touches it).
        while i < len(items) and items[i].end <= start and items[i].start < start:
            i += 1
        j = i
        old, new = [], []
        last = start
        while j < len(items) and items[j].start < end:
            it = items[j]
            gap = original[last:it.start] if it.start > last else ""
            old += [gap, original[it.start:it.end]]
            new += [gap, document.text[it.new_start:it.new_end]]
            last = max(last, it.end)
            j += 1
        if j == i:
            kept.append((start, end))
        if token.kind == "word":
            words += 1
            if j > i:
                tail = original[last:end]
                changed += lookup_key("".join(old) + tail) != lookup_key("".join(new) + tail)
    return words, changed, kept


def change_stats(original: str, anonymized: str) -> ChangeStats:
    """Count tokens, word tokens and changed word tokens (see :func:`align_tokens`)."""
    return pair_stats(align_tokens(original, anonymized))


def pair_stats(pairs: list[tuple[Token, Token]]) -> ChangeStats:
    tokens = sum(1 for x, _ in pairs if x.kind != "space")
    words = [(x, y) for x, y in pairs if x.kind == "word"]
    changed = sum(1 for x, y in words if lookup_key(x.text) != lookup_key(y.text))
    return ChangeStats(tokens, len(words), changed)


def change_rate(original: str, anonymized: str) -> float:
    """Fraction of the word tokens of ``original`` that ``anonymized`` changes."""
    return change_stats(original, anonymized).change_rate


def word_id_pairs(pairs: Iterable[tuple[Token, Token]],
                  id_of: Callable[[str], int]) -> tuple[np.ndarray, np.ndarray]:
    """Embedding ids of aligned single-part word tokens: (originals, replacements).

    Only word tokens without joiners whose original and replacement both have an embedding row
    are kept; these are exactly the tokens the mechanism itself replaced (other words go through a
    proxy or a uniform draw, see :mod:`embedanon.pipeline`).

    Args:
        pairs: output of :func:`align_tokens`.
        id_of: ``EmbeddingStore.id_of`` (any callable str -> int, -1 when absent).

    Returns:
        Two int64 arrays of shape (m,).
    """
    xs: list[int] = []
    ys: list[int] = []
    for x, y in pairs:
        if x.kind != "word" or not x.text.isalpha() or not y.text.isalpha():
            continue
        i, j = id_of(x.text), id_of(y.text)
        if i >= 0 and j >= 0:
            xs.append(i)
            ys.append(j)
    return np.asarray(xs, dtype=np.int64), np.asarray(ys, dtype=np.int64)


# ------------------------------------------------------------------------------------------------
# N_w and S_w
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class WordStatistics:
    """Per-word statistics of n draws of a mechanism.

    Attributes:
        ids: int64 (m,) word ids.
        n_w: float64 (m,) fraction of draws that returned the word itself.
        s_w: int64 (m,) number of distinct outputs.
        cosine: float64 (m,) mean cosine similarity between the word and its replacements
            (nan when no vectors were given).
        draws: n.
    """

    ids: np.ndarray
    n_w: np.ndarray
    s_w: np.ndarray
    cosine: np.ndarray
    draws: int


def distinct_per_row(samples: np.ndarray) -> np.ndarray:
    """Number of distinct values in each row of a 2-d integer array: int64 (rows,)."""
    if samples.shape[1] == 0:
        return np.zeros(samples.shape[0], dtype=np.int64)
    ordered = np.sort(samples, axis=1)
    return 1 + (np.diff(ordered, axis=1) != 0).sum(axis=1).astype(np.int64)


def word_statistics(mechanism: Mechanism, ids: np.ndarray, draws: int, rng: np.random.Generator,
                    *, vectors: np.ndarray | None = None) -> WordStatistics:
    """Draw ``draws`` replacements of each word and compute N_w, S_w and the mean cosine.

    Args:
        mechanism: any :class:`~embedanon.mechanisms.base.Mechanism`.
        ids: int64 (m,) word ids (repeats allowed; each row is sampled on its own).
        draws: n, replacements per word.
        rng: the only source of randomness (words are sampled in fixed chunks, in order).
        vectors: float32 (V, d) unit rows of the embedding, for the cosine; optional.
    """
    draws = check_draws(draws)
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)
    m = len(ids)
    per_chunk = max(1, min(_CHUNK_WORDS, CHUNK_DRAWS // draws))
    n_w = np.empty(m, dtype=np.float64)
    s_w = np.empty(m, dtype=np.int64)
    cosine = np.full(m, np.nan, dtype=np.float64)
    for start in range(0, m, per_chunk):
        chunk = ids[start:start + per_chunk]
        noise = GeneratorNoise(rng, len(chunk) * draws)
        out = np.asarray(mechanism.sample(np.repeat(chunk, draws), noise), dtype=np.int64)
        out = out.reshape(len(chunk), draws)
        rows = slice(start, start + len(chunk))
        n_w[rows] = (out == chunk[:, None]).mean(axis=1)
        s_w[rows] = distinct_per_row(out)
        if vectors is not None:
            cosine[rows] = np.einsum("id,ind->in", vectors[chunk], vectors[out]).mean(axis=1)
    return WordStatistics(ids, n_w, s_w, cosine, draws)
