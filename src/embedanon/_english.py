"""Counts in messages: "1 word", "2 words" (never "1 words")."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun`` in the singular when ``n`` is 1, else in ``plural`` (default noun + "s")."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
