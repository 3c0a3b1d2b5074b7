"""One rule for combining spans: union of detectors, allow and deny lists, overlap merge.

The merge rule (:func:`merge_spans`):

* Spans that **overlap** (share at least one character: ``a.start < b.end and b.start < a.end``)
  belong to one cluster, transitively; each cluster becomes **one** span covering the union of
  its members' characters. Nested and overlapping spans of the same label therefore merge into
  their union.
* The label of a cluster of different labels is the label of its **longest** member (ties: higher
  score, then the earlier label in :data:`LABEL_PRIORITY`, then the earlier start). The longest
  member describes most of the characters: an ``ID`` inside an ``ADDRESS`` or a year inside a
  ``DATE`` must not relabel the whole span. Trimming the loser instead was rejected: it leaves
  word fragments ("Smi") that get surrogates of their own, and it never covers more characters.
* The cluster's score is the highest score among its members with the winning label; its source
  is the members' sources, de-duplicated, sorted and joined with ``+`` (``model+regex``).
* Spans that only **touch** (``a.end == b.start``) never merge, whatever their labels: adjacent
  entities ("John Smith" written ``JohnSmith``, two e-mails separated by nothing) stay separate
  spans, so each gets its own replacement (Presidio's bug #1925, where only the first of
  several adjacent entities was replaced, cannot happen here).

The result is sorted, non-overlapping, covers exactly the characters of the input spans and
nothing else. :func:`merge_spans_reference` is the plain quadratic version the tests compare with.

Allow and deny lists (:class:`WordLists`) compare text folded by :mod:`.folding` (case, width,
accents and zero-width characters ignored; a whitespace run matches any whitespace run). A
detected span whose folded text equals an allow entry is dropped (before merging, so a longer
span around it survives), unless it is a NAME right after a title (``Dr. Parkinson``: the span
is often the surname alone); every whole-word occurrence of a deny entry in the folded text
becomes a span of its label over the original characters (score 1, source ``deny``). Deny wins
over detectors in the merge only by the rule above.

Structure is never a span: the characters of a transcript's role labels (``Doctor:``,
``Guest_family:``, ``Girl #2:``; :mod:`embedanon.structure`) leave every detector's spans before
the lists apply (:func:`without_ranges`). Nor is the sentence's punctuation: a phone, e-mail,
URL, IP, ID or age span loses the ``.``, ``!`` or ``,`` a detector took after it and the quotes
or brackets around it (``"555-867-5309"``; ``(555) 867-5309`` keeps its bracket), and a
PHONE span of fewer than seven digits (a version, a bug number, a score) is no phone
(:func:`trim_value_edges`).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .._english import DATE_CUE_ALTERNATION, DIGIT_WORD, NAME_ABBREVIATIONS, TITLES, after_title
from .._validate import strings
from ..errors import ConfigError
from ..lexicon import name_like
from ..structure import role_ranges
from ..text import canonical_view
from .abbreviations import without_defined_abbreviations
from .base import LABELS, VALUE_LABELS, Detector, Span
from .folding import fold_key, folded_pattern, folded_view, original_span, strict_key
from .view import detection_view

#: Tie-break order between labels of equally long, equally scored overlapping spans.
LABEL_PRIORITY: tuple[str, ...] = ("EMAIL", "URL", "IP", "DATE", "PHONE", "AGE", "ID", "ADDRESS",
                                   "ORGANIZATION", "LOCATION", "NAME")
_RANK = {label: i for i, label in enumerate(LABEL_PRIORITY)}
assert set(LABEL_PRIORITY) == set(LABELS), "LABEL_PRIORITY must rank every label"


def _winner(members: Sequence[Span]) -> Span:
    return min(members, key=lambda s: (-(s.end - s.start), -s.score, _RANK[s.label], s.start))


def _combine(members: Sequence[Span]) -> Span:
    if len(members) == 1:
        return members[0]
    label = _winner(members).label
    score = max(s.score for s in members if s.label == label)
    source = "+".join(sorted({s.source for s in members if s.source}))
    return Span(min(s.start for s in members), max(s.end for s in members), label, score, source)


def merge_spans(spans: Iterable[Span]) -> list[Span]:
    """Merge overlapping spans into their union (see the module docstring for the rule).

    Args:
        spans: spans in any order, possibly from several detectors.

    Returns:
        Sorted, pairwise non-overlapping spans (adjacent ones stay separate).
    """
    ordered = sorted(spans, key=lambda s: (s.start, s.end))
    out: list[Span] = []
    cluster: list[Span] = []
    cluster_end = -1
    for span in ordered:
        if cluster and span.start < cluster_end:
            cluster.append(span)
            cluster_end = max(cluster_end, span.end)
            continue
        if cluster:
            out.append(_combine(cluster))
        cluster, cluster_end = [span], span.end
    if cluster:
        out.append(_combine(cluster))
    return out


def merge_spans_reference(spans: Iterable[Span]) -> list[Span]:
    """Plain O(n^2) union-find version of :func:`merge_spans`, for tests."""
    items = list(spans)
    parent = list(range(len(items)))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for i, a in enumerate(items):
        for j, b in enumerate(items):
            if a.start < b.end and b.start < a.end:
                parent[root(i)] = root(j)
    clusters: dict[int, list[Span]] = {}
    for i, span in enumerate(items):
        clusters.setdefault(root(i), []).append(span)
    return sorted((_combine(sorted(c, key=lambda s: (s.start, s.end))) for c in clusters.values()),
                  key=lambda s: (s.start, s.end))


@dataclass(frozen=True, slots=True)
class WordLists:
    """Allow list (never PII) and deny list (always PII, with a label).

    Deny entries and text are compared folded (:func:`~.folding.fold_key`: case, width, accents
    and zero-width characters ignored, whitespace runs alike); allow entries the same way but with
    accents kept (:func:`~.folding.strict_key`), since an allow entry that matches too much
    releases a word. A word character (letter, digit, ``_``)
    next to an occurrence makes it part of a longer word: ``Zorblat`` matches neither
    ``Zorblatian`` nor ``Zorblat_Fenn`` nor ``Zorblat2``.

    Attributes:
        allow: strings that are never PII (:func:`~.folding.strict_key`); a span whose text is one is dropped,
            unless it is a NAME right after a title (``Dr. Parkinson``).
        deny: ``(string, label)`` pairs; every whole-word occurrence is a span. A string given
            twice (after folding) must have one label.
    """

    allow: frozenset[str] = frozenset()
    deny: tuple[tuple[str, str], ...] = ()
    _patterns: tuple[tuple[re.Pattern[str], str], ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        entries = list(strings("allow", self.allow))
        allow = frozenset(strict_key(a) for a in entries)
        allow_folded = frozenset(fold_key(a) for a in entries)
        if "" in allow:
            raise ConfigError("allow list entries must not be empty")
        deny: list[tuple[str, str]] = []
        keys: dict[str, tuple[str, int]] = {}  # folded string -> (label, entry number)
        for number, entry in enumerate(self.deny, start=1):
            if not (isinstance(entry, tuple) and len(entry) == 2 and all(isinstance(x, str) for x in entry)):
                raise TypeError(f"deny entries must be (string, label) pairs, got {type(entry).__name__}")
            term, label = entry[0].strip(), entry[1].strip().upper()
            key = fold_key(term)
            if not key:
                raise ConfigError("deny list entries must not be empty")
            # neither the string nor the label is quoted: a label in the string's place is a name
            if label not in LABELS:
                raise ConfigError(f"deny list entry {number}: the label must be one of {', '.join(LABELS)} "
                                  "(an entry is a string and its label, in that order: {string: label})")
            if key in allow_folded:
                raise ConfigError("a string is in both the allow and the deny list")
            if key in keys:
                if keys[key][0] != label:
                    raise ConfigError(f"deny list entries {keys[key][1]} and {number} give the same string "
                                      "(ignoring case, width and accents) two different labels")
                continue
            keys[key] = (label, number)
            deny.append((term, label))
        object.__setattr__(self, "allow", allow)
        object.__setattr__(self, "deny", tuple(deny))
        patterns = tuple((folded_pattern(key), label) for key, (label, _) in keys.items())
        object.__setattr__(self, "_patterns", patterns)

    @classmethod
    def build(cls, *, allow: Iterable[str] = (),
              deny: Mapping[str, str] | Iterable[tuple[str, str]] | None = None) -> WordLists:
        """Lists from an iterable of allowed strings and a ``{string: label}`` mapping (or
        ``(string, label)`` pairs, where one string may come twice)."""
        pairs = deny.items() if isinstance(deny, Mapping) else (deny or ())
        return cls(frozenset(strings("allow", allow)), tuple(pairs))

    def allowed(self, text: str, span: Span) -> bool:
        """Whether ``span``'s text is on the allow list (a NAME after a title never is)."""
        if not self.allow or strict_key(text[span.start:span.end]) not in self.allow:
            return False
        if span.label == "NAME":
            return not after_title(text, span.start)
        return True

    def deny_spans(self, text: str) -> list[Span]:
        """One span per occurrence of each deny entry (overlapping occurrences included)."""
        if not self._patterns:
            return []
        view, origins = folded_view(text)
        out: list[Span] = []
        for pattern, label in self._patterns:
            match = pattern.search(view)
            while match is not None:
                start, end = original_span(text, origins, match.start(), match.end())
                out.append(Span(start, end, label, 1.0, "deny"))
                match = pattern.search(view, match.start() + 1)
        return out

    def apply(self, text: str, spans: Iterable[Span]) -> list[Span]:
        """Drop allowed spans, add deny spans (unmerged)."""
        return [s for s in spans if not self.allowed(text, s)] + self.deny_spans(text)


_OPENERS = {")": "(", "]": "[", "}": "{", ">": "<"}


def _stray_brackets(piece: str) -> list[int]:
    """The offsets in ``piece`` of the brackets whose partner is not in it (sorted)."""
    open_at: list[int] = []
    stray: list[int] = []
    for i, char in enumerate(piece):
        if char in "([{<":
            open_at.append(i)
        elif char in _OPENERS:
            if open_at and piece[open_at[-1]] == _OPENERS[char]:
                open_at.pop()
            else:
                stray.append(i)
    return sorted(stray + open_at)


#: what no span starts or ends with (decision 0217): white space, control and format characters,
#: symbols (an emoji ``👋`` and its skin-tone modifier), a variation selector and the keycap mark
_EDGE_CATEGORIES = frozenset(("Cc", "Cf", "So", "Sk", "Zs", "Zl", "Zp"))
_EDGE_MARKS = frozenset(("\ufe0e", "\ufe0f", "\u20e3"))


def _edge(char: str) -> bool:
    return char.isspace() or char in _EDGE_MARKS or unicodedata.category(char) in _EDGE_CATEGORIES


def without_symbol_edges(text: str, spans: list[Span]) -> list[Span]:
    """The spans less the white space, control and format characters and symbols at their edges
    (decision 0217): the model took the emoji after a name into it, ending between the emoji and
    its skin-tone modifier (``Leilani Kahananui 👋`` of ``👋🏽``), and a NUL after a name, so a
    redacted name took them along. A span of nothing else goes."""
    out: list[Span] = []
    for span in spans:
        a, b = span.start, span.end
        if text[a].isalnum() and text[b - 1].isalnum():
            out.append(span)
            continue
        while a < b and _edge(text[a]):
            a += 1
        while b > a and _edge(text[b - 1]):
            b -= 1
        if (a, b) == (span.start, span.end):
            out.append(span)
        elif b > a:
            out.append(Span(a, b, span.label, span.score, span.source))
    return out


def without_stray_brackets(text: str, spans: list[Span]) -> list[Span]:
    """NAME spans cut at each bracket whose partner lies outside them (decision 0196): the model
    took the bracket before or after a name into it (``Lulu (`` of ``Lulu (Louise Brooks)``,
    ``(Carrell`` and ``Malik)`` of names in brackets, ``Caroline (Lee`` of ``Caroline (Lee)``,
    ``Maria Lopez <`` of an e-mail header), so a span file's offsets held the bracket and exact
    matches failed. Each piece loses its white space; one without a letter or digit goes. Run after
    the verifier, whose verdicts were fitted on the spans as the model gave them; other labels
    keep their brackets (a phone's ``(617)``)."""
    out: list[Span] = []
    for span in spans:
        piece = text[span.start : span.end]
        stray = _stray_brackets(piece) if span.label == "NAME" and any(c in piece for c in "()[]{}<>") else []
        if not stray:
            out.append(span)
            continue
        at = span.start
        for cut in [*(span.start + i for i in stray), span.end]:
            a, b = at, cut
            while a < b and text[a].isspace():
                a += 1
            while b > a and text[b - 1].isspace():
                b -= 1
            if any(c.isalnum() for c in text[a:b]):
                out.append(Span(a, b, span.label, span.score, span.source))
            at = cut + 1
    return out


#: a sentence's end inside a span: a word of three letters or more, its period, white space and
#: the capital that opens the next sentence (``Ama Sanchez. Visit``)
_INNER_SENTENCE_END = re.compile(r"([^\W\d_]{3,})\.\s+(?=[^\W\d_])")
_LETTER_RUN = re.compile(r"[^\W\d_]+")


def without_sentence_ends(text: str, spans: list[Span]) -> list[Span]:
    """NAME spans cut at each sentence's end inside them (decision 0248): the model ran a name on
    into the next sentence (``Ama Sanchez. Visit date``, ``Osama. Lopez's wife``), and the
    surrogate of the whole took the full stop and a word that is no name with it. The first
    piece, where the model's name starts, is kept; a later one only when a word of it reads as a
    name (:func:`~embedanon.lexicon.name_like`: ``Lopez's``, not ``Visit``). A period after a
    title or an abbreviation (``Mrs.``, ``Esq.``) or an initial ends no sentence. Run after the
    verifier, which judged the span as the model gave it."""
    out: list[Span] = []
    for span in spans:
        cuts = [] if span.label != "NAME" or "." not in text[span.start : span.end] else [
            m for m in _INNER_SENTENCE_END.finditer(text, span.start, span.end)
            if text[m.end()].isupper() and m.group(1).lower() not in TITLES
            and m.group(1).lower() not in NAME_ABBREVIATIONS]
        if not cuts:
            out.append(span)
            continue
        starts, ends = [span.start, *(m.end() for m in cuts)], [*(m.end(1) for m in cuts), span.end]
        for k, (a, b) in enumerate(zip(starts, ends, strict=True)):
            if k == 0 or any(name_like(w) for w in _LETTER_RUN.findall(text, a, b)):
                out.append(Span(a, b, span.label, span.score, span.source))
    return out


class SpanFilter(Protocol):
    """A second stage over merged spans (the local verifier, :class:`~.verify.SpanVerifier`)."""

    name: str

    def verify(self, text: str, spans: Sequence[Span]) -> list[Span]:
        """The spans of ``text`` that are kept, in order."""
        ...


#: labels whose score-1 spans a format names (an e-mail, a URL, an IP, a phone, a date, an age)
FORMAT_LABELS: frozenset[str] = frozenset({"EMAIL", "URL", "IP", "PHONE", "DATE", "AGE"})


class UnionDetector:
    """Runs several detectors, applies the word lists, merges their spans into one list, and
    passes the merged spans through the verifier, if any.

    Args:
        detectors: the detectors to combine (at least one), run in order.
        lists: allow and deny lists (default: none).
        verifier: a second stage that drops merged spans (default: none); it sees the spans after
            the word lists, so a deny-list span (source ``deny``) reaches it marked as such.
    """

    def __init__(self, detectors: Sequence[Detector], *, lists: WordLists | None = None,
                 verifier: SpanFilter | None = None) -> None:
        detectors = tuple(detectors)
        if not detectors:
            raise ConfigError("at least one detector is needed")
        for detector in detectors:
            if not isinstance(detector, Detector):
                raise TypeError(f"expected a Detector, got {type(detector).__name__}")
        self.detectors = detectors
        self.lists = lists if lists is not None else WordLists()
        self.verifier = verifier
        self.name = ",".join(d.name for d in detectors)

    def detect(self, text: str) -> list[Span]:
        """Merged spans of every detector (raises DetectorUnavailable if any detector does).

        The detectors, the lists and the verifier read :func:`~.view.detection_view` of the text
        (bare HTML tags and the time stamps before speakers masked, typographic quotes in ASCII; the
        same length), and no span keeps a tag's or a stamp's characters. A text in decomposed
        form, or with format characters or lone carriage returns, is read in its
        :func:`~embedanon.text.canonical_view` and its spans mapped back to whole letters."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        canonical = canonical_view(text)
        if canonical is None:
            return self._detect_view(text)
        form, starts, ends = canonical
        spans = self._detect_view(form)
        if starts is None or ends is None:
            return spans
        out: list[Span] = []  # back to the characters of ``text``, whole letters with their marks
        for s in spans:
            start, end = max(starts[s.start], out[-1].end if out else 0), ends[s.end - 1]
            if end > start:
                out.append(Span(start, end, s.label, s.score, s.source))
        return out

    def _detect_view(self, text: str) -> list[Span]:
        view, tags = detection_view(text)
        spans = without_symbol_edges(view, self._detect(view))
        return without_ranges(text, spans, tags) if tags else spans

    def _detect(self, text: str) -> list[Span]:
        found = [span.check(text) for detector in self.detectors for span in detector.detect(text)]
        # a span of no letter or digit is punctuation, never PII (the model once read a run of
        # ``>>>>>>`` quote marks as an ADDRESS)
        found = [s for s in found if any(c.isalnum() for c in text[s.start:s.end])]
        found = trim_value_edges(text, found)
        roles = role_ranges(text)
        if roles and found:
            found = without_ranges(text, sorted(found, key=lambda s: (s.start, s.end)), roles)
        found = self.lists.apply(text, found)
        merged = without_defined_abbreviations(text, merge_spans(found))
        if self.verifier is not None:
            merged = self._verified(text, merged, found)
        return without_sentence_ends(text, without_stray_brackets(text, merged))

    def _verified(self, text: str, merged: list[Span], found: list[Span]) -> list[Span]:
        """The verifier's kept spans, plus the certain values of the merged spans it dropped: a
        member of a :data:`FORMAT_LABELS` label with score 1 (the format names the label) whose
        merged span has another label keeps its own verdict (decision 0147), so a doubtful model
        span over ``44yo, 6ft,`` does not take the regex's age with it."""
        assert self.verifier is not None
        kept = self.verifier.verify(text, merged)
        if len(kept) == len(merged):
            return kept
        survivors = set(kept)
        certain = sorted((s for s in found if s.score >= 1.0 and s.label in FORMAT_LABELS),
                         key=lambda s: (s.start, s.end))
        starts = [s.start for s in certain]
        values: list[Span] = []
        for span in merged:
            if span not in survivors:
                inside = certain[bisect_right(starts, span.start - 1):bisect_right(starts, span.end - 1)]
                values += [m for m in inside if m.label != span.label]
        if not values:
            return kept
        return sorted(kept + merge_spans(self.verifier.verify(text, merge_spans(values))),
                      key=lambda s: (s.start, s.end))


_VALUE_EDGE = ".,;:!?"
#: a score out of ten (``7/10``, ``8.5/10``), and the words that make such a number a date
#: (``on 8/10``, ``Date: 8/10``): decision 0180
_OUT_OF_TEN = re.compile(r"(?:10|\d)(?:\.\d+)?/10")
_DATE_CUE_BEFORE = re.compile(rf"\b(?:{DATE_CUE_ALTERNATION}|date|dob|d\.o\.b)\W{{0,3}}\Z", re.IGNORECASE)


def _score_out_of_ten(text: str, start: int, end: int) -> bool:
    """Whether the DATE span ``text[start:end]`` is a score out of ten (``Rating: 7/10``, a review's
    closing ``8/10``, the ``5/10`` of ``8.5/10``) rather than a month and day: the whole span is
    ``N/10`` with N at most 10, and no word that places an event in time comes right before it."""
    piece = text[start:end].strip(".,;:!?()[] ")
    if _OUT_OF_TEN.fullmatch(piece) is None:
        return False
    if start >= 2 and text[start - 1] == "." and text[start - 2].isdigit():
        return True  # the decimal part of 8.5/10
    return _DATE_CUE_BEFORE.search(text, max(0, start - 20), start) is None


#: characters no URL or e-mail address holds unescaped (RFC 3986, RFC 5322 outside quotes)
_NOT_IN_ADDRESSES = re.compile(r"[<>\"]")
#: the fewest digits a phone number has (a local number without its area code)
PHONE_DIGITS = 7
def _digit_count(piece: str) -> int:
    """The digits of ``piece``, or, where it has none, its digit words (``five``, ``oh``: a number
    said digit by digit, decision 0183)."""
    digits = sum(c.isdigit() for c in piece)
    return digits if digits else len(DIGIT_WORD.findall(piece))
#: a range of two decimal numbers (``1.31-26.13``, ``[0·8130-1·1881]``, ``92.0-99.7%``): a statistic
_DECIMAL_RANGE = re.compile(r"[(\[]?~?\d+[.\u00b7]\d+%?\s*[-\u2013\u2011]\s*~?\d+[.\u00b7]\d+%?[)\]]*")
#: a journal's year; volume(issue) or volume:pages (``2020; 161(17)``, ``68:1150-1154``): a citation
_CITATION = re.compile(r"(?:1[89]|20)\d\d\s*;\s*\d+\s*\(\d+\)|\d+\s*:\s*\d+\s*[-\u2013]\s*\d+")
#: a range of two years (``1999-2001``, ``1944-45``, ``2019/20``), read by :func:`_year_range`
_YEAR_RANGE = re.compile(r"[(\[]?((?:1[89]|20)\d\d)\s*[-\u2013/]\s*((?:1[89]|20)\d\d|\d\d)[)\]]?")
#: a hexadecimal literal of a program (``0x00000618``, a memory address in a crash report)
_HEX_LITERAL = re.compile(r"0[xX][0-9A-Fa-f]+")
#: a clock time, in brackets or not (``10:32``, ``[00:01:23]``, ``09:12:44.250``)
_CLOCK_TIME = re.compile(r"[\[(]?(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:[.,]\d{1,3})?)?[\])]?")
#: signs of a statistic that no phone, IP or ID holds
_STATISTIC_SIGNS = frozenset("\u00b1%<>\u2264\u2265\u03c7")
#: words before an age that make it a bound of a group's ages (``over 65``, ``median age 68``, ``<65``)
_GROUP_AGE_BEFORE = re.compile(
    r"(?:\b(?:over|under|above|below|older\s+than|younger\s+than|at\s+least|up\s+to|"
    r"(?:mean|median|average)\s+age(?:\s+(?:was|of|is))?|aged?\s+\d{1,3}\s*(?:to|-|\u2013))|[<>\u2264\u2265])\s*$",
    re.IGNORECASE)
#: words after an age that make it a bound of a group's ages (``18 to 65``, ``65 or older``, ``65+``)
_GROUP_AGE_AFTER = re.compile(
    r"\s*(?:(?:years?\s+)?(?:to|[-\u2013])\s*\d|\+|(?:years?\s+)?(?:or|and)\s+(?:more|older|over|above|younger|under))",
    re.IGNORECASE)


def _year_range(piece: str) -> bool:
    """Whether ``piece`` is a range of two years, 1800-2099, the second after the first and less
    than a century later (``1999-2001``, ``1944-45``, ``1999-00``, ``2019/20``); not ``2001-1999``."""
    m = _YEAR_RANGE.fullmatch(piece)
    if m is None:
        return False
    first, second = int(m.group(1)), int(m.group(2))
    if second < 100:  # two digits: the first year's century, or the next one's (1999-00)
        second += first - first % 100
        if second <= first:
            second += 100
    return 0 < second - first < 100


def not_a_value(text: str, start: int, end: int, label: str) -> bool:
    """Whether ``text[start:end]``, labelled ``label``, is a statistic, a citation, a range of
    years, a clock time or the age of a group rather than a person's value (decisions 0149, 0172,
    0181): a PHONE, IP or ID span that is a range of decimal numbers (``95% CI 1.31-26.13``), a
    journal citation (``2020; 161(17)``), a range of years (``1999-2001``, ``1944-45``), a clock
    time (``00:00:40``, ``[10:32]``: the model read a chat log's times as IPv6), a hexadecimal
    literal (``0x00000618``, a crash report's memory address; decision 0185) or holds a sign of a
    statistic (``±``, ``%``, ``<``, ``>``, ``≤``, ``≥``, ``χ``; ``=`` too, but in an ID); an AGE
    that bounds a group (``people over 65``, ``median age 68``, ``aged 18 to 65``, ``≥65 years``,
    ``65 or older``)."""
    piece = text[start:end]
    if label in ("PHONE", "IP", "ID"):
        if (_DECIMAL_RANGE.fullmatch(piece) or _CITATION.search(piece) or _year_range(piece)
                or _CLOCK_TIME.fullmatch(piece) or _HEX_LITERAL.fullmatch(piece)):
            return True
        return any(c in _STATISTIC_SIGNS for c in piece) or (label != "ID" and "=" in piece)
    if label == "AGE":
        return bool(_GROUP_AGE_BEFORE.search(text, max(0, start - 40), start)
                    or _GROUP_AGE_AFTER.match(text, end, end + 30))
    return False


#: emoji presentation selectors and the zero-width joiner that may follow a telephone sign
_SIGN_JOINERS = frozenset("\ufe0e\ufe0f\u200d")


def _phone_sign(char: str) -> bool:
    """Whether ``char`` is a symbol before a phone number that is no part of it: a telephone sign
    (``☎`` U+260E, ``✆`` U+2706, ``📞`` U+1F4DE) or another symbol of category So, or the emoji
    selector or joiner after one. Never ``+`` or ``(``, which begin numbers, nor the signs of a
    statistic (``<``, ``±``, ``≥``: category Sm), which :func:`not_a_value` reads."""
    return char in _SIGN_JOINERS or unicodedata.category(char) == "So"


#: quotes and emphasis marks around a value, never part of it (``"555-867-5309"``, ``*jo@x.org*``)
_WRAPPERS = frozenset("\"'`*\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u00ab\u00bb")
#: brackets: opener -> closer
_BRACKETS = {"(": ")", "[": "]", "{": "}", "<": ">"}
_CLOSERS = {closer: opener for opener, closer in _BRACKETS.items()}


def _closing(text: str, at: int, end: int) -> int:
    """Where the bracket ``text[at]`` closes before ``end`` (brackets of its kind nest), or -1."""
    opener, closer = text[at], _BRACKETS[text[at]]
    depth = 0
    for i in range(at, end):
        if text[i] == opener:
            depth += 1
        elif text[i] == closer:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _value_core(text: str, a: int, b: int, phone: bool) -> tuple[int, int]:
    """``(a, b)`` less what surrounds the value: spaces, the sentence's ``. , ; : ! ?`` at its end,
    quotes and emphasis marks at either edge (:data:`_WRAPPERS`), a bracket at an edge that does
    not close inside the value (``(555-867-5309`` and ``555-867-5309)`` lose it; ``(555) 867-5309``
    and a URL's ``(disambiguation)`` keep theirs; ``<`` and ``>`` only in a pair: alone they are
    signs of a statistic, :func:`not_a_value`) and a pair of brackets around the whole value
    (``[555-867-5309]``, ``<jo@x.org>``); for a phone, a telephone sign before it
    (:func:`_phone_sign`)."""
    while a < b:
        first, last = text[a], text[b - 1]
        if last in _VALUE_EDGE or last.isspace() or last in _WRAPPERS:
            b -= 1
        elif first.isspace() or first in _WRAPPERS or (phone and _phone_sign(first)):
            a += 1
        elif first in _BRACKETS and _closing(text, a, b) == b - 1:
            a, b = a + 1, b - 1
        elif first in _BRACKETS and first != "<" and _closing(text, a, b) < 0:
            a += 1  # ``<`` and ``>`` alone are signs of a statistic (``<0.0001``), not brackets
        elif last in _CLOSERS and last != ">" and text.count(_CLOSERS[last], a, b) < text.count(last, a, b):
            b -= 1
        else:
            break
    return a, b


def trim_value_edges(text: str, spans: list[Span]) -> list[Span]:
    """The spans, each of a :data:`VALUE_LABELS` label less the ``. , ; : ! ?`` and spaces at its
    end and the spaces at its start, the quotes, emphasis marks and unmatched or enclosing brackets
    at its edges (``"555-867-5309"``, ``*555-867-5309``, ``[jo@x.org]``; ``(555) 867-5309`` keeps its
    bracket; :func:`_value_core`), and a PHONE span less a telephone sign before the number
    (``☎ 617-555-0143``: the model took the sign and its space into the span, so the surrogate
    replaced the sign too; :func:`_phone_sign`); a span of nothing else is dropped. The model reads the
    period or ``!`` after a phone number at the end of a text as part of it (``617-555-0143.``),
    and the quotes around a quoted number (``"555-867-5309"``), and the surrogate that replaced
    the span then took the sentence's punctuation or the quotes with it. Other
    labels are left to their detectors (a name's period may be an initial's, ``J.``).
    A PHONE span of fewer than :data:`PHONE_DIGITS` digits (digit words, in a number said in
    words) is dropped: on real forum, chat and
    news text every such span was a version, a bug number, a score or a count (``5.0.2195``,
    ``#225239``, ``102-68``, ``+0000``), decision 0133. So is a statistic, a citation, a range of
    years, a clock time or a group's age (:func:`not_a_value`, decisions 0149, 0172, 0181), and a
    DATE span that is a score out of ten (:func:`_score_out_of_ten`, decision 0180) or a clock
    time (a subtitle file's ``00:00:01,000``: a time of day is no date; decision 0181). A URL or e-mail span
    ends before a ``<``, ``>`` or ``"`` inside it (the model read ``http://x.org">`` of an HTML
    attribute as one URL; decision 0173).

    Args:
        text: the text.
        spans: spans in any order; the order is kept.
    """
    out: list[Span] = []
    for span in spans:
        if span.label == "DATE" and (_score_out_of_ten(text, span.start, span.end)
                                     or _CLOCK_TIME.fullmatch(text, span.start, span.end)):
            continue
        if span.label not in VALUE_LABELS:
            out.append(span)
            continue
        a, b = _value_core(text, span.start, span.end, span.label == "PHONE")
        if span.label in ("URL", "EMAIL"):  # neither holds '<', '>' or '"' (``href="http://x.org">``)
            cut = _NOT_IN_ADDRESSES.search(text, a, b)
            if cut is not None:
                a, b = _value_core(text, a, cut.start(), False)
        if not any(c.isalnum() for c in text[a:b]):
            continue
        if span.label == "PHONE" and _digit_count(text[a:b]) < PHONE_DIGITS:
            continue
        if not_a_value(text, a, b, span.label):
            continue
        out.append(span if (a, b) == (span.start, span.end)
                   else Span(a, b, span.label, span.score, span.source))
    return out


#: what a piece of a span loses where a range cut it: the label's colon and spaces
_CUT_EDGE = ":>-"


def without_ranges(text: str, spans: list[Span], ranges: list[tuple[int, int]]) -> list[Span]:
    """The spans less the characters of ``ranges`` (sorted, disjoint): a span that crosses a range
    keeps its pieces outside it that hold a letter or digit (less the spaces and ``:``, ``>``,
    ``-`` right after the range), each with the span's label, score and source; the spans stay
    in their order.

    Args:
        text: the text.
        spans: spans, sorted by start.
        ranges: ``(start, end)`` character ranges, sorted and disjoint.
    """
    if not ranges:
        return spans
    ends = [b for _, b in ranges]
    out: list[Span] = []
    for span in spans:
        i = bisect_right(ends, span.start)  # the first range that ends after the span starts
        if i == len(ranges) or ranges[i][0] >= span.end:
            out.append(span)
            continue
        start = span.start
        while i < len(ranges) and ranges[i][0] < span.end:
            a, b = ranges[i]
            if a > start and any(c.isalnum() for c in text[start:a]):
                out.append(Span(start, a, span.label, span.score, span.source))
            start = max(start, b)
            while start < span.end and (text[start].isspace() or text[start] in _CUT_EDGE):
                start += 1  # the colon and spaces after a label are not the span's
            i += 1
        if start < span.end and any(c.isalnum() for c in text[start : span.end]):
            out.append(Span(start, span.end, span.label, span.score, span.source))
    return out
