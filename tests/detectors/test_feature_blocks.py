"""Context columns hashed in blocks of tokens (decision 0224) give the ids of one block for the
whole text, the plain reference: blocks bound a long record's temporaries, nothing else."""

from __future__ import annotations

import random

import numpy as np
import pytest

from embedanon.detectors import features
from embedanon.detectors.model import ModelDetector
from embedanon.detectors.weights import shipped_path


@pytest.mark.parametrize("block", [1, 7, 64])
def test_blocks_of_tokens_give_the_ids_of_one_block(monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    rng = random.Random(block)
    words = ["Dr.", "Okafor", "saw", "maria_99", "on", "3/4/2021", "-", "(617)", "555-0134", "ok", "\n", "é", "İ"]
    text = " ".join(rng.choice(words) for _ in range(400))
    featurizer = ModelDetector(path=shipped_path()).featurizer
    toks = features.tokenize(text)
    whole = featurizer.featurize_words(text, toks)
    monkeypatch.setattr(features, "_HASH_BLOCK", block)
    blocked = featurizer.featurize_words(text, toks)
    assert len(toks.words) > 3 * block
    for a, b in zip(whole, blocked, strict=True):
        np.testing.assert_array_equal(a, b)
