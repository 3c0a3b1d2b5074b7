"""The shipped placements of public words equal what the live composition computes today."""

from __future__ import annotations

import numpy as np
import pytest

from embedanon.config import AnonymizerConfig
from embedanon.pipeline.plan import SAFE_K
from embedanon.pipeline.runtime import get_runtime
from embedanon.vectors.placements import load_public_placements

pytestmark = pytest.mark.default_embedding


def test_shipped_table_matches_the_live_computation() -> None:
    rt = get_runtime(AnonymizerConfig())
    table = load_public_placements(rt.index, SAFE_K)
    assert table is not None, "the shipped table must fit the default embedding and guard rules"
    words = sorted(table.index)
    sample = [words[i] for i in np.random.default_rng(0).choice(len(words), 300, replace=False)]
    assert rt.lexicon.composer is not None
    placed, rows = rt.lexicon.composer.neighbors(sample, SAFE_K)
    assert placed.all()
    assert [table.get(w) for w in sample] == [tuple(r) for r in rows.tolist()]


def test_no_placement_is_a_two_letter_piece_of_its_word() -> None:
    rt = get_runtime(AnonymizerConfig())
    table = load_public_placements(rt.index, SAFE_K)
    assert table is not None
    words = rt.store.words
    for word, at in list(table.index.items())[:20_000]:
        for wid in table.rows[at].tolist():
            assert not (len(words[wid]) == 2 and words[wid] in word)


@pytest.mark.slow
def test_a_table_for_another_candidate_policy_is_not_used() -> None:
    rt = get_runtime(AnonymizerConfig(min_length=3))
    assert load_public_placements(rt.index, SAFE_K) is None
