"""LOCATION surrogates: a fake town of the same shape, from Faker's en_US city formats.

A place (``Tyler``, ``Yonkers``, ``Will County``, ``KUMASI``) becomes a fake town name drawn by the
release key from the entity's text, so every mention of one place gets one surrogate: Faker's
``city()`` (``Lake Jennifer``, ``Smithmouth``), seeded from the key's stream, tried until it has as
many words as the original (one word for one word where Faker allows) and shares no word with it;
a trailing ``County`` / ``City`` / ``Island`` stays, and the original's case is kept (upper case
stays upper case, lower case lower case), and so are a possessive and the punctuation around the
place (``(Lagos)``, ``Boston's``), and commas: each comma part is a place of its own (``Brooklyn,
NY`` -> ``Lake Cindybury, TX``; a two-letter upper-case part a state). Faker writes fake towns, so the
surrogate points at no real place.
"""

from __future__ import annotations

import re
import threading
from typing import Any

from ..leakguard import keys_are_variants
from .base import Context
from .config import SurrogateConfig
from .keys import entity_key
from .shape import edges

#: words a place name may end with that the surrogate keeps (``Will County`` -> ``Smithmouth County``)
_KINDS = frozenset({"county", "city", "island", "islands", "town", "township", "parish", "borough",
                    "village"})
MAX_ATTEMPTS = 16
#: the comma between the parts of a place (``Brooklyn, NY``)
_PARTS = re.compile(r"(\s*,\s*)")


class LocationMaker:
    """LOCATION surrogates (see the module docstring)."""

    label = "LOCATION"

    def __init__(self, config: SurrogateConfig) -> None:
        self._locale = config.address_locales[0] if config.address_locales else "en_US"
        # one instance per thread: a seeded instance is state that another thread's seeding
        # would change between this thread's seeding and drawing
        self._local = threading.local()

    def _faker(self) -> Any:
        fake = getattr(self._local, "fake", None)
        if fake is None:
            from faker import Faker  # imported on first use, only when places occur

            fake = self._local.fake = Faker(self._locale)
        return fake

    def _state(self, original: str, context: Context) -> str:
        stream = context.entity(f"LOCATION\x00{entity_key(original)}")
        fake = self._faker()
        state = original
        for _ in range(MAX_ATTEMPTS):
            fake.seed_instance(stream.word())
            state = str(getattr(fake, "state_abbr", fake.city_suffix)()).upper()
            if state != original:
                break
        return state

    def make(self, text: str, context: Context) -> str:
        # the punctuation a span took in around the place (``(Lagos)``, ``Boston,``) and a
        # possessive (``Boston's``) stay around the surrogate
        lead, stripped, trail = edges(text, possessive=True)
        if not stripped:
            return text
        if "," in stripped:  # ``Brooklyn, NY``: each part a place of its own, the commas kept
            return lead + "".join(part if k % 2 or not part else self.make(part, context)
                                  for k, part in enumerate(_PARTS.split(stripped))) + trail
        if len(stripped) == 2 and stripped.isupper() and stripped.isalpha():  # a state (``NY``)
            return f"{lead}{self._state(stripped, context)}{trail}"
        words = stripped.split()
        kind = words[-1] if len(words) > 1 and words[-1].lower() in _KINDS else ""
        core = words[:-1] if kind else words
        stream = context.entity(f"LOCATION\x00{entity_key(stripped)}")
        fake = self._faker()
        originals = {w for w in re.findall(r"[^\W\d_]{3,}", entity_key(" ".join(core)))}
        best = ""
        for _ in range(MAX_ATTEMPTS):
            fake.seed_instance(stream.word())
            candidate = str(fake.city())
            mine = set(re.findall(r"[^\W\d_]{3,}", entity_key(candidate)))
            if any(keys_are_variants(w, o) for w in mine for o in originals):
                continue
            best = best or candidate
            if len(candidate.split()) == len(core):
                best = candidate
                break
        best = best or "Springfield"
        if kind:
            best = f"{best} {kind}"
        if stripped.isupper():
            best = best.upper()
        elif stripped.islower():  # ``boston`` in a chat: a capitalized town would stand out
            best = best.lower()
        return f"{lead}{best}{trail}"
