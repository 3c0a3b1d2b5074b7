"""Where embedanon keeps its files: imported embeddings and secrets, and derived caches."""

from __future__ import annotations

import os
from pathlib import Path


def home_dir() -> Path:
    """Directory of imported embeddings and the cache key (``$EMBEDANON_HOME``, default
    ``~/.local/share/embedanon``)."""
    return Path(os.environ.get("EMBEDANON_HOME") or Path.home() / ".local" / "share" / "embedanon")


def cache_dir() -> Path:
    """Directory of derived caches: ``$EMBEDANON_CACHE``, else ``$XDG_CACHE_HOME/embedanon``
    (an ``XDG_CACHE_HOME`` that is not absolute is ignored, as the XDG specification says, and
    as :func:`embedanon.keys.default_key_path` does with ``XDG_CONFIG_HOME``), else
    ``~/.cache/embedanon``."""
    named = os.environ.get("EMBEDANON_CACHE")
    if named:
        return Path(named)
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache") / "embedanon"
