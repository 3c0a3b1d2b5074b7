"""Shared CLI plumbing: one-line errors with exit code 2, and option parsing helpers."""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import typer

from ..errors import EmbedanonError

F = TypeVar("F", bound=Callable[..., Any])
EXIT_USAGE = 2


def fail(message: str) -> typer.Exit:
    """Print ``error: message`` on one line to stderr and return the exit to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(EXIT_USAGE)


def handle_errors(func: F) -> F:
    """Turn the project's own errors (and bad parameter types) into one line + exit 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except (EmbedanonError, TypeError) as exc:
            if isinstance(exc, TypeError) and not _raised_by_validator(exc):
                raise
            raise fail(str(exc).splitlines()[0]) from None
        except KeyboardInterrupt:
            raise fail("interrupted; no output was written") from None

    return wrapper  # type: ignore[return-value]


def _raised_by_validator(exc: TypeError) -> bool:
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code.co_filename.endswith("_validate.py")


def setup_logging(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
