"""The layout membership attack: exact on hand-made releases, its index against a plain reference."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from embedanon.privacy.attacks.membership import (
    LEVELS,
    _Release,
    layout_levels,
    layout_membership,
    mann_whitney_auc,
)


def test_layout_levels_keep_shapes_only() -> None:
    layout, sentences, words = layout_levels("Mr. Smith, 45, said: ok!\nBP 120/80 x2")
    assert (sentences, words) == ((1, 4, 4), 9)
    again = layout_levels("Pm. Bruce, 81, told: ab!\nPT 657/86 q7")
    assert again[0] == layout  # same case codes, digit counts and punctuation, other words
    assert layout_levels("Mr. Smith, 45, said: ok!\nBP 120/80 x2 ")[0] != layout  # whitespace counts


def test_mann_whitney_auc_counts_pairs_with_ties_half() -> None:
    rng = np.random.default_rng(0)
    pos, neg = rng.integers(0, 4, 30).tolist(), rng.integers(0, 4, 20).tolist()
    pairs = [(p > n) + 0.5 * (p == n) for p, n in itertools.product(pos, neg)]
    assert mann_whitney_auc(pos, neg) == pytest.approx(sum(pairs) / len(pairs), abs=1e-12)
    assert np.isnan(mann_whitney_auc([], [1.0]))


def test_a_release_that_keeps_layout_tells_every_member() -> None:
    notes = ["Seen today. Pain is better.", "No fever.\nCough at night, mild.", "BP 120/80. Stable!"]
    released = ["Heard soon. Ache was nicer.", "Any cold.\nCold to day, wild.", "PT 657/86. Able!"]
    figure = layout_membership(notes, released)
    assert figure.auc == 1.0 and figure.unique_layout == 1.0


def test_negative_control_identical_layouts_are_chance() -> None:
    """Every record has the same layout: with or without its own release, the note finds its
    twin, so member and non-member scores tie and the AUC is exactly 0.5."""
    notes = ["Alpha beta gamma.", "Delta epsilon zeta.", "Eta theta iota."]
    released = ["Kappa lambda mu.", "Nu xi omicron.", "Pi rho sigma."]
    figure = layout_membership(notes, released)
    assert figure.auc == 0.5 and figure.unique_layout == 0.0


def _reference_score(note, levels, use, without):
    """Plain reference of the closest-record score: every record compared in turn."""
    best = 0.0
    for j, lv in enumerate(levels):
        if j == without:
            continue
        if "layout" in use and lv[0] == note[0]:
            best = max(best, 3.0)
        if "sentences" in use and note[1] and len(lv[1]) == len(note[1]):
            same = sum(a == b for a, b in zip(lv[1], note[1]))
            if same:
                best = max(best, 1.0 + same / len(note[1]))
        best = max(best, 1.0 - abs(lv[2] - note[2]) / (note[2] + 1))
    return best


@pytest.mark.parametrize("use", [LEVELS, ("sentences", "words"), ("words",)])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_indexed_score_equals_the_plain_reference(use: tuple[str, ...], seed: int) -> None:
    rng = random.Random(seed)

    def text() -> str:
        sentences = [" ".join(rng.choice(["ab", "Cd", "EF", "12"]) for _ in range(rng.randint(1, 3)))
                     for _ in range(rng.randint(1, 3))]
        return rng.choice([". ", ".\n"]).join(sentences) + "."

    released = [text() for _ in range(40)]
    release = _Release(released, use)
    for _ in range(60):
        note = layout_levels(text())
        for without in (None, rng.randrange(40)):
            assert release.score(note, without) == pytest.approx(
                _reference_score(note, release.levels, use, without), abs=1e-12)


def test_levels_must_include_the_word_count() -> None:
    with pytest.raises(ValueError, match="words"):
        layout_membership(["a"], ["b"], levels=("layout",))
