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
import unicodedata
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import compress
from operator import attrgetter
from typing import Any

import numpy as np

from ._validate import positive_int
from .errors import ConfigError
from .leakguard import keys_are_variants
from .mechanisms.base import Mechanism, build_mechanism
from .text import JOINERS, WORD_SPLIT_RE, apply_case, case_code, lookup_key, split_joined
from .vectors.compose import ComposedSearch
from .vectors.defaults import DEFAULT_EMBEDDING, load_embedding
from .vectors.index import NeighborIndex
from .vectors.store import CandidatePolicy, EmbeddingStore

CLITICS = frozenset({"s", "t", "re", "ll", "ve", "d", "m"})
_PLAN_CACHE_LIMIT = 500_000
_FALLBACK_K = 10


@dataclass(frozen=True, slots=True)
class AnonymizerConfig:
    """Everything that determines the output distribution (hashable, picklable, small).

    Attributes:
        embedding: embedding name or file path.
        mechanism: registered mechanism name.
        params: mechanism parameters as sorted (name, value) pairs, e.g. (("k", 10),).
        min_length: shortest candidate replacement word.
        allowlist: optional path of a public word list; candidates must be in it.
        approximate: neighbour search, ``None``/``"flat"`` (exact), ``"hnsw"`` or ``"auto"``
            (see :class:`~embedanon.vectors.index.NeighborIndex`).
    """

    embedding: str = DEFAULT_EMBEDDING
    mechanism: str = "knn"
    params: tuple[tuple[str, Any], ...] = ()
    min_length: int = 2
    allowlist: str | None = None
    approximate: str | None = None

    def policy(self) -> CandidatePolicy:
        allow = None
        if self.allowlist is not None:
            try:
                with open(self.allowlist, encoding="utf-8") as fh:
                    allow = frozenset(lookup_key(line.split()[0]) for line in fh if line.strip())
            except OSError as exc:
                raise ConfigError(f"cannot read allowlist {self.allowlist}: {exc}") from exc
        return CandidatePolicy(min_length=self.min_length, allowlist=allow)


# ------------------------------------------------------------------------------------------------
# Per-process runtime
# ------------------------------------------------------------------------------------------------
@dataclass(eq=False)
class _Unit:
    """A word part to replace: its embedding (or proxy) id, case, and leak-guard data."""

    word_id: int  # -1: no vector, draw a uniform candidate
    case: int
    guard_key: str | None = None  # set for words outside the embedding
    safe: np.ndarray | None = None  # guarded neighbours used when a draw is a variant


@dataclass(eq=False)
class Runtime:
    """Resources shared by all documents of one config in one process."""

    config: AnonymizerConfig
    store: EmbeddingStore
    index: NeighborIndex
    mechanism: Mechanism
    forms: tuple[list[str], list[str], list[str]] = field(init=False)
    composer: ComposedSearch = field(init=False)
    flat_forms: list[str] = field(init=False)
    plans: dict[str, Any] = field(init=False, default_factory=dict)
    _variant_cache: dict[tuple[str, int], bool] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        words = self.store.words
        self.composer = ComposedSearch(self.index)
        self.forms = (list(words), [apply_case(w, 1) for w in words], [w.upper() for w in words])
        self.flat_forms = [*self.forms[0], *self.forms[1], *self.forms[2]]  # case * V + id

    # -- planning: how each distinct token is handled (cached, deterministic) -----------------
    def plan_all(self, tokens: list[str]) -> list[Any]:
        """Plans of ``tokens``; unseen tokens are planned together (one batched search).

        The cache is bounded: when it would outgrow :data:`_PLAN_CACHE_LIMIT` it is emptied and
        every token of this call is planned afresh (plans are deterministic, so output is the same).
        """
        plans = self.plans
        unique = list(dict.fromkeys(tokens))
        missing = [t for t in unique if t not in plans]
        if missing:
            if len(plans) + len(missing) > _PLAN_CACHE_LIMIT:
                plans.clear()
                self._variant_cache.clear()
                missing = unique
            pending: list[tuple[_Unit, str]] = []
            for token in missing:
                plans[token] = self._make_plan(token, pending)
            if pending:
                self._place_oov(pending)
        return [plans[t] for t in tokens]

    def _make_plan(self, token: str, pending: list[tuple[_Unit, str]]) -> Any:
        if token.isalpha() and token.isascii():
            return self._word_unit(token, pending)
        segments: list[Any] = []
        parts = _split_parts(token)
        for i, part in enumerate(parts):
            if part in JOINERS and len(part) == 1:
                segments.append(part)
            elif _is_alpha_part(part):
                clitic = (i >= 2 and parts[i - 1] in "'’" and part.lower() in CLITICS
                          and _is_alpha_part(parts[i - 2]))
                segments.append(part if clitic else self._word_unit(part, pending))
            else:
                segments.append(_CodePart(part))
        if len(segments) == 1 and isinstance(segments[0], _Unit):
            return segments[0]
        return tuple(segments)

    def _word_unit(self, part: str, pending: list[tuple[_Unit, str]]) -> _Unit:
        key = lookup_key(part)
        case = case_code(part)
        word_id = self.store.id_of(key)
        if word_id >= 0:
            return _Unit(word_id, case)
        unit = _Unit(-1, case, key, None)
        if self.store.pieces:
            pending.append((unit, key))
        return unit

    def _place_oov(self, pending: list[tuple[_Unit, str]]) -> None:
        """Give each out-of-vocabulary unit its proxy: its nearest guarded candidate."""
        placed, rows = self.composer.neighbors([key for _, key in pending], _FALLBACK_K)
        for (unit, _), ok, row in zip(pending, placed.tolist(), rows, strict=True):
            if ok:
                unit.word_id = int(row[0])
                unit.safe = row

    def is_variant(self, key: str, word_id: int) -> bool:
        cache_key = (key, word_id)
        hit = self._variant_cache.get(cache_key)
        if hit is None:
            hit = self._variant_cache[cache_key] = keys_are_variants(key, self.store.words[word_id])
        return hit


@dataclass(frozen=True, slots=True)
class _CodePart:
    """Digits/letters of a number or code, each replaced by another character of its class."""

    text: str


def _split_parts(token: str) -> list[str]:
    """Split a token on its joiners, keeping them: ``o'neil`` -> ``o``, ``'``, ``neil``."""
    return [p for p in split_joined(token) if p]


def _is_alpha_part(part: str) -> bool:
    return all(ch.isalpha() or unicodedata.category(ch).startswith("M") for ch in part)


_RUNTIMES: dict[AnonymizerConfig, Runtime] = {}


def get_runtime(config: AnonymizerConfig) -> Runtime:
    """Load (once per process) the embedding, index and mechanism for ``config``."""
    runtime = _RUNTIMES.get(config)
    if runtime is None:
        store = load_embedding(config.embedding)
        index = NeighborIndex(store, config.policy(), approximate=config.approximate)
        mechanism = build_mechanism(config.mechanism, index, **dict(config.params))
        runtime = _RUNTIMES[config] = Runtime(config, store, index, mechanism)
    return runtime


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
    code_texts = _replace_codes(codes, rng)

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


_ASCII_LOWER = "abcdefghijklmnopqrstuvwxyz"


def _replace_codes(codes: list[_CodePart], rng: np.random.Generator) -> list[str]:
    """Replace each digit by another digit and each letter by another letter of the same case.

    The first digit of a multi-digit run is never 0 (magnitudes and formats survive, values do
    not). Every output character differs from the input character at its position; combining
    marks are dropped; other numeric characters (``½``) become a random digit.
    """
    if not codes:
        return []
    texts = ["".join(ch for ch in c.text if not unicodedata.category(ch).startswith("M"))
             for c in codes]
    draws = rng.random(sum(map(len, texts))).tolist()
    out: list[str] = []
    pos = 0
    for chars in texts:
        buf = []
        for i, ch in enumerate(chars):
            u = draws[pos]
            pos += 1
            if ch.isalpha():
                base = ch.lower()
                if len(base) == 1 and base in _ASCII_LOWER:
                    new = _ASCII_LOWER[(_ASCII_LOWER.index(base) + 1 + int(u * 25)) % 26]
                else:
                    new = _ASCII_LOWER[int(u * 26)]
                buf.append(new.upper() if ch.isupper() else new)
                continue
            value = unicodedata.digit(ch, -1)
            run_start = i == 0 or chars[i - 1].isalpha()
            multi = i + 1 < len(chars) and not chars[i + 1].isalpha()
            if value < 0:
                buf.append(str(int(u * 10)))
            elif run_start and multi and value != 0:
                buf.append(str(1 + (value + int(u * 8)) % 9))  # 1..9 except value
            elif run_start and multi:
                buf.append(str(1 + int(u * 9)))  # leading zero -> 1..9
            else:
                buf.append(str((value + 1 + int(u * 9)) % 10))  # 0..9 except value
        out.append("".join(buf))
    return out


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


def _worker_init() -> None:
    # One faiss/BLAS thread per worker: the pool already uses every core, and OpenMP or BLAS
    # threads oversubscribed across processes make small searches many times slower.
    import faiss
    from threadpoolctl import threadpool_limits

    faiss.omp_set_num_threads(1)
    threadpool_limits(1)


def parallel_map(func: Any, items: Iterable[Any], *, jobs: int) -> Iterator[Any]:
    """Ordered, lazy map over ``items``, in ``jobs`` processes when ``jobs > 1``.

    At most ``4 * jobs`` items are in flight, so memory stays bounded on inputs of any size.
    Workers are forked where the platform allows it, so they inherit the loaded runtimes.
    """
    if jobs == 1:
        yield from map(func, items)
        return
    import multiprocessing as mp

    methods = mp.get_all_start_methods()
    ctx = mp.get_context("fork" if "fork" in methods else "spawn")
    with ctx.Pool(jobs, initializer=_worker_init) as pool:
        inflight: deque[Any] = deque()
        for item in items:
            inflight.append(pool.apply_async(func, (item,)))
            if len(inflight) >= 4 * jobs:
                yield inflight.popleft().get()
        while inflight:
            yield inflight.popleft().get()
