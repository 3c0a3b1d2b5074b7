"""Multi-release attack: intersection of pre-image sets across releases."""

from __future__ import annotations

import numpy as np
import pytest

from embedanon.privacy.attacks import DenseLaw, PosteriorAttack, SparseLaw
from embedanon.privacy.attacks.multirelease import multi_release
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


def _brute_force(matrix, prior, xs, outs, n):  # type: ignore[no-untyped-def]
    """Plain reference: Bayes top-1 over all 12 words, and the majority vote (ties by prior)."""
    top1 = vote = 0.0
    for d, row in enumerate(xs):
        for i, x in enumerate(row):
            score = prior.copy()
            ballots = [outs[r][d][i] for r in range(n)]
            for y in ballots:
                score *= matrix[:, y]
            best = np.flatnonzero(np.isclose(score, score.max(), rtol=1e-12, atol=0))
            top1 += float(x in best) / len(best)
            most = max(ballots.count(y) for y in ballots)
            tied = sorted({y for y in ballots if ballots.count(y) == most})
            heavy = [y for y in tied if prior[y] == max(prior[t] for t in tied)]
            vote += float(x in heavy) / len(heavy)
    return top1, vote


def test_dense_releases_are_scored_on_the_union_equal_to_brute_force(index: NeighborIndex) -> None:
    """With every word a candidate, the union of each release's candidates holds every word, so
    the restricted attack equals the Bayes attacker over all words; the intersection used for exact
    laws would lose the original whenever one release's candidates miss it."""
    matrix = dense(6)
    prior = np.arange(1, 13.0)
    attack = PosteriorAttack(DenseLaw(MatrixLaw(matrix), index, neighbors=12),
                             embedding_vocabulary(index.store, prior), WORDS, guarded=False)
    xs, originals, outs, texts = corpus(matrix, 25, 5, 9)
    for fig in multi_release(originals, texts, attack, index.store, counts=(1, 2, 5), candidates=12):
        top1, vote = _brute_force(matrix, prior, xs, outs, fig.releases)
        assert fig.top1 == pytest.approx(top1) and fig.majority == pytest.approx(vote)


def test_a_mostly_faithful_mechanism_falls_to_the_majority_vote(index: NeighborIndex) -> None:
    """P(y = x) = 0.7: the vote's top-1 climbs with N; knn-like laws never return the input, so
    the vote recovers nothing (the negative control)."""
    faithful = 0.7 * np.eye(12) + 0.3 * (np.ones((12, 12)) - np.eye(12)) / 11
    attack = PosteriorAttack(DenseLaw(MatrixLaw(faithful), index, neighbors=12),
                             embedding_vocabulary(index.store, np.ones(12)), WORDS, guarded=False)
    _, originals, _, texts = corpus(faithful, 40, 5, 2)
    one, _, five = multi_release(originals, texts, attack, index.store, counts=(1, 2, 5))
    assert one.majority / one.tokens < five.majority / five.tokens
    assert five.majority / five.tokens > 0.9
    never = knn_like(3, 4)
    attack = PosteriorAttack(SparseLaw(MatrixLaw(never), index), embedding_vocabulary(index.store, np.ones(12)),
                             WORDS, guarded=False)
    _, originals, _, texts = corpus(never, 20, 5, 3)
    assert all(f.majority == 0 for f in multi_release(originals, texts, attack, index.store))
