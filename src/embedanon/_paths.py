"""Where embedanon keeps its files: imported embeddings and secrets, and derived caches."""

from __future__ import annotations

import os
from pathlib import Path


def home_dir() -> Path:
    """Directory of imported embeddings and the cache key (``$EMBEDANON_HOME``, default
    ``~/.local/share/embedanon``)."""
    return Path(os.environ.get("EMBEDANON_HOME") or Path.home() / ".local" / "share" / "embedanon")


def cache_dir() -> Path:
    """Directory of derived caches (``$EMBEDANON_CACHE``, default ``~/.cache/embedanon``)."""
    return Path(os.environ.get("EMBEDANON_CACHE") or Path.home() / ".cache" / "embedanon")
