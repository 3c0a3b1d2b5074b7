"""Candidate-name confirmation: which of two names does a record hold?

An attacker who suspects that a record is about one of two people (a name it knows against
another) does not need to recover the name from the release, only to compare the two: the
mechanism's law gives, for each candidate, the probability of the released words at the name's
positions,

    score(candidate) = sum_j log P(y_j | input(candidate_j)),

input() being the word's embedding row or, outside the embedding, its public proxy (the leak
guard's redraw rule applied as in :mod:`.bayes`). The name is confirmed when the true name scores
higher than the other (a tie counts one half). The figure is that rate over every name and
``decoys`` other names drawn from the public name dictionary (the same culture group when the
spans give one): an AUC, 0.5 being chance. Under ``knn`` the released words are neighbors of the
true name and rarely of another, so the rate is close to 1 even where recovering the name from
the release alone fails.

The names are the runs of name tokens of the span file (one run per span), or, without spans,
runs of words the capitalization cue marks (an attacker's guess of where names are). Only the
tokens the mechanism released are read (a surrogate says nothing of the original's spelling).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..._validate import positive_int
from ...leakguard import keys_are_variants
from ...vectors.store import EmbeddingStore
from ..prior import NameEntry, ProxyFn, build_vocabulary
from .documents import Slot
from .likelihood import Likelihood


@dataclass(frozen=True, slots=True)
class ConfirmationFigure:
    """The name-confirmation game on one release.

    Attributes:
        names: names played (runs of name tokens the mechanism released).
        decoys: other names each is played against.
        confirmed: expected wins of the true name (ties one half), over names x decoys games.
        source: ``spans`` or ``capitalization cue`` (where the names came from).
    """

    names: int
    decoys: int
    confirmed: float
    source: str

    @property
    def auc(self) -> float:
        games = self.names * self.decoys
        return self.confirmed / games if games else float("nan")

    def as_dict(self) -> dict[str, float | int | str]:
        return {"names": self.names, "decoys": self.decoys, "auc": self.auc, "source": self.source}


def name_confirmation(names: Sequence[tuple[Sequence[Slot], str]], likelihood: Likelihood,
                      store: EmbeddingStore, dictionary: Sequence[NameEntry], *,
                      proxies: ProxyFn | None, guarded: bool, decoys: int = 10, seed: int = 0,
                      source: str = "spans") -> ConfirmationFigure:
    """Play the confirmation game of the module docstring.

    Args:
        names: each name as its slots (in order; ``released_id`` >= 0) and culture group (or
            ``unknown``).
        likelihood: the mechanism's P(y | x).
        store: the embedding (the words of its rows, for the leak-guard rule).
        dictionary: the public names the decoys are drawn from.
        proxies: ``keys -> proxy ids`` of words outside the embedding.
        guarded: whether the pipeline redraws a replacement that is a variant of a word outside
            the embedding.
        decoys: other names per true name.
        seed: the decoy draws' seed (the caller derives it from its own key).
        source: where the names came from, for the figure.
    """
    decoys = positive_int("decoys", decoys)
    names = [(list(slots), group) for slots, group in names if slots]
    if not names:
        return ConfirmationFigure(0, decoys, 0.0, source)
    by_group: dict[str, list[str]] = {}
    for entry in dictionary:
        by_group.setdefault(entry.group, []).append(entry.name)
    every = sorted({e.name for e in dictionary})
    pools = {group: sorted(set(words)) for group, words in by_group.items()}
    rng = np.random.default_rng(seed)
    games: list[tuple[list[str], list[int]]] = []  # (candidate keys, released ids) per candidate
    for slots, group in names:
        ys = [s.released_id for s in slots]
        games.append(([s.key for s in slots], ys))
        pool = pools.get(group, every)
        for _ in range(decoys):
            games.append(([pool[int(i)] for i in rng.integers(0, len(pool), size=len(slots))], ys))
    keys = sorted({k for candidate, _ in games for k in candidate})  # once, after every game
    vocabulary = build_vocabulary(keys, np.ones(len(keys)), store, proxies)
    row = vocabulary.position()
    flat_keys = [k for candidate, _ in games for k in candidate]
    flat_ys = np.array([y for _, ys in games for y in ys], dtype=np.int64)
    inputs = vocabulary.inputs[[row[k] for k in flat_keys]]
    placed = inputs >= 0
    like = np.zeros(len(flat_keys))
    if placed.any():
        like[placed] = likelihood.pairs(inputs[placed], flat_ys[placed])
    if guarded:  # a replacement that is a variant of a word outside the embedding is redrawn
        own = vocabulary.own[[row[k] for k in flat_keys]]
        for i, (key, y) in enumerate(zip(flat_keys, flat_ys.tolist(), strict=True)):
            if not own[i] and keys_are_variants(key, store.words[y]):
                like[i] = 0.0
    with np.errstate(divide="ignore"):
        logs = np.log(like)
    bounds = np.cumsum([0] + [len(candidate) for candidate, _ in games])
    scores = np.array([logs[a:b].sum() for a, b in zip(bounds[:-1], bounds[1:], strict=True)])
    confirmed = 0.0
    step = decoys + 1
    for n in range(len(names)):
        true, others = scores[n * step], scores[n * step + 1:(n + 1) * step]
        confirmed += float(np.sum(true > others) + 0.5 * np.sum(true == others))
    return ConfirmationFigure(len(names), decoys, confirmed, source)
