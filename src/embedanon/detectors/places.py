"""LOCATION, ORGANIZATION and street ADDRESS spans by shape, context and public gazetteers (part of
``regex``).

HIPAA Safe Harbor counts every geographic unit smaller than a state as an identifier; people also
expect hospitals, clinics, schools and employers to go. Neither is a class of the trained model,
so both are found here, from public data only (:mod:`embedanon.lexicon`):

* ORGANIZATION: one to four capitalized words (``St.``, a possessive ``'s``, ``of`` and ``&``
  allowed inside) ending in an institution word (``Hospital``, ``Medical Center``, ``Clinic``,
  ``University``, ``College``, ``School``, ``Institute``, ``Church``, ``Bank``, ``Inc.``,
  ``LLC`` ...): ``St. Lizbeth Medical Center``, ``Cluj Children's Hospital``; and ``University
  of X`` / ``College of X`` / ``Bank of X``. A leading article or a sentence-opening common word
  stays outside (``The Behavior Center`` → ``Behavior Center``).
* LOCATION: one to three capitalized words that name a town or city of 5,000 people or more or a
  US county (GeoNames; countries and US states are not identifiers and are not listed), after a
  locative word (``in``, ``from``, ``of``, ``near``, ``to``, ``at``, ``outside``, ``visiting``:
  ``in Tyler``, ``94, of Yonkers``), or anywhere when the name is no common English word and no
  person's name part, accents aside (``Kumasi``, ``Mornington``, ``Yogyakarta``; not
  ``González``); a one-word place among the 5,000 most frequent public words only when it is a
  large city (:func:`~embedanon.lexicon.large_cities`: ``in London``, ``to Dallas``; never
  ``March``, ``Reading``, ``Austin``) and after a locative word; a place whose name holds its
  article after a locative word and the article (``in the Bronx``, ``near the Village``: the
  article stays outside); never right after a title
  (``Mr. González``, ``Dr. Tyler`` are people) nor as the name part of a line-start speaker
  label (``Luena:``, ``Carmo:``: a speaker is a person or a role, never a place;
  :mod:`embedanon.structure`; ``Guy from Yonkers:`` is a role and keeps its place).

* LOCATION also: a landmark or a part of a city by its shape, one to three capitalized words and
  ``Park``, ``Square``, ``Building``, ``Bridge``, ``Station``, ``Terminal``, ``Plaza`` or ``Mall``
  (``Central Park``, ``Penn Station``), or ``(Upper|Lower) East|West Side``, ``East|West
  Village``; not before another capitalized word (``West Side Story``), after a common given
  name (``Jennifer Park``) unless a locative word comes first (``at Victoria Station``; decision
  0212), nor inside a speaker label (decision 0156).
* ADDRESS: a street's name, one to three capitalized words or an ordinal and a street word
  (``Street``, ``Avenue``, ``Ave.``, ``Road``, ``Boulevard``, ``Parkway``, ``Highway``, ``St.``),
  with its house number when one comes before (``Nevins Street``, ``5th Ave``, ``12 Oak Road``),
  and ``Avenue D``; not before another capitalized word (``Wall Street Journal``, ``St. Louis``)
  nor inside a speaker label (decision 0154).

Only in text with both cases: capitals are the evidence. In text with no capital letter
(a chat typed in lower case), :func:`caseless_locations` reads a large city or a distinctive town
after a locative word (``im from chennai``, ``moved to leeds``; decision 0178).
"""

from __future__ import annotations

import re

from .._english import TITLES, after_title
from ..lexicon import (
    COMMON_RANK,
    NAME_RANK,
    folded,
    large_cities,
    name_like,
    name_parts,
    place_names,
    weighty_name,
    word_ranks,
)
from ..structure import speaker_labels
from .base import Span

#: the institution words an organization's name ends in
_INSTITUTIONS = (
    "Hospital", "Hospitals", "Medical Center", "Medical Centre", "Health Center", "Health Centre",
    "Health System", "Clinic", "Clinics", "Infirmary", "Hospice", "Nursing Home", "Rehabilitation Center",
    "University", "College", "School", "Academy", "Institute", "Center", "Centre", "Church", "Inc.", "Inc",
    "Corp.", "Corp", "Corporation", "LLC", "Ltd.", "Ltd", "Company", "Bank", "Foundation", "Laboratories",
    "Pharmacy", "Vineyards", "Winery",
)
_CAP = r"(?:[A-Z][\w'\u2019\-]*|St\.)"
#: a capitalized run before an institution word: up to four words (``of``, ``&``, ``and`` inside)
_ORG = re.compile(
    rf"(?<![\w.])({_CAP}(?:[ \t]+(?:(?:of|and|&)[ \t]+)?{_CAP}){{0,3}}[ \t]+"
    rf"(?:{'|'.join(re.escape(w) for w in sorted(_INSTITUTIONS, key=len, reverse=True))}))(?![\w])"
)
_ORG_OF = re.compile(rf"(?<![\w.])((?:University|College|Bank|Institute|School)[ \t]+of[ \t]+{_CAP}"
                     rf"(?:[ \t]+{_CAP}){{0,2}})(?![\w])")
#: words an organization's span does not start with (an article, a sentence's first word)
_ORG_OPENERS = frozenset({"the", "a", "an", "at", "in", "to", "from", "of", "and", "our", "my", "his", "her",
                          "their", "this", "that", "seen", "by"})
#: a capitalized phrase of one to three words that may be a place
_PHRASE = re.compile(r"(?<![\w'\u2019\-])([A-Z][a-z\u00c0-\u024f'\u2019\-]+|[A-Z]{2,})"
                     r"(?:[ \t]+([A-Z][a-z\u00c0-\u024f'\u2019\-]+|[A-Z]{2,})){0,2}(?![\w'\u2019\-])")
#: capitalized words a phrase may open with before the place (``In Yonkers``, ``Near Akron``)
_LEADING = frozenset({"in", "from", "of", "near", "to", "at", "outside", "around", "visiting", "toward",
                      "towards", "into", "the"})
#: the article right before a capitalized phrase (``in the Bronx``, ``in The Hague``)
_ARTICLE_BEFORE = re.compile(r"(?<![\w'\u2019-])[Tt]he[ \t]+\Z")
#: words a place name follows
_LOCATIVE = re.compile(r"(?:^|[^\w])(?:in|from|of|near|to|at|outside|around|visiting|towards?|into)[ \t]+\Z",
                       re.IGNORECASE)


def _after_locative(text: str, start: int) -> bool:
    """Whether a word a place name follows (:data:`_LOCATIVE`) ends right before ``start``, within
    20 characters (the longest word, ``visiting``, and room for spaces)."""
    return _LOCATIVE.search(text, max(0, start - 20), start) is not None


#: a street's name: one to three capitalized words or an ordinal (``Nevins``, ``33rd``, ``Fifth``), with
#: a house number before them or not, and a street word; or ``Avenue`` and a letter (``Avenue D``).
#: ``Lane``, ``Drive``, ``Place`` and ``Way`` are surnames or common words and are left to the model.
_STREET = re.compile(
    r"(?<![\w.'\u2019\-])((?:\d{1,5}[ \t]+)?(?:[A-Z][a-z'\u2019\-]+|\d{1,3}(?:st|nd|rd|th))"
    r"(?:[ \t]+[A-Z][a-z'\u2019\-]+){0,2}[ \t]+(?:Street|Avenue|Ave\.?|Road|Rd\.|Boulevard|Blvd\.?|Parkway"
    r"|Highway|St\.)|Avenue[ \t][A-Z])(?![\w'\u2019\-])"
)
#: a word every match of :data:`_STREET` holds
_STREET_WORDS = ("Street", "Avenue", "Ave", "Road", "Rd.", "Boulevard", "Blvd", "Parkway", "Highway", "St.")
_APOSTROPHE = re.compile("['\u2019]")
#: an ordinal street number (``42nd``, ``5th``): ``42nd St.`` is a street even before a capital
_ORDINAL = re.compile(r"\d{1,3}(?:st|nd|rd|th)")
#: a capitalized word right after: the street word is inside a longer name (``Wall Street
#: Journal``, ``St. Louis``)
_CAPITAL_AFTER = re.compile(r"[ \t]+[A-Z]")


class _Outside:
    """Whether a candidate ``[a, b)`` of ``text`` lies outside every span of ``taken`` and every
    line-start speaker label (the labels read on first use only: most texts have no candidate)."""

    def __init__(self, text: str, taken: list[Span] | None) -> None:
        self._text = text
        self._taken = [(s.start, s.end) for s in taken or ()]
        self._labels: list[tuple[int, int]] | None = None

    def __call__(self, a: int, b: int) -> bool:
        if any(x < b and a < y for x, y in self._taken):
            return False
        if self._labels is None:
            self._labels = [(label.start, label.end) for label in speaker_labels(self._text)]
        return not any(x < b and a < y for x, y in self._labels)


def streets(text: str, taken: list[Span] | None = None) -> list[Span]:
    """ADDRESS spans of the street names of ``text`` (``Nevins Street``, ``on 5th Ave``, ``Avenue
    D``, ``12 Oak Road``; decision 0154), sorted, disjoint, score 1; none inside a span of
    ``taken``, inside a line-start speaker label (``Wall Street guy #1:`` is a role), before a
    capitalized word (``Wall Street Journal``, ``St. Louis``) or opening with a common word
    (``It's Nevins Street`` keeps ``Nevins Street``)."""
    if not any(word in text for word in _STREET_WORDS):  # the scan costs; most texts name no street
        return []
    free = _Outside(text, taken)
    out: list[Span] = []
    for m in _STREET.finditer(text):
        a, b = m.span(1)
        words = text[a:b].split()
        if _CAPITAL_AFTER.match(text, b) and not (words[-1] == "St." and _ORDINAL.fullmatch(words[-2])):
            continue
        # leading words that are no name (``It's``, ``The``, ``Take``) stay outside; one stays
        while len(words) > 2 and not words[0][0].isdigit() and not name_like(_APOSTROPHE.split(words[0])[0]):
            a = text.index(words[1], a + len(words[0]))
            words = words[1:]
        if free(a, b):
            out.append(Span(a, b, "ADDRESS", 1.0, "regex"))
    return out


#: a landmark or a part of a city by its shape: one to three capitalized words and a landmark word
#: (``Central Park``, ``Union Square``, ``Crown Building``, ``Penn Station``), or a side or village of
#: a city (``Upper East Side``, ``East Village``)
_LANDMARK = re.compile(
    r"(?<![\w'\u2019\-])((?:[A-Z][a-z'\u2019\-]+[ \t]+){1,3}"
    r"(?:Park|Square|Building|Bridge|Station|Terminal|Plaza|Mall)"
    r"|(?:(?:Upper|Lower)[ \t]+)?(?:East|West)[ \t]+(?:Side|Village))(?![\w'\u2019\-])"
)

#: function words that open a sentence or a question before a landmark and are never part of its
#: name (``Can Central Park ...``, ``Is Union Square ...``, ``And Penn Station``): auxiliaries and
#: modals, question words, pronouns, determiners and conjunctions (decision 0212); not ``May`` or
#: ``Will``, which are also given names
_LANDMARK_OPENERS = _LEADING | frozenset({
    "a", "an", "and", "are", "but", "can", "could", "did", "do", "does", "had", "has", "have", "he",
    "her", "his", "how", "if", "is", "it", "its", "let's", "might", "must", "my", "or", "our",
    "shall", "she", "should", "so", "that", "their", "then", "these", "they", "this", "those", "was",
    "we", "were", "what", "when", "where", "which", "who", "why", "would", "you", "your"})

#: a word every match of :data:`_LANDMARK` holds
_LANDMARK_WORDS = ("Park", "Square", "Building", "Bridge", "Station", "Terminal", "Plaza", "Mall", "Side",
                   "Village")


def landmarks(text: str, taken: list[Span] | None = None) -> list[Span]:
    """LOCATION spans of the landmarks and city parts of ``text`` (``Central Park``, ``Times
    Square``, ``Penn Station``, ``Upper East Side``; decision 0156), sorted, disjoint, score 1;
    none inside a span of ``taken``, inside a line-start speaker label, before a capitalized word
    (``West Side Story``, ``Oak Park Arms``), after a common given name unless a locative word
    comes first (``Jennifer Park`` is a person, ``at Victoria Station`` a place), or made of an
    opening word alone (``The Square``). Opening function words stay outside (``Can``, ``Is``,
    ``The``, ``In``: decision 0212)."""
    if not any(word in text for word in _LANDMARK_WORDS):  # the scan costs; most texts name none
        return []
    free = _Outside(text, taken)
    out: list[Span] = []
    for m in _LANDMARK.finditer(text):
        a, b = m.span(1)
        if _CAPITAL_AFTER.match(text, b):
            continue
        words = text[a:b].split()
        while len(words) > 1 and words[0].lower().replace("\u2019", "'") in _LANDMARK_OPENERS:
            a = text.index(words[1], a + len(words[0]))
            words = words[1:]
        if len(words) >= 2 and free(a, b) and (not weighty_name(words[-2], "first")
                                               or _after_locative(text, a)):
            out.append(Span(a, b, "LOCATION", 1.0, "regex"))
    return out


def organizations(text: str) -> list[Span]:
    """ORGANIZATION spans of ``text`` (module docstring), sorted, disjoint, score 1."""
    found: list[tuple[int, int]] = []
    for pattern in (_ORG_OF, _ORG):
        for m in pattern.finditer(text):
            a, b = m.span(1)
            words = text[a:b].split()
            while len(words) > 1 and words[0].lower() in _ORG_OPENERS:
                a = text.index(words[1], a + len(words[0]))
                words = words[1:]
            if pattern is _ORG:
                a, words = _after_person(text, a, words)
            if len(words) < 2 or any(x < b and a < y for x, y in found):
                continue
            found.append((a, b))
    return [Span(a, b, "ORGANIZATION", 1.0, "regex") for a, b in sorted(found)]


def _after_person(text: str, a: int, words: list[str]) -> tuple[int, list[str]]:
    """Where an organization whose words are ``words``, from ``a``, starts when a person and
    ``of`` come first (``Dr Amara Okafor of Kumasi General Hospital``, ``Mary Smith of Acme Bank``:
    decision 0216): after the last ``of``, when the words before it, titles left aside, are listed
    name parts, and a title comes first or they are two or more; else ``a`` and ``words`` as they
    are (``Sisters of Mercy Hospital``, ``University of Ghana Medical School``, ``Our Lady of
    Lourdes Hospital``)."""
    if "of" not in words[1:-1]:
        return a, words
    k = len(words) - 1 - words[::-1].index("of")
    person = words[:k]
    titled = after_title(text, a)
    while person and person[0].rstrip(".").lower() in TITLES:
        person, titled = person[1:], True
    if not person or not (titled or len(person) > 1) or not all(folded(w) in name_parts() for w in person):
        return a, words
    for w in words[: k + 1]:
        a = text.index(w, a) + len(w)
    rest = words[k + 1 :]
    return text.index(rest[0], a), rest


def _well_known(phrase: str) -> bool:
    """A one-word place name among the 5,000 most frequent public English words that is no large
    city: a common word (``March``, ``Reading``, ``Mobile``) or a name (``Austin``). A large city
    (``London``, ``Dallas``) is a place after a locative word (0152)."""
    key = phrase.lower()
    rank = word_ranks().get(key)
    return " " not in phrase and rank is not None and rank < NAME_RANK and key not in large_cities()


def _distinctive(phrase: str) -> bool:
    """A place name no English word or person's name shares (every word rare, none a name part)."""
    ranks, parts = word_ranks(), name_parts()
    words = [folded(w) for w in re.findall(r"[^\W\d_]+", phrase)]  # name parts are keyed in ASCII
    return all(ranks.get(w, COMMON_RANK) >= COMMON_RANK and w not in parts for w in words) and len(phrase) > 3


def locations(text: str, taken: list[Span] | None = None) -> list[Span]:
    """LOCATION spans of ``text`` (module docstring), sorted, disjoint, score 1; none inside a span
    of ``taken`` (the organizations: ``Kumasi General Hospital`` is one organization)."""
    places = place_names()
    taken_ranges = [(s.start, s.end) for s in taken or ()]
    out: list[Span] = []
    for m in _PHRASE.finditer(text):
        a, b = m.span()
        if any(x < b and a < y for x, y in taken_ranges):
            continue
        if after_title(text, a):  # a surname (``Mr. González``), not a place
            continue
        words = text[a:b].split()
        while len(words) > 1 and words[0].lower() in _LEADING:  # 'In Yonkers', 'The Bronx'
            a = text.index(words[1], a + len(words[0]))
            words = words[1:]
        # a place whose name holds its article (``the Bronx``, ``the Village``, ``The Hague``): the
        # article stays outside the span and the locative word comes before it (decision 0155)
        article = _ARTICLE_BEFORE.search(text, max(0, a - 5), a)
        # the longest run of leading words that names a place (``Chiang Mai`` of ``Chiang Mai Night``)
        for n in range(len(words), 0, -1):
            phrase = " ".join(words[:n])
            end = text.index(words[n - 1], a) + len(words[n - 1])
            if (article is not None and "the " + phrase.lower() in places
                    and _after_locative(text, article.start())):
                out.append(Span(a, end, "LOCATION", 1.0, "regex"))
                break
            if phrase.lower() not in places or _well_known(phrase):
                continue
            after_locative = _after_locative(text, a)
            if after_locative or _distinctive(phrase):
                out.append(Span(a, end, "LOCATION", 1.0, "regex"))
            break
    if out:  # a speaker label's name part is a person or a role (read only when a place is found)
        speakers = [part for label in speaker_labels(text) for part in label.names]
        out = [s for s in out if not any(x < s.end and s.start < y for x, y in speakers)]
    return out


_WORD_IN_PHRASE = re.compile(r"[^\W\d_]+")
#: a line's text after its speaker label, if any, when it holds no capital letter
_CASELESS_LINE = re.compile(r"^(?:[^:\n]{1,40}:[ \t]*)?([^\n]*)$", re.M)
#: a place after a locative word in text without capitals: up to three lower-case words
_CASELESS_PLACE = re.compile(
    r"(?:^|(?<=[^\w]))(?:in|from|near|to|at|outside|around|visiting|towards?|into)[ \t]+(?:the[ \t]+)?"
    r"([^\W\d_]+(?:[ \t]+[^\W\d_]+){0,2})")


def caseless_locations(text: str, taken: list[Span] | None = None) -> list[Span]:
    """LOCATION spans in the lines of ``text`` that hold no capital letter after their speaker
    label, if any (decision 0178; a chat typed in lower case): after a locative word (``in``,
    ``from``, ``near`` ...), the longest run of one to three words that is a large city
    (:func:`~embedanon.lexicon.large_cities`: ``london``, ``chennai``) or a listed town whose
    every word is no common English word and no person's name part (``leeds``, ``croydon``); not
    inside a span of ``taken``. Without capitals the other place rules read nothing."""
    places, cities = place_names(), large_cities()
    taken_ranges = [(s.start, s.end) for s in taken or ()]
    out: list[Span] = []
    for line in _CASELESS_LINE.finditer(text):
        body_start, body_end = line.span(1)
        if not text[body_start:body_end].islower():  # a capital, or no letter at all
            continue
        for m in _CASELESS_PLACE.finditer(text, body_start, body_end):
            a = m.start(1)
            words = list(_WORD_IN_PHRASE.finditer(text, a, m.end(1)))
            for n in range(len(words), 0, -1):
                phrase = " ".join(w.group() for w in words[:n])
                end = words[n - 1].end()
                if phrase in cities or (phrase in places and _distinctive(phrase)):
                    if not any(x < end and a < y for x, y in taken_ranges):
                        out.append(Span(a, end, "LOCATION", 1.0, "regex"))
                    break
    return out
