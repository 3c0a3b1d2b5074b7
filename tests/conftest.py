"""Shared fixtures. Tests never touch ../shared or the user's home: caches go to a temp dir."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

# Isolate caches before embedanon is imported anywhere (session-wide, shared by all tests), even
# when the user has EMBEDANON_HOME/EMBEDANON_CACHE set: tests never write into the user's dirs.
_SESSION_DIR = Path(tempfile.mkdtemp(prefix="embedanon-tests-"))
os.environ["EMBEDANON_CACHE"] = str(_SESSION_DIR / "cache")
os.environ["EMBEDANON_HOME"] = str(_SESSION_DIR / "home")
# The default release key (see embedanon.keys) is the session's own, written here so that no test
# creates one in the user's ~/.config, so that runs on CI ($CI set: no key is made there) work, and
# fixed, so that a test without --key gives the same output in every run.
os.environ["EMBEDANON_KEY"] = str(_SESSION_DIR / "release.key")
_key_fd = os.open(os.environ["EMBEDANON_KEY"], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
os.write(_key_fd, hashlib.sha256(b"embedanon test session key").hexdigest().encode() + b"\n")
os.close(_key_fd)


@pytest.fixture(scope="session", autouse=True)
def _isolated_dirs() -> Iterator[Path]:
    """The session's temporary EMBEDANON_HOME/EMBEDANON_CACHE, removed at the end."""
    yield _SESSION_DIR
    shutil.rmtree(_SESSION_DIR, ignore_errors=True)

from embedanon.vectors.index import NeighborIndex  # noqa: E402
from embedanon.vectors.store import CandidatePolicy, EmbeddingStore  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"

TINY_WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]


def make_store(words: list[str], dim: int = 8, seed: int = 0) -> EmbeddingStore:
    """A store of random unit vectors (seeded)."""
    vecs = np.random.default_rng(seed).normal(size=(len(words), dim)).astype(np.float32)
    return EmbeddingStore("tiny", list(words), vecs)


@pytest.fixture
def tiny_store() -> EmbeddingStore:
    """8 unrelated words (no two are variants) with seeded random 8-d unit vectors."""
    return make_store(TINY_WORDS)


@pytest.fixture
def tiny_index(tiny_store: EmbeddingStore) -> NeighborIndex:
    return NeighborIndex(tiny_store, CandidatePolicy(min_length=1), use_disk_cache=False)


@pytest.fixture(scope="session")
def default_store() -> EmbeddingStore:
    from embedanon.vectors.defaults import load_embedding

    return load_embedding()


@pytest.fixture(scope="session")
def default_index(default_store: EmbeddingStore) -> NeighborIndex:
    return NeighborIndex(default_store)
