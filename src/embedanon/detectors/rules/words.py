"""Decode rules that read one name word and its neighbour: words joined by hyphens or apostrophes
(``s'fiso``, ``i-hsuan``), the other part of a confident one-word name, and whole-word widening.
"""

from __future__ import annotations

import re

import numpy as np

from ...text import without_possessive
from ..base import Span
from ..bio import B_CLASS, true_runs
from ..features import common_words, fold
from .common import NO_PROPAGATION, SpanLookup, capitalized, mixed_name_case, text_case

_JOINERS = "-'"
#: how many of the most frequent public English words a name part next to a found name may not be
_PAIR_COMMON = 20_000
#: the score (mean entity probability) a one-word NAME span needs to take in its neighbour
_PAIR_SCORE = 0.5
_PAIR_WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")
#: the matches of ``_PAIR_WORD`` that hold a joiner: they start where a letter run starts and take
#: every joined piece (possessive: letters and joiners never overlap, so nothing to backtrack)
_JOINED_WORD = re.compile(r"(?<![^\W\d_])[^\W\d_]++(?:['\u2019-][^\W\d_]++)+")


def _word_goes_on(text: str, i: int) -> bool:
    """Whether text[i] exists and continues a word (a letter, digit or underscore)."""
    return 0 <= i < len(text) and (text[i].isalnum() or text[i] == "_")


#: what joins the letter pieces of one name word (``Okafor-Adeyemi``, ``S'fiso``, ``O’Neil``)
_NAME_JOINERS = _JOINERS + "\u2019"


def name_orphan_tokens(
    text: str,
    starts: np.ndarray,
    ends: np.ndarray,
    proba: np.ndarray,
    spans: list[Span],
    *,
    source: str = "model",
    threshold: float = 0.0,
) -> list[Span]:
    """Tokens the model puts on NAME but the constrained decode left out become NAME spans.

    The BIO decode opens a span only on ``B-``; a token scored as a name *continuation*
    (``I-NAME``) after a token scored ``O`` is dropped when no path through ``B-`` is worth it:
    ``Chun`` of ``I-Chun`` (``I-NAME`` 0.96 after ``I`` at 0.00). Here each token holding a letter,
    in no span, with NAME probability (``B-NAME`` + ``I-NAME``) at least 0.5 (the gate of
    :func:`complete_name_pairs`) joins a NAME span; in text with both cases the token must also
    be capitalized like a name (``Chun``, not ``mon`` of ``C'mon`` or ``BACTRIM``). A run of such
    tokens (consecutive tokens) is one span, scored by the mean of that probability. Runs first
    among the rules (round 31): the decode's own spans are unchanged, and later rules
    (``whole_words``) see the added ones.

    Args:
        text: the text.
        starts, ends: token offsets (int (T,)) of :func:`~embedanon.detectors.features.tokenize`.
        proba: float (T, C) class probabilities of those tokens.
        spans: the decoded spans, sorted and disjoint.
        source: the detector name of an added span.
        threshold: the detector's threshold: the gate is the higher of it and 0.5, so a detector
            asked for more certainty than 0.5 (``model_threshold=0.99``) gets it here too.

    Returns:
        The spans with the added names, sorted.
    """
    if len(starts) == 0:
        return spans
    b_name = B_CLASS["NAME"]
    name_p = proba[:, b_name] + proba[:, b_name + 1]
    lookup = SpanLookup(spans)
    keep = np.zeros(len(starts), dtype=bool)
    mixed: bool | None = None
    for t in np.flatnonzero(name_p >= max(_PAIR_SCORE, threshold)).tolist():
        a, b = int(starts[t]), int(ends[t])
        token = text[a:b]
        if not any(c.isalpha() for c in token) or lookup(a, b):
            continue
        if mixed is None:
            mixed = text_case(text) == "mixed"
        keep[t] = not mixed or capitalized(token)
    added = [Span(int(starts[first]), int(ends[end - 1]), "NAME",
                  float(np.clip(name_p[first:end].mean(), 0.0, 1.0)), source)
             for first, end in true_runs(keep)]
    return sorted([*spans, *added], key=lambda sp: sp.start) if added else spans


def name_joined_words(
    text: str,
    starts: np.ndarray,
    ends: np.ndarray,
    proba: np.ndarray,
    spans: list[Span],
    *,
    source: str = "model",
) -> list[Span]:
    """A word of letters joined by ``-``, ``'`` or ``’`` (``s'fiso``, ``i-hsuan``) becomes a NAME
    span when the model puts a rare piece of it on NAME but the decode could not start a name there.

    The tokenizer cuts such a word at its joiners, and the model often scores the piece after the
    joiner as a name *continuation* (``I-NAME``) while the piece before it (``s``, ``i``) is near
    zero; the BIO decode cannot start a span with ``I-``, so nothing is found. The word qualifies
    when it touches no span and one of its letter pieces has NAME probability (``B-NAME`` +
    ``I-NAME``) at least 0.5 (the gate of :func:`complete_name_pairs`) and is not among the 20,000
    most frequent public English words (``follow-up``, ``X-ray`` never qualify on a common piece).
    A trailing possessive ``'s`` stays outside. The span's score is that probability. In text with
    both cases the word must have a name's case: a capital first letter, a capital after each
    hyphen (``I-Fei``, ``Jean-Luc``; after an apostrophe either, ``S'fiso``, ``O'Conner``), and no
    all-capitals piece of two letters or more. So ``D-dimer``, ``X-loupe``, ``G-CSF`` and
    ``tear-jerker`` never qualify there (round 22's check on real text).

    Args:
        text: the text.
        starts, ends: token offsets (int (T,)) of :func:`~embedanon.detectors.features.tokenize`.
        proba: float (T, C) class probabilities of those tokens.
        spans: spans, sorted and disjoint.
        source: the detector name of an added span.

    Returns:
        The spans with the added names, sorted.
    """
    if not any(j in text for j in _NAME_JOINERS) or len(starts) == 0:
        return spans
    b_name = B_CLASS["NAME"]
    name_p = proba[:, b_name] + proba[:, b_name + 1]
    common: frozenset[str] | None = None
    mixed: bool | None = None
    added: list[Span] = []
    lookup = SpanLookup(spans)
    for m in _JOINED_WORD.finditer(text):  # the words of _PAIR_WORD that hold a joiner
        a, b = m.span()
        if _word_goes_on(text, a - 1) or _word_goes_on(text, b):
            continue
        word = without_possessive(m.group())
        b = a + len(word)
        if not any(j in word for j in _NAME_JOINERS) or lookup(a, b):
            continue
        if mixed is None:
            mixed = text_case(text) == "mixed"
        if mixed and not mixed_name_case(word):
            continue
        lo, hi = int(np.searchsorted(starts, a)), int(np.searchsorted(ends, b, side="right"))
        best, best_p = -1, 0.0
        for t in range(lo, hi):
            if text[int(starts[t])].isalpha() and name_p[t] > best_p:
                best, best_p = t, float(name_p[t])
        if best < 0 or best_p < _PAIR_SCORE:
            continue
        if common is None:
            common = common_words(_PAIR_COMMON)
        if fold(text[int(starts[best]) : int(ends[best])]) in common:
            continue
        added.append(Span(a, b, "NAME", min(best_p, 1.0), source))
    return sorted(spans + added, key=lambda s: s.start) if added else spans


def _pair_fits(word: str, name: str, case: str, common: frozenset[str]) -> bool:
    """Whether ``word`` may be another part of the one-word name ``name`` in a text of letter case
    ``case`` (:func:`~.common.text_case`): not among ``common`` nor a function word, and in the
    name's case (see :func:`complete_name_pairs`)."""
    key = fold(word)
    if not word or key in common or key in NO_PROPAGATION:
        return False
    if case == "lower":
        return word.islower()
    if case == "upper":
        return word.isupper()
    if name.isupper() and len(name) > 1:
        return word.isupper()
    return capitalized(word) and not word.isupper()


def complete_name_pairs(text: str, spans: list[Span]) -> list[Span]:
    """A confident one-word NAME span takes in the word right next to it when that word looks like
    another part of the same name: ``[DIMBA]`` of ``THEMBISILE DIMBA``, ``[taibi]`` of ``younes
    taibi``.

    The span's score (the model's mean entity probability) must be at least 0.5: the model's
    doubtful one-word spans are where its false positives are, and widening them pairs jargon
    (``ANTEGRADE cardioplegia``). The neighbour is joined by one space on the same line, touches
    no span, is not among the 20,000 most frequent public English words (``Hospital``, ``said``,
    ``ask`` never join), and has the name's case: capitalized like it, or all capitals next to all
    capitals, in mixed text; lower case in text without capitals; upper case in text without
    lower-case letters. One word is taken on each side at most; a span of two words or more is
    left alone. A possessive ``'s`` stays outside.

    Args:
        text: the text.
        spans: spans, sorted and disjoint.

    Returns:
        The spans, NAME spans widened to their pair.
    """
    if not any(sp.label == "NAME" and sp.score >= _PAIR_SCORE for sp in spans):
        return spans
    common = common_words(_PAIR_COMMON)
    case = text_case(text)

    def fits(word: str, name: str) -> bool:
        return _pair_fits(word, name, case, common)

    out: list[Span] = []
    for k, sp in enumerate(spans):
        name = text[sp.start : sp.end]
        if sp.label != "NAME" or sp.score < _PAIR_SCORE or not _PAIR_WORD.fullmatch(name):
            out.append(sp)
            continue
        lo = out[-1].end if out else 0
        hi = spans[k + 1].start if k + 1 < len(spans) else len(text)
        a, b = sp.start, sp.end
        after = _PAIR_WORD.match(text, b + 1) if text[b : b + 1] == " " else None
        if after and after.end() <= hi and not _word_goes_on(text, after.end()):
            word = without_possessive(after.group())
            if fits(word, name):
                b = after.start() + len(word)
        if text[a - 1 : a] == " ":
            j = a - 1
            while j > lo and (text[j - 1].isalpha() or text[j - 1] in _NAME_JOINERS):
                j -= 1
            before = text[j : a - 1]
            if _PAIR_WORD.fullmatch(before) and not _word_goes_on(text, j - 1) and fits(before, name):
                a = j
        out.append(sp if (a, b) == (sp.start, sp.end) else Span(a, b, sp.label, sp.score, sp.source))
    return out


#: what may follow the given name of an inverted name in running text (``Maduma, Thembile.``)
_INVERSION_END = ",.!?;\r\n"


def join_running_inversions(text: str, spans: list[Span]) -> list[Span]:
    """``I sat next to [Maduma], Thembile.``: a confident one-word NAME span, ``, `` and one word
    that touches no span and is followed by ``,.!?;``, a line end or the text's end become one
    NAME span ``Maduma, Thembile`` with the name's score, when the word may be another part of the
    name as in :func:`complete_name_pairs` (the span's score at least 0.5; the word not among the
    20,000 most frequent public English words nor a function word, in the name's case:
    ``Okafor, MD.``, ``Chen, Jr.``, ``Adu, again.`` never join). A span that took the comma
    (``[Maduma,] Thembile``) counts as the word alone. :func:`join_inverted_names` does the same on
    header lines only. Round 34.

    Args:
        text: the text.
        spans: spans, sorted and disjoint.

    Returns:
        The spans, NAME spans joined with the given name after them.
    """
    if ", " not in text or not any(sp.label == "NAME" and sp.score >= _PAIR_SCORE for sp in spans):
        return spans
    common = common_words(_PAIR_COMMON)
    case = text_case(text)
    out: list[Span] = []
    for k, sp in enumerate(spans):
        name = text[sp.start : sp.end].rstrip(",")
        e = sp.start + len(name)
        after = _PAIR_WORD.match(text, e + 2) if text[e : e + 2] == ", " and sp.end <= e + 1 else None
        hi = spans[k + 1].start if k + 1 < len(spans) else len(text)
        if (sp.label != "NAME" or sp.score < _PAIR_SCORE or not _PAIR_WORD.fullmatch(name)
                or after is None or after.end() > hi
                or not (after.end() == len(text) or text[after.end()] in _INVERSION_END)
                or without_possessive(after.group()) != after.group()
                or not _pair_fits(after.group(), name, case, common)):
            out.append(sp)
            continue
        out.append(Span(sp.start, after.end(), "NAME", sp.score, sp.source))
    return out


#: what a NAME span never starts or ends with (``Okafor,``: the model scored the comma a name
#: continuation at the threshold)
_NAME_EDGE_PUNCT = ",;:!?"


def trim_name_edges(text: str, spans: list[Span]) -> list[Span]:
    """NAME spans lose the list and sentence punctuation at their edges (``Okafor,`` → ``Okafor``):
    a redacted name otherwise took the comma after it with it (``Thanks to [NAME] Mrs. ...``).
    Only ``,;:!?`` and whitespace are removed, never a letter, a period (``J.``, ``Jr.``) or a
    quote; a span of nothing else is dropped. Other labels are left as they are.

    Args:
        text: the text.
        spans: spans, sorted and disjoint.

    Returns:
        The spans, NAME spans trimmed.
    """
    out: list[Span] = []
    for sp in spans:
        if sp.label != "NAME":
            out.append(sp)
            continue
        a, b = sp.start, sp.end
        while a < b and (text[a] in _NAME_EDGE_PUNCT or text[a].isspace()):
            a += 1
        while b > a and (text[b - 1] in _NAME_EDGE_PUNCT or text[b - 1].isspace()):
            b -= 1
        if (a, b) == (sp.start, sp.end):
            out.append(sp)
        elif a < b:
            out.append(Span(a, b, sp.label, sp.score, sp.source))
    return out


def widen_to_whole_words(text: str, spans: list[Span]) -> list[Span]:
    """A NAME span never cuts a word: a span that starts or ends inside letters joined by hyphens
    or apostrophes (``Bao-`` of ``Bao-Li-Hsiang``, ``fiso`` of ``S'fiso``) is widened to the whole
    word, up to the neighbouring spans; a possessive ``'s`` stays outside (``Boutin's``).

    Args:
        text: the text.
        spans: spans, sorted and disjoint.

    Returns:
        The spans, widened where they cut a word.
    """
    if not spans:
        return spans
    n = len(text)
    out: list[Span] = []
    for k, sp in enumerate(spans):
        if sp.label != "NAME":
            out.append(sp)
            continue
        lo = out[-1].end if out else 0
        hi = spans[k + 1].start if k + 1 < len(spans) else n
        a, b = sp.start, sp.end
        while a > lo:
            c, first = text[a - 1], text[a]
            inside = c.isalpha() and (first.isalpha() or first in _JOINERS)  # letters go on to the left
            joined = c in _JOINERS and a - 2 >= lo and text[a - 2].isalpha() and first.isalpha()
            if not (inside or joined):
                break
            a -= 1
        while b < hi:
            c, last = text[b], text[b - 1]
            after_joiner = last in _JOINERS and b - 2 >= a and text[b - 2].isalpha()
            inside = c.isalpha() and (last.isalpha() or after_joiner)
            possessive = (c == "'" and b + 1 < n and text[b + 1] in "sS"
                          and (b + 2 >= n or not text[b + 2].isalpha()))
            joined = (c in _JOINERS and last.isalpha() and b + 1 < hi and text[b + 1].isalpha()
                      and not possessive)
            if not (inside or joined):
                break
            b += 1
        out.append(sp if (a, b) == (sp.start, sp.end) else Span(a, b, sp.label, sp.score, sp.source))
    return out
