"""The Bayes re-identification attack: success rates computed by hand on hand-made laws."""

from __future__ import annotations

import numpy as np
import pytest

from embedanon.errors import ConfigError
from embedanon.mechanisms.knn import KnnMechanism
from embedanon.noise import GeneratorNoise, Noise, uniform
from embedanon.privacy.attack import BayesAttack, frequency_prior, uniform_prior
from embedanon.vectors.index import NeighborIndex
from embedanon.vectors.store import CandidatePolicy

from ..conftest import TINY_WORDS, make_store

# Hand-made knn table (k = 2) on the 8 tiny words and its reverse sets R(y) = {x : y in row x}:
# R(0) = {1, 2, 3, 7}, R(1) = {0, 2}, R(2) = {0, 1}, R(3) = {4}, R(4) = {3, 5}, R(5) = {4, 6},
# R(6) = {5, 7}, R(7) = {6}.
TABLE = np.array([[1, 2], [0, 2], [0, 1], [0, 4], [3, 5], [4, 6], [5, 7], [6, 0]], dtype=np.int32)
ORIGINALS = np.array([3, 4, 7, 0, 6])
OUTPUTS = np.array([0, 3, 6, 1, 7])


@pytest.fixture
def table_knn(tiny_index: NeighborIndex) -> KnnMechanism:
    mech = KnnMechanism(index=tiny_index, k=2)
    mech.table = TABLE
    return mech


def test_knn_uniform_prior_by_hand(table_knn: KnnMechanism, tiny_index: NeighborIndex) -> None:
    # y=0: R={1,2,3,7} all tied, x=3 in it -> 1/4; y=3: {4} -> 1; y=6: {5,7} -> 1/2;
    # y=1: {0,2} -> 1/2; y=7: {6} -> 1.   Total 3.25 / 5.
    result = BayesAttack(table_knn, tiny_index).run(ORIGINALS, OUTPUTS)
    assert result.tokens == 5
    assert result.expected_hits == pytest.approx(3.25)
    assert result.success == pytest.approx(0.65)
    assert result.method == "exact (knn table)"


def test_knn_corpus_prior_by_hand(table_knn: KnnMechanism, tiny_index: NeighborIndex) -> None:
    # The prior is uniform on {0, 3, 4, 6, 7}: y=0 -> {3, 7} tie -> 1/2; every other y has a
    # single candidate left, the right one.   Total 4.5 / 5.
    prior = frequency_prior(ORIGINALS, 8)
    assert BayesAttack(table_knn, tiny_index).run(ORIGINALS, OUTPUTS, prior).success == pytest.approx(0.9)


def test_knn_skewed_prior_by_hand(table_knn: KnnMechanism, tiny_index: NeighborIndex) -> None:
    # Word 7 five times as likely: y=0 -> guess 7, x=3 missed; y=6 -> 7, hit; y=1 -> {0,2} 1/2.
    prior = np.array([1, 1, 1, 1, 1, 1, 1, 5], dtype=float)
    attack = BayesAttack(table_knn, tiny_index)
    assert attack.run(ORIGINALS, OUTPUTS, prior).expected_hits == pytest.approx(3.5)
    assert attack.guess(OUTPUTS, prior).tolist() == [7, 4, 7, 0, 6]
    assert attack.guess(OUTPUTS).tolist() == [1, 4, 5, 0, 6]  # lowest id among ties


class ForwardAttack(BayesAttack):
    """Deliberately wrong: treats y's own neighbours as its pre-images."""

    def _knn_likelihoods(self, ys, prior):  # type: ignore[no-untyped-def]
        rows = [np.asarray(self.mechanism.table[y], dtype=np.int64) for y in ys]  # type: ignore[attr-defined]
        return rows, [np.full(len(r), 0.5) for r in rows]


def test_negative_control_forward_table_fails_the_hand_count(table_knn: KnnMechanism,
                                                             tiny_index: NeighborIndex) -> None:
    wrong = ForwardAttack(table_knn, tiny_index).run(ORIGINALS, OUTPUTS).success
    assert wrong != pytest.approx(0.65)


def test_knn_attack_matches_brute_force_on_a_real_table(tiny_index: NeighborIndex) -> None:
    mech = KnnMechanism(index=tiny_index, k=3)
    rng = np.random.default_rng(4)
    originals = rng.integers(0, 8, size=300)
    outputs = mech.sample(originals, GeneratorNoise(rng, len(originals)))
    reverse = {y: {x for x in range(8) if y in mech.table[x].tolist()} for y in range(8)}
    pairs = zip(originals.tolist(), outputs.tolist(), strict=True)
    expected = np.mean([1 / len(reverse[y]) if x in reverse[y] else 0.0 for x, y in pairs])
    assert BayesAttack(mech, tiny_index).run(originals, outputs).success == pytest.approx(expected)


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
    attack = BayesAttack(cls(tiny_index, 0.6), tiny_index, neighbors=8)
    assert attack.method == "exact (distribution)"
    assert attack.run(PAIRS_X, PAIRS_Y).success == pytest.approx(4 / 6)
    # prior 20 on word 3: 20 * 0.057 = 1.14 > 0.6, so every y is guessed 3: hits (3,3), (3,6).
    prior = np.ones(8)
    prior[3] = 20
    assert attack.run(PAIRS_X, PAIRS_Y, prior).success == pytest.approx(2 / 6)


def test_array_law_is_mapped_through_candidate_positions() -> None:
    # echo (4) and golf (6) are not candidates (min_length 5): the law has 6 entries, not 8.
    store = make_store(TINY_WORDS)
    index = NeighborIndex(store, CandidatePolicy(min_length=5), use_disk_cache=False)
    assert index.candidates.tolist() == [0, 1, 2, 3, 5, 7]
    for cls in (RRWithDict, RRWithArray):
        attack = BayesAttack(cls(index, 0.6), index, neighbors=8)
        # x=4 is not a candidate: its outputs are uniform over the 6 candidates (1/6 each), below
        # P(y|y) = 0.6, so it is never guessed; x=5 and x=7 kept are.
        assert attack.run(np.array([4, 5, 7]), np.array([0, 5, 7])).success == pytest.approx(2 / 3)


def test_monte_carlo_attack_agrees_with_the_exact_one(tiny_index: NeighborIndex) -> None:
    # With 2000 draws per candidate, estimating 0.6 below 0.33 or 0.057 above 0.33 has
    # probability <= exp(-2 * 2000 * 0.27**2) < 1e-100 (Hoeffding): same guesses as the exact law.
    attack = BayesAttack(RandomizedResponse(tiny_index, 0.6), tiny_index, neighbors=8, mc_draws=2000,
                         rng=np.random.default_rng(0))
    assert attack.method.startswith("monte-carlo")
    assert attack.run(PAIRS_X, PAIRS_Y).success == pytest.approx(4 / 6)


def test_sampling_attack_needs_an_rng(tiny_index: NeighborIndex) -> None:
    with pytest.raises(ConfigError, match="rng"):
        BayesAttack(RandomizedResponse(tiny_index, 0.5), tiny_index)


def test_bad_inputs(tiny_index: NeighborIndex, table_knn: KnnMechanism) -> None:
    attack = BayesAttack(table_knn, tiny_index)
    with pytest.raises(ConfigError, match="prior"):
        attack.run(ORIGINALS, OUTPUTS, np.full(8, -1.0))
    with pytest.raises(ConfigError, match="same length"):
        attack.run(ORIGINALS[:2], OUTPUTS)
    assert np.isnan(attack.run(np.array([]), np.array([])).success)
    np.testing.assert_allclose(uniform_prior(4), 0.25)
