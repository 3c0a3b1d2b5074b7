"""The release officer's review page: a sample of records, original and anonymized side by side.

Opt-in and text-bearing by nature: the page holds original text, so it is only ever written to a
private regular file (:func:`write_review`), never printed or logged.

    review = build_review("notes.jsonl", Anonymizer(key="release.key"), fields=["text"], sample=20)
    write_review(review, "review.html")
"""

from __future__ import annotations

from ..privacy.metrics import scan
from .build import build_review, settings_of
from .figures import (
    AttackFigures,
    FigureSource,
    FigureUnavailable,
    MechanismFigures,
    attack_figures,
    collect_figures,
    default_sources,
    find_run_attacks,
)
from .html import BANNER, check_target, render_html, summary_lines, write_review
from .model import Figure, Review, ReviewRecord, ReviewText, Settings, TextStats, text_stats
from .sample import DEFAULT_SAMPLE, MAX_SAMPLE, reservoir_sample, sample_rng, sample_size

__all__ = [
    "BANNER", "DEFAULT_SAMPLE", "MAX_SAMPLE", "AttackFigures", "Figure", "FigureSource", "FigureUnavailable",
    "MechanismFigures", "Review", "ReviewRecord", "ReviewText", "Settings", "TextStats", "attack_figures",
    "build_review", "check_target", "collect_figures", "default_sources", "find_run_attacks",
    "render_html", "reservoir_sample", "sample_rng", "sample_size", "scan", "settings_of",
    "summary_lines", "text_stats", "write_review",
]
