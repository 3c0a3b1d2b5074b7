"""Reservoir sampling: uniform over subsets (exact chi-square bound, with a biased control),
deterministic under a key, sizes validated."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable

import numpy as np
import pytest

from embedanon.errors import ConfigError
from embedanon.noise import ReleaseKey
from embedanon.review.sample import MAX_SAMPLE, reservoir_sample, sample_rng, sample_size

Sampler = Callable[[Iterable[int], int, np.random.Generator], tuple[list[tuple[int, int]], int]]
N, SIZE, DRAWS = 6, 2, 15_000
#: chi2.ppf(1 - 1e-4, df=14) (scipy): a correct sampler fails with probability 1e-4.
CHI2_14_CRITICAL = 42.58


def _biased(items: Iterable[int], size: int, rng: np.random.Generator) -> tuple[list[tuple[int, int]], int]:
    """Negative control: keeps a later item with probability 1/2 instead of size/n."""
    reservoir: list[tuple[int, int]] = []
    n = 0
    for n, item in enumerate(items, 1):
        if n <= size:
            reservoir.append((n - 1, item))
        elif rng.random() < 0.5:
            reservoir[int(rng.integers(size))] = (n - 1, item)
    return sorted(reservoir), n


def _chi2(sampler: Sampler) -> float:
    rng = np.random.default_rng(12345)
    counts = Counter(tuple(i for i, _ in sampler(range(N), SIZE, rng)[0]) for _ in range(DRAWS))
    subsets = list(itertools.combinations(range(N), SIZE))
    expected = DRAWS / len(subsets)  # 15 subsets, each with probability 1/15
    assert set(counts) <= set(subsets)
    return sum((counts[s] - expected) ** 2 / expected for s in subsets)


def test_every_subset_equally_likely() -> None:
    assert _chi2(reservoir_sample) < CHI2_14_CRITICAL


def test_biased_sampler_fails_the_same_test() -> None:
    assert _chi2(_biased) > CHI2_14_CRITICAL


def test_fewer_items_than_size_gives_all_in_order() -> None:
    sample, n = reservoir_sample(iter("abc"), 10, np.random.default_rng(0))
    assert sample == [(0, "a"), (1, "b"), (2, "c")] and n == 3
    assert reservoir_sample([], 5, np.random.default_rng(0)) == ([], 0)


def test_sample_is_sorted_and_of_the_right_size() -> None:
    sample, n = reservoir_sample(range(1000), 20, np.random.default_rng(1))
    positions = [p for p, _ in sample]
    assert n == 1000 and len(sample) == 20 and positions == sorted(positions)
    assert all(p == item for p, item in sample)


def test_same_key_same_sample_other_key_other_sample() -> None:
    key = ReleaseKey.from_seed(7)
    a = reservoir_sample(range(10_000), 20, sample_rng(key))
    b = reservoir_sample(range(10_000), 20, sample_rng(ReleaseKey.from_seed(7)))
    c = reservoir_sample(range(10_000), 20, sample_rng(ReleaseKey.from_seed(8)))
    assert a == b and a != c


def test_sample_size_rule() -> None:
    assert sample_size(0) == MAX_SAMPLE and sample_size(20) == 20 and sample_size(MAX_SAMPLE) == MAX_SAMPLE
    for bad in (-1, MAX_SAMPLE + 1):
        with pytest.raises(ConfigError, match="sample must be between"):
            sample_size(bad)
    with pytest.raises(TypeError):
        sample_size(True)
    with pytest.raises(ValueError):
        reservoir_sample(range(3), 0, np.random.default_rng(0))
