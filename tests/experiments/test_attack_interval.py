"""The attack's count in results.csv is the denominator of its top-1 (found by the experiment audit:
results.md's Wilson interval used every aligned word token, out-of-vocabulary ones included, while
attack_public_top1 is a share of the in-vocabulary ones: 44 / 98 shown with an interval over 115)."""

from __future__ import annotations

import pytest

from embedanon.experiments.config import MechanismSpec
from embedanon.experiments.runner import anonymize_corpus, privacy_figures
from embedanon.privacy.attacks import run_attacks

TEXTS = [
    "The patient zorblaxian was seen today with chest pain and fever.",
    "Qwertzuiop reported a mild cough after the long walk in the park.",
    "Nurse flimbertoot checked the blood pressure twice this morning.",
]


@pytest.mark.default_embedding
def test_attack_public_tokens_is_the_public_prior_denominator(tmp_path) -> None:  # type: ignore[no-untyped-def]
    mech = MechanismSpec("knn", "k", (5,))
    released, anon = anonymize_corpus(TEXTS, mech, 5, 0, embedding="minilm-words", output=tmp_path)
    figures = privacy_figures(TEXTS, released, anon, attack_docs=[0, 1, 2], draws=5, stats_words=20,
                              contextual=False, seed=0)
    direct = run_attacks(TEXTS, [[r.text for r in released]], mechanism=anon.mechanism,
                         index=anon.runtime.index, release_counts=(1,))
    assert figures["attack_public_tokens"] == direct.public_prior.tokens
    assert figures["attack_public_top1"] == pytest.approx(direct.public_prior.rate(1))
    assert 0 < figures["attack_public_tokens"] < figures["attack_tokens"]  # three made-up words are out
