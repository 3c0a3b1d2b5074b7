"""The BIO decode: the whole-text fast path gives the spans of the run-by-run reference."""

from __future__ import annotations

import numpy as np
import pytest

from embedanon.detectors.bio import CLASSES, decode, decode_reference


def _proba(rng: np.random.Generator, n: int, peaked: float) -> np.ndarray:
    """float32 (n, C) rows: mostly O with bursts of entity classes (B, I and stray I-X)."""
    logits = rng.normal(size=(n, len(CLASSES))) * 3.0
    logits[:, 0] += rng.normal(peaked, 4.0, size=n)  # long O stretches split the text into runs
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)).astype(np.float32)


@pytest.mark.parametrize("seed", range(6))
def test_decode_matches_the_run_by_run_reference(seed):
    rng = np.random.default_rng(seed)
    viterbi_runs = 0
    for trial in range(300):
        n = int(rng.integers(0, 60))
        proba = _proba(rng, n, peaked=float(rng.choice([2.0, 6.0, 10.0])))
        starts = np.arange(n, dtype=np.int64) * 3
        ends = starts + 2
        threshold = float(rng.choice([0.0005, 0.02, 0.1, 0.5, 0.9]))  # 0.0005: below _ACTIVE
        shift: float | np.ndarray = float(np.log(threshold / (1 - threshold)))
        if trial % 3 == 0 and n:  # a per-token shift (absent words get a lower threshold)
            shift = np.where(rng.random(n) < 0.3, float(rng.choice([-4.0, -9.0])), shift)
        fast = decode(starts, ends, proba, o_shift=shift)
        assert fast == decode_reference(starts, ends, proba, o_shift=shift)
        # how often the argmax path was not valid BIO somewhere (the Viterbi branch)
        arg = np.argmax(proba, axis=1)
        viterbi_runs += bool(n) and any(arg[t] % 2 == 0 and arg[t] > 0 and arg[t - 1] not in (arg[t], arg[t] - 1)
                                        for t in range(1, n))
    assert viterbi_runs > 30  # both branches are exercised
