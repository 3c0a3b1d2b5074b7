"""The Bayes pre-image attack over an attacker vocabulary, scored top-k with exact tie splitting.

Seeing a replacement y, the attacker ranks every word a of its vocabulary (see
:class:`~embedanon.privacy.prior.AttackerVocabulary`) by the posterior

    score(a | y) = P(y | input(a)) * prior(a),

where input(a) is the embedding row the mechanism ran on: a itself, or a's proxy when the
embedding lacks a (the proxy is a public function of a). Words outside the embedding whose
replacement would be a variant of them are redrawn by the leak guard when the mechanism never
returns its input, so for them P(y | input(a)) is replaced by 0 when y is a variant of a (the
redraw adds a little mass elsewhere, which this ignores).

Top-k success with ties: if g words score strictly higher than the true word and t words
(the true one included) tie with it, a uniformly random tie-break puts it in the top k with
probability clip((k - g) / t, 0, 1); that expectation is what is summed, so no random tie-break
is needed. The true word scores 0 (a miss) when it is not in the vocabulary or not a pre-image.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...leakguard import keys_are_variants
from ..prior import AttackerVocabulary
from .likelihood import Likelihood

_TIE_RTOL = 1e-9


@dataclass(frozen=True, slots=True)
class TopK:
    """Expected top-k hits of an attack.

    Attributes:
        tokens: tokens attacked.
        ks: the k values, ascending.
        hits: expected hits for each k (same order as ``ks``).
        mean_candidates: mean number of words with a positive score per token.
    """

    tokens: int
    ks: tuple[int, ...]
    hits: tuple[float, ...]
    mean_candidates: float = float("nan")

    def __post_init__(self) -> None:
        if len(self.ks) != len(self.hits) or any(not 0 <= h <= self.tokens + 1e-6 for h in self.hits):
            raise ValueError(f"need one hit count in [0, tokens] per k, got {self.hits} for {self.tokens}")

    def rate(self, k: int) -> float:
        """Top-k success rate (nan when no tokens)."""
        return self.hits[self.ks.index(k)] / self.tokens if self.tokens else float("nan")

    def as_dict(self) -> dict[str, float | int]:
        out: dict[str, float | int] = {"tokens": self.tokens, "mean_candidates": self.mean_candidates}
        out.update({f"top{k}": self.rate(k) for k in self.ks})
        return out


def topk_credit(scores: np.ndarray, truth: float, ks: Sequence[int]) -> list[float]:
    """Expected top-k hit of a word scoring ``truth`` among ``scores`` (ties split, see module)."""
    if not truth > 0:
        return [0.0] * len(ks)
    tol = truth * _TIE_RTOL
    higher = int((scores > truth + tol).sum())
    tied = max(int((np.abs(scores - truth) <= tol).sum()), 1)
    return [min(max((k - higher) / tied, 0.0), 1.0) for k in ks]


def row_credit(rows: np.ndarray, scores: np.ndarray, truth: int, ks: Sequence[int]) -> list[float]:
    """:func:`topk_credit` of vocabulary row ``truth`` among ``rows`` (ascending) scored ``scores``;
    a truth that is -1 or not among the rows scores 0 (a miss)."""
    value = 0.0
    if truth >= 0:
        at = np.searchsorted(rows, truth)
        if at < len(rows) and rows[at] == truth:
            value = float(scores[at])
    return topk_credit(scores, value, ks)


class PosteriorAttack:
    """Scores of every vocabulary word given a replacement (cached per distinct y).

    Args:
        likelihood: P(y | x) of the mechanism.
        vocabulary: the words ranked, their mechanism inputs and prior.
        store_words: the embedding's words (lookup keys), to apply the leak-guard rule.
        guarded: whether the pipeline redraws replacements that are variants of a word outside
            the embedding (true for mechanisms that never return their input).
        extra_inputs: how many of the most probable inputs (by summed prior) to add to every
            candidate set of a restricted (not exact) likelihood.
    """

    def __init__(self, likelihood: Likelihood, vocabulary: AttackerVocabulary, store_words: Sequence[str],
                 *, guarded: bool, extra_inputs: int = 200) -> None:
        self.likelihood = likelihood
        self.vocabulary = vocabulary
        self.words = store_words
        self.guarded = guarded
        self._inputs, self._starts, self._rows = vocabulary.by_input()
        valid = self._inputs >= 0
        mass: np.ndarray = (np.add.reduceat(vocabulary.prior[self._rows], self._starts[:-1])
                            if len(self._rows) else np.zeros(0))
        top = np.argsort(-np.where(valid, mass, -1.0), kind="stable")[:extra_inputs]
        self._extra = np.sort(self._inputs[top[valid[top]]])
        self._cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def scores(self, ys: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """For each y: (vocabulary rows with a positive score, their scores), rows ascending."""
        ys = np.asarray(ys, dtype=np.int64)
        todo = sorted({int(y) for y in ys.tolist()} - self._cache.keys())
        if todo:
            self._fill(np.array(todo, dtype=np.int64))
        return [self._cache[int(y)] for y in ys.tolist()]

    def _fill(self, ys: np.ndarray) -> None:
        extra = None if self.likelihood.exact else self._extra
        pre = self.likelihood.preimages(ys, extra)
        # keep only pre-images that are some vocabulary word's input
        where = [np.searchsorted(self._inputs, p) for p in pre]
        pre = [p[(w < len(self._inputs)) & (self._inputs[np.minimum(w, len(self._inputs) - 1)] == p)]
               for p, w in zip(pre, where, strict=True)]
        flat_x = np.concatenate(pre) if pre else np.zeros(0, dtype=np.int64)
        flat_y = np.repeat(ys, [len(p) for p in pre])
        like = self.likelihood.pairs(flat_x, flat_y) if len(flat_x) else np.zeros(0)
        voc = self.vocabulary
        # Expand every (y, pre-image) pair with a positive likelihood to the vocabulary rows whose
        # input it is (CSR ranges of by_input), in one vectorized pass.
        seg = np.repeat(np.arange(len(ys)), [len(p) for p in pre])
        pos = like > 0
        seg, slots, lp = seg[pos], np.searchsorted(self._inputs, flat_x[pos]), like[pos]
        lengths = self._starts[slots + 1] - self._starts[slots]
        total = int(lengths.sum())
        offsets = np.repeat(self._starts[slots] - (np.cumsum(lengths) - lengths), lengths)
        rows_all = self._rows[offsets + np.arange(total)] if total else np.zeros(0, dtype=np.int64)
        seg_all = np.repeat(seg, lengths)
        score_all = np.repeat(lp, lengths) * voc.prior[rows_all]
        keep = score_all > 0
        rows_all, seg_all, score_all = rows_all[keep], seg_all[keep], score_all[keep]
        order = np.lexsort((rows_all, seg_all))
        rows_all, seg_all, score_all = rows_all[order], seg_all[order], score_all[order]
        bounds = np.searchsorted(seg_all, np.arange(len(ys) + 1))
        for j, y in enumerate(ys.tolist()):
            rows = rows_all[bounds[j]:bounds[j + 1]]
            score = score_all[bounds[j]:bounds[j + 1]]
            if self.guarded and len(rows):
                proxied = ~voc.own[rows]
                if proxied.any():
                    out_word = self.words[y]
                    bad = np.array([keys_are_variants(voc.words[r], out_word) if pr else False
                                    for r, pr in zip(rows.tolist(), proxied.tolist(), strict=True)])
                    keep_y = ~bad
                    rows, score = rows[keep_y], score[keep_y]
            self._cache[y] = (rows, score)

    def run(self, truths: Sequence[int], ys: np.ndarray, ks: Sequence[int] = (1, 5)) -> TopK:
        """Attack tokens: ``truths`` are vocabulary rows of the originals (-1: not in it)."""
        ks = tuple(sorted(int(k) for k in ks))
        ys = np.asarray(ys, dtype=np.int64)
        if len(truths) != len(ys):
            raise ValueError(f"need one truth per replacement, got {len(truths)} and {len(ys)}")
        hits = np.zeros(len(ks))
        sizes = 0
        # a token's credit depends on (its replacement, its truth) only: each pair is ranked once
        credits: dict[tuple[int, int], list[float]] = {}
        for truth, y, (rows, score) in zip(truths, ys.tolist(), self.scores(ys), strict=True):
            sizes += len(rows)
            credit = credits.get((y, truth))
            if credit is None:
                credit = credits[(y, truth)] = row_credit(rows, score, truth, ks)
            hits += credit
        n = len(ys)
        return TopK(n, ks, tuple(float(h) for h in hits), sizes / n if n else float("nan"))

    def best(self, ys: np.ndarray, m: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """For each y: the (at most) m highest-scoring rows and scores, best first."""
        out = []
        for rows, score in self.scores(ys):
            order = np.lexsort((rows, -score))[:m]
            out.append((rows[order], score[order]))
        return out


#: EM steps of :func:`release_prior` (the top-1 rate moves by < 0.002 after about 20 on notes)
EM_STEPS = 30
#: weight of the public prior in each EM step, as pseudo-tokens (keeps words the release never
#: suggests possible, so the prior is a MAP estimate, not a maximum-likelihood one)
EM_PRIOR_TOKENS = 1.0


def release_prior(likelihoods: PosteriorAttack, ys: np.ndarray, start: np.ndarray, *,
                  steps: int = EM_STEPS, prior_tokens: float = EM_PRIOR_TOKENS) -> np.ndarray:
    """A prior over the embedding's words fitted to the release itself by expectation-maximisation.

    An attacker who knows the mechanism need not take a public frequency list as the prior: the
    released words themselves tell which inputs were frequent in *this* corpus. Each step
    distributes every released token over its pre-images in proportion to prior x likelihood
    (the posterior) and makes the new prior the sum of those posteriors, plus ``prior_tokens``
    tokens spread as ``start`` (the public prior). Only the release and the public tool are used:
    no original word.

    Args:
        likelihoods: a :class:`PosteriorAttack` with a uniform prior (its scores are the
            likelihoods P(y | x), up to a constant per y).
        ys: the released word ids attacked.
        start: the starting prior over the embedding's words (the public prior), float (V,).

    Returns:
        The fitted prior, float64 (V,), summing to 1.
    """
    start = np.asarray(start, dtype=np.float64)
    start = start / start.sum()
    ys = np.asarray(ys, dtype=np.int64)
    distinct, counts = np.unique(ys, return_counts=True)
    scored = likelihoods.scores(distinct)
    rows = np.concatenate([r for r, _ in scored]) if scored else np.zeros(0, dtype=np.int64)
    like = np.concatenate([s for _, s in scored]) if scored else np.zeros(0)
    words = likelihoods.vocabulary.inputs[rows] if len(rows) else rows  # vocabulary row -> word id
    seg = np.repeat(np.arange(len(distinct)), [len(r) for r, _ in scored])
    weight = counts[seg].astype(np.float64)
    prior = start.copy()
    for _ in range(steps):
        post = like * prior[words]
        norm = np.bincount(seg, weights=post, minlength=len(distinct))
        post = np.divide(post, norm[seg], out=np.zeros_like(post), where=norm[seg] > 0)
        mass = np.bincount(words, weights=post * weight, minlength=len(prior))
        prior = mass + prior_tokens * start
        prior /= prior.sum()
    return prior
