"""The shipped public word lists (``embedanon.lexicon``): sizes, ranks, and what reads as a name."""

from __future__ import annotations

import pytest

from embedanon.lexicon import (
    common_word,
    dictionary_word,
    dictionary_words,
    drug_words,
    group_names,
    large_cities,
    name_like,
    name_parts,
    person_noun,
    person_nouns,
    place_names,
    public_figure_key,
    public_figures,
    weighty_name,
    word_frequencies,
    word_ranks,
)


def test_word_list_and_ranks_agree():
    freqs, ranks = word_frequencies(), word_ranks()
    assert len(freqs) == len(ranks) == 100_000
    top = sorted(freqs, key=lambda w: -freqs[w])[:3]
    assert [ranks[w] for w in top] == [0, 1, 2] and common_word("THE") and not common_word("bedevere")


@pytest.mark.parametrize(
    ("word", "expected"),
    [("Bedevere", True), ("mawu", True), ("Jack", True), ("ARTHUR", True), ("Gibbs", True), ("Turner", True),
     ("Guy", False), ("Black", False), ("Knight", False), ("doctor", False), ("Quiet", False), ("a", False)],
)
def test_name_like(word, expected):
    assert name_like(word) is expected


def test_name_parts_and_weights():
    assert weighty_name("john", "first") and not weighty_name("guy") and not weighty_name("black", "first")
    assert "okafor" not in name_parts("first") and set(name_parts("first")) <= set(name_parts())


def test_name_parts_are_read_once_per_part():
    """Each part's table is built once, whichever spellings callers use: the detection rules and
    the name guard ask for given names, all parts and surnames in turn, and a cache of two made
    each text rebuild the tables (about 45 ms each)."""
    first = name_parts("first")
    everything = name_parts()
    for _ in range(2):
        name_parts(None), name_parts("last"), name_parts(part="first")
    assert name_parts("first") is first and name_parts() is everything


def test_drug_words_are_rare_and_never_a_listed_name():
    drugs = drug_words()
    assert {"ativan", "zetia", "bactrim"} <= drugs
    assert not drugs & set(name_parts()) and not any(common_word(w) for w in drugs)


def test_person_nouns_are_kinds_of_people_and_never_a_listed_name():
    nouns = person_nouns()
    assert {"hobo", "crone", "bosun", "heathen", "bartender"} <= nouns
    assert not nouns & set(name_parts())  # 'patsy', 'hunter', 'jack' are names first
    assert person_noun("BARTENDERS") and person_noun("Witches") and person_noun("Hobo")
    assert not person_noun("Patsy") and not person_noun("Okafor") and not person_noun("hobos-ish")


def test_dictionary_words_are_lower_case_lemmas_and_never_a_listed_name():
    words = dictionary_words()
    assert {"melena", "sushi", "tannic", "vanquish", "went", "geese"} <= words
    assert person_nouns() <= words
    assert not words & set(name_parts())  # 'hope', 'rose', 'dean', 'said' are names first
    assert not {"einstein", "paris", "london"} & words  # WordNet writes them capitalized: names
    assert dictionary_word("Sombreros") and dictionary_word("jimmied") and dictionary_word("fruitier")
    assert not dictionary_word("hope") and not dictionary_word("tunde") and not dictionary_word("Okafor")


def test_an_inflection_is_spelt_as_english_spells_it():
    """Decision 0249: ``fare`` + ``ed`` is ``fared``, not ``fareed``; ``ham`` doubles its ``m``.
    The given names Fareed, Waleed, Sameer and Naveed were read as inflected dictionary words."""
    assert not any(dictionary_word(w) for w in ("fareed", "Waleed", "sameer", "naveed"))
    assert all(dictionary_word(w) for w in ("fared", "freed", "agreed", "visited", "jumped", "gases",
                                            "tamer", "baked", "rained", "played", "fixed", "biker"))


def test_public_figures_are_full_names_and_never_two_common_name_parts():
    figures = public_figures()
    assert {"tony blair", "amelia earhart", "salvador dali", "dwight d eisenhower"} <= figures
    assert all(" " in f for f in figures)  # one word never: 'Newton' may be anyone's surname
    assert "john smith" not in figures and "james wilson" not in figures
    assert public_figure_key("Salvador Dal\u00ed\u2019s") == "salvador dali"
    assert public_figure_key(" Dwight D. Eisenhower ") == "dwight d eisenhower"
    assert public_figure_key("Zeta-Jones'") == "zeta jones"


def test_group_names_are_countries_states_and_kinds_of_people_never_a_name_part():
    groups = group_names()
    assert {"afghan", "scandinavian", "dutchman", "ghana", "minnesota", "saudi arabia"} <= groups
    parts = set(name_parts())
    assert not any(w in parts for g in groups for w in g.split())  # 'jordan', 'georgia', 'christian'
    assert "jordan" not in groups and "christian" not in groups


def test_large_cities_are_one_word_cities_never_a_word_a_given_name_or_a_state():
    cities = large_cities()
    assert {"london", "chicago", "dallas", "barcelona", "houston", "tokyo"} <= cities
    assert cities <= place_names()
    assert not {"reading", "nice", "van", "austin", "charlotte", "sydney", "texas", "new york"} & cities
    assert all(" " not in c for c in cities)
