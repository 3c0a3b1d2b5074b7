"""Downstream utility: does a classifier trained on anonymized text still work?"""

from .classify import UtilityResult, evaluate_utility

__all__ = ["UtilityResult", "evaluate_utility"]
