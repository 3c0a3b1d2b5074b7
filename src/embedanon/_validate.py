"""Small parameter validators shared by mechanisms, the pipeline and the CLI."""

from __future__ import annotations

import math
from collections.abc import Iterable
from numbers import Integral, Real

from .errors import ConfigError


def _int_text(value: int) -> str:
    """An int for a message: its digits, or its size when it is long (a 5,000-digit int has no repr
    under Python's digit limit, and would flood the line)."""
    if value.bit_length() <= 64:
        return str(value)
    if (value + 1).bit_count() == 1:
        return f"2**{value.bit_length()} - 1"
    return f"an integer of {value.bit_length()} bits"


def positive_int(name: str, value: object, *, maximum: int | None = None, why: str = "") -> int:
    """Return ``value`` as an int >= 1 (and <= ``maximum``; ``why`` says why, in the message) or
    raise with a message naming it."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    number = int(value)
    if number < 1:
        raise ConfigError(f"{name} must be an integer >= 1, got {_int_text(number)}")
    if maximum is not None and number > maximum:
        raise ConfigError(f"{name} must be at most {maximum}{': ' + why if why else ''}, "
                          f"got {_int_text(number)}")
    return number


def seed_int(value: object, *, name: str = "seed", maximum: int | None = None) -> int:
    """Return ``value`` as an int >= 0 (and <= ``maximum``): a seed, refused before any work."""
    if isinstance(value, bool) or not isinstance(value, Integral):  # numpy integers too
        raise ConfigError(f"{name} must be a non-negative integer, got {type(value).__name__}")
    number = int(value)
    if number < 0:
        raise ConfigError(f"{name} must be a non-negative integer, got {_int_text(number)}")
    if maximum is not None and number > maximum:
        raise ConfigError(f"{name} must be at most {_int_text(maximum)}, got {_int_text(number)}")
    return number


def _to_float(name: str, value: Real, valid: str) -> float:
    try:
        return float(value)
    except OverflowError:  # an int such as 10**400 (never quoted: it may be hundreds of digits)
        raise ConfigError(f"{name} must be {valid}, got an integer too large for a float") from None


def positive_float(name: str, value: object) -> float:
    """Return ``value`` as a finite float > 0; reject bools, strings, nan and inf."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a finite number > 0, got {type(value).__name__} {value!r}")
    number = _to_float(name, value, "a finite number > 0")
    if not math.isfinite(number) or number <= 0:
        raise ConfigError(f"{name} must be a finite number > 0, got {value!r}")
    return number


def fraction(name: str, value: object, *, low: float = 0.0, high: float = 1.0,
             low_open: bool = False) -> float:
    """Return ``value`` as a float in the closed interval [low, high] (``low_open``: (low, high])."""
    valid = f"a number in {'(' if low_open else '['}{low}, {high}]"
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be {valid}, got {value!r}")
    number = _to_float(name, value, valid)
    if not math.isfinite(number) or not low <= number <= high or (low_open and number == low):
        raise ConfigError(f"{name} must be {valid}, got {value!r}")
    return number


def strings(name: str, values: object, *, what: str = "strings", item: str = "str",
            quote: bool = False, item_hint: str = "") -> tuple[str, ...]:
    """``values`` (a list, tuple or any iterable) as a tuple of str, each checked.

    One str is refused, not iterated letter by letter. Messages name the parameter and the type,
    never a value, unless ``quote`` says the values are names that may be shown (column names).

    Args:
        name: the parameter's name, for messages (``allow``, ``columns``).
        values: what was given.
        what: what the strings are, in the plural (``column names``).
        item: what one of them is (``a column name (str)``).
        quote: a lone str may be quoted in the hint (``use ['text']``).
        item_hint: said after a wrong item's type (how to fix it).

    Raises:
        TypeError: ``values`` is one str or bytes, not iterable, or holds a non-str.
    """
    if isinstance(values, (str, bytes)):
        hint = f"; use [{values!r}]" if quote and isinstance(values, str) else ""
        raise TypeError(f"{name} must be a list of {what}, not one {type(values).__name__}{hint}")
    if not isinstance(values, Iterable):
        raise TypeError(f"{name} must be a list of {what}, got {type(values).__name__}")
    out = tuple(values)
    for i, value in enumerate(out):
        if not isinstance(value, str):
            raise TypeError(f"{name}[{i}] must be {item}, got {type(value).__name__}"
                            + (f"; {item_hint}" if item_hint else ""))
    return out
