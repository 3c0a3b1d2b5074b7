"""One name -> factory registry, shared by mechanisms, detectors, surrogates and engines.

Names are lower-case identifiers (``knn``, ``regex``); registering a name twice is refused, and
looking up an unknown name raises a :class:`~embedanon.errors.ConfigError` listing the valid ones.
Plug-ins register themselves when their module is imported; ``loader`` imports the built-in
modules on first use, so a protocol module never imports its plug-ins.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from .errors import ConfigError

T = TypeVar("T")


class Registry(Generic[T]):
    """Maps lower-case names to entries of type ``T`` (usually factories).

    Args:
        kind: what the entries are, for messages (``mechanism``, ``detector``).
        loader: called once before the first lookup, to import the built-in plug-ins.
    """

    def __init__(self, kind: str, loader: Callable[[], None] | None = None) -> None:
        self.kind = kind
        self._entries: dict[str, T] = {}
        self._loader = loader
        self._loaded = loader is None
        self._loading = False
        self._load_lock = threading.RLock()

    def add(self, name: str, entry: T) -> T:
        if not isinstance(name, str) or name != name.lower() or not name.replace("-", "_").isidentifier():
            raise ValueError(f"{self.kind} names are lower-case identifiers, got {name!r}")
        if name in self._entries:
            raise ValueError(f"a {self.kind} named {name!r} is already registered")
        self._entries[name] = entry
        return entry

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator form of :meth:`add`."""
        return lambda entry: self.add(name, entry)

    def _load(self) -> None:
        # Marked loaded only once the loader succeeded, so a failing plug-in import fails every
        # lookup loudly instead of leaving a registry silently without its built-ins; a lookup
        # made by the loader itself (re-entrant, same thread) sees what is registered so far.
        # Another thread waits on the lock until the loader is done: it used to see the flag
        # ``_loading`` and look names up in a half-filled registry (unknown surrogate 'name' on
        # the first concurrent use of a hybrid Anonymizer).
        if self._loaded:
            return
        with self._load_lock:
            if not self._loaded and not self._loading:
                assert self._loader is not None
                self._loading = True
                try:
                    self._loader()
                    self._loaded = True
                finally:
                    self._loading = False

    def get(self, name: object) -> T:
        self._load()
        key = name.lower() if isinstance(name, str) else name
        if not isinstance(key, str) or key not in self._entries:
            raise ConfigError(f"unknown {self.kind} {name!r}; choose one of {', '.join(self.names())}")
        return self._entries[key]

    def names(self) -> list[str]:
        self._load()
        return sorted(self._entries)

    def items(self) -> Iterator[tuple[str, T]]:
        self._load()
        return iter(sorted(self._entries.items()))

    def __contains__(self, name: object) -> bool:
        self._load()
        return name in self._entries
