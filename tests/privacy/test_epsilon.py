"""Epsilon in words and the readable ranges of --help."""

from __future__ import annotations

import pytest

from embedanon.privacy.calibration import calibrate
from embedanon.privacy.epsilon import READABLE_RANGES, epsilon_sentences, ranges_help


def test_sentences_give_the_bound_per_word_record_and_note() -> None:
    words = epsilon_sentences(14.0, longest_parts=53)
    assert "e^28 (about 1.4e+12)" in words["per_word"] and "no meaningful bound" in words["per_word"]
    assert "53 x 14 = 742" in words["per_record"] and "e^742" in words["per_record"]
    assert "500 x 14 = 7,000" in words["note_500_words"] and "none at all" in words["note_500_words"]
    small = epsilon_sentences(0.01)
    assert "per_record" not in small and "meaningful (at most e^10)" in small["note_500_words"]
    assert "no meaningful bound" not in small["per_word"]


def test_the_help_line_names_every_mechanism_range() -> None:
    line = ranges_help()
    for name, (low, high) in READABLE_RANGES.items():
        if name != "tem":
            assert f"{name} {low:g}-{high:g}" in line


@pytest.mark.default_embedding
@pytest.mark.parametrize("mechanism", ["exponential", "laplace", "mahalanobis"])
def test_the_readable_ranges_are_where_n_w_is_one_tenth_and_one_half(mechanism: str,
                                                                     default_index) -> None:  # type: ignore[no-untyped-def]
    """The range's ends are the epsilon of N_w = 0.1 and 0.5 on the default embedding. 200 words x
    50 draws: the mean over words has a standard error near 0.005 (word-to-word spread about 0.07,
    and 50 draws add at most 0.5 / sqrt(10,000)); the ends are checked to +-0.04, and a wrong range
    (the exponential's ends used for laplace) misses by far more."""
    low, high = READABLE_RANGES[mechanism]
    rows = calibrate(mechanism, [low, high], index=default_index, words=200, draws=50, seed=0)
    assert rows[0].n_w_mean == pytest.approx(0.1, abs=0.04)
    assert rows[1].n_w_mean == pytest.approx(0.5, abs=0.04)
