"""The Mechanism protocol and the registry of mechanisms by name.

A mechanism maps word ids to replacement word ids. It validates its parameters once, in a
keyword-only ``__init__``, holds no random state of its own and draws only from the
``numpy.random.Generator`` it is given, so output is a pure function of (input, parameters, seed).

Reproducibility contract: the random draws a mechanism makes for a call must depend only on the
sequence of words (their vectors), never on the numeric values of their ids, so that the same
document gives the same output whichever process or batch handles it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..vectors.index import NeighborIndex


@runtime_checkable
class Mechanism(Protocol):
    """Replaces words: ``sample(ids, rng) -> ids``.

    Attributes:
        name: registry name (``knn``, ``laplace``, ...).
        may_return_input: whether a word may come back as itself (true of the metric-DP
            mechanisms, whose guarantee requires it; false of ``knn``).
    """

    name: str
    may_return_input: bool

    def sample(self, ids: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Replacement ids for ``ids``.

        Args:
            ids: int64 array, shape (n,), word ids of the embedding.
            rng: the only source of randomness.

        Returns:
            int64 array, shape (n,), candidate word ids.
        """
        ...


Factory = Callable[..., Mechanism]


@dataclass(frozen=True, slots=True)
class MechanismSpec:
    name: str
    factory: Factory
    params: tuple[str, ...]
    summary: str
    required: tuple[str, ...] = ()


_REGISTRY: dict[str, MechanismSpec] = {}


def register(name: str, summary: str) -> Callable[[Factory], Factory]:
    """Class decorator: register a mechanism under a lower-case ``name``.

    The mechanism's ``__init__`` takes ``index`` and its keyword-only parameters; the names of
    those parameters are what the registry (and the CLI) accept.
    """
    if name != name.lower() or not name.isidentifier():
        raise ValueError(f"mechanism names are lower-case identifiers, got {name!r}")

    def decorator(factory: Factory) -> Factory:
        if name in _REGISTRY:
            raise ValueError(f"a mechanism named {name!r} is already registered")
        sig = inspect.signature(factory)
        params = tuple(p for p in sig.parameters if p not in ("self", "index"))
        required = tuple(p for p in params if sig.parameters[p].default is inspect.Parameter.empty)
        _REGISTRY[name] = MechanismSpec(name, factory, params, summary, required)
        return factory

    return decorator


def available() -> dict[str, MechanismSpec]:
    """Registered mechanisms by name."""
    _load_builtin()
    return dict(_REGISTRY)


def build_mechanism(name: str, index: NeighborIndex, **params: Any) -> Mechanism:
    """Instantiate mechanism ``name`` with ``params`` (``None`` values mean "not given")."""
    specs = available()
    if not isinstance(name, str) or name.lower() not in specs:
        raise ConfigError(f"unknown mechanism {name!r}; choose one of {', '.join(sorted(specs))}")
    spec = specs[name.lower()]
    given = {k: v for k, v in params.items() if v is not None}
    unknown = sorted(set(given) - set(spec.params))
    if unknown:
        takers = sorted(n for n, s in specs.items() if unknown[0] in s.params)
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


def _load_builtin() -> None:
    # Importing the modules runs their @register decorators; an import error is a real bug.
    from . import exponential, knn, laplace, mahalanobis, tem  # noqa: F401


def check_ids(ids: np.ndarray, n_words: int) -> np.ndarray:
    """``ids`` as an int64 array of shape (n,), every value a row of the embedding.

    Raises:
        IndexError: an id outside [0, n_words) (numpy would silently wrap negative ones).
    """
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)
    if len(ids) and (ids.min() < 0 or ids.max() >= n_words):
        bad = ids[(ids < 0) | (ids >= n_words)][0]
        raise IndexError(f"word ids must be in [0, {n_words}), got {bad}")
    return ids


def first_occurrence_unique(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unique values of ``ids`` in order of first occurrence, and the inverse map.

    Per-type work done in this order keeps the random stream independent of id values.
    Returns (uniques, inverse) with ``uniques[inverse] == ids``.
    """
    uniq, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return uniq[order], rank[inverse.reshape(-1)]
