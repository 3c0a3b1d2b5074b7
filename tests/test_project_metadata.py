"""pyproject.toml in the form today's setuptools reads without warnings.

`make demo` on a fresh clone printed setuptools' deprecation notice for a `license = { text = ... }`
table three times (one per build step) before the demo's first line; the SPDX string needs
setuptools >= 77 (PEP 639)."""

from __future__ import annotations

import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_license_is_an_spdx_string_and_the_build_needs_a_setuptools_that_reads_it() -> None:
    data = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    assert data["project"]["license"] == "MIT"
    assert "setuptools>=77" in data["build-system"]["requires"]
    assert not any(c.startswith("License ::") for c in data["project"].get("classifiers", []))
