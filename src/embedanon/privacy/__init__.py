"""Privacy measurement: change rate, N_w / S_w, calibration and a re-identification attack.

Only counts and rates leave this package; no function returns or logs the text it measures or
any original -> replacement mapping.
"""

from __future__ import annotations

from .attack import AttackResult, BayesAttack, frequency_prior, uniform_prior
from .calibration import CalibrationRow, calibrate, parse_grid
from .metrics import (
    ChangeStats,
    PrivacyReport,
    WordStatistics,
    change_rate,
    change_stats,
    privacy_report,
    word_statistics,
)

__all__ = [
    "AttackResult",
    "BayesAttack",
    "CalibrationRow",
    "ChangeStats",
    "PrivacyReport",
    "WordStatistics",
    "calibrate",
    "change_rate",
    "change_stats",
    "frequency_prior",
    "parse_grid",
    "privacy_report",
    "uniform_prior",
    "word_statistics",
]
