"""On-disk caches of derived arrays: atomic writes (temp file, then rename) and load-or-build."""

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


def save_npz(path: Path, **arrays: np.ndarray) -> None:
    """``np.savez`` that never leaves a half-written file at ``path``."""
    _atomic(path, ".npz", lambda fh: np.savez(fh, **arrays))  # type: ignore[arg-type]


def load_or_build(path: Path, build: Callable[[], dict[str, np.ndarray]], *, enabled: bool,
                  shapes: dict[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    """The arrays cached at ``path`` (npz) when the file is readable and every array named in
    ``shapes`` has that shape; otherwise ``build()``, saved atomically when ``enabled``."""
    if enabled and path.is_file():
        try:
            with np.load(path) as data:
                arrays = {name: data[name] for name in shapes}
            if all(arrays[name].shape == shape for name, shape in shapes.items()):
                return arrays
        except (OSError, ValueError, KeyError):
            pass  # a corrupt or stale cache is rebuilt below
    arrays = build()
    if enabled:
        save_npz(path, **arrays)
    return arrays
