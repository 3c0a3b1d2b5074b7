"""Bayes pre-image attack (embedanon.privacy.attacks) against brute force on a 12-word vocabulary."""

from __future__ import annotations

import json

import numpy as np
import pytest

from embedanon.errors import ConfigError
from embedanon.privacy.attacks import (
    DenseLaw,
    PosteriorAttack,
    SparseLaw,
    corpus_slots,
    document_slots,
    likelihood_for,
    run_attacks,
    topk_credit,
)
from embedanon.privacy.attacks.contextual import train_bigrams
from embedanon.privacy.prior import NameEntry, build_vocabulary, embedding_vocabulary
from embedanon.vectors.index import NeighborIndex

from ..helpers.attack_laws import WORDS, MatrixLaw, dense, knn_like, twelve_word_index


@pytest.fixture
def index() -> NeighborIndex:
    return twelve_word_index()


def brute_force(matrix: np.ndarray, prior: np.ndarray, xs, ys, ks) -> list[float]:
    """Plain reference: rank all 12 words by matrix[:, y] * prior, split ties by counting."""
    hits = [0.0] * len(ks)
    for x, y in zip(xs, ys):
        score = matrix[:, y] * prior
        if score[x] <= 0:
            continue
        higher = sum(1 for s in score if s > score[x] and not np.isclose(s, score[x], rtol=1e-12, atol=0))
        tied = sum(1 for s in score if np.isclose(s, score[x], rtol=1e-12, atol=0))
        for i, k in enumerate(ks):
            hits[i] += min(max((k - higher) / tied, 0.0), 1.0)
    return hits


def sample_pairs(matrix: np.ndarray, n: int, seed: int, prior: np.ndarray) -> tuple[list[int], list[int]]:
    rng = np.random.default_rng(seed)
    xs = rng.choice(12, size=n, p=prior / prior.sum()).tolist()
    ys = [int(rng.choice(12, p=matrix[x])) for x in xs]
    return xs, ys


@pytest.mark.parametrize("matrix", [knn_like(3, 0), knn_like(1, 5), dense(2), dense(3)])
@pytest.mark.parametrize("prior_seed", [None, 7])
@pytest.mark.parametrize("law", ["sparse", "dense"])
def test_posterior_attack_equals_brute_force(index: NeighborIndex, matrix: np.ndarray,
                                             prior_seed: int | None, law: str) -> None:
    prior = np.ones(12) if prior_seed is None else np.random.default_rng(prior_seed).pareto(1.0, 12) + 0.01
    mech = MatrixLaw(matrix)
    # neighbors=12: the restricted candidate set of DenseLaw is every word here
    like = SparseLaw(mech, index) if law == "sparse" else DenseLaw(mech, index, neighbors=12)
    xs, ys = sample_pairs(matrix, 400, 11, prior)
    result = PosteriorAttack(like, embedding_vocabulary(index.store, prior), WORDS, guarded=False).run(
        xs, np.array(ys), (1, 5))
    assert list(result.hits) == pytest.approx(brute_force(matrix, prior, xs, ys, (1, 5)), abs=1e-9)


def test_dense_law_prefetch_gives_the_same_pairs(index: NeighborIndex) -> None:
    mech = MatrixLaw(dense(5))
    plain, warm = DenseLaw(mech, index), DenseLaw(mech, index)
    warm.prefetch(np.array([3, 1, 3, 7]))
    xs, ys = np.repeat(np.arange(12), 3), np.tile([1, 3, 7], 12)
    assert warm.pairs(xs, ys) == pytest.approx(plain.pairs(xs, ys))
    assert warm.pairs(xs, ys) == pytest.approx(dense(5)[xs, ys])
    assert warm.pairs(np.array([2]), np.array([5])) == pytest.approx([dense(5)[2, 5]])  # not prefetched


def test_dense_law_uses_the_batched_law_and_agrees_with_the_distribution_path(index: NeighborIndex) -> None:
    from embedanon.mechanisms.exponential import ExponentialMechanism

    mech = ExponentialMechanism(index=index, epsilon=4.0)

    class LawOnly:  # the same mechanism without the BatchLaw capability
        name, may_return_input = "law-only", True

        def distribution(self, word_id: int) -> np.ndarray:
            return mech.distribution(word_id)

    fast, slow = DenseLaw(mech, index, neighbors=12), DenseLaw(LawOnly(), index, neighbors=12)
    assert fast.batched and not slow.batched
    xs, ys = np.repeat(np.arange(12), 12), np.tile(np.arange(12), 12)
    slow.prefetch(ys)
    np.testing.assert_allclose(fast.pairs(xs, ys), slow.pairs(xs, ys), rtol=1e-12, atol=0)
    prior = np.random.default_rng(2).pareto(1.0, 12) + 0.01
    sx, sy = sample_pairs(slow.pairs(xs, ys).reshape(12, 12), 300, 5, prior)
    vocab = embedding_vocabulary(index.store, prior)
    runs = [PosteriorAttack(like, vocab, WORDS, guarded=False).run(sx, np.array(sy), (1, 5))
            for like in (fast, slow)]
    assert runs[0].hits == pytest.approx(runs[1].hits, abs=1e-9)
    assert runs[0].hits == pytest.approx(brute_force(slow.pairs(xs, ys).reshape(12, 12), prior, sx, sy, (1, 5)),
                                         abs=1e-9)


def test_negative_control_an_attack_blind_to_the_output_scores_the_prior_top1(index: NeighborIndex) -> None:
    matrix = knn_like(3, 0)
    prior = np.arange(1, 13, dtype=float)  # no ties: the blind guess is always word 11
    xs, ys = sample_pairs(matrix, 600, 4, prior)

    class Blind:
        exact = True

        def preimages(self, ys, extra=None):
            return [np.arange(12) for _ in ys]

        def pairs(self, xs, ys):
            return np.ones(len(xs))

    vocab = embedding_vocabulary(index.store, prior)
    blind = PosteriorAttack(Blind(), vocab, WORDS, guarded=False).run(xs, np.array(ys), (1,))
    chance = float(np.mean(np.array(xs) == 11))
    assert blind.rate(1) == pytest.approx(chance)
    real = PosteriorAttack(likelihood_for(MatrixLaw(matrix), index), vocab, WORDS, guarded=False)
    assert real.run(xs, np.array(ys), (1,)).rate(1) > chance + 0.1


def test_topk_credit_splits_ties_exactly() -> None:
    scores = np.array([3.0, 2.0, 2.0, 2.0, 1.0])
    assert topk_credit(scores, 2.0, (1, 2, 3, 4)) == pytest.approx([0.0, 1 / 3, 2 / 3, 1.0])
    assert topk_credit(scores, 0.0, (1,)) == [0.0]


def test_sparse_law_inverts_every_preimage(index: NeighborIndex) -> None:
    matrix = knn_like(3, 9)
    like = SparseLaw(MatrixLaw(matrix), index)
    for y, pre in enumerate(like.preimages(np.arange(12))):
        assert pre.tolist() == np.flatnonzero(matrix[:, y]).tolist()
    xs, ys = np.meshgrid(np.arange(12), np.arange(12), indexing="ij")
    assert like.pairs(xs.ravel(), ys.ravel()) == pytest.approx(matrix.ravel())


def test_likelihood_for_picks_the_reverse_table_only_for_small_supports(
        index: NeighborIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(likelihood_for(MatrixLaw(knn_like(3, 0)), index), SparseLaw)
    monkeypatch.setattr("embedanon.privacy.attacks.likelihood.MAX_SPARSE_SUPPORT", 3)
    assert isinstance(likelihood_for(MatrixLaw(dense(2)), index), DenseLaw)
    assert isinstance(likelihood_for(MatrixLaw(knn_like(3, 0)), index), SparseLaw)


def test_likelihood_for_refuses_a_mechanism_without_an_exact_law(index: NeighborIndex) -> None:
    with pytest.raises(ConfigError, match="no exact law"):
        likelihood_for(object(), index)


def test_words_outside_the_embedding_are_attacked_through_their_proxy(index: NeighborIndex) -> None:
    matrix = knn_like(3, 0)
    # "zulu" runs the mechanism on "apple" (0); "apples" too, but it is a variant of "apple"...
    proxy = {"zulu": 0, "apples": 0, "nowhere": -1}
    vocab = build_vocabulary(["zulu", "apples", "nowhere", *WORDS], [50, 50, 50, *([1] * 12)], index.store,
                             lambda keys: np.array([proxy[k] for k in keys]))
    assert vocab.inputs[:3].tolist() == [0, 0, -1] and not vocab.own[:3].any()
    y = int(np.flatnonzero(matrix[0])[0])
    attack = PosteriorAttack(likelihood_for(MatrixLaw(matrix, may_return_input=False), index), vocab, WORDS,
                             guarded=True)
    rows, scores = attack.scores(np.array([y]))[0]
    brute = {w: matrix[vocab.inputs[i], y] * vocab.prior[i] for i, w in enumerate(vocab.words)
             if vocab.inputs[i] >= 0 and matrix[vocab.inputs[i], y] > 0}
    assert {vocab.words[r]: s for r, s in zip(rows.tolist(), scores.tolist())} == pytest.approx(brute)
    assert attack.run([0], np.array([y]), (1,)).rate(1) == pytest.approx(0.5)  # zulu ties apples
    # ... and when the released word is "apple" itself, the leak guard rules "apples" out.
    pre = [x for x in range(12) if matrix[x, 0] > 0]
    matrix[pre[0]] = 0
    matrix[0] = 0
    matrix[0, 0] = 1.0
    guarded = PosteriorAttack(SparseLaw(MatrixLaw(matrix), index), vocab, WORDS, guarded=True)
    assert "apples" not in [vocab.words[r] for r in guarded.scores(np.array([0]))[0][0].tolist()]
    assert "zulu" in [vocab.words[r] for r in guarded.scores(np.array([0]))[0][0].tolist()]


def test_document_slots_align_words_and_mark_title_case_inside_sentences(index: NeighborIndex) -> None:
    sentences = document_slots("Apple bread Zulu. Cheese, 42 dinner", "Eagle forest Jungle. Kettle, 17 lemon",
                               index.store)
    assert [[s.key for s in sent] for sent in sentences] == [["apple", "bread", "zulu"], ["cheese", "dinner"]]
    assert [s.name_cue for s in sentences[0]] == [False, False, True]
    assert sentences[0][2].original_id == -1 and sentences[0][2].released_id == WORDS.index("jungle")
    with pytest.raises(ValueError, match="one release per document"):
        corpus_slots(["a"], [], index.store)


def test_run_attacks_reports_counts_and_rates_consistent_with_the_parts(index: NeighborIndex) -> None:
    matrix = knn_like(3, 0)
    rng = np.random.default_rng(0)
    docs, releases = [], [[], []]
    for _ in range(30):
        xs = rng.integers(0, 12, size=8)
        docs.append(" ".join(WORDS[x] for x in xs) + ". Zulu " + WORDS[xs[0]] + ".")
        for r in range(2):
            ys = [WORDS[rng.choice(12, p=matrix[x])] for x in xs]
            releases[r].append(" ".join(ys) + ". Eagle " + ys[0] + ".")
    model = train_bigrams([WORDS[:6], WORDS[6:]])
    names = [NameEntry("zulu", "last", "test", 1.0)]
    spans = [[(d.index("Zulu"), d.index("Zulu") + 4, "test")] for d in docs]
    figures = run_attacks(docs, releases, mechanism=MatrixLaw(matrix, may_return_input=False), index=index,
                          name_spans=spans, names=names, bigrams=model, proxies=lambda k: np.zeros(len(k), int),
                          release_counts=(1, 2), oov_words=10)
    out = json.loads(json.dumps(figures.as_dict()))
    assert out["invocab_tokens"] == 30 * 9 and out["exact"] is True
    assert out["releases"][0]["top1"] == pytest.approx(out["public_prior"]["top1"])
    assert out["releases"][1]["top1"] >= out["releases"][0]["top1"]
    assert out["names"][0]["tokens"] == 30 and out["names"][0]["marked"] == 0  # sentence-initial: no cue
    assert out["oov"]["tokens"] == 30


def _skewed_release(index: NeighborIndex, seed: int = 1) -> tuple[list[str], list[str], np.ndarray]:
    """A corpus whose word frequencies are far from the public ones: most tokens are two words."""
    matrix = knn_like(3, 0)
    rng = np.random.default_rng(seed)
    freq = np.full(12, 0.2 / 10)
    freq[[7, 9]] = 0.4  # harbor, island: not what a public frequency list expects
    docs, rel = [], []
    for _ in range(60):
        xs = rng.choice(12, size=10, p=freq)
        docs.append(" ".join(WORDS[x] for x in xs) + ".")
        rel.append(" ".join(WORDS[rng.choice(12, p=matrix[x])] for x in xs) + ".")
    return docs, rel, matrix


def test_a_prior_fitted_to_the_release_beats_the_public_prior(index: NeighborIndex, monkeypatch) -> None:
    """QA pass 4: an attacker who re-estimates the prior from the released words (EM) recovered
    0.544 where the report's public-prior attack said 0.353; the report now runs that attacker."""
    from embedanon.privacy.attacks import bayes, figures

    docs, rel, matrix = _skewed_release(index)
    law = MatrixLaw(matrix, may_return_input=False)
    out = run_attacks(docs, [rel], mechanism=law, index=index, contextual=False, release_counts=(1,),
                      proxies=lambda k: np.zeros(len(k), int), oov_words=10).as_dict()
    assert out["release_prior"]["top1"] > out["public_prior"]["top1"] + 0.1
    assert out["release_prior"]["top1"] <= out["oracle_prior"]["top1"] + 1e-9  # it never sees originals
    # negative control: zero EM steps leave the public prior, and the same figure
    original = bayes.release_prior
    monkeypatch.setattr(figures, "release_prior", lambda u, ys, start: original(u, ys, start, steps=0))
    out0 = run_attacks(docs, [rel], mechanism=law, index=index, contextual=False, release_counts=(1,),
                       proxies=lambda k: np.zeros(len(k), int), oov_words=10).as_dict()
    assert out0["release_prior"]["top1"] == pytest.approx(out0["public_prior"]["top1"])


def test_an_attacker_with_text_of_the_corpus_kind_recovers_out_of_vocabulary_words(index: NeighborIndex) -> None:
    """Every out-of-vocabulary word runs the mechanism on its proxy (here all on "apple"), so an
    attacker whose vocabulary holds the word ranks it among few candidates; the public list alone
    does not hold "zorblax" and recovers none."""
    matrix = knn_like(3, 0)
    rng = np.random.default_rng(3)
    docs, rel = [], []
    for _ in range(20):
        xs = rng.integers(0, 12, size=6)
        docs.append(" ".join(WORDS[x] for x in xs) + " zorblax.")
        rel.append(" ".join(WORDS[rng.choice(12, p=matrix[x])] for x in xs) + " "
                   + WORDS[rng.choice(12, p=matrix[0])] + ".")
    law = MatrixLaw(matrix, may_return_input=False)

    def attack(text: list[str] | None) -> dict:
        return run_attacks(docs, [rel], mechanism=law, index=index, contextual=False, release_counts=(1,),
                           proxies=lambda k: np.zeros(len(k), int), oov_words=10,
                           attacker_text=text).as_dict()

    public_only = attack(None)
    assert public_only["oov_in_dictionary"] == 0 and public_only["oov"]["top1"] == 0.0
    assert public_only["domain_prior"] is None
    domain = attack(["The zorblax was seen. A zorblax again.", "apple bread"])
    assert domain["oov_domain_in_dictionary"] == domain["oov_domain"]["tokens"] == 20
    assert domain["oov_domain"]["top1"] > 0.5
    assert domain["oov"] == public_only["oov"]  # the public figures do not move
    assert domain["domain_prior"]["tokens"] == domain["public_prior"]["tokens"]
    # negative control: text of another kind holds no "zorblax", and recovers none of it
    other = attack(["The harbor was seen. An island again."])
    assert other["oov_domain_in_dictionary"] == 0 and other["oov_domain"]["top1"] == 0.0


def _boilerplate_release() -> tuple[np.ndarray, list[str], list[str], list[str]]:
    """A knn-like law over 12 words, 40 notes of three fixed word sequences (as in boilerplate
    notes), their release, and an attacker's text of the same sequences."""
    matrix = knn_like(3, 0)
    rng = np.random.default_rng(5)
    phrases = [[0, 5, 9], [2, 7, 11], [4, 1, 6]]
    docs, rel = [], []
    for _ in range(40):
        xs = phrases[int(rng.integers(3))]
        docs.append(" ".join(WORDS[x] for x in xs) + ".")
        rel.append(" ".join(WORDS[rng.choice(12, p=matrix[x])] for x in xs) + ".")
    attacker = [" ".join(WORDS[x] for x in p) + "." for p in phrases for _ in range(5)]
    return matrix, docs, rel, attacker


def test_the_attackers_text_also_serves_as_its_context_model(index: NeighborIndex) -> None:
    """QA pass 6: with text of the corpus's kind an attacker also learns which words follow which;
    the report's contextual attacker used the public bigrams only (0.45 top-1 where a domain
    Viterbi reached 0.64)."""
    matrix, docs, rel, attacker = _boilerplate_release()
    out = run_attacks(docs, [rel], mechanism=MatrixLaw(matrix, may_return_input=False), index=index,
                      bigrams=train_bigrams([WORDS[:6], WORDS[6:]]), release_counts=(1,), oov_words=10,
                      proxies=lambda k: np.zeros(len(k), int), attacker_text=attacker).as_dict()
    assert out["contextual_domain"]["contextual_top1"] > out["domain_prior"]["top1"] + 0.1
    assert out["contextual_domain"]["contextual_top1"] > out["contextual"]["contextual_top1"]
    without = run_attacks(docs, [rel], mechanism=MatrixLaw(matrix, may_return_input=False), index=index,
                          contextual=False, release_counts=(1,), oov_words=10,
                          proxies=lambda k: np.zeros(len(k), int), attacker_text=attacker).as_dict()
    assert without["contextual_domain"] is None


def test_the_public_context_figure_does_not_read_the_attackers_text(index: NeighborIndex) -> None:
    """Found regenerating the privacy card: 0230 reused the name of the public bigram model for the
    bigrams of the attacker's text, so with ``--attacker-text`` the figure "words recovered in
    context (public bigrams)" was decoded with the attacker's bigrams (the card's knn row read
    70.3 % where the public model gives 46.8 %). The public figure is the same with or without the
    attacker's text."""
    matrix, docs, rel, attacker = _boilerplate_release()

    def public_context(**extra: object) -> dict:
        return run_attacks(docs, [rel], mechanism=MatrixLaw(matrix, may_return_input=False), index=index,
                           bigrams=train_bigrams([WORDS[:6], WORDS[6:]]), release_counts=(1,), oov_words=10,
                           proxies=lambda k: np.zeros(len(k), int), **extra).as_dict()["contextual"]

    assert public_context(attacker_text=attacker) == public_context()


def test_a_batched_law_is_never_inverted_word_by_word(index: NeighborIndex) -> None:
    """Issue 34, defect 7: at epsilon = 1e6 the exponential law underflows to a point, so probing
    it found a 'small support' and inverted it over every word, one dense law each (5 min for
    3 lines). A mechanism with the batched law gets the dense likelihood without a probe."""
    from embedanon.mechanisms.exponential import ExponentialMechanism

    class Counting(ExponentialMechanism):
        calls = 0

        def distribution(self, word_id: int) -> np.ndarray:
            type(self).calls += 1
            return super().distribution(word_id)

    for epsilon in (1e6, 14.0):
        mech = Counting(index=index, epsilon=epsilon)
        law = likelihood_for(mech, index)
        assert isinstance(law, DenseLaw) and Counting.calls == 0
        ys = np.arange(12)
        assert np.allclose(law.pairs(ys, ys), [mech.likelihood(np.array([y]), np.array([y]))[0] for y in ys])


class _TableOf(MatrixLaw):
    """A hand-made law that also offers ``law_table()``: ids with a repeat and a zero cell."""

    def __init__(self, matrix: np.ndarray, ids: np.ndarray, probs: np.ndarray) -> None:
        super().__init__(matrix)
        self.ids, self.probs = ids, probs

    def law_table(self) -> tuple[np.ndarray, np.ndarray]:
        return self.ids, self.probs


def _table_for(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's support split into two cells per output (halves), plus a zero cell."""
    rows = [np.flatnonzero(r) for r in matrix]
    width = 2 * max(map(len, rows)) + 1
    ids, probs = np.zeros((12, width), dtype=np.int64), np.zeros((12, width))
    for x, support in enumerate(rows):
        ids[x, :2 * len(support)] = np.repeat(support, 2)
        probs[x, :2 * len(support)] = np.repeat(matrix[x, support] / 2, 2)
    return ids, probs


@pytest.mark.parametrize("seed", [0, 3, 9])
def test_sparse_law_from_the_table_equals_the_per_word_reference(index: NeighborIndex, seed: int) -> None:
    matrix = knn_like(4, seed)
    mech = _TableOf(matrix, *_table_for(matrix))
    fast, plain = SparseLaw(mech, index), SparseLaw(mech, index, use_table=False)
    ys = np.arange(12)
    assert [p.tolist() for p in fast.preimages(ys)] == [p.tolist() for p in plain.preimages(ys)]
    xs, yy = np.meshgrid(np.arange(12), ys, indexing="ij")
    assert fast.pairs(xs.ravel(), yy.ravel()) == pytest.approx(plain.pairs(xs.ravel(), yy.ravel()), abs=1e-15)
    # negative control: a table that disagrees with distribution() gives another inverse
    ids, probs = _table_for(knn_like(4, seed + 1))
    wrong = SparseLaw(_TableOf(matrix, ids, probs), index)
    assert [p.tolist() for p in wrong.preimages(ys)] != [p.tolist() for p in plain.preimages(ys)]


def test_knn_law_table_agrees_with_its_distribution(index: NeighborIndex) -> None:
    from embedanon.mechanisms.knn import KnnMechanism

    mech = KnnMechanism(index=index, k=3)
    fast, plain = SparseLaw(mech, index), SparseLaw(mech, index, use_table=False)
    xs, ys = np.meshgrid(np.arange(12), np.arange(12), indexing="ij")
    assert fast.pairs(xs.ravel(), ys.ravel()).tolist() == plain.pairs(xs.ravel(), ys.ravel()).tolist()
    assert fast.pairs(xs.ravel(), ys.ravel()).sum() == pytest.approx(12.0)


def test_run_ranks_each_replacement_and_truth_pair_once_with_the_per_token_sum(index: NeighborIndex) -> None:
    """run() ranks a (replacement, truth) pair once however often it occurs; its totals equal
    the plain per-token sum of row_credit exactly."""
    from embedanon.privacy.attacks.bayes import row_credit

    matrix = knn_like(3, 4)
    prior = np.random.default_rng(2).pareto(1.0, 12) + 0.01
    attack = PosteriorAttack(SparseLaw(MatrixLaw(matrix), index), embedding_vocabulary(index.store, prior), WORDS,
                             guarded=False)
    xs, ys = sample_pairs(matrix, 500, 3, prior)
    assert len(set(zip(xs, ys, strict=True))) < 100  # many repeats
    plain = np.zeros(2)
    for x, (rows, score) in zip(xs, attack.scores(np.array(ys)), strict=True):
        plain += row_credit(rows, score, x, (1, 5))
    assert list(attack.run(xs, np.array(ys), (1, 5)).hits) == plain.tolist()


def test_the_attackers_text_reads_rare_words_in_their_context(index: NeighborIndex) -> None:
    """Decision 0230: two out-of-vocabulary words share one proxy ("apple"), so alone their
    replacements cannot tell them apart; the word before each, in text of the corpus's kind, can.
    The report read rare words without context only (an outside audit: 21 % context-free, 56 %
    in context on real notes)."""
    matrix = knn_like(3, 0)
    rng = np.random.default_rng(7)
    docs, rel = [], []
    for i in range(40):
        before, rare = (WORDS[2], "zorblax") if i % 2 else (WORDS[9], "quibbler")
        docs.append(f"{before} {rare}.")
        x = WORDS.index(before)
        rel.append(f"{WORDS[rng.choice(12, p=matrix[x])]} {WORDS[rng.choice(12, p=matrix[0])]}.")
    attacker = [f"{WORDS[2]} zorblax.", f"{WORDS[9]} quibbler."] * 5
    out = run_attacks(docs, [rel], mechanism=MatrixLaw(matrix, may_return_input=False), index=index,
                      bigrams=train_bigrams([WORDS[:6], WORDS[6:]]), release_counts=(1,), oov_words=10,
                      proxies=lambda k: np.zeros(len(k), int), attacker_text=attacker).as_dict()
    rare = out["contextual_oov_domain"]
    assert rare["tokens"] == out["oov_domain"]["tokens"] == 40
    assert out["oov_domain"]["top1"] <= 0.5 + 1e-9  # alone: one of the two at best
    assert rare["contextual_top1"] >= out["oov_domain"]["top1"] + 0.3
    without = run_attacks(docs, [rel], mechanism=MatrixLaw(matrix, may_return_input=False), index=index,
                          contextual=False, release_counts=(1,), oov_words=10,
                          proxies=lambda k: np.zeros(len(k), int), attacker_text=attacker).as_dict()
    assert without["contextual_oov_domain"] is None
