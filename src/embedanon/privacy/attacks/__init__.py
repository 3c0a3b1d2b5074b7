"""Realistic attacks on a release: public-prior Bayes, out-of-vocabulary proxies and names,
contextual (Viterbi), multi-release; :func:`run_attacks` runs them all (counts and rates only)."""

from __future__ import annotations

from .bayes import PosteriorAttack, TopK, topk_credit
from .documents import Slot, corpus_slots, document_slots
from .figures import NameFigure, PrivacyFigures, run_attacks
from .likelihood import DenseLaw, Likelihood, SparseLaw, likelihood_for

__all__ = ["DenseLaw", "Likelihood", "NameFigure", "PosteriorAttack", "PrivacyFigures", "Slot", "SparseLaw",
           "TopK", "corpus_slots", "document_slots", "likelihood_for", "run_attacks", "topk_credit"]
