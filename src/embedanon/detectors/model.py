"""The shipped, trained PII detector (``model``): a token classifier that needs only numpy.

A text is cut into fine tokens and featurized (:mod:`.features`), scored by the linear softmax of
:mod:`.weights` (through a projected fast path: each dense row enters the logits once), decoded
into BIO spans (:mod:`.bio`), and then passed through the decode rules (:mod:`.rules`). Training
lives in :mod:`.training`.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ..errors import ConfigError, InputError
from .base import Span
from .bio import CLASSES, absent_word_shifts, decode
from .features import CACHE_LIMIT, tokenize
from .rules import RULES, RuleContext, apply_rules
from .view import model_reading, moved_back
from .weights import (
    _SUM_BLOCK,
    Weights,
    feature_flags,
    fold_ids,
    make_featurizer,
    shipped_path,
    softmax,
    sparse_sum,
)


class ModelDetector:
    """The trained token-classifier detector (registered as ``model``).

    Args:
        path: directory written by :meth:`Weights.save` (``embedanon detector train --out DIR``);
            default: the model shipped in the package.
        threshold: entity probability a token needs to leave ``O``, in (0, 1); default: the value
            tuned on the development set and stored in the manifest.
        lower_threshold: the threshold for a text with no upper-case letter (all lower case: the
            model is less sure there), in (0, 1); default: the manifest's ``lower_threshold``
            when ``threshold`` also comes from the manifest, else ``threshold`` itself.
    """

    name = "model"

    def __init__(
        self,
        *,
        path: str | Path | None = None,
        threshold: float | None = None,
        lower_threshold: float | None = None,
    ) -> None:
        self.weights = Weights.load(shipped_path() if path is None else path)
        manifest = self.weights.manifest
        if threshold is None:
            threshold = float(manifest.get("threshold", 0.5))
            if lower_threshold is None:
                lower_threshold = float(manifest.get("lower_threshold", threshold))
        if lower_threshold is None:
            lower_threshold = threshold
        self.threshold = _probability("threshold", threshold)
        self.lower_threshold = _probability("lower_threshold", lower_threshold)
        self._o_shift = math.log(self.threshold / (1.0 - self.threshold))
        self._o_shift_lower = math.log(self.lower_threshold / (1.0 - self.lower_threshold))
        absent = manifest.get("absent_threshold")
        self.absent_threshold = None if absent is None else _probability("absent_threshold", absent)
        self.featurizer = make_featurizer(self.weights.clusters, int(self.weights.sparse.shape[0]),
                                          cache_limit=CACHE_LIMIT, **feature_flags(manifest))
        c = len(CLASSES)
        d = self.featurizer.dim
        blocks = list(self.weights.dense.reshape(3, d, c))
        hidden = self.weights.hidden
        if hidden is not None:
            blocks += list(hidden.dense.reshape(3, d, hidden.units))
        self._stacked = np.ascontiguousarray(np.concatenate(blocks, axis=1))  # (d, 3C [+ 3H])
        self._proj = np.zeros((0, self._stacked.shape[1]), dtype=np.float32)
        self._n_proj = 0
        self._generation = self.featurizer.generation
        #: per cached word of the featurizer, the sum of its own ids' sparse rows (:meth:`_sparse_logits`)
        self._own = np.zeros((0, c), dtype=np.float32)
        self._n_own = 0
        self._own_generation = self.featurizer.generation
        #: the decode rules run after Viterbi, in order (every rule; a study may run fewer)
        self.rules = RULES

    def probabilities(self, text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Token starts, ends (int64 (T,)) and class probabilities float32 (T, C), of ``text`` as
        the model reads it (:func:`~.view.model_reading`: a label written in a tag or in bold,
        ``<v Speaker>``, ``<Speaker>``, ``**Speaker:**``, as ``Speaker:``; decisions 0209, 0210);
        the offsets are ``text``'s."""
        reading, moved = model_reading(text)
        toks = tokenize(reading)
        ids, rows, word_rows = self.featurizer.featurize_words(reading, toks)
        table = self.featurizer.dense_table
        if self.featurizer.generation != self._generation:  # composed rows were numbered anew
            self._generation = self.featurizer.generation
            self._n_proj = min(self._n_proj, self.featurizer.fixed_rows)
        if len(table) > self._n_proj:
            self._project(table)
        c = len(CLASSES)
        proj = self._proj
        logits = self._sparse_logits(ids, word_rows) + self.weights.bias
        logits += proj[rows[:, 0], :c] + proj[rows[:, 1], c : 2 * c] + proj[rows[:, 2], 2 * c : 3 * c]
        hidden = self.weights.hidden
        if hidden is not None:
            o, h = 3 * c, hidden.units
            a = sparse_sum(hidden.sparse, fold_ids(ids, hidden.buckets)) + hidden.bias
            a += proj[rows[:, 0], o : o + h] + proj[rows[:, 1], o + h : o + 2 * h]
            a += proj[rows[:, 2], o + 2 * h :]
            logits += np.maximum(a, 0.0) @ hidden.out
        starts, ends = moved_back(toks.starts, toks.ends, moved)
        return starts, ends, softmax(logits)

    def _sparse_logits(self, ids: np.ndarray, word_rows: np.ndarray) -> np.ndarray:
        """float32 (T, C): ``sparse_sum(weights.sparse, ids)`` (the plain reference), bit for bit.

        A token's own ids come first in its row and are the same wherever its word occurs, and
        numpy sums the gathered rows one after another (``((w0 + w1) + w2) + ...``), so the sum
        of a word's own rows is kept per word and the context rows are added to it in the same
        order: half the rows gathered per text."""
        own = self.featurizer.own_slots
        seen = self.featurizer.words_seen
        if self.featurizer.generation != self._own_generation:  # the words were numbered anew
            self._own_generation = self.featurizer.generation
            self._n_own = 0
        weights = self.weights.sparse
        if seen > self._n_own:
            if seen > len(self._own):
                grown = np.zeros((2 * seen, weights.shape[1]), dtype=weights.dtype)
                grown[: self._n_own] = self._own[: self._n_own]
                self._own = grown
            self._own[self._n_own : seen] = sparse_sum(weights, self.featurizer.own_ids(self._n_own, seen))
            self._n_own = seen
        t, k = ids.shape
        if t == 0 or t > _SUM_BLOCK:  # long texts: the blocks of the reference (bounded memory)
            return sparse_sum(weights, ids)
        gathered = np.empty((t, k - own + 1, weights.shape[1]), dtype=weights.dtype)
        gathered[:, 0] = self._own[word_rows]
        gathered[:, 1:] = np.take(weights, ids[:, own:].ravel(), axis=0).reshape(t, k - own, -1)
        return gathered.sum(axis=1)

    def _project(self, table: np.ndarray) -> None:
        """Project the dense rows not projected yet: each enters the logits only as row @ W_block.

        The embedding's rows once, in one BLAS product; composed rows always with ``einsum``,
        whose result for a row does not depend on how many rows it is computed with (a BLAS
        product's can differ in the last bits), so a text's probabilities never depend on what
        the process featurized before."""
        from threadpoolctl import threadpool_limits

        if len(table) > len(self._proj):
            grown = np.zeros((2 * len(table), self._proj.shape[1]), dtype=np.float32)
            grown[: self._n_proj] = self._proj[: self._n_proj]
            self._proj = grown
        fixed = self.featurizer.fixed_rows
        if self._n_proj < fixed:  # the embedding's rows, once: one BLAS product on one thread
            with threadpool_limits(1):
                self._proj[self._n_proj : fixed] = table[self._n_proj : fixed] @ self._stacked
            self._n_proj = fixed
        if len(table) > self._n_proj:
            new_rows = table[self._n_proj :]
            self._proj[self._n_proj : len(table)] = np.einsum("kd,dc->kc", new_rows, self._stacked)
        self._n_proj = len(table)

    def detect(self, text: str) -> list[Span]:
        if not isinstance(text, str):
            raise InputError(f"detect expects a str, got {type(text).__name__}")
        starts, ends, proba = self.probabilities(text)
        caseless = self._o_shift_lower != self._o_shift and text.lower() == text  # no copy by default
        o_shift = self._o_shift_lower if caseless else self._o_shift
        shifts = o_shift if self.absent_threshold is None else absent_word_shifts(
            text, starts, ends, proba, o_shift, self.absent_threshold)
        spans = decode(starts, ends, proba, o_shift=shifts, source=self.name)
        context = RuleContext(text, starts, ends, proba, score=self.threshold, source=self.name)
        return apply_rules(context, spans, self.rules)


def _probability(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < value < 1.0:
        raise ConfigError(f"{name} must be a number in (0, 1), got {value!r}")
    return float(value)
