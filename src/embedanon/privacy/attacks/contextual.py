"""Contextual attacker: the lattice of pre-image candidates decoded with a public bigram model.

The context-free attack guesses each word from its own replacement. Words are not independent,
though: the family of attacks of Tong et al. (NAACL 2025) decodes the whole sequence. Here the
original sentence is the hidden state sequence of a hidden Markov model,

    P(x_1..n | y_1..n)  ∝  prod_i P(y_i | x_i) * P_LM(x_i | x_{i-1}),

with the mechanism's exact P(y | x) as emission and a bigram language model trained on *public*
text as transition (interpolated absolute discounting, Ney, Essen & Kneser 1994). Position i
keeps the ``m`` best candidates of the context-free posterior (likelihood x public prior), and
:func:`forward_backward` picks the candidate of highest posterior marginal at each position
(the decoder that gets the most words right in expectation: the figure reported), and
:func:`viterbi` the most probable path through that lattice, both exactly.

Sentences are split at ``.``, ``?`` and ``!`` in training and in attack alike; the bundled model
(``data/bigrams_en.npz``, built by ``scripts/build_attack_data.py``) is counted over NLTK's Brown
and Webtext corpora and a public biomedical sentence corpus, never over text that is attacked.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._validate import positive_int
from ...errors import ConfigError
from ...text import lookup_key

if TYPE_CHECKING:
    from .bayes import PosteriorAttack

BOUNDARY = "<s>"
UNKNOWN = "<unk>"
_BOUNDARY_ID, _UNKNOWN_ID = 0, 1


@dataclass(frozen=True, slots=True, eq=False)
class BigramModel:
    """Bigram counts with interpolated absolute discounting.

    P(b | a) = max(c(a, b) - D, 0) / c(a) + lambda(a) * P_1(b), with lambda(a) the mass the
    discounted (and pruned) bigrams of a leave, and P_1 the add-one unigram law; P(b | a) = P_1(b)
    for a history never seen. Id 0 is the sentence boundary, id 1 every unknown word.

    Attributes:
        words: vocabulary, ``words[0] == "<s>"``, ``words[1] == "<unk>"``.
        unigram_counts: int64 (W,) counts of each word (boundary: number of sentences).
        history_counts: int64 (W,) c(a): bigrams starting with a, before pruning.
        bigram_keys: int64 (B,) sorted a * W + b of the kept bigrams.
        bigram_counts: int64 (B,) their counts.
        discount: D in (0, 1).
    """

    words: tuple[str, ...]
    unigram_counts: np.ndarray
    history_counts: np.ndarray
    bigram_keys: np.ndarray
    bigram_counts: np.ndarray
    discount: float = 0.75
    _index: dict[str, int] = field(init=False, repr=False)
    _backoff: np.ndarray = field(init=False, repr=False)
    _unigram: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        w = len(self.words)
        if w < 2 or self.words[0] != BOUNDARY or self.words[1] != UNKNOWN:
            raise ValueError("a bigram vocabulary starts with '<s>', '<unk>'")
        if self.unigram_counts.shape != (w,) or self.history_counts.shape != (w,):
            raise ValueError(f"unigram and history counts must have shape ({w},)")
        if self.bigram_keys.shape != self.bigram_counts.shape or \
                (len(self.bigram_keys) > 1 and (np.diff(self.bigram_keys) <= 0).any()):
            raise ValueError("bigram keys must be strictly increasing, one count each")
        if not 0 < self.discount < 1:
            raise ValueError(f"discount must be in (0, 1), got {self.discount}")
        a = self.bigram_keys // w
        kept = np.bincount(a, weights=np.maximum(self.bigram_counts - self.discount, 0), minlength=w)
        hist = np.maximum(self.history_counts, 1).astype(np.float64)
        object.__setattr__(self, "_index", {word: i for i, word in enumerate(self.words)})
        object.__setattr__(self, "_backoff", np.where(self.history_counts > 0, 1.0 - kept / hist, 1.0))
        uni = self.unigram_counts.astype(np.float64) + 1.0
        uni[_BOUNDARY_ID] = self.unigram_counts[_BOUNDARY_ID] + 1.0
        object.__setattr__(self, "_unigram", uni / uni.sum())

    def ids(self, words: Sequence[str]) -> np.ndarray:
        """int64 ids of lookup keys (unknown words: 1)."""
        index = self._index
        return np.array([index.get(w, _UNKNOWN_ID) for w in words], dtype=np.int64)

    def log_prob(self, prev: np.ndarray, nxt: np.ndarray) -> np.ndarray:
        """float64 log P(nxt | prev) for broadcastable int64 id arrays."""
        prev, nxt = np.broadcast_arrays(np.asarray(prev, dtype=np.int64), np.asarray(nxt, dtype=np.int64))
        w = len(self.words)
        keys = prev * w + nxt
        at = np.minimum(np.searchsorted(self.bigram_keys, keys), max(len(self.bigram_keys) - 1, 0))
        count = np.where(self.bigram_keys[at] == keys, self.bigram_counts[at], 0) if len(self.bigram_keys) \
            else np.zeros(keys.shape)
        hist = self.history_counts[prev].astype(np.float64)
        seen = hist > 0
        direct = np.where(seen, np.maximum(count - self.discount, 0) / np.maximum(hist, 1), 0.0)
        return np.log(direct + self._backoff[prev] * self._unigram[nxt])

    def save(self, path: str | Path) -> None:
        np.savez_compressed(path, words=np.array(self.words), unigram_counts=self.unigram_counts,
                            history_counts=self.history_counts, bigram_keys=self.bigram_keys,
                            bigram_counts=self.bigram_counts.astype(np.int32),
                            discount=np.array(self.discount))

    @classmethod
    def load(cls, path: str | Path) -> BigramModel:
        with np.load(path, allow_pickle=False) as z:
            return cls(tuple(str(w) for w in z["words"]), z["unigram_counts"].astype(np.int64),
                       z["history_counts"].astype(np.int64), z["bigram_keys"].astype(np.int64),
                       z["bigram_counts"].astype(np.int64), float(z["discount"]))


@lru_cache(maxsize=1)
def bundled_bigrams() -> BigramModel:
    """The bundled public bigram model (see the module docstring)."""
    with resources.as_file(resources.files("embedanon.privacy").joinpath("data", "bigrams_en.npz")) as path:
        return BigramModel.load(path)


_SENTENCE_END = re.compile(r"[.?!\n]+")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


def text_sentences(texts: Iterable[str]) -> Iterator[list[str]]:
    """Sentences of lookup keys of ``texts`` (split at ``.``, ``?``, ``!`` and line breaks), for
    :func:`train_bigrams` on text an attacker holds."""
    for text in texts:
        for sentence in _SENTENCE_END.split(text):
            words = [lookup_key(w) for w in _WORD.findall(sentence)]
            if words:
                yield words


def train_bigrams(sentences: Iterable[Sequence[str]], *, min_count: int = 1,
                  min_word_count: int = 1, discount: float = 0.75) -> BigramModel:
    """Count a bigram model over sentences of lookup keys.

    Args:
        sentences: each a sequence of words (the boundary is added at both ends).
        min_count: bigrams seen fewer times are pruned (their mass goes to the back-off).
        min_word_count: words seen fewer times become ``<unk>``.
        discount: the absolute discount D.
    """
    min_count = positive_int("min_count", min_count)
    word_counts: Counter[str] = Counter()
    stored: list[list[str]] = []
    for sentence in sentences:
        words = list(sentence)
        word_counts.update(words)
        stored.append(words)
    vocab = [BOUNDARY, UNKNOWN] + sorted(w for w, c in word_counts.items()
                                         if c >= min_word_count and w not in (BOUNDARY, UNKNOWN))
    index = {w: i for i, w in enumerate(vocab)}
    w = len(vocab)
    unigram = np.zeros(w, dtype=np.int64)
    pair_counts: Counter[int] = Counter()
    for words in stored:
        ids = [_BOUNDARY_ID] + [index.get(x, _UNKNOWN_ID) for x in words] + [_BOUNDARY_ID]
        for i in ids[1:]:
            unigram[i] += 1
        pair_counts.update(a * w + b for a, b in zip(ids[:-1], ids[1:], strict=False))
    if not pair_counts:
        raise ConfigError("cannot train a bigram model on no text")
    keys = np.fromiter(pair_counts.keys(), dtype=np.int64, count=len(pair_counts))
    counts = np.fromiter(pair_counts.values(), dtype=np.int64, count=len(pair_counts))
    history = np.bincount(keys // w, weights=counts, minlength=w).astype(np.int64)
    keep = counts >= min_count
    order = np.argsort(keys[keep])
    return BigramModel(tuple(vocab), unigram, history, keys[keep][order], counts[keep][order], discount)


@dataclass(frozen=True, slots=True)
class Transitions:
    """The log transition scores of one lattice (one sentence, boundaries at both ends), computed
    once for both decoders.

    Attributes:
        first: float64 (m_0,) log P(candidate | sentence start).
        steps: per position i >= 1, float64 (m_{i-1}, m_i) log P(candidate j | candidate k).
        last: float64 (m_{n-1},) log P(sentence end | candidate).
    """

    first: np.ndarray
    steps: tuple[np.ndarray, ...]
    last: np.ndarray

    @classmethod
    def of(cls, states: Sequence[np.ndarray], model: BigramModel) -> Transitions:
        """Every transition of the lattice from one :meth:`BigramModel.log_prob` call (the same
        numbers as a call per position: the law is elementwise; tested)."""
        sizes = [len(s) for s in states]
        boundary = np.array([_BOUNDARY_ID], dtype=np.int64)
        prev = [boundary.repeat(sizes[0])]
        nxt = [np.asarray(states[0], dtype=np.int64)]
        for i in range(1, len(states)):
            prev.append(np.repeat(states[i - 1], sizes[i]))
            nxt.append(np.tile(states[i], sizes[i - 1]))
        prev.append(np.asarray(states[-1], dtype=np.int64))
        nxt.append(boundary.repeat(sizes[-1]))
        scores = model.log_prob(np.concatenate(prev), np.concatenate(nxt))
        cuts = np.cumsum([len(p) for p in prev])[:-1]
        parts = np.split(scores, cuts)
        steps = tuple(parts[i].reshape(sizes[i - 1], sizes[i]) for i in range(1, len(states)))
        return cls(parts[0], steps, parts[-1])


def viterbi(emissions: Sequence[np.ndarray], states: Sequence[np.ndarray], model: BigramModel, *,
            transitions: Transitions | None = None) -> list[int]:
    """Most probable path through a lattice (one sentence, boundaries at both ends).

    Args:
        emissions: per position, float64 (m_i,) log P(y_i | candidate).
        states: per position, int64 (m_i,) bigram-model ids of the candidates.
        model: the transition model.
        transitions: the lattice's :class:`Transitions` when the caller has them (the same
            numbers ``model`` gives; computed here otherwise).

    Returns:
        The chosen candidate index at each position (the lowest index among exact ties).
    """
    if len(emissions) != len(states):
        raise ValueError("need one state array per emission array")
    if not emissions:
        return []
    t = Transitions.of(states, model) if transitions is None else transitions
    score = t.first + emissions[0]
    back: list[np.ndarray] = []
    for i in range(1, len(states)):
        total = score[:, None] + t.steps[i - 1]
        best = np.argmax(total, axis=0)
        back.append(best)
        score = total[best, np.arange(len(states[i]))] + emissions[i]
    score = score + t.last
    path = [int(np.argmax(score))]
    for best in reversed(back):
        path.append(int(best[path[-1]]))
    return path[::-1]


def forward_backward(emissions: Sequence[np.ndarray], states: Sequence[np.ndarray],
                     model: BigramModel, *, transitions: Transitions | None = None) -> list[int]:
    """The candidate of highest posterior marginal at each position (one sentence, boundaries at
    both ends): the decoder that maximises the expected number of words right, where Viterbi
    maximises the chance of the whole sentence being right.

    Args and ties as :func:`viterbi`; sums run in log space, so no underflow.
    """
    if len(emissions) != len(states):
        raise ValueError("need one state array per emission array")
    if not emissions:
        return []
    n = len(states)
    t = Transitions.of(states, model) if transitions is None else transitions
    trans = t.steps
    alpha = [t.first + emissions[0]]
    for i in range(1, n):
        alpha.append(_logsumexp(alpha[-1][:, None] + trans[i - 1], axis=0) + emissions[i])
    beta = [t.last]
    for i in range(n - 1, 0, -1):
        beta.append(_logsumexp(trans[i - 1] + (emissions[i] + beta[-1])[None, :], axis=1))
    beta.reverse()
    return [int(np.argmax(a + b)) for a, b in zip(alpha, beta, strict=True)]


def _logsumexp(values: np.ndarray, axis: int) -> np.ndarray:
    top = np.max(values, axis=axis, keepdims=True)
    return np.squeeze(top, axis=axis) + np.log(np.sum(np.exp(values - top), axis=axis))


@dataclass(frozen=True, slots=True)
class ContextualFigure:
    """Top-1 recovery of in-vocabulary words by the contextual and the context-free attacker.

    Attributes:
        tokens: in-vocabulary word tokens scored.
        contextual_hits: tokens the forward-backward decoder gets right (the headline: it
            maximises the expected number of words right).
        viterbi_hits: tokens the Viterbi path (the most probable sentence) gets right.
        context_free_hits: tokens the best context-free candidate (lowest id among ties) gets right.
        in_lattice: tokens whose original is among the m candidates (the contextual ceiling).
        candidates: m.
    """

    tokens: int
    contextual_hits: int
    context_free_hits: int
    in_lattice: int
    candidates: int
    viterbi_hits: int = 0

    def as_dict(self) -> dict[str, float | int]:
        n = self.tokens or float("nan")
        return {"tokens": self.tokens, "contextual_top1": self.contextual_hits / n,
                "viterbi_top1": self.viterbi_hits / n,
                "context_free_top1": self.context_free_hits / n, "in_lattice": self.in_lattice / n,
                "candidates": self.candidates}


def contextual_attack(documents: Sequence[Sequence[Sequence[Any]]], attack: PosteriorAttack,
                      model: BigramModel, *, candidates: int = 10,
                      targets: Callable[[Any], int] | None = None) -> ContextualFigure:
    """Decode every sentence with :func:`forward_backward` (and :func:`viterbi`) and score the
    in-vocabulary words, or the slots ``targets`` names.

    Args:
        documents: sentences of slots per document (see
            :func:`~embedanon.privacy.attacks.documents.corpus_slots`).
        attack: the context-free posterior over a vocabulary (the embedding's own words, rows
            being word ids; or a wider one, :func:`~.oov.extended_vocabulary`); its prior only
            ranks the lattice candidates, the bigram model is the context prior.
        model: the public bigram model (or one counted over the attacker's text).
        candidates: m, candidates kept per position.
        targets: each slot's original as a row of ``attack``'s vocabulary: -1 when the
            vocabulary lacks it (scored, never right), -2 for a slot not scored. None: the
            in-vocabulary words (``slot.original_id``, the others not scored).
    """
    m = positive_int("candidates", candidates)
    words = attack.vocabulary.words
    prior = attack.vocabulary.prior
    tokens = ctx = free = lattice = best_path = 0
    released = {s.released_id for sentences in documents for sentence in sentences for s in sentence
                if s.released_id >= 0}
    if released:  # one batched pass over every replacement instead of one per sentence
        attack.scores(np.array(sorted(released), dtype=np.int64))
    for sentences in documents:
        for sentence in sentences:
            slots = [s for s in sentence if s.released_id >= 0]
            if not slots:
                continue
            best = attack.best(np.array([s.released_id for s in slots], dtype=np.int64), m)
            emissions, states, rows_of = [], [], []
            for rows, score in best:
                if len(rows) == 0:  # no pre-image: an unknown word, uninformative emission
                    rows, emission = np.array([-1], dtype=np.int64), np.zeros(1)
                    lm_ids = np.array([_UNKNOWN_ID], dtype=np.int64)
                else:
                    emission = np.log(score) - np.log(prior[rows])
                    lm_ids = model.ids([words[r] for r in rows.tolist()])
                emissions.append(emission)
                states.append(lm_ids)
                rows_of.append(rows)
            transitions = Transitions.of(states, model)  # one set of numbers for both decoders
            path = viterbi(emissions, states, model, transitions=transitions)
            marginal = forward_backward(emissions, states, model, transitions=transitions)
            for slot, rows, choice, pick in zip(slots, rows_of, path, marginal, strict=True):
                truth = slot.original_id if targets is None else targets(slot)
                if truth < 0 and (targets is None or truth == -2):
                    continue
                tokens += 1
                if truth < 0:  # the vocabulary lacks the original: counted, never right
                    continue
                best_path += int(rows[choice] == truth)
                ctx += int(rows[pick] == truth)
                free += int(rows[0] == truth)
                lattice += int(truth in rows.tolist())
    return ContextualFigure(tokens, ctx, free, lattice, m, best_path)
