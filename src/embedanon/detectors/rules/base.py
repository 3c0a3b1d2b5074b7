"""What every decode rule shares: the :class:`Rule` interface and the per-text :class:`RuleContext`.

A rule reads one text's context and the spans decoded so far, and returns the spans it leaves
(sorted and disjoint). The context is built once per text and holds what several rules read: the
model's tokens and probabilities, the text's letter case, the score and source of an added span,
and, computed on first use only, the tokens' words and NAME probabilities, the public English
words, the speaker labels and ``regex``'s dates.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...lexicon import word_frequencies
from ...structure import SpeakerLabel, speaker_labels
from ..base import Span
from ..bio import B_CLASS, CLASSES
from ..features import common_words, tokenize
from ..regex import RegexDetector
from .common import text_case

#: how many of the most frequent public English words count as common where a rule asks
COMMON_WORDS = 20_000
#: the dates the DATE rules cut between and trim outside (``regex``'s DATE patterns only)
DATES = RegexDetector(labels=("DATE",))


class RuleContext:
    """One text as the decode rules read it; built once per text, shared by every rule.

    Args:
        text: the text.
        starts, ends: int64 (T,) token offsets of :func:`~embedanon.detectors.features.tokenize`
            (None: tokenized here).
        proba: float (T, C) class probabilities of those tokens (None: every token ``O``, for
            rules that do not read the model).
        score: the score of a span a rule adds without a probability of its own (the detector's
            threshold).
        source: the detector name of added spans.
    """

    def __init__(self, text: str, starts: np.ndarray | None = None, ends: np.ndarray | None = None,
                 proba: np.ndarray | None = None, *, score: float = 0.1, source: str = "model") -> None:
        if starts is None or ends is None:
            toks = tokenize(text)
            starts, ends = toks.starts, toks.ends
        if proba is None:
            proba = np.zeros((len(starts), len(CLASSES)), dtype=np.float32)
            proba[:, 0] = 1.0
        self.text = text
        self.starts = starts
        self.ends = ends
        self.proba = proba
        self.score = score
        self.source = source

    @cached_property
    def case(self) -> str:
        """``lower`` (no capitals), ``upper`` (no lower-case letters) or ``mixed``."""
        return text_case(self.text)

    @property
    def caseless(self) -> bool:
        """Whether the text has no upper-case letter."""
        return self.case == "lower"

    @cached_property
    def words(self) -> list[str]:
        """The tokens' strings, in order."""
        text = self.text
        return [text[a:b] for a, b in zip(self.starts.tolist(), self.ends.tolist(), strict=True)]

    @cached_property
    def name_probability(self) -> np.ndarray:
        """float (T,): each token's NAME probability, ``B-NAME`` + ``I-NAME``."""
        b_name = B_CLASS["NAME"]
        return np.asarray(self.proba[:, b_name] + self.proba[:, b_name + 1])

    @cached_property
    def common(self) -> frozenset[str]:
        """The :data:`COMMON_WORDS` most frequent public English words, folded."""
        return common_words(COMMON_WORDS)

    @property
    def public(self) -> dict[str, float]:
        """The shipped public English word list (:func:`embedanon.lexicon.word_frequencies`)."""
        return word_frequencies()

    @cached_property
    def labels(self) -> list[SpeakerLabel]:
        """The text's line-start speaker and role labels (:mod:`embedanon.structure`)."""
        return speaker_labels(self.text)

    @cached_property
    def roles(self) -> list[tuple[int, int]]:
        """The characters of the role labels: structure, never spans."""
        return [r for label in self.labels for r in label.roles]

    @cached_property
    def dates(self) -> list[Span]:
        """``regex``'s DATE spans of the text (what the DATE rules cut between)."""
        return DATES.detect(self.text)


@dataclass(frozen=True, slots=True)
class Rule:
    """One decode rule: a name (what the decision records and the docs call it) and the function
    ``apply(context, spans) -> spans`` (spans sorted and disjoint, in and out)."""

    name: str
    apply: Callable[[RuleContext, list[Span]], list[Span]]

    def __call__(self, context: RuleContext, spans: list[Span]) -> list[Span]:
        return self.apply(context, spans)
