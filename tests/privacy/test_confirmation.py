"""Candidate-name confirmation: exact on a 12-word vocabulary, with a chance-level negative control."""

from __future__ import annotations

import numpy as np
import pytest

from embedanon.privacy.attacks import DenseLaw, SparseLaw
from embedanon.privacy.attacks.confirmation import name_confirmation
from embedanon.privacy.attacks.documents import Slot
from embedanon.privacy.prior import NameEntry

from ..helpers.attack_laws import WORDS, MatrixLaw, dense, knn_like, twelve_word_index

DICTIONARY = [NameEntry(w, "first", "g1" if i < 6 else "g2", 1.0) for i, w in enumerate(WORDS)]


def _names(matrix: np.ndarray, n: int, seed: int) -> list[tuple[list[Slot], str]]:
    """n two-part names of group g1 (words 0-5), each part released through ``matrix``."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        parts = rng.integers(0, 6, size=2)
        slots = [Slot(WORDS[x], int(x), int(rng.choice(12, p=matrix[x])), True, 0) for x in parts]
        out.append((slots, "g1"))
    return out


def _reference(matrix: np.ndarray, names, decoys: int, seed: int) -> float:  # type: ignore[no-untyped-def]
    """Plain reference: the same decoy draws, scores straight from the matrix."""
    rng = np.random.default_rng(seed)
    pool = sorted(WORDS[:6])
    wins = 0.0
    for slots, _ in names:
        def score(keys, slots=slots):  # type: ignore[no-untyped-def]
            with np.errstate(divide="ignore"):
                return sum(np.log(matrix[WORDS.index(k), s.released_id]) for k, s in zip(keys, slots))
        true = score([s.key for s in slots])
        for _ in range(decoys):
            other = score([pool[int(i)] for i in rng.integers(0, len(pool), size=len(slots))])
            wins += (true > other) + 0.5 * (true == other)
    return wins / (len(names) * decoys)


@pytest.mark.parametrize(("matrix", "law"), [(knn_like(3, 0), "sparse"), (dense(5), "dense")])
def test_confirmation_equals_the_plain_reference(matrix: np.ndarray, law: str) -> None:
    index = twelve_word_index()
    mech = MatrixLaw(matrix)
    likelihood = SparseLaw(mech, index) if law == "sparse" else DenseLaw(mech, index, neighbors=12)
    names = _names(matrix, 30, 1)
    figure = name_confirmation(names, likelihood, index.store, DICTIONARY, proxies=None, guarded=False,
                               decoys=7, seed=4)
    assert (figure.names, figure.decoys) == (30, 7)
    assert figure.auc == pytest.approx(_reference(matrix, names, 7, 4), abs=1e-12)
    assert figure.auc > 0.6  # the law tells the true name apart


def test_negative_control_an_output_independent_of_the_input_is_chance() -> None:
    """Every word's law is the same: no name scores above another, so every game ties: 0.5."""
    index = twelve_word_index()
    flat = np.full((12, 12), 1 / 12)
    figure = name_confirmation(_names(flat, 20, 2), DenseLaw(MatrixLaw(flat), index, neighbors=12),
                               index.store, DICTIONARY, proxies=None, guarded=False, decoys=5)
    assert figure.auc == 0.5


def test_no_names_is_not_a_figure() -> None:
    index = twelve_word_index()
    figure = name_confirmation([], SparseLaw(MatrixLaw(knn_like(3, 0)), index), index.store, DICTIONARY,
                               proxies=None, guarded=False)
    assert figure.names == 0 and np.isnan(figure.auc)
