"""Tiny embeddings for tests: GloVe-format text files of seeded random vectors."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np


def write_glove(path: Path, words: Sequence[str], dim: int = 6, seed: int = 0) -> Path:
    """Write ``words`` with random ``dim``-dimension vectors (``default_rng(seed)``, 4 decimals),
    one GloVe line each, to ``path``; return ``path``."""
    rng = np.random.default_rng(seed)
    path.write_text("".join(w + " " + " ".join(f"{x:.4f}" for x in rng.normal(size=dim)) + "\n"
                            for w in words), encoding="utf-8")
    return path
