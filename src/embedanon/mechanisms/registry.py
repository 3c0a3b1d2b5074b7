"""Mechanisms by name: ``register`` (class decorator), ``available`` and ``build_mechanism``.

The registry is :class:`embedanon._registry.Registry`; the built-in mechanisms register when
their modules are imported, which happens on the first lookup, so :mod:`.base` (the protocols)
never imports a plug-in.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._registry import Registry
from ..errors import ConfigError
from .base import Mechanism

if TYPE_CHECKING:
    from ..vectors.index import NeighborIndex

Factory = Callable[..., Mechanism]


@dataclass(frozen=True, slots=True)
class MechanismSpec:
    """A registered mechanism: its factory, the parameter names it takes and a one-line summary."""

    name: str
    factory: Factory
    params: tuple[str, ...]
    summary: str
    required: tuple[str, ...] = ()


def _load_builtin() -> None:
    # Importing the modules runs their @register decorators; an import error is a real bug.
    from . import exponential, knn, laplace, mahalanobis, tem  # noqa: F401


MECHANISMS: Registry[MechanismSpec] = Registry("mechanism", _load_builtin)


def register(name: str, summary: str) -> Callable[[Factory], Factory]:
    """Class decorator: register a mechanism under a lower-case ``name``.

    The mechanism's ``__init__`` takes ``index`` and its keyword-only parameters; the names of
    those parameters are what the registry (and the CLI) accept.
    """

    def decorator(factory: Factory) -> Factory:
        sig = inspect.signature(factory)
        params = tuple(p for p in sig.parameters if p not in ("self", "index"))
        required = tuple(p for p in params if sig.parameters[p].default is inspect.Parameter.empty)
        MECHANISMS.add(name, MechanismSpec(name, factory, params, summary, required))
        return factory

    return decorator


def available() -> dict[str, MechanismSpec]:
    """Registered mechanisms by name."""
    return dict(MECHANISMS.items())


def build_mechanism(name: str, index: NeighborIndex, **params: Any) -> Mechanism:
    """Instantiate mechanism ``name`` with ``params`` (``None`` values mean "not given")."""
    spec = MECHANISMS.get(name)
    given = {k: v for k, v in params.items() if v is not None}
    unknown = sorted(set(given) - set(spec.params))
    if unknown:
        takers = sorted(n for n, s in MECHANISMS.items() if unknown[0] in s.params)
        hint = f"; mechanisms that take it: {', '.join(takers)}" if takers else ""
        raise ConfigError(
            f"mechanism {spec.name!r} does not take {unknown[0]!r} "
            f"(it takes: {', '.join(spec.params) or 'nothing'}){hint}"
        )
    missing = [p for p in spec.required if p not in given]
    if missing:
        hint = " (per-word privacy parameter; see 'embedanon calibrate')" if missing[0] == "epsilon" else ""
        raise ConfigError(f"mechanism {spec.name!r} needs {missing[0]!r}{hint}")
    return spec.factory(index=index, **given)
