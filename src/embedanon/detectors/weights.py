"""Parameters of the trained token classifier, how they are stored, and its plain forward pass.

Each fine token of the text (see :mod:`.features`) is scored by a linear softmax over the BIO
classes of :mod:`.bio`: hashed sparse features plus the MiniLM input-embedding rows of the
previous, own and next word (and an optional hidden layer). Weights are stored as float16 in
``weights.npz`` next to a ``manifest.json`` (data sources, seeds, held-out sets, metrics, the
feature flags the model was trained with and the decode rules it runs).
"""

from __future__ import annotations

import json
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError
from .bio import CLASSES
from .features import Featurizer, public_ranks

EMBEDDING = "minilm-words"
#: Manifest entries the detector reads as probabilities (each optional).
THRESHOLD_KEYS = ("threshold", "lower_threshold", "absent_threshold")


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
            format_version=MODEL_FORMAT,
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
        """Weights saved by :meth:`save`.

        Raises:
            ConfigError: one line naming ``directory`` and what is wrong: a file missing, a
                manifest that is not a JSON object, weights for other labels, a ``weights.npz``
                that is damaged or not an array archive, or arrays of the wrong shapes.
        """
        directory = Path(directory)
        weights, manifest = directory / "weights.npz", directory / "manifest.json"
        where = f"model at {str(directory)!r}"
        if not weights.is_file() or not manifest.is_file():
            raise ConfigError(f"model path {str(directory)!r} has no weights.npz and manifest.json")
        meta = read_manifest(manifest, where)
        check_format(meta, where)
        if meta.get("classes") != list(CLASSES):
            raise ConfigError(f"{where} was trained for other labels")
        levels = meta.get("clusters")
        if not isinstance(levels, list) or not all(type(k) is int and k > 0 for k in levels):
            raise ConfigError(f"{where}: manifest.json lacks its list of cluster sizes")
        for key in THRESHOLD_KEYS:  # read with float() by the detector and by training
            value = meta.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not 0.0 < value < 1.0):
                raise ConfigError(f"{where}: manifest.json's {key} must be a number in (0, 1)")
        try:
            data = np.load(weights, allow_pickle=False)
        except (OSError, ValueError, EOFError, zipfile.BadZipFile):  # ValueError: "pickled data"
            raise ConfigError(f"{where}: weights.npz is damaged or not a saved model") from None
        if not isinstance(data, np.lib.npyio.NpzFile):  # a single .npy array
            raise ConfigError(f"{where}: weights.npz is a single array, not a saved model")
        with data:
            names = ["sparse", "dense", "bias", *(f"clusters{i}" for i in range(len(levels)))]
            missing = [k for k in names if k not in data.files]
            if missing:
                raise ConfigError(f"{where}: weights.npz has no array {missing[0]!r}")
            try:
                sparse, dense, bias, *clusters = (data[k].astype(np.float32) for k in names)
                loaded = cls(sparse, dense, bias, clusters, meta, cls._hidden(meta, data, where))
            except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error):
                raise ConfigError(f"{where}: weights.npz is damaged (an array does not read)") from None
        loaded._check_shapes(where, levels)
        return loaded

    @staticmethod
    def _hidden(meta: dict[str, Any], data: Any, where: str) -> Hidden | None:
        if "hidden" not in meta:
            return None
        names = [f"hidden_{k}" for k in ("sparse", "dense", "bias", "out")]
        if not all(k in data.files for k in names):
            raise ConfigError(f"{where} lacks its hidden-layer weights")
        return Hidden(*(data[k].astype(np.float32) for k in names))

    def _check_shapes(self, where: str, levels: Sequence[int]) -> None:
        """Refuse arrays that would fail only at the first text (a damaged or foreign archive):
        besides each array's own shape, the clusters must have the sizes the manifest lists and
        one dimension d, and the dense weights 3 * d rows (previous, own and next word)."""
        c = len(CLASSES)
        ok = (self.sparse.ndim == 2 and self.sparse.shape[1] == c and self.sparse.shape[0] >= 2
              and self.bias.shape == (c,) and self.dense.ndim == 2 and self.dense.shape[1] == c
              and all(k.ndim == 2 for k in self.clusters)
              and [len(k) for k in self.clusters] == list(levels)
              and len({k.shape[1] for k in self.clusters}) <= 1
              and all(self.dense.shape[0] == 3 * k.shape[1] for k in self.clusters))
        if ok and self.hidden is not None:
            h = self.hidden
            units = h.bias.shape
            ok = (len(units) == 1 and h.sparse.ndim == 2 and h.sparse.shape[1:] == units
                  and h.sparse.shape[0] >= 2  # fold_ids divides by buckets - 1
                  and h.dense.shape == (self.dense.shape[0], *units) and h.out.shape == (*units, c))
        if not ok:
            raise ConfigError(f"{where}: weights.npz holds arrays of the wrong shapes")


#: The format of a saved model (:meth:`Weights.save`), written in its manifest as
#: ``format_version``. Raise it when a model of the new format would be read wrongly by code that
#: reads this one (another array layout, another meaning of a field): older code then refuses it
#: instead of loading it into the wrong places. A manifest without the field is of format 1.
MODEL_FORMAT = 1


def check_format(meta: dict[str, Any], where: str) -> None:
    """Refuse a manifest of a model format this embedanon does not read (see :data:`MODEL_FORMAT`).

    Raises:
        ConfigError: one line naming ``where``: a format newer than :data:`MODEL_FORMAT`, or a
            ``format_version`` that is not a positive integer.
    """
    version = meta.get("format_version", 1)
    if type(version) is not int or version < 1:
        raise ConfigError(f"{where}: manifest.json's format_version must be a positive integer")
    if version > MODEL_FORMAT:
        raise ConfigError(f"{where} is a model of format {version}, and this embedanon reads format "
                          f"{MODEL_FORMAT} and older; upgrade embedanon to use it")


def read_manifest(path: Path, where: str) -> dict[str, Any]:
    """The JSON object in a trained detector's manifest file.

    Args:
        path: the manifest file.
        where: how errors name the model (``"model at 'DIR'"``).

    Raises:
        ConfigError: one line naming ``where`` and the file (never its content): unreadable, not
            UTF-8, not JSON, or JSON that is not an object.
    """
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read {path.name}: {exc.strerror or type(exc).__name__}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{where}: {path.name} is not valid UTF-8") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{where}: {path.name} is not valid JSON ({exc.msg}, line {exc.lineno}); "
                          "damaged or cut short?") from None
    except (RecursionError, ValueError):
        raise ConfigError(f"{where}: {path.name} is not valid JSON") from None
    if not isinstance(meta, dict):
        kind = "an array" if isinstance(meta, list) else "a string" if isinstance(meta, str) else "a scalar"
        raise ConfigError(f"{where}: {path.name} is {kind}, not a JSON object")
    return meta


def shipped_path() -> Path:
    """Directory of the model shipped in the package."""
    return Path(str(resources.files("embedanon.detectors") / "data" / "model"))


#: Manifest flags that change the features (unlike decode rules, a model needs the ones it was
#: trained with): ``frequency_bands`` (round 25, :func:`~.features.public_ranks`) and ``band_context``
#: (round 26: the band crossed with the neighboring words and the shape; needs the first) and
#: ``absent_spelling`` (round 27: affixes and trigrams of absent words apart; needs the first) and
#: ``absent_affixes`` (round 28: a second, absent-only copy of their affixes; needs the first).
FEATURE_FLAGS = ("frequency_bands", "band_context", "absent_spelling", "absent_affixes")


def make_featurizer(clusters: Sequence[np.ndarray], buckets: int, *,
                    frequency_bands: bool = False, band_context: bool = False,
                    absent_spelling: bool = False, absent_affixes: bool = False,
                    cache_limit: int | None = None) -> Featurizer:
    """Featurizer over the shipped MiniLM embedding (the dense table is shared by train and detect).

    Args:
        frequency_bands: add each word's band in the public frequency list (a model trained with
            it says so in its manifest, see :data:`FEATURE_FLAGS`).
        band_context: also cross the band with the neighboring words and the word's shape
            (needs ``frequency_bands``; see :class:`~.features.Featurizer`).
        absent_spelling: learn the affixes and trigrams of words absent from the list apart
            (needs ``frequency_bands``; see :class:`~.features.Featurizer`).
        absent_affixes: add an absent-only copy of the affixes of words absent from the list
            (needs ``frequency_bands``; see :class:`~.features.Featurizer`).
        cache_limit: see :class:`~.features.Featurizer` (None, the default, for training; a
            detector passes :data:`~.features.CACHE_LIMIT`).

    Raises:
        ConfigError: a flag that needs ``frequency_bands`` without it (the featurizer checks).
    """
    from ..vectors.defaults import load_embedding

    store = load_embedding(EMBEDDING)
    for cents in clusters:
        if cents.ndim != 2 or cents.shape[1] != store.dim:
            raise ConfigError(f"the model's clusters have dimension {cents.shape[-1]}, but its embedding "
                              f"{EMBEDDING} has {store.dim}: a model made for another embedding")
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
        cache_limit=cache_limit,
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


def sparse_sum(weights: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """float32 (T, C): row sums ``weights[ids[t]].sum(0)`` for int ids (T, S).

    ``np.take`` + one reduction measured about 2.5x faster than a CSR product or fancy indexing
    at T ~ 170, S = 48. Long texts go in blocks of ``_SUM_BLOCK`` tokens, so the gathered rows
    never take more than a few MB (a row's sum does not depend on the block it is in)."""
    t, k = ids.shape
    if t <= _SUM_BLOCK:
        if t == 0:
            return np.zeros((0, weights.shape[1]), dtype=weights.dtype)
        return np.take(weights, ids.ravel(), axis=0).reshape(t, k, -1).sum(axis=1)
    out = np.empty((t, weights.shape[1]), dtype=weights.dtype)
    for a in range(0, t, _SUM_BLOCK):
        block = ids[a : a + _SUM_BLOCK]
        gathered = np.take(weights, block.ravel(), axis=0).reshape(len(block), k, -1)
        out[a : a + len(block)] = gathered.sum(axis=1)
    return out


#: tokens per block of :func:`sparse_sum` (2,048 x 48 ids x 17 classes x 4 bytes: 6.7 MB gathered)
_SUM_BLOCK = 2048


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
