"""Per-process resources of one :class:`~embedanon.config.AnonymizerConfig`: embedding, index,
mechanism, lexicon and replacement surface forms, loaded once per process.

Thread-safety rule: a :class:`Runtime` is shared by every thread of a process and its caches
(lexicon plans, the exponential samplers' type tables) are not safe to mutate concurrently, so
work on a runtime runs under its ``lock`` (one chunk at a time per process and config; threads of
a Dask worker serialize there). Runtimes themselves are created under a module lock.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..config import AnonymizerConfig
from ..leakguard import oov_variants
from ..mechanisms import Mechanism, build_mechanism
from ..noise import NoiseSource, ReleaseKey
from ..text import TITLE, apply_case
from ..vectors.compose import ComposedSearch
from ..vectors.defaults import load_embedding
from ..vectors.index import NeighborIndex
from ..vectors.store import EmbeddingStore
from .domains import PUBLIC_TLDS
from .plan import Lexicon

_VARIANT_CACHE_LIMIT = 1 << 20


@dataclass(eq=False)
class Runtime:
    """Resources shared by all records of one config in one process."""

    config: AnonymizerConfig
    store: EmbeddingStore
    index: NeighborIndex
    mechanism: Mechanism
    lexicon: Lexicon = field(init=False)
    #: Replacement surface forms, indexed by case * V + word id (LOWER, TITLE, UPPER).
    forms: list[str] = field(init=False)
    #: Whether outputs for out-of-vocabulary words are checked against the original word.
    guard: bool = field(init=False)
    lock: threading.RLock = field(init=False, default_factory=threading.RLock)
    _variants: dict[tuple[str, int], bool] = field(init=False, default_factory=dict)
    _detector: Any = field(init=False, default=None)
    _sources: dict[bytes, NoiseSource] = field(init=False, default_factory=dict)
    #: Word ids of the public top-level domains that are candidates (see :mod:`.domains`).
    tld_ids: tuple[int, ...] = field(init=False)

    def __post_init__(self) -> None:
        words = self.store.words
        composer = ComposedSearch(self.index) if self.store.pieces else None
        self.guard = not self.mechanism.may_return_input
        self.lexicon = Lexicon(self.store, composer)
        self.forms = [*words, *(apply_case(w, TITLE) for w in words), *(w.upper() for w in words)]
        ids = [self.store.id_of(t) for t in PUBLIC_TLDS]
        pos = self.index.candidate_positions(np.array(ids, dtype=np.int64))
        self.tld_ids = tuple(i for i, p in zip(ids, pos.tolist(), strict=True) if i >= 0 and p >= 0)

    @property
    def detector(self) -> Any:
        """The union of the configured detectors (built on first use)."""
        if self._detector is None:
            from ..detectors.registry import build_detectors

            scope = self.config.scope
            self._detector = build_detectors(scope.detectors, allow=scope.allow,
                                             deny=scope.deny,  # pairs: a dict would hide a conflict
                                             **dict(scope.detector_options))
        return self._detector

    def source(self, key: ReleaseKey) -> NoiseSource:
        """The noise source of ``key`` (derived once per key and process)."""
        src = self._sources.get(key.secret)
        if src is None:
            if len(self._sources) > 64:
                self._sources.clear()
            src = self._sources[key.secret] = NoiseSource(key)
        return src

    def is_variant(self, key: str, word_id: int) -> bool:
        """Whether candidate ``word_id`` is a variant of the out-of-vocabulary word ``key``."""
        cache_key = (key, word_id)
        hit = self._variants.get(cache_key)
        if hit is None:
            if len(self._variants) > _VARIANT_CACHE_LIMIT:
                self._variants.clear()
            hit = self._variants[cache_key] = oov_variants(key, self.store.words[word_id])
        return hit


_RUNTIMES: dict[AnonymizerConfig, Runtime] = {}
_LOCK = threading.Lock()


def get_runtime(config: AnonymizerConfig) -> Runtime:
    """Load (once per process) the embedding, index and mechanism for ``config``."""
    runtime = _RUNTIMES.get(config)
    if runtime is None:
        with _LOCK:
            runtime = _RUNTIMES.get(config)
            if runtime is None:
                store = load_embedding(config.embedding)
                index = NeighborIndex(store, config.policy(), approximate=config.index)
                mechanism = build_mechanism(config.mechanism, index, **dict(config.params))
                runtime = _RUNTIMES[config] = Runtime(config, store, index, mechanism)
    return runtime
