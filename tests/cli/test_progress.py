"""StageProgress: a line per stage (plain), one line rewritten in place (bar), nothing (none)."""

from __future__ import annotations

import pytest

from embedanon.cli.progress import PlainProgress, StageProgress


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


def test_plain_progress_ends_with_one_line_and_names_compressed_bytes(capsys: pytest.CaptureFixture[str]) -> None:
    """Left by the audits: a run that ended right after a line printed its 100 % line twice, and
    on a compressed input the MB shown (of the file) were not the summary line's (of the text)."""
    plain = PlainProgress(2_000_000, interval=0.0, compressed=True)
    plain(2_000_000)
    plain.finish()
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("anonymizing: 2.0 MB of compressed input at ")
    assert "100 % done" in lines[0]
    plain = PlainProgress(2_000_000, interval=3600.0)
    plain(1_000_000)
    plain.finish()  # nothing shown yet: the last line is shown
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("anonymizing: 1.0 MB at ") and "50 % done" in lines[0]


def test_the_time_left_is_measured_from_the_first_bytes_done(capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """An audit's first line said 'about 55231 s left' for a run of 27 s: the rate counted the
    start (loading the models, the first chunk). The estimate now starts at the first bytes done
    and waits for a rate."""
    import embedanon.cli.progress as progress

    clock = iter([0.0, 10.0, 15.0])
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    plain = PlainProgress(1_000_000, interval=5.0)  # starts at 0 s
    plain(10_000)    # 10 s: the first chunk, 1 % done
    plain(100_000)   # 15 s: 100,000 bytes in 5 s
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].endswith(", 1 % done")  # no rate yet: no estimate
    assert lines[1].endswith(", 11 % done, about 44 s left")  # 890,000 bytes at 20,000 B/s
