"""Detectors of personal information: spans with labels (see :mod:`.base`)."""

from .base import LABELS, Detector, Span

__all__ = ["LABELS", "Detector", "Span"]
