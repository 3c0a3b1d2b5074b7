"""The public class: :class:`Anonymizer`."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator
from typing import Any

from .._validate import positive_int
from ..backends.base import Backend, Task, build_backend, chunk_texts, run_task
from ..config import DEFAULT_DETECTORS, AnonymizerConfig, ScopeConfig
from ..errors import ConfigError
from ..mechanisms import Mechanism
from ..noise import ReleaseKey
from ..surrogates import SurrogateConfig
from ..vectors.defaults import DEFAULT_EMBEDDING
from .document import AnonymizedDocument, anonymize_document, anonymize_text
from .runtime import get_runtime


def resolve_key(key: ReleaseKey | str | os.PathLike[str] | None, seed: int | None) -> ReleaseKey:
    """The release key: a :class:`ReleaseKey`, a key file path, a seed (experiments) or fresh."""
    if key is not None and seed is not None:
        raise ConfigError("give a key or a seed, not both")
    if isinstance(key, ReleaseKey):
        return key
    if key is not None:
        return ReleaseKey.from_file(key)
    if seed is not None:
        return ReleaseKey.from_seed(seed)
    return ReleaseKey.fresh()


class Anonymizer:
    """Replace every word of a text by a word drawn near it in an embedding.

    Args:
        embedding: embedding name (``minilm-words``, an imported name) or file path.
        mechanism: ``knn`` (default) or another registered mechanism.
        k: neighborhood size for ``knn`` (default 10).
        key: the release key (a :class:`~embedanon.noise.ReleaseKey` or the path of a key file
            written by ``embedanon keygen``). The same data under the same key always gives the
            same release, so exporting it again reveals nothing new.
        seed: for reproducible experiments only: the key is derived from it (scrypt), and anyone
            who guesses the seed can replay the noise. Neither key nor seed: a fresh key.
        min_length: shortest replacement word.
        allowlist: optional path of a public word list restricting replacements.
        index: neighbor search, ``None``/``"flat"`` (exact), ``"hnsw"`` or ``"auto"``.
        scope: ``"all"`` (default: every word), ``"detected"`` (only detected spans change) or
            ``"hybrid"`` (detected spans get surrogates, every other word the mechanism), or a
            full :class:`~embedanon.config.ScopeConfig`.
        detectors: detector names for the scoped modes (default ``"model,regex"``).
        strategies: per-label actions, e.g. ``{"DATE": "keep", "DEFAULT": "surrogate"}``.
        allow, deny: strings never / always treated as PII (deny: ``{string: label}``).
        detector_options: e.g. ``{"llm_url": ..., "llm_model": ...}``.
        surrogates: a :class:`~embedanon.surrogates.SurrogateConfig`.
        **params: other mechanism parameters (``epsilon`` ...).
    """

    def __init__(self, embedding: str = DEFAULT_EMBEDDING, mechanism: str = "knn", *,
                 k: int | None = None, key: ReleaseKey | str | os.PathLike[str] | None = None,
                 seed: int | None = None, min_length: int = 2, allowlist: str | None = None,
                 index: str | None = None, scope: str | ScopeConfig = "all",
                 detectors: str | None = None, strategies: dict[str, str] | None = None,
                 allow: Iterable[str] = (), deny: dict[str, str] | None = None,
                 detector_options: dict[str, Any] | None = None,
                 surrogates: SurrogateConfig | None = None, neutral_formats: bool = False,
                 **params: Any) -> None:
        if k is not None:
            params["k"] = k
        if not isinstance(scope, ScopeConfig):
            scope = ScopeConfig(
                scope=str(scope), detectors=detectors or DEFAULT_DETECTORS,
                detector_options=tuple(sorted((n, v) for n, v in (detector_options or {}).items()
                                              if v is not None)),
                strategies=tuple((str(lab).upper(), str(act).lower())
                                 for lab, act in (strategies or {}).items()),
                allow=tuple(allow), deny=tuple(sorted((deny or {}).items())),
                surrogates=surrogates or SurrogateConfig(), neutral_formats=neutral_formats)
        clean = tuple(sorted((n, v) for n, v in params.items() if v is not None))
        if not isinstance(mechanism, str):
            raise TypeError(f"mechanism must be a name, got {type(mechanism).__name__}")
        self.config = AnonymizerConfig(
            embedding=str(embedding), mechanism=mechanism.lower(), params=clean,
            min_length=positive_int("min_length", min_length),
            allowlist=None if allowlist is None else str(allowlist), index=index, scope=scope,
        )
        self.runtime = get_runtime(self.config)  # fail fast on bad configuration
        if scope.scope != "all":
            self.runtime.detector  # noqa: B018 (builds and validates the detectors now)
        self.key = resolve_key(key, seed)

    @property
    def mechanism(self) -> Mechanism:
        return self.runtime.mechanism

    def anonymize(self, text: str, *, field: str = "") -> str:
        """Anonymize one text (``field``: the name of its field in a record, part of its identity)."""
        return anonymize_text(text, self.config, self.key, field=field)

    def anonymize_document(self, text: str, *, field: str = "") -> AnonymizedDocument:
        """Anonymize one text and report every replaced span with its offsets."""
        return anonymize_document(text, self.config, self.key, field=field)

    def anonymize_many(self, texts: Iterable[str], *, jobs: int = 1, field: str = "",
                       backend: Backend | None = None) -> Iterator[str]:
        """Anonymize texts lazily, in order, in ``jobs`` worker processes or on ``backend``.

        The output does not depend on ``jobs``, the backend or how texts are chunked.
        """
        engine = backend or build_backend("processes", jobs=positive_int("jobs", jobs))
        tasks = (Task(tuple(t for t, _ in chunk), tuple(f for _, f in chunk), self.config, self.key)
                 for chunk in chunk_texts((text, field) for text in texts))
        for outputs in engine.map(run_task, tasks):
            yield from outputs

    def digest(self) -> str:
        """Short hash of the configuration (not of the key), for provenance records."""
        return hashlib.sha256(repr(self.config).encode()).hexdigest()[:12]
