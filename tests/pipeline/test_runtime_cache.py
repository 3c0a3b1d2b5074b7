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
    cached = [config for config, _ in runtime._RUNTIMES]
    assert configs[0] not in cached and configs[-1] in cached
    gc.collect()
    assert held() is None, "a dropped runtime nobody holds is freed"
    assert anonymize_records(TEXTS, configs[0], key) == first, "rebuilt, the same release"


def test_a_runtime_in_use_stays_while_other_configs_come_and_go(configs: list[AnonymizerConfig]) -> None:
    key = fast_key(6)
    favourite = configs[0]
    for config in configs[1:]:
        anonymize_records(TEXTS, favourite, key)  # used between every other config: never dropped
        anonymize_records(TEXTS, config, key)
    assert favourite in [config for config, _ in runtime._RUNTIMES]
    assert runtime.get_runtime(favourite) in runtime._LIVE


def test_an_allow_list_or_embedding_rewritten_in_place_is_read_anew(tmp_path: Path) -> None:
    """A config names its files by path: the same config after the file changed is not the
    runtime of the old file (the audit's allow list, rewritten between two Anonymizers of one
    process, kept its old words)."""
    glove = write_glove(tmp_path / "tiny.txt", WORDS, dim=8)
    allow = tmp_path / "allow.txt"
    allow.write_text("\n".join(WORDS[:9]) + "\n", encoding="utf-8")
    config = AnonymizerConfig(embedding=str(glove), allowlist=str(allow), min_length=1, params=(("k", 3),))
    first = runtime.get_runtime(config)
    assert runtime.get_runtime(config) is first
    allow.write_text("\n".join(WORDS[9:]) + "\n", encoding="utf-8")
    second = runtime.get_runtime(config)
    assert second is not first
    assert {second.store.words[i] for i in second.index.candidates} <= set(WORDS[9:])
    write_glove(glove, [*WORDS[::-1], "meadow"], dim=8, seed=3)
    assert runtime.get_runtime(config) is not second


def test_the_config_digest_follows_the_allow_lists_content(tmp_path: Path) -> None:
    """Reports and resume journals hold the digest: a run resumed after its allow list changed
    must not pass as the same configuration."""
    from embedanon import Anonymizer

    glove = write_glove(tmp_path / "tiny.txt", WORDS, dim=8)
    allow = tmp_path / "allow.txt"
    allow.write_text("\n".join(WORDS[:9]) + "\n", encoding="utf-8")
    options = {"embedding": str(glove), "allowlist": str(allow), "min_length": 1, "k": 3, "key": fast_key(7)}
    before = Anonymizer(**options).digest()
    assert Anonymizer(**options).digest() == before
    allow.write_text("\n".join(WORDS[9:]) + "\n", encoding="utf-8")
    assert Anonymizer(**options).digest() != before
