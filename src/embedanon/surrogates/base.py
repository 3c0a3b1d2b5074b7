"""Keyed draws, the surrogate configuration and the per-label ``Maker`` protocol.

Every choice a surrogate makes is a pure function of a keyed pseudo-random function (PRF) and a
context string, so the same entity gets the same surrogate everywhere under one release key and
no mapping is ever stored. The pipeline supplies two PRFs (HMAC-SHA256 of the release key):
``prf(context)`` for entity-keyed choices and ``record_prf(context)``, keyed by the record too,
for the per-record date shift and age jitter.

Turning PRF bytes into choices (:class:`Stream`): block ``i`` of a context is ``prf(context)``
for ``i = 0`` and ``prf(f"{context}\\x00{i}")`` after that; each 32-byte block gives four 64-bit
words. An integer in ``[0, n)`` is drawn from a word ``x`` with Lemire's multiply-and-reject
method (ACM TOMS 2019): ``m = x * n``; reject when ``m mod 2**64 < 2**64 mod n``; else return
``m >> 64``. Every value is then hit by exactly ``floor(2**64 / n)`` accepted words, so the draw is
exactly uniform (tested exhaustively on 8-bit words). Contexts never contain a NUL of their own
(:func:`~.keys.entity_key` removes them), so two contexts never share blocks.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from ..detectors.base import LABELS
from .avoid import AvoidNames

PRF = Callable[[str], bytes]
T = TypeVar("T")


def prf_from_key(key: bytes) -> PRF:
    """HMAC-SHA256 PRF over the UTF-8 context, for tests and scripts (the pipeline has its own).

    Args:
        key: secret key bytes (a release key).

    Returns:
        ``prf(context) -> 32 bytes``.
    """
    if not isinstance(key, bytes | bytearray):
        raise TypeError(f"key must be bytes, got {type(key).__name__}")
    frozen = bytes(key)

    def prf(context: str) -> bytes:
        return hmac.digest(frozen, context.encode("utf-8", "surrogatepass"), hashlib.sha256)

    return prf


class Stream:
    """Unbiased integers from a PRF and a context (see the module docstring).

    Args:
        prf: ``prf(context) -> bytes`` (at least 8 bytes, a multiple of 8).
        context: what the draws are for, e.g. ``"NAME\\x00given\\x00john"``.
        bits: word size; 64 in use, smaller only for the exhaustive uniformity test.
    """

    __slots__ = ("_prf", "_context", "_block", "_words", "_bits")

    def __init__(self, prf: PRF, context: str, *, bits: int = 64) -> None:
        self._prf = prf
        self._context = context
        self._block = 0
        self._words: list[int] = []
        self._bits = bits

    def _refill(self) -> None:
        context = self._context if self._block == 0 else f"{self._context}\x00{self._block}"
        raw = self._prf(context)
        if not isinstance(raw, bytes) or len(raw) < 8 or len(raw) % 8:
            raise TypeError("prf must return bytes of a length that is a positive multiple of 8")
        self._block += 1
        step = self._bits // 8
        self._words = [int.from_bytes(raw[i : i + step], "big") for i in range(len(raw) - step, -1, -step)]

    def word(self) -> int:
        """The next raw word, uniform on ``[0, 2**bits)``."""
        if not self._words:
            self._refill()
        return self._words.pop()

    def below(self, n: int) -> int:
        """An integer uniform on ``[0, n)`` (Lemire's method; exact; several words when n > 2**64)."""
        if n < 1:
            raise ValueError(f"below() needs n >= 1, got {n}")
        count = max(1, -(-n.bit_length() // self._bits))  # words per draw: 2**bits >= n
        bits = count * self._bits
        mask = (1 << bits) - 1
        while True:
            x = self.word()
            for _ in range(count - 1):
                x = (x << self._bits) | self.word()
            product = x * n
            low = product & mask
            if low >= n or low >= ((1 << bits) - n) % n:
                return product >> bits

    def choice(self, items: Sequence[T]) -> T:
        """A uniform element of a non-empty sequence."""
        return items[self.below(len(items))]

    def signed_offset(self, maximum: int) -> int:
        """An integer uniform on ``[-maximum, -1] ∪ [1, maximum]`` (never 0)."""
        k = self.below(2 * maximum)
        return k - maximum if k < maximum else k - maximum + 1


@dataclass(frozen=True, slots=True)
class Context:
    """What one ``replace`` call may draw from.

    Attributes:
        entity: ``entity(context)`` → a :class:`Stream` keyed by the release key (or by the record
            too when ``consistency="record"``).
        record: ``record(context)`` → a :class:`Stream` keyed by the release key and the record.
        avoid: the record's other names, which a name surrogate must not resemble.
        roles: the role (``"given"`` or ``"surname"``) a name key plays in the record's names of
            several parts, where it plays one role only (:func:`~.names.record_roles`): a part
            standing alone takes it, so ``Wei`` after ``Wei Zhang`` is the same given name.
        taken: the name surrogates already given in the record (surrogate key -> the part it was
            drawn for), filled as the record's spans are replaced, so two people of one record
            never share a surrogate; None (corpus consistency, or a lone call): not checked.
        date_style: how the record writes its numeric dates (:func:`~.dates.date_style`):
            ``"padded"``, ``"unpadded"`` or ``""`` (unknown).
    """

    entity: Callable[[str], Stream]
    record: Callable[[str], Stream]
    avoid: AvoidNames
    roles: Mapping[str, str] = field(default_factory=dict)
    taken: dict[str, str] | None = None
    date_style: str = ""


class Maker(Protocol):
    """Builds the surrogate of one label: ``make(text, context) -> str``."""

    label: str

    def make(self, text: str, context: Context) -> str:
        """A fake value of the same kind and shape as ``text``; never ``text`` itself."""
        ...


__all__ = ["LABELS", "PRF", "Context", "Maker", "Stream", "prf_from_key"]
