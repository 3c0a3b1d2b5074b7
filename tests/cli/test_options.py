"""One release option set: every command that builds a release takes all of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedanon.cli import app
from embedanon.cli.options import RELEASE_OPTIONS, release_options

runner = CliRunner()


@pytest.mark.parametrize("command", ["anonymize", "privacy-report", "review"])
def test_every_release_command_takes_every_release_option(command: str) -> None:
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "250"})
    assert result.exit_code == 0
    for name, hint, _ in RELEASE_OPTIONS:
        shown = f"--{name.replace('_', '-')}" in result.stdout
        assert shown != hint.__metadata__[0].hidden, name  # an old spelling works but is not shown
    for panel in ("Input and output", "Mechanism", "Key and noise", "Scope and detection"):
        assert panel in result.stdout


@pytest.mark.parametrize(("command", "said"), [
    ("anonymize", "field to anonymize"), ("privacy-report", "field to anonymize"),
    ("detect", "field to detect in"), ("review", "field to review, its original beside its release")])
def test_field_help_says_what_the_command_does_with_the_field(command: str, said: str) -> None:
    """Left by the audit: detect's and review's --field read 'field to anonymize', though neither
    writes a release."""
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "250"})
    assert result.exit_code == 0
    line = next(line for line in result.stdout.splitlines() if "│" in line and " --field " in line)
    assert f"JSONL/CSV/Parquet {said} (repeatable; default 'text')" in line, line


def test_the_decorator_refuses_commands_it_cannot_serve() -> None:
    def no_release(x: int = 1) -> None: ...

    def clashing(k: int = 1, *, release: dict) -> None: ...

    with pytest.raises(TypeError, match="must take 'release'"):
        release_options(no_release)
    with pytest.raises(TypeError, match="k"):
        release_options(clashing)


@pytest.mark.default_embedding
def test_review_page_of_a_hybrid_release(tmp_path: Path) -> None:
    src = tmp_path / "notes.txt"
    src.write_text("Patient John Smith (john@x.com) called.\nDr. Okafor saw him on 2024-03-15.\n",
                   encoding="utf-8")
    out = tmp_path / "review.html"
    result = runner.invoke(app, ["review", str(src), "-o", str(out), "--seed", "1", "--scope", "hybrid",
                                 "--detector", "regex", "--no-attacks"])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert "surrogate" in page
