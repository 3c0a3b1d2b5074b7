"""Checks shared by the ``model`` detector tests."""

from __future__ import annotations

import numpy as np

from embedanon.detectors.features import tokenize
from embedanon.detectors.model import ModelDetector
from embedanon.detectors.weights import predict_proba

#: a short text with a name, a date, a phone number and an e-mail address
PII_TEXT = "Patient: Amina Okafor, DOB 01/02/1980. Call 555-0134 or mail amina@example.com."


def fast_path_probabilities(detector: ModelDetector, text: str = PII_TEXT) -> np.ndarray:
    """``detector.probabilities(text)``, after asserting they equal the plain reference
    (:func:`~embedanon.detectors.weights.predict_proba` over the same features)."""
    _, _, fast = detector.probabilities(text)
    ids, rows = detector.featurizer.featurize(text, tokenize(text))
    ref = predict_proba(detector.weights, detector.featurizer.dense_table, ids, rows)
    np.testing.assert_allclose(fast, ref, atol=1e-5)
    return fast


def name_records(n: int, *, seed: int) -> list[dict]:
    """``n`` tiny training records, ``Thanks, <name>! See you at the clinic.`` with the name as a
    NAME span, names drawn (seeded) from five of several cultures."""
    rng = np.random.default_rng(seed)
    names = ["Thembekile Dube", "Amina Okafor", "Wei Zhang", "Carlos Ruiz", "Sipho Nkosi"]
    out = []
    for _ in range(n):
        name = names[int(rng.integers(len(names)))]
        text = f"Thanks, {name}! See you at the clinic."
        out.append({"text": text, "spans": [{"start": 8, "end": 8 + len(name), "label": "NAME"}]})
    return out
