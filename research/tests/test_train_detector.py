"""The lab's training recipe offers every feature flag the model reads."""

from __future__ import annotations

from pathlib import Path

from embedanon.detectors.weights import FEATURE_FLAGS


def test_train_detector_offers_every_feature_flag():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "train_detector", Path(__file__).resolve().parents[1] / "scripts" / "train_detector.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert tuple(module.FEATURE_OPTIONS) == FEATURE_FLAGS
