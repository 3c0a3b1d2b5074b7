"""Training the ``model`` detector: featurized examples, AdaGrad with an L2 pull, domain adaptation.

Training (:func:`fit`) is minibatch AdaGrad on the softmax loss with an L2 pull toward a prior
(zero for the shipped model; the shipped weights for domain adaptation, so a handful of documents
re-weights the model instead of replacing it). :func:`train` is what ``embedanon detector train``
runs; ``research/scripts/train_detector.py`` trains the shipped model.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._atomic import OutputError, atomic_directory, writable_directory
from .._validate import positive_int, seed_int
from ..errors import ConfigError, InputError
from .base import LABELS
from .bio import B_CLASS, CLASSES
from .features import OWN_SLOTS, TOKEN_RE, Featurizer, fold, tokenize
from .weights import (
    EMBEDDING,
    FEATURE_FLAGS,
    Hidden,
    Weights,
    _forward,
    make_featurizer,
    shipped_path,
    softmax,
)


@dataclass
class Examples:
    """Featurized tokens: ids int32 (N, slots), rows int32 (N, 3), y int64 (N,) class ids."""

    ids: np.ndarray
    rows: np.ndarray
    y: np.ndarray


#: :func:`token_labels`' class for a token of an ignored region: no label, left out of training
UNLABELLED = -1


def token_labels(starts: np.ndarray, ends: np.ndarray, spans: Iterable[dict[str, Any]],
                 ignore: Iterable[Sequence[int]] = ()) -> np.ndarray:
    """BIO class ids int64 (T,): a token is inside a span when it overlaps it.

    A token outside every span that overlaps an ignored region (the span format's ``"ignore":
    [[start, end], ...]``: text that is neither gold nor wrong to flag, decision 0611) gets
    :data:`UNLABELLED` instead of ``O``: training leaves it out rather than teach that it is not
    personal."""
    y = np.zeros(len(starts), dtype=np.int64)
    for start, end in ignore:
        y[(starts < end) & (ends > start)] = UNLABELLED
    for s in sorted(spans, key=lambda s: (s["start"], s["end"])):
        inside = np.flatnonzero((starts < s["end"]) & (ends > s["start"]))
        if len(inside) == 0:
            continue
        b = B_CLASS[s["label"]]
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
    progress: Callable[[int], None] | None = None,
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
        progress: called with the number of records done before each record (counts only).
    """
    if not 0.0 <= word_dropout < 1.0:
        raise ConfigError(f"word_dropout must be in [0, 1), got {word_dropout}")
    if not 0.0 <= spelling_dropout < 1.0:
        raise ConfigError(f"spelling_dropout must be in [0, 1), got {spelling_dropout}")
    rng = np.random.default_rng(seed)
    keep = frozenset(keep_words)
    generation = featurizer.generation
    ids_, rows_, ys = [], [], []
    for done, r in enumerate(records):
        if progress is not None:
            progress(done)
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
        y = token_labels(toks.starts, toks.ends, r["spans"], r.get("ignore", ()))
        kept = y != UNLABELLED  # featurized with their context first: only the rows are left out
        ids_.append(ids[kept].astype(np.int32))
        rows_.append(rows[kept].astype(np.int32))
        ys.append(y[kept])
    if featurizer.generation != generation:  # the rows of earlier records were numbered anew
        raise ConfigError("the featurizer emptied its cache while featurizing training records; "
                          "build it with cache_limit=None")
    if not ys:
        raise InputError("no training records")
    if not any(len(y) for y in ys):
        raise InputError("no tokens to train on: every token is in an ignored region")
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
    progress: Callable[[int], None] | None = None,
) -> Weights:
    """Minibatch AdaGrad on the softmax loss, L2-pulled toward ``prior`` (or zero).

    Args:
        examples: featurized tokens.
        table: float32 (R, d) dense rows the examples' ``rows`` index.
        buckets: sparse feature space size (must equal ``prior``'s).
        clusters: centroids stored with the weights.
        epochs, lr, l2, batch: optimizer settings (``l2`` on the mean loss, applied to touched rows).
        seed: shuffling seed (and, for a new hidden layer, its initialization).
        progress: called with the number of epochs done before each epoch.
        prior: start from and regularize toward these weights (domain adaptation); its hidden
            layer, if any, is trained the same way and ``hidden`` is ignored.
        hidden: units of a new hidden layer (0: the linear model); see :class:`~.weights.Hidden`.
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
            progress=progress,
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
    progress: Callable[[int], None] | None = None,
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
    for epoch in range(epochs):
        if progress is not None:
            progress(epoch)
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


def require_tokens(records: Iterable[dict[str, Any]], source: str) -> None:
    """Refuse training data without a single token (no records, or every text empty or blank):
    training on it would only pull the base weights toward themselves and write a model that
    learned nothing, under the name of the data.

    Raises:
        InputError: one line naming ``source``.
    """
    if not any(TOKEN_RE.search(r["text"]) for r in records):  # the tokenizer's own pattern
        raise InputError(f"{source}: no tokens to train on (every text is empty or blank)")


#: unknown labels a :func:`require_known_labels` refusal names, the most frequent first
_LABELS_SHOWN = 5


def require_known_labels(records: Iterable[dict[str, Any]], source: str) -> None:
    """Refuse training records with span labels outside :data:`~.base.LABELS`.

    The span format takes any label for scoring (``evaluate-detection`` reads other tools' gold
    files, say NAME_STUDENT, as they are), but a model trained on a label it cannot tag would
    learn those words as not personal, or as a class that does not exist. The one line names
    every unknown label with its span count (the most frequent :data:`_LABELS_SHOWN`, then how
    many more) and how to rename them, never a span's text.

    Raises:
        InputError: one line naming ``source``.
    """
    unknown = Counter(s["label"] for r in records for s in r["spans"] if s["label"] not in LABELS)
    if not unknown:
        return
    ranked = sorted(unknown.items(), key=lambda item: (-item[1], item[0]))
    named = ", ".join(f"{_label_shown(label)} {n}" for label, n in ranked[:_LABELS_SHOWN])
    if len(ranked) > _LABELS_SHOWN:
        named += f" and {len(ranked) - _LABELS_SHOWN} more"
    total = unknown.total()
    raise InputError(f"{source}: {total} span{'s' * (total != 1)} with labels training does not know "
                     f"({named}); rename them to the known labels ({', '.join(LABELS)}), e.g. "
                     f"{_renaming(label for label, _ in ranked)} (evaluate-detection scores any label)")


def _label_shown(label: str) -> str:
    """A label as a message names it: printable, at most 40 characters (a label is a category,
    but a file may hold anything there)."""
    short = label if len(label) <= 40 else label[:40] + "..."
    return short if short.isprintable() else ascii(short)[1:-1]


def _renaming(unknown: Iterable[str]) -> str:
    """An example renaming: the first unknown label with a known one among its words
    (``NAME_STUDENT -> NAME``), else that one."""
    for label in unknown:
        for word in re.split(r"[^A-Za-z]+", label.upper()):
            if word in LABELS:
                return f"{_label_shown(label)} -> {word}"
    return "NAME_STUDENT -> NAME"


def require_disjoint_spans(records: Iterable[dict[str, Any]], source: str) -> None:
    """Refuse training records whose spans overlap (decision 0610).

    A token has one BIO class, so :func:`token_labels` gave the tokens two spans share to the
    later span: a nested surname ``[9, 14)`` inside a name ``[4, 14)`` trained as a second name,
    a DATE inside a NAME relabelled the name's tokens, silently. Neither guess can be right for
    every file; the person who labelled it can say which span is meant.

    Raises:
        InputError: one line naming ``source``, the record (its position, 1-based) and the two
            spans' offsets and labels, never their text.
    """
    for k, record in enumerate(records, 1):
        widest: dict[str, Any] | None = None  # of the spans seen so far, the one ending last
        for span in sorted(record["spans"], key=lambda s: (s["start"], s["end"])):
            if widest is not None and span["start"] < widest["end"]:
                raise InputError(
                    f"{source}: record {k}: spans [{widest['start']}, {widest['end']}) {widest['label']} "
                    f"and [{span['start']}, {span['end']}) {span['label']} overlap; a token has one "
                    "label in training, so merge them or keep one")
            if widest is None or span["end"] > widest["end"]:
                widest = span


#: Domain adaptation defaults, chosen on presidio-research's generated_large.json (10 documents
#: adapted, the rest scored; research/detection/adapt_tuning.json), not on the evaluation set.
ADAPT_EPOCHS = 20
ADAPT_L2 = 1e-3


def train(
    records: Sequence[dict[str, Any]],
    *,
    base: str | Path | None = "model",
    epochs: int | None = None,
    seed: int = 0,
    buckets: int = 2**18,
    l2: float | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> Weights:
    """Train a detector on span-labelled records.

    Args:
        records: ``{"text", "spans"}`` dicts (see :func:`~.evaluate.read_span_records`).
        base: ``"model"`` (the shipped detector), a directory of saved weights, or None to train
            from scratch. With a base, training starts from its weights and is pulled toward them
            (L2), so a handful of documents adapts the model to a new domain without forgetting.
        epochs: passes over the data (default 20 with a base, 4 from scratch).
        seed: shuffling (and, from scratch, clustering) seed.
        buckets: sparse feature space size when training from scratch.
        l2: pull toward the base weights (default ``ADAPT_L2``).
        progress: ``progress(stage, done, total)`` before each record (``featurizing``) and
            each epoch (``training``): counts only.

    Returns:
        Weights with a manifest (base, documents, tokens, seed, threshold).
    """
    from .features import spherical_kmeans

    seed = seed_int(seed)  # numpy refuses a negative seed only after the embedding is loaded
    epochs = positive_int("epochs", epochs) if epochs is not None \
        else (4 if base is None else ADAPT_EPOCHS)  # the manifest records the passes made
    require_tokens(records, "training records")
    require_disjoint_spans(records, "training records")
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
    # the feature flags of the base model carry over (the decode rules belong to the detector)
    flags = {k: bool(prior is not None and prior.manifest.get(k)) for k in FEATURE_FLAGS}
    featurizer = make_featurizer(clusters, buckets, **flags)
    def stage(name: str, total: int) -> Callable[[int], None] | None:
        report = progress
        return None if report is None else (lambda done: report(name, done, total))

    examples = featurize_records(featurizer, records, progress=stage("featurizing", len(records)))
    if prior is None:
        weights = fit(
            examples,
            featurizer.dense_table,
            buckets=buckets,
            clusters=clusters,
            epochs=epochs,
            seed=seed,
            progress=stage("training", epochs),
        )
    else:
        # Few documents: smaller steps, many passes, a firm pull toward the base weights.
        weights = fit(
            examples,
            featurizer.dense_table,
            buckets=buckets,
            clusters=clusters,
            epochs=epochs,
            lr=0.05,
            l2=ADAPT_L2 if l2 is None else l2,
            batch=512,
            seed=seed,
            prior=prior,
            progress=stage("training", epochs),
        )
    weights.manifest = {
        "threshold": threshold,
        **flags,
        "base": None if base is None else str(base),
        "train": {"docs": len(records), "tokens": int(len(examples.y)), "epochs": epochs, "seed": seed},
    }
    return weights


#: Files a trained detector directory may hold (``model``: weights.npz and manifest.json; the
#: ``transformer`` backend: transformers' files and its manifest): an existing ``--out`` holding
#: anything else is someone's directory, not a model to replace.
def check_model_directory(out: str | Path) -> Path:
    """Refuse, before any training, an ``--out`` that cannot become a trained detector directory.

    ``out`` may be missing (it is created, with missing parents), an empty directory, or a
    trained detector directory (replaced as a whole). Symbolic links are followed. Returns the
    directory that will be written.

    Raises:
        OutputError: ``out`` is a file, a directory holding other files, or not writable.
    """
    text = os.fspath(out)
    writable_directory(text)
    real = Path(os.path.realpath(text))
    if real.exists():
        if any(real.iterdir()) and not _trained_directory(real):
            raise OutputError(f"-o/--output {text} is a directory holding other files, not a trained "
                              "detector; choose a new or empty directory")
        writable_directory(real.parent)
    return real


#: what a transformer detector directory may hold besides its manifest (Hugging Face files)
_TRANSFORMER_FILE = re.compile(r"(?:config|generation_config|special_tokens_map|added_tokens|"
                               r"tokenizer(?:_config)?|vocab)\.(?:json|txt)|model\.safetensors(?:\.index\.json)?|"
                               r"model-\d+-of-\d+\.safetensors|merges\.txt|(?:sentencepiece\.bpe|spiece)\.model")


def _trained_directory(folder: Path) -> bool:
    """Whether ``folder`` holds a trained detector and nothing else, so replacing it as a whole
    loses nothing: ``manifest.json`` (a detector's: it names its ``format_version``) and
    ``weights.npz``, or a transformer's ``embedanon-detector.json`` with Hugging Face model and
    tokenizer files. One shared name (a ``manifest.json`` among a user's files) had been enough,
    and the directory was wiped with them (an audit, decision 0237)."""
    entries = list(folder.iterdir())
    if any(not e.is_file() for e in entries):
        return False
    names = {e.name for e in entries}
    if "embedanon-detector.json" in names:
        return all(n == "embedanon-detector.json" or _TRANSFORMER_FILE.fullmatch(n) for n in names)
    if not names <= {"manifest.json", "weights.npz"} or "manifest.json" not in names:
        return False
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and "format_version" in manifest


def save_model(out: str | Path, save: Callable[[Path], object], check: Callable[[Path], object]) -> Path:
    """Write a trained detector to directory ``out``, all or nothing and private.

    A trained detector reveals which words were in its training notes (the rows of their
    features move far more than others'), so it is written like anonymized output: into a temp
    directory beside ``out`` (0700), loaded once by ``check`` to refuse a directory that does
    not load, given modes 0700/0600, fsynced and renamed over ``out``. On any failure (a full
    disk, a model that does not load) nothing is left and a previous ``out`` is untouched.

    Args:
        out: the trained directory (see :func:`check_model_directory`).
        save: writes the model's files into the directory it is given.
        check: loads the directory it is given (raises if it cannot).

    Raises:
        OutputError: ``out`` cannot be written (one line naming the path, never the data).
    """
    target = check_model_directory(out)
    with atomic_directory(target, private=True) as temp:
        save(temp)
        check(temp)
    return target
