"""Privacy measurement: change rate, N_w / S_w, calibration, the attacks and the verdict.

Only counts and rates leave this package; no function returns or logs the text it measures or
any original -> replacement mapping.
"""

from __future__ import annotations

from .calibration import CalibrationRow, calibrate, parse_grid
from .metrics import ChangeStats, WordStatistics, change_rate, change_stats, word_statistics
from .report import PrivacyReport, privacy_report
from .verdict import Check, Threshold, Verdict, figure_values, judge

__all__ = [
    "CalibrationRow",
    "ChangeStats",
    "Check",
    "PrivacyReport",
    "Threshold",
    "Verdict",
    "WordStatistics",
    "calibrate",
    "change_rate",
    "change_stats",
    "figure_values",
    "judge",
    "parse_grid",
    "privacy_report",
    "word_statistics",
]
