"""Words the release left unchanged that look like personal data, for a human to check.

A release officer cannot read every word of a sample; what the anonymizer left as it was and
that looks like a name, a number or an address is where a leak would be. This module finds,
in one text and its :class:`~embedanon.pipeline.document.AnonymizedDocument`, every unchanged
stretch of one of these shapes:

* ``email`` / ``url``: an e-mail address or a URL (``http://``, ``https://``, ``www.``) whose
  every word and number is unchanged;
* ``unknown``: a capitalized word outside the vocabulary (neither in the embedding nor among the
  100,000 public English words): in English prose mostly a name, a place or a brand;
* ``name``: a capitalized word, not the first of a sentence, that is a name of the public name
  list (Faker's person names);
* ``digits``: a number of two digits or more (a date, a phone or record number, an age);
* ``code``: letters and digits together with two digits or more, or a capital and a digit
  (``MRN-88213``, ``A12B``).

"Unchanged" means that no item of the document touches the token, or that its item released it
as it was (ignoring case: a metric-DP mechanism may return the input, and a surrogate that could
not parse its span may keep it). Items of the ``codes`` stage are never unchanged in this sense:
their characters are random, and an equal draw leaks nothing.

The result holds original text (that is what the page shows); it is never logged.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..privacy.metrics import DocumentLike
from ..text import ALNUM_KINDS, JOINERS, is_clitic, lookup_key, opens_sentence, split_joined, tokenize

#: What each kind of look-alike is, as the page explains it.
KINDS: dict[str, str] = {
    "email": "an e-mail address",
    "url": "a URL",
    "unknown": "a capitalized word outside the vocabulary",
    "name": "a capitalized word in the public name list, inside a sentence",
    "digits": "a number of two digits or more",
    "code": "letters and digits together",
}

_EMAIL = re.compile(r"[\w.+'-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"(?:https?://|www\.)[^\s<>\"']+", re.IGNORECASE)
#: item stages whose output is random characters: an equal draw is not a survival
_RANDOM_STAGES = frozenset({"codes"})


@dataclass(frozen=True, slots=True)
class Lookalike:
    """One unchanged stretch that looks like personal data.

    Attributes:
        start, end: its offsets in the original text.
        new_start, new_end: its offsets in the released text (the same characters, maybe in
            another case).
        kind: one of :data:`KINDS`.
    """

    start: int
    end: int
    new_start: int
    new_end: int
    kind: str

    def __post_init__(self) -> None:
        if not (0 <= self.start < self.end and 0 <= self.new_start <= self.new_end):
            raise ValueError(f"look-alike offsets must be ordered, got {self.start}..{self.end} and "
                             f"{self.new_start}..{self.new_end}")
        if self.kind not in KINDS:
            raise ValueError(f"look-alike kind must be one of {', '.join(KINDS)}, got {self.kind!r}")


class Vocabulary:
    """What counts as a known word and as a name.

    Args:
        known: lookup key -> whether the word is ordinary vocabulary.
        names: lookup keys of the public name list.
    """

    def __init__(self, known: Callable[[str], bool], names: frozenset[str]) -> None:
        self.known = known
        self.names = names


def _unchanged(original: str, document: DocumentLike) -> list[tuple[int, int, int]]:
    """``(start, end, new_start)`` of every alphanumeric token the release left unchanged."""
    items = list(document.items)
    out: list[tuple[int, int, int]] = []
    i = 0
    delta = 0  # new offset - old offset after the items before the token
    for token in tokenize(original):
        if token.kind not in ALNUM_KINDS:
            continue
        start, end = token.start, token.end
        while i < len(items) and items[i].end <= start and items[i].start < start:
            delta = items[i].new_end - items[i].end
            i += 1
        j = i
        while j < len(items) and items[j].start < end:
            j += 1
        touching = items[i:j]
        if not touching:
            out.append((start, end, start + delta))
        elif len(touching) == 1:
            it = touching[0]
            if (it.start, it.end) == (start, end) and str(it.stage) not in _RANDOM_STAGES and \
                    lookup_key(original[start:end]) == lookup_key(document.text[it.new_start:it.new_end]):
                out.append((start, end, it.new_start))
    return out


def _digits(token: str) -> int:
    return sum(ch.isdigit() for ch in token)


def _shape(text: str, start: int, end: int, vocabulary: Vocabulary) -> str | None:
    token = text[start:end]
    digits = _digits(token)
    if digits and any(ch.isalpha() for ch in token):
        return "code" if digits >= 2 or any(ch.isupper() for ch in token) else None
    if digits:
        return "digits" if digits >= 2 else None
    if not token[:1].isupper():
        return None
    keys = _word_keys(token)
    if not all(vocabulary.known(key) for key in keys):
        return "unknown"
    if any(key in vocabulary.names for key in keys) and not opens_sentence(text, start):
        return "name"
    return None


def _word_keys(token: str) -> list[str]:
    """Lookup keys of a word's parts between joiners, clitics left out (``I'm`` -> ``i``,
    ``Jean-Luc`` -> ``jean``, ``luc``)."""
    pieces = [p for p in split_joined(token) if p]
    return [lookup_key(p) for i, p in enumerate(pieces)
            if not (len(p) == 1 and p in JOINERS) and not is_clitic(pieces, i)]


def find_lookalikes(original: str, document: DocumentLike, vocabulary: Vocabulary) -> tuple[Lookalike, ...]:
    """Every unchanged stretch of ``original`` that looks like personal data, in text order.

    Args:
        original: the text.
        document: its release (``text`` and ``items``, as the pipeline returns them).
        vocabulary: known words and names (:func:`default_vocabulary` for the page's).
    """
    unchanged = _unchanged(original, document)
    if not unchanged:
        return ()
    starts = [start for start, _, _ in unchanged]
    found: list[Lookalike] = []
    covered: list[tuple[int, int]] = []
    for kind, pattern in (("email", _EMAIL), ("url", _URL)):
        for m in pattern.finditer(original):
            a, b = m.start(), m.end()
            if covered and covered[-1][1] > a:  # inside an address found already
                continue
            first = bisect_left(starts, a)
            inside = [u for u in unchanged[first:bisect_left(starts, b)] if u[1] <= b]
            whole = sum(1 for t in tokenize(original[a:b]) if t.kind in ALNUM_KINDS)
            if inside and len(inside) == whole:
                new_a = inside[0][2] - (inside[0][0] - a)
                found.append(Lookalike(a, b, new_a, new_a + (b - a), kind))
                covered.append((a, b))
        covered.sort()
    for start, end, new in unchanged:
        k = bisect_left(covered, (start + 1,)) - 1
        if k >= 0 and covered[k][0] <= start < covered[k][1]:
            continue
        shape = _shape(original, start, end, vocabulary)
        if shape is not None:
            found.append(Lookalike(start, end, new, new + (end - start), shape))
    found.sort(key=lambda la: la.start)
    return tuple(found)


def default_vocabulary(embedding_words: Sequence[str] | None = None) -> Vocabulary:
    """The page's vocabulary: the embedding's words (lookup keys) and the bundled 100,000 public
    English words count as known; names are the bundled public name list."""
    from ..lexicon import word_frequencies
    from ..privacy.prior import name_dictionary

    public = word_frequencies()
    own = frozenset(embedding_words or ())
    return Vocabulary(lambda key: key in public or key in own,
                      frozenset(entry.name for entry in name_dictionary()))
