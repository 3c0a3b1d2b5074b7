"""The :class:`Backend` protocol (an ordered, lazy, bounded map of tasks), the one chunking path
and the task function every engine runs.

A :class:`Task` carries texts, the config and the release key; its
result is a pure function of those (see :mod:`embedanon.pipeline.document`), so every engine
gives byte-identical output.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from .._registry import Registry
from ..config import AnonymizerConfig
from ..noise import ReleaseKey

T = TypeVar("T")
R = TypeVar("R")

#: Chunk limits: a chunk is sent to a worker in one message and its words are planned together.
CHUNK_BYTES = 256 << 10
CHUNK_TEXTS = 8192


@dataclass(frozen=True, slots=True)
class Task:
    """Texts to anonymize, with the config and key."""

    texts: tuple[str, ...]
    config: AnonymizerConfig
    key: ReleaseKey


def run_task(task: Task) -> list[str]:
    """Anonymize a task's texts (what every worker runs)."""
    from ..pipeline.document import anonymize_records

    return anonymize_records(task.texts, task.config, task.key)


def chunk_texts(texts: Iterable[str], *, max_bytes: int = CHUNK_BYTES,
                max_texts: int = CHUNK_TEXTS) -> Iterator[list[str]]:
    """Group texts into chunks of at most ``max_texts`` texts and about ``max_bytes`` characters
    (a longer text is a chunk of its own)."""
    chunk: list[str] = []
    size = 0
    for text in texts:
        chunk.append(text)
        size += len(text)
        if size >= max_bytes or len(chunk) >= max_texts:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


class Backend(Protocol):
    """Runs ``func`` over ``items``, yielding results in order, lazily, with bounded memory."""

    name: str

    def map(self, func: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        ...


def _load_builtin() -> None:
    from . import dask, processes  # noqa: F401


BACKENDS: Registry[Callable[..., Backend]] = Registry("engine", _load_builtin)


def build_backend(name: str = "processes", **options: Any) -> Backend:
    """An engine by name (``processes``, ``dask``) with its options (``jobs``, ``scheduler``)."""
    return BACKENDS.get(name)(**{k: v for k, v in options.items() if v is not None})
