"""The one Bayes attack (PosteriorAttack over the embedding's words): success rates computed by
hand on hand-made laws, for the exact, the restricted and the estimated likelihood."""

from __future__ import annotations

import numpy as np
import pytest

from embedanon.errors import ConfigError
from embedanon.mechanisms.knn import KnnMechanism
from embedanon.noise import GeneratorNoise, Noise, uniform
from embedanon.privacy.attacks.bayes import PosteriorAttack, TopK
from embedanon.privacy.attacks.empirical import EmpiricalLaw
from embedanon.privacy.attacks.likelihood import Likelihood, likelihood_for
from embedanon.privacy.prior import embedding_vocabulary
from embedanon.vectors.index import NeighborIndex
from embedanon.vectors.store import CandidatePolicy

from ..conftest import TINY_WORDS, make_store

# Hand-made knn table (k = 2) on the 8 tiny words and its reverse sets R(y) = {x : y in row x}:
# R(0) = {1, 2, 3, 7}, R(1) = {0, 2}, R(2) = {0, 1}, R(3) = {4}, R(4) = {3, 5}, R(5) = {4, 6},
# R(6) = {5, 7}, R(7) = {6}.
TABLE = np.array([[1, 2], [0, 2], [0, 1], [0, 4], [3, 5], [4, 6], [5, 7], [6, 0]], dtype=np.int32)
ORIGINALS = np.array([3, 4, 7, 0, 6])
OUTPUTS = np.array([0, 3, 6, 1, 7])


def bayes(mech: object, index: NeighborIndex, originals: np.ndarray, outputs: np.ndarray,
          prior: np.ndarray | None = None, *, neighbors: int = 8, law: Likelihood | None = None) -> TopK:
    """Top-1 of the Bayes attack on aligned (original, output) ids, under ``prior`` (default uniform)."""
    law = likelihood_for(mech, index, neighbors=neighbors) if law is None else law
    weights = np.ones(len(index.store)) if prior is None else prior
    attack = PosteriorAttack(law, embedding_vocabulary(index.store, weights), index.store.words,
                             guarded=not getattr(mech, "may_return_input", False))
    return attack.run(np.asarray(originals).tolist(), np.asarray(outputs), (1,))


def corpus_prior(ids: np.ndarray, size: int) -> np.ndarray:
    return np.bincount(ids, minlength=size).astype(np.float64)


@pytest.fixture
def table_knn(tiny_index: NeighborIndex) -> KnnMechanism:
    mech = KnnMechanism(index=tiny_index, k=2)
    mech.table = TABLE
    return mech


def test_knn_uniform_prior_by_hand(table_knn: KnnMechanism, tiny_index: NeighborIndex) -> None:
    # y=0: R={1,2,3,7} all tied, x=3 in it -> 1/4; y=3: {4} -> 1; y=6: {5,7} -> 1/2;
    # y=1: {0,2} -> 1/2; y=7: {6} -> 1.   Total 3.25 / 5.
    result = bayes(table_knn, tiny_index, ORIGINALS, OUTPUTS)
    assert result.tokens == 5
    assert result.hits[0] == pytest.approx(3.25)
    assert result.rate(1) == pytest.approx(0.65)
    assert likelihood_for(table_knn, tiny_index).exact


def test_knn_corpus_prior_by_hand(table_knn: KnnMechanism, tiny_index: NeighborIndex) -> None:
    # The prior is uniform on {0, 3, 4, 6, 7}: y=0 -> {3, 7} tie -> 1/2; every other y has a
    # single candidate left, the right one.   Total 4.5 / 5.
    prior = corpus_prior(ORIGINALS, 8)
    assert bayes(table_knn, tiny_index, ORIGINALS, OUTPUTS, prior).rate(1) == pytest.approx(0.9)


def test_knn_skewed_prior_by_hand(table_knn: KnnMechanism, tiny_index: NeighborIndex) -> None:
    # Word 7 five times as likely: y=0 -> guess 7, x=3 missed; y=6 -> 7, hit; y=1 -> {0,2} 1/2.
    prior = np.array([1, 1, 1, 1, 1, 1, 1, 5], dtype=float)
    assert bayes(table_knn, tiny_index, ORIGINALS, OUTPUTS, prior).hits[0] == pytest.approx(3.5)

    def guesses(weights: np.ndarray) -> list[int]:
        law = likelihood_for(table_knn, tiny_index)
        attack = PosteriorAttack(law, embedding_vocabulary(tiny_index.store, weights), tiny_index.store.words,
                                 guarded=True)
        return [int(rows[0]) for rows, _ in attack.best(OUTPUTS, 1)]

    assert guesses(prior) == [7, 4, 7, 0, 6]
    assert guesses(np.ones(8)) == [1, 4, 5, 0, 6]  # lowest id among ties


class ForwardLaw:
    """Deliberately wrong: treats y's own neighbors as its pre-images."""

    exact = True

    def __init__(self, table: np.ndarray) -> None:
        self.table = table

    def preimages(self, ys: np.ndarray, extra: np.ndarray | None = None) -> list[np.ndarray]:
        return [np.sort(np.asarray(self.table[y], dtype=np.int64)) for y in np.asarray(ys).tolist()]

    def pairs(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        return np.array([0.5 if x in self.table[y].tolist() else 0.0 for x, y in zip(xs.tolist(), ys.tolist())])


def test_negative_control_forward_table_fails_the_hand_count(table_knn: KnnMechanism,
                                                             tiny_index: NeighborIndex) -> None:
    wrong = bayes(table_knn, tiny_index, ORIGINALS, OUTPUTS, law=ForwardLaw(TABLE)).rate(1)
    assert wrong != pytest.approx(0.65)


def test_knn_attack_matches_brute_force_on_a_real_table(tiny_index: NeighborIndex) -> None:
    mech = KnnMechanism(index=tiny_index, k=3)
    rng = np.random.default_rng(4)
    originals = rng.integers(0, 8, size=300)
    outputs = mech.sample(originals, GeneratorNoise(rng, len(originals)))
    reverse = {y: {x for x in range(8) if y in mech.table[x].tolist()} for y in range(8)}
    pairs = zip(originals.tolist(), outputs.tolist(), strict=True)
    expected = np.mean([1 / len(reverse[y]) if x in reverse[y] else 0.0 for x, y in pairs])
    assert bayes(mech, tiny_index, originals, outputs).rate(1) == pytest.approx(expected)


# ------------------------------------------------------------------------------------------------
# mechanisms with an exact distribution, and sampled ones
# ------------------------------------------------------------------------------------------------
class RandomizedResponse:
    """Keep the word with probability p, else a uniform other candidate (a hand-made law)."""

    name = "rr"
    may_return_input = True

    def __init__(self, index: NeighborIndex, p: float) -> None:
        self.index, self.p = index, p
        self.cands = index.candidates

    def law(self, x: int) -> dict[int, float]:
        cands = self.cands.tolist()
        if x not in cands:  # not an output word: uniform over the candidates
            return {c: 1 / len(cands) for c in cands}
        out = {c: (1 - self.p) / (len(cands) - 1) for c in cands}
        out[x] = self.p
        return out

    def sample(self, ids: np.ndarray, noise: Noise) -> np.ndarray:
        out = []
        for x, u in zip(np.asarray(ids).tolist(), uniform(noise, 1)[:, 0].tolist(), strict=True):
            law = self.law(x)
            keys = list(law)
            cdf = np.cumsum([law[k] for k in keys])
            out.append(keys[min(int(np.searchsorted(cdf, u, side="right")), len(keys) - 1)])
        return np.array(out, dtype=np.int64)


class RRWithDict(RandomizedResponse):
    def distribution(self, word_id: int) -> dict[int, float]:
        return self.law(word_id)


class RRWithArray(RandomizedResponse):
    def distribution(self, word_id: int) -> np.ndarray:  # over index.candidates, like exponential
        law = self.law(word_id)
        return np.array([law.get(int(c), 0.0) for c in self.cands])


# p = 0.6 against (1 - p) / 7 = 0.057: under a uniform prior the guess is y itself.
PAIRS_X = np.array([0, 1, 2, 3, 3, 5])
PAIRS_Y = np.array([0, 1, 4, 3, 6, 5])  # hits: 0, 1, 3, 5 -> 4 / 6


@pytest.mark.parametrize("cls", [RRWithDict, RRWithArray])
def test_distribution_attack_by_hand(cls: type, tiny_index: NeighborIndex) -> None:
    mech = cls(tiny_index, 0.6)
    assert bayes(mech, tiny_index, PAIRS_X, PAIRS_Y).rate(1) == pytest.approx(4 / 6)
    # prior 20 on word 3: 20 * 0.057 = 1.14 > 0.6, so every y is guessed 3: hits (3,3), (3,6).
    prior = np.ones(8)
    prior[3] = 20
    assert bayes(mech, tiny_index, PAIRS_X, PAIRS_Y, prior).rate(1) == pytest.approx(2 / 6)


def test_array_law_is_mapped_through_candidate_positions() -> None:
    # echo (4) and golf (6) are not candidates (min_length 5): the law has 6 entries, not 8.
    store = make_store(TINY_WORDS)
    index = NeighborIndex(store, CandidatePolicy(min_length=5), use_disk_cache=False)
    assert index.candidates.tolist() == [0, 1, 2, 3, 5, 7]
    for cls in (RRWithDict, RRWithArray):
        # x=4 is not a candidate: its outputs are uniform over the 6 candidates (1/6 each), below
        # P(y|y) = 0.6, so it is never guessed; x=5 and x=7 kept are.
        assert bayes(cls(index, 0.6), index, np.array([4, 5, 7]), np.array([0, 5, 7])).rate(1) \
            == pytest.approx(2 / 3)


def test_an_estimated_law_agrees_with_the_exact_one(tiny_index: NeighborIndex) -> None:
    # With 2000 draws per candidate, estimating 0.6 below 0.33 or 0.057 above 0.33 has
    # probability <= exp(-2 * 2000 * 0.27**2) < 1e-100 (Hoeffding): same guesses as the exact law.
    mech = RandomizedResponse(tiny_index, 0.6)
    law = EmpiricalLaw(mech, tiny_index, draws=2000, neighbors=8, seed=0)
    assert bayes(mech, tiny_index, PAIRS_X, PAIRS_Y, law=law).rate(1) == pytest.approx(4 / 6)


def test_no_law_and_no_estimate_is_refused(tiny_index: NeighborIndex) -> None:
    with pytest.raises(ConfigError, match="no exact law"):
        likelihood_for(RandomizedResponse(tiny_index, 0.5), tiny_index)


def test_bad_inputs(tiny_index: NeighborIndex, table_knn: KnnMechanism) -> None:
    with pytest.raises(ConfigError, match="prior"):
        embedding_vocabulary(tiny_index.store, np.ones(3))
    with pytest.raises(ValueError, match="one truth per replacement"):
        bayes(table_knn, tiny_index, ORIGINALS[:2], OUTPUTS)
    assert np.isnan(bayes(table_knn, tiny_index, np.array([], dtype=np.int64), np.array([], dtype=np.int64)).rate(1))
