"""Fixtures of the review tests: a tiny embedding file and an anonymizer on it (fast, no model)."""

from __future__ import annotations

from pathlib import Path

import pytest

from embedanon import Anonymizer
from tests.helpers.embeddings import write_glove

WORDS = ["patient", "doctor", "nurse", "hospital", "clinic", "pain", "ache", "heart", "chest", "river",
         "table", "window", "music", "green", "house", "garden", "paper", "stone", "was", "seen", "for",
         "the", "and", "with", "has", "had", "fever", "cough", "night", "morning", "blood", "pressure",
         "high", "low", "visit", "today", "mother", "father"]


@pytest.fixture(scope="session")
def tiny_embedding(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A GloVe-format text file of 38 words with seeded random 8-d vectors."""
    return write_glove(tmp_path_factory.mktemp("review-emb") / "tiny.glove.txt", WORDS, dim=8)


@pytest.fixture(scope="session")
def anonymizer(tiny_embedding: Path) -> Anonymizer:
    return Anonymizer(str(tiny_embedding), "knn", k=3, seed=1)
