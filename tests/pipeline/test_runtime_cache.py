"""A process keeps the runtimes of its few most recently used configs, not of every config it met
(a test run held 9 GB of them); a dropped runtime is rebuilt with the same outputs."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest

from embedanon.config import AnonymizerConfig
from embedanon.pipeline import anonymize_records, runtime
from tests.helpers.embeddings import write_glove
from tests.helpers.noise import fast_key

WORDS = ["patient", "doctor", "nurse", "hospital", "clinic", "pain", "ache", "heart", "chest", "river",
         "table", "window", "music", "green", "house", "garden", "paper", "stone"]
TEXTS = ["the patient has chest pain", "river stone garden and green paper"]


@pytest.fixture
def configs(tmp_path: Path) -> list[AnonymizerConfig]:
    glove = str(write_glove(tmp_path / "tiny.txt", WORDS, dim=8))
    return [AnonymizerConfig(embedding=glove, params=(("k", k),), min_length=1)
            for k in range(2, 4 + runtime.RUNTIME_CACHE_SIZE)]


def test_only_the_most_recently_used_runtimes_are_kept(configs: list[AnonymizerConfig]) -> None:
    key = fast_key(5)
    first = anonymize_records(TEXTS, configs[0], key)
    held = weakref.ref(runtime.get_runtime(configs[0]))
    for config in configs[1:]:
        anonymize_records(TEXTS, config, key)
        assert len(runtime._RUNTIMES) <= runtime.RUNTIME_CACHE_SIZE
    assert configs[0] not in runtime._RUNTIMES and configs[-1] in runtime._RUNTIMES
    gc.collect()
    assert held() is None, "a dropped runtime nobody holds is freed"
    assert anonymize_records(TEXTS, configs[0], key) == first, "rebuilt, the same release"


def test_a_runtime_in_use_stays_while_other_configs_come_and_go(configs: list[AnonymizerConfig]) -> None:
    key = fast_key(6)
    favourite = configs[0]
    for config in configs[1:]:
        anonymize_records(TEXTS, favourite, key)  # used between every other config: never dropped
        anonymize_records(TEXTS, config, key)
    assert favourite in runtime._RUNTIMES
    assert runtime.get_runtime(favourite) in runtime._LIVE
