"""Leak guard: a word is never "replaced" by a variant of itself.

Replacing ``john`` by ``johns`` or ``patient`` by ``patients`` releases the original. Two words are
variants when, after :func:`embedanon.text.lookup_key` (case folded, accents stripped):

* they are equal;
* their edit distance is at most 1 (``jon``/``john``, ``colour``/``color``);
* the shorter (>= 3 letters) is a prefix or a substring of the other
  (``echo``/``echocardiogram``, ``john``/``johnson``, ``patient``/``outpatient``);
* they share a stem after removing common English inflection suffixes
  (``diagnose``/``diagnosis``, ``studied``/``studies``, ``biopsies``/``biopsy``);
* they share a long common prefix that covers all but at most two letters of the shorter word
  (``surgical``/``surgically``-like pairs the rules above miss, e.g. ``anemia``/``anemic``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from .text import lookup_key

# Longest first, so "ies" is tried before "s".
_SUFFIXES = (
    "ations", "ation", "ically", "ities", "ingly", "ness", "ments", "ment", "ings", "ical",
    "ists", "ies", "ied", "ing", "ers", "est", "ist", "ism", "ity", "ion", "ive", "ous",
    "ic", "al", "ly", "ed", "er", "es", "is", "ia", "y", "s", "e",
)  # fmt: skip


@lru_cache(maxsize=1 << 18)
def stem(word: str) -> str:
    """Crude English stem: strip one inflection suffix, keep at least three letters."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def within_one_edit(a: str, b: str) -> bool:
    """True when the Levenshtein distance between ``a`` and ``b`` is at most 1."""
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    if la > lb:
        a, b, la, lb = b, a, lb, la
    i = 0
    while i < la and a[i] == b[i]:
        i += 1
    if la == lb:
        return a[i + 1 :] == b[i + 1 :]
    return a[i:] == b[i + 1 :]


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def keys_are_variants(a: str, b: str) -> bool:
    """:func:`is_variant` on two words already passed through ``lookup_key``."""
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) >= 3 and short in long_:
        return True
    if a[:1] != b[:1]:
        # Fast path (most pairs): stems and long common prefixes start with the same letter, so
        # only one edit at the first position is left: substitute, delete or insert it.
        return a[1:] == b[1:] or a[1:] == b or a == b[1:]
    if within_one_edit(a, b):
        return True
    if len(short) >= 4:
        prefix = _common_prefix(a, b)
        if prefix >= 4 and prefix >= len(short) - 2:
            return True
    return len(short) >= 3 and stem(a) == stem(b)


def oov_variants(key: str, candidate: str) -> bool:
    """The guard for words outside the embedding (their proxies and guarded candidates): the
    variant rules, plus any two-letter candidate inside the word (``ko`` for ``kowalczyk``). Two
    letters are too short for the substring rule in general, but a proxy that is a word's own
    two-letter piece names its first letters, and under a metric-DP mechanism the proxy is what
    is most likely released (measured: 16 % of such words came out as their own first two
    letters at exponential epsilon 14 before this rule)."""
    return keys_are_variants(key, candidate) or (len(candidate) == 2 and candidate in key)


def is_variant(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` are the same word up to case, accents or inflection (see module)."""
    return keys_are_variants(lookup_key(a), lookup_key(b))


#: keys longer than this are not split into substrings by :class:`VariantIndex` (scanned instead)
_LONG_KEY = 40


class VariantIndex:
    """The keys of a fixed set that are variants of a query (:func:`keys_are_variants`), found
    through indexes instead of a scan of every key: each rule of the relation only holds between
    words that share something a dictionary can look up, so the candidates are gathered by
    lookups and then checked with :func:`keys_are_variants` itself. The same answer as the scan;
    a record with thousands of names no longer tests every pair.

    * equal, or one within one edit of the other: a shared single-letter deletion (or one equal
      to a deletion of the other);
    * different first letters: the same tail ``k[1:]``, or one equal to the other's tail (a
      tail is the deletion of the first letter, so the deletion lookups find these too);
    * the shorter (3+ letters) inside the longer: every substring of 3+ letters of every key
      (keys longer than 40 letters are scanned instead) and of the query;
    * a common prefix of 4+ letters: the first four letters;
    * the same stem (both 3+ letters): the stem.
    """

    def __init__(self, keys: Iterable[str]) -> None:
        self.keys = frozenset(keys)
        self._by: dict[tuple[str, str], set[str]] = {}
        self._long: list[str] = []
        for k in self.keys:
            for tag, value in self._entries(k):
                self._by.setdefault((tag, value), set()).add(k)
            if len(k) > _LONG_KEY:
                self._long.append(k)

    @staticmethod
    def _entries(k: str) -> Iterable[tuple[str, str]]:
        for i in range(len(k)):
            yield "del", k[:i] + k[i + 1 :]
        if len(k) >= 4:
            yield "pre", k[:4]
        if len(k) >= 3:
            yield "stem", stem(k)
        if 3 <= len(k) <= _LONG_KEY:
            for i in range(len(k) - 2):
                for j in range(i + 3, len(k) + 1):
                    yield "sub", k[i:j]

    def variants(self, query: str) -> list[str]:
        """The keys ``k`` with ``keys_are_variants(query, k)``, sorted."""
        by, keys = self._by, self.keys
        if len(query) > _LONG_KEY:  # its substrings would outnumber the keys: scan
            return sorted(k for k in keys if keys_are_variants(query, k))
        found: set[str] = set()
        deletions = [query[:i] + query[i + 1 :] for i in range(len(query))]
        exact = [query, *deletions]
        if len(query) >= 3:
            exact += [query[i:j] for i in range(len(query) - 2) for j in range(i + 3, len(query) + 1)]
        found.update(k for k in exact if k in keys)
        lookups = [("del", query), ("sub", query)]
        lookups += [("del", d) for d in deletions]
        if len(query) >= 4:
            lookups.append(("pre", query[:4]))
        if len(query) >= 3:
            lookups.append(("stem", stem(query)))
        for entry in lookups:
            found.update(by.get(entry, ()))
        found.update(self._long)
        return sorted(k for k in found if keys_are_variants(query, k))
