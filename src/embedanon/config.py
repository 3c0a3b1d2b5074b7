"""What determines a release's output distribution: :class:`AnonymizerConfig` (frozen, hashable,
picklable, small). Heavy resources are derived from it once per process
(:func:`embedanon.pipeline.runtime.get_runtime`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import ConfigError
from .text import lookup_key
from .vectors.defaults import DEFAULT_EMBEDDING
from .vectors.store import CandidatePolicy


@dataclass(frozen=True, slots=True)
class AnonymizerConfig:
    """Everything that determines the output distribution except the key.

    Attributes:
        embedding: embedding name or file path.
        mechanism: registered mechanism name.
        params: mechanism parameters as sorted (name, value) pairs, e.g. (("k", 10),).
        min_length: shortest candidate replacement word.
        allowlist: optional path of a public word list; candidates must be in it.
        index: neighbor search, ``None``/``"flat"`` (exact), ``"hnsw"`` or ``"auto"``
            (see :class:`~embedanon.vectors.index.NeighborIndex`).
    """

    embedding: str = DEFAULT_EMBEDDING
    mechanism: str = "knn"
    params: tuple[tuple[str, Any], ...] = ()
    min_length: int = 2
    allowlist: str | None = None
    index: str | None = None

    def policy(self) -> CandidatePolicy:
        allow = None
        if self.allowlist is not None:
            try:
                with open(self.allowlist, encoding="utf-8") as fh:
                    allow = frozenset(lookup_key(line.split()[0]) for line in fh if line.strip())
            except UnicodeDecodeError:
                raise ConfigError(f"allowlist {self.allowlist} is not valid UTF-8") from None
            except OSError as exc:
                raise ConfigError(f"cannot read allowlist {self.allowlist}: {exc.strerror}") from None
        return CandidatePolicy(min_length=self.min_length, allowlist=allow)
