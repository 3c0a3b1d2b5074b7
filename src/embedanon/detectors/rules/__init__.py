"""Decode rules of the ``model`` detector: NAME spans the per-token decode missed or cut short, and
DATE spans over a list or range of dates or with function words at their edges.

A rule takes the decoded spans (sorted, disjoint) and returns them with NAME spans added or
widened; the last three (:data:`DATE_RULES`, :mod:`.dates`) only remove characters outside every
``regex`` date from DATE spans: list separators and range joiners between two dates, so a list or
range becomes one span per date, and function words and punctuation at a span's edges. Which rules
run is a property of the model (its manifest names them: each NAME rule was shipped by a
development-data round, ``research/detection/roundN.md``; the DATE rules were added without
one, their counts are in the README); :func:`apply_rules` runs them in one fixed order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..base import Span
from .context import (
    extend_coordinations,
    join_inverted_names,
    name_after_greetings,
    name_after_honorifics,
    name_speaker_turns,
    propagate_names,
)
from .dates import clean_date_spans, split_date_lists, split_date_ranges, trim_date_edges
from .layout import join_name_particles, name_before_own_email, name_list_items
from .words import (
    complete_name_pairs,
    join_running_inversions,
    name_joined_words,
    name_orphan_tokens,
    trim_name_edges,
    widen_to_whole_words,
)

#: manifest flags of the decode rules run after Viterbi, in the order :func:`apply_rules` runs them
#: (orphan_names, coordination, speaker_turns, propagation, inverted_names, honorifics, salutations,
#: lists, particles, inverted_pairs, email_names, joined_names, name_pairs, whole_words, name_edges,
#: then :data:`DATE_RULES`);
#: ``line_lists`` widens lists and speaker_turns (round 17), ``upper_lists`` runs lists on
#: upper-case text too (round 32), ``titled_items`` lets a list item start with an honorific
#: (round 33), ``salutations`` names the words after a greeting and ``inverted_pairs`` joins
#: ``Surname, Given`` in running text (round 34), ``header_items`` lets a list's first item sit on
#: its header's line (round 35), ``name_series`` reads inline lists of names sentence by sentence,
#: with month-like middle items and partly found items (round 36), ``name_edges`` trims ``,;:!?``
#: from NAME span edges (no round: it removes punctuation only); ``case_aware`` is not a rule of
#: its own but widens coordination, propagation and inverted_names to lower-case, upper-case and
#: irregularly cased text (round 15)
DECODE_RULES = ("coordination", "propagation", "inverted_names", "honorifics", "case_aware", "whole_words",
                "speaker_turns", "lists", "particles", "email_names", "line_lists", "joined_names",
                "name_pairs", "orphan_names", "upper_lists", "titled_items", "name_edges", "salutations",
                "inverted_pairs", "header_items", "name_series", "date_lists", "date_ranges", "date_edges")

#: the manifest flags of the DATE rules (:func:`~.dates.clean_date_spans`), in the order they run
DATE_RULES = ("date_lists", "date_ranges", "date_edges")

__all__ = [
    "DATE_RULES",
    "DECODE_RULES",
    "apply_rules",
    "clean_date_spans",
    "complete_name_pairs",
    "extend_coordinations",
    "join_inverted_names",
    "join_name_particles",
    "join_running_inversions",
    "name_after_greetings",
    "name_after_honorifics",
    "name_before_own_email",
    "name_joined_words",
    "name_list_items",
    "name_orphan_tokens",
    "name_speaker_turns",
    "propagate_names",
    "split_date_lists",
    "split_date_ranges",
    "trim_date_edges",
    "trim_name_edges",
    "widen_to_whole_words",
]


def apply_rules(
    text: str,
    starts: np.ndarray,
    ends: np.ndarray,
    proba: np.ndarray,
    spans: list[Span],
    rules: Mapping[str, Any],
    *,
    score: float,
    source: str,
) -> list[Span]:
    """The spans after the rules that ``rules`` (a model manifest) switches on.

    Args:
        text: the text.
        starts, ends: token offsets (int (T,)) of :func:`~embedanon.detectors.features.tokenize`.
        proba: float (T, C) class probabilities of those tokens.
        spans: the decoded spans, sorted and disjoint.
        rules: flags by name (:data:`DECODE_RULES`; missing: off).
        score: the score of a span a rule adds without a probability of its own (the threshold).
        source: the detector name of added spans.
    """
    case_aware = bool(rules.get("case_aware"))
    if rules.get("orphan_names"):
        spans = name_orphan_tokens(text, starts, ends, proba, spans, source=source, threshold=score)
    if rules.get("coordination"):
        spans = extend_coordinations(text, starts, ends, spans, case_aware=case_aware)
    if rules.get("speaker_turns"):
        spans = name_speaker_turns(text, spans, score=score, source=source,
                                   two_word_speakers=bool(rules.get("line_lists")))
    if rules.get("propagation"):
        spans = propagate_names(text, starts, ends, spans, case_aware=case_aware)
    if rules.get("inverted_names"):
        spans = join_inverted_names(text, spans, case_aware=case_aware)
    if rules.get("honorifics"):
        spans = name_after_honorifics(text, spans, score=score, source=source)
    if rules.get("salutations"):
        spans = name_after_greetings(text, spans, score=score, source=source)
    if rules.get("lists"):
        spans = name_list_items(text, spans, line_lists=bool(rules.get("line_lists")),
                                upper=bool(rules.get("upper_lists")),
                                titled=bool(rules.get("titled_items")),
                                headed=bool(rules.get("header_items")),
                                series=bool(rules.get("name_series")))
    if rules.get("particles"):
        spans = join_name_particles(text, spans)
    if rules.get("inverted_pairs"):
        spans = join_running_inversions(text, spans)
    if rules.get("email_names"):
        spans = name_before_own_email(text, spans, score=score, source=source)
    if rules.get("joined_names"):
        spans = name_joined_words(text, starts, ends, proba, spans, source=source)
    if rules.get("name_pairs"):
        spans = complete_name_pairs(text, spans)
    if rules.get("whole_words"):
        spans = widen_to_whole_words(text, spans)
    if rules.get("name_edges"):
        spans = trim_name_edges(text, spans)
    # last, so the NAME rules see the DATE spans they always saw
    spans = clean_date_spans(text, spans, lists=bool(rules.get("date_lists")),
                             ranges=bool(rules.get("date_ranges")), edges=bool(rules.get("date_edges")))
    return spans
