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


ROOT = PYPROJECT.parent
PACKAGE = ROOT / "src" / "embedanon"


def test_every_data_file_of_the_package_is_in_the_wheel() -> None:
    """Nothing tested the built wheel: the tests run on the checkout, so a data file that no
    package-data pattern names would pass here and be missing for every user (packaging audit).
    Every file under src/embedanon that is not Python source must match a pattern."""
    data = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    missing = []
    for path in PACKAGE.rglob("*"):
        if not path.is_file() or path.suffix in (".py", ".pyc") or "__pycache__" in path.parts:
            continue
        package_dir = path.parent
        matched = False
        while package_dir != PACKAGE.parent and not matched:
            package = ".".join(package_dir.relative_to(PACKAGE.parent).parts)
            rel = path.relative_to(package_dir)
            matched = any(rel.match(pattern) and len(rel.parts) == len(Path(pattern).parts)
                          for pattern in data.get(package, ()))
            package_dir = package_dir.parent
        if not matched:
            missing.append(str(path.relative_to(PACKAGE)))
    assert not missing, f"package data no pattern names: {missing}"
    assert (PACKAGE / "py.typed").is_file()  # the typed API (mypy --strict) says so to its users


def test_licence_files_exist_and_the_notices_name_every_bundled_data_directory() -> None:
    data = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    for name in data["license-files"]:
        assert (ROOT / name).is_file(), name
    notices = (ROOT / "THIRD_PARTY_NOTICES.md").read_text(encoding="utf-8")
    data_dirs = {p.parent for p in PACKAGE.rglob("*") if p.is_file() and "data" in p.parts
                 and p.suffix not in (".py", ".pyc", ".md")}
    for directory in data_dirs:
        assert f"embedanon/{directory.relative_to(PACKAGE).as_posix()}/" in notices or \
            any(f"embedanon/{directory.relative_to(PACKAGE).as_posix()}/{p.name}" in notices
                for p in directory.iterdir()), directory
