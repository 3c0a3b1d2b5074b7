"""The detector registry and build_detectors (names, option routing, lists)."""

from __future__ import annotations

import pytest

from embedanon.detectors import DETECTORS, Span, UnionDetector, build_detector, build_detectors
from embedanon.detectors.registry import BUILTIN_DETECTORS, parse_names
from embedanon.errors import ConfigError


def test_builtin_names_registered():
    assert {"regex", "llm", "presidio"} <= set(DETECTORS.names())
    assert set(BUILTIN_DETECTORS) <= set(DETECTORS.names())


def test_build_union_with_lists():
    detector = build_detectors("regex", allow=["ann@x.org"], deny={"Zorblat": "NAME"})
    assert isinstance(detector, UnionDetector) and detector.name == "regex"
    text = "Zorblat: ann@x.org, bob@x.org"
    assert detector.detect(text) == [Span(0, 7, "NAME", 1.0, "deny"), Span(20, 29, "EMAIL", 1.0, "regex")]


def test_deny_that_is_not_a_mapping_is_a_type_error():
    with pytest.raises(TypeError, match=r"deny must be a mapping \{string: label\}.*got list") as info:
        build_detectors("regex", deny=["Zorblat"])
    assert "Zorblat'" not in str(info.value).split("such as")[0]


def test_options_routed_by_prefix():
    detector = build_detectors("regex", regex_labels=["EMAIL"], llm_url=None)
    assert [s.label for s in detector.detect("a@b.com 617-555-0134")] == ["EMAIL"]


@pytest.mark.parametrize("spec, options, message", [
    ("", {}, "comma-separated list"),
    ("regex,", {}, "comma-separated list"),
    ("regex,REGEX", {}, "must not repeat"),
    ("nosuch", {}, "unknown detector 'nosuch'; choose one of"),
    ("regex", {"llm_url": "http://x"}, "is for detector 'llm', which is not selected"),
    ("regex", {"colour": "red"}, "names no detector"),
    ("regex", {"regex_flavour": 1}, "has no option regex_flavour; valid: regex_labels"),
    # the factory's messages name the option as given (was 'timeout must be ...')
    ("llm", {"llm_url": "http://x/v1", "llm_model": "m", "llm_timeout": -1}, "^llm_timeout must be a finite"),
    ("llm", {"llm_url": "ftp://x", "llm_model": "m"}, "^llm_url must be an http"),
    ("regex", {"regex_labels": ["FOO"]}, "^regex_labels must be among"),
])
def test_bad_specs_and_options(spec, options, message):
    with pytest.raises(ConfigError, match=message):
        build_detectors(spec, **options)


def test_parse_names_and_build_detector():
    assert parse_names(" Regex , llm ") == ["regex", "llm"]
    assert build_detector("regex").name == "regex"
    with pytest.raises(TypeError):
        parse_names(["regex"])  # type: ignore[arg-type]
