"""Bigram model and Viterbi decoding of the contextual attacker, against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from embedanon.privacy.attacks import PosteriorAttack, SparseLaw, corpus_slots
from embedanon.privacy.attacks.contextual import (
    BigramModel,
    bundled_bigrams,
    contextual_attack,
    forward_backward,
    train_bigrams,
    viterbi,
)
from embedanon.privacy.prior import embedding_vocabulary
from embedanon.vectors.index import NeighborIndex
from embedanon.vectors.store import CandidatePolicy, EmbeddingStore

SENTENCES = [["i", "read", "books"], ["i", "read", "news"], ["the", "red", "car"], ["a", "red", "car"],
             ["i", "read", "the", "news"], ["books", "are", "red"]]


@pytest.mark.parametrize("min_count", [1, 2])
def test_bigram_probabilities_sum_to_one(min_count: int) -> None:
    model = train_bigrams(SENTENCES * 2 + [["rare", "words"]], min_count=min_count * 2)
    w = len(model.words)
    for a in range(w):
        total = np.exp(model.log_prob(np.full(w, a), np.arange(w))).sum()
        assert total == pytest.approx(1.0)
    ids = model.ids(["i", "read", "zebra"])
    assert ids[2] == 1  # unknown
    assert model.log_prob(ids[:1], ids[1:2])[0] > model.log_prob(ids[:1], model.ids(["car"]))[0]


def test_bigram_model_round_trips_through_a_file(tmp_path) -> None:
    model = train_bigrams(SENTENCES)
    model.save(tmp_path / "m.npz")
    again = BigramModel.load(tmp_path / "m.npz")
    grid = np.arange(len(model.words))
    assert again.words == model.words
    assert again.log_prob(grid[:, None], grid[None, :]) == pytest.approx(model.log_prob(grid[:, None], grid[None, :]))


def test_viterbi_finds_the_best_path_of_a_random_lattice() -> None:
    model = train_bigrams(SENTENCES)
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = int(rng.integers(1, 5))
        states = [rng.choice(len(model.words), size=int(rng.integers(1, 4)), replace=False) for _ in range(n)]
        emissions = [rng.normal(size=len(s)) for s in states]

        def total(path, states=states, emissions=emissions):
            ids = [0] + [int(states[i][c]) for i, c in enumerate(path)] + [0]
            trans = sum(model.log_prob(np.array([a]), np.array([b]))[0] for a, b in zip(ids[:-1], ids[1:]))
            return trans + sum(emissions[i][c] for i, c in enumerate(path))

        best = max(itertools.product(*[range(len(s)) for s in states]), key=total)
        assert total(viterbi(emissions, states, model)) == pytest.approx(total(best))


def test_forward_backward_picks_the_best_marginal_of_a_random_lattice() -> None:
    """Against brute force: every path's probability summed per (position, candidate)."""
    model = train_bigrams(SENTENCES)
    rng = np.random.default_rng(1)
    missed = 0
    for _ in range(40):
        n = int(rng.integers(1, 5))
        states = [rng.choice(len(model.words), size=int(rng.integers(1, 4)), replace=False) for _ in range(n)]
        emissions = [rng.normal(size=len(s)) for s in states]
        marginals = [np.zeros(len(s)) for s in states]
        for path in itertools.product(*[range(len(s)) for s in states]):
            ids = [0] + [int(states[i][c]) for i, c in enumerate(path)] + [0]
            log = sum(model.log_prob(np.array([a]), np.array([b]))[0] for a, b in zip(ids[:-1], ids[1:]))
            weight = np.exp(log + sum(emissions[i][c] for i, c in enumerate(path)))
            for i, c in enumerate(path):
                marginals[i][c] += weight
        picks = forward_backward(emissions, states, model)
        for i, marginal in enumerate(marginals):
            assert marginal[picks[i]] == pytest.approx(marginal.max(), rel=1e-9)
        path = viterbi(emissions, states, model)  # negative control: the best path is not always
        missed += any(m[c] < m.max() * (1 - 1e-9) for m, c in zip(marginals, path))  # the best words
    assert missed > 0


def test_context_beats_the_context_free_attack_where_it_disambiguates() -> None:
    # "red" and "read" share every replacement and have equal prior: context-free is a coin flip
    # (the lowest id, "read", wins the tie), context knows "the red car" and "i read news".
    words = ["read", "red", "i", "the", "car", "news", "ink", "auto", "daily"]
    store = EmbeddingStore("ctx", words, np.random.default_rng(0).normal(size=(9, 5)).astype(np.float32))
    index = NeighborIndex(store, CandidatePolicy(min_length=1), use_disk_cache=False)
    to = {"read": "ink", "red": "ink", "i": "i", "the": "the", "car": "auto", "news": "daily",
          "ink": "ink", "auto": "auto", "daily": "daily"}

    class Det:
        name, may_return_input = "det", True

        def distribution(self, x: int) -> np.ndarray:
            out = np.zeros(9)
            out[words.index(to[words[x]])] = 1.0
            return out

    originals = ["the red car. i read news. the red car."]
    released = ["the ink auto. i ink daily. the ink auto."]
    attack = PosteriorAttack(SparseLaw(Det(), index), embedding_vocabulary(store, np.ones(9)), words,
                             guarded=False)
    model = train_bigrams([["the", "red", "car"], ["i", "read", "news"], ["the", "red", "car"]])
    fig = contextual_attack(corpus_slots(originals, released, store), attack, model, candidates=3)
    assert fig.tokens == 9 and fig.in_lattice == 9
    assert fig.contextual_hits == 9
    assert fig.context_free_hits == 7  # "red" twice guessed "read"
    # negative control: a model that has seen the opposite contexts decodes them wrongly
    wrong = train_bigrams([["the", "read", "car"], ["i", "red", "news"]] * 3)
    assert contextual_attack(corpus_slots(originals, released, store), attack, wrong,
                             candidates=3).contextual_hits == 6


def test_the_bundled_model_is_public_english() -> None:
    model = bundled_bigrams()
    assert len(model.words) > 10_000
    the, of = model.ids(["the", "of"])
    assert model.log_prob(np.array([of]), np.array([the]))[0] > np.log(0.05)


def test_shared_transitions_give_both_decoders_their_own_answers() -> None:
    """contextual_attack computes a lattice's transitions once for both decoders: the same
    numbers each decoder computes alone (a scrambled set, the negative control, moves a pick)."""
    from embedanon.privacy.attacks.contextual import Transitions

    model = train_bigrams(SENTENCES)
    rng = np.random.default_rng(3)
    moved = 0
    for _ in range(40):
        n = int(rng.integers(1, 6))
        states = [rng.choice(len(model.words), size=int(rng.integers(1, 5)), replace=False) for _ in range(n)]
        emissions = [rng.normal(size=len(s)) for s in states]
        shared = Transitions.of(states, model)
        assert viterbi(emissions, states, model, transitions=shared) == viterbi(emissions, states, model)
        assert forward_backward(emissions, states, model, transitions=shared) == \
            forward_backward(emissions, states, model)
        scrambled = Transitions(-shared.first * 5, tuple(-s * 5 for s in shared.steps), -shared.last * 5)
        moved += forward_backward(emissions, states, model, transitions=scrambled) != \
            forward_backward(emissions, states, model)
    assert moved > 0


def test_transitions_in_one_call_equal_a_call_per_position() -> None:
    from embedanon.privacy.attacks.contextual import Transitions

    model = train_bigrams(SENTENCES)
    rng = np.random.default_rng(8)
    for _ in range(30):
        n = int(rng.integers(1, 7))
        states = [rng.choice(len(model.words), size=int(rng.integers(1, 6)), replace=False) for _ in range(n)]
        t = Transitions.of(states, model)
        start, end = np.array([0]), np.full(len(states[-1]), 0)
        assert t.first.tolist() == model.log_prob(start[:, None], states[0][None, :])[0].tolist()
        assert t.last.tolist() == model.log_prob(states[-1], end).tolist()
        assert len(t.steps) == n - 1
        for i, step in enumerate(t.steps, 1):
            assert step.tolist() == model.log_prob(states[i - 1][:, None], states[i][None, :]).tolist()
