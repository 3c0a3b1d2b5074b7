"""Reversible tokenizer and case transfer.

A text is cut into tokens of five kinds that cover it exactly, so ``detokenize(tokenize(s)) == s``
for every string:

* ``word``   letters (with combining marks), optionally joined by internal ``'``, ``’`` or ``-``
             (``o'neil``, ``e-mail``, ``patient's``); letters written as symbols count as letters
             (:data:`HIDDEN_LETTERS`: ``Ⓙⓞⓗⓝ``, ``⒥⒪⒣⒩``, ``🄹🄾🄷🄽``, invisible tag characters);
* ``number`` digits, optionally joined the same way (``555-1234``, ``2023-01-15``);
* ``mixed``  letters and digits together (``A12B``, ``covid19``, ``MRN-88213``);
* ``space``  a run of whitespace (``\\r\\n`` and tabs included);
* ``punct``  any other single character (punctuation, symbols, emoji).

Only ``space`` and ``punct`` tokens are kept as they are by the anonymizer.
"""

from __future__ import annotations

import html
import re
import sys
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from html.entities import codepoint2name, html5
from typing import Literal

TokenKind = Literal["word", "number", "mixed", "space", "punct"]
#: the kinds of alphanumeric tokens (everything but whitespace and punctuation)
ALNUM_KINDS = frozenset({"word", "number", "mixed"})
CaseCode = int  # 0 lower, 1 Title, 2 UPPER
LOWER, TITLE, UPPER = 0, 1, 2

JOINERS = "'’-"


def _combining_mark_class() -> str:
    """Character class of the combining marks (Unicode category M*) that ``\\w`` does not match."""
    ranges: list[tuple[int, int]] = []
    limit = min(sys.maxunicode, 0x1FFFF)
    for cp in range(0x300, limit + 1):
        ch = chr(cp)
        if unicodedata.category(ch).startswith("M") and not ch.isalnum():
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1] = (ranges[-1][0], cp)
            else:
                ranges.append((cp, cp))
    return "".join(
        re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges
    )


#: Symbols (category ``So``) that are letters in a shape, as (first, last) code point ranges:
#: circled, parenthesized, squared and negative circled / squared Latin letters (``Ⓙ``, ``⒥``,
#: ``🄹``, ``🅙``, ``🅹``), enclosed CJK and kana, Kangxi radicals; that is, every ``So`` character
#: whose NFKC form, less parentheses, is one letter or digit, or whose name says it is a Latin
#: letter (Unicode 14; ``tests/test_text.py`` recomputes it). Left out on purpose: regional
#: indicators (two of them render as a flag, not as letters) and the emoji ``🔠`` / ``🔡``.
#: Plus the tag characters U+E0020-E007F: invisible, they spell ASCII (``ASCII smuggling``) and
#: make the subdivision flags. Text written in them is not punctuation: read as punctuation it
#: was kept verbatim, so ``Ⓙⓞⓗⓝ`` or a name hidden in tags survived every mechanism.
HIDDEN_LETTER_RANGES: tuple[tuple[int, int], ...] = (
    (0x249C, 0x24E9), (0x2E9F, 0x2E9F), (0x2EF3, 0x2EF3), (0x2F00, 0x2FD5), (0x3196, 0x319F),
    (0x3200, 0x321C), (0x322A, 0x3247), (0x3260, 0x327B), (0x327E, 0x327E), (0x328A, 0x32B0),
    (0x32D0, 0x32FE), (0x1F110, 0x1F12C), (0x1F130, 0x1F149), (0x1F150, 0x1F169),
    (0x1F170, 0x1F18A), (0x1F1A5, 0x1F1A5), (0x1F202, 0x1F202), (0x1F210, 0x1F23B),
    (0x1F250, 0x1F251), (0xE0020, 0xE007F),
)
HIDDEN_LETTERS = frozenset(chr(c) for a, b in HIDDEN_LETTER_RANGES for c in range(a, b + 1))
_HIDDEN = "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in HIDDEN_LETTER_RANGES)

_MARKS = _combining_mark_class()


def _word_pattern(alnum: str) -> str:
    part = rf"{alnum}(?:{alnum}|[{_MARKS}])*"
    return rf"{part}(?:[{JOINERS}]{part})*"


WORD_PATTERN = _word_pattern(rf"(?:[^\W_]|[{_HIDDEN}])")
#: Matches one alphanumeric token; everything between two matches is whitespace or punctuation.
WORD_RE = re.compile(WORD_PATTERN)
#: ``WORD_SPLIT_RE.split(text)`` alternates [gap, token, gap, token, ..., gap].
WORD_SPLIT_RE = re.compile(f"({WORD_PATTERN})")
#: The same split for text without :data:`HIDDEN_LETTERS` (faster; equal there, tested).
_PLAIN_SPLIT_RE = re.compile("(" + _word_pattern(r"[^\W_]") + ")")
#: one range from the first to the last hidden letter: a cheap test that a text holds none
_MAY_HIDE = re.compile(
    f"[{re.escape(chr(HIDDEN_LETTER_RANGES[0][0]))}-{re.escape(chr(HIDDEN_LETTER_RANGES[-1][1]))}]")
#: The same split restricted to ASCII text (about twice as fast; equal on ASCII, tested).
_ASCII_SPLIT_RE = re.compile(r"([A-Za-z0-9]+(?:['\-][A-Za-z0-9]+)*)")
_GAP_RE = re.compile(r"(?P<space>\s+)|(?P<punct>.)", re.DOTALL)
_JOINER_SPLIT_RE = re.compile(f"([{JOINERS}])")


@dataclass(frozen=True, slots=True)
class Token:
    """One token of a text: its exact characters, its kind and its character offset."""

    text: str
    kind: TokenKind
    start: int

    def __post_init__(self) -> None:
        if not self.text:
            raise ValueError("a token cannot be empty")
        if self.start < 0:
            raise ValueError(f"token start must be >= 0, got {self.start}")

    @property
    def end(self) -> int:
        return self.start + len(self.text)


def token_kind(token: str) -> TokenKind:
    """Kind of an alphanumeric token (``word``, ``number`` or ``mixed``).

    An ASCII token of letters, digits and joiners (what the tokenizer cuts from ASCII text) is
    told by ``str`` methods; anything else by :func:`token_kind_plain`, the reference it agrees
    with (a property test holds the two equal)."""
    if token.isascii():
        core = token.replace("'", "").replace("-", "") if ("'" in token or "-" in token) else token
        if core.isalpha():
            return "word"
        if core.isdigit():
            return "number"
        if core.isalnum():
            return "mixed"
    return token_kind_plain(token)


def token_kind_plain(token: str) -> TokenKind:
    """:func:`token_kind` character by character: joiners and combining marks are skipped, a
    letter (or a letter the text hides, :data:`HIDDEN_LETTERS`) is a letter, anything else is
    not."""
    has_alpha = has_other = False
    for ch in token:
        if ch in JOINERS or unicodedata.category(ch).startswith("M"):
            continue
        if ch.isalpha() or ch in HIDDEN_LETTERS:
            has_alpha = True
        else:
            has_other = True
    if has_alpha and not has_other:
        return "word"
    if has_other and not has_alpha:
        return "number"
    return "mixed"


def split_words(text: str) -> list[str]:
    """The one split of the tokenizer: ``[gap, token, gap, token, ..., gap]`` (odd length).

    Tokens are the alphanumeric tokens (``word``, ``number``, ``mixed``); gaps are the text
    between them (whitespace and punctuation, possibly empty). ``"".join(...) == text``.
    """
    if text.isascii():
        return _ASCII_SPLIT_RE.split(text)
    if _MAY_HIDE.search(text) is None:
        return _PLAIN_SPLIT_RE.split(text)
    return WORD_SPLIT_RE.split(text)


def tokenize(text: str) -> list[Token]:
    """Cut ``text`` into tokens with offsets that concatenate back to it exactly.

    Built on :func:`split_words`: its alphanumeric tokens, with each gap cut into whitespace runs
    and single punctuation characters.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, got {type(text).__name__}")
    tokens: list[Token] = []
    offset = 0
    for i, piece in enumerate(split_words(text)):
        if i % 2:
            tokens.append(Token(piece, token_kind(piece), offset))
        else:
            for match in _GAP_RE.finditer(piece):
                tokens.append(Token(match.group(), match.lastgroup, offset + match.start()))  # type: ignore[arg-type]
        offset += len(piece)
    return tokens


def detokenize(tokens: list[Token] | list[str]) -> str:
    """Inverse of :func:`tokenize`."""
    return "".join(t if isinstance(t, str) else t.text for t in tokens)


#: What may stand between the end of a sentence and its first word: spaces, opening quotes and
#: brackets, an asterisk, dashes.
_SENTENCE_OPENERS = frozenset(" \t\"'([{*-\u2013\u2014\u2018\u201c\u00ab")
#: What ends a sentence, a line or a speaker's label before the next word (``[stab]`` in a
#: script is a stage direction).
_SENTENCE_ENDERS = frozenset(".!?:;\n\r\u2026]")


def opens_sentence(text: str, start: int) -> bool:
    """Whether the word at offset ``start`` of ``text`` is the first of its sentence, line or
    turn, so that its capital says nothing about the word (openers skipped backwards)."""
    i = start - 1
    while i >= 0 and text[i] in _SENTENCE_OPENERS:
        i -= 1
    return i < 0 or text[i] in _SENTENCE_ENDERS


def is_word_part(part: str) -> bool:
    """Whether a joiner-free piece of a token is letters only (combining marks and
    :data:`HIDDEN_LETTERS` allowed)."""
    return all(ch.isalpha() or ch in HIDDEN_LETTERS or unicodedata.category(ch).startswith("M")
               for ch in part)


def without_format(text: str) -> str:
    """``text`` less its format characters (Unicode category ``Cf``: zero-width spaces and
    joiners, soft hyphens, bidirectional controls), which change no letter of a word."""
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf")


#: a carriage return that no line feed follows: a line's end in old Mac files (decision 0217)
_LONE_CR = re.compile(r"\r(?!\n)")


def lone_cr_as_lf(text: str) -> str:
    """``text`` with each lone carriage return a line feed, the same length (decision 0217): the
    line-start patterns of the speaker labels and the detectors read a line's start after it."""
    return _LONE_CR.sub("\n", text) if "\r" in text else text


def _continues(ch: str) -> bool:
    """Whether ``ch`` belongs to the character before it: a combining mark, or a Hangul vowel or
    final consonant jamo, which NFC composes with the syllable before it."""
    return unicodedata.category(ch)[0] == "M" or "\u1160" <= ch <= "\u11ff"


#: an HTML character reference: named (``&nbsp;``, ``&atilde;``), decimal or hexadecimal
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def _entity_pieces(text: str) -> dict[int, tuple[int, str]]:
    """{start: (end, the characters it stands for)} of the HTML character references of ``text``
    that stand for other characters (``&nbsp;`` -> NBSP; an unknown name stays as written). Not
    ``&lt;``, ``&gt;``, ``&amp;``: escaped markup stays text (AG News has ``&lt;nobr&gt;``)."""
    out: dict[int, tuple[int, str]] = {}
    if "&" not in text:
        return out
    for m in _ENTITY.finditer(text):
        ref = m.group()  # a name must be whole (html.unescape reads ``&notit;`` as ``¬it;``)
        decoded = html.unescape(ref) if ref[1] == "#" else html5.get(ref[1:], ref)
        if decoded != ref and decoded and not any(ch in "<>&\x00" for ch in decoded):
            out[m.start()] = (m.end(), decoded)
    return out


def html_decoded(text: str) -> str:
    """``text`` with each HTML character reference (:data:`_ENTITY`) the characters it stands
    for, as :func:`canonical_view` reads it (``Kwabena&nbsp;Mensah`` -> ``Kwabena Mensah``)."""
    pieces = _entity_pieces(text)
    if not pieces:
        return text
    out: list[str] = []
    at = 0
    for start, (end, decoded) in pieces.items():
        out.append(text[at:start])
        out.append(decoded)
        at = end
    out.append(text[at:])
    return "".join(out)


def html_encoded_like(new: str, original: str) -> str:
    """``new`` written the way ``original`` writes characters: where ``original`` holds HTML
    character references, each character of ``new`` that is not ASCII becomes one (``João`` ->
    ``Jo&atilde;o``), so an escaped text stays escaped; else ``new`` as it is."""
    if not _entity_pieces(original) or new.isascii():
        return new
    return "".join(ch if ch.isascii() else f"&{codepoint2name[ord(ch)]};" if ord(ch) in codepoint2name
                   else f"&#{ord(ch)};" for ch in new)


def canonical_view(text: str) -> tuple[str, list[int] | None, list[int] | None] | None:
    """``text`` as the detectors read it when it is written in another form than they were built
    on (decision 0217): composed (NFC: a letter and the accent written after it as a combining
    mark are one character), less its format characters (zero-width spaces and joiners, soft
    hyphens, bidirectional controls, the byte-order mark), a lone carriage return a line feed,
    and each HTML character reference the character it stands for (``Kwabena&nbsp;Mensah``,
    ``Gon&ccedil;alves``; decision 0236).

    Returns:
        None when ``text`` is already so (nearly every text; every ASCII text without a lone
        carriage return). Else ``(view, starts, ends)``: the characters of ``view[j]`` are
        ``text[starts[j]:ends[j]]``, a whole letter with its marks; both None when the view only
        turned lone carriage returns into line feeds (offsets unchanged).
    """
    entities = _entity_pieces(text)
    if not entities and (text.isascii() or (unicodedata.is_normalized("NFC", text) and not any(
            unicodedata.category(ch) == "Cf" for ch in set(text)))):
        view = lone_cr_as_lf(text)
        return None if view is text else (view, None, None)
    parts: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    n = len(text)
    i = 0
    while i < n:
        if i in entities:  # one reference: its characters, each mapped to the whole reference
            end, decoded = entities[i]
            decoded = "".join(ch for ch in unicodedata.normalize("NFC", decoded)
                              if unicodedata.category(ch) != "Cf")
            parts.append(decoded)
            starts.extend([i] * len(decoded))
            ends.extend([end] * len(decoded))
            i = end
            continue
        if unicodedata.category(text[i]) == "Cf":
            i += 1
            continue
        j = i + 1
        while j < n:  # the letter's marks, and format characters between them
            k = j
            while k < n and unicodedata.category(text[k]) == "Cf":
                k += 1
            if k == n or not _continues(text[k]):
                break
            j = k + 1
        piece = text[i:j]
        if piece == "\r" and (j == n or text[j] != "\n"):
            piece = "\n"
        elif not piece.isascii():
            piece = unicodedata.normalize("NFC", without_format(piece))
        parts.append(piece)
        starts.extend([i] * len(piece))
        ends.extend([j] * len(piece))
        i = j
    return "".join(parts), starts, ends


def split_joined(token: str) -> list[str]:
    """Split a token on its internal joiners, keeping them: ``o'neil`` -> ``['o', "'", 'neil']``."""
    return _JOINER_SPLIT_RE.split(token)


def without_possessive(word: str) -> str:
    """``word`` less a trailing possessive ``'s`` / ``’s``."""
    return word[:-2] if word[-2:-1] in ("'", "\u2019") and word[-1:] in ("s", "S") else word


#: Pieces after an apostrophe that are kept as they are (``John's``, ``don't``, ``we'll``).
CLITICS = frozenset({"s", "t", "re", "ll", "ve", "d", "m"})


def is_clitic(pieces: list[str], i: int) -> bool:
    """Whether ``pieces[i]`` (of :func:`split_joined`, empty pieces left out) is a clitic: one of
    :data:`CLITICS` after an apostrophe that follows a word part or a number (``John's``, ``the
    1990's``, ``80's``; decision 0632)."""
    return (i >= 2 and pieces[i - 1] in "'’" and pieces[i].lower() in CLITICS
            and (is_word_part(pieces[i - 2]) or pieces[i - 2].isalnum()))


def drawn_parts(token: str) -> int:
    """How many parts of an alphanumeric token the mechanism replaces, each a use of epsilon: its
    word pieces between joiners, clitics left out (``well-known`` 2, ``John's`` 1, ``x-ray2`` 1,
    ``COVID19`` 0: codes get uniform random characters)."""
    if token.isalpha() and token.isascii():
        return 1
    pieces = [p for p in split_joined(token) if p]
    return sum(1 for i, piece in enumerate(pieces)
               if not (len(piece) == 1 and piece in JOINERS) and is_word_part(piece)
               and not is_clitic(pieces, i))


def mechanism_draws(text: str) -> int:
    """The word parts of ``text`` the mechanism replaces (:func:`drawn_parts`): a release of the
    text in full scope spends this many times epsilon."""
    if text.isascii():
        pattern = _ASCII_SPLIT_RE
    elif _MAY_HIDE.search(text) is None:
        pattern = _PLAIN_SPLIT_RE
    else:
        pattern = WORD_SPLIT_RE
    # the tokens of split_words(text)[1::2], one at a time: no list of a long text's tokens
    return sum(drawn_parts(m.group()) for m in pattern.finditer(text))


@lru_cache(maxsize=1 << 16)
def lookup_key(word: str) -> str:
    """Key used to look a word up in an uncased embedding: accents stripped, case folded."""
    if word.isascii():  # no accents to strip (NFD leaves ASCII alone)
        return word.lower()
    decomposed = unicodedata.normalize("NFD", word)
    stripped = "".join(ch for ch in decomposed if not unicodedata.category(ch).startswith("M"))
    return stripped.lower()


def case_code(word: str) -> CaseCode:
    """Case pattern of ``word``: ``UPPER`` (2+ cased letters, all upper), ``TITLE`` or ``LOWER``."""
    if word[:1].isupper():
        if len(word) > 1 and word.isupper():
            return UPPER
        return TITLE
    return LOWER


def apply_case(word: str, code: CaseCode) -> str:
    """Give ``word`` (lower case) the case pattern ``code``."""
    if code == UPPER:
        return word.upper()
    if code == TITLE:
        return word[:1].upper() + word[1:]
    return word


def transfer_case(source: str, replacement: str) -> str:
    """Return ``replacement`` with the case pattern (lower, Title, UPPER) of ``source``."""
    return apply_case(replacement.lower(), case_code(source))
