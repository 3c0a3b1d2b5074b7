"""StageProgress: a line per stage (plain), one line rewritten in place (bar), nothing (none)."""

from __future__ import annotations

import pytest

from embedanon.cli.progress import StageProgress


def test_plain_mode_writes_a_line_when_a_stage_starts(capsys: pytest.CaptureFixture[str]) -> None:
    show = StageProgress("plain", "review", {"reading": ("record", "records"), "anonymizing": ("text", "texts")},
                         interval=3600)
    for n in range(1, 4):
        show("reading", n, 0)
    for n in range(1, 3):
        show("anonymizing", n, 2)
    show("measuring", 0, 2)
    show.close()
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(" (")[0] for line in lines] == [
        "review: reading 1 record", "review: anonymizing 1 of 2 texts", "review: measuring 0 of 2 steps"]


def test_the_unit_agrees_with_the_count(capsys: pytest.CaptureFixture[str]) -> None:
    """'reading 1 records read' was the review's first line on a one-record input (audit)."""
    show = StageProgress("plain", "review", {"reading": ("record", "records"), "writing": ("page", "pages")},
                         interval=0)
    show("reading", 1, 0)
    show("reading", 2, 0)
    show("writing", 0, 1)
    show("measuring", 1, 1)
    lines = [line.split(" (")[0] for line in capsys.readouterr().err.splitlines()]
    assert lines == ["review: reading 1 record", "review: reading 2 records", "review: writing 0 of 1 page",
                     "review: measuring 1 of 1 step"]


def test_bar_mode_rewrites_one_line_and_clears_it(capsys: pytest.CaptureFixture[str]) -> None:
    show = StageProgress("bar", "review", {})
    show("anonymizing", 1, 2)
    show("anonymizing", 2, 2)
    show.close()
    err = capsys.readouterr().err
    assert "\n" not in err and err.count("\r\x1b[K") == 3 and "anonymizing 2 of 2 steps" in err


def test_none_mode_is_silent(capsys: pytest.CaptureFixture[str]) -> None:
    show = StageProgress("none", "review", {})
    show("reading", 1, 0)
    show.close()
    assert capsys.readouterr().err == ""
