"""Where embedanon keeps its files: imported embeddings and secrets, and derived caches."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def user_home() -> Path:
    """The user's home directory: ``$HOME``, or the account's home where ``HOME`` is set but
    empty. Python reads an empty ``HOME`` as ``/``, so a service run with ``HOME=`` put its
    release key at ``/.config/embedanon`` (or failed to write there)."""
    if os.environ.get("HOME") != "" or sys.platform == "win32":  # set and not empty, or unset
        return Path.home()
    import pwd  # POSIX only; stdlib

    try:
        return Path(pwd.getpwuid(os.getuid()).pw_dir)
    except KeyError:  # an account without a passwd entry (some containers)
        return Path.home()


def home_dir() -> Path:
    """Directory of imported embeddings and the cache key (``$EMBEDANON_HOME``, default
    ``~/.local/share/embedanon``)."""
    return Path(os.environ.get("EMBEDANON_HOME") or user_home() / ".local" / "share" / "embedanon")


def cache_dir() -> Path:
    """Directory of derived caches: ``$EMBEDANON_CACHE``, else ``$XDG_CACHE_HOME/embedanon``
    (an ``XDG_CACHE_HOME`` that is not absolute is ignored, as the XDG specification says, and
    as :func:`embedanon.keys.default_key_path` does with ``XDG_CONFIG_HOME``), else
    ``~/.cache/embedanon``."""
    named = os.environ.get("EMBEDANON_CACHE")
    if named:
        return Path(named)
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(xdg) if os.path.isabs(xdg) else user_home() / ".cache") / "embedanon"


def file_stamp(path: str | os.PathLike[str]) -> tuple[int, int, int] | None:
    """(size, mtime in ns, inode) of the file at ``path``, or None when it cannot be read: what a
    per-process cache keys a file named by path on, so a file rewritten in place is read anew."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)
