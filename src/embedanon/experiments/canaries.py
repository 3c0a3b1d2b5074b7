"""Injected canary names: does a release let a person's name through? (issue 8, privacy figures)

For the documents a cell attacks, :func:`inject_canaries` makes a *copy* with a few synthetic
names (Faker, several cultures, seeded) written into it as short sentences at the start, middle
and end; the copy is anonymized like the corpus, and :func:`leaked_parts` counts the canary name
parts (first and last names, lookup keys of their alphabetic word parts) that occur as a word
anywhere in that copy's release. The classifier never sees the copies: utility numbers are those
of the un-injected corpus.

A name part is only drawn if it does not occur in the original document, so a hit is the name
coming through, or (rarely) the mechanism producing that very word for some other word (counted
as a leak: an attacker cannot tell the two apart either).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..utility.upstream import tokens

#: Faker locales the names come from; ``zh_CN`` and ``ja_JP`` give romanized names.
LOCALES = ("en_US", "en_IN", "es_MX", "de_DE", "fr_FR", "pl_PL", "tr_TR", "vi_VN", "sw", "zh_CN", "ja_JP")
_ROMANIZED = frozenset({"zh_CN", "ja_JP"})
TEMPLATES = (
    "{name} was seen today.",
    "Contact: {name}.",
    "Reported by {name}.",
    "{name} agreed with this.",
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True, slots=True)
class Injected:
    """A document copy with canary names.

    Attributes:
        text: the copy (original text with the canary sentences inserted).
        parts: the canary name parts (lookup keys), one entry per occurrence written.
    """

    text: str
    parts: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.parts:
            raise ConfigError("an injected document must carry at least one canary name part")


@lru_cache(maxsize=len(LOCALES))
def _faker(locale: str) -> Any:
    from faker import Faker

    return Faker(locale)


def _name(locale: str, rng: np.random.Generator) -> tuple[str, str]:
    fake = _faker(locale)
    fake.seed_instance(int(rng.integers(2**31)))
    if locale in _ROMANIZED:
        return str(fake.first_romanized_name()), str(fake.last_romanized_name())
    return str(fake.first_name()), str(fake.last_name())


def inject_canaries(text: str, *, seed: int, index: int, names: int = 3) -> Injected:
    """A copy of ``text`` with ``names`` synthetic full names written into it.

    Args:
        text: the document.
        seed: the cell's seed; with ``index`` it fixes the names and where they go.
        index: the document's position in the corpus.
        names: how many full names (each first + last) to insert, >= 1.

    Raises:
        ConfigError: ``names`` < 1, or no name could be drawn whose parts are absent from ``text``.
    """
    if isinstance(names, bool) or not isinstance(names, int) or names < 1:
        raise ConfigError(f"names must be an integer >= 1, got {names!r}")
    rng = np.random.default_rng(np.random.SeedSequence([seed, index, 0xCA7A]))
    present = set(tokens(text))
    sentences = _SENTENCE_END.split(text)
    inserts: list[tuple[int, str]] = []
    parts: list[str] = []
    for n in range(names):
        for _ in range(50):
            locale = LOCALES[int(rng.integers(len(LOCALES)))]
            first, last = _name(locale, rng)
            keys = tokens(f"{first} {last}")
            if keys and not present.intersection(keys) and all(len(k) >= 2 for k in keys):
                break
        else:
            raise ConfigError("could not draw a canary name absent from the document")
        at = round(n * len(sentences) / max(names - 1, 1)) if names > 1 else 0
        template = TEMPLATES[int(rng.integers(len(TEMPLATES)))]
        inserts.append((min(at, len(sentences)), template.format(name=f"{first} {last}")))
        parts.extend(keys)
    out: list[str] = []
    for i in range(len(sentences) + 1):
        out.extend(s for at, s in inserts if at == i)
        if i < len(sentences) and sentences[i]:
            out.append(sentences[i])
    return Injected(" ".join(out), tuple(parts))


def leaked_parts(release: str, parts: Sequence[str]) -> int:
    """How many of ``parts`` (lookup keys) occur as a word anywhere in ``release``."""
    words = set(tokens(release))
    return sum(p in words for p in parts)
