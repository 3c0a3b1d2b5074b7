"""The ``llm`` detector's verifier: the request listing the candidates, and reading its reply.

Each candidate is sent on a numbered line, between ``<mark>`` and ``</mark>`` inside 60
characters of context on each side; the model answers ``N: T`` or ``N: F``. A reply that echoes
the request is no answer, even where an echoed line happens to read as one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from .base import Span

VERIFIER_PROMPT: Final = (
    "Each numbered candidate below was marked as personal information; the candidate is shown "
    "between <mark> and </mark> inside its context. Answer one line per candidate, 'N: T' if it is "
    "personal information about a real private person (a name, contact, ID, date, address, age) "
    "and 'N: F' if it is not (a famous person, an eponym, a drug, an institution, a common word)."
)

# a verifier line: "N<sep> rest" (the separator one of : . ) -), the rest starting with a verdict
_NUMBERED = re.compile(r"^[^\S\n]*(\d{1,9})[^\S\n]*[:.)\-][^\S\n]*(.*)$", re.MULTILINE)
_VERDICT = re.compile(r"(t|f|true|false)\b")


def normalized(text: str) -> str:
    """Whitespace runs as one space, case-folded: how replies are compared with what was sent."""
    return " ".join(text.split()).casefold()


def candidates(text: str, spans: Sequence[Span]) -> list[tuple[str, str, str]]:
    """(left context, candidate, right context) of each span, 60 characters on each side."""
    return [(text[max(0, s.start - 60):s.start], text[s.start:s.end], text[s.end:s.end + 60]) for s in spans]


def request(listed: list[tuple[str, str, str]]) -> str:
    """The verifier's message: one numbered line per candidate, marked inside its context."""
    return "\n".join(f"{i}. " + " ".join(f"{left}<mark>{value}</mark>{right}".split())
                     for i, (left, value, right) in enumerate(listed, 1))


def _carries(said: str, context: str) -> bool:
    """Whether ``said`` repeats 16 characters of ``context`` in a row (all of it when shorter).

    Contexts under 8 characters ("Dr.", ".") are left out: an explanation may well repeat them.
    """
    if len(context) < 8:
        return False
    width = min(len(context), 16)
    return any(context[i:i + width] in said for i in range(len(context) - width + 1))


def parse_verdicts(reply: str, listed: list[tuple[str, str, str]]) -> dict[int, str] | None:
    """The verdicts ``{N: "T" or "F"}`` of a verifier reply; None when the reply echoes the request.

    ``listed`` holds each candidate's (left context, candidate, right context) as sent. Echoes:
    a reply repeating the ``<mark>`` tags; a numbered line that goes on past its verdict word as
    its candidate's line does, or contains all of it; a numbered line carrying a piece of its
    candidate's context. An echoed line "1. False alarm: Ann Lee called" would otherwise read as
    the verdict F, and the verifier that cannot answer would drop a true candidate.
    """
    folded = reply.casefold()
    if "<mark>" in folded or "</mark>" in folded:
        return None
    verdicts = {}
    for number, rest in _NUMBERED.findall(reply):
        n, said = int(number), normalized(rest.replace("*", ""))
        verdict = _VERDICT.match(said)
        if 1 <= n <= len(listed):
            left, right = (normalized(part.replace("*", "")) for part in listed[n - 1][::2])
            line = normalized("".join(listed[n - 1]).replace("*", ""))
            goes_on = len(said) > (verdict.end() if verdict else 0)
            if (goes_on and line.startswith(said)) or line in said or _carries(said, left) \
                    or _carries(said, right):
                return None
        if verdict:
            verdicts[n] = verdict.group(1)[0].upper()
    return verdicts
