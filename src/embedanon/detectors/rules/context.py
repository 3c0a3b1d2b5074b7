"""Decode rules that read the words around a name: coordinations (``A and B``), other
occurrences of a found name, ``Last, First`` header lines and honorifics.

Each rule takes the decoded spans (sorted, disjoint) and returns them with NAME spans added or
widened; see :mod:`embedanon.detectors.rules` for the order they run in.
"""

from __future__ import annotations

import re

import numpy as np

from ..._english import RELATION_NOUNS
from ...lexicon import drug_words, name_like
from ..base import Span
from .base import RuleContext
from .common import (
    AFTER_TITLE_LOWER_NOT_NAMES,
    HEADER_LABELS,
    HONORIFICS,
    NO_PROPAGATION,
    QUANTIFIERS,
    WORD,
    SpanLookup,
    covered_tokens,
    title_word,
)

_CONNECTORS = frozenset({"and", "or", "&"})
#: a token of ``_CONNECTORS`` somewhere in a text (a letter run ``and`` / ``or`` in any case, or ``&``)
_CONNECTOR_WORD = re.compile(r"(?<![^\W\d_])(?:and|or)(?![^\W\d_])|&", re.IGNORECASE)


def extend_coordinations(context: RuleContext, spans: list[Span]) -> list[Span]:
    """Coordinated proper nouns share their type: in ``A and B`` / ``A, B`` / ``A or B`` where one
    side is a NAME span and the other side is one or two title-case words that are in no span and
    not followed (or, on the left, preceded) by another title-case word, the other side becomes a
    NAME span too, with the score of its partner (a bare comma does not link: ``Yesterday, Ana
    came``). In a text without capitals the other side is one or two lower-case words (not in the
    stop lists) followed by no further word (``czermak and nomthandazo.``; not ``kimura and
    shibase started``; round 15). Upper-case texts stay as decoded.

    Args:
        context: the text, its tokens (``tokenize``) and letter case.
        spans: decoded spans, sorted and disjoint.

    Returns:
        The spans with the added names, sorted.
    """
    text, starts, ends = context.text, context.starts, context.ends
    if not spans or not _CONNECTOR_WORD.search(text):
        return spans
    words = context.words
    n = len(words)
    taken = covered_tokens(starts, ends, spans)
    tok_of = {int(a): i for i, a in enumerate(starts.tolist())}
    end_of = {int(b): i for i, b in enumerate(ends.tolist())}
    added: list[Span] = []
    if context.case == "lower":
        def fits(w: str) -> bool:
            return (len(w) > 1 and w.isalpha() and w not in NO_PROPAGATION
                    and w not in AFTER_TITLE_LOWER_NOT_NAMES and w not in QUANTIFIERS)

        def phrase_goes_on(w: str) -> bool:  # a lower-case name ends the list ('and shibase started': no)
            return w.isalpha() and w not in QUANTIFIERS
    else:  # in upper-case text a name looks like any other word ('INNUENDO AND BASELESS CONCLUSIONS')
        def fits(w: str) -> bool:
            return title_word(w)

        def phrase_goes_on(w: str) -> bool:
            return w[:1].isupper()

    def run(i: int, step: int) -> list[int]:
        """Up to two adjacent free fitting tokens from token i in direction step."""
        out: list[int] = []
        while 0 <= i < n and len(out) < 2 and not taken[i] and fits(words[i]):
            out.append(i)
            i += step
        if not out or (0 <= i < n and phrase_goes_on(words[i])):
            return []  # part of a longer capitalized phrase (an organization, a title): leave it
        return out

    for sp in spans:
        if sp.label != "NAME":
            continue
        first, last = tok_of.get(sp.start), end_of.get(sp.end)
        if first is None or last is None:
            continue
        for step, edge in ((1, last), (-1, first)):
            j = edge + step
            if step == 1 and 0 <= j < n and words[j] == ",":  # 'A, and B' (a bare comma is not enough)
                j += step
            if not (0 <= j < n and words[j].lower() in _CONNECTORS):
                continue
            j += step
            if step == -1 and 0 <= j < n and words[j] == ",":
                j += step
            got = run(j, step)
            if got:
                a, b = min(got), max(got)
                if b > a and starts[b] != ends[a] + 1:  # two words: only separated by one space
                    continue
                taken[a : b + 1] = True
                added.append(Span(int(starts[a]), int(ends[b]), "NAME", sp.score, sp.source))
    return sorted(spans + added, key=lambda s: s.start) if added else spans


def _shape(word: str) -> str | None:
    """'title' / 'upper' / 'lower' for a purely alphabetic word, else None."""
    if not word.isalpha():
        return None
    if word.islower():
        return "lower"
    if word.isupper():
        return "upper" if len(word) > 1 else "title"
    if word[0].isupper() and word[1:].islower():
        return "title"
    return None


#: the word ``Will`` / ``WILL`` inside a NAME span (``Will Turner``, ``WILL TURNER:``)
_WILL_IN_NAME = re.compile(r"(?<![^\W\d_])(?:Will|WILL)(?![^\W\d_])")
#: what the verb ``will`` is never followed by
_NOT_AFTER_VERB = re.compile(r"[ \t]*(?:[?!,.\]*]|and\b)")
#: what ends a sentence (or a stage direction's opening bracket, a speaker's colon) before a word
_SENTENCE_BEFORE = re.compile(r"(?:^|[.!?:;\[(\"\u201c\u2018`'*\n])[ \t]*\Z")


def _will_is_a_name(text: str, start: int, end: int) -> bool:
    """Whether ``Will`` at ``text[start:end]`` stands where the verb cannot: inside a sentence
    (``points it at Will``), or before ``?``, ``!``, ``,``, ``.``, ``]`` or ``and`` (``Will?``,
    ``[Will and the governor``)."""
    return (_SENTENCE_BEFORE.search(text, max(0, start - 10), start) is None
            or _NOT_AFTER_VERB.match(text, end) is not None)


#: a verb in -s or -ed right after a word (``Will sees``, ``Will backed``), which the verb ``will``
#: never takes; the words of that shape that are no such verb (``Will this``, ``Will others be``)
_VERB_AFTER = re.compile(r"[ \t]+([a-z]+(?:s|ed))\b")
_NOT_VERBS = frozenset({"was", "is", "has", "does", "this", "his", "us", "as", "its", "yours", "ours",
                        "theirs", "hers", "less", "unless", "always", "perhaps", "thus", "others",
                        "persons", "people", "things", "guys", "kids", "ladies", "gentlemen", "fans",
                        "viewers", "readers", "audiences", "needs"})
#: where a sentence ends after a word
_SENTENCE_END = re.compile(r"[.!?\]\n]")
#: the word before a ``Will`` that is a noun (``of the Will.``, ``Free Will,``)
_NOUN_BEFORE = re.compile(r"(?<![^\W\d_])(?:the|a|an|his|her|my|your|our|their|its|free|good|ill|own|last|"
                          r"living|divine)[ \t]+\Z", re.IGNORECASE)
#: a lower-case word or a comma, then the blanks before a word
_LOWER_BEFORE = re.compile(r"(?:(?<![^\W\d_])[a-z][^\W\d_]*|,)[ \t]+\Z")


def _bare_will_is_a_name(text: str, start: int, end: int) -> bool:
    """Whether ``Will`` at ``text[start:end]``, in a text where no span holds the name, is the name
    all the same (decision 0204): a sentence opening on it and a verb in -s or -ed, and ending on
    no ``?`` (``[Will sees the boats]``, ``Will decides to``; not ``Will others be ...?``), or a
    lower-case word or a comma before it and ``?``, ``!``, ``,``, ``.`` or ``]`` right after it
    (``points it at Will]``, ``Come on, Will,``; not ``Triumph of the Will.``)."""
    if _SENTENCE_BEFORE.search(text, max(0, start - 10), start) is not None:
        verb = _VERB_AFTER.match(text, end)
        if verb is None or verb.group(1) in _NOT_VERBS:
            return False
        stop = _SENTENCE_END.search(text, end)
        return stop is None or stop.group(0) != "?"
    before = text[max(0, start - 30) : start]
    return (text[end : end + 1] in ("?", "!", ",", ".", "]")
            and _LOWER_BEFORE.search(before) is not None and _NOUN_BEFORE.search(before) is None)


def propagate_names(context: RuleContext, spans: list[Span]) -> list[Span]:
    """A name found once is a name everywhere in the same text: every word of a NAME span
    (alphabetic, two letters or more, not in ``NO_PROPAGATION``) marks its other occurrences that
    no span covers as NAME spans, with the score of the span it came from. Shapes must agree: a
    title- or upper-case word marks title- and upper-case occurrences, a lower-case word only
    lower-case ones (a name ``Will`` leaves the verb ``will`` alone). An irregularly cased word
    (``COmfort``, ``McKay``) marks its occurrences of the very same spelling (round 15). The name
    ``Will`` (``will`` is in ``NO_PROPAGATION``) marks only occurrences written ``Will`` where the
    verb cannot stand: inside a sentence, or right before ``?``, ``!``, ``,``, ``.``, ``]`` or
    `` and `` (``at Will]``, ``ELIZABETH SWANN: Will?``, ``[Will and the governor``; never ``Will
    you now?``; decision 0134); where no span holds it, a ``Will`` is a name only where
    :func:`_bare_will_is_a_name` says so (``[Will sees the boats]``, ``at Will]``; decision 0204),
    with the detector's threshold as its score. In text with both cases a lower-case word
    propagates only from a span written all in lower case and only when it reads as a name
    (``lexicon.name_like``: a chat's ``tomas``, not ``hope``): the decode sometimes takes a verb or a
    noun along with a capitalized name (``Hawksley said``, ``Ewing sarcoma``), and that word is no name
    anywhere else (decision 0141). Nothing outlives the call.

    Args:
        context: the text and its tokens (``tokenize``).
        spans: decoded spans, sorted and disjoint.

    Returns:
        The spans with the added names, sorted.
    """
    text, starts, ends = context.text, context.starts, context.ends
    found: dict[tuple[str, bool | None], Span] = {}  # (word, capitalized? / None: exact) -> its span
    mixed = context.case == "mixed"
    for sp in spans:
        if sp.label != "NAME":
            continue
        words = re.findall(r"[^\W\d_]+", text[sp.start : sp.end])
        capitalized = any(not w.islower() for w in words)
        for w in words:
            shape = _shape(w)
            if len(w) < 2 or w.lower() in NO_PROPAGATION:
                continue
            if mixed and w.islower() and (capitalized or not name_like(w)):
                continue  # the verb or noun the decode took along (``Hawksley said``; decision 0141)
            if shape is not None:
                found.setdefault((w.lower(), shape != "lower"), sp)
            else:
                found.setdefault((w, None), sp)
    will = next((sp for sp in spans
                 if sp.label == "NAME" and _WILL_IN_NAME.search(text, sp.start, sp.end)), None)
    if not found and will is None and "Will" not in text:
        return spans
    covered = covered_tokens(starts, ends, spans)
    keys = {word.lower() for word, _ in found}  # a token can only match a key it lowers to
    keys.add("will")
    added: list[Span] = []
    for i in np.flatnonzero(~covered).tolist():
        a, b = int(starts[i]), int(ends[i])
        w = text[a:b]
        if w.lower() not in keys:
            continue
        if w.lower() == "will":
            if w != "Will":
                partner = None
            elif will is not None and _will_is_a_name(text, a, b):
                partner = will
            elif _bare_will_is_a_name(text, a, b):
                partner = Span(a, b, "NAME", context.score, context.source)
            else:
                partner = None
        elif (shape := _shape(w)) is None:
            partner = found.get((w, None)) if w.isalpha() else None
        else:
            partner = found.get((w.lower(), shape != "lower"))
        if partner is not None:
            added.append(Span(a, b, "NAME", partner.score, partner.source))
    return sorted(spans + added, key=lambda s: s.start) if added else spans


#: ``LABEL: A, B`` on a line of its own (A and B single words)
_INVERTED = re.compile(
    rf"^[ \t]*(?:{'|'.join(HEADER_LABELS)})(?:[ \t]+name)?[ \t]*:[ \t]*({WORD})[ \t]*,[ \t]*({WORD})[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)


def _case(word: str) -> str | None:
    """The letter-case shape of a word whose hyphen / apostrophe parts are alphabetic."""
    parts = [p for p in re.split(r"['-]", word) if p]
    shapes = {_shape(p) for p in parts}
    return shapes.pop() if len(shapes) == 1 else None


def join_inverted_names(context: RuleContext, spans: list[Span]) -> list[Span]:
    """``NAME: Okafor, Patience``: a line that is, after a header label (``name``, ``patient``,
    ``student`` ... optionally followed by ``name``, then ``:``), exactly ``A, B`` with single
    words A and B, where one is exactly a NAME span (A's may include the comma) and the other is in
    no span, has the same case shape and is not a function word, becomes one NAME span ``A, B``
    with its partner's score. The two words need only agree on the case of their first letter
    (``Adu, COmfort``, ``Ntanzi, S'fiso-sibongile``; round 15).

    Args:
        context: the text.
        spans: spans, sorted and disjoint.

    Returns:
        The spans with the joined names, sorted.
    """
    text = context.text
    if not spans or "," not in text or ":" not in text:
        return spans
    out = list(spans)
    for m in _INVERTED.finditer(text):
        (a0, a1), (b0, b1) = m.span(1), m.span(2)
        left = [i for i, sp in enumerate(out) if sp.start < a1 and a0 < sp.end]
        right = [i for i, sp in enumerate(out) if sp.start < b1 and b0 < sp.end]
        if bool(left) == bool(right) or len(left + right) != 1:
            continue  # both or neither side found already, or more than one span
        i = (left + right)[0]
        sp = out[i]
        named, free = ((a0, a1), (b0, b1)) if left else ((b0, b1), (a0, a1))
        # exactly the word; on the left also the word with its comma (the model often starts the
        # inverted name there and stops)
        tail = text[named[1] : sp.end].strip(" \t") if sp.end >= named[1] else None
        if sp.label != "NAME" or sp.start != named[0] or tail not in ("", "," if left else ""):
            continue
        other = text[free[0] : free[1]]
        if other.lower() in NO_PROPAGATION:
            continue
        if other[0].isupper() != text[named[0]].isupper():
            continue
        out[i] = Span(a0, b1, "NAME", sp.score, sp.source)
    return out


#: ``Mr. He``, ``mr. fu``, ``Dr Okafor``: an honorific, an optional period, one space or tab, a word
_HONORIFIC = re.compile(rf"\b({'|'.join(HONORIFICS)})\.?[ \t]({WORD})", re.IGNORECASE)


#: words after an honorific that are not a name in any case (``Mr. and Mrs. Okafor``)
_AFTER_TITLE_NOT_NAMES = frozenset({"and", "or", "the", "a", "an", "of"})


def name_after_honorifics(context: RuleContext, spans: list[Span]) -> list[Span]:
    """The word right after ``Mr``, ``Mrs``, ``Ms``, ``Mx``, ``Dr`` or ``Prof`` (a period optional,
    then one space or tab) is a name whatever it spells (``Mrs. He``): when no span covers it, it is
    alphabetic (hyphen / apostrophe parts allowed), has two letters or more and is not ``and``,
    ``or``, ``the``, ``a``, ``an``, ``of``, it becomes a NAME span with ``score``. A lower-case word
    counts only in a text without any upper-case letter (``mr. fu`` in a lower-case note, not
    ``Dr. said`` nor ``a 10 ms delay``) and when it is not in the propagation stop list or
    ``AFTER_TITLE_LOWER_NOT_NAMES`` (``the dr. said``); after an upper-case honorific only an
    upper-case word (``DR. OKAFOR``, not ``history of MS. Patient denies``); never a drug or
    brand name of the shipped drug list (``Dr. Zetia``).

    Args:
        context: the text, the score (the detector's threshold) and source of an added span.
        spans: spans, sorted and disjoint.

    Returns:
        The spans with the added names, sorted.
    """
    text, score, source = context.text, context.score, context.source
    if not any(c in text for c in "MmDdPp"):
        return spans
    caseless = context.caseless  # lower-case words count only in text without capitals
    added: list[Span] = []
    lookup = SpanLookup(spans)
    drugs = drug_words()
    for m in _HONORIFIC.finditer(text):
        a, b = m.span(2)
        word, title = m.group(2), m.group(1)
        shape = _case(word)
        if shape is None or len(word) < 2 or word.lower() in _AFTER_TITLE_NOT_NAMES:
            continue
        if shape == "lower" and (not caseless or word in NO_PROPAGATION
                                 or word in AFTER_TITLE_LOWER_NOT_NAMES):
            continue
        if title.isupper() and shape != "upper":  # 'history of MS. Patient denies ...'
            continue
        if word.lower() in drugs:  # 'Dr. Zetia': a brand, not a doctor
            continue
        if lookup(a, b):
            continue
        added.append(Span(a, b, "NAME", score, source))
    return sorted(spans + added, key=lambda s: s.start) if added else spans


#: nouns for a person close to someone, in the singular (``my sister Ana``, ``her son Herbert``): the
#: verifier's relation nouns (decision 0111) and two of school
_KIN = (*RELATION_NOUNS, "classmate", "teacher")
#: a possessive, an optional word of age or rank, a kin noun, one space, then the word
_AFTER_KIN = re.compile(
    r"\b(?:my|your|his|her|our|their)[ \t]+(?:(?:little|older|younger|big|best|new|old|oldest|youngest|"
    r"eldest|twin|baby|step)[ \t]+)?(?:great-?)?(?:grand-?|step-?)?(?:"
    + "|".join(sorted(_KIN, key=len, reverse=True)) + rf")[ \t]({WORD})(?![\w'\u2019-])",
    re.IGNORECASE,
)


def name_after_kin(context: RuleContext, spans: list[Span]) -> list[Span]:
    """The word right after a possessive and a noun for a close person (``my sister Sơn``, ``her
    son Herbert``) is that person's name when it reads as one: when no span covers it, it is
    capitalized and :func:`~embedanon.lexicon.name_like`, it becomes a NAME span with ``score``
    (decision 0146), and :func:`propagate_names`, which runs next, finds it elsewhere. ``your
    mother I'm`` and ``my sister Hope`` stay as they are (common words; ``Hope`` is left to the
    model), and so does a lower-case word (``my dad doesn't``: the model reads a chat's
    ``my boyfriend tomas``).

    Args:
        context: the text, its case, the score (the detector's threshold) and source of an added
            span.
        spans: spans, sorted and disjoint.

    Returns:
        The spans with the added names, sorted.
    """
    text = context.text
    added: list[Span] = []
    lookup = SpanLookup(spans)
    for m in _AFTER_KIN.finditer(text):
        a, b = m.span(1)
        word = m.group(1)
        if _case(word) != "title" or len(word) < 2 or not name_like(word):
            continue
        if lookup(a, b):
            continue
        added.append(Span(a, b, "NAME", context.score, context.source))
    return sorted(spans + added, key=lambda s: s.start) if added else spans


#: ``, 79,`` right after a name: the news apposition of a person's age (``A man, Ana Ruiz, 79, of``)
_AGE_APPOSITION = re.compile(r",[ \t]?(1[01]\d|12[0-5]|[1-9]?\d),(?=[ \t])")


def age_after_name(context: RuleContext, spans: list[Span]) -> list[Span]:
    """The number of ``, 79,`` right after a NAME span is that person's age (news style: ``A man,
    Gúbio Braga, 79, and two women``; ``a woman, Buchi Adegboye, 74, of Akron``): an AGE span of
    score 1 when no span covers it (decision 0147). A number not closed by a comma (``Smith, 3
    times``) is left alone.

    Args:
        context: the text and the source of an added span.
        spans: spans, sorted and disjoint.

    Returns:
        The spans with the added ages, sorted.
    """
    text = context.text
    added: list[Span] = []
    lookup = SpanLookup(spans)
    for span in spans:
        if span.label != "NAME":
            continue
        m = _AGE_APPOSITION.match(text, span.end)
        if m is None or lookup(*m.span(1)):
            continue
        added.append(Span(m.start(1), m.end(1), "AGE", 1.0, context.source))
    return sorted(spans + added, key=lambda s: s.start) if added else spans
