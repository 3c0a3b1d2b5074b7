"""Labelled spans and the Detector protocol.

A detector reads one text and returns the character spans it believes are personal information,
each with a label, a score in [0, 1] and the name of the detector that found it. Spans index the
text with Python string offsets (code points), ``text[start:end]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..errors import EmbedanonError

#: The labels the trained ``model`` tags (its BIO classes, :mod:`.bio`).
MODEL_LABELS: tuple[str, ...] = ("NAME", "EMAIL", "URL", "PHONE", "ID", "DATE", "ADDRESS", "AGE", "IP")
#: Labels every detector maps its own categories onto: the model's, and the places and
#: institutions the ``regex`` detector finds by shape and public gazetteers (:mod:`.places`).
LABELS: tuple[str, ...] = (*MODEL_LABELS, "LOCATION", "ORGANIZATION")
#: Labels whose values never end in sentence punctuation or space (a phone, an e-mail, an ID, an
#: age): the merge trims it from their spans and a surrogate keeps it outside the value.
VALUE_LABELS: frozenset[str] = frozenset({"EMAIL", "URL", "IP", "PHONE", "ID", "AGE"})


class DetectorUnavailable(EmbedanonError):
    """A detector could not process one document (service down, retries spent, unparseable reply).

    Never swallow it: the caller must treat the document as undetected and fall back to full
    scope (every word perturbed) for that record, so a failure never leaves text unprotected.
    The message names the detector and the reason, never the text.
    """


@dataclass(frozen=True, slots=True)
class Span:
    """One detected entity: ``text[start:end]`` is a ``label``.

    Attributes:
        start: offset of the first character (>= 0).
        end: offset after the last character (> start).
        label: one of :data:`LABELS`.
        score: confidence in [0, 1] (1.0 for rules).
        source: name of the detector that produced it (``regex``, ``model``, ``llm`` ...).
    """

    start: int
    end: int
    label: str
    score: float = 1.0
    source: str = ""

    def __post_init__(self) -> None:
        for name in ("start", "end"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"span {name} must be an int, got {type(value).__name__}")
        if self.start < 0:
            raise ValueError(f"span start must be >= 0, got {self.start}")
        if self.end <= self.start:
            raise ValueError(f"span end must be > start, got [{self.start}, {self.end})")
        if self.label not in LABELS:
            raise ValueError(f"span label must be one of {', '.join(LABELS)}, got {self.label!r}")
        if not 0.0 <= float(self.score) <= 1.0:
            raise ValueError(f"span score must be in [0, 1], got {self.score!r}")

    def check(self, text: str) -> Span:
        """Return self after checking that the span lies inside ``text``."""
        if self.end > len(text):
            raise ValueError(f"span [{self.start}, {self.end}) lies outside a text of {len(text)} characters")
        return self


@runtime_checkable
class Detector(Protocol):
    """Finds personal information: ``detect(text) -> list[Span]`` (sorted by start)."""

    name: str

    def detect(self, text: str) -> list[Span]:
        """Spans of ``text`` that are personal information, sorted by (start, end)."""
        ...
