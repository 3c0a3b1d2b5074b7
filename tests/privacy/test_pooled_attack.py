"""The record-pooled attack (embedanon.privacy.attacks.pooled) against a plain reference and on
records that repeat a word: reading a record's draws together finds what each alone hides."""

from __future__ import annotations

import numpy as np
import pytest

from embedanon.privacy.attacks import PosteriorAttack, SparseLaw, run_attacks, topk_credit
from embedanon.privacy.attacks.pooled import record_pooled_run
from embedanon.privacy.prior import embedding_vocabulary
from embedanon.vectors.index import NeighborIndex

from ..helpers.attack_laws import WORDS, MatrixLaw, dense, knn_like, twelve_word_index


@pytest.fixture
def index() -> NeighborIndex:
    return twelve_word_index()


def plain_pooled(matrix: np.ndarray, prior: np.ndarray, records, ks, share: float, steps: int) -> list[float]:
    """Reference over the whole 12-word vocabulary: EM of the record prior, then leave-one-out."""
    hits = [0.0] * len(ks)
    prior = prior / prior.sum()
    for ys, truths in records:
        n = len(ys)
        score = np.array([matrix[:, y] * prior for y in ys])  # (n, 12)
        scale = n * (1 - share) / share * prior
        factor = np.ones(12)
        for _ in range(steps):
            w = score * factor
            post = w / w.sum(axis=1, keepdims=True)
            factor = 1 + post.sum(axis=0) / scale
        w = score * factor
        post = w / w.sum(axis=1, keepdims=True)
        counts = post.sum(axis=0)
        for i, truth in enumerate(truths):
            if truth == -2:
                continue
            s = score[i] * (1 + np.maximum(counts - post[i], 0) / scale)
            s = s[score[i] > 0]
            value = float((score[i] * (1 + np.maximum(counts - post[i], 0) / scale))[truth]) if truth >= 0 else 0.0
            for j, c in enumerate(topk_credit(s, value, ks)):
                hits[j] += c
    return hits


@pytest.mark.parametrize("matrix", [knn_like(3, 0), dense(2)])
@pytest.mark.parametrize("share", [0.1, 0.5])
def test_pooled_attack_equals_the_plain_reference(index: NeighborIndex, matrix: np.ndarray, share: float) -> None:
    rng = np.random.default_rng(4)
    prior = rng.pareto(1.0, 12) + 0.01
    records = []
    for _ in range(15):
        xs = rng.choice(12, size=int(rng.integers(1, 9)), p=prior / prior.sum())
        ys = np.array([rng.choice(12, p=matrix[x]) for x in xs])
        truths = np.where(rng.random(len(xs)) < 0.2, -2, xs)  # some words are evidence only
        records.append((ys, truths))
    attack = PosteriorAttack(SparseLaw(MatrixLaw(matrix), index), embedding_vocabulary(index.store, prior),
                             WORDS, guarded=False)
    got = record_pooled_run(attack, records, (1, 3), share=share, steps=7)
    assert list(got.hits) == pytest.approx(plain_pooled(matrix, prior, records, (1, 3), share, 7), abs=1e-9)
    assert got.tokens == sum(int((t != -2).sum()) for _, t in records)


def test_a_word_repeated_in_a_record_is_found_by_pooling(index: NeighborIndex) -> None:
    """Each record repeats one rare word (the public prior says 1 in 100); each draw alone points
    to a frequent neighbor, the draws together to the word. A record of one occurrence gains
    nothing (leave one out: a word never vouches for itself)."""
    matrix = knn_like(3, 0)
    prior = np.full(12, 1.0)
    prior[7] = 0.01
    rng = np.random.default_rng(9)
    attack = PosteriorAttack(SparseLaw(MatrixLaw(matrix), index), embedding_vocabulary(index.store, prior),
                             WORDS, guarded=False)
    repeated = [(np.array([rng.choice(12, p=matrix[7]) for _ in range(8)]), np.full(8, 7)) for _ in range(30)]
    alone = attack.run([7] * 240, np.concatenate([ys for ys, _ in repeated]))
    pooled = record_pooled_run(attack, repeated)
    assert pooled.rate(1) > alone.rate(1) + 0.25  # 0.37 -> 0.68 here
    single = [(ys[:1], t[:1]) for ys, t in repeated]
    assert record_pooled_run(attack, single).hits == attack.run([7] * 30, np.array([ys[0] for ys, _ in repeated])).hits


def test_run_attacks_reports_the_pooled_attacks(index: NeighborIndex) -> None:
    matrix = knn_like(3, 0)
    rng = np.random.default_rng(2)
    docs, rel = [], []
    for _ in range(20):
        xs = np.concatenate([rng.integers(0, 12, size=4), [7, 7, 7]])
        docs.append(" ".join(WORDS[x] for x in xs) + " zorblax zorblax.")
        rel.append(" ".join(WORDS[rng.choice(12, p=matrix[x])] for x in xs) + " "
                   + " ".join(WORDS[rng.choice(12, p=matrix[0])] for _ in range(2)) + ".")
    law = MatrixLaw(matrix, may_return_input=False)

    def attack(text):
        return run_attacks(docs, [rel], mechanism=law, index=index, contextual=False, release_counts=(1,),
                           proxies=lambda k: np.zeros(len(k), int), oov_words=10, attacker_text=text).as_dict()

    out = attack(None)
    assert out["record_pooled"]["tokens"] == out["public_prior"]["tokens"] == 140
    assert out["release_record_pooled"]["tokens"] == 140
    assert out["oov_record_pooled"]["tokens"] == out["oov"]["tokens"] == 40
    assert out["domain_record_pooled"] is None and out["oov_domain_record_pooled"] is None
    assert out["record_pooled"]["top1"] > out["public_prior"]["top1"]
    domain = attack(["The zorblax was seen. A zorblax again.", "apple bread"])
    assert domain["oov_domain_record_pooled"]["tokens"] == 40
    assert domain["domain_record_pooled"]["tokens"] == 140
