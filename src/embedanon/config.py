"""What determines a release's output distribution: :class:`AnonymizerConfig` (frozen, hashable,
picklable, small). Heavy resources are derived from it once per process
(:func:`embedanon.pipeline.runtime.get_runtime`)."""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any

from .detectors.base import LABELS
from .errors import ConfigError
from .surrogates import SurrogateConfig
from .text import lookup_key
from .vectors.defaults import DEFAULT_EMBEDDING
from .vectors.index import SEARCH_MODES
from .vectors.store import CandidatePolicy

DEFAULT_DETECTORS = "model,regex"
SCOPES = ("all", "detected", "hybrid")
ACTIONS = ("mechanism", "surrogate", "keep", "redact")
#: what an option value of a config may be: it is part of a frozen, hashable config
_OPTION_VALUE = (str, numbers.Number, type(None))


def _check_pairs(what: str, pairs: object) -> None:
    """``pairs`` must be a tuple of (name, value) pairs with str names and scalar values."""
    if not isinstance(pairs, tuple):
        raise TypeError(f"{what} must be a tuple of (name, value) pairs, got {type(pairs).__name__}")
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str)):
            raise TypeError(f"{what} must be (name, value) pairs with str names")
        if not isinstance(pair[1], _OPTION_VALUE):
            raise TypeError(f"{what}: {pair[0]} must be a number, a string, true/false or None, "
                            f"got {type(pair[1]).__name__}")


@dataclass(frozen=True, slots=True)
class ScopeConfig:
    """What to detect and what to do with it (frozen, hashable: part of the release config).

    Attributes:
        scope: ``all``, ``detected`` or ``hybrid``.
        detectors: comma-separated detector names (``model,regex``), for scopes other than all.
        detector_options: (name, value) pairs passed to the detectors (``llm_url`` ...).
        strategies: (LABEL or ``DEFAULT``, action) pairs overriding the scope's default action.
        allow: strings never treated as PII. deny: (string, label) pairs always treated as PII.
            Both are left out of the config's ``repr`` (a deny list holds the names it protects).
        surrogates: how surrogates are made.
        neutral_formats: phones and IDs reveal no layout (the default, issue 33): in scope
            ``all`` the ``regex`` detector's phone numbers and IDs get same-kind surrogates in one
            neutral format (instead of fresh digits in the original's layout, which told the
            source's culture group 74.8 % of the time on real dialogues), and in every scope phone
            and ID surrogates are neutral (a ``surrogates`` that keeps their shape is refused).
            False keeps layouts: scope ``all`` draws fresh digits in the original's layout, and
            surrogates follow ``surrogates`` (for shapes there: ``phone_format="keep-shape"``,
            ``id_format="keep-shape"``).
        name_guard: in scope ``hybrid``, a word written like a name that the mechanism returned
            as itself (or a variant) is redrawn among its nearest other candidates
            (:mod:`embedanon.pipeline.nameguard`, decision 0380; default True). Such words are
            outside the mechanism's epsilon statement. No effect in other scopes.
    """

    scope: str = "all"
    detectors: str = DEFAULT_DETECTORS
    detector_options: tuple[tuple[str, Any], ...] = ()
    strategies: tuple[tuple[str, str], ...] = ()
    allow: tuple[str, ...] = field(default=(), repr=False)  # may hold names: never in a repr or log
    deny: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    surrogates: SurrogateConfig = field(default_factory=SurrogateConfig)
    neutral_formats: bool = True
    name_guard: bool = True

    def __post_init__(self) -> None:
        _check_pairs("detector_options", self.detector_options)
        if not isinstance(self.name_guard, bool):
            raise ConfigError(f"name_guard must be true or false, got {self.name_guard!r}")
        if not isinstance(self.neutral_formats, bool):
            raise ConfigError(f"neutral_formats must be true or false, got {self.neutral_formats!r}")
        if self.neutral_formats:  # never silently: a shape asked for is refused, not dropped
            shaped = [name for name in ("phone_format", "id_format")
                      if getattr(self.surrogates, name) == "keep-shape"]
            if shaped:
                raise ConfigError(f"surrogates {shaped[0]}='keep-shape' keeps a layout that neutral "
                                  "formats (the default) remove; give neutral_formats=False "
                                  "(--keep-formats) to keep layouts")
        if self.scope not in SCOPES:
            raise ConfigError(f"scope must be one of {', '.join(SCOPES)}, got {self.scope!r}")
        for label, action in self.strategies:
            if label != "DEFAULT" and label not in LABELS:
                raise ConfigError(f"strategy label must be DEFAULT or one of {', '.join(LABELS)}, "
                                  f"got {label!r}")
            if action not in ACTIONS:
                raise ConfigError(f"strategy action must be one of {', '.join(ACTIONS)}, got {action!r}")

    @property
    def default_action(self) -> str:
        """Action of a detected span whose label has no strategy of its own."""
        given = dict(self.strategies)
        return given.get("DEFAULT", "mechanism" if self.scope == "all" else "surrogate")

    def action(self, label: str) -> str:
        return dict(self.strategies).get(label, self.default_action)

    def actions(self) -> dict[str, str]:
        """{label: action} for every label: what happens to a detected span of each (the run
        report and ``-v`` print it)."""
        return {label: self.action(label) for label in LABELS}

    @property
    def outside(self) -> str:
        """Action for everything no span covers."""
        return "keep" if self.scope == "detected" else "mechanism"


def parse_strategies(specs: list[str] | None) -> tuple[tuple[str, str], ...]:
    """``["NAME=surrogate", "DEFAULT=keep"]`` -> (("NAME", "surrogate"), ("DEFAULT", "keep"))."""
    out = []
    for spec in specs or []:
        label, sep, action = spec.partition("=")
        if not sep:
            raise ConfigError(f"strategy must look like LABEL=ACTION, got {spec!r}")
        out.append((label.strip().upper(), action.strip().lower()))
    return tuple(out)



#: what addresses a release's noise (:attr:`AnonymizerConfig.noise_unit`)
NOISE_UNITS = ("record", "sentence")


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
        scope: what changes (:class:`~embedanon.pipeline.scope.ScopeConfig`; default: every word).
        noise_unit: what addresses the noise: ``"record"`` (default: the record's text, so a
            sentence copied into another record is drawn again) or ``"sentence"`` (each sentence's
            text, so a sentence copied anywhere in the corpus is released the same way; see
            docs/releasing.md). Surrogates stay per record in either unit: under ``"sentence"``
            a copied sentence's names, dates and ages still differ from copy to copy.
    """

    embedding: str = DEFAULT_EMBEDDING
    mechanism: str = "knn"
    params: tuple[tuple[str, Any], ...] = ()
    min_length: int = 2
    allowlist: str | None = None
    index: str | None = None
    scope: ScopeConfig = field(default_factory=ScopeConfig)
    noise_unit: str = "record"

    def __post_init__(self) -> None:
        for name in ("embedding", "mechanism"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be str, got {type(getattr(self, name)).__name__}")
        for name in ("allowlist", "index"):
            if not isinstance(getattr(self, name), (str, type(None))):
                raise TypeError(f"{name} must be str or None, got {type(getattr(self, name)).__name__}")
        if self.index is not None and self.index not in SEARCH_MODES:  # else 'approximate must be ...'
            raise ConfigError(f"index must be one of {', '.join(SEARCH_MODES)}, got {self.index!r}")
        if not isinstance(self.min_length, int) or isinstance(self.min_length, bool):
            raise TypeError(f"min_length must be int, got {type(self.min_length).__name__}")
        _check_pairs("params", self.params)
        if self.noise_unit not in NOISE_UNITS:
            raise ConfigError(f"noise unit must be one of {', '.join(NOISE_UNITS)}, got {self.noise_unit!r}")
        if not isinstance(self.scope, ScopeConfig):
            raise TypeError("scope must be a ScopeConfig (e.g. ScopeConfig(scope='hybrid')), got "
                            f"{type(self.scope).__name__}")

    def policy(self) -> CandidatePolicy:
        allow = None
        if self.allowlist is not None:
            from .detectors.evaluate import jsonl_lines  # UTF-8 lines; an error names the line

            try:
                with open(self.allowlist, "rb") as fh:
                    allow = frozenset(lookup_key(line.split()[0])
                                      for line in jsonl_lines(fh, f"allowlist {self.allowlist}")
                                      if line.strip())
            except OSError as exc:
                raise ConfigError(f"cannot read allowlist {self.allowlist}: {exc.strerror}") from None
        return CandidatePolicy(min_length=self.min_length, allowlist=allow)
