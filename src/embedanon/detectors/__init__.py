"""Detectors of personal information: spans with labels (see :mod:`.base`).

``build_detectors("model,regex")`` returns one detector over the named ones whose spans are merged
by the single rule of :mod:`.merge`; ``DETECTORS`` lists the registered names.
"""

from .base import LABELS, Detector, DetectorUnavailable, Span
from .merge import UnionDetector, WordLists, merge_spans
from .registry import DETECTORS, build_detector, build_detectors

__all__ = [
    "DETECTORS",
    "LABELS",
    "Detector",
    "DetectorUnavailable",
    "Span",
    "UnionDetector",
    "WordLists",
    "build_detector",
    "build_detectors",
    "merge_spans",
]
