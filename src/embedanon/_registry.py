"""One name -> entry registry, shared by mechanisms, detectors, surrogates, engines and the
utility classifiers and loaders.

Names are lower-case identifiers (``knn``, ``regex``). The built-in entries are an explicit name
table, ``{"knn": "embedanon.mechanisms.knn:KnnMechanism"}``: a name's module is imported on its
first lookup and the attribute read from it (then passed through ``adapt``, when given). So the
registry imports its plug-ins and a plug-in never imports the registry that loads it: no import
circle, and a plug-in that fails to import fails loudly on the lookup of its own name.
:meth:`Registry.add` registers further entries (a user's own mechanism, a test's stub); a name
already taken, built in or added, is refused; an unknown name raises a
:class:`~embedanon.errors.ConfigError` listing the valid ones.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Generic, TypeVar

from .errors import ConfigError

T = TypeVar("T")


def check_name(kind: str, name: object) -> str:
    """``name`` if it is a lower-case identifier (hyphens allowed), else a ValueError naming ``kind``."""
    if not isinstance(name, str) or name != name.lower() or not name.replace("-", "_").isidentifier():
        raise ValueError(f"{kind} names are lower-case identifiers, got {name!r}")
    return name


def import_target(target: str) -> Any:
    """The object a ``"package.module:attribute"`` path names (the module imported if needed)."""
    module, sep, attribute = target.partition(":")
    if not sep or not module or not attribute:
        raise ValueError(f"a registry target is 'package.module:attribute', got {target!r}")
    return getattr(importlib.import_module(module), attribute)


class Registry(Generic[T]):
    """Maps lower-case names to entries of type ``T`` (usually factories).

    Args:
        kind: what the entries are, for messages (``mechanism``, ``detector``).
        builtins: the name table of built-in entries, name -> ``"package.module:attribute"``.
        adapt: turns the object a table entry names into the entry, ``adapt(name, obj)``
            (the mechanisms build a spec of their class); the object itself when not given.
    """

    def __init__(self, kind: str, builtins: Mapping[str, str] | None = None,
                 adapt: Callable[[str, Any], T] | None = None) -> None:
        self.kind = kind
        self._table: dict[str, str] = {}
        for name, target in (builtins or {}).items():
            check_name(kind, name)
            if ":" not in target:
                raise ValueError(f"{kind} {name!r}: a target is 'package.module:attribute', got {target!r}")
            self._table[name] = target
        self._adapt = adapt
        self._entries: dict[str, T] = {}
        self._lock = threading.RLock()

    def add(self, name: str, entry: T) -> T:
        """Register ``entry`` under ``name``; refused (ValueError) when the name is taken."""
        check_name(self.kind, name)
        with self._lock:
            if name in self._table or name in self._entries:
                raise ValueError(f"a {self.kind} named {name!r} is already registered")
            self._entries[name] = entry
        return entry

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator form of :meth:`add`."""
        return lambda entry: self.add(name, entry)

    def _built(self, name: str) -> T:
        # Imported under the lock, so a second thread never sees a half-made entry; the first
        # lookup of a name made from inside its own import (re-entrant) is refused by Python's
        # import machinery, not silently answered.
        with self._lock:
            if name not in self._entries:
                obj = import_target(self._table[name])
                self._entries[name] = self._adapt(name, obj) if self._adapt else obj
            return self._entries[name]

    def get(self, name: object) -> T:
        """The entry of ``name`` (case-folded), importing a built-in's module on first use."""
        key = name.lower() if isinstance(name, str) else name
        if isinstance(key, str) and key in self._entries:
            return self._entries[key]
        if not isinstance(key, str) or key not in self._table:
            raise ConfigError(f"unknown {self.kind} {name!r}; choose one of {', '.join(self.names())}")
        return self._built(key)

    def names(self) -> list[str]:
        """Every name, built in or added, sorted; imports nothing."""
        return sorted({*self._table, *self._entries})

    def builtins(self) -> dict[str, str]:
        """The name table of built-in entries (name -> ``"package.module:attribute"``)."""
        return dict(self._table)

    def items(self) -> Iterator[tuple[str, T]]:
        """``(name, entry)`` pairs, sorted by name; imports every built-in."""
        return iter([(name, self.get(name)) for name in self.names()])

    def __contains__(self, name: object) -> bool:
        return name in self._table or name in self._entries
