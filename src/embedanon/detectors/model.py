"""The shipped, trained PII detector (``model``): a token classifier that needs only numpy.

Each fine token of the text (see :mod:`embedanon.detectors.features`) is scored by a linear
softmax over 2·L + 1 BIO classes (``O``, ``B-NAME``, ``I-NAME``, ...): hashed sparse features plus
the MiniLM input-embedding rows of the previous, own and next word. A constrained first-order
Viterbi decode (``I-X`` only after ``B-X`` / ``I-X``) turns the per-token probabilities into spans.
``threshold`` moves the decision: a token needs an entity probability of about ``threshold`` to
leave ``O``.

Training (:func:`fit`) is minibatch AdaGrad on the softmax loss with an L2 pull toward a prior
(zero for the shipped model; the shipped weights for domain adaptation, so a handful of documents
re-weights the model instead of replacing it). Weights are stored as float16 in ``weights.npz``
next to a ``manifest.json`` (data sources, seeds, held-out sets, metrics).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError, InputError
from .base import LABELS, Span
from .features import OWN_SLOTS, Featurizer, fold, tokenize
from .registry import DETECTORS

CLASSES: tuple[str, ...] = ("O", *(f"{p}-{label}" for label in LABELS for p in ("B", "I")))
_B = {label: 1 + 2 * i for i, label in enumerate(LABELS)}
EMBEDDING = "minilm-words"


def _transitions() -> np.ndarray:
    """float64 (C, C): 0 where ``prev -> cur`` is a valid BIO move, -inf where not."""
    c = len(CLASSES)
    trans = np.zeros((c, c))
    for cur in range(c):
        if CLASSES[cur].startswith("I-"):
            label = CLASSES[cur][2:]
            ok = {_B[label], _B[label] + 1}
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


_I_OF = np.array([k for k in range(len(CLASSES))]) + np.array([0, *([1, 0] * len(LABELS))])  # class -> its I


def best_path(logp: np.ndarray) -> np.ndarray:
    """Same path as :func:`viterbi`, faster in the common case.

    Transitions are only 0 or -inf, so when the per-token argmax is already a valid BIO path it
    is the constrained optimum; only otherwise is the Viterbi recursion run."""
    path = np.argmax(logp, axis=1)
    inside = (path > 0) & (path % 2 == 0)  # I-X classes have even ids
    if inside.any():
        prev = np.r_[0, path[:-1]]
        if not np.all(_I_OF[prev[inside]] == path[inside]):
            return viterbi(logp)
    return path


@dataclass
class Hidden:
    """An optional hidden layer added to the linear logits: ``relu(a) @ out``.

    ``a = sum(sparse[fold_ids(ids)]) + [prev, own, next rows] @ dense + bias``: the token's hashed
    sparse ids folded into a smaller table, and the same embedding rows the linear part reads.
    A linear model only sums what the spelling and the context say; hidden units can learn their
    conjunctions ("a name slot, a capitalized word, not a common word").

    Attributes:
        sparse: float32 (hidden_buckets, H) embeddings of the folded sparse ids (row 0 stays zero).
        dense: float32 (3 * d, H).
        bias: float32 (H,).
        out: float32 (H, C).
    """

    sparse: np.ndarray
    dense: np.ndarray
    bias: np.ndarray
    out: np.ndarray

    @property
    def units(self) -> int:
        return int(self.bias.shape[0])

    @property
    def buckets(self) -> int:
        return int(self.sparse.shape[0])


def fold_ids(ids: np.ndarray, buckets: int) -> np.ndarray:
    """Sparse ids folded into ``[0, buckets)``: id 0 (padding, dropped) stays 0, others ``1 ...``."""
    return np.where(ids == 0, 0, ids % (buckets - 1) + 1)


@dataclass
class Weights:
    """Parameters of the token classifier.

    Attributes:
        sparse: float32 (buckets, C) weights of hashed features (row 0 stays zero).
        dense: float32 (3 * d, C) weights of the previous/own/next embedding rows.
        bias: float32 (C,).
        clusters: float32 centroid arrays (K, d) used for cluster-id features.
        manifest: JSON-able facts (training data, seeds, metrics, default threshold).
        hidden: an optional hidden layer (None: the linear model).
    """

    sparse: np.ndarray
    dense: np.ndarray
    bias: np.ndarray
    clusters: list[np.ndarray]
    manifest: dict[str, Any] = field(default_factory=dict)
    hidden: Hidden | None = None

    def save(self, directory: str | Path) -> Path:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, np.ndarray] = {
            "sparse": self.sparse.astype(np.float16),
            "dense": self.dense.astype(np.float16),
            "bias": self.bias.astype(np.float32),
        }
        arrays.update({f"clusters{i}": c.astype(np.float16) for i, c in enumerate(self.clusters)})
        if self.hidden is not None:
            arrays.update(
                hidden_sparse=self.hidden.sparse.astype(np.float16),
                hidden_dense=self.hidden.dense.astype(np.float16),
                hidden_bias=self.hidden.bias.astype(np.float32),
                hidden_out=self.hidden.out.astype(np.float32),
            )
        np.savez_compressed(directory / "weights.npz", **arrays)  # type: ignore[arg-type]
        manifest = dict(
            self.manifest,
            classes=list(CLASSES),
            buckets=int(self.sparse.shape[0]),
            embedding=EMBEDDING,
            clusters=[int(len(c)) for c in self.clusters],
        )
        manifest.pop("hidden", None)
        if self.hidden is not None:
            manifest["hidden"] = {"units": self.hidden.units, "buckets": self.hidden.buckets}
        (directory / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        return directory

    @classmethod
    def load(cls, directory: str | Path) -> Weights:
        directory = Path(directory)
        weights, manifest = directory / "weights.npz", directory / "manifest.json"
        if not weights.is_file() or not manifest.is_file():
            raise ConfigError(f"model path {str(directory)!r} has no weights.npz and manifest.json")
        meta = json.loads(manifest.read_text(encoding="utf-8"))
        if meta.get("classes") != list(CLASSES):
            raise ConfigError(f"model at {str(directory)!r} was trained for other labels")
        with np.load(weights) as data:
            clusters = [data[f"clusters{i}"].astype(np.float32) for i in range(len(meta["clusters"]))]
            hidden = None
            if "hidden" in meta:
                if "hidden_sparse" not in data.files:
                    raise ConfigError(f"model at {str(directory)!r} lacks its hidden-layer weights")
                parts = ("sparse", "dense", "bias", "out")
                hidden = Hidden(*(data[f"hidden_{k}"].astype(np.float32) for k in parts))
            return cls(
                data["sparse"].astype(np.float32),
                data["dense"].astype(np.float32),
                data["bias"].astype(np.float32),
                clusters,
                meta,
                hidden,
            )


def shipped_path() -> Path:
    """Directory of the model shipped in the package."""
    return Path(str(resources.files("embedanon.detectors") / "data" / "model"))


#: Manifest flags that change the features (unlike decode rules, a model needs the ones it was
#: trained with): ``frequency_bands`` (round 25, :func:`public_ranks`) and ``band_context``
#: (round 26: the band crossed with the neighbouring words and the shape; needs the first) and
#: ``absent_spelling`` (round 27: affixes and trigrams of absent words apart; needs the first) and
#: ``absent_affixes`` (round 28: a second, absent-only copy of their affixes; needs the first).
FEATURE_FLAGS = ("frequency_bands", "band_context", "absent_spelling", "absent_affixes")


@lru_cache(maxsize=1)
def _public_words() -> tuple[str, ...]:
    """The shipped public English list (wordfreq), most frequent first (as listed, not folded)."""
    from embedanon.privacy.prior import word_frequencies

    return tuple(w for w, _ in sorted(word_frequencies().items(), key=lambda kv: -kv[1]))


@lru_cache(maxsize=1)
def public_ranks() -> dict[str, int]:
    """{folded word: rank} in the shipped public English list (wordfreq; 0 = most frequent;
    a rank counts distinct folded words)."""
    ranks: dict[str, int] = {}
    for word in _public_words():
        ranks.setdefault(fold(word), len(ranks))
    return ranks


def make_featurizer(clusters: Sequence[np.ndarray], buckets: int, *,
                    frequency_bands: bool = False, band_context: bool = False,
                    absent_spelling: bool = False, absent_affixes: bool = False) -> Featurizer:
    """Featurizer over the shipped MiniLM embedding (the dense table is shared by train and detect).

    Args:
        frequency_bands: add each word's band in the public frequency list (a model trained with
            it says so in its manifest, see :data:`FEATURE_FLAGS`).
        band_context: also cross the band with the neighbouring words and the word's shape
            (needs ``frequency_bands``; see :class:`~.features.Featurizer`).
        absent_spelling: learn the affixes and trigrams of words absent from the list apart
            (needs ``frequency_bands``; see :class:`~.features.Featurizer`).
        absent_affixes: add an absent-only copy of the affixes of words absent from the list
            (needs ``frequency_bands``; see :class:`~.features.Featurizer`).

    Raises:
        ConfigError: a flag that needs ``frequency_bands`` without it (the featurizer checks).
    """
    from ..vectors.defaults import load_embedding

    store = load_embedding(EMBEDDING)
    word_rank = None
    if frequency_bands:
        get = public_ranks().get
        word_rank = lambda key: get(key, -1)  # noqa: E731
    return Featurizer(
        buckets=buckets,
        vocab_rows=store.vectors,
        row_of=store.id_of,
        compose=store.compose,
        clusters=clusters,
        word_rank=word_rank,
        band_context=band_context,
        absent_spelling=absent_spelling,
        absent_affixes=absent_affixes,
    )


def average_weights(members: Sequence[Weights]) -> Weights:
    """The mean of several linear models that read the same features (a "weight soup").

    The logits are linear in the sparse table, the dense blocks and the bias, so the mean of the
    weights scores every token with exactly the mean of the members' logits: an ensemble at the
    cost of one model. Members must share their clusters, buckets and :data:`FEATURE_FLAGS`
    (runs of one recipe that differ in training seed; ``train_detector.py --cluster-seed``);
    hidden layers are refused (their units do not line up between runs). The manifest is the
    first member's, without its metrics, plus ``"averaged": <number of members>``.

    Raises:
        ConfigError: fewer than two members, or members that read different features.
    """
    if len(members) < 2:
        raise ConfigError(f"averaging needs at least two models, got {len(members)}")
    first = members[0]
    for k, other in enumerate(members[1:], start=2):
        if first.hidden is not None or other.hidden is not None:
            raise ConfigError("models with a hidden layer cannot be averaged")
        if other.sparse.shape != first.sparse.shape or other.dense.shape != first.dense.shape:
            raise ConfigError(f"model {k} has other buckets or embedding than model 1")
        if len(other.clusters) != len(first.clusters) or not all(
            np.array_equal(a, b) for a, b in zip(other.clusters, first.clusters, strict=True)
        ):
            raise ConfigError(f"model {k} has other clusters than model 1 (train with one --cluster-seed)")
        if feature_flags(other.manifest) != feature_flags(first.manifest):
            raise ConfigError(f"model {k} has other feature flags than model 1")
    manifest = {key: v for key, v in first.manifest.items() if key != "metrics"}
    manifest["averaged"] = len(members)

    def mean(part: str) -> np.ndarray:
        total = np.zeros_like(getattr(first, part), dtype=np.float32)
        for m in members:
            total += getattr(m, part)
        return total / np.float32(len(members))

    return Weights(
        mean("sparse"),
        mean("dense"),
        mean("bias"),
        [c.copy() for c in first.clusters],
        manifest,
    )


def feature_flags(manifest: dict[str, Any]) -> dict[str, bool]:
    """The :data:`FEATURE_FLAGS` a manifest sets (missing: off), as keyword arguments of
    :func:`make_featurizer`."""
    return {flag: bool(manifest.get(flag)) for flag in FEATURE_FLAGS}


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
                                          **feature_flags(manifest))
        c = len(CLASSES)
        d = self.featurizer.dim
        blocks = list(self.weights.dense.reshape(3, d, c))
        hidden = self.weights.hidden
        if hidden is not None:
            blocks += list(hidden.dense.reshape(3, d, hidden.units))
        self._stacked = np.ascontiguousarray(np.concatenate(blocks, axis=1))  # (d, 3C [+ 3H])
        self._proj = np.zeros((0, self._stacked.shape[1]), dtype=np.float32)
        self._n_proj = 0

    def probabilities(self, text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Token starts, ends (int64 (T,)) and class probabilities float32 (T, C)."""
        toks = tokenize(text)
        ids, rows = self.featurizer.featurize(text, toks)
        table = self.featurizer.dense_table
        if len(table) > self._n_proj:
            self._project(table)
        c = len(CLASSES)
        proj = self._proj
        logits = sparse_sum(self.weights.sparse, ids) + self.weights.bias
        logits += proj[rows[:, 0], :c] + proj[rows[:, 1], c : 2 * c] + proj[rows[:, 2], 2 * c : 3 * c]
        hidden = self.weights.hidden
        if hidden is not None:
            o, h = 3 * c, hidden.units
            a = sparse_sum(hidden.sparse, fold_ids(ids, hidden.buckets)) + hidden.bias
            a += proj[rows[:, 0], o : o + h] + proj[rows[:, 1], o + h : o + 2 * h]
            a += proj[rows[:, 2], o + 2 * h :]
            logits += np.maximum(a, 0.0) @ hidden.out
        return toks.starts, toks.ends, softmax(logits)

    def _project(self, table: np.ndarray) -> None:
        # Dense rows enter the logits only through (row @ W_block): project each row once.
        from threadpoolctl import threadpool_limits

        if len(table) > len(self._proj):
            grown = np.zeros((2 * len(table), self._proj.shape[1]), dtype=np.float32)
            grown[: self._n_proj] = self._proj[: self._n_proj]
            self._proj = grown
        new_rows = table[self._n_proj :]
        if len(new_rows) > 64:  # the vocabulary, once: one BLAS product on one thread
            with threadpool_limits(1):
                self._proj[self._n_proj : len(table)] = new_rows @ self._stacked
        else:  # a few composed words: no BLAS call, no thread-pool round trip
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
        rules = self.weights.manifest
        case_aware = bool(rules.get("case_aware"))
        if rules.get("coordination"):
            spans = extend_coordinations(text, starts, ends, spans, case_aware=case_aware)
        if rules.get("speaker_turns"):
            spans = name_speaker_turns(text, spans, score=self.threshold, source=self.name,
                                       two_word_speakers=bool(rules.get("line_lists")))
        if rules.get("propagation"):
            spans = propagate_names(text, starts, ends, spans, case_aware=case_aware)
        if rules.get("inverted_names"):
            spans = join_inverted_names(text, spans, case_aware=case_aware)
        if rules.get("honorifics"):
            spans = name_after_honorifics(text, spans, score=self.threshold, source=self.name)
        if rules.get("lists"):
            spans = name_list_items(text, spans, line_lists=bool(rules.get("line_lists")))
        if rules.get("particles"):
            spans = join_name_particles(text, spans)
        if rules.get("email_names"):
            spans = name_before_own_email(text, spans, score=self.threshold, source=self.name)
        if rules.get("joined_names"):
            spans = name_joined_words(text, starts, ends, proba, spans, source=self.name)
        if rules.get("name_pairs"):
            spans = complete_name_pairs(text, spans)
        if rules.get("whole_words"):
            spans = widen_to_whole_words(text, spans)
        return spans


def _probability(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < value < 1.0:
        raise ConfigError(f"{name} must be a number in (0, 1), got {value!r}")
    return float(value)


DETECTORS.add("model", ModelDetector)

#: manifest flags of the decode rules run after Viterbi (``ModelDetector.detect``). They run in the
#: order coordination, speaker_turns, propagation, inverted_names, honorifics, lists, particles,
#: email_names, whole_words; ``line_lists`` widens lists and speaker_turns (round 17);
#: ``case_aware`` is not a rule of its own but widens coordination, propagation and inverted_names
#: to lower-case, upper-case and irregularly cased text (round 15)
DECODE_RULES = ("coordination", "propagation", "inverted_names", "honorifics", "case_aware", "whole_words",
                "speaker_turns", "lists", "particles", "email_names", "line_lists", "joined_names",
                "name_pairs")

_CONNECTORS = frozenset({"and", "or", "&"})
#: capitalized words that are not names when they stand next to a coordination
_NOT_NAMES_TEXT = (
    "the a an i we you he she they it this that these those my our your his her their mr mrs ms dr "
    "prof inc ltd llc corp co group company sons"
)
_NOT_NAMES = frozenset(_NOT_NAMES_TEXT.split())


def _covered_tokens(starts: np.ndarray, ends: np.ndarray, spans: Iterable[Span]) -> np.ndarray:
    """bool (T,): the tokens that overlap any of the spans."""
    covered = np.zeros(len(starts), dtype=bool)
    for sp in spans:
        covered |= (starts < sp.end) & (ends > sp.start)
    return covered


def _overlapping(spans: Iterable[Span], a: int, b: int) -> list[Span]:
    """The spans that overlap the characters [a, b)."""
    return [sp for sp in spans if sp.start < b and a < sp.end]


def _capitalized(word: str) -> bool:
    """Upper-case first letter, not all capitals (one letter counts): how a name looks in mixed case."""
    return word[0].isupper() and not (word.isupper() and len(word) > 1)


def _title_word(word: str) -> bool:
    return len(word) > 1 and word[0].isupper() and word[1:].islower() and word.lower() not in _NOT_NAMES


#: lower-case words that open a coordination without being part of it (``both ana and bo``)
_QUANTIFIERS = frozenset({"both", "either", "neither", "between", "all"})


def _text_case(text: str) -> str:
    """'lower' for a text without capitals, 'upper' for one without lower-case letters, else 'mixed'."""
    if text.lower() == text:
        return "lower"
    if text.upper() == text:
        return "upper"
    return "mixed"


def extend_coordinations(
    text: str, starts: np.ndarray, ends: np.ndarray, spans: list[Span], *, case_aware: bool = False
) -> list[Span]:
    """Coordinated proper nouns share their type: in ``A and B`` / ``A, B`` / ``A or B`` where one
    side is a NAME span and the other side is one or two title-case words that are in no span and
    not followed (or, on the left, preceded) by another title-case word, the other side becomes a
    NAME span too, with the score of its partner (a bare comma does not link: ``Yesterday, Ana
    came``). Case-sensitive, so lower- and upper-case texts are left as decoded, unless
    ``case_aware``: then in a text without capitals the other side is one or two lower-case words
    (not in the stop lists) followed by no further word (``czermak and nomthandazo.``; not
    ``kimura and shibase started``). Upper-case texts stay as decoded either way.

    Args:
        text: the text.
        starts, ends: token offsets (``tokenize``).
        spans: decoded spans, sorted and disjoint.
        case_aware: also texts without capitals (round 15).

    Returns:
        The spans with the added names, sorted.
    """
    if not spans:
        return spans
    words = [text[a:b] for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
    n = len(words)
    taken = _covered_tokens(starts, ends, spans)
    tok_of = {int(a): i for i, a in enumerate(starts.tolist())}
    end_of = {int(b): i for i, b in enumerate(ends.tolist())}
    added: list[Span] = []
    case = _text_case(text) if case_aware else "mixed"
    if case == "lower":
        def fits(w: str) -> bool:
            return (len(w) > 1 and w.isalpha() and w not in _NO_PROPAGATION
                    and w not in _AFTER_TITLE_LOWER_NOT_NAMES and w not in _QUANTIFIERS)

        def phrase_goes_on(w: str) -> bool:  # a lower-case name ends the list ('and shibase started': no)
            return w.isalpha() and w not in _QUANTIFIERS
    else:  # in upper-case text a name looks like any other word ('INNUENDO AND BASELESS CONCLUSIONS')
        def fits(w: str) -> bool:
            return _title_word(w)

        def phrase_goes_on(w: str) -> bool:
            return w[:1].isupper()

    def run(i: int, step: int) -> list[int]:
        """Up to two adjacent free fitting tokens from token i in direction step."""
        out: list[int] = []
        while 0 <= i < n and len(out) < 2 and not taken[i] and fits(words[i]):
            out.append(i)
            i += step
        if not out or (0 <= i < n and phrase_goes_on(words[i])):
            return []  # part of a longer capitalized phrase (an organization, a title): leave it
        return out

    for sp in spans:
        if sp.label != "NAME":
            continue
        first, last = tok_of.get(sp.start), end_of.get(sp.end)
        if first is None or last is None:
            continue
        for step, edge in ((1, last), (-1, first)):
            j = edge + step
            if step == 1 and 0 <= j < n and words[j] == ",":  # 'A, and B' (a bare comma is not enough)
                j += step
            if not (0 <= j < n and words[j].lower() in _CONNECTORS):
                continue
            j += step
            if step == -1 and 0 <= j < n and words[j] == ",":
                j += step
            got = run(j, step)
            if got:
                a, b = min(got), max(got)
                if b > a and starts[b] != ends[a] + 1:  # two words: only separated by one space
                    continue
                taken[a : b + 1] = True
                added.append(Span(int(starts[a]), int(ends[b]), "NAME", sp.score, sp.source))
    return sorted(spans + added, key=lambda s: s.start) if added else spans


#: words a NAME span may contain that never mark other occurrences (function words, titles)
_NO_PROPAGATION_TEXT = (
    "and or of de da di del van von der den le la du al el bin ibn st jr sr ii iii iv md phd rn "
    "is was be to in on at by for with from as but not no so if may will can june april august"
)
_NO_PROPAGATION = _NOT_NAMES | frozenset(_NO_PROPAGATION_TEXT.split())


def _shape(word: str) -> str | None:
    """'title' / 'upper' / 'lower' for a purely alphabetic word, else None."""
    if not word.isalpha():
        return None
    if word.islower():
        return "lower"
    if word.isupper():
        return "upper" if len(word) > 1 else "title"
    if word[0].isupper() and word[1:].islower():
        return "title"
    return None


def propagate_names(
    text: str, starts: np.ndarray, ends: np.ndarray, spans: list[Span], *, case_aware: bool = False
) -> list[Span]:
    """A name found once is a name everywhere in the same text: every word of a NAME span
    (alphabetic, two letters or more, not in ``_NO_PROPAGATION``) marks its other occurrences that
    no span covers as NAME spans, with the score of the span it came from. Shapes must agree: a
    title- or upper-case word marks title- and upper-case occurrences, a lower-case word only
    lower-case ones (a name ``Will`` leaves the verb ``will`` alone). With ``case_aware`` an
    irregularly cased word (``COmfort``, ``McKay``) marks its occurrences of the very same spelling.
    Nothing outlives the call.

    Args:
        text: the text.
        starts, ends: token offsets (``tokenize``).
        spans: decoded spans, sorted and disjoint.
        case_aware: irregularly cased words propagate too, by exact spelling (round 15).

    Returns:
        The spans with the added names, sorted.
    """
    found: dict[tuple[str, bool | None], Span] = {}  # (word, capitalized? / None: exact) -> its span
    for sp in spans:
        if sp.label != "NAME":
            continue
        for w in re.findall(r"[^\W\d_]+", text[sp.start : sp.end]):
            shape = _shape(w)
            if len(w) < 2 or w.lower() in _NO_PROPAGATION:
                continue
            if shape is not None:
                found.setdefault((w.lower(), shape != "lower"), sp)
            elif case_aware:
                found.setdefault((w, None), sp)
    if not found:
        return spans
    covered = _covered_tokens(starts, ends, spans)
    added: list[Span] = []
    for i in np.flatnonzero(~covered).tolist():
        a, b = int(starts[i]), int(ends[i])
        w = text[a:b]
        shape = _shape(w)
        if shape is None:
            partner = found.get((w, None)) if case_aware and w.isalpha() else None
        else:
            partner = found.get((w.lower(), shape != "lower"))
        if partner is not None:
            added.append(Span(a, b, "NAME", partner.score, partner.source))
    return sorted(spans + added, key=lambda s: s.start) if added else spans


_LABELS_TEXT = (
    "name|patient|pt|student|pupil|client|resident|member|author|from|to|cc|attn|contact|parent|"
    "guardian|teacher|tutor|provider|physician|doctor|employee|customer|applicant"
)
_WORD = r"[^\W\d_](?:[^\W\d_]|['-](?=[^\W\d_]))*"
#: ``LABEL: A, B`` on a line of its own (A and B single words)
_INVERTED = re.compile(
    rf"^[ \t]*(?:{_LABELS_TEXT})(?:[ \t]+name)?[ \t]*:[ \t]*({_WORD})[ \t]*,[ \t]*({_WORD})[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)


def _case(word: str) -> str | None:
    """The letter-case shape of a word whose hyphen / apostrophe parts are alphabetic."""
    parts = [p for p in re.split(r"['-]", word) if p]
    shapes = {_shape(p) for p in parts}
    return shapes.pop() if len(shapes) == 1 else None


def join_inverted_names(text: str, spans: list[Span], *, case_aware: bool = False) -> list[Span]:
    """``NAME: Okafor, Patience``: a line that is, after a header label (``name``, ``patient``,
    ``student`` ... optionally followed by ``name``, then ``:``), exactly ``A, B`` with single
    words A and B, where one is exactly a NAME span (A's may include the comma) and the other is in
    no span, has the same case shape and is not a function word, becomes one NAME span ``A, B``
    with its partner's score. With ``case_aware`` the case shapes need only agree on the first
    letter (``Adu, COmfort``, ``Ntanzi, S'fiso-sibongile``).

    Args:
        text: the text.
        spans: spans, sorted and disjoint.
        case_aware: compare first letters, not whole case shapes (round 15).

    Returns:
        The spans with the joined names, sorted.
    """
    if not spans or "," not in text or ":" not in text:
        return spans
    out = list(spans)
    for m in _INVERTED.finditer(text):
        (a0, a1), (b0, b1) = m.span(1), m.span(2)
        left = [i for i, sp in enumerate(out) if sp.start < a1 and a0 < sp.end]
        right = [i for i, sp in enumerate(out) if sp.start < b1 and b0 < sp.end]
        if bool(left) == bool(right) or len(left + right) != 1:
            continue  # both or neither side found already, or more than one span
        i = (left + right)[0]
        sp = out[i]
        named, free = ((a0, a1), (b0, b1)) if left else ((b0, b1), (a0, a1))
        # exactly the word; on the left also the word with its comma (the model often starts the
        # inverted name there and stops)
        tail = text[named[1] : sp.end].strip(" \t") if sp.end >= named[1] else None
        if sp.label != "NAME" or sp.start != named[0] or tail not in ("", "," if left else ""):
            continue
        other = text[free[0] : free[1]]
        if other.lower() in _NO_PROPAGATION:
            continue
        if case_aware:
            if other[0].isupper() != text[named[0]].isupper():
                continue
        else:
            shape = _case(other)
            if shape is None or shape != _case(text[named[0] : named[1]]):
                continue
        out[i] = Span(a0, b1, "NAME", sp.score, sp.source)
    return out


#: ``Mr. He``, ``mr. fu``, ``Dr Okafor``: an honorific, an optional period, one space or tab, a word
_HONORIFIC = re.compile(rf"\b(mrs|mr|ms|mx|dr|prof)\.?[ \t]({_WORD})", re.IGNORECASE)


#: words after an honorific that are not a name in any case (``Mr. and Mrs. Okafor``)
_AFTER_TITLE_NOT_NAMES = frozenset({"and", "or", "the", "a", "an", "of"})
#: lower-case words after a lower-case honorific that are not names (``the dr. said``), beside the
#: propagation stop list
_AFTER_TITLE_LOWER_TEXT = (
    "said says told asked has had would should could visit visits appointment office note notes "
    "order orders"
)
_AFTER_TITLE_LOWER_NOT_NAMES = frozenset(_AFTER_TITLE_LOWER_TEXT.split())


def name_after_honorifics(text: str, spans: list[Span], *, score: float, source: str) -> list[Span]:
    """The word right after ``Mr``, ``Mrs``, ``Ms``, ``Mx``, ``Dr`` or ``Prof`` (a period optional,
    then one space or tab) is a name whatever it spells (``Mrs. He``): when no span covers it, it is
    alphabetic (hyphen / apostrophe parts allowed), has two letters or more and is not ``and``,
    ``or``, ``the``, ``a``, ``an``, ``of``, it becomes a NAME span with ``score``. A lower-case word
    counts only in a text without any upper-case letter (``mr. fu`` in a lower-case note, not
    ``Dr. said`` nor ``a 10 ms delay``) and when it is not in the propagation stop list or
    ``_AFTER_TITLE_LOWER_NOT_NAMES`` (``the dr. said``); after an upper-case honorific only an
    upper-case word (``DR. OKAFOR``, not ``history of MS. Patient denies``).

    Args:
        text: the text.
        spans: spans, sorted and disjoint.
        score: the score of an added span (the detector's threshold).
        source: the detector name of an added span.

    Returns:
        The spans with the added names, sorted.
    """
    if not any(c in text for c in "MmDdPp"):
        return spans
    caseless = text.lower() == text  # lower-case words count only in text without capitals
    added: list[Span] = []
    for m in _HONORIFIC.finditer(text):
        a, b = m.span(2)
        word, title = m.group(2), m.group(1)
        shape = _case(word)
        if shape is None or len(word) < 2 or word.lower() in _AFTER_TITLE_NOT_NAMES:
            continue
        if shape == "lower" and (not caseless or word in _NO_PROPAGATION
                                 or word in _AFTER_TITLE_LOWER_NOT_NAMES):
            continue
        if title.isupper() and shape != "upper":  # 'history of MS. Patient denies ...'
            continue
        if _overlapping(spans, a, b):
            continue
        added.append(Span(a, b, "NAME", score, source))
    return sorted(spans + added, key=lambda s: s.start) if added else spans


#: role and section words that open a line the way a chat speaker does (``Tutor:``, ``Plan:``)
_TURN_WORDS_TEXT = (
    _LABELS_TEXT.replace("|", " ") + " user assistant agent bot system support nurse host guest moderator "
    "interviewer interviewee speaker caller operator counselor therapist clinician advisor instructor "
    "mentor mom dad mother father me q a question answer plan assessment impression history note "
    "diagnosis subjective objective procedure findings comment comments summary reason result results "
    "update edit subject re fwd warning error info example step tip date time phone email address age "
    "dob sex gender location hospital ward unit room medications allergies exam vitals mrn id ssn acct "
    "account"
)
_TURN_WORDS = frozenset(_TURN_WORDS_TEXT.split())
#: speaker words that never become names
_NOT_SPEAKERS = _TURN_WORDS | _NO_PROPAGATION
#: a line opening like a chat turn: an optional honorific, one word, then ``:``, ``>`` or `` -``
_TURN = re.compile(
    rf"^[ \t]*(?:(?:mrs|mr|ms|mx|dr|prof)\.?[ \t]+)?({_WORD})(?:[ \t]*[:>]|[ \t]+-)[ \t]",
    re.MULTILINE | re.IGNORECASE,
)
#: the same with a two-word speaker (``Raakin Talha:``), which can only vouch for a transcript
_TURN2 = re.compile(rf"^[ \t]*({_WORD}[ \t]+{_WORD})(?:[ \t]*[:>]|[ \t]+-)[ \t]", re.MULTILINE)


def name_speaker_turns(
    text: str, spans: list[Span], *, score: float, source: str, two_word_speakers: bool = False
) -> list[Span]:
    """In a transcript, the speakers are names or roles: when at least three lines open like a chat
    turn (``Word:``, ``Word>``, ``Word -``, an honorific allowed before the word) and one of their
    speakers is a NAME span or a role word (``Tutor``, ``Patient``), every other speaker word that
    opens two turns or more, is in no span, is not a role or section word (``Plan``,
    ``Assessment``) nor in the propagation stop list, and starts with a capital (any case in a text
    without capitals; upper case only in a text without lower-case letters) becomes a NAME span on
    each of its turns, with ``score``.

    Args:
        text: the text.
        spans: spans, sorted and disjoint.
        score: the score of an added span (the detector's threshold).
        source: the detector name of an added span.
        two_word_speakers: a two-word speaker holding a NAME span (``Raakin Talha:``) vouches for
            the transcript too (round 17).

    Returns:
        The spans with the added names, sorted.
    """
    if text.count("\n") < 2:
        return spans
    turns = [m.span(1) for m in _TURN.finditer(text)]
    pairs = [m.span(1) for m in _TURN2.finditer(text)] if two_word_speakers else []
    if len(turns) + len(pairs) < 3 or not turns:
        return spans

    known = [text[a:b] for a, b in turns + pairs
             if text[a:b].lower() in _TURN_WORDS
             or any(sp.label == "NAME" for sp in _overlapping(spans, a, b))]
    if not known:
        return spans
    case = _text_case(text)
    count = Counter(text[a:b] for a, b in turns)
    added: list[Span] = []
    for a, b in turns:
        w = text[a:b]
        if count[w] < 2 or w in known or len(w) < 2 or w.lower() in _NOT_SPEAKERS:
            continue
        if case == "mixed" and not _capitalized(w):
            continue
        if _overlapping(spans, a, b):
            continue
        added.append(Span(a, b, "NAME", score, source))
    return sorted(spans + added, key=lambda s: s.start) if added else spans


#: the separators of an inline list: ``, `` / ``, and `` / `` and `` / `` or `` / `` & ``
_LIST_SEP = re.compile(r",[ \t]+(?:(?:and|or)[ \t]+)?|[ \t]+(?:and|or|&)[ \t]+", re.IGNORECASE)
#: a line of a numbered or bulleted list: the marker, then the item up to the end of line, a comma,
#: a parenthesis or a spaced dash
_LIST_LINE = re.compile(r"^[ \t]*(?:\d{1,2}[.)]|[-*\u2022])[ \t]+([^\n,(]*?)[ \t]*(?:$|[,(]|[ \t]-[ \t])",
                        re.MULTILINE)
_INITIAL = re.compile(r"[^\W\d_]\.")
#: a line that lists drugs, not people (the model takes some drug names for names)
_DRUG_LIST_CUE = re.compile(r"\b(?:medications?|meds|allerg\w*|drugs?|doses?|mg|tablets?|dressings?)\b",
                            re.IGNORECASE)


def _sentence_opener(line: str, a: int, b: int) -> bool:
    """Whether line[a:b] opens a sentence and is a common English word (``Then``, ``Basically``)."""
    from embedanon.privacy.prior import word_frequencies

    before = line[:a].rstrip()
    return (not before or before[-1] in ".!?:") and line[a:b].lower() in word_frequencies()


def _item_words(words: list[str], case: str) -> bool:
    """Words that can make up a name in a list: 1-3 of them, each a fitting word or an initial."""
    if not 1 <= len(words) <= 3:
        return False
    for k, w in enumerate(words):
        if k > 0 and _INITIAL.fullmatch(w) and (w[0].islower() if case == "lower" else w[0].isupper()):
            continue
        if not re.fullmatch(_WORD, w) or w.lower() in _NO_PROPAGATION or w.lower() in _QUANTIFIERS:
            return False
        if case == "lower" and (not w.islower() or w in _AFTER_TITLE_LOWER_NOT_NAMES):
            return False
        if case == "mixed" and not _capitalized(w):
            return False
    return True


def name_list_items(text: str, spans: list[Span], *, line_lists: bool = False) -> list[Span]:
    """The items of a list of names are names: in an inline list ``A, B, C and D`` (three items or
    more, the last one after ``and`` / ``or`` / ``&``) or in a numbered / bulleted list (three lines
    or more), where at least two items and more than half of them hold a NAME span, every other item of one
    to three capitalized words or initials (lower-case words in a text without capitals; nothing in
    upper-case text) that no span touches becomes a NAME span with the score of a named item. An
    inline list on a line that speaks of drugs (``medications``, ``mg``, ``doses`` ...) is left
    alone: the model takes some drug names for names. In a text without capitals the first item
    is one word (nothing tells where a name starts); a first item that opens a sentence and is a
    common English word (``Then, Kirk and McCoy``; ``wordfreq``'s list) is no item.

    With ``line_lists`` (round 17) a list may also be three or more consecutive short lines without
    markers (``Nomagugu Godide`` / ``Kai`` / ``Thembile``; a line ending in ``:`` is a header, not
    an item; what follows a comma or parenthesis is not part of the item; a line with a colon or a
    spaced dash is no item, ``Customer - Hi``), and an item of such a
    line list that a NAME span only partly covers (``thembile ndlandla`` with ``ndlandla`` found)
    becomes one name when its words fit.

    Args:
        text: the text.
        spans: spans, sorted and disjoint.
        line_lists: also unmarked line lists, and complete partly found line items.

    Returns:
        The spans with the added names, sorted.
    """
    if sum(sp.label == "NAME" for sp in spans) < 2:
        return spans
    case = _text_case(text)
    if case == "upper":
        return spans
    added: list[Span] = []

    def settle(items: list[tuple[int, int]]) -> bool:
        """Add the free fitting items of a list of names; whether it is one (at least two and more
        than half of its items hold a NAME span)."""
        named = [sp for a, b in items for sp in _overlapping(spans, a, b) if sp.label == "NAME"]
        n_named = sum(any(sp.label == "NAME" for sp in _overlapping(spans, a, b)) for a, b in items)
        if n_named < 2 or 2 * n_named <= len(items):
            return False
        for a, b in items:
            if not _overlapping(spans, a, b) and _item_words(text[a:b].split(), case):
                added.append(Span(a, b, "NAME", named[0].score, named[0].source))
        return True

    def words_at(line: str, a: int, b: int) -> list[tuple[int, int]]:
        """Word offsets in line[a:b], trailing punctuation cut (an initial keeps its period)."""
        out = []
        for m in re.finditer(r"\S+", line[a:b]):
            x, y = m.span()
            while y - x > 1 and line[a + y - 1] in ".,;:!?)" and not _INITIAL.fullmatch(line[a + x : a + y]):
                y -= 1
            out.append((x, y))
        return out

    # inline lists, line by line
    pos = 0
    for line in text.split("\n"):
        base, pos = pos, pos + len(line) + 1
        if "," not in line or _DRUG_LIST_CUE.search(line):
            continue
        seps = list(_LIST_SEP.finditer(line))
        if len(seps) < 2:
            continue
        bounds = [0] + [x for m in seps for x in m.span()] + [len(line)]
        chunks = [(bounds[2 * i], bounds[2 * i + 1]) for i in range(len(seps) + 1)]
        i = 0
        while i < len(seps):
            # first item: the trailing fitting words of chunk i
            ws = words_at(line, *chunks[i])
            k = len(ws)
            while k > 0 and len(ws) - k < 3 and _item_words([line[chunks[i][0] + a : chunks[i][0] + b]
                                                             for a, b in ws[k - 1 :]], case):
                k -= 1
            if case == "lower" and k > 0:  # no capitals to tell where the name starts: one word
                k = len(ws) - 1
            if k == len(ws):
                i += 1
                continue
            items = [(chunks[i][0] + ws[k][0], chunks[i][0] + ws[-1][1])]
            if k == len(ws) - 1 and _sentence_opener(line, chunks[i][0] + ws[k][0], items[0][1]):
                items[0] = (-1, -1)  # 'Then, Kirk and McCoy': an adverb opening a sentence is no item
            j = i + 1
            while j < len(chunks):
                a, b = chunks[j]
                cw = words_at(line, a, b)
                whole = _item_words([line[a + x : a + y] for x, y in cw], case)
                if whole and j < len(seps):  # a middle item: the list goes on after it
                    items.append((a + cw[0][0], a + cw[-1][1]))
                    j += 1
                    continue
                m = 0  # the last item: the leading fitting words of chunk j
                while m < min(3, len(cw)) and _item_words([line[a + x : a + y] for x, y in cw[: m + 1]],
                                                            case):
                    m += 1
                if m:
                    items.append((a + cw[0][0], a + cw[m - 1][1]))
                break
            last_sep = seps[min(j, len(seps)) - 1].group(0).strip(", \t").lower()
            if len(items) >= 3 and last_sep in ("and", "or", "&") and len(items) == j - i + 1:
                settle([(base + a, base + b) for a, b in items if a >= 0])
            i = max(j, i + 1)
    # numbered / bulleted lists
    lines = [m.span(1) for m in _LIST_LINE.finditer(text) if m.end(1) > m.start(1)]
    if len(lines) >= 3:
        settle(lines)
    widened: dict[Span, Span] = {}
    if line_lists:
        for block in _line_blocks(text):
            if len(block) < 3 or not settle(block):
                continue
            for a, b in block:  # an item the model found only part of
                over = _overlapping(spans, a, b)
                hit = [sp for sp in over if sp.label == "NAME"]
                inside = len(hit) == 1 and a <= hit[0].start and hit[0].end <= b
                if (inside and (hit[0].start, hit[0].end) != (a, b) and len(over) == 1
                        and _item_words(text[a:b].split(), case)):
                    widened[hit[0]] = Span(a, b, "NAME", hit[0].score, hit[0].source)
    if not added and not widened:
        return spans
    kept = [widened.get(sp, sp) for sp in spans]
    taken = [(sp.start, sp.end) for sp in kept]
    extra = [sp for sp in added if not any(a < sp.end and sp.start < b for a, b in taken)]
    return sorted(kept + extra, key=lambda s: s.start)


#: a short line that may be a list item: an optional marker, the item, then nothing, or a comma or
#: a parenthesis and the rest (not a spaced dash: ``Customer - Hi`` is a chat turn)
_ITEM_LINE = re.compile(r"[ \t]*(?:(?:\d{1,2}[.)]|[-*\u2022])[ \t]+)?([^\s,(:][^,(:]*?)[ \t]*(?:$|[,(])")


def _line_blocks(text: str) -> list[list[tuple[int, int]]]:
    """Runs of consecutive lines whose item (``_ITEM_LINE``) has one to three words, as offsets."""
    blocks: list[list[tuple[int, int]]] = []
    run: list[tuple[int, int]] = []
    pos = 0
    for line in text.split("\n"):
        m = _ITEM_LINE.match(line)
        if m and 1 <= len(m.group(1).split()) <= 3 and not line.rstrip().endswith(":"):
            run.append((pos + m.start(1), pos + m.end(1)))
        else:
            if run:
                blocks.append(run)
            run = []
        pos += len(line) + 1
    if run:
        blocks.append(run)
    return blocks


#: after a name: a Dutch / French / Italian particle written apart, then the rest of the surname
#: (``Ella-Yfke 's Gravensande``, ``Jake d' Heripon``; an initial's period may come first)
_PARTICLE_AFTER = re.compile(rf"(\.)?[ \t]+(?:'[sS]|[dDlL]')[ \t]+({_WORD})")
_PARTICLE_END = re.compile(r"(?:^|[ \t])[dDlL]'$")
_WORD_AFTER = re.compile(rf"[ \t]+({_WORD})")


def join_name_particles(text: str, spans: list[Span]) -> list[Span]:
    """A surname particle written apart belongs to the name before it: a NAME span followed by
    `` 's Word`` / `` d' Word`` / `` l' Word`` (after an initial, its period may come between), or
    ending on ``d'`` / ``l'`` and followed by a word, is widened over that word, when the word is
    in no span and capitalized (lower case in a text without capitals).

    Args:
        text: the text.
        spans: spans, sorted and disjoint.

    Returns:
        The spans, widened where a particle follows.
    """
    if "'" not in text:
        return spans
    caseless = text.lower() == text
    out = list(spans)
    for k, sp in enumerate(out):
        if sp.label != "NAME":
            continue
        hi = out[k + 1].start if k + 1 < len(out) else len(text)
        m = _PARTICLE_AFTER.match(text, sp.end)
        if m and m.group(1) and not re.search(r"(?:^|\W)[^\W\d_]$", text[sp.start : sp.end]):
            m = None  # a period after a name that is no initial ends a sentence
        if m is None and _PARTICLE_END.search(text[sp.start : sp.end]):
            m = _WORD_AFTER.match(text, sp.end)
        if m is None or m.end() > hi:
            continue
        word = m.group(m.lastindex or 0)
        if not (word.islower() if caseless else word[0].isupper()) or word.lower() in _NO_PROPAGATION:
            continue
        out[k] = Span(sp.start, m.end(), sp.label, sp.score, sp.source)
    return out


#: ``Wage (wage94@example.com)``, ``Lungile <nyazitla_lungile@example.org>``
_WORD_BEFORE_EMAIL = re.compile(rf"({_WORD})[ \t]*[(<][ \t]*([\w.+-]+)@[\w-]+(?:\.[\w-]+)+[ \t]*[)>]")
#: mailbox words that are no names
_MAILBOX_WORDS = frozenset({
    "info", "support", "sales", "admin", "office", "help", "service", "services", "team", "hr", "billing",
    "webmaster", "noreply", "contact", "mail", "email", "enquiries", "inquiries", "press", "media", "jobs",
    "careers", "hello",
})


def name_before_own_email(text: str, spans: list[Span], *, score: float, source: str) -> list[Span]:
    """A word right before its own e-mail address in brackets is a name: ``Wage (wage94@...)``
    when the word (three letters or more, in no span, not a mailbox word such as ``Support`` or
    ``Info``) is one of the address's local-part pieces (split at ``.``, ``_``, ``-``, ``+`` and
    digits), whatever its case.

    Args:
        text: the text.
        spans: spans, sorted and disjoint.
        score: the score of an added span (the detector's threshold).
        source: the detector name of an added span.

    Returns:
        The spans with the added names, sorted.
    """
    if "@" not in text:
        return spans
    added: list[Span] = []
    for m in _WORD_BEFORE_EMAIL.finditer(text):
        word, local = m.group(1), m.group(2).lower()
        a, b = m.span(1)
        if len(word) < 3 or word.lower() in _MAILBOX_WORDS or word.lower() in _NO_PROPAGATION:
            continue
        if word.lower() not in {p for p in re.split(r"[._+\-\d]+", local) if p}:
            continue
        if _overlapping(spans, a, b):
            continue
        added.append(Span(a, b, "NAME", score, source))
    return sorted(spans + added, key=lambda s: s.start) if added else spans


_JOINERS = "-'"
#: how many of the most frequent public English words a name part next to a found name may not be
_PAIR_COMMON = 20_000
#: the score (mean entity probability) a one-word NAME span needs to take in its neighbour
_PAIR_SCORE = 0.5
_PAIR_WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")


@lru_cache(maxsize=4)
def common_words(n: int) -> frozenset[str]:
    """The ``n`` most frequent words of the shipped public English list (wordfreq), folded; none
    for ``n <= 0``. Shared by the ``name_pairs`` rule and training's ``keep_words``."""
    return frozenset(fold(w) for w in _public_words()[: max(n, 0)])


def _word_goes_on(text: str, i: int) -> bool:
    """Whether text[i] exists and continues a word (a letter, digit or underscore)."""
    return 0 <= i < len(text) and (text[i].isalnum() or text[i] == "_")


#: what joins the letter pieces of one name word (``Okafor-Adeyemi``, ``S'fiso``, ``O’Neil``)
_NAME_JOINERS = _JOINERS + "\u2019"
_JOINED_PARTS = re.compile(r"(['\u2019-])")


def _without_possessive(word: str) -> str:
    """``word`` less a trailing possessive ``'s`` / ``’s``."""
    return word[:-2] if word[-2:-1] in ("'", "\u2019") and word[-1:] in ("s", "S") else word


def _joined_name_case(word: str) -> bool:
    """A joined word written like a name in mixed-case text (see :func:`name_joined_words`)."""
    parts = _JOINED_PARTS.split(word)  # piece, joiner, piece, ...
    if not parts[0][:1].isupper():
        return False
    for k in range(0, len(parts), 2):
        piece = parts[k]
        if len(piece) > 1 and piece.isupper():
            return False
        if k and parts[k - 1] == "-" and not piece[:1].isupper():
            return False
    return True


def name_joined_words(
    text: str,
    starts: np.ndarray,
    ends: np.ndarray,
    proba: np.ndarray,
    spans: list[Span],
    *,
    source: str = "model",
) -> list[Span]:
    """A word of letters joined by ``-``, ``'`` or ``’`` (``s'fiso``, ``i-hsuan``) becomes a NAME
    span when the model puts a rare piece of it on NAME but the decode could not start a name there.

    The tokenizer cuts such a word at its joiners, and the model often scores the piece after the
    joiner as a name *continuation* (``I-NAME``) while the piece before it (``s``, ``i``) is near
    zero; the BIO decode cannot start a span with ``I-``, so nothing is found. The word qualifies
    when it touches no span and one of its letter pieces has NAME probability (``B-NAME`` +
    ``I-NAME``) at least 0.5 (the gate of :func:`complete_name_pairs`) and is not among the 20,000
    most frequent public English words (``follow-up``, ``X-ray`` never qualify on a common piece).
    A trailing possessive ``'s`` stays outside. The span's score is that probability. In text with
    both cases the word must have a name's case: a capital first letter, a capital after each
    hyphen (``I-Fei``, ``Jean-Luc``; after an apostrophe either, ``S'fiso``, ``O'Conner``), and no
    all-capitals piece of two letters or more. So ``D-dimer``, ``X-loupe``, ``G-CSF`` and
    ``tear-jerker`` never qualify there (round 22's check on real text).

    Args:
        text: the text.
        starts, ends: token offsets (int (T,)) of :func:`~.features.tokenize`.
        proba: float (T, C) class probabilities of those tokens.
        spans: spans, sorted and disjoint.
        source: the detector name of an added span.

    Returns:
        The spans with the added names, sorted.
    """
    if not any(j in text for j in _NAME_JOINERS) or len(starts) == 0:
        return spans
    b_name = _B["NAME"]
    name_p = proba[:, b_name] + proba[:, b_name + 1]
    common: frozenset[str] | None = None
    mixed = _text_case(text) == "mixed"
    added: list[Span] = []
    for m in _PAIR_WORD.finditer(text):
        a, b = m.span()
        if _word_goes_on(text, a - 1) or _word_goes_on(text, b):
            continue
        word = _without_possessive(m.group())
        b = a + len(word)
        if not any(j in word for j in _NAME_JOINERS) or _overlapping(spans, a, b):
            continue
        if mixed and not _joined_name_case(word):
            continue
        lo, hi = int(np.searchsorted(starts, a)), int(np.searchsorted(ends, b, side="right"))
        best, best_p = -1, 0.0
        for t in range(lo, hi):
            if text[int(starts[t])].isalpha() and name_p[t] > best_p:
                best, best_p = t, float(name_p[t])
        if best < 0 or best_p < _PAIR_SCORE:
            continue
        if common is None:
            common = common_words(_PAIR_COMMON)
        if fold(text[int(starts[best]) : int(ends[best])]) in common:
            continue
        added.append(Span(a, b, "NAME", min(best_p, 1.0), source))
    return sorted(spans + added, key=lambda s: s.start) if added else spans


def complete_name_pairs(text: str, spans: list[Span]) -> list[Span]:
    """A confident one-word NAME span takes in the word right next to it when that word looks like
    another part of the same name: ``[DIMBA]`` of ``THEMBISILE DIMBA``, ``[taibi]`` of ``younes
    taibi``.

    The span's score (the model's mean entity probability) must be at least 0.5: the model's
    doubtful one-word spans are where its false positives are, and widening them pairs jargon
    (``ANTEGRADE cardioplegia``). The neighbour is joined by one space on the same line, touches
    no span, is not among the 20,000 most frequent public English words (``Hospital``, ``said``,
    ``ask`` never join), and has the name's case: capitalized like it, or all capitals next to all
    capitals, in mixed text; lower case in text without capitals; upper case in text without
    lower-case letters. One word is taken on each side at most; a span of two words or more is
    left alone. A possessive ``'s`` stays outside.

    Args:
        text: the text.
        spans: spans, sorted and disjoint.

    Returns:
        The spans, NAME spans widened to their pair.
    """
    if not any(sp.label == "NAME" and sp.score >= _PAIR_SCORE for sp in spans):
        return spans
    common = common_words(_PAIR_COMMON)
    case = _text_case(text)

    def fits(word: str, name: str) -> bool:
        key = fold(word)
        if not word or key in common or key in _NO_PROPAGATION:
            return False
        if case == "lower":
            return word.islower()
        if case == "upper":
            return word.isupper()
        if name.isupper() and len(name) > 1:
            return word.isupper()
        return _capitalized(word) and not word.isupper()

    out: list[Span] = []
    for k, sp in enumerate(spans):
        name = text[sp.start : sp.end]
        if sp.label != "NAME" or sp.score < _PAIR_SCORE or not _PAIR_WORD.fullmatch(name):
            out.append(sp)
            continue
        lo = out[-1].end if out else 0
        hi = spans[k + 1].start if k + 1 < len(spans) else len(text)
        a, b = sp.start, sp.end
        after = _PAIR_WORD.match(text, b + 1) if text[b : b + 1] == " " else None
        if after and after.end() <= hi and not _word_goes_on(text, after.end()):
            word = _without_possessive(after.group())
            if fits(word, name):
                b = after.start() + len(word)
        if text[a - 1 : a] == " ":
            j = a - 1
            while j > lo and (text[j - 1].isalpha() or text[j - 1] in _NAME_JOINERS):
                j -= 1
            before = text[j : a - 1]
            if _PAIR_WORD.fullmatch(before) and not _word_goes_on(text, j - 1) and fits(before, name):
                a = j
        out.append(sp if (a, b) == (sp.start, sp.end) else Span(a, b, sp.label, sp.score, sp.source))
    return out


def widen_to_whole_words(text: str, spans: list[Span]) -> list[Span]:
    """A NAME span never cuts a word: a span that starts or ends inside letters joined by hyphens
    or apostrophes (``Bao-`` of ``Bao-Li-Hsiang``, ``fiso`` of ``S'fiso``) is widened to the whole
    word, up to the neighbouring spans; a possessive ``'s`` stays outside (``Boutin's``).

    Args:
        text: the text.
        spans: spans, sorted and disjoint.

    Returns:
        The spans, widened where they cut a word.
    """
    if not spans:
        return spans
    n = len(text)
    out: list[Span] = []
    for k, sp in enumerate(spans):
        if sp.label != "NAME":
            out.append(sp)
            continue
        lo = out[-1].end if out else 0
        hi = spans[k + 1].start if k + 1 < len(spans) else n
        a, b = sp.start, sp.end
        while a > lo:
            c, first = text[a - 1], text[a]
            inside = c.isalpha() and (first.isalpha() or first in _JOINERS)  # letters go on to the left
            joined = c in _JOINERS and a - 2 >= lo and text[a - 2].isalpha() and first.isalpha()
            if not (inside or joined):
                break
            a -= 1
        while b < hi:
            c, last = text[b], text[b - 1]
            after_joiner = last in _JOINERS and b - 2 >= a and text[b - 2].isalpha()
            inside = c.isalpha() and (last.isalpha() or after_joiner)
            possessive = (c == "'" and b + 1 < n and text[b + 1] in "sS"
                          and (b + 2 >= n or not text[b + 2].isalpha()))
            joined = (c in _JOINERS and last.isalpha() and b + 1 < hi and text[b + 1].isalpha()
                      and not possessive)
            if not (inside or joined):
                break
            b += 1
        out.append(sp if (a, b) == (sp.start, sp.end) else Span(a, b, sp.label, sp.score, sp.source))
    return out


def sparse_sum(weights: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """float32 (T, C): row sums ``weights[ids[t]].sum(0)`` for int ids (T, S).

    ``np.take`` + one reduction measured about 2.5x faster than a CSR product or fancy indexing
    at T ~ 170, S = 48."""
    t, k = ids.shape
    if t == 0:
        return np.zeros((0, weights.shape[1]), dtype=weights.dtype)
    return np.take(weights, ids.ravel(), axis=0).reshape(t, k, -1).sum(axis=1)


def softmax(logits: np.ndarray) -> np.ndarray:
    logits = logits - logits.max(axis=1, keepdims=True)
    np.exp(logits, out=logits)
    logits /= logits.sum(axis=1, keepdims=True)
    return logits


def predict_proba(weights: Weights, table: np.ndarray, ids: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """float32 (T, C) softmax probabilities for sparse ids (T, slots) and dense rows (T, 3).

    The plain reference (``ModelDetector.probabilities`` is the projected fast path)."""
    return softmax(_forward(weights, table, ids, rows)[0])


def _forward(
    weights: Weights, table: np.ndarray, ids: np.ndarray, rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Logits (T, C), the hidden pre-activations (T, H) and folded ids (None without a layer)."""
    logits = sparse_sum(weights.sparse, ids) + weights.bias
    x = table[rows].reshape(len(rows), -1) if weights.dense.size else None
    if x is not None:
        logits += x @ weights.dense
    hidden = weights.hidden
    if hidden is None:
        return logits, None, None
    folded = fold_ids(ids, hidden.buckets)
    a = sparse_sum(hidden.sparse, folded) + hidden.bias
    if x is not None:
        a += x @ hidden.dense
    logits += np.maximum(a, 0.0) @ hidden.out
    return logits, a, folded


#: tokens whose entity probability is below this are O whatever the threshold (decode skips them)
_ACTIVE = 0.003


def absent_word_shifts(
    text: str, starts: np.ndarray, ends: np.ndarray, proba: np.ndarray, o_shift: float, threshold: float
) -> float | np.ndarray:
    """Per-token ``O`` shifts for :func:`decode`: ``o_shift`` everywhere, and the lower shift of
    ``threshold`` (if it is lower) on letter tokens of two letters or more whose folded form is
    absent from the shipped public word list (:func:`public_ranks`): an unknown word needs less
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


def decode(
    starts: np.ndarray, ends: np.ndarray, proba: np.ndarray, *, o_shift: float | np.ndarray,
    source: str = "model",
) -> list[Span]:
    """Spans from per-token probabilities (Viterbi over BIO with O's log-probability shifted).

    ``o_shift``: one shift for every token, or one per token (float (T,)). Tokens with entity
    probability below ``_ACTIVE`` split the text into independent runs (they are O on every path
    worth taking), so the decode costs only the runs near entities."""
    if len(proba) == 0:
        return []
    ent = 1.0 - proba[:, 0]
    active = ent >= _ACTIVE
    if not active.any():
        return []
    spans: list[Span] = []
    edges = np.flatnonzero(np.diff(np.r_[0, active.astype(np.int8), 0]))
    for a, b in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True):
        logp = np.log(np.maximum(proba[a:b], 1e-12)).astype(np.float64)
        logp[:, 0] += o_shift if isinstance(o_shift, float) else o_shift[a:b]
        path = best_path(logp)
        t, n = 0, len(path)
        while t < n:
            k = path[t]
            if k == 0:
                t += 1
                continue
            label = CLASSES[k][2:]
            u = t + 1
            while u < n and path[u] == _B[label] + 1:
                u += 1
            score = float(np.clip(ent[a + t : a + u].mean(), 0.0, 1.0))
            spans.append(Span(int(starts[a + t]), int(ends[a + u - 1]), label, score, source))
            t = u
    return spans


# -- training -----------------------------------------------------------------------------------
@dataclass
class Examples:
    """Featurized tokens: ids int32 (N, slots), rows int32 (N, 3), y int64 (N,) class ids."""

    ids: np.ndarray
    rows: np.ndarray
    y: np.ndarray


def token_labels(starts: np.ndarray, ends: np.ndarray, spans: Iterable[dict[str, Any]]) -> np.ndarray:
    """BIO class ids int64 (T,): a token is inside a span when it overlaps it."""
    y = np.zeros(len(starts), dtype=np.int64)
    for s in sorted(spans, key=lambda s: (s["start"], s["end"])):
        inside = np.flatnonzero((starts < s["end"]) & (ends > s["start"]))
        if len(inside) == 0:
            continue
        b = _B[s["label"]]
        y[inside] = b + 1
        y[inside[0]] = b
    return y


def featurize_records(
    featurizer: Featurizer,
    records: Iterable[dict[str, Any]],
    *,
    word_dropout: float = 0.0,
    spelling_dropout: float = 0.0,
    keep_words: Collection[str] = (),
    seed: int = 0,
) -> Examples:
    """Examples from ``{"text", "spans"}`` records (spans: dicts with start, end, label).

    Args:
        featurizer: the featurizer (its dense table grows with new words).
        records: training records.
        word_dropout: probability that a letter token loses its own word-identity feature (``w=``,
            sparse column 0) in training, so spellings, affixes, shape, embedding and context must
            carry the decision and names never seen in training are tagged like seen ones.
        spelling_dropout: probability that a letter token loses everything its own spelling says
            (word identity, affixes, character trigrams, embedding clusters, its own dense row; its
            shape and length stay) in training, so the words around it must carry the decision:
            a name whose letters look like common words (``Thembile``: ``the``, ``bile``) is then
            still found in a name context. Drawn after, and independently of, ``word_dropout``.
        keep_words: folded words (lower case, no accents) that never lose their word id to
            ``word_dropout``. Word dropout imitates a word never seen in training, and the most
            frequent words are never unseen; dropping ``the`` pushes what only its id should
            say into its affixes and trigrams (``the``, ``<th``), which longer words share
            (``Thembile``). The draws are the same with or without it.
        seed: seed of the dropout draws.
    """
    if not 0.0 <= word_dropout < 1.0:
        raise ConfigError(f"word_dropout must be in [0, 1), got {word_dropout}")
    if not 0.0 <= spelling_dropout < 1.0:
        raise ConfigError(f"spelling_dropout must be in [0, 1), got {spelling_dropout}")
    rng = np.random.default_rng(seed)
    keep = frozenset(keep_words)
    ids_, rows_, ys = [], [], []
    for r in records:
        toks = tokenize(r["text"])
        ids, rows = featurizer.featurize(r["text"], toks)
        if word_dropout and len(toks.words):
            letters = np.fromiter(
                (w[:1].isalpha() and (not keep or fold(w) not in keep) for w in toks.words),
                dtype=bool,
                count=len(toks.words),
            )
            ids[letters & (rng.random(len(toks.words)) < word_dropout), 0] = 0
        if spelling_dropout and len(toks.words):
            for i in np.flatnonzero(rng.random(len(toks.words)) < spelling_dropout).tolist():
                if toks.words[i][:1].isalpha():
                    ids[i, 0] = 0  # w=
                    ids[i, 3 : _own_features(ids[i], featurizer.own_slots)] = 0  # affixes ... clusters
                    rows[i, 1] = 0  # own dense row -> the zero row
        ids_.append(ids.astype(np.int32))
        rows_.append(rows.astype(np.int32))
        ys.append(token_labels(toks.starts, toks.ends, r["spans"]))
    if not ys:
        raise InputError("no training records")
    return Examples(np.concatenate(ids_), np.concatenate(rows_), np.concatenate(ys))


def _own_features(row: np.ndarray, own_slots: int = OWN_SLOTS) -> int:
    """Number of a token's own-word sparse ids (the first ids of its row, before the context block
    of a featurizer with ``own_slots`` own ids)."""
    own = row[:own_slots]
    nonzero = np.flatnonzero(own)
    return int(nonzero[-1]) + 1 if len(nonzero) else 0


def fit(
    examples: Examples,
    table: np.ndarray,
    *,
    buckets: int,
    clusters: list[np.ndarray],
    epochs: int = 4,
    lr: float = 0.2,
    l2: float = 1e-5,
    batch: int = 4096,
    seed: int = 0,
    prior: Weights | None = None,
    hidden: int = 0,
    hidden_buckets: int = 2**16,
) -> Weights:
    """Minibatch AdaGrad on the softmax loss, L2-pulled toward ``prior`` (or zero).

    Args:
        examples: featurized tokens.
        table: float32 (R, d) dense rows the examples' ``rows`` index.
        buckets: sparse feature space size (must equal ``prior``'s).
        clusters: centroids stored with the weights.
        epochs, lr, l2, batch: optimizer settings (``l2`` on the mean loss, applied to touched rows).
        seed: shuffling seed (and, for a new hidden layer, its initialization).
        prior: start from and regularize toward these weights (domain adaptation); its hidden
            layer, if any, is trained the same way and ``hidden`` is ignored.
        hidden: units of a new hidden layer (0: the linear model); see :class:`Hidden`.
        hidden_buckets: rows of the new hidden layer's sparse table (at least 2).

    Returns:
        The trained weights (manifest left empty for the caller).
    """
    from threadpoolctl import threadpool_limits

    if hidden < 0 or (hidden and hidden_buckets < 2):
        raise ConfigError(f"hidden must be >= 0 and hidden_buckets >= 2, got {hidden}, {hidden_buckets}")
    with threadpool_limits(1):  # small products: BLAS threads only add contention
        return _fit(
            examples,
            table,
            buckets=buckets,
            clusters=clusters,
            epochs=epochs,
            lr=lr,
            l2=l2,
            batch=batch,
            seed=seed,
            prior=prior,
            hidden=hidden,
            hidden_buckets=hidden_buckets,
        )


def _new_hidden(table: np.ndarray, units: int, buckets: int, seed: int) -> Hidden:
    """A seeded random start: pre-activations of about unit scale, every unit alive (bias 0.1)."""
    rng = np.random.default_rng([seed, 1])  # its own stream: the shuffles stay those of seed
    c = len(CLASSES)
    d3 = 3 * table.shape[1]
    mean_sq = float(np.mean(table[1:] ** 2)) if len(table) > 1 else 1.0
    sparse = rng.normal(0.0, 0.05, (buckets, units)).astype(np.float32)
    sparse[0] = 0.0
    dense = rng.normal(0.0, 0.5 / math.sqrt(d3 * max(mean_sq, 1e-12)), (d3, units)).astype(np.float32)
    out = rng.normal(0.0, 0.1, (units, c)).astype(np.float32)
    return Hidden(sparse, dense, np.full(units, 0.1, np.float32), out)


def _sparse_grad(ids: np.ndarray, delta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unique nonzero ids and the summed ``delta`` rows of the tokens holding each (one CSR product)."""
    from scipy import sparse as sp

    uniq, inv = np.unique(ids, return_inverse=True)
    m = sp.csr_matrix(
        (np.ones(inv.size, np.float32), inv.ravel(), np.arange(0, inv.size + 1, ids.shape[1])),
        shape=(len(ids), len(uniq)),
    )
    g = np.asarray(m.T @ delta)
    keep = uniq != 0
    return uniq[keep], g[keep]


class _AdaGrad:
    """One parameter array, its prior (the L2 target) and its squared-gradient sum."""

    def __init__(self, value: np.ndarray, prior: np.ndarray, lr: float, l2: float) -> None:
        self.value, self.prior = value, prior
        self.acc = np.full(value.shape, 1e-6, np.float32)
        self.lr, self.l2 = lr, l2

    def step(self, g: np.ndarray, rows: np.ndarray | None = None) -> None:
        if rows is None:
            g = g + self.l2 * (self.value - self.prior)
            self.acc += g * g
            self.value -= self.lr * g / np.sqrt(self.acc)
        else:  # touched rows only
            g = g + self.l2 * (self.value[rows] - self.prior[rows])
            self.acc[rows] += g * g
            self.value[rows] -= self.lr * g / np.sqrt(self.acc[rows])


def _fit(
    examples: Examples,
    table: np.ndarray,
    *,
    buckets: int,
    clusters: list[np.ndarray],
    epochs: int,
    lr: float,
    l2: float,
    batch: int,
    seed: int,
    prior: Weights | None,
    hidden: int,
    hidden_buckets: int,
) -> Weights:
    c = len(CLASSES)
    d3 = table.shape[1] * 3
    if prior is not None:
        if prior.sparse.shape != (buckets, c):
            raise ConfigError("prior model has another feature space")
        start, h0 = prior, prior.hidden
    else:
        zeros = np.zeros
        start = Weights(zeros((buckets, c), np.float32), zeros((d3, c), np.float32), zeros(c, np.float32), [])
        h0 = _new_hidden(table, hidden, hidden_buckets, seed) if hidden else None

    def opt(a: np.ndarray, pulled: bool = True) -> _AdaGrad:
        # the L2 pull is toward the prior's weights, or toward zero (not toward a random start)
        value = a.astype(np.float32)
        target = value.copy() if prior is not None else np.zeros_like(value)
        return _AdaGrad(value, target, lr, l2 if pulled else 0.0)

    w, dw, b = opt(start.sparse), opt(start.dense), opt(start.bias, pulled=False)
    layer: list[_AdaGrad] = []
    if h0 is not None:
        layer = [opt(h0.sparse), opt(h0.dense), opt(h0.bias, pulled=False), opt(h0.out)]
    tmp = Weights(
        w.value, dw.value, b.value, clusters, hidden=None if not layer else Hidden(*(o.value for o in layer))
    )
    rng = np.random.default_rng(seed)
    n = len(examples.y)
    onehot = np.eye(c, dtype=np.float32)
    for _ in range(epochs):
        order = rng.permutation(n)
        for a in range(0, n, batch):
            idx = order[a : a + batch]
            ids, rows, y = examples.ids[idx], examples.rows[idx], examples.y[idx]
            logits, pre, folded = _forward(tmp, table, ids, rows)
            delta = (softmax(logits) - onehot[y]) / len(idx)
            x = table[rows].reshape(len(idx), -1)
            if layer:
                assert pre is not None and folded is not None
                hs, hd, hb, ho = layer
                act = np.maximum(pre, 0.0)
                da = (delta @ ho.value.T) * (pre > 0)
                ho.step(act.T @ delta)
                uniq_h, g_h = _sparse_grad(folded, da)
                hs.step(g_h, uniq_h)
                hd.step(x.T @ da)
                hb.step(da.sum(axis=0))
            uniq, g = _sparse_grad(ids, delta)
            w.step(g, uniq)
            dw.step(x.T @ delta)
            b.step(delta.sum(axis=0))
    return Weights(w.value, dw.value, b.value, clusters, hidden=tmp.hidden)


#: Domain adaptation defaults, chosen on presidio-research's generated_large.json (10 documents
#: adapted, the rest scored; experiments/detection/adapt_tuning.json), not on the evaluation set.
ADAPT_EPOCHS = 20
ADAPT_L2 = 1e-3


# -- labelled data and the training entry point -----------------------------------------------------
def read_span_records(path: str | Path) -> list[dict[str, Any]]:
    """Records of a span-labelled JSONL file as dicts (``{"id", "text", "spans": [...]}``).

    A thin view of :func:`~.evaluate.read_span_file` (the one reader and validator of the
    format; a record without an ``id`` gets its line number).

    Raises:
        InputError: naming the line of the first malformed record (never quoting its text).
    """
    from .evaluate import read_span_file

    return [record.to_dict() for record in read_span_file(path, require_id=False)]


def train(
    records: Sequence[dict[str, Any]],
    *,
    base: str | Path | None = "model",
    epochs: int | None = None,
    seed: int = 0,
    buckets: int = 2**18,
    l2: float | None = None,
) -> Weights:
    """Train a detector on span-labelled records.

    Args:
        records: ``{"text", "spans"}`` dicts (see :func:`read_span_records`).
        base: ``"model"`` (the shipped detector), a directory of saved weights, or None to train
            from scratch. With a base, training starts from its weights and is pulled toward them
            (L2), so a handful of documents adapts the model to a new domain without forgetting.
        epochs: passes over the data (default 20 with a base, 4 from scratch).
        seed: shuffling (and, from scratch, clustering) seed.
        buckets: sparse feature space size when training from scratch.
        l2: pull toward the base weights (default ``ADAPT_L2``).

    Returns:
        Weights with a manifest (base, documents, tokens, seed, threshold).
    """
    from .features import spherical_kmeans

    if base is None:
        from ..vectors.defaults import load_embedding

        store = load_embedding(EMBEDDING)
        clusters = [spherical_kmeans(store.vectors, k, seed=seed + k) for k in (64, 512)]
        prior = None
        threshold = 0.5
    else:
        prior = Weights.load(shipped_path() if base == "model" else base)
        clusters, buckets = prior.clusters, int(prior.sparse.shape[0])
        threshold = float(prior.manifest.get("threshold", 0.5))
    # the decode rules and feature flags of the base model carry over
    rules = {k: bool(prior is not None and prior.manifest.get(k)) for k in (*DECODE_RULES, *FEATURE_FLAGS)}
    featurizer = make_featurizer(clusters, buckets, **{f: rules[f] for f in FEATURE_FLAGS})
    examples = featurize_records(featurizer, records)
    if prior is None:
        weights = fit(
            examples,
            featurizer.dense_table,
            buckets=buckets,
            clusters=clusters,
            epochs=epochs or 4,
            seed=seed,
        )
    else:
        # Few documents: smaller steps, many passes, a firm pull toward the base weights.
        weights = fit(
            examples,
            featurizer.dense_table,
            buckets=buckets,
            clusters=clusters,
            epochs=epochs or ADAPT_EPOCHS,
            lr=0.05,
            l2=ADAPT_L2 if l2 is None else l2,
            batch=512,
            seed=seed,
            prior=prior,
        )
    weights.manifest = {
        "threshold": threshold,
        **rules,
        "base": None if base is None else str(base),
        "train": {"docs": len(records), "tokens": int(len(examples.y)), "epochs": epochs, "seed": seed},
    }
    return weights
