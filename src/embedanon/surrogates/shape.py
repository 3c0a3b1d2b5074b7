"""Shape-kept values: phone numbers, IDs and IP addresses.

"Shape" is the layout of character classes: every digit becomes a uniformly random digit, every
letter a random letter of the same case, and everything else (separators, ``+``, brackets) stays.
A result that equals the original or is a variant of it (:func:`embedanon.leakguard.keys_are_variants`,
which for strings of digits means "at most one digit differs") is drawn again.
"""

from __future__ import annotations

import ipaddress
import re
import string

from .._english import DIGIT_WORD, DIGIT_WORDS, digit_word_value
from ..leakguard import keys_are_variants
from ..text import transfer_case
from .base import Context, Stream
from .config import NEUTRAL_ID, NEUTRAL_PHONE, SurrogateConfig
from .keys import entity_key

#: the hyphens that join the pieces of a compound name (``Weeks-Rivas``), for every surrogate
HYPHENS = "-\u2010\u2011"

_UPPER = string.ascii_uppercase
_LOWER = string.ascii_lowercase
_DIGITS = string.digits
_NONZERO = string.digits[1:]
#: Attempts before giving up on "not a variant" (each fails with probability << 1e-3 for any
#: value of 3+ characters, so 64 failures in a row do not happen in practice).
MAX_ATTEMPTS = 64


#: symbols per draw of :func:`_symbols` (a span of thousands of digits would make one huge integer,
#: and taking it apart digit by digit is quadratic in its length)
_SYMBOL_BLOCK = 64


def _symbols(stream: Stream, alphabet: str, count: int) -> list[str]:
    """``count`` independent uniform symbols of ``alphabet``: the base-``len`` digits of one draw
    ``below(len**m)`` per block of ``m <= 64`` symbols (exact, and one PRF block per ~19 digits
    instead of one per 4; every real ID is one block)."""
    base = len(alphabet)
    out = []
    for first in range(0, count, _SYMBOL_BLOCK):
        m = min(_SYMBOL_BLOCK, count - first)
        value = stream.below(base**m)
        for _ in range(m):
            value, digit = divmod(value, base)
            out.append(alphabet[digit])
    return out


def _fill(template: str, stream: Stream, classes: dict[str, str]) -> str:
    """Replace each character whose class (``classes[char]``: an alphabet) is known by a random
    symbol of that alphabet; keep the rest."""
    return _fill_at(template, [classes.get(ch) for ch in template], stream)


def _fill_at(template: str, alphabets: list[str | None], stream: Stream) -> str:
    """Replace the character at each position whose alphabet is given by a random symbol of it."""
    # alphabets in order of first use: the stream is consumed in the same order in every process
    # (iterating a set of strings follows PYTHONHASHSEED, which made IDs differ between runs)
    used = [a for a in dict.fromkeys(alphabets) if a is not None]
    draws = {a: iter(_symbols(stream, a, alphabets.count(a))) for a in used}
    return "".join(ch if a is None else next(draws[a]) for ch, a in zip(template, alphabets, strict=True))


def randomize_shape(text: str, stream: Stream, *, letters: bool = True) -> str:
    """Replace each digit by a random digit and (unless ``letters=False``) each letter by a random
    letter of its case (other scripts' letters by capital Latin letters)."""
    classes: dict[str, str] = {}
    for ch in set(text):
        if ch.isdigit():
            classes[ch] = _DIGITS
        elif letters and ch.isalpha():
            classes[ch] = _LOWER if ch.islower() else _UPPER
    return _fill(text, stream, classes)


_WORD_OR_DIGIT = re.compile(r"[^\W\d_]+|\d")


def scrub(text: str, stream: Stream, keep: frozenset[str], *, numbers: bool = False) -> str:
    """``text`` with every digit replaced by a random digit and every run of letters whose
    case-folded form is not in ``keep`` by random letters of its case; separators and the words of
    ``keep`` stay, but not in a hyphenated run of words with one not in ``keep`` (``Weeks-Rivas``).
    With ``numbers`` (the text around a date or an age), the first digit of a number of several
    digits is not zero unless it was: ``10 days`` -> ``39 days``, never ``03 days``, which reads as
    a padded date field; a phone's or an ID's digits are all random.

    What a surrogate keeps of an original it cannot rebuild in full (a DATE span that is no date it
    can parse, the words around an age): the label's public words (month names, ``years old``) and
    the layout, never another word or digit, so a name or a number the span took in by mistake
    does not survive.
    """
    alphabets: list[str | None] = [None] * len(text)
    scrubbed_in = {m.start() for m in _COMPOUND.finditer(text)
                   if any(w.casefold() not in keep for w in _HYPHEN.split(m.group()))}
    compound_end = -1
    for m in _WORD_OR_DIGIT.finditer(text):
        word = m.group()
        if m.start() in scrubbed_in:  # ``Weeks-Rivas``: a word of ``keep`` in a name goes with it
            compound_end = _COMPOUND.match(text, m.start()).end()  # type: ignore[union-attr]
        if word.isdigit():
            alphabets[m.start()] = _NONZERO if numbers and _leads_a_number(text, m.start()) else _DIGITS
        elif word.casefold() not in keep or m.start() < compound_end:
            for i, ch in enumerate(word, m.start()):
                alphabets[i] = _LOWER if ch.islower() else _UPPER
    return fix_ordinals(_fill_at(text, alphabets, stream))


#: letter words joined by hyphens (``Weeks-Rivas``, ``mid-March``): :func:`scrub` keeps all of one
#: or none, so no piece of a hyphenated name a span took in stays because it is also a label word
_COMPOUND = re.compile(rf"(?<![^\W\d_])[^\W\d_]+(?:[{HYPHENS}][^\W\d_]+)+(?![^\W\d_])")
_HYPHEN = re.compile(f"[{HYPHENS}]")


_ORDINAL = re.compile(r"(?<!\d)(\d+)(st|nd|rd|th)(?![^\W\d_])", re.IGNORECASE)


def ordinal_suffix(number: int, like: str) -> str:
    """The English ordinal suffix of ``number`` (``st``, ``nd``, ``rd``, ``th``), upper case when
    the suffix ``like`` is."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return suffix.upper() if like.isupper() else suffix


def fix_ordinals(text: str) -> str:
    """Every ordinal suffix after digits made to agree with them, in its case (a kept ``rd`` after
    random digits: ``7rd`` -> ``7th``)."""
    return _ORDINAL.sub(lambda m: m.group(1) + ordinal_suffix(int(m.group(1)), m.group(2)), text)


def _leads_a_number(text: str, i: int) -> bool:
    """``text[i]`` is a digit other than 0 that starts a run of two digits or more."""
    return (text[i] != "0" and (i == 0 or not text[i - 1].isdigit())
            and i + 1 < len(text) and text[i + 1].isdigit())


def scrubbed(text: str, stream: Stream, keep: frozenset[str]) -> str:
    """:func:`scrub` with ``numbers`` (the text around a date or an age), redrawn until it is not a
    variant of ``text``; ``text`` itself when nothing in it is replaced (only separators and words
    of ``keep``)."""
    if all(not m.group().isdigit() and m.group().casefold() in keep for m in _WORD_OR_DIGIT.finditer(text)):
        return text
    return redraw(lambda: scrub(text, stream, keep, numbers=True), text)


def fill_pattern(pattern: str, stream: Stream) -> str:
    """``#`` → a random digit, ``@`` → a random capital letter, other characters kept."""
    return _fill(pattern, stream, {"#": _DIGITS, "@": _UPPER})


def _alnum_key(text: str) -> str:
    return "".join(ch for ch in entity_key(text) if ch.isalnum())


def _differs(candidate: str, original_key: str) -> bool:
    key = _alnum_key(candidate)
    return not original_key or not keys_are_variants(key, original_key)


def redraw(draw, original: str):  # type: ignore[no-untyped-def]
    """Call ``draw()`` until its result is not a variant of ``original`` (alphanumerics compared)."""
    original_key = _alnum_key(original)
    candidate = draw()
    for _ in range(MAX_ATTEMPTS):
        if _differs(candidate, original_key) or len(original_key) < 2 and candidate != original:
            return candidate
        candidate = draw()
    return candidate


def shaped(text: str, stream: Stream, *, letters: bool = True) -> str:
    """:func:`randomize_shape` of ``text``, redrawn until it is not a variant of ``text``."""
    return redraw(lambda: randomize_shape(text, stream, letters=letters), text)


#: what a span may take in before and after its entity: quotes, brackets and spaces before;
#: sentence punctuation, quotes, brackets and spaces after (a possessive too, where asked)
_LEAD = r"[\s\"'(\[{<]*"
_TRAIL = r"[\s\"'.,;:!?)\]}>]*"
_EDGES = re.compile(rf"({_LEAD})(.*?)({_TRAIL})", re.DOTALL)
_EDGES_POSSESSIVE = re.compile(rf"({_LEAD})(.*?)((?:(?<=[^\W\d_])['\u2019][sS]?)?{_TRAIL})", re.DOTALL)


def edges(text: str, *, possessive: bool = False) -> tuple[str, str, str]:
    """``(lead, core, trail)`` of a span's text: the punctuation around the entity that its
    surrogate keeps as written (``(42 Elm Street).`` -> ``(``, ``42 Elm Street``, ``).``), with a
    possessive in ``trail`` when ``possessive`` (``Boston's``). Every string splits."""
    match = (_EDGES_POSSESSIVE if possessive else _EDGES).fullmatch(text)
    assert match is not None  # each part may be empty
    lead, core, trail = match.groups()
    return lead, core, trail


#: the words of a phone span that a shape-kept surrogate keeps (an extension, a line's kind)
PHONE_WORDS = frozenset({"ext", "extn", "extension", "x", "tel", "telephone", "phone", "ph", "fax",
                         "mobile", "mob", "cell", "m", "t", "f", "p", "h", "w", "home", "work", "office"})


def _said_digits(text: str) -> tuple[list[re.Match[str]], str] | None:
    """The digit words of a number said digit by digit and its digits (``five five five`` ->
    ``555``); None when ``text`` holds a digit or no digit word."""
    words = list(DIGIT_WORD.finditer(text))
    if not words or any(c.isdigit() for c in text):
        return None
    return words, "".join(str(digit_word_value(m.group())) for m in words)


def said_again(text: str, stream: Stream) -> str | None:
    """A number said digit by digit (``five five five, two oh one``) said again with random digits,
    one word for one, in each word's case, the separators kept; redrawn until the digits are no
    variant of the original's. None when ``text`` holds a digit or no digit word."""
    found = _said_digits(text)
    if found is None:
        return None
    words, original = found
    digits = redraw(lambda: "".join(_symbols(stream, _DIGITS, len(words))), original)
    out, at = [], 0
    for m, digit in zip(words, digits, strict=True):
        out += [text[at : m.start()], transfer_case(m.group(), DIGIT_WORDS[int(digit)])]
        at = m.end()
    return "".join(out) + text[at:]


def said_neutral(text: str, stream: Stream) -> str | None:
    """A number said digit by digit said again as ten random digits in one layout, three, three
    and four, the first word in the first digit word's case and the rest in the second's, the
    words before and after it kept (decision 0222: :func:`said_again` kept the original's count
    of digits and its grouping, which the neutral written layout exists to hide). None when
    :func:`said_again` is."""
    found = _said_digits(text)
    if found is None:
        return None
    words, original = found
    digits = redraw(lambda: "".join(_symbols(stream, _DIGITS, 10)), original)
    rest = words[1].group() if len(words) > 1 else words[0].group().lower()
    said = [transfer_case(words[0].group() if i == 0 else rest, DIGIT_WORDS[int(d)])
            for i, d in enumerate(digits)]
    groups = [" ".join(said[:3]), " ".join(said[3:6]), " ".join(said[6:])]
    return text[: words[0].start()] + ", ".join(groups) + text[words[-1].end() :]


#: what joins two phone numbers written side by side: ``or``, ``and``, ``/``, ``,``, ``;``, ``&``
_PHONE_JOINER = re.compile(r"(\s*(?:/|,|;|&)\s*|\s+(?:or|and|OR|AND)\s+)")
_DIGIT = re.compile(r"\d")


class PhoneMaker:
    """PHONE: the neutral pattern (default), a pattern of the config's own, or the same shape; a
    number said digit by digit is said again: in one layout of ten digits (:func:`said_neutral`),
    or in its own shape under ``keep-shape`` (:func:`said_again`)."""

    label = "PHONE"

    def __init__(self, config: SurrogateConfig) -> None:
        fmt = config.phone_format
        self._pattern = NEUTRAL_PHONE if fmt == "neutral" else None if fmt == "keep-shape" else fmt

    def make(self, text: str, context: Context) -> str:
        pieces = _PHONE_JOINER.split(text)
        if len(pieces) > 1 and all(len(_DIGIT.findall(p)) >= 7 for p in pieces[::2]):
            # two numbers a detector took as one span (``415-555-0132 or 415-555-0133``): each its
            # own surrogate, the words between them kept (one pattern for the whole span lost a
            # number and the ``or``: surrogate audit)
            return "".join(p if i % 2 else self.make(p, context) for i, p in enumerate(pieces))
        stream = context.entity(f"PHONE\x00{_alnum_key(text)}")
        pattern = self._pattern
        spoken = said_again(text, stream) if pattern is None else said_neutral(text, stream)
        if spoken is not None:
            return spoken
        if pattern is None:  # digits and letters (``1-800-FLOWERS``) random; ``ext.``, ``tel`` kept
            kept: str = redraw(lambda: scrub(text, stream, PHONE_WORDS), text)
            return kept
        return redraw(lambda: fill_pattern(pattern, stream), text)


class IdMaker:
    """ID: same shape (default) or the neutral pattern."""

    label = "ID"

    def __init__(self, config: SurrogateConfig) -> None:
        self._neutral = config.id_format == "neutral"

    def make(self, text: str, context: Context) -> str:
        stream = context.entity(f"ID\x00{_alnum_key(text)}")
        if self._neutral:
            return redraw(lambda: fill_pattern(NEUTRAL_ID, stream), text)
        return shaped(text, stream)


# RFC 5737 (IPv4 TEST-NET-1/2/3) and RFC 3849 (IPv6 documentation prefix): never routed.
_V4_NETS = ("192.0.2.", "198.51.100.", "203.0.113.")
_V6_NET = int(ipaddress.IPv6Address("2001:db8::"))
_IP_FORMS = (
    re.compile(r"()([0-9A-Fa-f:.]+)()()"),  # a bare address
    re.compile(r"()([0-9A-Fa-f:.]+)()(/\d{1,3})"),  # CIDR
    re.compile(r"()([0-9.]+)()(:\d{1,5})"),  # IPv4 and port
    re.compile(r"(\[)([0-9A-Fa-f:.]+)(\])(:\d{1,5})?"),  # [IPv6] and port
    re.compile(r"(\[?)([0-9A-Fa-f:.]+)(\]?)(:\d{1,5})?"),  # a span that cut one bracket off
)


#: punctuation a detector's IP span may take in around the address (an unmatched bracket too): it
#: stays, and the address inside still goes to a documentation range
_AROUND = "()[]{}<>\"'`,;.!?"


def _parse_ip(core: str) -> tuple[re.Match[str], ipaddress.IPv4Address | ipaddress.IPv6Address] | None:
    for form in _IP_FORMS:
        match = form.fullmatch(core)
        if match:
            try:
                return match, ipaddress.ip_address(match.group(2))
            except ValueError:
                continue
    return None


class IpMaker:
    """IP: a random address of a documentation range (a prefix length kept, a port's digits random)."""

    label = "IP"

    def __init__(self, config: SurrogateConfig | None = None) -> None:
        """The makers' one signature; no setting of ``config`` applies to IP addresses."""

    def make(self, text: str, context: Context) -> str:
        core = text.strip()
        parsed = _parse_ip(core)
        if parsed is None:  # a span that took in the punctuation around it: ``(10.0.0.1)``, ``1.2.3.4]:80``
            core = core.strip(_AROUND)
            parsed = _parse_ip(core)
        if parsed is None:
            return shaped(text, context.entity(f"IP\x00{_alnum_key(text)}"))
        match, address = parsed
        stream = context.entity(f"IP\x00{address.compressed}")
        lead, close, tail = match.group(1), match.group(3), match.group(4) or ""
        if tail.startswith(":"):
            tail = ":" + randomize_shape(tail[1:], stream)
        new = address.compressed
        for _ in range(MAX_ATTEMPTS):
            if address.version == 4:
                new = f"{stream.choice(_V4_NETS)}{1 + stream.below(254)}"
            else:
                new = ipaddress.IPv6Address(_V6_NET | stream.below(1 << 96)).compressed
            if new != address.compressed:
                break
        start = text.index(core)
        return f"{text[:start]}{lead}{new}{close}{tail}{text[start + len(core) :]}"
