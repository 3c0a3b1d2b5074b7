"""The :class:`Backend` protocol (an ordered, lazy, bounded map of tasks), the one chunking path
and the engines' name table.

An engine only maps a function over items; what it runs (the pipeline's
:func:`~embedanon.pipeline.document.run_task` over a :class:`~embedanon.pipeline.document.Task`)
is a pure function of its item, so every engine gives byte-identical output. The engines are
:data:`BUILTIN_BACKENDS`, imported on first lookup: no engine imports this registry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol, TypeVar

from .._registry import Registry

T = TypeVar("T")
R = TypeVar("R")

#: Chunk limits: a chunk is sent to a worker in one message and its words are planned together.
CHUNK_BYTES = 256 << 10
CHUNK_TEXTS = 8192


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


#: The built-in engines: name -> class (``package.module:attribute``), imported on first lookup.
BUILTIN_BACKENDS: dict[str, str] = {
    "processes": "embedanon.backends.processes:ProcessBackend",
    "dask": "embedanon.backends.dask:DaskBackend",
}

BACKENDS: Registry[Callable[..., Backend]] = Registry("engine", BUILTIN_BACKENDS)


def build_backend(name: str = "processes", **options: Any) -> Backend:
    """An engine by name (``processes``, ``dask``) with its options (``jobs``, ``scheduler``)."""
    return BACKENDS.get(name)(**{k: v for k, v in options.items() if v is not None})
