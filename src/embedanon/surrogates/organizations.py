"""ORGANIZATION surrogates: the institution keeps its kind, its distinctive words change.

``St. Lizbeth Medical Center`` → ``St. Okafor Medical Center``, ``Chiang Mai General Hospital`` →
``Dawson Lake General Hospital``, ``University of Lagos`` → ``University of Smithmouth``: each word
of the name that is not among the 20,000 most frequent public English words (the distinctive ones:
a founder's name, a place) becomes a surname from Faker's en_US list, drawn by the release key
from the entity's text, in the word's case (a word that reads as a person's name or names a
place counts as distinctive too: ``Mai``, ``Lagos``, ``Smith``; the same word the same surname);
the common words (``St.``, ``General``, ``Children's``, ``Hospital``, ``University of``) stay, so
the surrogate is still a hospital, a school or a company. A name of common words only
(``Behavior Center``) gets its first word replaced. The pieces of a hyphenated name change
together (``Weeks-Rivas Foundation`` → ``Okafor-Dawson Foundation``, not ``Weeks-Dawson``). A
possessive stays (``St. Mary's Hospital`` → ``St. Okafor's Hospital``). The same organization
gets the same surrogate everywhere under one key.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from ..leakguard import keys_are_variants
from ..lexicon import common_word, folded, name_like, name_parts, place_names, weighty_name
from ..text import TITLE, apply_case, case_code
from .base import Context
from .config import SurrogateConfig
from .keys import entity_key
from .shape import HYPHENS

_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*")
#: a possessive ending of a word (``Mary's``, ``Jude’s``): it stays after the surrogate
_POSSESSIVE = re.compile(r"(?<=[^\W\d_]{2})['\u2019]s$", re.IGNORECASE)
#: the words that say what kind of institution it is: they stay
_KINDS = frozenset({"hospital", "hospitals", "medical", "center", "centre", "health", "clinic", "clinics",
                    "university", "college", "school", "academy", "institute", "church", "bank",
                    "foundation", "company", "corporation", "general", "memorial", "regional", "st",
                    "saint", "of", "and", "the", "llp", "pllc", "plc"})


def _distinctive(word: str, places: frozenset[str]) -> bool:
    """A word that tells one institution from another: rare, a name, or a place. A surname that
    is also a common word (``Smith``, ``Johnson``, ``Brown``: borne by 0.1 % of the US population
    or more, :func:`~embedanon.lexicon.weighty_name`) is a name here: ``Smith Barney`` kept it."""
    if word.lower() in _KINDS:
        return False
    return not common_word(word) or name_like(word) or weighty_name(word) or word.lower() in places


def _compounds(text: str, words: list[re.Match[str]]) -> list[list[re.Match[str]]]:
    """The runs of ``words`` joined by one hyphen each (``Weeks-Rivas``, ``Day-Lewis``), of two
    words or more: a surname of several pieces is one name, so when one piece of it is distinctive
    every piece is (``Weeks`` alone is a common word; ``Weeks-Rivas Clinic`` kept it)."""
    runs: list[list[re.Match[str]]] = []
    for m in words:
        if runs and runs[-1][-1].end() + 1 == m.start() and text[m.start() - 1] in HYPHENS:
            runs[-1].append(m)
        else:
            runs.append([m])
    return [run for run in runs if len(run) > 1]


#: what joins the names of partners in a firm's name (``Okafor Banks``, ``Okafor, Banks & Chase``)
_PARTNER_JOIN = re.compile(r"\s*(?:,\s*)?(?:(?:&|and)\s+)?")


def _with_partners(text: str, words: list[re.Match[str]], distinctive: set[int]) -> None:
    """Adds to ``distinctive`` (word starts) each capitalized listed surname that is also a common
    word (``Banks``, ``Chase``, ``Love``) joined to a distinctive word by a space, a comma, ``&`` or
    ``and`` (decision 0221: ``Okonkwo Banks Clinic`` kept ``Banks``, ``Okafor, Banks & Chase LLP``
    kept both); a name of common words only is left as it is (``Planned Parenthood``)."""
    surnames = name_parts("last")
    words = [m for m in words if m.group().lower() != "and"]  # a joiner, no neighbour
    changed = bool(distinctive)
    while changed:
        changed = False
        for i, m in enumerate(words):
            if m.start() in distinctive or case_code(m.group()) != TITLE or m.group().lower() in _KINDS:
                continue
            if folded(m.group().split("'")[0]) not in surnames:
                continue
            for j in (i - 1, i + 1):
                if 0 <= j < len(words) and words[j].start() in distinctive:
                    a, b = sorted((m, words[j]), key=lambda w: w.start())
                    if _PARTNER_JOIN.fullmatch(text, a.end(), b.start()):
                        distinctive.add(m.start())
                        changed = True
                        break


class OrganizationMaker:
    """ORGANIZATION surrogates (see the module docstring)."""

    label = "ORGANIZATION"

    def __init__(self, config: SurrogateConfig) -> None:
        self._surname_list: list[str] = []

    def _surnames(self) -> list[str]:
        if not self._surname_list:  # Faker's en_US surnames, imported on first use
            provider: Any = importlib.import_module("faker.providers.person.en_US").Provider
            self._surname_list = sorted(n for n in provider.last_names if n.isascii() and n.isalpha())
        return self._surname_list

    def make(self, text: str, context: Context) -> str:
        words = list(_WORD.finditer(text))
        if not words:
            return text
        places = place_names()
        distinctive = {m.start() for m in words if _distinctive(m.group().split("'")[0], places)}
        for compound in _compounds(text, words):  # ``Weeks-Rivas``: one name, all of it or none
            if any(m.start() in distinctive for m in compound):
                distinctive.update(m.start() for m in compound)
        _with_partners(text, words, distinctive)
        targets = [m for m in words if m.start() in distinctive] or words[:1]
        stream = context.entity(f"ORGANIZATION\x00{entity_key(text)}")
        surnames = self._surnames()
        originals = {entity_key(m.group()) for m in targets}
        out, at = [], 0
        given: dict[str, str] = {}  # one word, one surrogate (``Johnson & Johnson``)
        for m in targets:
            key = entity_key(m.group().split("'")[0])
            new = given.get(key, "")
            for _ in range(0 if new else 16):
                new = stream.choice(surnames)
                if not any(keys_are_variants(entity_key(new), o) for o in originals):
                    break
            given[key] = new
            possessive = _POSSESSIVE.search(m.group())  # ``St. Mary's`` -> ``St. Okafor's``
            out.append(text[at : m.start()])
            code = case_code(m.group())
            out.append(new if code == TITLE else apply_case(new.lower(), code))  # ``McCoy`` stays
            at = m.start() + possessive.start() if possessive else m.end()
        out.append(text[at:])
        return "".join(out)
