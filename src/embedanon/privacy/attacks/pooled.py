"""The Bayes attack with each record's own words as evidence: repeated words pool their draws.

A record that names ``okafor`` five times releases five independent draws of it. The context-free
attack reads each alone; an attacker who knows the tool reads them together. This attack fits,
per record, a prior over the attacker's vocabulary by expectation-maximisation on the record's
released words (every aligned word, in the embedding or not: the attacker cannot tell them
apart), mixed with the attack's own prior:

    prior_d(a) = (1 - s) * prior(a) + s * counts_d(a) / n,

where ``counts_d(a)`` is the posterior mass the record's ``n`` released words put on ``a`` and
``s`` is :data:`POOL_SHARE`, chosen on development notes, never on the corpus attacked. Each
word is then scored with the record prior refitted without its own posterior (leave one out), so
a word never vouches for itself: only another position of the same record that could have come
from the same input raises it. A rare candidate that two positions share rises far, because its
prior was small.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .bayes import PosteriorAttack, TopK, row_credit

#: the record's share of its pooled prior (the attack's prior has the rest); chosen among 0.1,
#: 0.25 and 0.5 on 200 MTSamples cardiology notes (knn and exponential ε=14, release-fitted and
#: public priors: ``research/privacy/record_pooling.py``), never on the corpus it is reported on
POOL_SHARE = 0.25
#: EM steps per record
POOL_STEPS = 10


def record_pooled_run(attack: PosteriorAttack, records: Sequence[tuple[np.ndarray, np.ndarray]],
                      ks: Sequence[int] = (1, 5), *, steps: int = POOL_STEPS,
                      share: float = POOL_SHARE) -> TopK:
    """Attack the target words of each record with the record's pooled prior.

    Args:
        attack: the context-free attack whose vocabulary, prior and likelihood are pooled.
        records: per record, ``(ys, truths)``: the released word ids of every aligned word of the
            record (int (n,)), and for each the vocabulary row of its original (-1: not in the
            vocabulary, a miss) or -2 (not a target: evidence only).
        ks: top-k values.
        steps: EM steps per record.
        share: the record's share of its pooled prior.

    Returns:
        Expected top-k hits over the target words (truth ≠ -2).
    """
    ks = tuple(sorted(int(k) for k in ks))
    prior = np.asarray(attack.vocabulary.prior, dtype=np.float64)
    prior = prior / prior.sum()  # a vocabulary's prior is a weight; the pooled one mixes probabilities
    hits = np.zeros(len(ks))
    tokens = sizes = 0
    for ys, truths in records:
        ys = np.asarray(ys, dtype=np.int64)
        truths = np.asarray(truths, dtype=np.int64)
        if len(ys) != len(truths):
            raise ValueError(f"need one truth per released word, got {len(truths)} and {len(ys)}")
        if not (truths != -2).any():
            continue
        # positions with the same replacement have the same candidates and scores: the EM runs
        # on each distinct replacement once, weighted by how often the record releases it (a long
        # record repeats its words; a 1 MB note held 40 M (word, candidate) pairs before)
        distinct, at, times = np.unique(ys, return_inverse=True, return_counts=True)
        scored = attack.scores(distinct)
        rows = np.concatenate([r for r, _ in scored]).astype(np.int64)
        score = np.concatenate([s for _, s in scored]).astype(np.float64)
        seg = np.repeat(np.arange(len(distinct)), [len(r) for r, _ in scored])
        post = _pooled_posteriors(rows, score, seg, prior, times, steps, share)
        bounds = np.searchsorted(seg, np.arange(len(distinct) + 1))
        # two positions of a record with the same replacement have the same pooled scores (the
        # same candidates, each leaving out an equal posterior): each (y, truth) is ranked once
        credits: dict[tuple[int, int], list[float]] = {}
        for i in np.flatnonzero(truths != -2).tolist():
            a, b = bounds[at[i]], bounds[at[i] + 1]
            tokens += 1
            sizes += b - a
            pair = (int(ys[i]), int(truths[i]))
            credit = credits.get(pair)
            if credit is None:
                credit = credits[pair] = row_credit(rows[a:b], post[a:b], pair[1], ks)
            hits += credit
    return TopK(tokens, ks, tuple(float(h) for h in hits), sizes / tokens if tokens else float("nan"))


def _pooled_posteriors(rows: np.ndarray, score: np.ndarray, seg: np.ndarray, prior: np.ndarray,
                       times: np.ndarray, steps: int, share: float) -> np.ndarray:
    """Leave-one-out scores of each (distinct word, candidate row) pair under the record's pooled
    prior; ``times[j]`` is how many of the record's words are distinct word ``j`` (each of them
    puts the same posterior on the record prior).

    ``score`` is likelihood x attack prior; the record prior divides by the attack prior as the
    factor ``1 + counts / (n * prior)`` (see the module), so only the factor is iterated."""
    if not len(rows):
        return score
    n = int(times.sum())
    uniq, inv = np.unique(rows, return_inverse=True)
    scale = n * (1.0 - share) / share * prior[uniq]  # pseudo-tokens of the attack's prior
    factor = np.ones(len(uniq))
    weight = times[seg]
    for step in range(steps + 1):  # steps M-steps, each after an E-step, then the last E-step
        w = score * factor[inv]
        norm = np.bincount(seg, weights=w, minlength=len(times))
        post = np.divide(w, norm[seg], out=np.zeros_like(w), where=norm[seg] > 0)
        counts = np.bincount(inv, weights=post * weight, minlength=len(uniq))
        if step < steps:
            factor = 1.0 + counts / scale
    own_out = 1.0 + np.maximum(counts[inv] - post, 0.0) / scale[inv]
    return score * own_out
