"""Progress on stderr for long commands: a bar on a terminal, a line every few seconds otherwise
(``--progress plain``), nothing with ``-q``. Counts and rates only, never text."""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from collections.abc import Callable
from typing import Annotated

import typer

from ..errors import ConfigError
from .common import NOTICE_LOGGERS, OneLineFormatter, StderrHandler

PROGRESS_MODES = ("auto", "bar", "plain", "none")
#: ``--progress`` of the commands that show a line per stage (detect, evaluate-detection, review,
#: calibrate, detector train)
ProgressOpt = Annotated[str, typer.Option(
        help="auto (a line on a terminal, else nothing), bar, plain (a line every few seconds: batch "
             "jobs), none.", metavar="auto|bar|plain|none")]


class PlainProgress:
    """A line every ``interval`` seconds: bytes done, MB/s and an ETA from the measured rate.

    Args:
        total: the input files' size on disk (0: unknown).
        compressed: an input is compressed: its bytes are counted as read from the file, so the
            line says so (the summary line counts the text, which is larger).
    """

    def __init__(self, total: int, *, interval: float = 5.0, label: str = "anonymizing",
                 compressed: bool = False) -> None:
        self.total, self.interval, self.label, self.compressed = total, interval, label, compressed
        self.done = 0
        self.start = self.last = time.monotonic()
        self.shown = -1  # the bytes done the last line showed
        #: when the first bytes were done, and how many: the time left is measured from there, so
        #: the start (loading the embedding and the detectors, the first chunk) does not make the
        #: first line's estimate hours long (an audit saw 55,231 s for a run of 27 s)
        self.first: tuple[float, int] | None = None

    def __call__(self, nbytes: int) -> None:
        self.done += nbytes
        now = time.monotonic()
        if self.first is None and nbytes > 0:
            self.first = (now, self.done)
        if now - self.last >= self.interval:
            self.last = now
            self.shown = self.done
            typer.echo(self.line(now), err=True)

    def finish(self) -> None:
        """The last line, unless the last one shown already said as much (a run that ended
        right after a line printed its 100 % line twice)."""
        if self.done != self.shown:
            self.shown = self.done
            typer.echo(self.line(time.monotonic()), err=True)

    def line(self, now: float) -> str:
        rate = self.done / max(now - self.start, 1e-9)
        read = " of compressed input" if self.compressed else ""
        text = f"{self.label}: {self.done / 1e6:.1f} MB{read} at {rate / 1e6:.2f} MB/s"
        if self.total:
            text += f", {100 * self.done / self.total:.0f} % done"
            left = self._left(now)
            if left is not None:
                text += f", about {left:.0f} s left"
        return text

    def _left(self, now: float) -> float | None:
        """Seconds left at the rate measured since the first bytes were done; None before that
        rate says anything (nothing done since, under 1 % done) or when all is done."""
        if self.first is None or self.done >= self.total or 100 * self.done < self.total:
            return None
        at, done = self.first
        if now <= at or self.done <= done:
            return None
        return (self.total - self.done) * (now - at) / (self.done - done)


def choose(mode: str, quiet: bool, stdin: bool) -> str:
    """The effective mode: ``bar`` on a terminal, nothing elsewhere unless asked (``plain``:
    batch jobs; stderr stays clean in pipelines by default), ``none`` with -q or when there is no
    stderr at all (``2>&-``: Python then sets ``sys.stderr`` to None; the run still goes on)."""
    if mode not in PROGRESS_MODES:
        raise ConfigError(f"progress must be one of {', '.join(PROGRESS_MODES)}, got {mode!r}")
    if quiet or mode == "none" or sys.stderr is None:
        return "none"
    if mode == "auto":
        return "bar" if sys.stderr.isatty() and not stdin else "none"
    return mode


def show_notices() -> None:
    """Show the library's first-use notices (building neighbor tables ...) on stderr, for the
    rest of the command (:func:`.common.cli_logging` puts the loggers back)."""
    handler = StderrHandler()
    handler.setFormatter(OneLineFormatter())
    for name in NOTICE_LOGGERS:
        logger = logging.getLogger(name)
        if not any(getattr(h, "_embedanon_notice", False) for h in logger.handlers):
            handler._embedanon_notice = True  # type: ignore[attr-defined]
            logger.addHandler(handler)
            logger.setLevel(min(logger.level or logging.INFO, logging.INFO))
            logger.propagate = False  # printed once, by this handler


def run_with_progress(mode: str, total: int, work: Callable[[Callable[[int], None] | None], None], *,
                      compressed: bool = False) -> None:
    """Run ``work(progress_callback)`` under the chosen progress display (``compressed``: see
    :class:`PlainProgress`)."""
    if mode == "none":
        work(None)
    elif mode == "bar":
        with typer.progressbar(length=total, label="anonymizing", file=sys.stderr) as bar:
            work(bar.update)
    else:
        plain = PlainProgress(total, compressed=compressed)
        work(plain)
        plain.finish()


class StageProgress:
    """Progress of a command that works in stages, as ``callback(stage, done, total)`` (counts
    only; ``total`` 0 when unknown): on a terminal (``bar``) one line rewritten in place, in
    batch jobs (``plain``) a line when a stage starts and every ``interval`` seconds within it
    (the command's own summary line ends the run; :meth:`close` clears the bar's line).

    Args:
        mode: ``bar``, ``plain`` or ``none`` (see :func:`choose`).
        label: the command (``review``).
        units: what each stage counts, singular and plural (``{"reading": ("record", "records")}``:
            ``reading 1 record``, ``anonymizing 3 of 5 texts``; the number agrees with the total
            when there is one); a stage not listed counts ``steps``.
        interval: seconds between two lines of one stage in ``plain`` mode.
    """

    def __init__(self, mode: str, label: str, units: dict[str, tuple[str, str]], *,
                 interval: float = 5.0) -> None:
        self.mode, self.label, self.units, self.interval = mode, label, units, interval
        self.stage = ""
        self.start = self.last = time.monotonic()
        self.shown = ""

    def line(self, stage: str, done: int, total: int) -> str:
        one, many = self.units.get(stage, ("step", "steps"))
        unit = one if (total or done) == 1 else many
        count = f"{done:,} of {total:,} {unit}" if total else f"{done:,} {unit}"
        return f"{self.label}: {stage} {count} ({time.monotonic() - self.start:.1f} s)"

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self.mode == "none" or sys.stderr is None:
            return
        now = time.monotonic()
        new_stage = stage != self.stage
        self.stage = stage
        if self.mode == "bar":
            if new_stage or now - self.last >= 0.1 or (total and done == total):
                self.last = now
                self._write("\r\x1b[K" + self.line(stage, done, total))
        elif new_stage or now - self.last >= self.interval:
            self.last = now
            self._write(self.line(stage, done, total) + "\n")

    def close(self) -> None:
        """End the display (the bar's line is cleared, so the summary line stands alone)."""
        if self.mode == "bar" and sys.stderr is not None:
            self._write("\r\x1b[K")

    @staticmethod
    def _write(text: str) -> None:
        assert sys.stderr is not None
        with contextlib.suppress(OSError, ValueError):  # stderr closed: not worth failing for
            sys.stderr.write(text)
            sys.stderr.flush()
