"""Keyed noise for tests: the production noise (AES counter blocks) under a fast test key."""

from __future__ import annotations

import hashlib

import numpy as np

from embedanon.noise import KeyedNoise, NoiseSource, ReleaseKey, Stage


def fast_key(seed: int) -> ReleaseKey:
    """A release key derived quickly from ``seed`` (tests only; releases use scrypt or a key file)."""
    return ReleaseKey(hashlib.sha256(b"embedanon-test-key-%d" % seed).digest(), "seed")


def keyed_noise(seed: int, n: int, *, stage: Stage = Stage.EXPERIMENT, record: bytes = b"test") -> KeyedNoise:
    """Noise for tokens 0..n-1 of one record under ``fast_key(seed)``."""
    source = NoiseSource(fast_key(seed))
    tags = np.repeat(source.tags([record]), int(n), axis=0)
    return source.noise(tags, stage, np.arange(int(n)))
