"""Numbers and codes: every digit and letter replaced by another of its class, shape kept."""

from __future__ import annotations

import unicodedata

import numpy as np

_ASCII_LOWER = "abcdefghijklmnopqrstuvwxyz"


def replace_codes(codes: list[str], rng: np.random.Generator) -> list[str]:
    """Replace each digit by another digit and each letter by another letter of the same case.

    The first digit of a multi-digit run is never 0 (magnitudes and formats survive, values do
    not). Every output character differs from the input character at its position; combining
    marks are dropped; other numeric characters (``½``) become a random digit.
    """
    if not codes:
        return []
    texts = ["".join(ch for ch in code if not unicodedata.category(ch).startswith("M"))
             for code in codes]
    draws = rng.random(sum(map(len, texts))).tolist()
    out: list[str] = []
    pos = 0
    for chars in texts:
        buf = []
        for i, ch in enumerate(chars):
            u = draws[pos]
            pos += 1
            if ch.isalpha():
                base = ch.lower()
                if len(base) == 1 and base in _ASCII_LOWER:
                    new = _ASCII_LOWER[(_ASCII_LOWER.index(base) + 1 + int(u * 25)) % 26]
                else:
                    new = _ASCII_LOWER[int(u * 26)]
                buf.append(new.upper() if ch.isupper() else new)
                continue
            value = unicodedata.digit(ch, -1)
            run_start = i == 0 or chars[i - 1].isalpha()
            multi = i + 1 < len(chars) and not chars[i + 1].isalpha()
            if value < 0:
                buf.append(str(int(u * 10)))
            elif run_start and multi and value != 0:
                buf.append(str(1 + (value + int(u * 8)) % 9))  # 1..9 except value
            elif run_start and multi:
                buf.append(str(1 + int(u * 9)))  # leading zero -> 1..9
            else:
                buf.append(str((value + 1 + int(u * 9)) % 10))  # 0..9 except value
        out.append("".join(buf))
    return out
