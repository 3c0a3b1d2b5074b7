"""Re-identification attack: the Bayes-optimal guess of each original word from its replacement.

Threat model: the adversary knows the embedding, the mechanism and its parameters (not the seed),
and holds a prior over original words, uniform over the vocabulary or the word frequencies of
the corpus. Seeing a replacement y, it guesses the maximum a posteriori pre-image

    guess(y) = argmax_x P(y | x) * prior(x),

the decision rule with the highest expected top-1 success when the prior is the true
distribution of the words. Ties are split evenly: a token whose original is one of t tied
guesses counts 1/t, so the reported success is exact and needs no random tie-break.

How P(y | x) is obtained:

* ``knn``: exactly, P(y | x) = 1/k when y is in x's neighbour row, over every word x of the
  embedding (a reverse lookup of the neighbour table).
* a mechanism with ``distribution(word_id) -> {id: probability}``: exactly, over a candidate set
  of pre-images (below).
* any other mechanism (``laplace``, ``mahalanobis``): estimated from ``mc_draws`` samples of each
  candidate pre-image.

The candidate pre-images of y are its ``neighbors`` nearest words in the embedding (y itself
included: for metric DP that is where the likelihood mass is) and the ``top_prior`` most probable
words under the prior (which win when the likelihood is nearly flat, at small epsilon). Words of
prior zero are never guessed. Restricting the candidates (and estimating by sampling) only ever
gives a valid guessing rule, so the reported success is, in expectation, a lower bound on what the
Bayes-optimal adversary with the same prior achieves. When no candidate has a positive score
(possible only with sampling), the guess is y itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import positive_int
from ..errors import ConfigError
from ..mechanisms.base import Mechanism
from ..mechanisms.knn import KnnMechanism
from ..vectors.store import EmbeddingStore

_TIE_RTOL = 1e-9
_CHUNK = 256


@dataclass(frozen=True, slots=True)
class AttackResult:
    """Outcome of the attack on a sequence of tokens.

    Attributes:
        tokens: number of (original, replacement) pairs attacked.
        expected_hits: sum over tokens of 1/t when the original is among t tied best guesses.
        method: how the likelihood was obtained (``exact (knn table)``, ``exact (distribution)``
            or ``monte-carlo (n draws per candidate)``).
    """

    tokens: int
    expected_hits: float
    method: str

    def __post_init__(self) -> None:
        if self.tokens < 0 or not 0 <= self.expected_hits <= self.tokens + 1e-9:
            raise ValueError(f"need 0 <= expected_hits <= tokens, got {self.expected_hits}, {self.tokens}")

    @property
    def success(self) -> float:
        """Top-1 success rate: expected_hits / tokens (nan when there are no tokens)."""
        return self.expected_hits / self.tokens if self.tokens else float("nan")


def uniform_prior(vocab_size: int) -> np.ndarray:
    """float64 (V,) uniform prior over the vocabulary."""
    return np.full(positive_int("vocab_size", vocab_size), 1.0 / vocab_size)


def frequency_prior(ids: np.ndarray, vocab_size: int, *, smoothing: float = 0.0) -> np.ndarray:
    """float64 (V,) prior proportional to the counts of ``ids`` (plus ``smoothing`` per word)."""
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)
    counts = np.bincount(ids, minlength=vocab_size).astype(np.float64) + smoothing
    total = counts.sum()
    if total <= 0:
        raise ConfigError("a frequency prior needs at least one word id or smoothing > 0")
    return counts / total


class BayesAttack:
    """Maximum a posteriori re-identification of original words from their replacements.

    Args:
        mechanism: the mechanism that produced the replacements.
        store: the embedding (for the candidate pre-images).
        prior: float (V,) non-negative weights over word ids; ``None`` is uniform.
        neighbors: candidate pre-images per replacement: its nearest words (not used for knn).
        top_prior: also consider this many most probable words under the prior.
        mc_draws: samples per candidate pre-image where the likelihood is estimated.
        rng: randomness for the sampling estimate (only used by that method).
    """

    def __init__(self, mechanism: Mechanism, store: EmbeddingStore, *, prior: np.ndarray | None = None,
                 neighbors: int = 20, top_prior: int = 50, mc_draws: int = 200,
                 rng: np.random.Generator | None = None) -> None:
        self.mechanism = mechanism
        self.store = store
        size = len(store)
        if prior is None:
            prior = uniform_prior(size)
        prior = np.asarray(prior, dtype=np.float64)
        if prior.shape != (size,) or not np.all(np.isfinite(prior)) or (prior < 0).any() \
                or prior.sum() <= 0:
            raise ConfigError(f"prior must be {size} finite non-negative weights with a positive sum")
        self.prior = prior
        self.uniform = bool(np.all(prior == prior[0]))
        self.neighbors = positive_int("neighbors", neighbors)
        self.top_prior = positive_int("top_prior", top_prior)
        self.mc_draws = positive_int("mc_draws", mc_draws)
        self.rng = rng
        if isinstance(mechanism, KnnMechanism):
            self.method = "exact (knn table)"
        elif callable(getattr(mechanism, "distribution", None)):
            self.method = "exact (distribution)"
        else:
            if rng is None:
                raise ConfigError(f"the attack on {mechanism.name!r} samples: pass an rng")
            self.method = f"monte-carlo ({self.mc_draws} draws per candidate)"

    # -- public API ----------------------------------------------------------------------------
    def guess_sets(self, outputs: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        """The tied best guesses for each distinct replacement.

        Args:
            outputs: int64 (n,) replacement ids.

        Returns:
            (uniques, sets): int64 (u,) distinct replacements and, for each, an int64 array of
            the word ids that maximise P(y | x) * prior(x), ascending.
        """
        ys = np.unique(np.asarray(outputs, dtype=np.int64))
        candidates, likelihoods = self._likelihoods(ys)
        sets = []
        for y, cand, like in zip(ys.tolist(), candidates, likelihoods):
            score = like * self.prior[cand]
            best = score.max() if len(score) else 0.0
            if best <= 0:
                sets.append(np.array([y], dtype=np.int64))
            else:
                sets.append(np.sort(cand[score >= best * (1 - _TIE_RTOL)]))
        return ys, sets

    def guess(self, outputs: np.ndarray) -> np.ndarray:
        """int64 (n,) one guess per replacement (the lowest id among tied best guesses)."""
        outputs = np.asarray(outputs, dtype=np.int64)
        ys, sets = self.guess_sets(outputs)
        firsts = np.array([s[0] for s in sets], dtype=np.int64)
        return firsts[np.searchsorted(ys, outputs)]

    def run(self, originals: np.ndarray, outputs: np.ndarray) -> AttackResult:
        """Attack aligned (original, replacement) id pairs and score the guesses."""
        originals = np.asarray(originals, dtype=np.int64).reshape(-1)
        outputs = np.asarray(outputs, dtype=np.int64).reshape(-1)
        if originals.shape != outputs.shape:
            raise ConfigError(
                f"originals and outputs must have the same length, got {len(originals)} and {len(outputs)}"
            )
        if len(outputs) == 0:
            return AttackResult(0, 0.0, self.method)
        ys, sets = self.guess_sets(outputs)
        where = np.searchsorted(ys, outputs)
        hits = 0.0
        for x, u in zip(originals.tolist(), where.tolist()):
            group = sets[u]
            pos = np.searchsorted(group, x)
            if pos < len(group) and group[pos] == x:
                hits += 1.0 / len(group)
        return AttackResult(len(outputs), hits, self.method)

    # -- likelihoods ---------------------------------------------------------------------------
    def _likelihoods(self, ys: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """For each y: candidate pre-images (int64) and P(y | x) for each (float64)."""
        if len(ys) == 0:
            return [], []
        if isinstance(self.mechanism, KnnMechanism):
            return self._knn_likelihoods(ys)
        candidates = self._candidates(ys)
        pair_u = np.concatenate([np.full(len(c), u, dtype=np.int64) for u, c in enumerate(candidates)])
        pair_x = np.concatenate(candidates) if candidates else np.zeros(0, dtype=np.int64)
        values = np.zeros(len(pair_x), dtype=np.float64)
        order = np.argsort(pair_x, kind="stable")
        xs, starts = np.unique(pair_x[order], return_index=True)
        bounds = np.append(starts, len(order))
        if self.method.startswith("exact"):
            for i, x in enumerate(xs.tolist()):
                dist = self.mechanism.distribution(x)  # type: ignore[attr-defined]
                for p in order[bounds[i]:bounds[i + 1]]:
                    values[p] = dist.get(int(ys[pair_u[p]]), 0.0)
        else:
            assert self.rng is not None
            n = self.mc_draws
            for c0 in range(0, len(xs), _CHUNK // 4):
                chunk = xs[c0:c0 + _CHUNK // 4]
                out = np.asarray(self.mechanism.sample(np.repeat(chunk, n), self.rng), dtype=np.int64)
                out = out.reshape(len(chunk), n)
                for r in range(len(chunk)):
                    i = c0 + r
                    idx = order[bounds[i]:bounds[i + 1]]
                    values[idx] = (out[r][None, :] == ys[pair_u[idx]][:, None]).mean(axis=1)
        split = np.cumsum([len(c) for c in candidates])[:-1]
        return candidates, np.split(values, split)

    def _knn_likelihoods(self, ys: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
        table = np.asarray(self.mechanism.table)  # type: ignore[attr-defined]
        k = table.shape[1]
        flat = table.reshape(-1).astype(np.int64)
        order = np.argsort(flat, kind="stable")
        lo = np.searchsorted(flat[order], ys, side="left")
        hi = np.searchsorted(flat[order], ys, side="right")
        candidates, likelihoods = [], []
        for a, b in zip(lo.tolist(), hi.tolist()):
            xs, counts = np.unique(order[a:b] // k, return_counts=True)
            keep = self.prior[xs] > 0
            candidates.append(xs[keep].astype(np.int64))
            likelihoods.append(counts[keep] / k)
        return candidates, likelihoods

    def _candidates(self, ys: np.ndarray) -> list[np.ndarray]:
        vectors = self.store.vectors
        size = len(vectors)
        extra = np.zeros(0, dtype=np.int64)
        if not self.uniform:
            top = min(self.top_prior, size)
            extra = np.argpartition(-self.prior, top - 1)[:top].astype(np.int64)
        out: list[np.ndarray] = []
        for start in range(0, len(ys), _CHUNK):
            chunk = ys[start:start + _CHUNK]
            if self.neighbors >= size:
                near = np.broadcast_to(np.arange(size), (len(chunk), size))
            else:
                sims = vectors[chunk] @ vectors.T
                near = np.argpartition(-sims, self.neighbors - 1, axis=1)[:, :self.neighbors]
            for y, row in zip(chunk.tolist(), near):
                cand = np.unique(np.concatenate([row, extra, [y]]).astype(np.int64))
                out.append(cand[self.prior[cand] > 0])
        return out
