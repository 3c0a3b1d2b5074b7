"""Atomic writes of cache files: a temp file in the same directory, then a rename."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

import numpy as np


def _atomic(path: Path, suffix: str, write: Callable[[IO[bytes]], None]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=suffix + ".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_npy(path: Path, array: np.ndarray) -> None:
    """``np.save`` that never leaves a half-written file at ``path``."""
    _atomic(path, ".npy", lambda fh: np.save(fh, array))


def save_npz(path: Path, **arrays: np.ndarray) -> None:
    """``np.savez`` that never leaves a half-written file at ``path``."""
    _atomic(path, ".npz", lambda fh: np.savez(fh, **arrays))  # type: ignore[arg-type]
