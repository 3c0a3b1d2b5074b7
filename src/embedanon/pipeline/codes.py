"""Numbers and codes: every digit and letter drawn afresh, uniformly, shape kept.

``2023-01-15`` -> ``7481-02-37``, ``(617) 555-0134`` -> ``(931) 144-2448``, ``A12B`` -> ``E29Z``.
Each character is drawn uniformly from its class (it may come out the same: a rule that every
digit must change would itself leak, since each release would rule one value out), except that
the first digit of a multi-digit run is drawn from 1-9 so magnitudes and formats survive.
"""

from __future__ import annotations

import unicodedata

_ASCII_LOWER = "abcdefghijklmnopqrstuvwxyz"


def code_chars(code: str) -> str:
    """The characters of ``code`` that are drawn (combining marks are dropped)."""
    if code.isascii():
        return code
    return "".join(ch for ch in code if not unicodedata.category(ch).startswith("M"))


def replace_code(chars: str, draws: list[float]) -> str:
    """New characters for ``chars`` (from :func:`code_chars`), one uniform draw per character.

    Letters become a uniform ASCII letter of the same case; digits a uniform digit (1-9 at the
    start of a multi-digit run); other numeric characters (``½``) a uniform digit.
    """
    buf = []
    for i, ch in enumerate(chars):
        u = draws[i]
        if ch.isalpha():
            new = _ASCII_LOWER[int(u * 26)]
            buf.append(new.upper() if ch.isupper() else new)
            continue
        run_start = i == 0 or chars[i - 1].isalpha()
        multi = i + 1 < len(chars) and not chars[i + 1].isalpha()
        if run_start and multi and unicodedata.digit(ch, -1) >= 0:
            buf.append(str(1 + int(u * 9)))
        else:
            buf.append(str(int(u * 10)))
    return "".join(buf)
