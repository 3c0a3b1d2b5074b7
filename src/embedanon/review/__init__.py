"""The release officer's review page: a sample of records, original and anonymized side by side.

Opt-in and text-bearing by nature: the page holds original text, so it is only ever written to a
private regular file (:func:`write_review`), never printed or logged.

    review = build_review("notes.jsonl", Anonymizer(key="release.key"), fields=["text"], sample=20)
    print(review.verdict.summary())   # the privacy verdict (embedanon.privacy.verdict)
    write_review(review, "review.html")
"""

from __future__ import annotations

from ..privacy.metrics import scan
from .build import MAX_TEXT_CHARS, Progress, build_review, settings_of
from .figures import (
    AttackFigures,
    FigureSource,
    FigureUnavailable,
    MechanismFigures,
    attack_figures,
    collect_figures,
    default_sources,
    judge_review,
    threshold_table,
)
from .html import BANNER, check_page_name, check_target, render_html, summary_lines, write_review
from .lookalike import KINDS, Lookalike, default_vocabulary, find_lookalikes
from .model import Figure, Review, ReviewRecord, ReviewText, Settings, TextStats, text_stats
from .sample import DEFAULT_SAMPLE, MAX_SAMPLE, reservoir_sample, sample_rng, sample_size

__all__ = [
    "BANNER", "DEFAULT_SAMPLE", "KINDS", "MAX_SAMPLE", "MAX_TEXT_CHARS", "AttackFigures", "Figure",
    "FigureSource", "FigureUnavailable", "Lookalike", "MechanismFigures", "Progress", "Review",
    "ReviewRecord", "ReviewText", "Settings", "TextStats", "attack_figures", "build_review",
    "check_page_name", "check_target",
    "collect_figures", "default_sources", "default_vocabulary", "find_lookalikes", "judge_review",
    "render_html", "reservoir_sample", "sample_rng", "sample_size", "scan", "settings_of", "summary_lines",
    "text_stats", "threshold_table", "write_review",
]
