"""Which records a review page shows: a uniform sample of fixed size, in one pass.

The sample is drawn with reservoir sampling (Vitter's algorithm R): every subset of ``size``
records is equally likely, memory holds ``size`` records whatever the length of the input, and
the draw is a pure function of the generator's state, so the same key (or seed) and the same
input always give the same page.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

import numpy as np

from ..noise import ReleaseKey

T = TypeVar("T")

#: The most records one page shows (``--sample 0`` means "all", up to this many).
MAX_SAMPLE = 1000
#: Default number of records on a page.
DEFAULT_SAMPLE = 20
_PURPOSE = "review-sample"


def sample_size(requested: int) -> int:
    """The number of records to draw: ``requested`` (0: all, i.e. :data:`MAX_SAMPLE`).

    Raises:
        ConfigError: ``requested`` is not an integer in ``0..MAX_SAMPLE``.
    """
    from ..errors import ConfigError

    if isinstance(requested, bool) or not isinstance(requested, int):
        raise TypeError(f"sample must be an integer, got {type(requested).__name__}")
    if not 0 <= requested <= MAX_SAMPLE:
        raise ConfigError(f"sample must be between 0 (all, up to {MAX_SAMPLE}) and {MAX_SAMPLE}, "
                          f"got {requested}")
    return requested or MAX_SAMPLE


def sample_rng(key: ReleaseKey) -> np.random.Generator:
    """The sampling stream of a release key, independent of every noise stream of the release."""
    entropy = int.from_bytes(key.subkey(_PURPOSE)[:16], "little")
    return np.random.default_rng(np.random.SeedSequence(entropy))


def reservoir_sample(items: Iterable[T], size: int,
                     rng: np.random.Generator) -> tuple[list[tuple[int, T]], int]:
    """A uniform sample of ``size`` items (all of them when there are fewer), in input order.

    Args:
        items: any iterable, read once.
        size: sample size, >= 1.
        rng: the sampling stream (see :func:`sample_rng`).

    Returns:
        ``(sample, n)``: the chosen ``(position, item)`` pairs sorted by position (0-based), and
        the number of items read.
    """
    if size < 1:
        raise ValueError(f"size must be >= 1, got {size}")
    reservoir: list[tuple[int, T]] = []
    n = 0
    for n, item in enumerate(items, 1):
        if n <= size:
            reservoir.append((n - 1, item))
            continue
        j = int(rng.integers(n))  # uniform in 0..n-1: keep item n with probability size/n
        if j < size:
            reservoir[j] = (n - 1, item)
    reservoir.sort(key=lambda pair: pair[0])
    return reservoir, n
