"""Utility evaluation on generated data where the answer is known."""

from __future__ import annotations

import numpy as np
import pytest

from embedanon.errors import ConfigError
from embedanon.utility import evaluate_utility


def _corpus(n: int = 200, seed: int = 0) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    topics = {"cardio": ["heart", "chest", "pressure", "artery"], "ortho": ["bone", "knee", "fracture", "joint"]}
    filler = ["the", "patient", "was", "seen", "today", "and", "reports", "some"]
    docs, labels = [], []
    for i in range(n):
        label = "cardio" if i % 2 else "ortho"
        words = list(rng.choice(filler, 12)) + list(rng.choice(topics[label], 3))
        rng.shuffle(words)
        docs.append(" ".join(words))
        labels.append(label)
    return docs, labels


def test_separable_topics_are_learned_and_destroyed_text_is_not() -> None:
    docs, labels = _corpus()
    # "anonymization" that keeps topic words vs one that replaces every word by noise
    rng = np.random.default_rng(1)
    noise = [" ".join(f"w{rng.integers(0, 1000)}" for _ in d.split()) for d in docs]
    base, noisy_aa, noisy_ao = evaluate_utility(docs, noise, labels, folds=4)
    assert base.setting == "original -> original" and base.macro_f1 > 0.95
    assert noisy_aa.macro_f1 < 0.75 and noisy_ao.macro_f1 < 0.75
    same = evaluate_utility(docs, docs, labels, folds=4)
    assert same[1].macro_f1 == pytest.approx(base.macro_f1)


def test_validation() -> None:
    with pytest.raises(ConfigError, match="same length"):
        evaluate_utility(["a", "b"], ["a"], [0, 1])
    with pytest.raises(ConfigError, match="folds must be at least 2"):
        evaluate_utility(["a", "b"], None, [0, 1], folds=1)
