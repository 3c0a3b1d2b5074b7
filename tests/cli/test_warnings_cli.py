"""Every warning of a CLI run in one style: ``warning: ...`` on one line, whether the command
itself or the library (through logging) or a third-party package (through ``warnings``) raised
it. Library users keep standard logging: the CLI's handler lives only as long as its command."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedanon.cli import app
from embedanon.cli.common import handle_errors

runner = CliRunner()
NOTES = "Mary Johnson was seen today for chest pain.\nShe lives in Boston with her son Peter.\n"


def _group_readable_key(tmp_path: Path) -> Path:
    key = tmp_path / "group.key"
    assert runner.invoke(app, ["keygen", str(key)]).exit_code == 0
    key.chmod(0o640)  # used, with one warning from embedanon.noise
    return key


@pytest.mark.default_embedding
def test_a_library_warning_in_a_real_run_reads_like_the_clis_own(tmp_path: Path) -> None:
    """It read ``WARNING embedanon.noise: key file ...`` next to the CLI's ``warning: --seed ...``."""
    key = _group_readable_key(tmp_path)
    (tmp_path / "notes.txt").write_text(NOTES, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "EMBEDANON_KEY"}
    run = subprocess.run([sys.executable, "-m", "embedanon", "anonymize", str(tmp_path / "notes.txt"),
                          "--key", str(key), "-q"], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines() == [
        f"warning: key file {key} can be read by its group (mode 0640); 'chmod 600' it unless the group "
        "is meant to share it"]


def test_library_and_python_warnings_are_one_line_each(capsys: pytest.CaptureFixture[str]) -> None:
    """A message with a line break, an exception attached, and a ``warnings.warn`` (whose default
    display is two lines: file:line and the source line) each come out as one ``warning:`` line."""

    @handle_errors
    def command(verbose: bool = False) -> None:
        logging.getLogger("embedanon.somewhere").warning("first line\nsecond line")
        try:
            raise ValueError("a record's text may be in here")
        except ValueError:
            logging.getLogger("embedanon.somewhere").warning("could not do it", exc_info=True)
        logging.getLogger("embedanon.somewhere").info("not shown without -v")
        warnings.warn("a package's own warning", UserWarning, stacklevel=1)

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        command()
    assert capsys.readouterr().err.splitlines() == [
        "warning: first line second line",
        "warning: could not do it (ValueError)",
        "warning: UserWarning: a package's own warning",
    ]


def test_verbose_shows_the_library_info_lines(capsys: pytest.CaptureFixture[str]) -> None:
    @handle_errors
    def command(verbose: bool = False) -> None:
        logging.getLogger("embedanon.somewhere").info("built %d rows", 3)

    command(verbose=True)
    assert capsys.readouterr().err.splitlines() == ["embedanon.somewhere: built 3 rows"]


def test_the_cli_handler_does_not_outlive_its_command(capsys: pytest.CaptureFixture[str]) -> None:
    """A program that runs a command in-process and then uses the library keeps its own logging."""
    root = logging.getLogger()
    before = (list(root.handlers), root.level, warnings.showwarning)

    @handle_errors
    def command(verbose: bool = False) -> None:
        logging.getLogger("embedanon.somewhere").warning("inside")

    command(verbose=True)
    assert (list(root.handlers), root.level, warnings.showwarning) == before
    capsys.readouterr()
    logging.getLogger("embedanon.somewhere").warning("outside")
    assert "warning: outside" not in capsys.readouterr().err
