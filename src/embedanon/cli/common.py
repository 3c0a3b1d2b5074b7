"""Shared CLI plumbing: one-line errors and exit codes, signals, logging."""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import signal
import sys
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import typer

try:  # typer >= 0.20 vendors click; older releases use click itself
    from typer._click.core import ParameterSource
    from typer._click.exceptions import NoArgsIsHelpError, UsageError
    from typer._click.globals import get_current_context
except ImportError:  # pragma: no cover - depends on the installed typer
    # the same names from click, which older typer releases build on (mypy sees both modules)
    from click.core import ParameterSource  # type: ignore[assignment]
    from click.exceptions import NoArgsIsHelpError, UsageError  # type: ignore[assignment]
    from click.globals import get_current_context  # type: ignore[no-redef]

from .._atomic import STREAMED, Terminated, install_signal_handlers
from ..errors import EmbedanonError

F = TypeVar("F", bound=Callable[..., Any])
EXIT_USAGE = 2
EXIT_SIGINT = 130
EXIT_BROKEN_PIPE = 141
#: Library messages worth showing on a first run (cache builds): logger name prefix and level.
NOTICE_LOGGERS = ("embedanon.vectors", "embedanon.mechanisms")


def fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    """Print ``error: message`` on one line to stderr and return the exit to raise."""
    with contextlib.suppress(OSError, ValueError):  # stderr closed: the exit status must do
        typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


@contextlib.contextmanager
def one_line_usage_errors() -> Any:
    """Turn a command-line usage error (``--k 1.5``, an unknown option, a missing argument) into
    ``error: invalid value for '--k': '1.5' is not a valid integer`` on one line and exit 2,
    instead of typer's boxed usage panel. ``embedanon`` with no arguments still prints the help.
    """
    try:
        yield
    except NoArgsIsHelpError:
        raise
    except UsageError as exc:
        message = " ".join(exc.format_message().split()).rstrip(".")
        raise fail(message[:1].lower() + message[1:], exc.exit_code) from None


def given_on_command_line(values: dict[str, Any], defaults: dict[str, Any]) -> set[str]:
    """The names among ``values`` the user gave (command line or environment), not defaults.

    Asks the running command's context; called outside one (a test calling the function
    directly), a value that differs from its default counts as given.
    """
    ctx = get_current_context(silent=True)
    if ctx is None:
        return {name for name, value in values.items() if value != defaults.get(name)}
    given = set()
    for name in values:
        source = ctx.get_parameter_source(name)
        if source is not None and source not in (ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP):
            given.add(name)
    return given


def handle_errors(func: F) -> F:
    """Run a command so that every expected failure ends in one line on stderr.

    * the project's own errors (and bad parameter types from the validators): exit 2;
    * an operating-system error not already turned into one of ours (a full disk, an I/O error)
      and running out of memory: exit 2;
    * SIGINT (``KeyboardInterrupt``): exit 130; SIGTERM/SIGHUP: exit 128 + the signal number
      (temp files are removed on the way out, see :mod:`embedanon._atomic`);
    * a closed pipe on standard output (``anonymize big.txt | head -1``): exit 141, the status
      of a process killed by SIGPIPE, and no message, as ``cat`` does.
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        install_signal_handlers()
        with cli_logging(bool(kwargs.get("verbose", False))):  # every command logs in one style
            try:
                return func(*args, **kwargs)
            except (EmbedanonError, TypeError) as exc:
                if not isinstance(exc, EmbedanonError) and not _raised_by_validator(exc):
                    raise
                raise fail(_one_line(str(exc))) from None
            except KeyboardInterrupt:
                raise fail(f"interrupted; {_what_was_written()}", EXIT_SIGINT) from None
            except Terminated as exc:
                name = signal.Signals(exc.signum).name
                raise fail(f"terminated by {name}; {_what_was_written()}", 128 + exc.signum) from None
            except BrokenPipeError:
                _silence_stdout()
                raise typer.Exit(EXIT_BROKEN_PIPE) from None
            except MemoryError:
                raise fail("out of memory (try a smaller --k or a smaller embedding)") from None
            except OSError as exc:
                where = f" ({exc.filename})" if exc.filename else ""
                raise fail(_one_line(f"{exc.strerror or type(exc).__name__}{where}")) from None

    return wrapper  # type: ignore[return-value]


#: said after "no output was written" when a run can be continued (anonymize --resume)
INTERRUPTED_NOTE: list[str] = []


def _what_was_written() -> str:
    """The end of an interruption's message: files are all or nothing, but a stream (standard
    output, a pipe) that had begun to receive the spooled output keeps what it got."""
    if STREAMED.is_set():
        return "the output on standard output (or a pipe) is incomplete; no file was written"
    return "no output was written" + "".join(INTERRUPTED_NOTE)


def _one_line(message: str) -> str:
    """The first line of ``message``, its unprintable characters written as escapes: a file name
    holding a bidi override (U+202E) or a control character cannot reorder or hide the line."""
    lines = message.splitlines()
    return _printable(lines[0] if lines else "unknown error")


def _printable(line: str) -> str:
    if line.isprintable():
        return line
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in line)


def _silence_stdout() -> None:
    """Point file descriptor 1 at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def _raised_by_validator(exc: TypeError) -> bool:
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code.co_filename.endswith("_validate.py")


class StderrHandler(logging.Handler):
    """Writes to whatever ``sys.stderr`` is when the record is emitted (tests swap it)."""

    def emit(self, record: logging.LogRecord) -> None:
        if sys.stderr is None:  # print(file=None) would write to stdout, into the release
            return
        with contextlib.suppress(OSError, ValueError):  # stderr closed: not worth failing for
            print(self.format(record), file=sys.stderr)


class OneLineFormatter(logging.Formatter):
    """The CLI's style for every logged line: ``warning: message`` (``error: ...`` above), so a
    library warning reads like the command's own; below WARNING (``-v``, first-use notices) the
    message alone, after the logger's name when ``names``. Always one line: line breaks become
    spaces, unprintable characters escapes, and an attached exception shows as its type only
    (its text, or a traceback's source lines, could quote a record).
    """

    def __init__(self, *, names: bool = False) -> None:
        super().__init__()
        self.names = names

    def format(self, record: logging.LogRecord) -> str:
        message = _printable(" ".join(record.getMessage().splitlines()))
        if record.exc_info and record.exc_info[0] is not None:
            message += f" ({record.exc_info[0].__name__})"
        if record.levelno >= logging.WARNING:
            return f"{record.levelname.lower()}: {message}"
        return f"{record.name}: {message}" if self.names else message


def _show_python_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                         file: Any = None, line: str | None = None) -> None:
    """``warnings.showwarning`` during a command: through the CLI's handler, one line, without
    the file, line number and source line Python prints by default."""
    logging.getLogger("py.warnings").warning("%s: %s", category.__name__, message)


@contextlib.contextmanager
def cli_logging(verbose: bool) -> Any:
    """Log to stderr in the CLI's one style (:class:`OneLineFormatter`) while a command runs:
    WARNING and above, INFO too with ``-v``; Python warnings go the same way. Everything is put
    back afterwards (the root logger's handlers and level, the loggers :func:`.progress.show_notices`
    changes, ``warnings.showwarning``), so a program that runs a command in-process keeps its own
    logging, and library users never see this handler at all."""
    root = logging.getLogger()
    noticed = [logging.getLogger(name) for name in NOTICE_LOGGERS]
    saved = [(logger, list(logger.handlers), logger.level, logger.propagate) for logger in [root, *noticed]]
    handler = StderrHandler(logging.INFO if verbose else logging.WARNING)
    handler.setFormatter(OneLineFormatter(names=True))
    root.addHandler(handler)
    root.setLevel(logging.INFO if verbose else logging.WARNING)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_python_warning
            yield
    finally:
        for logger, handlers, level, propagate in saved:
            logger.handlers[:] = handlers
            logger.setLevel(level)
            logger.propagate = propagate
