"""Scopes: which parts of a record change, and how.

* ``all`` (default): every word part and code goes through the mechanism (100 % recall by
  design; no detector).
* ``detected``: only detected spans change; by default to category surrogates ("hidden in plain
  sight": a name becomes another name, a date a shifted date), ``--strategy DEFAULT=mechanism``
  for the embedding noise.
* ``hybrid``: detected spans get category surrogates ("hidden in plain sight"); every other
  word goes through the mechanism.

A per-label strategy map with a default (like Presidio's operator config) chooses the action of
a detected span: ``mechanism``, ``surrogate``, ``keep`` or ``redact`` (``[NAME]``). Spans are
widened to whole alphanumeric tokens, so a span that cuts a word never leaves part of it. A record
whose detector fails (an unreachable LLM) is anonymized in full scope, never left unprotected.

The full-scope replacement of every token is computed first (its noise positions do not depend
on the scope), then the output is assembled from the items: a scope only chooses, per span,
between the original, the mechanism's replacement, a surrogate and a redaction.

Recurring strings: a detector may label one occurrence of a name and miss the next (another case,
a possessive, a model that did not propagate, an LLM that marked it once), and the mechanism
returns a word unchanged often enough at readable ε. So before assembly every other whole-word
occurrence, in any case, of what a span labels gets that span's label (:func:`propagate`).

Structure: the role labels of a transcript (``Doctor:``, ``Guest_family:``; :mod:`embedanon.structure`)
are never spans, and in hybrid scope they are kept as written, not passed through the mechanism,
so the turns stay readable; a name used as a label (``MARY:``) is a span like the same name in
the body and gets the same surrogate. What the deny list names is replaced inside a role label
too (``Note by Dr. Okafor:`` with ``Okafor`` denied): the steward's list wins over structure.

Cross-name collisions: a word of a detected name whose action is ``mechanism`` and whose
replacement is a word of *another* detected name of the record (``John Smith`` -> ``Smith``) gets
a name surrogate instead, so no name of a record appears where another stood. The rule looks only
at the replacement and the record's other names, never at the word itself, so for that word it
is post-processing of the mechanism's output: its metric-DP statement is unchanged.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from .._english import HOLIDAY, TITLES, WEEKDAYS, opens_clause
from ..config import ScopeConfig
from ..detectors.base import DetectorUnavailable, Span
from ..detectors.merge import WordLists, without_ranges
from ..detectors.regex import RegexDetector
from ..detectors.rules.common import NO_PROPAGATION
from ..detectors.view import markup_ranges
from ..lexicon import dictionary_word, name_like, name_parts
from ..lexicon import folded as folded_key
from ..noise import Prf, ReleaseKey
from ..structure import role_ranges, union_ranges
from ..surrogates import AvoidNames, date_style, record_roles, surrogates_for
from ..surrogates.names import CONNECTORS, PARTICLES
from ..text import (
    JOINERS,
    html_decoded,
    html_encoded_like,
    lone_cr_as_lf,
    lookup_key,
    split_joined,
    split_words,
    without_possessive,
)
from .replace import Item


def detect(detector: Any, text: str) -> list[Span] | None:
    """Spans of ``text``, or None when the detector is unavailable for it (full scope then)."""
    try:
        return list(detector.detect(text))
    except DetectorUnavailable:
        return None


#: Phones and IDs of ``neutral_formats`` (dates too, so a date is never read as a phone number).
_FORMATS = RegexDetector(labels=("PHONE", "ID", "DATE"))
#: The phone and ID rules alone: a text none of them matches has no format span.
_PHONES_AND_IDS = RegexDetector(labels=("PHONE", "ID"))


def format_spans(text: str) -> list[Span]:
    """The phone numbers and IDs of ``text`` that ``neutral_formats`` replaces (``regex`` rules).

    The date rules run only where a phone or ID rule matched: they can only take such a match
    away (a date is no phone number), never add one, and most texts have none (3 of 300
    MTSamples notes), so the result is the same at 10 rules' cost instead of 17.
    """
    if not _PHONES_AND_IDS.detect(text):
        return []
    return [s for s in _FORMATS.detect(text) if s.label != "DATE"]


#: labels whose whole string is the same PII wherever it recurs in a record (DATE and AGE are
#: numbers and dates that recur with other meanings: not propagated)
RECURRING = frozenset({"EMAIL", "URL", "PHONE", "ID", "IP", "ADDRESS", "LOCATION", "ORGANIZATION"})
#: words of a NAME span that never mark other occurrences: function words, months, titles,
#: particles and connectors (an unlabelled ``may`` or ``van`` says nothing about the name)
_NOT_PROPAGATED = NO_PROPAGATION | TITLES | PARTICLES | CONNECTORS


def _name_keys(word: str) -> list[str]:
    """Lookup keys of the pieces of one word between its joiners (``O'Brien's`` -> ``o``,
    ``brien``, ``s``)."""
    return [lookup_key(p) for p in split_joined(word) if p and p not in JOINERS]


def _dictionary_recurrence(word: str, keys: list[str], lower_names: set[str]) -> bool:
    """Whether ``word`` (its lookup keys ``keys``) is a lower-case dictionary word (no listed name
    part, :func:`~embedanon.lexicon.dictionary_word`) that a NAME span found only capitalized:
    ``the gallbladder`` after a false ``Gallbladder``, ``ballet`` after a false ``Ballet``
    (decision 0150). ``the smith family`` after ``John Smith`` is no such word (``smith`` is a
    listed name part), nor is ``gift`` where a chat wrote the name ``gift`` in lower case."""
    if not word.islower():
        return False
    return not any(k in lower_names for k in keys) and dictionary_word(without_possessive(word))


def _given_before_surname(words: list[str]) -> list[str]:
    """The first of a NAME span's two words when it reads as a name
    (:func:`~embedanon.lexicon.name_like`) and stands before a listed surname that is no
    dictionary word (``Anil`` of ``Anil Sharma``; decision 0249): a given name, though the
    dictionary holds it (``anil``, the indigo plant), so it recurs in lower case (``later anil
    texted me``). Not the last word: ``Foley Catheter`` or ``Murphy Sign`` vouch for nothing."""
    if len(words) != 2 or not words[0][:1].isupper() or words[0].isupper() or not name_like(words[0]):
        return []
    last = without_possessive(words[-1])
    if folded_key(last) not in name_parts("last") or dictionary_word(last):
        return []
    return [k for k in _name_keys(words[0]) if len(k) > 1 and k.isalpha()]


def _whole_string(literal: str) -> re.Pattern[str]:
    """``literal`` between non-word characters, in any case."""
    return re.compile(rf"(?<!\w){re.escape(literal)}(?!\w)", re.IGNORECASE)


def recurrences_plain(text: str, strings: dict[str, Span]) -> list[Span]:
    """The plain reference of :func:`recurrences`: one scan of the text per string."""
    found: list[Span] = []
    for folded, source in strings.items():
        for m in _whole_string(text[source.start : source.end].strip()).finditer(text):
            if m.group().casefold() == folded:
                found.append(Span(m.start(), m.end(), source.label, source.score, "propagation"))
    return found


_WORD_RUN = re.compile(r"\w+")


def recurrences(text: str, strings: dict[str, Span]) -> list[Span]:
    """Each whole-string occurrence, in any case, of the string of each span of ``strings`` (keyed
    by its casefolded string), as a span with the source's label and score, string by string;
    within one string, occurrences do not overlap (the leftmost first, as ``re.finditer``).

    Exactly :func:`recurrences_plain` (a property test holds them equal), in one scan of the text
    instead of one per string: a record with thousands of distinct addresses, IDs and URLs (a log
    dump, a long transcript) took time quadratic in its length. A string is looked up by its
    longest run of word characters, which is a whole run of word characters in the text wherever
    the string occurs (the string's own edges, or the boundaries around it, are non-word); each
    position such a run gives is then checked by the same pattern as the reference. Where the
    text there and an ASCII string are both ASCII, the string is checked only if the two are equal
    in lower case (the pattern matches nothing else), so thousands of distinct dates sharing a year
    are not each tried at every occurrence of the year. A string without word characters is
    scanned as in the reference.
    """
    # casefolded run -> (run offset, length) -> ({lower-cased ASCII string: index}, [other indexes])
    by_run: dict[str, dict[tuple[int, int], tuple[dict[str, int], list[int]]]] = {}
    literals = [text[source.start : source.end].strip() for source in strings.values()]
    scanned: set[int] = set()
    for i, literal in enumerate(literals):
        runs = list(_WORD_RUN.finditer(literal))
        if not runs:
            scanned.add(i)
            continue
        run = max(runs, key=lambda m: len(m.group()))
        ascii_of, others = by_run.setdefault(run.group().casefold(), {}).setdefault(
            (run.start(), len(literal)), ({}, []))
        if literal.isascii():  # keys differ: an ASCII string's casefold is its lower case
            ascii_of[literal.lower()] = i
        else:
            others.append(i)
    starts: list[list[int]] = [[] for _ in literals]
    if by_run:
        for word in _WORD_RUN.finditer(text):
            for (offset, length), (ascii_of, others) in by_run.get(word.group().casefold(), {}).items():
                at = word.start() - offset
                if at < 0:
                    continue
                piece = text[at : at + length]
                if piece.isascii():  # an ASCII string matches it, in any case, only if equal in lower case
                    same = ascii_of.get(piece.lower())
                    if same is not None:
                        starts[same].append(at)
                else:
                    for i in ascii_of.values():
                        starts[i].append(at)
                for i in others:
                    starts[i].append(at)
    found: list[Span] = []
    for i, (folded, source) in enumerate(strings.items()):
        pattern = _whole_string(literals[i])
        if i in scanned:
            matches = list(pattern.finditer(text))
        else:
            matches, end = [], 0
            for at in sorted(set(starts[i])):
                if at >= end and (hit := pattern.match(text, at)) is not None:
                    matches.append(hit)
                    end = hit.end()
        found += [Span(hit.start(), hit.end(), source.label, source.score, "propagation")
                  for hit in matches if hit.group().casefold() == folded]
    return found


def _outside(spans: list[Span]) -> Callable[[int, int], bool]:
    """Whether ``[a, b)`` overlaps no span of ``spans`` (disjoint), by bisection over their starts."""
    taken = sorted((s.start, s.end) for s in spans)
    starts = [a for a, _ in taken]

    def free(a: int, b: int) -> bool:
        j = bisect_right(starts, a) - 1
        if j >= 0 and taken[j][1] > a:
            return False
        return not (j + 1 < len(taken) and taken[j + 1][0] < b)

    return free


_DIGIT = re.compile(r"\d")
_GLUED = re.compile(r"(?P<name>[^\W\d_]{2,})\d{2,}|\d{2,}(?P<name2>[^\W\d_]{2,})")


def propagate(text: str, spans: list[Span], allowed: Callable[[Span], bool] | None = None) -> list[Span]:
    """The spans plus every other whole-word occurrence, in any case, of what they label.

    * NAME: each word piece of the span (letters only, 2+ letters, not in the stop list of
      function words, months, titles, particles and connectors) marks every word of the text
      holding that piece (``smith`` of ``John Smith`` marks ``the smith family``, ``SMITH``,
      ``Smith's``, ``Smith-Jones``) as a NAME.
    * :data:`RECURRING` labels: the span's whole string, in any case, between non-word
      characters, gets the span's label.

    A trailing possessive ``'s`` stays outside an added NAME span. An added span takes its source
    span's score (a NAME: the highest NAME score of the record), its source is ``propagation``, it
    never overlaps a span given, and ``allowed`` (the allow list) may drop it; the result is
    sorted and disjoint.
    """
    names: set[str] = set()
    # keys of a name written in lower case where it was found, or given before a surname
    lower_names: set[str] = set()
    not_upper: set[str] = set()  # keys of a name found not in capitals (``GTK`` is no handle's name)
    strings: dict[str, Span] = {}
    for span in spans:
        piece = text[span.start : span.end]
        if span.label == "NAME":
            words = split_words(html_decoded(piece))[1::2]  # ``&nbsp;`` is no name's word
            lower_names.update(_given_before_surname(words))
            for w in words:
                keys = [k for k in _name_keys(w) if len(k) > 1 and k.isalpha() and k not in _NOT_PROPAGATED]
                names.update(keys)
                if w.islower():
                    lower_names.update(keys)
                if not w.isupper():
                    not_upper.update(keys)
        elif span.label in RECURRING and piece.strip():
            strings.setdefault(piece.strip().casefold(), span)
    if not names and not strings:
        return spans
    free = _outside(spans)
    added: list[Span] = []
    name_score = max((s.score for s in spans if s.label == "NAME"), default=1.0)
    at = 0
    for i, word in enumerate(split_words(text)):
        if i % 2 and names:
            keys = _name_keys(word)
            # the digit search first: 87 ns a word against 228 ns for the pattern on a word of letters
            glued = _GLUED.fullmatch(word) if _DIGIT.search(word) else None
            if glued is not None:  # a handle's name glued to 2+ digits (``kwame1962``); never an
                # acronym's (a false ``GTK`` span, then every ``gtk20``) nor a gene's (``Wnt5a``)
                k = lookup_key(glued.group("name") or glued.group("name2"))
                keys = [*keys, k] if k in not_upper else keys
            if (any(k in names for k in keys) and free(at, at + len(word))
                    and not _dictionary_recurrence(word, keys, lower_names)):
                added.append(Span(at, at + len(without_possessive(word)), "NAME", name_score, "propagation"))
        at += len(word)
    added += [s for s in recurrences(text, strings) if free(s.start, s.end)]
    if allowed is not None:
        added = [s for s in added if not allowed(s)]
    if not added:
        return spans
    merged: list[Span] = []
    for span in sorted(spans + added, key=lambda s: (s.start, s.end)):
        if not merged or span.start >= merged[-1].end:
            merged.append(span)
    return merged


#: a weekday written just before a date (``Thursday, ``, ``Thu. ``, ``Monday the ``)
_WEEKDAY_BEFORE = re.compile(
    r"(?<![^\W\d_])(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|monday|tuesday|wednesday|thursday|friday"
    r"|saturday|sunday)\.?,?\s+(?:the\s+)?$", re.IGNORECASE)


def with_weekdays(text: str, spans: list[Span]) -> list[Span]:
    """DATE spans widened to the weekday written just before them (``Thursday, 7th March 2024``
    when a detector took ``7th March 2024`` only), where no other span holds it: the DATE
    surrogate recomputes the weekday for the shifted date, while a weekday left outside stayed as
    written, wrong for the new date and telling the record's offset modulo 7."""
    out: list[Span] = []
    for span in spans:
        if span.label == "DATE":
            floor = out[-1].end if out else 0
            m = _WEEKDAY_BEFORE.search(text, max(floor, span.start - 16), span.start)
            if m is not None:
                span = Span(m.start(), span.end, span.label, span.score, span.source)
        out.append(span)
    return out


#: a weekday's full name, any case, as a whole word
_WEEKDAY = re.compile(rf"(?<![\w'\u2019-])(?:{'|'.join(WEEKDAYS)})(?![\w'\u2019-])", re.IGNORECASE)


def with_date_anchors(text: str, spans: list[Span]) -> list[Span]:
    """In a record with a DATE span, each weekday's name and each holiday
    (:data:`~embedanon._english.HOLIDAYS`) that no span holds becomes a DATE span too
    (decision 0219): the record's dates all move by one offset, and a weekday or a holiday left
    as written told it (``came in on Friday ... 06/15/2012``: the offset modulo 7; ``Christmas
    Day, 12/25/2023``: the offset itself). The DATE surrogate moves a weekday by the offset and
    writes ``the holiday`` for a holiday. Weekdays and holidays alone are no PII (the
    guideline), so no detector flags them."""
    if not any(s.label == "DATE" for s in spans):
        return spans
    anchors = sorted([*_WEEKDAY.finditer(text), *HOLIDAY.finditer(text)], key=lambda m: m.start())
    free = _outside(spans)
    added: list[Span] = []
    for m in anchors:
        a, b = m.span()
        if (not added or a >= added[-1].end) and free(a, b):
            added.append(Span(a, b, "DATE", 1.0, "anchor"))
    return sorted([*spans, *added], key=lambda s: (s.start, s.end)) if added else spans


#: what a redaction leaves outside its brackets: sentence punctuation a span took in at its end,
#: a pair of brackets around all of it, and a name's possessive
_SENTENCE_END = re.compile(r"(?<=\S)[.,;:!?\s]+$")
_POSSESSIVE_END = re.compile(r"(?<=\w)['\u2019][sS]?$")
_POSSESSIVE_LABELS = frozenset({"NAME", "LOCATION", "ORGANIZATION"})
_PAIRS = {"(": ")", "[": "]", "{": "}", "<": ">"}
#: the white space that opens a text (where a surrogate that opens it starts, 0261)
_LEADING_SPACE = re.compile(r"\s*")


def redacted(label: str, original: str) -> str:
    """``[LABEL]`` for a span, with the sentence punctuation it took in at its end
    (``Jordan.`` -> ``[NAME].``), the brackets around all of it (``(10.0.0.1)`` -> ``([IP])``)
    and a possessive of a name (``Kelly's phone`` -> ``[NAME]'s phone``) kept outside."""
    core, lead, trail = original, "", ""
    if end := _SENTENCE_END.search(core):
        core, trail = core[: end.start()], end.group()
    if label in _POSSESSIVE_LABELS and (possessive := _POSSESSIVE_END.search(core)):
        core, trail = core[: possessive.start()], possessive.group() + trail
    close = _PAIRS.get(core[:1])
    if close and len(core) > 2 and core.endswith(close) and close not in core[1:-1]:
        lead, trail = core[0], close + trail
    return f"{lead}[{label}]{trail}"


#: a bare possessive apostrophe after a name that ends in s (``Jones' dog``, ``Jones’ dog``), and
#: an opening single quote, after which such an apostrophe may close the quotation instead
_BARE_POSSESSIVE = re.compile(r"(?<=[sS])['\u2019](?![\w'\u2019])")
_OPENING_QUOTE = re.compile(r"(?:^|(?<=[\s(\[\"]))['\u2018](?=\w)", re.MULTILINE)


def with_possessive_s(text: str, span: Span, new: str) -> tuple[str, int]:
    """``new``, the surrogate or redaction of ``span``, and where copying resumes after it. A name,
    place or organisation that ends in s before a bare possessive apostrophe (``Jones' dog``, the
    apostrophe in the span or just after it) takes ``'s`` (``Sangha's dog``, ``[NAME]'s dog``,
    decision 0260): the bare apostrophe read wrong after a replacement without an s, and told
    that the original ended in s. Not after an opening single quote on the span's line, where
    the apostrophe may close the quotation."""
    if span.label not in _POSSESSIVE_LABELS:
        return new, span.end
    inside = _BARE_POSSESSIVE.search(text, span.end - 1, span.end)
    after = None if inside else _BARE_POSSESSIVE.match(text, span.end)
    if inside is None and after is None:
        return new, span.end
    line = text.rfind("\n", 0, span.start) + 1
    if _OPENING_QUOTE.search(text, line, span.start):
        return new, span.end
    s = "S" if text[span.start : span.end].isupper() else "s"
    if inside is not None:
        return (new + s if new.endswith(inside.group()) else new), span.end
    assert after is not None
    return new + after.group() + s, after.end()


@lru_cache(maxsize=8)
def _allow_list(allow: tuple[str, ...]) -> WordLists:
    return WordLists.build(allow=allow)


#: the rest of a handle after a name, and the start of one before it (``maria_1987``,
#: ``dr_maria``): runs of letters and digits joined by underscores, which split words apart
_HANDLE_TAIL = re.compile(r"(?:_+[^\W_]+)+")
_HANDLE_HEAD = re.compile(r"(?:[^\W_]+_+)+$")


def _with_handle(text: str, span: Span) -> Span:
    """A NAME span widened to the whole handle it sits in (``maria`` of ``maria_1987`` →
    ``maria_1987``), so that the surrogate of a glued chunk (decision 0220) replaces the handle's
    digits and other names too: the body's ``maria_1987`` went out as ``chawin_1987``."""
    if span.label != "NAME":
        return span
    start, end = span.start, span.end
    tail = _HANDLE_TAIL.match(text, end)
    if tail is not None:
        end = tail.end()
    head = _HANDLE_HEAD.search(text, max(0, start - 64), start)
    if head is not None:
        start = head.start()
    return span if (start, end) == (span.start, span.end) else Span(start, end, span.label, span.score,
                                                                    span.source)


def widen(text: str, spans: list[Span]) -> list[Span]:
    """Spans widened to whole alphanumeric tokens, and NAME spans to the handle they sit in
    (:func:`_with_handle`), merged where widening makes them overlap."""
    spans = [_with_handle(text, s) for s in spans] if "_" in text else spans
    pieces = split_words(text)
    bounds: list[tuple[int, int]] = []
    at = 0
    for i, piece in enumerate(pieces):
        if i % 2:
            bounds.append((at, at + len(piece)))
        at += len(piece)
    out: list[Span] = []
    j = 0
    for span in sorted(spans, key=lambda s: (s.start, s.end)):
        start, end = span.start, span.end
        while j < len(bounds) and bounds[j][1] <= start:
            j += 1
        k = j
        while k < len(bounds) and bounds[k][0] < end:
            start, end = min(start, bounds[k][0]), max(end, bounds[k][1])
            k += 1
        if out and start < out[-1].end:  # widened into the previous span: one span, first label
            prev = out.pop()
            out.append(Span(prev.start, max(end, prev.end), prev.label, prev.score, prev.source))
        else:
            out.append(Span(start, end, span.label, span.score, span.source))
    return out


def _less(ranges: list[tuple[int, int]], cuts: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``ranges`` less the characters of ``cuts`` (each sorted and disjoint): sorted, disjoint."""
    if not ranges or not cuts:
        return ranges
    out: list[tuple[int, int]] = []
    j = 0
    for a, b in ranges:
        while j < len(cuts) and cuts[j][1] <= a:
            j += 1  # cuts before this range
        k = j
        while k < len(cuts) and cuts[k][0] < b:
            c, d = cuts[k]
            if c > a:
                out.append((a, c))
            a = max(a, d)
            k += 1
        if a < b:
            out.append((a, b))
    return out


def _within(ranges: list[tuple[int, int]]) -> Callable[[int, int], bool]:
    """Whether ``[start, end)`` lies inside one of ``ranges`` (sorted, disjoint)."""
    ends = [b for _, b in ranges]

    def within(start: int, end: int) -> bool:
        j = bisect_right(ends, start)
        return j < len(ranges) and ranges[j][0] <= start and end <= ranges[j][1]
    return within


def named_in_roles(text: str, spans: list[Span], roles: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The NAME spans (propagation's included) inside ``roles`` whose words name a person the
    record names outside them: ``Kwabena`` of ``Kwabena's mom:`` where the body says ``Kwabena
    has been coughing``. A role label is structure and kept as written (decision 0166), but not
    what the record itself shows to be a private name (decision 0232). A piece written in lower
    case in a text that has capitals stays (``Old man:`` where the body flagged a ``man``).
    Sorted and disjoint."""
    cased = not text.islower()
    inside = _within(roles)

    def keys(span: Span) -> list[str]:
        words = split_words(html_decoded(text[span.start : span.end]))[1::2]
        return [k for w in words for k in _name_keys(w)]
    names = [(s, inside(s.start, s.end)) for s in spans if s.label == "NAME"]
    body = {k for s, held in names if not held for k in keys(s)}
    return [(s.start, s.end) for s, held in names if held
            and not (cased and text[s.start : s.end].islower()) and any(k in body for k in keys(s))]


def assemble(text: str, full_text: str, items: tuple[Item, ...], spans: list[Span], scope: ScopeConfig,
             key: ReleaseKey, record_prf: Prf, *, keep_roles: bool = True) -> tuple[str, tuple[Item, ...]]:
    """The scoped output of one record from its full-scope replacement (see module docstring).

    ``keep_roles=False`` where the record is released in full scope (scope ``all`` with neutral
    formats, a failed detector's fallback): its role labels are still never spans, but their
    words go through the mechanism like every other word, as scope ``all`` promises.
    """
    lists = _allow_list(scope.allow)
    # structure: never a span, kept as written (never the mechanism's), but for what the deny
    # list names: the steward's own list wins over the structure pass (decision 0167); bare HTML
    # tags are structure too (decision 0179); a lone carriage return ends a line (decision 0217)
    roles = _less(union_ranges(role_ranges(lone_cr_as_lf(text)), markup_ranges(text)),
                  sorted((s.start, s.end) for s in spans if "deny" in s.source.split("+")))
    spans = with_weekdays(text, propagate(text, spans, lambda span: lists.allowed(text, span)))
    if roles:  # a name found in the record's body is replaced inside a role label too (decision 0232)
        roles = _less(roles, named_in_roles(text, spans, roles))
    spans = with_date_anchors(text, spans)
    spans = widen(text, without_ranges(text, spans, roles) if roles else spans)
    in_role = _within(roles)

    def structural(item: Item) -> bool:
        return keep_roles and in_role(item.start, item.end)
    surrogates = surrogates_for(scope.surrogates)
    names = [html_decoded(text[s.start : s.end]) for s in spans if s.label == "NAME"]
    name_words = [{lookup_key(w) for w in split_words(n)[1::2]} for n in names]
    spans_with = Counter(w for words in name_words for w in words)  # word -> NAME spans holding it
    others = AvoidNames.for_record(names)  # what a surrogate of each name must not resemble
    part_roles = record_roles(names)  # ``Wei`` alone is the given name of ``Wei Zhang``
    taken: dict[str, str] = {}  # name surrogates given in this record: never two people's
    style = date_style(text)  # how the record writes numeric dates: its DATE surrogates follow
    prf = key.prf("surrogate")
    out: list[str] = []
    new_items: list[Item] = []
    at = 0  # position in the original text
    written = 0  # length of the output so far

    def copy_to(stop: int) -> None:
        nonlocal at, written
        if stop > at:
            out.append(text[at:stop])
            written += stop - at
            at = stop

    def replace(item: Item, own: set[str] | None = None, span_label: str | None = None) -> None:
        """Copy up to ``item``, then its full-scope word; inside a NAME span (``own``: its words),
        a word that would name another NAME span of the record gets a name surrogate instead.
        Inside a detected span the item carries the span's label."""
        nonlocal at, written
        copy_to(item.start)
        new = full_text[item.new_start : item.new_end]
        kind, stage, label = item.kind, item.stage, span_label
        if own is not None and item.kind == "word" and spans_with[k := lookup_key(new)] - (k in own) > 0:
            original = text[item.start : item.end]
            new = surrogates.replace("NAME", original, prf=prf, record_prf=record_prf, avoid=others(original),
                                     roles=part_roles, taken=taken)
            kind = stage = "surrogate"
            label = "NAME"
        out.append(new)
        new_items.append(Item(item.start, item.end, written, written + len(new), kind, stage, label))
        written += len(new)
        at = item.end

    i = 0
    n_name = -1
    for span in spans:
        if span.label == "NAME":
            n_name += 1
        while i < len(items) and items[i].end <= span.start:  # items before the span
            if scope.outside == "mechanism" and not structural(items[i]):
                replace(items[i])
            i += 1
        action = scope.action(span.label)
        inside = []
        while i < len(items) and items[i].start < span.end:
            inside.append(items[i])
            i += 1
        if action == "mechanism":
            own = name_words[n_name] if span.label == "NAME" else None
            for item in inside:
                replace(item, own, span.label)
        elif action in ("surrogate", "redact"):
            copy_to(span.start)
            original = text[span.start : span.end]
            if action == "surrogate":  # of what an HTML-escaped span stands for, escaped alike
                plain = html_decoded(original)
                new = html_encoded_like(surrogates.replace(
                    span.label, plain, prf=prf, record_prf=record_prf, avoid=others(plain), roles=part_roles,
                    taken=taken, date_style=style), original)
                if (span.label == "DATE" and new[:1].islower() and original[:1].isupper()
                        and opens_clause(text, span.start)):  # `Christmas Day plans` -> `The holiday plans`
                    new = new[0].upper() + new[1:]
                if new.startswith("+") and span.start <= _LEADING_SPACE.match(text).end():  # type: ignore[union-attr]
                    new = new[1:]  # `00 296 ...`: a cell opening with + is a formula to a spreadsheet (0261)
            else:
                new = redacted(span.label, original)
            new, stop = with_possessive_s(text, span, new)
            out.append(new)
            new_items.append(Item(span.start, stop, written, written + len(new), action, action, span.label))
            written += len(new)
            at = stop
            while i < len(items) and items[i].start < stop:  # a possessive's apostrophe it took
                i += 1
        # keep: the span's text is copied with what follows
    while i < len(items):
        if scope.outside == "mechanism" and not structural(items[i]):
            replace(items[i])
        i += 1
    copy_to(len(text))
    return "".join(out), tuple(new_items)
