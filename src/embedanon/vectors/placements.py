"""Precomputed placements of PUBLIC words outside the embedding (shipped with the package).

Placing a word the embedding lacks (composing its wordpiece vector, scoring its shortlist,
filtering variants) costs about 0.1 ms, and most such words in real text are ordinary English
words (``hypertension``, ``laparoscopic``): 72-77 % of out-of-vocabulary types and 84-90 % of
their tokens in clinical notes are in the public English word list of ``wordfreq``. Their
placements are computed once by ``scripts/build_public_placements.py`` with the same
:meth:`~embedanon.vectors.compose.ComposedSearch.neighbors` and shipped; a test recomputes a
sample. Words not in the list (names, misspellings: the private ones) are placed in memory, per
process, and never written anywhere.

The table is used only when its fingerprint matches the runtime's embedding and candidate
policy (so not with ``--allowlist``, another ``--min-length`` or another embedding).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources

import numpy as np

from .compose import SHORTLIST
from .index import NeighborIndex

TABLE_FILE = "minilm-words-public.npz"
#: Version of the out-of-vocabulary leak-guard rules (:func:`embedanon.leakguard.oov_variants`):
#: a table built under other rules is not used.
GUARD_RULES = "oov-v2"


def fingerprint(index: NeighborIndex, k: int) -> str:
    """Digest of everything a placement depends on: vectors, wordpieces, candidates, k."""
    store = index.store
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(store.vectors).tobytes())
    if store.piece_vectors is not None:
        h.update(np.ascontiguousarray(store.piece_vectors).tobytes())
        h.update("\n".join(store.pieces).encode())
    h.update("\n".join(store.words).encode())
    h.update(index.candidates.tobytes())
    h.update(f"shortlist={SHORTLIST} k={k} guard={GUARD_RULES}".encode())
    return h.hexdigest()


@dataclass(frozen=True)
class PublicPlacements:
    """word -> (proxy, guarded candidates) for public words outside the embedding.

    Attributes:
        index: word -> row of ``rows``.
        rows: int16 (n, k) word ids, nearest first.
    """

    index: dict[str, int]
    rows: np.ndarray

    def get(self, key: str) -> tuple[int, ...] | None:
        at = self.index.get(key)
        return None if at is None else tuple(self.rows[at].tolist())


def load_public_placements(index: NeighborIndex, k: int) -> PublicPlacements | None:
    """The shipped table when it was built for exactly this index and k, else None."""
    try:
        ref = resources.files("embedanon.vectors") / "data" / TABLE_FILE
        with resources.as_file(ref) as path, np.load(path) as data:
            if str(data["fingerprint"]) != fingerprint(index, k):
                return None
            words = bytes(data["words"]).decode("utf-8").split("\n")
            rows = np.asarray(data["rows"])
    except (OSError, KeyError, ValueError):
        return None
    return PublicPlacements({w: i for i, w in enumerate(words)}, rows)
