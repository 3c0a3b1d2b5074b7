"""The decode rule for street ADDRESS spans: a street's name ends at its street word."""

from __future__ import annotations

import re

from ..._english import STREET_TYPES, UNIT_WORDS
from ...lexicon import common_word, dictionary_word, drug_words, folded, name_like, place_names, weighty_name
from ..base import Span
from ..features import fold
from .base import RuleContext

#: the words a street's name ends in (``Nevins Street``, ``5th Ave.``, ``Elm Lane``), folded, no period
STREET_WORDS = STREET_TYPES | frozenset((
    "av", "ter", "circle", "cir", "trail", "trl", "alley", "crescent", "row",
))  # fmt: skip
#: street words of other countries and of postal writing, folded, no period: an ADDRESS span that holds
#: one is an address (:func:`drop_addresses_without_evidence`; ``Calle Mayor``, ``77, rue de Pages``,
#: ``ul. Dobra 84``, ``Jl. Sudirman``, ``P.O. Box 12``, ``Kensington Mews``)
STREET_WORDS_ABROAD = frozenset((
    "rue", "chemin", "allee", "impasse", "quai", "route", "cours", "calle", "cl", "carrera", "cra", "cr",
    "kr", "dg", "tr", "tv", "transversal", "avenida", "avda", "paseo", "plaza", "camino", "callejon",
    "rambla", "ronda", "urbanizacion", "diagonal", "peatonal", "cerrada", "privada", "andador", "circuito",
    "via", "viale", "piazza", "piazzale", "vicolo", "contrada", "strada", "corso", "largo", "incrocio",
    "rotonda", "borgo", "rua", "travessa", "estrada", "praca", "alameda", "rodovia", "strasse", "straße",
    "str", "platz", "weg", "gasse", "straat", "laan", "plein", "gracht", "kade", "singel", "dreef", "jalan",
    "jl", "gang", "gg", "ul", "ulica", "al", "aleja", "plac", "box", "mews", "close", "gardens", "grove",
    "walk", "turnpike", "pike", "loop", "expressway", "freeway", "bypass", "sector", "chowk", "marg", "nagar",
))  # fmt: skip
#: words of a named place that is no street (``Deer Island``, ``Millstone Hill``, ``Lake Traverse``,
#: ``Busch Stadium``): a place smaller than a state, which the span keeps
PLACE_WORDS = frozenset((
    "island", "isle", "hill", "hills", "lake", "mount", "mountain", "valley", "beach", "bay", "harbor",
    "harbour", "creek", "river", "heights", "park", "stadium", "bridge", "station", "airport", "port",
    "village", "county", "district", "borough", "township", "town", "city",
))  # fmt: skip
#: endings of one-word street names, folded (``Hauptstraße``, ``Rileyboulevard``, ``Ahvenkoskenkuja``)
STREET_ENDINGS = (
    "strasse", "straße", "str", "platz", "weg", "gasse", "allee", "straat", "laan", "plein", "gracht", "kade",
    "dreef", "singel", "dijk", "boulevard", "bulevardi", "kuja", "katu", "tie", "vej", "gade", "gatan",
    "vagen",
)  # fmt: skip
#: words that go on an address after its street word: a direction, a unit, a floor (``Main Street
#: West``, ``12 Oak Road apt 4``, ``Oak Road, second floor``)
ADDRESS_TAILS = UNIT_WORDS | frozenset((
    "north", "south", "east", "west", "n", "s", "e", "w", "ne", "nw", "se", "sw", "building", "bldg",
    "box", "lot", "block", "first", "second", "third", "fourth", "fifth", "ground", "upper", "lower",
    "rear", "front", "basement", "level",
))  # fmt: skip
_WORD = re.compile(r"\S+")
#: the punctuation around a word that does not make it another word (``Street,``, ``(now)``)
_EDGE_PUNCT = ".,;:!?()[]{}\"'\u2018\u2019\u201c\u201d"


def trim_street_edges(context: RuleContext, spans: list[Span]) -> list[Span]:
    """An ADDRESS span that holds a street word (:data:`STREET_WORDS`) ends at the last one when
    only lower-case common words follow it in the span: ``Nevins Street now`` → ``Nevins Street``,
    ``Main Street yesterday``, ``Elm Lane today``. At the end of a text or a turn the model reads
    the word after a street as the address's continuation, and the surrogate replaced that word
    too (``I'm on Jim Knolls`` for ``I'm on Nevins Street now``).

    A trailing word leaves when it is written in lower case, has no digit, is among the 20,000
    most frequent public English words and is no word that goes on an address
    (:data:`ADDRESS_TAILS`: ``West``, ``apt``, ``floor``); in a text written all in lower case,
    also no town's name (``main street reading``). Words after the first that does not leave
    keep the span as it is: ``12 Oak Road apt 4``, ``Oak Road, Springfield`` and ``Oak Road
    Springfield IL`` are unchanged, and so is a span with no street word.

    Args:
        context: the text and its case.
        spans: spans, sorted and disjoint.

    Returns:
        The spans, ADDRESS spans trimmed.
    """
    if not any(s.label == "ADDRESS" for s in spans):
        return spans
    text, common = context.text, context.common
    caseless = context.caseless

    def loose(word: str) -> bool:
        bare = word.strip(_EDGE_PUNCT)
        key = fold(bare)
        if not bare or not bare.islower() or any(c.isdigit() for c in bare) or key in ADDRESS_TAILS:
            return False
        return key in common and not (caseless and key in place_names())

    out: list[Span] = []
    for sp in spans:
        if sp.label != "ADDRESS":
            out.append(sp)
            continue
        words = [(m.start(), m.end()) for m in _WORD.finditer(text, sp.start, sp.end)]
        j = len(words)
        while j > 1 and loose(text[words[j - 1][0] : words[j - 1][1]]):
            j -= 1
        last = text[words[j - 1][0] : words[j - 1][1]] if j else ""
        if j == len(words) or fold(last.strip(_EDGE_PUNCT)) not in STREET_WORDS:
            out.append(sp)
            continue
        end = words[j - 1][1]
        while end > sp.start and text[end - 1] in ",;:!?":  # ``Nevins Street, now``: the comma stays out
            end -= 1
        out.append(Span(sp.start, end, sp.label, sp.score, sp.source))
    return out


#: a house number before a capitalized word (``163 Small Mews``, ``12 Oak``)
_HOUSE_NUMBER = re.compile(r"(?<![\w.,])\d{1,6}[A-Za-z]?(?:/\d+)?,?\s+[A-Z][a-z]")
#: a numbered street (``61st``, ``West 4th``)
_ORDINAL = re.compile(r"(?<!\w)\d+(?:st|nd|rd|th)(?!\w)", re.IGNORECASE)
#: a US ZIP after a state code (``IL 62704``), a UK or a Canadian postcode (``SW1A 1AA``, ``K1A 0B1``)
_POSTCODE = re.compile(r"\b[A-Z]{2},?[ \t]+\d{5}(?:-\d{4})?\b|\b[A-Z]{1,2}\d[A-Z\d]?[ \t]+\d[A-Z]{2}\b"
                       r"|\b[A-Z]\d[A-Z][ \t]?\d[A-Z]\d\b")
#: a word that names the code or number after it (``zip 90210``, ``postcode: 2000``)
_POSTCODE_CUE = re.compile(r"(?i)\b(?:zip|post|postal)\s*(?:code)?\s*(?:is|of|:|#)?\s*\Z")
#: a postal code beside a capitalized word on one line, the country's or the town's (``Switzerland
#: 53730``, ``1000 Bruxelles``): five or six digits, or four that are no year of 1900-2099
#: (``Frankenstein 1970``, ``Server 2003`` are titles)
_POSTAL_CODE = r"(?<![\w.])(?:\d{5,6}|(?!19\d\d|20\d\d)\d{4})(?![\w.])"
_POSTAL_LINE = re.compile(rf"{_POSTAL_CODE}[ \t]*,?[ \t]*[A-Z][^\W\d_]*[a-z][^\W\d_]+"
                          rf"|[A-Z][^\W\d_]*[a-z][^\W\d_]+[ \t]*,?[ \t]*{_POSTAL_CODE}")
#: the last line of a postal address written in lower case (``belgium 97466``): a word and five or
#: six digits that end the line
_POSTAL_LINE_END = re.compile(r"[^\W\d_]{3,}[ \t]*,?[ \t]*(?<![\w.])\d{5,6}[ \t]*(?:\r?\n|\Z)")
#: what the rest of a :data:`_POSTAL_LINE_END` match may look like from any point of it: a line
#: that does not end so after a span holds no such match starting in the span (bounds the search)
_POSTAL_LINE_TAIL = re.compile(r"[^\W\d_]*[ \t]*,?[ \t]*\d{0,6}[ \t]*(?:\r?\n|\Z)")
_ADDRESS_WORD = re.compile(r"[^\W_]+(?:[.'\u2019-][^\W_]+)*")
_ADDRESS_LETTERS = re.compile(r"[^\W\d_]+")


def _plain_word(word: str) -> bool:
    """Whether ``word`` can be no part of a place's or a person's name: one letter, an abbreviation
    in capitals of five letters or fewer (``HDL``, ``CPT``, ``BP``), a drug or dictionary word
    (``Zocor``, ``chloride``, ``Angioma``), or a common public word that does not read as a name
    (``Clear``, ``Smile``, ``Germany``; not ``Smith``, a name many bear)."""
    if len(word) < 2 or (word.isupper() and len(word) <= 5):
        return True
    if word.lower() in drug_words() or dictionary_word(word):
        return True
    return common_word(word) and not name_like(word) and not weighty_name(word)


def postcode_ends_line(text: str, start: int, end: int) -> bool:
    """Whether a word and a postcode that end their line (:data:`_POSTAL_LINE_END`) start in
    ``text[start:end]``. The search runs only where the rest of the line after ``end`` can be the
    rest of such a match (:data:`_POSTAL_LINE_TAIL`), so a record of one long line is not scanned
    to its end once per span; the test holds it equal to the plain search."""
    if _POSTAL_LINE_TAIL.match(text, end) is None:
        return False
    line_end = text.find("\n", end)
    postal = _POSTAL_LINE_END.search(text, start, len(text) if line_end < 0 else line_end + 1)
    return postal is not None and postal.start() < end


def address_evidence(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` (widened to whole words) holds what an address is made of: a
    street word (:data:`STREET_WORDS`, :data:`STREET_WORDS_ABROAD`, :data:`STREET_ENDINGS`) or a
    place word (:data:`PLACE_WORDS`), a unit word with a number (``Flat 3``), ``&`` (``Lafayette &
    Houston``), a numbered street, a house number before a capitalized word, a postcode (beside a
    capitalized word on its line, after any word at the line's end, or after ``zip``), a town of the
    gazetteer (:func:`~embedanon.lexicon.place_names`), or any word that could be part of a name
    (not :func:`_plain_word`: ``Rikers``, ``Busch``, ``Okonkwo``)."""
    while start > 0 and text[start - 1].isalnum():
        start -= 1
    while end < len(text) and text[end].isalnum():
        end += 1
    piece = text[start:end]
    words = _ADDRESS_WORD.findall(piece)
    keys = [folded(w) for w in words]
    if any(k in STREET_WORDS or k in STREET_WORDS_ABROAD or k in PLACE_WORDS
           or (len(k) > 5 and k.endswith(STREET_ENDINGS)) for k in keys):
        return True
    if any(k in UNIT_WORDS for k in keys) and any(c.isdigit() for c in piece):
        return True
    if "&" in piece or any(p.search(piece) for p in (_ORDINAL, _HOUSE_NUMBER, _POSTCODE, _POSTAL_LINE)):
        return True
    if _POSTCODE_CUE.search(text, max(0, start - 24), start):
        return True
    if postcode_ends_line(text, start, end):
        return True
    places = place_names()
    for i in range(len(words)):
        for j in (3, 2, 1):
            run = words[i : i + j]
            if len(run) == j and all(w[:1].isupper() for w in run) and folded(" ".join(run)) in places:
                return True
    return not all(_plain_word(w) for w in _ADDRESS_LETTERS.findall(piece))


def drop_addresses_without_evidence(context: RuleContext, spans: list[Span]) -> list[Span]:
    """An ADDRESS span with nothing of an address in it (:func:`address_evidence`) is dropped: a
    lone number (``elevated at 106``, ``CPT code 25605``), a list of lab values (``sodium of 124,
    chloride 81, CO2 44``), of drugs (``Zocor, Desyrel``) or of countries (``Iraq, Germany``),
    common words (``Smile, New``). The model reads a number or a list of capitalized words in
    running text as an address; none of these locates anyone (decision 0186). A span that another
    span touches (only spaces between) is a piece of a longer value the decode cut (``May`` DATE
    and ``4 ,`` ADDRESS of ``May 4 , 1776``) and stays for the merge to join.

    Args:
        context: the text.
        spans: spans, sorted and disjoint.

    Returns:
        The spans less those ADDRESS spans.
    """
    text = context.text
    if not any(s.label == "ADDRESS" for s in spans):
        return spans
    out: list[Span] = []
    for i, sp in enumerate(spans):
        if sp.label == "ADDRESS" and not address_evidence(text, sp.start, sp.end):
            before = i > 0 and not text[spans[i - 1].end : sp.start].strip()
            after = i + 1 < len(spans) and not text[sp.end : spans[i + 1].start].strip()
            if not (before or after):
                continue
        out.append(sp)
    return out
