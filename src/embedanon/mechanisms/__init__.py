"""Replacement mechanisms (``knn``, ``laplace``, ``mahalanobis``, ``exponential``, ``tem``)."""

from .base import ExactLaw, Mechanism, check_ids
from .registry import MECHANISMS, MechanismSpec, available, build_mechanism, register

__all__ = ["MECHANISMS", "ExactLaw", "Mechanism", "MechanismSpec", "available", "build_mechanism",
           "check_ids", "register"]
