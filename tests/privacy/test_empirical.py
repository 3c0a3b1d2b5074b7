"""The empirical-law attacker (``EmpiricalLaw``) on a 12-word vocabulary whose law is enumerable."""

from __future__ import annotations

import numpy as np
import pytest

from embedanon.errors import ConfigError
from embedanon.mechanisms.laplace import LaplaceMechanism
from embedanon.noise import Noise, uniform
from embedanon.privacy.attacks import PosteriorAttack, run_attacks
from embedanon.privacy.attacks.empirical import EmpiricalLaw
from embedanon.privacy.attacks.likelihood import DenseLaw
from embedanon.privacy.prior import embedding_vocabulary
from embedanon.vectors.index import NeighborIndex

from ..helpers.attack_laws import WORDS, dense, twelve_word_index
from .test_attacks import brute_force, sample_pairs


class SampledMatrix:
    """A mechanism that only samples (no ``distribution``): y ~ matrix[x], by inverse CDF."""

    name, may_return_input = "sampled-matrix", True

    def __init__(self, matrix: np.ndarray) -> None:
        self.cdf = np.cumsum(matrix, axis=1)
        self.cdf[:, -1] = 1.0

    def sample(self, ids: np.ndarray, noise: Noise) -> np.ndarray:
        u = uniform(noise, 1)[:, 0]
        return (self.cdf[np.asarray(ids)] <= u[:, None]).sum(axis=1).astype(np.int64)


@pytest.fixture
def index() -> NeighborIndex:
    return twelve_word_index()


def test_estimates_converge_to_the_enumerated_law(index: NeighborIndex) -> None:
    matrix = dense(4)
    draws = 20_000
    law = EmpiricalLaw(SampledMatrix(matrix), index, draws=draws, neighbors=12, seed=1)
    xs, ys = np.repeat(np.arange(12), 12), np.tile(np.arange(12), 12)
    got = law.pairs(xs, ys)
    sd = np.sqrt(matrix[xs, ys] * (1 - matrix[xs, ys]) / draws)
    assert np.all(np.abs(got - matrix[xs, ys]) <= 6 * sd + 1e-12)
    assert got.reshape(12, 12).sum(axis=1) == pytest.approx(np.ones(12))
    # cached: asking again draws nothing new
    assert (law.pairs(xs[::-1], ys[::-1]) == got[::-1]).all()


def test_attack_with_the_empirical_law_approaches_the_exact_one_from_below(index: NeighborIndex) -> None:
    matrix = dense(6)
    prior = np.random.default_rng(3).pareto(1.0, 12) + 0.01
    xs, ys = sample_pairs(matrix, 2000, 8, prior)
    vocab = embedding_vocabulary(index.store, prior)
    exact = brute_force(matrix, prior, xs, ys, (1,))[0] / len(xs)
    rates = {}
    for draws in (5, 5000):
        law = EmpiricalLaw(SampledMatrix(matrix), index, draws=draws, neighbors=12, seed=2)
        rates[draws] = PosteriorAttack(law, vocab, WORDS, guarded=False).run(xs, np.array(ys), (1,)).rate(1)
    assert rates[5000] == pytest.approx(exact, abs=0.02)
    assert rates[5] < exact  # few draws: a worse guessing rule, a lower bound


def test_smoothing_gives_every_candidate_pair_mass_and_keeps_the_law_normalized(index: NeighborIndex) -> None:
    matrix = dense(4)
    plain = EmpiricalLaw(SampledMatrix(matrix), index, draws=7, neighbors=12, seed=1)
    smooth = EmpiricalLaw(SampledMatrix(matrix), index, draws=7, neighbors=12, seed=1, smoothing=0.5)
    xs, ys = np.repeat(np.arange(12), 12), np.tile(np.arange(12), 12)
    p, q = plain.pairs(xs, ys), smooth.pairs(xs, ys)
    assert (p == 0).any() and (q > 0).all()
    assert q.reshape(12, 12).sum(axis=1) == pytest.approx(np.ones(12))
    assert q == pytest.approx((p * 7 + 0.5) / (7 + 0.5 * 12))  # same draws, same counts
    with pytest.raises(ConfigError):
        EmpiricalLaw(SampledMatrix(matrix), index, smoothing=-1.0)


def test_negative_control_a_mechanism_blind_to_its_input_scores_the_prior_guess(index: NeighborIndex) -> None:
    matrix = np.full((12, 12), 1 / 12)
    prior = np.arange(1, 13, dtype=float)
    xs, ys = sample_pairs(dense(6), 1200, 9, prior)  # outputs unrelated to the blind law
    law = EmpiricalLaw(SampledMatrix(matrix), index, draws=20_000, neighbors=12, seed=4)
    rate = PosteriorAttack(law, embedding_vocabulary(index.store, prior), WORDS, guarded=False).run(
        xs, np.array(ys), (1,)).rate(1)
    chance = float(np.mean(np.array(xs) == 11))  # the prior's top word; sampling noise may move it
    assert rate == pytest.approx(chance, abs=0.08)
    assert rate < 0.3


def test_laplace_gets_an_empirical_attack_figure(index: NeighborIndex) -> None:
    mech = LaplaceMechanism(index=index, epsilon=8.0)
    law = EmpiricalLaw(mech, index, draws=300, neighbors=12)
    xs, ys = np.repeat(np.arange(12), 12), np.tile(np.arange(12), 12)
    got = law.pairs(xs, ys).reshape(12, 12)
    assert ((got >= 0) & (got <= 1)).all() and got.sum(axis=1) == pytest.approx(np.ones(12))
    assert (np.diag(got) > got.mean(axis=1)).all()  # at epsilon 8 on 6-d vectors, x is the likeliest output
    assert isinstance(law._near, DenseLaw)


def test_run_attacks_uses_the_empirical_law_only_when_asked(index: NeighborIndex) -> None:
    from embedanon.privacy.attacks.contextual import train_bigrams

    mech = SampledMatrix(dense(3))
    docs = ["apple bread cheese dinner.", "eagle forest garden."]
    rel = [" ".join(WORDS[int(y)] for y in mech.sample(np.array(ids), _Noise(len(ids), s))) + "."
           for s, ids in enumerate([[0, 1, 2, 3], [4, 5, 6]])]
    with pytest.raises(ConfigError, match="no exact law"):
        run_attacks(docs, [rel], mechanism=mech, index=index, contextual=False)
    figs = run_attacks(docs, [rel], mechanism=mech, index=index, empirical_draws=50, contextual=False,
                       bigrams=train_bigrams([WORDS]), oov_words=1)
    assert not figs.exact and figs.invocab_tokens == 7
    assert 0 <= figs.public_prior.rate(1) <= 1


class _Noise:
    """Seeded generator noise (tests only)."""

    def __new__(cls, n: int, seed: int) -> Noise:  # type: ignore[misc]
        from embedanon.noise import GeneratorNoise

        return GeneratorNoise(np.random.default_rng(seed), n)
