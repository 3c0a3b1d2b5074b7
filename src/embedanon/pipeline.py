"""The Anonymizer: tokenize -> map every word to an embedding id -> mechanism -> rebuild.

Each document is processed by :func:`anonymize_text`, a pure function of (text, config,
document seed): heavy resources (embedding, index, neighbour tables) are loaded once per process
from the small, hashable :class:`AnonymizerConfig`, so the function pickles and runs unchanged in
worker processes or on a distributed engine.

What happens to each token (see :mod:`embedanon.text` for the kinds):

* whitespace and punctuation are kept;
* a word part found in the embedding goes through the mechanism;
* a word part outside the embedding is given a vector composed from its wordpieces (when the
  embedding has them) and mapped to the nearest candidate that is not a variant of it (its
  *proxy*); the mechanism then runs on the proxy. A word that cannot be placed at all gets a
  uniformly random candidate;
* digits and letters of numbers and codes (``2023-01-15``, ``A12B``) are each replaced by another
  random character of the same class, keeping the shape;
* English clitics after an apostrophe (``'s``, ``n't`` as ``'t``, ``'ll`` ...) are kept, so
  ``patient's`` becomes e.g. ``doctor's``.

Replacements of word parts outside the embedding are checked against the leak guard and redrawn
from the proxy's guarded neighbours when they are variants of the original.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import compress
from operator import attrgetter
from typing import Any

import numpy as np

from ._validate import positive_int
from .codes import replace_codes
from .errors import ConfigError
from .mechanisms.base import Mechanism
from .parallel import parallel_map
from .runtime import AnonymizerConfig, Runtime, _CodePart, _Unit, get_runtime
from .text import WORD_SPLIT_RE
from .vectors.defaults import DEFAULT_EMBEDDING

__all__ = ["Anonymizer", "AnonymizerConfig", "DocumentSeed", "anonymize_text", "anonymize_texts",
           "get_runtime", "parallel_map"]


# ------------------------------------------------------------------------------------------------
# The pure per-document function
# ------------------------------------------------------------------------------------------------
DocumentSeed = tuple[int, tuple[int, ...]]


def document_rng(seed: DocumentSeed) -> np.random.Generator:
    """Generator of one document: ``SeedSequence(entropy, spawn_key=key)``.

    The stream depends only on the run's entropy and the document's key (its position), never on
    batching, worker count or what other documents were processed before.
    """
    entropy, key = seed
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=key))


def anonymize_text(text: str, config: AnonymizerConfig, seed: DocumentSeed) -> str:
    """Anonymize one document. Pure: same (text, config, seed) -> same output, in any process."""
    return anonymize_texts([text], config, [seed])[0]


def anonymize_texts(texts: Sequence[str], config: AnonymizerConfig,
                    seeds: Sequence[DocumentSeed]) -> list[str]:
    """Anonymize several documents: the same output as :func:`anonymize_text` on each.

    Batching only makes it faster: the words outside the embedding of all the documents are placed
    in one search, whose per-word result does not depend on the batch.
    """
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"text must be str, got {type(text).__name__}")
    rt = get_runtime(config)
    split = [_split(text) for text in texts]
    tokens = [tok for pieces in split for tok in pieces[1::2]]
    plans = rt.plan_all(tokens) if tokens else []
    out = []
    start = 0
    for pieces, seed in zip(split, seeds, strict=True):
        n = len(pieces) // 2
        if n == 0:
            out.append(pieces[0])
            continue
        out.append(_anonymize_pieces(rt, pieces, plans[start : start + n], document_rng(seed)))
        start += n
    return out


def _split(text: str) -> list[str]:
    # ASCII fast path: the same split as WORD_SPLIT_RE on ASCII text, about twice as fast.
    if text.isascii():
        return _ASCII_SPLIT_RE.split(text)
    return WORD_SPLIT_RE.split(text)


_ASCII_SPLIT_RE = re.compile(r"([A-Za-z0-9]+(?:['\-][A-Za-z0-9]+)*)")


def _anonymize_pieces(rt: Runtime, pieces: list[str], plans: list[Any],
                      rng: np.random.Generator) -> str:
    if all(map(_IS_UNIT, plans)):  # fast path: every token is one word part
        pieces[1::2] = _replace_units(rt, plans, rng)
        return "".join(pieces)
    # Collect word units (in token order) and code parts.
    units: list[_Unit] = []
    codes: list[_CodePart] = []
    for plan in plans:
        if type(plan) is _Unit:
            units.append(plan)
        else:
            for seg in plan:
                if type(seg) is _Unit:
                    units.append(seg)
                elif type(seg) is _CodePart:
                    codes.append(seg)

    words = _replace_units(rt, units, rng)
    code_texts = replace_codes([c.text for c in codes], rng)

    out: list[str] = []
    wi = ci = 0
    for plan in plans:
        if type(plan) is _Unit:
            out.append(words[wi])
            wi += 1
            continue
        buf = []
        for seg in plan:
            if type(seg) is _Unit:
                buf.append(words[wi])
                wi += 1
            elif type(seg) is _CodePart:
                buf.append(code_texts[ci])
                ci += 1
            else:
                buf.append(seg)
        out.append("".join(buf))
    pieces[1::2] = out
    return "".join(pieces)


def _replace_units(rt: Runtime, units: list[_Unit], rng: np.random.Generator) -> list[str]:
    if not units:
        return []
    ids = np.fromiter(map(_WORD_ID, units), dtype=np.int64, count=len(units))
    placed = ids >= 0
    out_ids = np.empty_like(ids)
    if placed.all():
        out_ids[:] = rt.mechanism.sample(ids, rng)
    else:
        if placed.any():
            out_ids[placed] = rt.mechanism.sample(ids[placed], rng)
        n_free = int((~placed).sum())
        out_ids[~placed] = rt.index.candidates[rng.integers(0, rt.index.n_candidates, n_free)]
    # Leak guard for words outside the embedding (in-vocabulary rows are guarded in the table).
    for i in compress(range(len(units)), map(_GUARD_KEY, units)):
        unit = units[i]
        assert unit.guard_key is not None
        if rt.is_variant(unit.guard_key, int(out_ids[i])):
            out_ids[i] = _guarded_redraw(rt, unit, rng)
    cases = np.fromiter(map(_CASE, units), dtype=np.int64, count=len(units))
    return list(map(rt.flat_forms.__getitem__, (cases * len(rt.store) + out_ids).tolist()))


_IS_UNIT = _Unit.__instancecheck__
_WORD_ID = attrgetter("word_id")
_CASE = attrgetter("case")
_GUARD_KEY = attrgetter("guard_key")


def _guarded_redraw(rt: Runtime, unit: _Unit, rng: np.random.Generator) -> int:
    if unit.safe is not None:
        return int(unit.safe[rng.integers(0, len(unit.safe))])
    assert unit.guard_key is not None
    for _ in range(1000):
        j = int(rt.index.candidates[rng.integers(0, rt.index.n_candidates)])
        if not rt.is_variant(unit.guard_key, j):
            return j
    raise ConfigError("the candidate vocabulary has no word that is not a variant of the input")


# ------------------------------------------------------------------------------------------------
# The public class
# ------------------------------------------------------------------------------------------------
def _fresh_entropy() -> int:
    return int.from_bytes(os.urandom(16), "little")


def _seed_entropy(seed: int | None) -> int:
    if seed is None:
        return _fresh_entropy()
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"seed must be a non-negative integer or None, got {seed!r}")
    return seed


class Anonymizer:
    """Replace every word of a text by a word drawn near it in an embedding.

    Args:
        embedding: embedding name (``minilm-words``, an imported name) or file path.
        mechanism: ``knn`` (default) or another registered mechanism.
        k: neighbourhood size for ``knn`` (default 10).
        seed: ``None`` draws entropy from the OS; an integer makes output reproducible (and lets
            anyone who knows it replay the noise: keep it secret or don't set it for releases).
        min_length: shortest replacement word.
        allowlist: optional path of a public word list restricting replacements.
        approximate: ``None`` (exact search), ``"hnsw"`` or ``"auto"`` for large vocabularies.
        **params: other mechanism parameters (``epsilon`` ...).

    Documents are numbered in the order they are given, across calls; document ``i`` always gets
    the random stream ``SeedSequence(seed, spawn_key=(i,))``, whatever the batching or ``jobs``.
    """

    def __init__(self, embedding: str = DEFAULT_EMBEDDING, mechanism: str = "knn", *,
                 k: int | None = None, seed: int | None = None, min_length: int = 2,
                 allowlist: str | None = None, approximate: str | None = None,
                 **params: Any) -> None:
        if k is not None:
            params["k"] = k
        clean = tuple(sorted((n, v) for n, v in params.items() if v is not None))
        self.config = AnonymizerConfig(
            embedding=str(embedding), mechanism=str(mechanism).lower(), params=clean,
            min_length=positive_int("min_length", min_length),
            allowlist=None if allowlist is None else str(allowlist), approximate=approximate,
        )
        self.entropy = _seed_entropy(seed)
        self.runtime = get_runtime(self.config)  # fail fast on bad configuration
        self._next = 0

    @property
    def mechanism(self) -> Mechanism:
        return self.runtime.mechanism

    def _take(self, n: int = 1) -> int:
        start = self._next
        self._next += n
        return start

    def anonymize(self, text: str) -> str:
        """Anonymize one document (the next in this anonymizer's numbering)."""
        return anonymize_text(text, self.config, (self.entropy, (self._take(),)))

    def anonymize_many(self, texts: Iterable[str], *, jobs: int = 1,
                       chunksize: int = 64) -> Iterator[str]:
        """Anonymize documents lazily, in order, optionally in ``jobs`` worker processes.

        Documents travel in chunks of ``chunksize``; the output does not depend on either knob.
        """
        jobs = positive_int("jobs", jobs)
        chunksize = positive_int("chunksize", chunksize)

        def chunks() -> Iterator[tuple[list[str], AnonymizerConfig, list[DocumentSeed]]]:
            batch: list[str] = []
            for text in texts:
                batch.append(text)
                if len(batch) == chunksize:
                    yield batch, self.config, [(self.entropy, (self._take(),)) for _ in batch]
                    batch = []
            if batch:
                yield batch, self.config, [(self.entropy, (self._take(),)) for _ in batch]

        for outputs in parallel_map(_anonymize_chunk, chunks(), jobs=jobs):
            yield from outputs

    def digest(self) -> str:
        """Short hash of the configuration (not of the seed), for provenance records."""
        return hashlib.sha1(repr(self.config).encode()).hexdigest()[:12]


def _anonymize_chunk(args: tuple[list[str], AnonymizerConfig, list[DocumentSeed]]) -> list[str]:
    return anonymize_texts(*args)
