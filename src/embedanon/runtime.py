"""Per-process runtime of an :class:`AnonymizerConfig`: embedding, index, mechanism and the
cached *plan* of each distinct token (how its word parts, codes and joiners are replaced).

Plans are deterministic functions of the token, so caching them never changes output.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import ConfigError
from .leakguard import keys_are_variants
from .mechanisms.base import Mechanism, build_mechanism
from .text import JOINERS, TITLE, apply_case, case_code, lookup_key, split_joined
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
    composer: ComposedSearch = field(init=False)
    flat_forms: list[str] = field(init=False)
    plans: dict[str, Any] = field(init=False, default_factory=dict)
    _variant_cache: dict[tuple[str, int], bool] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        words = self.store.words
        self.composer = ComposedSearch(self.index)
        # Replacement surface forms, indexed by case * V + word id (LOWER, TITLE, UPPER).
        self.flat_forms = [*words, *(apply_case(w, TITLE) for w in words), *(w.upper() for w in words)]

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
