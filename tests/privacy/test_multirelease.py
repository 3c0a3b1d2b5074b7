"""Multi-release attack: intersection of pre-image sets across releases."""

from __future__ import annotations

import numpy as np
import pytest

from embedanon.privacy.attacks import DenseLaw, PosteriorAttack, SparseLaw
from embedanon.privacy.multirelease import multi_release
from embedanon.privacy.prior import embedding_vocabulary
from embedanon.vectors.index import NeighborIndex

from ..helpers.attack_laws import WORDS, MatrixLaw, dense, knn_like, twelve_word_index


@pytest.fixture
def index() -> NeighborIndex:
    return twelve_word_index()


def corpus(matrix: np.ndarray, docs: int, releases: int, seed: int):
    rng = np.random.default_rng(seed)
    xs = [rng.integers(0, 12, size=6) for _ in range(docs)]
    originals = [" ".join(WORDS[x] for x in row) for row in xs]
    outs = [[[int(rng.choice(12, p=matrix[x])) for x in row] for row in xs] for _ in range(releases)]
    texts = [[" ".join(WORDS[y] for y in row) for row in rel] for rel in outs]
    return xs, originals, outs, texts


@pytest.mark.parametrize("law", ["sparse", "dense"])
def test_identical_releases_give_exactly_the_one_release_figure(index: NeighborIndex, law: str) -> None:
    matrix = knn_like(3, 0) if law == "sparse" else dense(4)
    mech = MatrixLaw(matrix)
    like = SparseLaw(mech, index) if law == "sparse" else DenseLaw(mech, index, neighbors=12)
    attack = PosteriorAttack(like, embedding_vocabulary(index.store, np.arange(1, 13.0)), WORDS, guarded=False)
    _, originals, _, texts = corpus(matrix, 20, 1, 3)
    figs = multi_release(originals, [texts[0]] * 5, attack, index.store, counts=(1, 2, 5))
    assert [f.releases for f in figs] == [1, 2, 5]
    for f in figs[1:]:
        assert (f.tokens, f.top1, f.mean_candidates) == (figs[0].tokens, figs[0].top1, figs[0].mean_candidates)
        assert f.unique == figs[0].unique or (np.isnan(f.unique) and np.isnan(figs[0].unique))
    one = attack.run([int(w) for w in np.concatenate(corpus(matrix, 20, 1, 3)[0])],
                     np.concatenate([np.array(r) for r in corpus(matrix, 20, 1, 3)[2][0]]), (1,))
    assert figs[0].top1 == pytest.approx(one.hits[0])


def test_fresh_releases_match_a_brute_force_intersection(index: NeighborIndex) -> None:
    matrix = knn_like(3, 1)
    prior = np.arange(1, 13.0)
    attack = PosteriorAttack(SparseLaw(MatrixLaw(matrix), index), embedding_vocabulary(index.store, prior),
                             WORDS, guarded=False)
    xs, originals, outs, texts = corpus(matrix, 25, 5, 8)
    figs = multi_release(originals, texts, attack, index.store, counts=(1, 2, 5))
    for fig in figs:
        unique = top1 = 0.0
        for d, row in enumerate(xs):
            for i, x in enumerate(row):
                score = prior.copy()
                for r in range(fig.releases):
                    score *= matrix[:, outs[r][d][i]]
                alive = np.flatnonzero(score > 0)
                unique += float(alive.tolist() == [x])
                best = np.flatnonzero(np.isclose(score, score.max(), rtol=1e-12, atol=0))
                top1 += float(x in best) / len(best)
        assert fig.unique == pytest.approx(unique) and fig.top1 == pytest.approx(top1)
    assert figs[0].unique_rate < figs[1].unique_rate < figs[2].unique_rate


def test_unique_recovery_is_undefined_for_restricted_likelihoods(index: NeighborIndex) -> None:
    attack = PosteriorAttack(DenseLaw(MatrixLaw(dense(1)), index, neighbors=12),
                             embedding_vocabulary(index.store, np.ones(12)), WORDS, guarded=False)
    _, originals, _, texts = corpus(dense(1), 5, 2, 0)
    assert all(np.isnan(f.unique) for f in multi_release(originals, texts, attack, index.store))
