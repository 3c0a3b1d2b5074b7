"""BIO classes over the detector labels and the constrained decode of per-token probabilities.

Each fine token gets a probability for each of 2·L + 1 classes (``O``, ``B-NAME``, ``I-NAME``,
...). A constrained first-order Viterbi decode (``I-X`` only after ``B-X`` / ``I-X``) turns them
into spans; ``o_shift`` (the log-odds of the threshold) moves the decision, so a token needs an
entity probability of about the threshold to leave ``O``. Shared by the trained ``model`` and the
optional ``transformer`` detector.
"""

from __future__ import annotations

import math

import numpy as np

from .base import MODEL_LABELS, Span
from .features import fold, public_ranks

CLASSES: tuple[str, ...] = ("O", *(f"{p}-{label}" for label in MODEL_LABELS for p in ("B", "I")))
B_CLASS = {label: 1 + 2 * i for i, label in enumerate(MODEL_LABELS)}


def _transitions() -> np.ndarray:
    """float64 (C, C): 0 where ``prev -> cur`` is a valid BIO move, -inf where not."""
    c = len(CLASSES)
    trans = np.zeros((c, c))
    for cur in range(c):
        if CLASSES[cur].startswith("I-"):
            label = CLASSES[cur][2:]
            ok = {B_CLASS[label], B_CLASS[label] + 1}
            for prev in range(c):
                if prev not in ok:
                    trans[prev, cur] = -np.inf
    return trans


_TRANS = _transitions()
_START = np.array([-np.inf if k.startswith("I-") else 0.0 for k in CLASSES])


def viterbi(logp: np.ndarray) -> np.ndarray:
    """Best valid BIO path: int64 (T,) class ids for float (T, C) log-probabilities."""
    n = len(logp)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    back = np.zeros((n, logp.shape[1]), dtype=np.int64)
    score = logp[0] + _START
    for t in range(1, n):
        cand = score[:, None] + _TRANS
        back[t] = np.argmax(cand, axis=0)
        score = cand[back[t], np.arange(cand.shape[1])] + logp[t]
    path = np.zeros(n, dtype=np.int64)
    path[-1] = int(np.argmax(score))
    for t in range(n - 1, 0, -1):
        path[t - 1] = back[t, path[t]]
    return path


# class -> its I
_I_OF = np.array([k for k in range(len(CLASSES))]) + np.array([0, *([1, 0] * len(MODEL_LABELS))])


def best_path(logp: np.ndarray) -> np.ndarray:
    """Same path as :func:`viterbi`, faster in the common case.

    Transitions are only 0 or -inf, so when the per-token argmax is already a valid BIO path it
    is the constrained optimum; only otherwise is the Viterbi recursion run."""
    path = np.argmax(logp, axis=1)
    inside = (path > 0) & (path % 2 == 0)  # I-X classes have even ids
    if inside.any():
        prev = np.concatenate(([0], path[:-1]))
        if not np.all(_I_OF[prev[inside]] == path[inside]):
            return viterbi(logp)
    return path


#: tokens whose entity probability is below this are O whatever the threshold (decode skips them)
_ACTIVE = 0.003


def absent_word_shifts(
    text: str, starts: np.ndarray, ends: np.ndarray, proba: np.ndarray, o_shift: float, threshold: float
) -> float | np.ndarray:
    """Per-token ``O`` shifts for :func:`decode`: ``o_shift`` everywhere, and the lower shift of
    ``threshold`` (if it is lower) on letter tokens of two letters or more whose folded form is
    absent from the shipped public word list (:func:`~.features.public_ranks`): an unknown word needs less
    evidence to become an entity (round 27). Only tokens the decode can reach (entity
    probability at least ``_ACTIVE``) are looked up; ``o_shift`` itself when none qualifies."""
    shift = math.log(threshold / (1.0 - threshold))
    if shift >= o_shift or len(proba) == 0:
        return o_shift
    ranks = public_ranks()
    out: np.ndarray | None = None
    for t in np.flatnonzero(proba[:, 0] <= 1.0 - _ACTIVE).tolist():
        word = text[int(starts[t]) : int(ends[t])]
        if len(word) >= 2 and word.isalpha() and fold(word) not in ranks:
            if out is None:
                out = np.full(len(proba), o_shift)
            out[t] = shift
    return o_shift if out is None else out


def true_runs(active: np.ndarray) -> list[tuple[int, int]]:
    """``(start, end)`` of each maximal run of True in the bool (T,) array ``active``."""
    edges = np.flatnonzero(np.concatenate(([False], active)) != np.concatenate((active, [False])))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))


def _path_spans(path: np.ndarray, ent: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                source: str) -> list[Span]:
    """The spans of a valid BIO ``path`` over the tokens: each ``B-X`` with the ``I-X`` after it,
    scored by the mean entity probability ``ent`` of its tokens."""
    spans: list[Span] = []
    n = len(path)
    t = 0
    for t0 in np.flatnonzero(path).tolist():
        if t0 < t:
            continue  # inside the span just taken
        t = t0
        label = CLASSES[int(path[t])][2:]
        u = t + 1
        while u < n and path[u] == B_CLASS[label] + 1:
            u += 1
        score = float(np.clip(ent[t:u].mean(), 0.0, 1.0))
        spans.append(Span(int(starts[t]), int(ends[u - 1]), label, score, source))
        t = u
    return spans


def decode(
    starts: np.ndarray, ends: np.ndarray, proba: np.ndarray, *, o_shift: float | np.ndarray,
    source: str = "model",
) -> list[Span]:
    """Spans from per-token probabilities (Viterbi over BIO with O's log-probability shifted).

    ``o_shift``: one shift for every token, or one per token (float (T,)). Tokens with entity
    probability below ``_ACTIVE`` split the text into independent runs (they are O on every path
    worth taking). The per-token argmax is taken over the whole text at once; only a run where it
    is not a valid BIO path (an ``I-X`` not after ``B-X`` / ``I-X``) goes through the Viterbi
    recursion. The same spans as :func:`decode_reference`, which decodes run by run (tested)."""
    if len(proba) == 0:
        return []
    ent = 1.0 - proba[:, 0]
    active = ent >= _ACTIVE
    if not active.any():
        return []
    logp = np.log(np.maximum(proba, 1e-12)).astype(np.float64)
    logp[:, 0] += o_shift
    path = np.argmax(logp, axis=1)
    path[~active] = 0  # outside the runs: O (each run then starts after an O, as on its own)
    inside = (path > 0) & (path % 2 == 0)  # I-X classes have even ids
    if inside.any():
        prev = np.concatenate(([0], path[:-1]))
        bad = inside & (_I_OF[prev] != path)
        if bad.any():
            for a, b in true_runs(active):
                if bad[a:b].any():
                    path[a:b] = viterbi(logp[a:b])
    return _path_spans(path, ent, starts, ends, source)


def decode_reference(
    starts: np.ndarray, ends: np.ndarray, proba: np.ndarray, *, o_shift: float | np.ndarray,
    source: str = "model",
) -> list[Span]:
    """The plain reference of :func:`decode`: each run of active tokens decoded on its own by
    :func:`best_path` (argmax, or Viterbi where the argmax is not valid BIO)."""
    if len(proba) == 0:
        return []
    ent = 1.0 - proba[:, 0]
    active = ent >= _ACTIVE
    if not active.any():
        return []
    path = np.zeros(len(proba), dtype=np.int64)
    for a, b in true_runs(active):
        logp = np.log(np.maximum(proba[a:b], 1e-12)).astype(np.float64)
        logp[:, 0] += o_shift if isinstance(o_shift, float) else o_shift[a:b]
        path[a:b] = best_path(logp)
    return _path_spans(path, ent, starts, ends, source)
