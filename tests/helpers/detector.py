"""Checks shared by the ``model`` detector tests."""

from __future__ import annotations

import numpy as np

from embedanon.detectors.features import tokenize
from embedanon.detectors.model import ModelDetector, predict_proba

#: a short text with a name, a date, a phone number and an e-mail address
PII_TEXT = "Patient: Amina Okafor, DOB 01/02/1980. Call 555-0134 or mail amina@example.com."


def fast_path_probabilities(detector: ModelDetector, text: str = PII_TEXT) -> np.ndarray:
    """``detector.probabilities(text)``, after asserting they equal the plain reference
    (:func:`~embedanon.detectors.model.predict_proba` over the same features)."""
    _, _, fast = detector.probabilities(text)
    ids, rows = detector.featurizer.featurize(text, tokenize(text))
    ref = predict_proba(detector.weights, detector.featurizer.dense_table, ids, rows)
    np.testing.assert_allclose(fast, ref, atol=1e-5)
    return fast
