"""Decode rules that read one name word and its neighbor: tokens the model puts on NAME that the
decode left out (``Chun`` of ``I-Chun``), the other part of a confident one-word name, inverted
names in running text, whole-word widening and the punctuation at a name's edges; and the NAME
spans that are no private person's name: common words, drugs, exclamations, public figures,
countries and words for a nationality.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from ..._english import (
    CLAUSE_END,
    GREETINGS,
    HOLIDAY,
    NAME_ABBREVIATIONS,
    SPEECH_VERBS,
    TITLE_ALTERNATION,
    TITLES,
    WEEKDAY_NAME,
    after_title,
    alternation,
    opens_clause,
)
from ...lexicon import (
    dictionary_word,
    drug_words,
    folded,
    group_names,
    name_like,
    name_parts,
    person_noun,
    public_figure_key,
    public_figures,
)
from ...structure import NAME_PARTICLES
from ...text import without_possessive
from ..base import Span
from ..bio import true_runs
from ..features import fold
from .base import RuleContext
from .common import ADDRESSES, NO_PROPAGATION, SpanLookup, capitalized, drop_where

_JOINERS = "-'"
_LETTERS = re.compile(r"[^\W\d_]+")
#: the score (mean entity probability) a one-word NAME span needs to take in its neighbor
_PAIR_SCORE = 0.5
#: a title after a possessive is a relation (``my sister said``, ``her father had``), not a title
#: before a name (``Sister Mary``): the word after it is read as any other (decision 0153)
_KIN_TITLE = re.compile(
    rf"(?<![\w'\u2019])(?:my|your|his|her|our|their)[ \t]+(?:{TITLE_ALTERNATION})[ \t]+\Z", re.IGNORECASE)
#: a negative contraction's ending (``hasn't``, ``doesn\u2019t``) and the contractions whose verb
#: is not what is left when it goes (``can't``, ``won't``)
_NEGATIVE = re.compile(r"n['\u2019]t\Z", re.IGNORECASE)
_IRREGULAR_NEGATIVES = {"ca": "can", "wo": "will", "sha": "shall", "ai": "is"}


def _after_name_title(text: str, start: int) -> bool:
    """Whether ``text[start:]`` comes right after a title that stands before a name (``Mr. ``,
    ``Sister ``), not after a possessive's relation (``my sister ``, ``his father ``)."""
    return after_title(text, start) and _KIN_TITLE.search(text, max(0, start - 40), start) is None


#: the rest of a negative contraction the decode cut before its apostrophe (``aren`` of ``aren't``)
_NEGATIVE_REST = re.compile(r"['\u2019]t(?![\w'\u2019-])", re.IGNORECASE)


def _words_read(text: str, span: Span) -> list[str]:
    """The letter runs of ``span``'s text, a negative contraction read as its verb (``aren't`` and
    a decoded ``aren`` before ``'t`` -> ``are``; ``O'Neil`` -> ``O``, ``Neil``)."""
    piece = text[span.start : span.end]
    if piece[-1:].lower() == "n" and _NEGATIVE_REST.match(text, span.end):
        piece += "'t"
    return [w for word in _JOINED_WORD.findall(piece) for w in _LETTERS.findall(_verb_of(word))]


def _verb_of(word: str) -> str:
    """``word`` without a negative contraction (``hasn't`` -> ``has``, ``won't`` -> ``will``);
    any other word as it is."""
    m = _NEGATIVE.search(word)
    if m is None or m.start() == 0:
        return word
    stem = word[: m.start()]
    return _IRREGULAR_NEGATIVES.get(stem.lower(), stem)
#: a word with its inner apostrophes and hyphens (``O'Neil``, ``ma'am``, ``sister-in-law``)
_JOINED_WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")


def _word_goes_on(text: str, i: int) -> bool:
    """Whether text[i] exists and continues a word (a letter, digit or underscore)."""
    return 0 <= i < len(text) and (text[i].isalnum() or text[i] == "_")


#: what joins the letter pieces of one name word (``Okafor-Adeyemi``, ``S'fiso``, ``O’Neil``)
_NAME_JOINERS = _JOINERS + "\u2019"


def name_orphan_tokens(context: RuleContext, spans: list[Span]) -> list[Span]:
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

    The gate is the higher of 0.5 and the detector's threshold (``context.score``), so a detector
    asked for more certainty than 0.5 (``model_threshold=0.99``) gets it here too.

    Args:
        context: the text, its tokens and their probabilities, the detector's threshold and name.
        spans: the decoded spans, sorted and disjoint.

    Returns:
        The spans with the added names, sorted.
    """
    text, starts, ends = context.text, context.starts, context.ends
    if len(starts) == 0:
        return spans
    name_p = context.name_probability
    lookup = SpanLookup(spans)
    keep = np.zeros(len(starts), dtype=bool)
    mixed = context.case == "mixed"
    for t in np.flatnonzero(name_p >= max(_PAIR_SCORE, context.score)).tolist():
        a, b = int(starts[t]), int(ends[t])
        token = text[a:b]
        if not any(c.isalpha() for c in token) or lookup(a, b):
            continue
        keep[t] = not mixed or capitalized(token)
    added = [Span(int(starts[first]), int(ends[end - 1]), "NAME",
                  float(np.clip(name_p[first:end].mean(), 0.0, 1.0)), context.source)
             for first, end in true_runs(keep)]
    return sorted([*spans, *added], key=lambda sp: sp.start) if added else spans


def _pair_fits(word: str, name: str, case: str, common: frozenset[str]) -> bool:
    """Whether ``word`` may be another part of the one-word name ``name`` in a text of letter case
    ``case`` (:func:`~.common.text_case`): not among ``common`` nor a function word, and in the
    name's case (see :func:`complete_name_pairs`), and no laughter or listed interjection (``Oy``
    of ``Oy Gevalt!``; decision 0207; a word of an exclamation's shape may be a name part: ``Uhm``
    of ``Uhm Jeong-hwa``)."""
    key = fold(word)
    if not word or key in common or key in NO_PROPAGATION or _interjection(word):
        return False
    if case == "lower":
        return word.islower()
    if case == "upper":
        return word.isupper()
    if name.isupper() and len(name) > 1:
        return word.isupper()
    return capitalized(word) and not word.isupper()


def complete_name_pairs(context: RuleContext, spans: list[Span]) -> list[Span]:
    """A confident one-word NAME span takes in the word right next to it when that word looks like
    another part of the same name: ``[DIMBA]`` of ``THEMBISILE DIMBA``, ``[taibi]`` of ``younes
    taibi``.

    The span's score (the model's mean entity probability) must be at least 0.5: the model's
    doubtful one-word spans are where its false positives are, and widening them pairs jargon
    (``ANTEGRADE cardioplegia``). The neighbor is joined by one space on the same line, touches
    no span, is not among the 20,000 most frequent public English words (``Hospital``, ``said``,
    ``ask`` never join), and has the name's case: capitalized like it, or all capitals next to all
    capitals, in mixed text; lower case in text without capitals; upper case in text without
    lower-case letters. One word is taken on each side at most; a span of two words or more is
    left alone. A possessive ``'s`` stays outside.

    Args:
        context: the text and its case.
        spans: spans, sorted and disjoint.

    Returns:
        The spans, NAME spans widened to their pair.
    """
    text = context.text
    if not any(sp.label == "NAME" and sp.score >= _PAIR_SCORE for sp in spans):
        return spans
    common, case = context.common, context.case

    def fits(word: str, name: str) -> bool:
        return _pair_fits(word, name, case, common)

    out: list[Span] = []
    for k, sp in enumerate(spans):
        name = text[sp.start : sp.end]
        if sp.label != "NAME" or sp.score < _PAIR_SCORE or not _JOINED_WORD.fullmatch(name):
            out.append(sp)
            continue
        lo = out[-1].end if out else 0
        hi = spans[k + 1].start if k + 1 < len(spans) else len(text)
        a, b = sp.start, sp.end
        after = _JOINED_WORD.match(text, b + 1) if text[b : b + 1] == " " else None
        if after and after.end() <= hi and not _word_goes_on(text, after.end()):
            word = without_possessive(after.group())
            if fits(word, name):
                b = after.start() + len(word)
        if text[a - 1 : a] == " ":
            j = a - 1
            while j > lo and (text[j - 1].isalpha() or text[j - 1] in _NAME_JOINERS):
                j -= 1
            before = text[j : a - 1]
            if _JOINED_WORD.fullmatch(before) and not _word_goes_on(text, j - 1) and fits(before, name):
                a = j
        out.append(sp if (a, b) == (sp.start, sp.end) else Span(a, b, sp.label, sp.score, sp.source))
    return out


#: what may follow the given name of an inverted name in running text (``Maduma, Thembile.``)
_INVERSION_END = ",.!?;\r\n"


def join_running_inversions(context: RuleContext, spans: list[Span]) -> list[Span]:
    """``I sat next to [Maduma], Thembile.``: a confident one-word NAME span, ``, `` and one word
    that touches no span and is followed by ``,.!?;``, a line end or the text's end become one
    NAME span ``Maduma, Thembile`` with the name's score, when the word may be another part of the
    name as in :func:`complete_name_pairs` (the span's score at least 0.5; the word not among the
    20,000 most frequent public English words nor a function word, in the name's case:
    ``Okafor, MD.``, ``Chen, Jr.``, ``Adu, again.`` never join). A span that took the comma
    (``[Maduma,] Thembile``) counts as the word alone. :func:`join_inverted_names` does the same on
    header lines only. Round 34.

    Args:
        context: the text and its case.
        spans: spans, sorted and disjoint.

    Returns:
        The spans, NAME spans joined with the given name after them.
    """
    text = context.text
    if ", " not in text or not any(sp.label == "NAME" and sp.score >= _PAIR_SCORE for sp in spans):
        return spans
    common, case = context.common, context.case
    out: list[Span] = []
    for k, sp in enumerate(spans):
        name = text[sp.start : sp.end].rstrip(",")
        e = sp.start + len(name)
        after = _JOINED_WORD.match(text, e + 2) if text[e : e + 2] == ", " and sp.end <= e + 1 else None
        hi = spans[k + 1].start if k + 1 < len(spans) else len(text)
        if (sp.label != "NAME" or sp.score < _PAIR_SCORE or not _JOINED_WORD.fullmatch(name)
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
_NAME_EDGE_PUNCT = ',;:!?"'
#: a year or a decade (``1980``, ``1980s``), which a NAME span never is
_YEAR = re.compile(r"(?:1[89]|20)\d\d(?:'?s)?")
#: words of an office or of kinship that a NAME span loses at its start when a name follows
#: (``Principal [Okafor]``, ``Vice President [Bush]``, ``Aunt [Rosa]``; decision 0214). Unlike the
#: titles (:data:`~embedanon._english.TITLES`), no rule reads a name after them; none is a listed
#: name part (``Dean``, ``Bishop``, ``Major`` may be the name itself)
_LEADING_OFFICES = frozenset((
    "principal", "headmaster", "headmistress", "headteacher", "teacher", "tutor", "counselor",
    "counsellor", "chancellor", "president", "vice", "chairman", "chairwoman", "chairperson", "chief",
    "director", "supervisor", "secretary", "minister", "ambassador", "commissioner", "superintendent",
    "councillor", "councilor", "councilman", "councilwoman", "alderman", "congressman",
    "congresswoman", "lieutenant", "commander", "corporal", "trooper", "constable", "warden",
    "ranger", "agent", "chaplain", "archbishop", "cardinal", "brother", "aunt", "auntie", "uncle",
    "grandma", "grandpa", "granny",
))  # fmt: skip
#: a title or such a word opening a NAME span, then the name: ``Mister [Gibbs]``, ``Captain [Jack]``
_LEADING_TITLE = re.compile(rf"(?:{alternation(TITLES | _LEADING_OFFICES)})\.?[ \t]+(?=\w)", re.IGNORECASE)


#: the word before a NAME span's last period, when that period ends a sentence: three letters or
#: more (not an initial, ``Jr.`` or ``St.``)
_LAST_WORD_PERIOD = re.compile(r"([^\W\d_]{3,})\.\Z")
#: what may follow a sentence's period right after a name: the text's end, a space or a line's end,
#: a closing quote or bracket, a tag (a caption's ``</v>``: ``<v Doctor>Hello Maria.</v>``)
_AFTER_PERIOD = frozenset(" \t\r\n\"')]<\u201d\u2019")


def _ends_sentence(text: str, a: int, b: int) -> bool:
    """Whether the period ``text[b - 1]`` of the NAME span ``text[a:b]`` ends the sentence, not an
    initial or an abbreviation (decision 0189): the word before it has three letters or more, is no
    title or abbreviation, and the text ends after it or goes on with a space, a line's end, a
    closing quote, a bracket or a tag."""
    m = _LAST_WORD_PERIOD.search(text, a, b)
    if m is None or m.group(1).lower() in NAME_ABBREVIATIONS or m.group(1).lower() in TITLES:
        return False
    return b == len(text) or text[b] in _AFTER_PERIOD


def trim_name_edges(context: RuleContext, spans: list[Span]) -> list[Span]:
    """NAME spans lose the list and sentence punctuation at their edges (``Okafor,`` → ``Okafor``):
    a redacted name otherwise took the comma after it with it (``Thanks to [NAME] Mrs. ...``).
    Only ``,;:!?``, the double quote (``"Ann Lee"``, decision 0174), whitespace and the period
    that ends a sentence (``Bye Tomasz.``, decision 0189) are removed, never a letter, the period
    of an initial or an abbreviation (``J.``, ``Jr.``, ``Esq.``) or a single quote (an apostrophe
    may be the name's);
    a span of nothing else, or of symbols only (``<`` of ``<teacher>``), is dropped, and so is a
    year or a decade alone (``By 1980``; one of other digits stays: the model may have read an age
    as a name, and it is still PII).
    A title that opens a span of more words leaves it
    (``Mister Gibbs`` → ``Gibbs``, ``Captain Jack`` → ``Jack``; :data:`embedanon._english.TITLES`):
    the name is the PII, the title is kept as written, as after ``Dr.``. Other labels are left
    as they are.

    Args:
        context: the text.
        spans: spans, sorted and disjoint.

    Returns:
        The spans, NAME spans trimmed.
    """
    text = context.text
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
        if b > a and text[b - 1] == "." and _ends_sentence(text, a, b):
            b -= 1
        title = _LEADING_TITLE.match(text, a, b)
        while title is not None:
            a = title.end()
            title = _LEADING_TITLE.match(text, a, b)
        if not any(c.isalnum() for c in text[a:b]):
            continue  # symbols only: '<' of a chat log's '<teacher>'
        if _YEAR.fullmatch(text, a, b):
            continue  # 'By 1980, we knew': a year alone is no name and no PII (decision 0215)
        if (a, b) == (sp.start, sp.end):
            out.append(sp)
        else:
            out.append(Span(a, b, sp.label, sp.score, sp.source))
    return out


#: a word of a span, as the text's spaces cut it
_SPAN_WORD = re.compile(r"\S+")
#: the pronoun ``I`` and its apostrophe forms, folded (``I'm Jordan Smith``)
_PRONOUN_I = frozenset({"i", "i'm", "i\u2019m", "i've", "i'd", "i'll"})
#: words that never end a name written in lower case: the pronoun ``I``, a verb of saying and the
#: commonest verbs after a subject (``my friend carlos said``, ``sandu, I'm``; decision 0213)
_NEVER_LAST = _PRONOUN_I | frozenset(SPEECH_VERBS) | frozenset({"is", "was", "has", "had", "and"})


#: the words of the greetings, thanks and farewells (``good``, ``morning``, ``bye``)
_GREETING_WORDS = frozenset(w for g in GREETINGS for w in g.split())
#: words that open a turn or a sentence before the name it addresses: those of a greeting, a thanks
#: or a farewell, a yes or a no, and chat interjections (``Bye Marisol``, ``Yes Kwame``, ``Wow
#: Tomasz``), folded, each run of a letter written once (``Byee``)
_OPENERS = _GREETING_WORDS | {
    "yes", "no", "ok", "okay", "yeah", "yep", "wow", "aw", "yay", "omg", "ops", "whoa", "yikes", "lol",
}  # fmt: skip


def trim_lower_edges(context: RuleContext, spans: list[Span]) -> list[Span]:
    """A capitalized NAME span in text with both cases loses the lower-case common words at its
    edges: the verb after a name that opens a sentence (``Maria said``, ``Kenji arrived``) and the
    words before it (``I'm Jordan Smith``). The decode's shift towards names lets the model's
    small continuation probability on such a word win; the surrogate then replaced the verb.

    An edge word leaves when it is written in lower case (or is the pronoun ``I``, ``I'm``), is
    among the 20,000 most frequent public English words and is no name particle (``de``, ``van``,
    ``bin``); it leaves only while a capitalized word stays in the span, so a name written all
    in lower case (``hải anh``) is left as it is, and a span of one word never changes. In a span
    that opens a line, a speaker's turn or a sentence, first words also leave, in any case, when
    they are words of a greeting, a thanks or a farewell (:data:`~embedanon._english.GREETINGS`),
    a yes or a no, a chat interjection or laughter (``Bye Marisol``, ``Congrats Aiko``, ``Haha
    Kwame``, ``Wow Tomasz`` → the name; decision 0187), while a word that is none of these stays;
    not inside a sentence (``M Night Shyamalan``, ``Hello Dolly`` as a film's title).

    Args:
        context: the text and its case.
        spans: spans, sorted and disjoint.

    Returns:
        The spans, NAME spans trimmed.
    """
    text, common = context.text, context.common
    if context.case != "mixed":
        return [_without_closed_last(text, sp, _span_words(text, sp)) if sp.label == "NAME" else sp
                for sp in spans]

    def loose(word: str) -> bool:
        key = fold(word.strip(_NAME_EDGE_PUNCT))
        if key in _PRONOUN_I:
            return True
        return word.islower() and key in common and key not in NAME_PARTICLES

    def opener(word: str) -> bool:
        bare = word.strip(_NAME_EDGE_PUNCT)
        return fold(bare) in _OPENERS or bool(_LAUGHTER.fullmatch(bare)) or _one_letter_runs(bare) in _OPENERS

    out: list[Span] = []
    for sp in spans:
        if sp.label != "NAME":
            out.append(sp)
            continue
        words = _span_words(text, sp)
        i, j = 0, len(words)
        while j - i > 1 and loose(text[words[j - 1][0] : words[j - 1][1]]):
            j -= 1
        while j - i > 1 and loose(text[words[i][0] : words[i][1]]):
            i += 1
        if i == 0 and j > 1 and opens_clause(text, sp.start):  # ``Bye Marisol``, ``Haha Kwame``
            openers = [opener(text[a:b]) for a, b in words[:j]]
            while j - i > 1 and openers[i] and not all(openers[i + 1 : j]):
                i += 1
        kept = [text[a:b] for a, b in words[i:j]]
        if not any(capitalized(w) for w in kept):  # a name in lower case (``hải anh``)
            out.append(_without_closed_last(text, sp, words))
        elif (i, j) == (0, len(words)):
            out.append(sp)
        else:
            out.append(Span(words[i][0], words[j - 1][1], sp.label, sp.score, sp.source))
    return out


def _span_words(text: str, sp: Span) -> list[tuple[int, int]]:
    """The offsets of the words of ``sp`` (runs of non-space, punctuation kept)."""
    return [(m.start(), m.end()) for m in _SPAN_WORD.finditer(text, sp.start, sp.end)]


def _without_closed_last(text: str, sp: Span, words: list[tuple[int, int]]) -> Span:
    """The NAME span ``sp``, of the words ``words`` (:func:`_span_words`), without the words of
    :data:`_NEVER_LAST` at its end when it has no capitalized word but the pronoun ``I``
    (``carlos said``, ``sandu, I'm`` → ``carlos``, ``sandu``; decision 0213); one word always
    stays."""
    if any(capitalized(w) and fold(w.strip(_NAME_EDGE_PUNCT)) not in _PRONOUN_I
           for w in (text[a:b] for a, b in words)):
        return sp
    j = len(words)
    while j > 1 and fold(text[words[j - 1][0] : words[j - 1][1]].strip(_NAME_EDGE_PUNCT)) in _NEVER_LAST:
        j -= 1
    if j == len(words):
        return sp
    a, b = words[j - 1]
    end = a + len(text[a:b].rstrip(_NAME_EDGE_PUNCT))
    return Span(sp.start, end, sp.label, sp.score, sp.source) if end > sp.start else sp


def widen_to_whole_words(context: RuleContext, spans: list[Span]) -> list[Span]:
    """A NAME span never cuts a word: a span that starts or ends inside letters joined by hyphens
    or apostrophes (``Bao-`` of ``Bao-Li-Hsiang``, ``fiso`` of ``S'fiso``) is widened to the whole
    word, up to the neighboring spans; a possessive ``'s`` stays outside (``Boutin's``).

    Args:
        context: the text.
        spans: spans, sorted and disjoint.

    Returns:
        The spans, widened where they cut a word.
    """
    text = context.text
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


def drop_common_words(context: RuleContext, spans: list[Span]) -> list[Span]:
    """A doubtful NAME span of common English words only is no name: a NAME span the model scored
    below 0.5 (the gate of :func:`complete_name_pairs`) whose words are all among the 20,000 most
    frequent public English words and none reads as a name (:func:`~embedanon.lexicon.name_like`:
    not a given name that 0.1 % of the US population bears nor a name part of any Faker locale
    below the 5,000 most frequent words) is dropped, unless it holds a digit or stands right after
    a title (``Mr. Black``). So interjections and fillers (``Ah``, ``Yeah``, ``Nope``,
    ``Quiet``), lower-case words of chat and role words (``Guy``, ``Sir``) leave; ``Jack``,
    ``Arthur``, ``Gibbs``, ``Fang`` and a confident ``Hope`` stay.

    Args:
        context: the text.
        spans: spans, sorted and disjoint.

    Returns:
        The spans less those NAME spans.
    """
    text = context.text

    def common(sp: Span) -> bool:
        piece = text[sp.start : sp.end]
        if sp.score >= _PAIR_SCORE or any(c.isdigit() for c in piece):
            return False
        words = _words_read(text, sp)
        return bool(words) and not any(name_like(w) for w in words) and not _after_name_title(text, sp.start)

    return drop_where(spans, "NAME", common)


def _unspaced(text: str, start: int, end: int) -> tuple[int, int]:
    """``(a, b)``: ``text[start:end]`` widened to the white space (or the text's ends) around it."""
    a, b = start, end
    while a > 0 and not text[a - 1].isspace():
        a -= 1
    while b < len(text) and not text[b].isspace():
        b += 1
    return a, b


#: the words of a greeting, a thanks or a farewell, and of a yes or no, before an address
#: (``Bye Doctor!``, ``Okay Doctor``)
_BEFORE_ADDRESS = _GREETING_WORDS | {"okay", "ok", "yes", "no", "sure"}


def drop_dictionary_words(context: RuleContext, spans: list[Span]) -> list[Span]:
    """A title alone, or a dictionary word in lower case, is no name. A NAME span after no title is
    dropped:

    * whatever the model's score, when its words are all titles (``doctor``, ``sir``,
      ``professor``: :data:`~embedanon._english.TITLES`; and ``doc``, ``ma'am``) written in lower
      case (``Hello doctor!``, ``hi doctor``), or capitalized where a clause ends (``Hello
      Doctor!``, ``Okay Doctor, I will``, ``Thanks Doc.``; not ``Lord nodded``), the title
      alone or after the words of a greeting or a yes (``Bye Doctor!``): an address by role
      (decisions 0144, 0151);
    * in text with both cases, when it is written in lower case and its whole words are all nouns
      for a kind of person (:func:`~embedanon.lexicon.person_noun`), whatever the score (``Yes
      ma'am``, ``my liege``, ``you nitwit``, ``Hey, jaywalker!``; decision 0140), or, where the
      model doubts it (below 0.5, the gate of :func:`drop_common_words`), English dictionary
      words (:func:`~embedanon.lexicon.dictionary_word`: WordNet's lower-case lemmas and their
      inflections): the rare symptoms and tasting words of notes and chats (``melena``,
      ``pyuria``, ``sombreros``, ``tannic``; decision 0143).

    No listed name part is a person noun or a dictionary word. A capitalized word may be a
    surname (``Parsons``, ``Draper``) or a script's character and is left to the other rules;
    ``boss``, ``hope`` and ``dean`` are listed name parts and stay with the model, as do the
    lower-case names of chats that no dictionary holds (``tunde``) and a confident ``memory`` or
    ``gift`` (given names the lists lack).

    Args:
        context: the text and its case.
        spans: spans, sorted and disjoint.

    Returns:
        The spans less those NAME spans.
    """
    if context.case == "upper":
        return spans
    text, mixed = context.text, context.case == "mixed"

    def dictionary(sp: Span) -> bool:
        piece = text[sp.start : sp.end]
        # the whole words the span touches (the decode may hold ``ma`` of ``ma'am``), read from the
        # white space before it to the white space after it: no word holds white space, and
        # reading the whole line for each span was quadratic in a long line's length
        touched = [m for m in _JOINED_WORD.finditer(text, *_unspaced(text, sp.start, sp.end))
                   if m.start() < sp.end and sp.start < m.end()]
        words = [m.group() for m in touched]
        if not piece.islower():
            # a capitalized title alone that ends a clause is an address too: ``Hello Doctor!``,
            # and so is one the decode took with the greeting before it: ``Bye Doctor!``
            said = [w.lower() for w in words]
            return (bool(said) and said[-1] in ADDRESSES and all(w in _BEFORE_ADDRESS for w in said[:-1])
                    and CLAUSE_END.match(text, touched[-1].end()) is not None
                    and not after_title(text, sp.start))
        doubtful = sp.score < _PAIR_SCORE

        def gone(w: str) -> bool:
            return w in ADDRESSES or (mixed and (person_noun(w) or (doubtful and dictionary_word(w))))

        return (bool(words) and all(w.islower() and gone(w) for w in words)
                and not _after_name_title(text, sp.start))

    return drop_where(spans, "NAME", dictionary)


def drop_drug_names(context: RuleContext, spans: list[Span]) -> list[Span]:
    """A drug or brand name is no person's name: a NAME span whose words are drug or drug-brand
    names of the shipped public drug list (:func:`~embedanon.lexicon.drug_words`: ``Ativan``,
    ``Zetia``, ``Bactrim``) and otherwise common words that do not read as names (``Ativan
    tablets``) is dropped, after a title too (``Dr. Zetia`` is a brand the model read after an
    honorific).

    Args:
        context: the text.
        spans: spans, sorted and disjoint.

    Returns:
        The spans less those NAME spans.
    """
    text = context.text
    drugs = drug_words()

    def drug(sp: Span) -> bool:
        words = [w.lower() for w in _LETTERS.findall(text[sp.start : sp.end])]
        return any(w in drugs for w in words) and all(w in drugs or not name_like(w) for w in words)

    return drop_where(spans, "NAME", drug)


#: the letter shapes of exclamations: a letter three times in a row (``Aaaugh``, ``Riiight``), or
#: only the letters of a sigh, a groan or a hush (``Agh``, ``Augh``, ``Ooh``, ``Shh``, ``Hmm``, ``Tsk``)
_EXCLAMATION = re.compile(r"(?i)[^\W\d_]*([^\W\d_])\1\1[^\W\d_]*|[aeiou]*[aeiou]+[gh]+|[aeiou]*h+m*|"
                         r"s+h+|h*m+|t+s+k+|u+[gh]+")
#: laughter (``Haha``, ``Hehehe``, ``Ahaha``, ``Lolol``) and the chat interjections spelled as words
#: (``Aha``, ``Oops``, ``Yay``, ``Omg``, ``Byee``), written with each run of a letter as one letter
#: (:func:`_one_letter_runs`); none is a listed name part (decision 0142)
_LAUGHTER = re.compile(r"(?i)a?(?:h[aeiou]){2,}h?|(?:lo)+l|lmf?ao|rofl")
_INTERJECTIONS = frozenset((
    "aha", "ahem", "argh", "aw", "blah", "bye", "darn", "duh", "ew", "gah", "gez", "gosh", "hmph", "horay",
    "huray", "jez", "meh", "mhm", "omfg", "omg", "omgosh", "ops", "ouch", "oy", "pft", "phew", "pst", "um",
    "uh", "whew", "whoa", "whops", "wow", "yay", "yikes", "yuck",
))  # fmt: skip
#: interjections that are also listed name parts or a surname (``Gee``, ``Bah``, ``Erm``, ``Eek``,
#: ``Dang``): one only where it opens a clause and punctuation follows it (``Gee, I guess``, ``Bah,
#: humbug!``; not ``Miss Gee asked``, ``Ta is the``; decision 0207)
_NAME_LIKE_INTERJECTIONS = frozenset(("gee", "bah", "erm", "errm", "eek", "dang"))
#: an interjection of :data:`_NAME_LIKE_INTERJECTIONS` may follow these and still open its clause
_OH_BEFORE = re.compile(r"(?i)(?<![^\W\d_])(?:oh|aw+|ah)[ \t,]+\Z")
_PUNCTUATION_AFTER = re.compile(r"[ \t]*(?:[,!?]|\.(?!\w))")


def _one_letter_runs(word: str) -> str:
    """``word`` in lower case with each run of one letter written once (``Byee`` -> ``bye``)."""
    return re.sub(r"(.)\1+", r"\1", word.lower())


def _interjection(word: str) -> bool:
    """Whether ``word`` is laughter or a chat interjection of :data:`_INTERJECTIONS`."""
    return _LAUGHTER.fullmatch(word) is not None or _one_letter_runs(word) in _INTERJECTIONS


def _exclamation(word: str) -> bool:
    """Whether ``word`` has the shape of an exclamation or is laughter or a chat interjection."""
    return _EXCLAMATION.fullmatch(word) is not None or _interjection(word)


def drop_exclamations(context: RuleContext, spans: list[Span]) -> list[Span]:
    """An exclamation is no name: a NAME span whose words (hyphen pieces too) all have the letter
    shape of one (a letter three times in a row, ``Aaaugh``, ``Riiight``; or only the letters of a
    sigh, a groan or a hush, ``Agh``, ``Augh``, ``Ooh``, ``Shh``, ``Hmm``, ``Tsk-tsk``), or that
    are laughter or chat interjections spelled as words (``Haha``, ``Ahaha``, ``Aha``, ``Omg``,
    ``Oops``, ``Byee``; decision 0142; ``Argh``, ``Phew``, ``Geez``, ``Psst``, 0207) is dropped,
    whatever the model's score; so is an interjection that is also a name (``Gee``, ``Bah``,
    ``Erm``) alone in a span that opens its clause (after ``Oh`` too) with ``,``, ``!``, ``?`` or
    ``.`` after it (``Gee, I guess``, ``Oh bah!``; not ``Miss Gee asked``; 0207).

    Args:
        context: the text.
        spans: spans, sorted and disjoint.

    Returns:
        The spans less those NAME spans.
    """
    text = context.text

    def exclamation(sp: Span) -> bool:
        words = _LETTERS.findall(text[sp.start : sp.end])
        if len(words) == 1 and words[0].lower() in _NAME_LIKE_INTERJECTIONS:
            oh = _OH_BEFORE.search(text, max(0, sp.start - 12), sp.start)
            return (opens_clause(text, sp.start if oh is None else oh.start())
                    and _PUNCTUATION_AFTER.match(text, sp.end) is not None)
        return bool(words) and all(_exclamation(w) for w in words)

    return drop_where(spans, "NAME", exclamation)


#: the words of a name as written: letter and digit runs, an apostrophe inside one (``O'Brien`` is
#: one word; ``Saint-Saens``, ``D.W.Griffith`` and ``Vladimir\Putin`` are more)
_NAME_WORDS = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")


def drop_public_figures(context: RuleContext, spans: list[Span]) -> list[Span]:
    """A public figure named in full is no private person (``Tony Blair``, ``Amelia Earhart``,
    ``Salvador Dali's``): a NAME span whose whole text is a name of two words or more (as written:
    ``O'Brien`` is one word, though its key ``o brien`` is on the list) of the shipped
    list (:func:`~embedanon.lexicon.public_figures`: WordNet 3.0's person instances, less the
    two-word names whose given name and surname are both common, so ``John Smith`` is never on
    it) is dropped, and so is a one-word NAME span elsewhere in the text that is the last word of
    a figure dropped there (``Arafat`` after ``Yasser Arafat``) and no listed given name (``Arthur``
    after ``King Arthur`` may be someone's son, and stays). Not when a word of the name labels
    a speaker's turn in the text (``ARTHUR:``): who speaks in a transcript is a participant,
    whatever name they share. Decision 0117.

    Args:
        context: the text.
        spans: spans, sorted and disjoint.

    Returns:
        The spans less those NAME spans.
    """
    text, figures = context.text, public_figures()
    keys = {(sp.start, sp.end): public_figure_key(text[sp.start : sp.end])
            for sp in spans if sp.label == "NAME"}
    # a name of two words or more as written: the key of one word may hold a space, but
    # ``O'Brien`` (``o brien``, a key the list holds for the writers of that surname) is the
    # surname of many people (decision 0188)
    written = {(a, b): _NAME_WORDS.findall(text, a, b) for (a, b), k in keys.items()
               if " " in k and k in figures}
    found = {(keys[ab], public_figure_key(words[-1])) for ab, words in written.items() if len(words) > 1}
    if not found:
        return spans
    speakers = {folded(w) for label in context.labels for a, b in label.names
                for w in _LETTERS.findall(text[a:b])}
    found = {(k, last) for k, last in found if not speakers.intersection(k.split())}
    given = name_parts("first")  # a last word that is also a given name may be someone else's
    dropped = {k for k, _ in found} | {last for _, last in found if last not in given}
    return drop_where(spans, "NAME", lambda sp: keys[sp.start, sp.end] in dropped)


#: the word before a span, and the one or two words after it (decision 0206)
_WORD_BEFORE = re.compile(r"([^\W\d_]+)[ \t]+\Z")
_WORDS_AFTER = re.compile(r"[ \t]+([^\W\d_]+)(?:[ \t]+([^\W\d_]+))?")


@lru_cache(maxsize=1)
def _words_of_longer_group_names() -> frozenset[str]:
    """The words of the group names of two words or more (``rhode``, ``island``, ``lama``)."""
    return frozenset(w for name in group_names() if " " in name for w in name.split())


def _in_a_group_name(text: str, start: int, end: int, groups: frozenset[str]) -> bool:
    """Whether ``text[start:end]`` is a group's name, or part of one with the word before it or
    the one or two after it (``Rhode`` of ``Rhode Island``, ``Puerto`` of ``Puerto Rican``,
    ``Lama`` of ``Dalai Lama``)."""
    key = public_figure_key(text[start:end])
    if key in groups:
        return True
    if not key or any(w not in _words_of_longer_group_names() for w in key.split()):
        return False  # no longer name holds every word of the span
    before = _WORD_BEFORE.search(text, max(0, start - 30), start)
    if before is not None and f"{public_figure_key(before.group(1))} {key}" in groups:
        return True
    after = _WORDS_AFTER.match(text, end)
    if after is None:
        return False
    first = f"{key} {public_figure_key(after.group(1))}"
    return first in groups or (after.group(2) is not None
                               and f"{first} {public_figure_key(after.group(2))}" in groups)


#: how far around a span :func:`_holidays_around` looks: more than the longest holiday's name
_HOLIDAY_REACH = 32


def _holidays_around(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The holidays' names (:data:`~embedanon._english.HOLIDAY`) that overlap ``text[start:end]``,
    searched in a window around it, not the whole text (a pass of the whole text cost 2 % of
    detection time); a match that reaches the window's end, where the pattern's last look ahead
    cannot see the next character, is not taken."""
    lo, hi = max(0, start - _HOLIDAY_REACH), min(len(text), end + _HOLIDAY_REACH)
    return [(m.start(), m.end()) for m in HOLIDAY.finditer(text, lo, hi)
            if m.start() < end and start < m.end() and (m.end() < hi or hi == len(text))]


def drop_calendar_names(context: RuleContext, spans: list[Span]) -> list[Span]:
    """Names of the calendar are no person and no place (decision 0227):

    * a NAME or LOCATION span inside the name of a holiday (:data:`~embedanon._english.HOLIDAYS`:
      ``Christmas``, ``Mardi Gras``, ``Ramadan``, the ``Valentine`` of ``Valentine's Day``, the
      ``Eve`` of ``Christmas Eve``) is dropped; one that reaches beyond it stays (``Eric
      Christmas``);
    * a NAME span that is a weekday alone (``see you Friday then``) is dropped, and a NAME span of
      three or more words loses a weekday that ends it (``President Pervez Musharraf Monday
      described``, not the ``Friday`` of ``Good Friday``); ``Joe Friday`` stays.

    In a record with dates the pipeline makes holidays and weekdays DATE spans (decision 0219).

    Args:
        context: the text.
        spans: spans, sorted and disjoint.

    Returns:
        The spans less those spans, and those NAME spans without their weekday.
    """
    if not any(s.label in ("NAME", "LOCATION") for s in spans):
        return spans
    text = context.text
    out: list[Span] = []
    for sp in spans:
        if sp.label not in ("NAME", "LOCATION"):
            out.append(sp)
            continue
        holidays = _holidays_around(text, sp.start, sp.end)
        if any(a <= sp.start and sp.end <= b for a, b in holidays):
            continue
        if sp.label == "NAME":
            words = text[sp.start : sp.end].split()
            if len(words) == 1 and WEEKDAY_NAME.fullmatch(without_possessive(words[0])):
                continue
            if (len(words) >= 3 and WEEKDAY_NAME.fullmatch(words[-1])
                    and not any(a < sp.end <= b for a, b in holidays)):  # not `Long Good Friday`
                end = sp.start + len(text[sp.start : sp.end].rstrip()[: -len(words[-1])].rstrip())
                sp = Span(sp.start, end, sp.label, sp.score, sp.source)
        out.append(sp)
    return out


def drop_group_names(context: RuleContext, spans: list[Span]) -> list[Span]:
    """A name of a group names no one: a NAME span whose whole text is a country, a US state or a
    word for a kind of person (a national, an inhabitant, an adherent: ``Afghan``,
    ``Scandinavian``, ``Dutchman``, ``Ghana``, ``Minnesota``; :func:`~embedanon.lexicon.group_names`,
    which holds no listed name part, so ``Jordan``, ``Georgia`` and ``Christian`` stay names) is
    dropped (decision 0118), and so is one that is such a name with the word before it or the one
    or two after it (``Rhode`` of ``Rhode Island``, ``Puerto`` of ``Puerto Rican``; decision 0206).

    Args:
        context: the text.
        spans: spans, sorted and disjoint.

    Returns:
        The spans less those NAME spans.
    """
    text, groups = context.text, group_names()
    return drop_where(spans, "NAME", lambda sp: _in_a_group_name(text, sp.start, sp.end, groups))
