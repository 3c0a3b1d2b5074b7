"""Verified on-disk caches of derived arrays (neighbor tables, wordpiece shortlists, near sets).

A cache file is an ``.npz`` whose name binds it to what it was computed from: the content hash of
the embedding (:attr:`EmbeddingStore.fingerprint`, computed once per store) and the parameters
(candidate policy, search mode, width), see :meth:`NeighborIndex.cache_path`. Inside it, next to
the arrays, an entry ``__embedanon__`` holds the file name and an HMAC-SHA256 of the name and of
every array (name, dtype, shape, bytes), keyed by a per-user secret ``$EMBEDANON_HOME/cache.key``
(32 random bytes, mode 0600, created on first use).

A cache is used only when it opens, its HMAC verifies, it was made for this very file name and
every expected array has the expected shape; anything else (truncated, CRC-damaged, zero-byte,
renamed from another embedding, from an older version, or forged) is rebuilt and rewritten.

What the HMAC protects against: anyone who can write the cache directory but cannot read your
``$EMBEDANON_HOME`` (a shared or group-writable cache, a cache volume or tarball from somewhere
else) cannot make embedanon use a table of their choosing, e.g. one where every word is its own
neighbor, which would switch anonymization off. It does not protect against someone who can read
your key file or run code as you (they could equally change the installed package).

The fast form of an embedding file given by path (``$EMBEDANON_CACHE/vectors/<name>``) is bound
the same way: its ``meta.json`` holds an HMAC of the directory's name and of the content
fingerprint recomputed at load (:func:`directory_mac`), so words shuffled or a fingerprint
dropped make it rebuilt, not used.

Nothing in the cache is followed or waited on: files are read only when they are regular files
(:func:`~embedanon._atomic.open_regular`; a symbolic link, FIFO or device there is a warning and a
rebuild), and written into a temp file made with ``O_EXCL | O_NOFOLLOW`` that is renamed over
whatever is there, so a link planted in a shared cache never redirects a write.

Caching is optional: when the cache directory or the key cannot be written (read-only, full, under
a regular file), one warning is logged and the process continues without disk caching.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ._atomic import NotRegularFile, OutputError, TargetExists, atomic_write, new_dir_mode, open_regular
from ._paths import home_dir

log = logging.getLogger(__name__)

_META = "__embedanon__"
_VERSION = 1
_KEY_NAME = "cache.key"
_KEY_BYTES = 32
_keys: dict[str, bytes] = {}
#: Set (to the reason) once disk caching failed in this process; later calls skip the disk.
_disabled: str | None = None


def warn_disabled(reason: str) -> None:
    global _disabled
    if _disabled is None:
        _disabled = reason
        log.warning("%s; continuing without the disk cache", reason)


def caching_enabled() -> bool:
    """False once disk caching failed in this process (:func:`warn_disabled`)."""
    return _disabled is None


def cache_key() -> bytes | None:
    """The per-user secret that authenticates caches (created with mode 0600 on first use), or
    ``None`` (after one warning) when it can be neither read nor created."""
    home = home_dir()
    path = home / _KEY_NAME
    cached = _keys.get(str(path))
    if cached is not None:
        return cached
    key = _read_key(path)
    if key is None and not os.path.lexists(path):
        try:
            home.mkdir(parents=True, exist_ok=True, mode=new_dir_mode(private=True))
        except OSError as exc:  # a regular file there raises FileExistsError too
            reason = "it is not a directory" if home.exists() and not home.is_dir() else exc.strerror
            warn_disabled(f"cannot create the cache directory {home} ({reason})")
            return None
        fresh = secrets.token_bytes(_KEY_BYTES)
        try:
            # published whole, never replacing one: a reader never sees a half-written key, and an
            # interrupted first run leaves none (an empty key made with O_EXCL then write disabled
            # the cache of every later run; concurrency audit, stop 58)
            with atomic_write(path, private=True, binary=True, exclusive=True) as fh:
                fh.write(fresh)
            key = fresh
        except TargetExists:  # another process published theirs first: use it
            key = _read_key(path)
        except OutputError as exc:
            warn_disabled(f"cannot create the cache key {path} ({exc})")
            return None
    if key is None:
        warn_disabled(f"the cache key {path} is unreadable or damaged; remove it (a new private one "
                      "is made)")
        return None
    _keys[str(path)] = key
    return key


def _read_key(path: Path) -> bytes | None:
    try:
        with open_regular(path) as fh:  # a FIFO or a link planted there: no key, one warning
            st = os.fstat(fh.fileno())
            key = fh.read(_KEY_BYTES + 1)
    except OSError:
        return None
    exposed = _exposure(st)
    if exposed:  # anyone who can read (or replace) the key can sign a forged cache entry
        warn_disabled(f"the cache key {path} is {exposed}; remove it (a new private one is made) "
                      "or chmod 600 it")
        return None
    return key if len(key) == _KEY_BYTES else None


def _exposure(st: os.stat_result) -> str:
    """Why a cache key with this status is not private to this user, or ``""`` when it is."""
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return "owned by another user"
    if st.st_mode & 0o077:
        return f"readable or writable by other users (mode {stat.S_IMODE(st.st_mode):o})"
    return ""


def key_id(key: bytes) -> str:
    """A public name of ``key`` (reveals nothing about it): tells "made with another key", which
    is expected after ``EMBEDANON_HOME`` changes, from "modified", which deserves a warning."""
    return hashlib.sha256(b"embedanon-cache-key-id\0" + key).hexdigest()[:16]


def array_mac(key: bytes, name: str, arrays: dict[str, np.ndarray]) -> str:
    """HMAC-SHA256 (hex) of a cache file name and its arrays (names, dtypes, shapes, bytes)."""
    mac = hmac.new(key, digestmod=hashlib.sha256)
    mac.update(f"embedanon-cache-v{_VERSION}\0{name}\0".encode())
    for array_name in sorted(arrays):
        array = np.ascontiguousarray(arrays[array_name])
        mac.update(f"{array_name}\0{array.dtype.str}\0{array.shape}\0".encode())
        if array.size:  # memoryview cannot cast an empty array
            mac.update(array.data.cast("B"))
    return mac.hexdigest()


def directory_mac(key: bytes, name: str, fingerprint: str) -> str:
    """HMAC-SHA256 (hex) binding a cached directory named ``name`` (an embedding file's fast form,
    named after the file's path, size and time) to the content fingerprint of what it holds."""
    message = f"embedanon-cache-dir-v{_VERSION}\0{name}\0{fingerprint}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def directory_verifies(key: bytes, name: str, fingerprint: str, mac: object) -> bool:
    """Whether ``mac`` (from the directory's metadata) is :func:`directory_mac` of its content."""
    return isinstance(mac, str) and hmac.compare_digest(mac, directory_mac(key, name, fingerprint))


def read_cache(path: Path, key: bytes, shapes: dict[str, tuple[int, ...]]) -> dict[str, np.ndarray] | None:
    """The verified arrays of ``path``, or ``None`` when it is missing, damaged or not authentic."""
    try:
        with open_regular(path) as fh, np.load(fh, allow_pickle=False) as data:
            meta = json.loads(str(data[_META][()]))
            arrays = {name: data[name] for name in data.files if name != _META}
    except FileNotFoundError:
        return None
    except NotRegularFile as exc:  # a link, FIFO or device planted in the cache (audit 1, 4)
        log.warning("cache %s is %s, not a regular file; rebuilding it (the rebuilt cache "
                    "replaces it)", path.name, exc.strerror)
        return None
    except Exception as exc:  # noqa: BLE001 - any failure to read a cache means: rebuild it
        log.info("cache %s cannot be read (%s); rebuilding it", path.name, type(exc).__name__)
        return None
    if not isinstance(meta, dict) or meta.get("version") != _VERSION or meta.get("name") != path.name:
        log.info("cache %s was made for something else; rebuilding it", path.name)
        return None
    if meta.get("key_id") != key_id(key):  # another user, or EMBEDANON_HOME changed
        log.info("cache %s was made with another key; rebuilding it", path.name)
        return None
    if not hmac.compare_digest(str(meta.get("mac", "")), array_mac(key, path.name, arrays)):
        log.warning("cache %s fails its integrity check (damaged or modified); rebuilding it",
                    path.name)
        return None
    if any(name not in arrays or arrays[name].shape != shape for name, shape in shapes.items()):
        log.info("cache %s has unexpected shapes; rebuilding it", path.name)
        return None
    return arrays


def write_cache(path: Path, key: bytes, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` and their HMAC to ``path`` atomically (a public file); on failure, one
    warning and no more disk caching in this process."""
    meta = json.dumps({"version": _VERSION, "name": path.name, "key_id": key_id(key),
                       "mac": array_mac(key, path.name, arrays)})
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=new_dir_mode(private=False))
        # never through a link, FIFO or device someone put at ``path`` (audit defect 1): the
        # temp file is made with O_EXCL | O_NOFOLLOW and renamed over whatever is there
        with atomic_write(path, private=False, binary=True, follow_links=False) as fh:
            np.savez(fh, **arrays, **{_META: np.array(meta)})  # type: ignore[arg-type]
    except (OSError, OutputError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else str(exc)
        warn_disabled(f"cannot write the cache directory {path.parent} ({reason})")


def load_or_build(path: Path, build: Callable[[], dict[str, np.ndarray]], *, enabled: bool,
                  shapes: dict[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    """The verified arrays cached at ``path``, else ``build()`` (cached when ``enabled``).

    Args:
        path: cache file; its name must bind it to its inputs (see the module docstring).
        build: computes the arrays (a dict of name -> array).
        enabled: read and write the disk cache at all.
        shapes: expected shape of each array that must be present.
    """
    key = cache_key() if enabled and _disabled is None else None
    if key is not None:
        arrays = read_cache(path, key, shapes)
        if arrays is not None:
            return {name: arrays[name] for name in shapes}
    arrays = build()
    if key is not None and _disabled is None:
        write_cache(path, key, arrays)
    return arrays
