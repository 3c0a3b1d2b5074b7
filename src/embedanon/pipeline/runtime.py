"""Per-process resources of one :class:`~embedanon.config.AnonymizerConfig`: embedding, index,
mechanism, lexicon and replacement surface forms, loaded once per process.

A process keeps the runtimes of its :data:`RUNTIME_CACHE_SIZE` most recently used configs (each
holds an index, tables and, in the scoped modes, a detector: 70 to 200 MB with the default
embedding); an older one is rebuilt when its config comes back, with the same outputs. An
:class:`~embedanon.Anonymizer` keeps its own runtime alive while it lives.

Thread-safety rule: a :class:`Runtime` is shared by every thread of a process and its caches
(lexicon plans, the exponential samplers' type tables) are not safe to mutate concurrently, so
work on a runtime runs under its ``lock`` (one chunk at a time per process and config; threads of
a Dask worker serialize there), detection included. Runtimes themselves are created under a
module lock. A fork waits a bounded time for each of these locks (see :func:`_before_fork`); a
forked worker forgets a runtime whose lock a thread of its parent still held.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from .._paths import file_stamp
from ..config import AnonymizerConfig
from ..errors import ConfigError
from ..leakguard import oov_variants
from ..lexicon import word_frequencies
from ..mechanisms import Mechanism, build_mechanism
from ..noise import Noise, NoiseSource, ReleaseKey, integers
from ..text import TITLE, apply_case, lookup_key
from ..vectors.compose import ComposedSearch
from ..vectors.defaults import load_embedding, private_embedding, source_stamp
from ..vectors.index import NeighborIndex
from ..vectors.store import CandidatePolicy, EmbeddingStore
from .domains import PUBLIC_TLDS
from .plan import Lexicon

_VARIANT_CACHE_LIMIT = 1 << 20
#: Uniform redraws of a word without guarded candidates before giving up (:meth:`Runtime.guarded_pick`).
GUARD_ATTEMPTS = 1000


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
    #: its key in the process's runtime cache: (config, :func:`files_stamp`)
    cached: tuple[object, ...] = field(init=False, default=())
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
        """The union of the configured detectors (built on first use, under :attr:`lock`; use it
        under the lock too: the model detector's caches are not thread-safe)."""
        if self._detector is None:
            from ..detectors.registry import build_detectors

            scope = self.config.scope
            with self.lock:
                if self._detector is None:
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

    def guarded_pick(self, noise: Noise, key: str, safe: Sequence[int]) -> int:
        """A candidate that is no variant of word ``key``, drawn from ``noise`` (one token): a
        uniform pick among ``safe`` (candidates already guarded against ``key``) when there are
        any, else uniform candidates until one is not a variant (attempt ``a`` in stream ``a``)."""
        if len(safe):
            return int(safe[int(integers(noise, len(safe))[0])])
        for attempt in range(GUARD_ATTEMPTS):
            out = int(self.index.candidates[integers(noise, self.index.n_candidates, attempt)[0]])
            if not self.is_variant(key, out):
                return out
        raise ConfigError("the candidate vocabulary has no word that is not a variant of the input")


#: Runtimes kept per process (least recently used dropped first). A test suite or an experiment
#: that goes through hundreds of configs once held every runtime it had built (9 GB).
RUNTIME_CACHE_SIZE = 6
_RUNTIMES: OrderedDict[tuple[object, ...], Runtime] = OrderedDict()  # (config, files_stamp)
#: Every runtime still alive, cached or held by an Anonymizer: what a fork must lock.
_LIVE: weakref.WeakSet[Runtime] = weakref.WeakSet()
#: Held while a runtime is created and around a fork; re-entrant, so a thread that forks while it
#: creates a runtime does not wait for itself.
_LOCK = threading.RLock()
#: How long a fork waits for each lock another thread holds (a chunk's work is well under this)
_FORK_WAIT = 2.0
#: What :func:`_before_fork` took: the module lock (or not) and, per runtime, whether its lock was
#: taken; read by the after-fork hooks of the same fork
_FORK_STATE: list[tuple[Runtime | None, bool]] = []


def _before_fork() -> None:
    """Take the module lock, then every runtime's lock, before this process forks, waiting up to
    :data:`_FORK_WAIT` for each.

    A forked child has only the forking thread: a lock another thread held at the fork stays
    held in the child for ever, so a pool worker forked while a thread of the parent anonymized
    (``anonymize_many(jobs=2)`` beside a thread calling ``anonymize``) waited on it and the call
    hung. Waiting here for the other threads' current chunks (each lock is held for one chunk)
    also means the child inherits caches no thread was halfway through changing. A lock still
    held after the wait (a thread stuck inside a runtime, or holding one while it waits for this
    fork) is not waited for any longer, which could deadlock the parent: the child forgets that
    runtime instead (:func:`_after_fork_in_child`), so it never uses half-changed caches or a held
    lock.
    """
    _FORK_STATE.append((None, _LOCK.acquire(timeout=_FORK_WAIT)))
    for runtime in list(_LIVE):
        _FORK_STATE.append((runtime, runtime.lock.acquire(timeout=_FORK_WAIT)))


def _after_fork_in_parent() -> None:
    """Release what :func:`_before_fork` took."""
    while _FORK_STATE:
        runtime, taken = _FORK_STATE.pop()
        if taken:
            (_LOCK if runtime is None else runtime.lock).release()


def _after_fork_in_child() -> None:
    """Release what :func:`_before_fork` took (the child's only thread owns it); a runtime whose
    lock another thread of the parent still held is forgotten and given a fresh lock (a reference
    kept elsewhere then cannot hang), and so is a held module lock."""
    global _LOCK
    while _FORK_STATE:
        runtime, taken = _FORK_STATE.pop()
        if runtime is None:
            if taken:
                _LOCK.release()
            else:
                _LOCK = threading.RLock()
        elif taken:
            runtime.lock.release()
        else:
            if _RUNTIMES.get(runtime.cached) is runtime:
                del _RUNTIMES[runtime.cached]
            runtime.lock = threading.RLock()


if hasattr(os, "register_at_fork"):  # not on Windows, which cannot fork
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                        after_in_child=_after_fork_in_child)


@lru_cache(maxsize=1)
def _public_words() -> frozenset[str]:
    return frozenset(lookup_key(word) for word in word_frequencies())


def candidate_policy(config: AnonymizerConfig) -> CandidatePolicy:
    """The candidate vocabulary of ``config``: its policy (``--candidates``, ``--min-length``); an
    embedding that not everyone may read, without ``--candidates``, gives only its words in the
    bundled public word list (100,000 words), as its own words may be the notes' names
    (decision 0237)."""
    policy = config.policy()
    if policy.allowlist is None and private_embedding(config.embedding):
        return dataclasses.replace(policy, allowlist=_public_words())
    return policy


def files_stamp(config: AnonymizerConfig) -> tuple[object, ...]:
    """What the files ``config`` names look like now: the embedding's :func:`source_stamp` and the
    allow list's (size, mtime in ns, inode). A config names files by path, so this is part of
    the runtime cache's key: an allow list or embedding rewritten in place is read anew."""
    allow = None if config.allowlist is None else file_stamp(config.allowlist)
    return (source_stamp(config.embedding), allow)


def get_runtime(config: AnonymizerConfig) -> Runtime:
    """The embedding, index and mechanism for ``config``, loaded once per process while it is
    among the :data:`RUNTIME_CACHE_SIZE` most recently used and the files it names
    (:func:`files_stamp`) are unchanged."""
    cached = (config, files_stamp(config))
    runtime = _RUNTIMES.get(cached)
    if runtime is not None:  # no lock on a hit: one C call each, atomic under the GIL
        with contextlib.suppress(KeyError):  # dropped by another thread meanwhile
            _RUNTIMES.move_to_end(cached)
        return runtime
    with _LOCK:
        runtime = _RUNTIMES.get(cached)
        if runtime is not None:
            return runtime
        store = load_embedding(config.embedding)
        index = NeighborIndex(store, candidate_policy(config), approximate=config.index)
        mechanism = build_mechanism(config.mechanism, index, **dict(config.params))
        runtime = _RUNTIMES[cached] = Runtime(config, store, index, mechanism)
        runtime.cached = cached
        _LIVE.add(runtime)
        while len(_RUNTIMES) > RUNTIME_CACHE_SIZE:
            _RUNTIMES.popitem(last=False)
    return runtime
