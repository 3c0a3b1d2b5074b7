"""The lab's experiment configs parse with the product's schema."""

from __future__ import annotations

from pathlib import Path

from embedanon.experiments.config import load_config

RESEARCH = Path(__file__).resolve().parents[1]


def test_lab_configs_parse() -> None:
    paths = sorted((RESEARCH / "configs").glob("*.yaml"))
    assert paths
    for path in paths:
        assert load_config(path).name
