"""EMAIL, URL, ADDRESS and AGE surrogates.

* EMAIL: ``local@domain`` → the local part's letter runs become names (the same name mapping as
  NAME, so ``john.smith@…`` follows ``John Smith``), single letters other letters, digit runs
  random digits of a random length 1-4 (not the original's length); role accounts (``info``,
  ``admin``…) are kept. The domain is drawn uniformly from ``email_domains``, independently of
  the source domain (only the source domain itself is excluded), so the top-level domain cannot
  be inverted (issue 9).
* URL: scheme and ``www.`` kept, user info and port dropped, host → a domain drawn from
  ``url_domains`` as above; in the path, query and fragment every letter run becomes a
  pronounceable random word of 3-9 letters and every digit run random digits of a random length
  1-8 (not the original's: a record number in a path kept its length until decision 0223);
  separators and a known file extension are kept. Both are keyed on the whole address, so the
  same address always gets the same surrogate, while a frequent domain does not become a
  frequent surrogate domain.
* ADDRESS: Faker (``address_locales``, instances cached per locale and thread, seeded from the
  PRF; a seeded instance is state, so two threads never share one): the
  first comma/line part becomes a street line of its shape (:func:`street_line`: a street name
  when it has no number, ``12 Oak Road`` a number and a street, ``68th Street`` an ordinal
  street, a unit only where it has one), later parts a secondary address, a street line (a
  number and a street word), city, state or postcode by what they contain; ``Apt 4B`` is a
  secondary address wherever it stands, and the punctuation around the address stays.
* AGE: ages >= ``age_top`` become ``age_top`` (HIPAA safe harbor); other ages move by a
  per-record offset ``record_prf("AGE\\x00<age>")`` of at most ``age_jitter`` years (never 0,
  reflected at 1). The age is the span's first number, in digits or in English words
  (``ninety-three``, ``Forty one``, ``one hundred and two``), written back the same way. The
  rest of the span is scrubbed (:func:`~.shape.scrub`): the words of :data:`AGE_WORDS` (``year``,
  ``old``, ``aged`` ...) and the separators stay, other words and digits become random ones, so
  a name the span took in (``the 42-year-old Zqxwv``) does not survive. A span without a number
  is scrubbed whole.
"""

from __future__ import annotations

import re
import threading
from typing import Any

from .._english import STREET_TYPES, UNIT_WORDS
from ..leakguard import keys_are_variants
from ..text import LOWER, UPPER, apply_case, case_code
from .avoid import pieces_of
from .base import Context, Stream
from .config import SurrogateConfig
from .keys import entity_key
from .names import NameMaker
from .shape import edges, fix_ordinals, ordinal_suffix, scrubbed, shaped
from .spoken import said_address, written_address

ROLE_ACCOUNTS = frozenset((
    "info", "admin", "administrator", "contact", "support", "noreply", "no-reply", "office", "hello",
    "sales", "help", "team", "mail", "webmaster", "postmaster", "billing", "jobs", "careers", "press",
    "media", "service", "enquiries", "inquiries", "reception",
))  # fmt: skip
EXTENSIONS = frozenset((
    "html", "htm", "php", "asp", "aspx", "jsp", "pdf", "png", "jpg", "jpeg", "gif", "svg", "txt", "csv",
    "xml", "json", "doc", "docx",
))  # fmt: skip
_RUNS = re.compile(r"[^\W\d_]+|\d+|[\W_]+")
_URL = re.compile(
    r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)?(?P<user>[^@/\s]+@)?(?P<host>[^/:?#\s@]+\.[^/:?#\s@]+)"
    r"(?P<port>:\d+)?(?P<rest>[/?#].*)?",
    re.DOTALL,
)
_STRIP = " \t\r\n<>()[]\"'"
_CONSONANTS = "bcdfghjklmnprstvz"
_VOWELS = "aeiou"


#: Latin letters that lose no accent but are letters of their own (no decomposition): written in
#: ASCII as people write them in addresses, so ``Michał`` is ``michal``, not ``micha``
_LATIN_LETTERS = str.maketrans({"ł": "l", "ı": "i", "ø": "o", "ə": "e", "đ": "d", "ß": "ss", "æ": "ae",
                                "œ": "oe", "ð": "d", "þ": "th", "ħ": "h", "ŀ": "l", "ŧ": "t", "ŋ": "ng"})


def _ascii(name: str) -> str:
    """The name's letters in ASCII, as an e-mail local part writes them."""
    return "".join(ch for ch in entity_key(name).translate(_LATIN_LETTERS) if "a" <= ch <= "z")


def _case_like(word: str, original: str) -> str:
    code = case_code(original)
    return word.upper() if code == UPPER else word if code == LOWER else word.capitalize()


def _pick_domain(domains: tuple[str, ...], original: str, stream: Stream) -> str:
    source = original.lower().rstrip(".")
    allowed = [d for d in domains if not (source == d or source.endswith("." + d))] or list(domains)
    domain = stream.choice(allowed)
    return domain.upper() if original.isupper() else domain


def pronounceable(stream: Stream, length: int) -> str:
    """A random word alternating consonants and vowels (``lorivo``)."""
    vowel = stream.below(2) == 0
    out = []
    for _ in range(length):
        out.append(stream.choice(_VOWELS if vowel else _CONSONANTS))
        vowel = not vowel
    return "".join(out)


def _split(text: str) -> tuple[str, str, str]:
    core = text.strip(_STRIP)
    start = text.find(core) if core else 0
    return text[:start], core, text[start + len(core) :]


class EmailMaker:
    """EMAIL surrogates (see the module docstring)."""

    label = "EMAIL"

    def __init__(self, config: SurrogateConfig) -> None:
        self._names = NameMaker(config)
        self._domains = config.domains("email_domains")

    def make(self, text: str, context: Context) -> str:
        said = written_address(text) if "@" not in text else None
        if said is not None and "@" in said[0]:  # said in words (decision 0205)
            return said_address(self.make(said[0], context), said[1])
        lead, core, trail = _split(text)
        local, at, domain = core.rpartition("@")
        if not at or not local or "." not in domain:
            return shaped(text, context.entity(f"EMAIL\x00{entity_key(text)}"))
        stream = context.entity(f"EMAIL\x00{entity_key(core)}")
        new_local = self.local(local, context, stream)
        return f"{lead}{new_local}@{_pick_domain(self._domains, domain, stream)}{trail}"

    def local(self, local: str, context: Context, stream: Stream) -> str:
        """A surrogate local part: names for letter runs, random digits, separators kept."""
        prefix = ""
        if local.lower().startswith("mailto:"):
            prefix, local = local[:7], local[7:]
        if entity_key(local) in ROLE_ACCOUNTS:
            return prefix + local
        runs = _RUNS.findall(local)
        letters = [i for i, run in enumerate(runs) if run[0].isalpha()]
        exclude = [entity_key(runs[i]) for i in letters]
        avoid = context.avoid.plus(pieces_of(exclude))
        scope = entity_key(local)
        out = []
        for i, run in enumerate(runs):
            if run.isdigit():
                out.append("".join(str(stream.below(10)) for _ in range(1 + stream.below(4))))
            elif not run[0].isalpha():
                out.append(run)
            elif len(run) == 1:
                out.append(self._names.initial(run, scope, context))
            else:
                key = entity_key(run)
                if len(letters) == 1:
                    role = context.roles.get(key) or self._names.role_of(key)
                else:  # the record's role first: ``perez`` of ``ana.perez+kids@`` is Ana Pérez's surname
                    role = context.roles.get(key) or ("surname" if i == letters[-1] else "given")
                name = _ascii(self._names.part(role, run, context, avoid)) or pronounceable(stream, 6)
                out.append(_case_like(name, run))
        return prefix + "".join(out)


def _is_extension(runs: list[str], i: int) -> bool:
    """Whether ``runs[i]`` is a file extension: a known one after a dot, at the end of the path."""
    at_end = i + 1 == len(runs) or runs[i + 1][0] in "?#"
    return i > 0 and runs[i - 1] == "." and runs[i].lower() in EXTENSIONS and at_end


#: the longest digit run of a URL surrogate: each run gets 1 to this many random digits
_URL_DIGITS = 8


class UrlMaker:
    """URL surrogates (see the module docstring)."""

    label = "URL"

    def __init__(self, config: SurrogateConfig) -> None:
        self._domains = config.domains("url_domains")

    def make(self, text: str, context: Context) -> str:
        said = written_address(text) if "." not in text else None
        if said is not None:  # said in words (decision 0205)
            return said_address(self.make(said[0], context), said[1])
        lead, core, trail = _split(text)
        match = _URL.fullmatch(core)
        if match is None:
            return shaped(text, context.entity(f"URL\x00{entity_key(text)}"))
        stream = context.entity(f"URL\x00{entity_key(core)}")
        host = match.group("host")
        www = host[:4] if host.lower().startswith("www.") else ""
        new_host = www + _pick_domain(self._domains, host[len(www) :], stream)
        rest = match.group("rest") or ""
        runs = _RUNS.findall(rest)
        out = []
        for i, run in enumerate(runs):
            if run.isdigit():  # a random length, as in an e-mail's local part (decision 0223)
                out.append("".join(str(stream.below(10)) for _ in range(1 + stream.below(_URL_DIGITS))))
            elif not run[0].isalpha() or _is_extension(runs, i):
                out.append(run)
            else:
                out.append(_case_like(pronounceable(stream, 3 + stream.below(7)), run))
        return f"{lead}{match.group('scheme') or ''}{new_host}{''.join(out)}{trail}"


#: :data:`UNIT_WORDS` as one alternation, longest first
_UNITS = "|".join(sorted(UNIT_WORDS, key=lambda w: (-len(w), w)))
_SECONDARY = re.compile(rf"(?:{_UNITS}|#)\b.*", re.IGNORECASE | re.DOTALL)
_SEPARATORS = re.compile(r"(\s*[,\n]\s*)")
_ADDRESS_WORDS = STREET_TYPES | frozenset((
    "apt", "apartment", "suite", "ste", "unit", "floor", "room", "flat", "north", "south", "east",
    "west", "the", "and", "of", "po", "box",
))  # fmt: skip
MAX_ADDRESS_ATTEMPTS = 16
#: the word that makes a part with a number a street line (``10 Downing Street``), not a postcode
_STREET = re.compile(r"\b(?:" + "|".join(sorted(STREET_TYPES)) + r")\b\.?", re.IGNORECASE)


#: a house number (``12``, ``221B``, ``12-14``) and an ordinal street number (``68th``, ``5TH``)
_HOUSE_NUMBER = re.compile(r"\d+[A-Za-z]?(?:[-/]\d+[A-Za-z]?)?")
_ORDINAL_NUMBER = re.compile(r"(\d+)(st|nd|rd|th)", re.IGNORECASE)
#: where a unit starts on a street line (``12 Oak Road Apt 4``, ``12 Oak Road #3``)
_STREET_UNIT = re.compile(rf"(?:#|\b(?:{_UNITS})\b)", re.IGNORECASE)


def _digits(count: int, fake: Any) -> str:
    """``count`` random digits from ``fake``, the first not 0."""
    return str(fake.random_int(1, 9)) + "".join(str(fake.random_int(0, 9)) for _ in range(count - 1))


def street_line(line: str, fake: Any) -> str:
    """A fake street line with the shape of ``line`` (``fake`` already seeded): a house number
    where ``line`` has one, before or after the street (random digits, as many as its first run;
    ``221B`` -> ``587``); an ordinal street stays an ordinal street of as many digits with the
    street words kept (``68th Street`` -> ``41st Street``, ``East 5th Ave``); a number after a
    street word alone keeps the word (``Highway 101`` -> ``Highway 375``); any other street a
    street name of the locale (``Oak Road`` -> ``Howard Forge``); a unit only where ``line`` has
    one (``Apt 4`` -> a secondary address)."""
    unit = _STREET_UNIT.search(line)
    street = line[: unit.start()].rstrip() if unit and unit.start() > 0 else line
    tokens = street.split()
    numbers = [bool(_HOUSE_NUMBER.fullmatch(t) or _ORDINAL_NUMBER.fullmatch(t)) for t in tokens]
    named = [i for i, number in enumerate(numbers) if not number]
    keep_words = all(entity_key(tokens[i]).strip(".") in _ADDRESS_WORDS for i in named)
    out: list[str] = []
    for i, token in enumerate(tokens):
        ordinal = _ORDINAL_NUMBER.fullmatch(token)
        if ordinal:
            number = int(_digits(len(ordinal.group(1)), fake))
            out.append(f"{number}{ordinal_suffix(number, ordinal.group(2))}")
        elif _HOUSE_NUMBER.fullmatch(token):
            out.append(_digits(len(token) - len(token.lstrip("0123456789")), fake))
        elif keep_words:
            out.append(token)
        elif i == named[0]:  # the street's name and words: one street name of the locale
            out.append(_call(fake, "street_name"))
    if unit and unit.start() > 0:
        out.append(_call(fake, "secondary_address", "building_number"))
    return " ".join(out)


def _call(fake: Any, *names: str) -> str:
    for name in names:
        method = getattr(fake, name, None)
        if method is not None:
            return str(method())
    raise AttributeError(names[0])


class AddressMaker:
    """ADDRESS surrogates via Faker (see the module docstring)."""

    label = "ADDRESS"

    def __init__(self, config: SurrogateConfig) -> None:
        self._locales = config.address_locales
        # per thread: seeding an instance and drawing from it must not interleave with another
        # thread's (two anonymizers of one surrogate config share this maker)
        self._local = threading.local()

    def _faker(self, locale: str) -> Any:
        fakers: dict[str, Any] = self._local.__dict__.setdefault("fakers", {})
        fake = fakers.get(locale)
        if fake is None:
            from faker import Faker  # imported on first use: 0.1 s, only when addresses occur

            fake = fakers[locale] = Faker(locale)
        return fake

    def make(self, text: str, context: Context) -> str:
        # the punctuation around the address (``(42 Elm Street)``, a full stop) stays around it
        lead, core, trail = edges(text)
        stream = context.entity(f"ADDRESS\x00{entity_key(core)}")
        fake = self._faker(stream.choice(self._locales))
        originals = {w for w in re.findall(r"[^\W\d_]{3,}", entity_key(text)) if w not in _ADDRESS_WORDS}
        candidate = text
        for _ in range(MAX_ADDRESS_ATTEMPTS):
            fake.seed_instance(stream.word())
            candidate = f"{lead}{self.render(core, fake)}{trail}" if core else text
            words = {w for w in re.findall(r"[^\W\d_]{3,}", entity_key(candidate)) if w not in _ADDRESS_WORDS}
            if candidate != text and not any(keys_are_variants(w, o) for w in words for o in originals):
                break
        return candidate

    @staticmethod
    def render(text: str, fake: Any) -> str:
        """A fake address with the part layout of ``text`` (``fake`` already seeded)."""
        pieces = _SEPARATORS.split(text)
        parts = pieces[0::2]
        out = list(pieces)
        for j, part in enumerate(parts):
            stripped = part.strip()
            if not stripped:
                continue
            has_digit = any(ch.isdigit() for ch in stripped)
            if has_digit and _SECONDARY.fullmatch(stripped):  # ``Apt 4B``, ``Flat 3``
                new = _call(fake, "secondary_address", "building_number")
            elif j == 0:
                new = street_line(stripped, fake) if has_digit else _call(fake, "street_name")
            elif has_digit and _STREET.search(stripped):  # ``Flat 3, 10 Downing Street``
                new = street_line(stripped, fake)
            elif has_digit and any(ch.isalpha() for ch in stripped):
                try:
                    new = f"{_call(fake, 'state_abbr')} {_call(fake, 'postcode')}"
                except AttributeError:
                    new = f"{_call(fake, 'postcode')} {_call(fake, 'city')}"
            elif has_digit:
                new = _call(fake, "postcode")
            elif len(stripped) == 2 and stripped.isupper():
                new = _call(fake, "state_abbr", "city")
            elif j == len(parts) - 1 and j >= 2:
                new = _call(fake, "current_country", "country")
            else:
                new = _call(fake, "city")
            new = new.replace("\n", ", ")
            out[2 * j] = part.replace(stripped, new.upper() if stripped.isupper() else new)
        return "".join(out)


#: the words an AGE surrogate keeps around the age, case-folded (:func:`~.shape.scrub`)
AGE_WORDS = frozenset({
    "a", "an", "the", "of", "is", "was", "at", "and", "or", "to", "about", "around", "approx",
    "approximately", "nearly", "almost", "over", "under", "above", "below", "less", "more", "than",
    "age", "aged", "ages", "old", "year", "years", "yr", "yrs", "y", "yo", "o", "month", "months",
    "mo", "mos", "week", "weeks", "wk", "wks", "day", "days", "d", "m", "w", "f", "male", "female",
    "man", "woman", "men", "women", "boy", "girl", "child", "infant", "baby", "patient", "pt",
    "gentleman", "lady", "person", "who", "birthday", "th", "st", "nd", "rd",
    "in", "her", "his", "their", "my", "your", "our", "he", "she", "they", "i", "s", "early", "mid",
    "late", "teens", "teen", "now", "turned", "turns", "turning",
})
_UNIT_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
               "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
               "eighteen", "nineteen")
_TEN_WORDS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_UNIT = "|".join(sorted(_UNIT_WORDS, key=len, reverse=True))
_TENS = "|".join(_TEN_WORDS[2:])
#: an English number below 1,000 in words (``ninety-three``, ``one hundred and two``)
_NUMBER_IN_WORDS = re.compile(
    rf"(?<![^\W\d_])(?:(?P<h>{_UNIT})[\s-]+hundred(?:(?P<and>[\s-]+and)?[\s-]+(?=(?:{_TENS}|{_UNIT})\b))?)?"
    rf"(?:(?P<t>{_TENS})(?:(?P<j>[\s-]+)(?P<u>{_UNIT}))?|(?P<u2>{_UNIT}))?(?![^\W\d_])",
    re.IGNORECASE)


def _number_value(match: re.Match[str]) -> int:
    """The value of a non-empty :data:`_NUMBER_IN_WORDS` match."""
    g = match.groupdict()
    value = 100 * _UNIT_WORDS.index(g["h"].lower()) if g["h"] else 0
    if g["t"]:
        value += 10 * _TEN_WORDS.index(g["t"].lower())
        if g["u"] and _UNIT_WORDS.index(g["u"].lower()) < 10:
            value += _UNIT_WORDS.index(g["u"].lower())
    elif g["u2"]:
        value += _UNIT_WORDS.index(g["u2"].lower())
    return value


def in_words(value: int, like: str) -> str:
    """``value`` (0-999) in English words, joined and cased like the words ``like``."""
    joiner = "-" if "-" in like else " "
    parts: list[str] = []
    hundreds, rest = divmod(value, 100)
    if hundreds:
        parts.append(f"{_UNIT_WORDS[hundreds]}{joiner}hundred")
        if rest and re.search(r"\band\b", like, re.IGNORECASE):
            parts.append("and")
    if rest >= 20:
        tens, unit = divmod(rest, 10)
        parts.append(_TEN_WORDS[tens] + (f"{joiner}{_UNIT_WORDS[unit]}" if unit else ""))
    elif rest or not hundreds:
        parts.append(_UNIT_WORDS[rest])
    return apply_case(joiner.join(parts), case_code(like))


#: the upper end of an age range after its first number (``45-50``, ``45 to 50``)
_AGE_RANGE = re.compile(r"(\s*(?:[-\u2013]|to)\s*)(\d+)(?!\d)")


class AgeMaker:
    """AGE surrogates (see the module docstring)."""

    label = "AGE"

    def __init__(self, config: SurrogateConfig) -> None:
        self._top = config.age_top
        self._jitter = config.age_jitter

    def age(self, age: int, context: Context, *, years: bool = True) -> int:
        """The surrogate age of one record: top-coded when it counts years (``years``; not ``100
        days old``), moved by an offset drawn for the record and the value."""
        top = self._top if years else None
        if top is not None and age >= top:
            return top
        if self._jitter == 0:
            return age
        offset = context.record(f"AGE\x00{age}").signed_offset(self._jitter)
        new = age + offset if age + offset >= 1 else age - offset
        return new if top is None else min(new, top)

    def make(self, text: str, context: Context) -> str:
        stream = context.entity(f"AGE\x00{entity_key(text)}")
        years = _SHORT_UNIT.search(text) is None
        match = re.search(r"\d+", text)
        if match is not None:
            age, stop = int(match.group()), match.end()
            if age % 10 == 0 and re.match(r"['\u2019]?s(?![^\W\d_])", text[stop:]):
                # a decade of life (``in her 40s``): its middle moved, written as a decade again
                new = str(self.age(age + 5, context) // 10 * 10)
            else:
                new = str(self.age(age, context, years=years))
                upper = _AGE_RANGE.match(text, stop)
                if upper and int(upper.group(2)) > age:  # ``45-50``: the range moves as a whole
                    high = min(int(upper.group(2)) + int(new) - age, self._top)
                    new, stop = f"{new}{upper.group(1)}{max(high, int(new))}", upper.end()
        else:
            match = next((m for m in _NUMBER_IN_WORDS.finditer(text) if m.group()), None)
            if match is None:
                return scrubbed(text, stream, AGE_WORDS)
            new = in_words(min(self.age(_number_value(match), context, years=years), 999), match.group())
            stop = match.end()
        before, after = text[: match.start()], _agree(text[stop:], new)
        return fix_ordinals(f"{scrubbed(before, stream, AGE_WORDS)}{new}{scrubbed(after, stream, AGE_WORDS)}")


#: a unit of an age shorter than a year (``100 days old``, ``18-month-old``, ``6 wks``), which is
#: never top-coded (a baby's age in days is no age over 89)
_SHORT_UNIT = re.compile(r"(?<![^\W\d_])(?:months?|mos?|weeks?|wks?|days?|hours?|hrs?)(?![^\W\d_])",
                         re.IGNORECASE)
#: a unit noun after an age, apart from it (``1 year old``; not ``1-year-old``, always singular)
_AGE_UNIT = re.compile(r"(\s+)(year|month|week|day|yr|wk)(s?)(?![^\W\d_])", re.IGNORECASE)


def _agree(after: str, new: str) -> str:
    """``after`` with the unit noun that starts it in the number of the age ``new``: ``1 year old``
    moved to 3 reads ``3 years old``, not ``3 year old``, which told that the original was 1."""
    unit = _AGE_UNIT.match(after)
    if unit is None or not (new.isdigit() or _NUMBER_IN_WORDS.fullmatch(new)):
        return after  # no unit noun, or a range (``45-50 years``: plural either way)
    match = _NUMBER_IN_WORDS.fullmatch(new)
    one = int(new) == 1 if new.isdigit() else match is not None and _number_value(match) == 1
    noun = unit.group(2) + ("" if one else "S" if unit.group(2).isupper() else "s")
    return unit.group(1) + noun + after[unit.end():]
