"""Detector registry: names the CLI accepts (``regex``, ``llm``, ``presidio``, ``model``) -> factories.

A factory is a callable taking keyword-only options and returning a :class:`~.base.Detector`
(usually the detector class itself). :func:`build_detectors` parses a comma-separated list of
names and returns one :class:`~.merge.UnionDetector` over them. Options are routed by prefix:
``llm_url=...`` is passed to the ``llm`` factory as ``url=...``; ``None`` values are ignored (so
the CLI can pass every option it has), and an option for a detector that is not selected, or one
its factory does not take, is a :class:`~embedanon.errors.ConfigError`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from .._registry import Registry
from ..errors import ConfigError, ParameterTypeError
from .base import Detector
from .merge import UnionDetector, WordLists
from .verify import SpanVerifier

#: The built-in detectors: name -> factory (``package.module:attribute``), imported on first lookup.
BUILTIN_DETECTORS: dict[str, str] = {
    "regex": "embedanon.detectors.regex:RegexDetector",
    "llm": "embedanon.detectors.llm:LLMDetector",
    "presidio": "embedanon.detectors.presidio:PresidioDetector",
    "model": "embedanon.detectors.model:ModelDetector",
    "transformer": "embedanon.detectors.transformer:TransformerDetector",
}

DETECTORS: Registry[Callable[..., Detector]] = Registry("detector", BUILTIN_DETECTORS)


def _option_names(factory: Callable[..., Detector]) -> list[str]:
    params = inspect.signature(factory).parameters.values()
    return [p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]


def parse_names(spec: str) -> list[str]:
    """Names in a ``"model,regex"`` list, validated (known, no duplicates, at least one)."""
    if not isinstance(spec, str):
        raise TypeError(f"detector must be a comma-separated string of names, got {type(spec).__name__}")
    names = [part.strip().lower() for part in spec.split(",")]
    if not spec.strip() or any(not n for n in names):
        raise ConfigError(f"detector must be a comma-separated list of names, got {spec!r}")
    if len(set(names)) != len(names):
        raise ConfigError(f"detector names must not repeat, got {spec!r}")
    for name in names:
        DETECTORS.get(name)
    return names


def build_detector(name: str, **options: Any) -> Detector:
    """One detector by registered name, with its own options (unprefixed)."""
    factory = DETECTORS.get(name)
    valid = _option_names(factory)
    for key in options:
        if key not in valid:
            raise ConfigError(f"detector {name!r} has no option {key!r}; valid: {', '.join(valid) or 'none'}")
    return factory(**options)


def build_detectors(spec: str, *, allow: Iterable[str] = (),
                    deny: Mapping[str, str] | Iterable[tuple[str, str]] | None = None,
                    verify: bool | str | Path = True, **options: Any) -> UnionDetector:
    """A union detector over the named detectors.

    Args:
        spec: comma-separated detector names, e.g. ``"model,regex"``.
        allow: strings never treated as PII (see :class:`~.merge.WordLists`).
        deny: ``{string: label}`` (or ``(string, label)`` pairs) always treated as PII.
        verify: pass the merged spans through the shipped local verifier
            (:class:`~.verify.SpanVerifier`), which drops likely false positives of ``model`` and
            ``regex`` (spans of other detectors are kept); False: no verifier
            (``--detector-option verify=false``); a directory: a verifier trained there.
        **options: ``<detector>_<option>=value``, e.g. ``llm_url="http://127.0.0.1:8000/v1"``.

    Returns:
        A detector whose spans are the merged union of the named detectors' spans.
    """
    if deny is not None and not isinstance(deny, Mapping):  # (string, label) pairs, or refused here
        given = type(deny).__name__
        pairs = tuple(deny) if isinstance(deny, (list, tuple)) else None
        if pairs is None or not all(isinstance(p, tuple) and len(p) == 2 for p in pairs):
            raise TypeError(f"deny must be a mapping {{string: label}} such as {{'Zorblat': 'NAME'}} "
                            f"(or (string, label) pairs), got {given}")
        deny = pairs
    names = parse_names(spec)
    routed: dict[str, dict[str, Any]] = {name: {} for name in names}
    registered = sorted(DETECTORS.names(), key=len, reverse=True)
    for key, value in options.items():
        if value is None:
            continue
        owner = next((n for n in registered if key.startswith(n.replace("-", "_") + "_")), None)
        if owner is None:
            raise ConfigError(f"option {key!r} names no detector; prefix it with one of "
                              f"{', '.join(registered)}")
        if owner not in routed:
            raise ConfigError(f"option {key!r} is for detector {owner!r}, which is not selected")
        routed[owner][key[len(owner) + 1:]] = value
    if isinstance(verify, bool):
        verifier = SpanVerifier() if verify else None
    elif isinstance(verify, (str, Path)):
        verifier = SpanVerifier(path=verify)
    else:
        raise TypeError(f"verify must be true, false or a verifier directory, got {type(verify).__name__}")
    detectors = [_build_routed(name, routed[name]) for name in names]
    return UnionDetector(detectors, lists=WordLists.build(allow=allow, deny=deny), verifier=verifier)


def _build_routed(name: str, options: dict[str, Any]) -> Detector:
    """:func:`build_detector` for options given prefixed (``llm_timeout``): its messages name
    the option as it was given, not the factory's own parameter (``timeout must be ...`` did not
    say which detector's timeout, and ``--detector-option llm_timeout=-1`` is what was typed).
    A type error stays one (:class:`~embedanon.errors.ParameterTypeError`, which the CLI reports
    in one line: ``--detector-option llm_verify=maybe`` ended in a traceback)."""
    valid = _option_names(DETECTORS.get(name))
    for key in options:
        if key not in valid:
            raise ConfigError(f"detector {name!r} has no option {name}_{key}; valid: "
                              f"{', '.join(f'{name}_{v}' for v in valid) or 'none'}")
    try:
        return build_detector(name, **options)
    except (ConfigError, TypeError) as exc:
        message = str(exc)
        for key in sorted(options, key=len, reverse=True):
            # "timeout must ...", "llm url must ...", "llm api_key_env must ...", "regex labels must ..."
            for said in (f"{name} {key}", f"{name} {key.replace('_', ' ')}", key):
                if message.startswith((said + " ", said + ":")):
                    kind = ConfigError if isinstance(exc, ConfigError) else ParameterTypeError
                    raise kind(f"{name}_{key}{message[len(said):]}") from None
        raise
