"""Mechanisms by name: the built-in name table, ``register``, ``available`` and ``build_mechanism``.

The built-ins are an explicit name table of classes (:data:`BUILTIN_MECHANISMS`); the registry
(:class:`embedanon._registry.Registry`) imports a mechanism's module on its first lookup, so no
plug-in imports this module and :mod:`.base` (the protocols) never imports a plug-in. A class
names its one-line ``summary``; ``register`` adds a user's own mechanism.
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

#: The built-in mechanisms: name -> class (``package.module:attribute``).
BUILTIN_MECHANISMS: dict[str, str] = {
    "knn": "embedanon.mechanisms.knn:KnnMechanism",
    "laplace": "embedanon.mechanisms.laplace:LaplaceMechanism",
    "mahalanobis": "embedanon.mechanisms.mahalanobis:MahalanobisMechanism",
    "exponential": "embedanon.mechanisms.exponential:ExponentialMechanism",
    "tem": "embedanon.mechanisms.tem:TemMechanism",
}


@dataclass(frozen=True, slots=True)
class MechanismSpec:
    """A registered mechanism: its factory, the parameter names it takes and a one-line summary."""

    name: str
    factory: Factory
    params: tuple[str, ...]
    summary: str
    required: tuple[str, ...] = ()

    @classmethod
    def of(cls, name: str, factory: Factory, summary: str) -> MechanismSpec:
        """The spec of ``factory``: its parameters are those of its signature but ``index``."""
        sig = inspect.signature(factory)
        params = tuple(p for p in sig.parameters if p not in ("self", "index"))
        required = tuple(p for p in params if sig.parameters[p].default is inspect.Parameter.empty)
        return cls(name, factory, params, summary, required)


def _builtin_spec(name: str, factory: Any) -> MechanismSpec:
    return MechanismSpec.of(name, factory, factory.summary)


MECHANISMS: Registry[MechanismSpec] = Registry("mechanism", BUILTIN_MECHANISMS, adapt=_builtin_spec)


def register(name: str, summary: str) -> Callable[[Factory], Factory]:
    """Class decorator: register a mechanism of your own under a lower-case ``name``.

    The mechanism's ``__init__`` takes ``index`` and its keyword-only parameters; the names of
    those parameters are what the registry (and the CLI) accept. A name already taken is refused.
    """

    def decorator(factory: Factory) -> Factory:
        MECHANISMS.add(name, MechanismSpec.of(name, factory, summary))
        return factory

    return decorator


def available() -> dict[str, MechanismSpec]:
    """Registered mechanisms by name."""
    return dict(MECHANISMS.items())


def build_mechanism(name: str, index: NeighborIndex, **params: Any) -> Mechanism:
    """Instantiate mechanism ``name`` with ``params`` (``None`` values mean "not given")."""
    spec = MECHANISMS.get(name)
    if not hasattr(index, "candidate_vectors"):  # not deep in a mechanism's constructor
        raise TypeError(f"index must be a NeighborIndex, got {type(index).__name__}")
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
