"""Re-running never composes by default (issue 33): the default key, --fresh-key, --seed's
warning, --key's checks and privacy-report's '= 1 release', through the command line."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedanon.cli import app
from embedanon.keys import KEY_ENV

pytestmark = pytest.mark.default_embedding
runner = CliRunner()
NOTES = "Mary Johnson was seen today for chest pain.\nShe lives in Boston with her son Peter.\n"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No $EMBEDANON_KEY and no $CI: the default key is made under tmp/config on first use."""
    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    (tmp_path / "notes.txt").write_text(NOTES, encoding="utf-8")
    return tmp_path


def test_the_same_command_twice_gives_byte_identical_output(home: Path) -> None:
    first = runner.invoke(app, ["anonymize", str(home / "notes.txt"), "-o", str(home / "a.txt")])
    assert first.exit_code == 0, first.output
    key = home / "config" / "embedanon" / "release.key"
    assert "created your release key" in first.stderr and str(key) in first.stderr
    second = runner.invoke(app, ["anonymize", str(home / "notes.txt"), "-o", str(home / "b.txt")])
    assert second.exit_code == 0, second.output
    assert "release key" not in second.stderr and "warning" not in second.stderr
    assert (home / "a.txt").read_bytes() == (home / "b.txt").read_bytes()
    assert (home / "a.txt").read_bytes() != NOTES.encode()
    # the report says which key made it, never the key itself
    report = home / "r.json"
    assert runner.invoke(app, ["anonymize", str(home / "notes.txt"), "-o", str(home / "c.txt"),
                               "--report", str(report)]).exit_code == 0
    origin = json.loads(report.read_text())["key"]
    assert origin["origin"] == "default" and key.read_text().strip() not in report.read_text()


def test_fresh_key_draws_new_noise_and_says_it_composes(home: Path) -> None:
    outs = []
    for name in ("a.txt", "b.txt"):
        result = runner.invoke(app, ["anonymize", str(home / "notes.txt"), "-o", str(home / name),
                                     "--fresh-key", "-q"])
        assert result.exit_code == 0, result.output
        assert "--fresh-key" in result.stderr and "composes" in result.stderr  # even with -q
        outs.append((home / name).read_bytes())
    assert outs[0] != outs[1]
    assert not (home / "config").exists(), "--fresh-key neither makes nor reads the default key"


def test_seed_warns_in_anonymize_too(home: Path) -> None:
    """Audit defect 12: privacy-report flagged --seed, anonymize said nothing."""
    result = runner.invoke(app, ["anonymize", str(home / "notes.txt"), "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "warning: --seed is for experiments only" in result.stderr


@pytest.mark.parametrize("options", [["--seed", "3", "--fresh-key"], ["--key", "k", "--fresh-key"],
                                     ["--key", "k", "--seed", "1"]])
def test_one_key_option_at_most(home: Path, options: list[str]) -> None:
    result = runner.invoke(app, ["anonymize", str(home / "notes.txt"), *options])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: give one of --key, --seed and --fresh-key")


def test_bad_key_files_fail_fast_in_one_line(home: Path) -> None:
    result = runner.invoke(app, ["anonymize", str(home / "notes.txt"), "--key", "/dev/zero"])
    assert result.exit_code == 2 and "must hold 64 hexadecimal digits" in result.stderr
    exposed = home / "exposed.key"
    assert runner.invoke(app, ["keygen", str(exposed)]).exit_code == 0
    exposed.chmod(0o644)
    result = runner.invoke(app, ["anonymize", str(home / "notes.txt"), "--key", str(exposed)])
    assert result.exit_code == 2 and "every user (mode 0644)" in result.stderr
    assert result.stderr.count("\n") == 1


def test_on_ci_a_missing_default_key_is_an_error(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    result = runner.invoke(app, ["anonymize", str(home / "notes.txt")])
    assert result.exit_code == 2 and "CI" in result.stderr and KEY_ENV in result.stderr
    assert result.stdout == ""


def test_an_output_never_replaces_the_default_key(home: Path) -> None:
    assert runner.invoke(app, ["anonymize", str(home / "notes.txt")]).exit_code == 0  # makes it
    key = home / "config" / "embedanon" / "release.key"
    before = key.read_bytes()
    result = runner.invoke(app, ["anonymize", str(home / "notes.txt"), "-o", str(key)])
    assert result.exit_code == 2 and "default release key" in result.stderr
    assert key.read_bytes() == before


def test_privacy_report_releases_under_the_default_key_are_one_release(home: Path) -> None:
    args = ["privacy-report", str(home / "notes.txt"), "--no-contextual", "--releases", "3", "-q"]
    text = runner.invoke(app, args)
    assert text.exit_code == 0, text.output
    assert re.search(r"^after 3 releases: += 1 release", text.stdout, re.M)
    payload = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    assert payload["repeated_releases"] == {"releases": 3, "fixed_key": True, "same_as_releases": 1}
    fresh = json.loads(runner.invoke(app, [*args, "--json", "--fresh-key"]).stdout)
    assert fresh["repeated_releases"]["same_as_releases"] == 3
    assert [r["releases"] for r in fresh["attacks"]["releases"]] == [1, 3]


def test_a_real_process_makes_the_key_once_and_reruns_identically(home: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in (KEY_ENV, "CI")}
    env["XDG_CONFIG_HOME"] = str(home / "config")
    command = [sys.executable, "-m", "embedanon", "anonymize", str(home / "notes.txt"), "-q"]
    runs = [subprocess.run(command, capture_output=True, env=env, timeout=300) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    # the announcement shows even with -q (once); nothing else is printed
    assert runs[0].stderr.startswith(b"embedanon: created your release key") and runs[1].stderr == b""
    assert runs[0].stdout == runs[1].stdout and runs[0].stdout.count(b"\n") == 2
