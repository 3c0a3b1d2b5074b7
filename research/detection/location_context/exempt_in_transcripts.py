"""The variant measured in decision 0170 (not shipped): in a transcript (two or more speaker-label
lines, the verifier's own ``transcript`` flag), a LOCATION span the ``regex`` rules found is kept
whatever the verifier's probability. Importing this module patches ``SpanVerifier.exempt``."""

from __future__ import annotations

import embedanon.detectors.verify as V
from embedanon.detectors.base import Span
from embedanon.detectors.verify_features import TextView

_shipped = V.SpanVerifier.exempt


def exempt(self: V.SpanVerifier, text: str, span: Span) -> bool:
    if span.label == "LOCATION" and "regex" in span.source.split("+") and TextView(text).transcript:
        return True
    return _shipped(self, text, span)


V.SpanVerifier.exempt = exempt  # type: ignore[method-assign]
