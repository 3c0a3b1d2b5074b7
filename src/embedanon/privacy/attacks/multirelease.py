"""Multi-release attack: the same documents released N times, pre-image sets intersected.

A careless holder who anonymizes the same notes again with fresh noise gives the attacker N
independent replacements y_1..y_N of every word. Their posterior is

    score(x) = prior(x) * prod_r P(y_r | x),

so for ``knn`` the candidate set is the intersection of the N reverse sets (each of about k
words), which shrinks fast. For the epsilon mechanisms the law is not inverted exactly: each
release's candidate pre-images are y's nearest words, and a far replacement's set may miss the
original, so intersecting them loses it. There the candidates are the union of each release's
``candidates`` best words, every one scored by the product of its likelihoods under all N
releases (a restricted set: a lower bound on the Bayes attacker). A word is *uniquely
recovered* when exactly one word has a positive score and it is the original (only defined for
exact likelihoods with small support: ``knn``).

Beside the Bayes attacker, a plain **majority vote**: the word released most often at the
position is the guess, ties broken by public word frequency (an even split when still tied).
A mechanism that returns its input with probability p > 1/2 per release loses the word to it
fast; ``knn`` never returns its input, so the vote recovers nothing there.

Releases that are identical as whole documents count once: a keyed release (``--key``) of the
same record is a copy, not fresh noise, so the figure with N identical releases equals the
1-release figure exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...vectors.store import EmbeddingStore
from .bayes import PosteriorAttack, topk_credit
from .documents import Slot, document_slots


@dataclass(frozen=True, slots=True)
class ReleaseFigure:
    """Recovery after N releases.

    Attributes:
        releases: N.
        tokens: in-vocabulary word tokens attacked.
        unique: tokens whose intersected candidate set is exactly the original (nan when the
            likelihood is not exact with finite support).
        top1: expected top-1 hits under the attacker's prior (ties split).
        mean_candidates: mean number of words with a positive score.
        distinct_releases: mean number of distinct releases per document used.
        majority: expected hits of the majority vote (ties split).
    """

    releases: int
    tokens: int
    unique: float
    top1: float
    mean_candidates: float
    distinct_releases: float
    majority: float = float("nan")

    @property
    def unique_rate(self) -> float:
        return self.unique / self.tokens if self.tokens else float("nan")

    @property
    def top1_rate(self) -> float:
        return self.top1 / self.tokens if self.tokens else float("nan")

    def as_dict(self) -> dict[str, float | int]:
        return {"releases": self.releases, "tokens": self.tokens, "unique_recovery": self.unique_rate,
                "top1": self.top1_rate, "mean_candidates": self.mean_candidates,
                "distinct_releases": self.distinct_releases,
                "majority_top1": self.majority / self.tokens if self.tokens else float("nan")}


def _combine(parts: list[tuple[np.ndarray, np.ndarray]], prior: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Intersect (rows, prior * likelihood) sets: rows in all, prior * prod likelihood."""
    rows, score = parts[0]
    for other_rows, other_score in parts[1:]:
        common, a, b = np.intersect1d(rows, other_rows, assume_unique=True, return_indices=True)
        rows = common
        score = score[a] * (other_score[b] / prior[common])
    return rows, score


def _union(parts: list[tuple[np.ndarray, np.ndarray]], ys: list[int], attack: PosteriorAttack,
           candidates: int) -> tuple[np.ndarray, np.ndarray]:
    """Each release's ``candidates`` best rows, scored prior * prod of likelihoods over all releases."""
    best = [rows[np.lexsort((rows, -score))[:candidates]] for rows, score in parts]
    rows = np.unique(np.concatenate(best)) if best else np.zeros(0, dtype=np.int64)
    inputs = attack.vocabulary.inputs[rows]
    score = attack.vocabulary.prior[rows].astype(np.float64)
    for y in ys:
        score = score * attack.likelihood.pairs(inputs, np.full(len(rows), y, dtype=np.int64))
    return rows, score


def _majority(votes: list[int], truth: int, prior: np.ndarray) -> float:
    """Expected hit of the majority vote over released ids (ties by prior, then split)."""
    ids, n = np.unique(np.array(votes, dtype=np.int64), return_counts=True)
    top = ids[n == n.max()]
    weight = prior[top]
    top = top[weight == weight.max()]
    return float(truth in top.tolist()) / len(top)


def multi_release(originals: Sequence[str], releases: Sequence[Sequence[str]], attack: PosteriorAttack,
                  store: EmbeddingStore, *, counts: Sequence[int] = (1, 2, 5),
                  candidates: int = 10) -> list[ReleaseFigure]:
    """Recovery of in-vocabulary words after the first N releases, for each N in ``counts``.

    Args:
        originals: the documents.
        releases: ``releases[r][d]`` is release r of document d (token-aligned with it).
        attack: posterior over the embedding's own words (see
            :func:`~embedanon.privacy.prior.embedding_vocabulary`), whose rows are word ids.
        store: the embedding.
        counts: the N values; those above ``len(releases)`` are skipped.
        candidates: each release's best words kept when the law is not exact (module docstring).

    Returns:
        One :class:`ReleaseFigure` per N, in the order of ``counts``.
    """
    for release in releases:
        if len(release) != len(originals):
            raise ValueError(f"every release needs {len(originals)} documents, got {len(release)}")
    exact = attack.likelihood.exact
    prior = attack.vocabulary.prior
    wanted = [n for n in counts if 1 <= n <= len(releases)]
    top = max(wanted, default=0)
    aligned: dict[tuple[int, str], list[Slot]] = {}  # (document, release text) -> its slots
    for d, original in enumerate(originals):
        for text in dict.fromkeys(releases[r][d] for r in range(top)):
            aligned[(d, text)] = [s for sent in document_slots(original, text, store) for s in sent]
    released = {s.released_id for slots in aligned.values() for s in slots if s.released_id >= 0}
    if released:  # one batched pass over every replacement instead of one per document
        attack.scores(np.array(sorted(released), dtype=np.int64))
    out = []
    for n in counts:
        if n < 1 or n > len(releases):
            continue
        tokens = 0
        unique = top1 = sizes = used = majority = 0.0
        for d in range(len(originals)):
            distinct = list(dict.fromkeys(releases[r][d] for r in range(n)))
            used += len(distinct)
            slots = [aligned[(d, text)] for text in distinct]
            keep = [i for i, s in enumerate(slots[0]) if s.original_id >= 0 and s.released_id >= 0]
            if not keep:
                continue
            per_release = [attack.scores(np.array([rel[i].released_id for i in keep], dtype=np.int64))
                           for rel in slots]
            for j, i in enumerate(keep):
                truth = slots[0][i].original_id
                votes = [rel[i].released_id for rel in slots if rel[i].released_id >= 0]
                majority += _majority(votes, truth, prior)
                if exact or len(slots) == 1:
                    rows, score = _combine([pr[j] for pr in per_release], prior)
                else:
                    rows, score = _union([pr[j] for pr in per_release], votes, attack, candidates)
                tokens += 1
                sizes += len(rows)
                at = np.searchsorted(rows, truth)
                value = float(score[at]) if at < len(rows) and rows[at] == truth else 0.0
                top1 += topk_credit(score, value, (1,))[0]
                unique += float(exact and len(rows) == 1 and value > 0)
        out.append(ReleaseFigure(n, tokens, unique if exact else float("nan"), top1,
                                 sizes / tokens if tokens else float("nan"),
                                 used / len(originals) if len(originals) else float("nan"), majority))
    return out
