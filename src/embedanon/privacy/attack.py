"""Re-identification attack: the Bayes-optimal guess of each original word from its replacement.

Threat model: the adversary knows the embedding, the mechanism and its parameters (not the seed),
and holds a prior over original words, uniform over the vocabulary or the word frequencies of
the corpus. Seeing a replacement y, it guesses the maximum a posteriori pre-image

    guess(y) = argmax_x P(y | x) * prior(x),

the decision rule with the highest expected top-1 success when the prior is the true
distribution of the words. Ties are split evenly: a token whose original is one of t tied
guesses counts 1/t, so the reported success is exact and needs no random tie-break.

How P(y | x) is obtained:

* a mechanism whose laws ``distribution(word_id)`` have small support (``knn``: 1/k on each of
  the k neighbours): exactly, over every word x of the embedding, from a reverse table of the
  laws (:class:`~embedanon.privacy.attacks.likelihood.SparseLaw`; method ``exact (knn table)``).
* a mechanism with ``distribution(word_id)`` (a dict {id: probability}, or an array over the
  candidates like ``exponential`` and ``tem`` return): exactly, over a candidate set of
  pre-images (below).
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
from typing import TYPE_CHECKING

import numpy as np

from .._validate import positive_int
from ..errors import ConfigError
from ..mechanisms.base import Mechanism
from ..noise import GeneratorNoise
from ..vectors.index import NeighborIndex

if TYPE_CHECKING:
    from .attacks.likelihood import SparseLaw

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

    Likelihoods are cached per attack object, so attacking the same replacements again under
    another prior costs only the new candidate pre-images.

    Args:
        mechanism: the mechanism that produced the replacements.
        index: the neighbour index the mechanism was built on (embedding and candidates).
        neighbors: candidate pre-images per replacement: its nearest words (not used for knn).
        top_prior: also consider this many most probable words under the prior.
        mc_draws: samples per candidate pre-image where the likelihood is estimated.
        rng: randomness for the sampling estimate (required, and only used, by that method).
    """

    def __init__(self, mechanism: Mechanism, index: NeighborIndex, *, neighbors: int = 10,
                 top_prior: int = 50, mc_draws: int = 100,
                 rng: np.random.Generator | None = None) -> None:
        self.mechanism = mechanism
        self.index = index
        self.store = index.store
        self._candidate_pos = np.full(len(self.store), -1, dtype=np.int64)
        self._candidate_pos[index.candidates] = np.arange(index.n_candidates)
        self.neighbors = positive_int("neighbors", neighbors)
        self.top_prior = positive_int("top_prior", top_prior)
        self.mc_draws = positive_int("mc_draws", mc_draws)
        self.rng = rng
        self._exact: dict[tuple[int, int], float] = {}
        self._samples: dict[int, np.ndarray] = {}
        self._sparse: SparseLaw | None = None
        if callable(getattr(mechanism, "distribution", None)):
            from .attacks.likelihood import SparseLaw, likelihood_for  # that package imports this module

            law = likelihood_for(mechanism, index)
            self._sparse = law if isinstance(law, SparseLaw) else None
            self.method = "exact (knn table)" if self._sparse is not None else "exact (distribution)"
        else:
            if rng is None:
                raise ConfigError(f"the attack on {mechanism.name!r} samples: pass an rng")
            self.method = f"monte-carlo ({self.mc_draws} draws per candidate)"

    def _check_prior(self, prior: np.ndarray | None) -> np.ndarray:
        size = len(self.store)
        if prior is None:
            return uniform_prior(size)
        prior = np.asarray(prior, dtype=np.float64)
        if prior.shape != (size,) or not np.all(np.isfinite(prior)) or (prior < 0).any() \
                or prior.sum() <= 0:
            raise ConfigError(f"prior must be {size} finite non-negative weights with a positive sum")
        return prior

    # -- public API ----------------------------------------------------------------------------
    def guess_sets(self, outputs: np.ndarray,
                   prior: np.ndarray | None = None) -> tuple[np.ndarray, list[np.ndarray]]:
        """The tied best guesses for each distinct replacement.

        Args:
            outputs: int64 (n,) replacement ids.
            prior: float (V,) non-negative weights over word ids; ``None`` is uniform.

        Returns:
            (uniques, sets): int64 (u,) distinct replacements and, for each, an int64 array of
            the word ids that maximise P(y | x) * prior(x), ascending.
        """
        prior = self._check_prior(prior)
        ys = np.unique(np.asarray(outputs, dtype=np.int64))
        candidates, likelihoods = self._likelihoods(ys, prior)
        sets = []
        for y, cand, like in zip(ys.tolist(), candidates, likelihoods, strict=True):
            score = like * prior[cand]
            best = score.max() if len(score) else 0.0
            if best <= 0:
                sets.append(np.array([y], dtype=np.int64))
            else:
                sets.append(np.sort(cand[score >= best * (1 - _TIE_RTOL)]))
        return ys, sets

    def guess(self, outputs: np.ndarray, prior: np.ndarray | None = None) -> np.ndarray:
        """int64 (n,) one guess per replacement (the lowest id among tied best guesses)."""
        outputs = np.asarray(outputs, dtype=np.int64)
        ys, sets = self.guess_sets(outputs, prior)
        firsts = np.array([s[0] for s in sets], dtype=np.int64)
        return firsts[np.searchsorted(ys, outputs)] if len(outputs) else outputs

    def run(self, originals: np.ndarray, outputs: np.ndarray,
            prior: np.ndarray | None = None) -> AttackResult:
        """Attack aligned (original, replacement) id pairs and score the guesses."""
        originals = np.asarray(originals, dtype=np.int64).reshape(-1)
        outputs = np.asarray(outputs, dtype=np.int64).reshape(-1)
        if originals.shape != outputs.shape:
            raise ConfigError(
                f"originals and outputs must have the same length, got {len(originals)} and {len(outputs)}"
            )
        if len(outputs) == 0:
            return AttackResult(0, 0.0, self.method)
        ys, sets = self.guess_sets(outputs, prior)
        where = np.searchsorted(ys, outputs)
        hits = 0.0
        for x, u in zip(originals.tolist(), where.tolist(), strict=True):
            group = sets[u]
            pos = np.searchsorted(group, x)
            if pos < len(group) and group[pos] == x:
                hits += 1.0 / len(group)
        return AttackResult(len(outputs), hits, self.method)

    # -- likelihoods ---------------------------------------------------------------------------
    def _likelihoods(self, ys: np.ndarray,
                     prior: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """For each y: candidate pre-images (int64) and P(y | x) for each (float64)."""
        if len(ys) == 0:
            return [], []
        if self._sparse is not None:
            return self._knn_likelihoods(ys, prior)
        candidates = self._candidates(ys, prior)
        if self.method.startswith("exact"):
            self._fill_exact(ys, candidates)
            likelihoods = [np.array([self._exact[(x, y)] for x in cand.tolist()], dtype=np.float64)
                           for y, cand in zip(ys.tolist(), candidates, strict=True)]
        else:
            self._fill_samples(np.unique(np.concatenate(candidates)))
            likelihoods = []
            for y, cand in zip(ys.tolist(), candidates, strict=True):
                like = np.empty(len(cand), dtype=np.float64)
                for i, x in enumerate(cand.tolist()):
                    row = self._samples[x]
                    like[i] = (np.searchsorted(row, y, "right") - np.searchsorted(row, y, "left")) / len(row)
                likelihoods.append(like)
        return candidates, likelihoods

    def _fill_exact(self, ys: np.ndarray, candidates: list[np.ndarray]) -> None:
        missing: dict[int, list[int]] = {}
        for y, cand in zip(ys.tolist(), candidates, strict=True):
            for x in cand.tolist():
                if (x, y) not in self._exact:
                    missing.setdefault(x, []).append(y)
        for x, needed in missing.items():
            dist = self.mechanism.distribution(x)  # type: ignore[attr-defined]
            if isinstance(dist, dict):
                values = [float(dist.get(y, 0.0)) for y in needed]
            else:
                values = self._array_law(np.asarray(dist, dtype=np.float64), needed)
            for y, value in zip(needed, values, strict=True):
                self._exact[(x, y)] = value

    def _array_law(self, law: np.ndarray, ys: list[int]) -> list[float]:
        """P(y | x) for ``ys`` from a law over the candidates (C,) or over all words (V,)."""
        if law.shape == (len(self.store),):
            return law[ys].tolist()
        if law.shape != (self.index.n_candidates,):
            raise TypeError(
                f"distribution() must return a dict or an array over the {self.index.n_candidates} "
                f"candidates or the {len(self.store)} words, got shape {law.shape}"
            )
        pos = self._candidate_pos[ys]
        return np.where(pos >= 0, law[np.maximum(pos, 0)], 0.0).tolist()

    def _fill_samples(self, xs: np.ndarray) -> None:
        todo = np.array([x for x in xs.tolist() if x not in self._samples], dtype=np.int64)
        assert self.rng is not None
        n = self.mc_draws
        for start in range(0, len(todo), _CHUNK // 4):
            chunk = todo[start:start + _CHUNK // 4]
            noise = GeneratorNoise(self.rng, len(chunk) * n)
            out = np.asarray(self.mechanism.sample(np.repeat(chunk, n), noise), dtype=np.int64)
            for x, row in zip(chunk.tolist(), np.sort(out.reshape(len(chunk), n), axis=1), strict=True):
                self._samples[x] = row

    def _knn_likelihoods(self, ys: np.ndarray,
                         prior: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
        assert self._sparse is not None
        candidates, likelihoods = [], []
        for y, xs in zip(ys.tolist(), self._sparse.preimages(ys), strict=True):
            xs = xs[prior[xs] > 0]
            candidates.append(xs.astype(np.int64))
            likelihoods.append(self._sparse.pairs(xs, np.full(len(xs), y, dtype=np.int64)))
        return candidates, likelihoods

    def _candidates(self, ys: np.ndarray, prior: np.ndarray) -> list[np.ndarray]:
        vectors = self.store.vectors
        size = len(vectors)
        extra = np.zeros(0, dtype=np.int64)
        if not np.all(prior == prior[0]):
            top = min(self.top_prior, size)
            extra = np.argpartition(-prior, top - 1)[:top].astype(np.int64)
        out: list[np.ndarray] = []
        for start in range(0, len(ys), _CHUNK):
            chunk = ys[start:start + _CHUNK]
            if self.neighbors >= size:
                near = np.broadcast_to(np.arange(size), (len(chunk), size))
            else:
                sims = vectors[chunk] @ vectors.T
                near = np.argpartition(-sims, self.neighbors - 1, axis=1)[:, :self.neighbors]
            for y, row in zip(chunk.tolist(), near, strict=True):
                cand = np.unique(np.concatenate([row, extra, [y]]).astype(np.int64))
                out.append(cand[prior[cand] > 0])
        return out
