"""Dates said in words (transcribed speech): shifted like any date, said in words again.

``July twenty ninth two thousand eight`` moves by the record's date offset and comes back in the
same words and order (``August fourth two thousand eight``); ``the fourteenth of October`` and
``November fourth`` (no year: the shift is taken in a leap year, so the day exists), ``May two
thousand nine`` and ``the twelfth of May, 2021`` (a year in digits stays in digits) too; inside a
longer span (``on July twenty ninth.``) :func:`~.dates.shift_dates_in` finds them. The month
keeps its case and form, the day its joiner (``twenty-ninth``), the year its style (``two
thousand (and) eight``, ``nineteen eighty four``). A year said alone (``nineteen ninety eight``)
moves as a year, from July 2, as ``1998`` does.

An e-mail or web address said in words (``maria dot lopez at gmail dot com``, decision 0205) is
written with its signs (:func:`written_address`), given the surrogate a written one gets, and said
back in the words it used (:func:`said_address`: ``ana dot perez at example dot org``).
"""

from __future__ import annotations

import datetime as dt
import re

from .._english import ADDRESS_SIGN_WORDS
from ..text import apply_case, case_code

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
_ORDINAL = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
            "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
            "eighteenth", "nineteenth", "twentieth")
_UNITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
          "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_WORDS = re.compile(r"[A-Za-z]+|[^A-Za-z]+")


def _day_value(words: list[str]) -> int | None:
    """The day of ``first`` ... ``thirty first`` (``twenty`` / ``thirty`` then a unit ordinal)."""
    if len(words) == 1:
        if words[0] in _ORDINAL:
            return _ORDINAL.index(words[0]) + 1
        return 30 if words[0] == "thirtieth" else None
    if len(words) == 2 and words[0] in ("twenty", "thirty") and words[1] in _ORDINAL[:9]:
        return (20 if words[0] == "twenty" else 30) + _ORDINAL.index(words[1]) + 1
    return None


def _two(words: list[str]) -> int | None:
    """0-99 said in words (``eighty four``, ``nine``, ``oh five``)."""
    if words[:1] == ["oh"] and len(words) == 2 and words[1] in _UNITS[1:10]:
        return _UNITS.index(words[1])
    if len(words) == 1 and words[0] in _UNITS:
        return _UNITS.index(words[0])
    if len(words) in (1, 2) and words[0] in _TENS[2:]:
        tens = 10 * _TENS.index(words[0])
        if len(words) == 1:
            return tens
        return tens + _UNITS.index(words[1]) if words[1] in _UNITS[1:10] else None
    return None


def _year_value(words: list[str]) -> int | None:
    if words[:2] == ["two", "thousand"]:
        rest = words[2:]
        if rest[:1] == ["and"]:
            rest = rest[1:]
        if not rest:
            return 2000
        low = _two(rest)
        return None if low is None else 2000 + low
    if words[:1] in (["nineteen"], ["twenty"]) and len(words) > 1:
        low = 0 if words[1:] == ["hundred"] else _two(words[1:])
        return None if low is None else (1900 if words[0] == "nineteen" else 2000) + low
    return None


def _say_two(value: int, joiner: str) -> str:
    if value < 20:
        return _UNITS[value]
    tens, unit = divmod(value, 10)
    return _TENS[tens] + (joiner + _UNITS[unit] if unit else "")


def _say_day(day: int, joiner: str) -> str:
    if day <= 20:
        return _ORDINAL[day - 1]
    if day == 30:
        return "thirtieth"
    tens, unit = divmod(day, 10)
    return _TENS[tens] + joiner + _ORDINAL[unit - 1]


def _say_year(year: int, original: list[str]) -> str:
    if year == 2000:
        return "two thousand"
    if original[:2] == ["two", "thousand"] and 2000 <= year < 2100:
        low = year - 2000
        if not low:
            return "two thousand"
        return "two thousand " + ("and " if "and" in original else "") + _say_two(low, " ")
    century, low = divmod(year, 100)
    head = _say_two(century, " ")
    if low == 0:
        return f"{head} hundred"
    return f"{head} {'oh ' + _UNITS[low] if low < 10 else _say_two(low, ' ')}"


#: a date said in words: words joined by spaces, hyphens or a comma, then perhaps a year in digits
#: (``the twelfth of May, 2021``); anything else around it (``on``, brackets, a full stop) is not
#: part of it (:func:`~.dates.shift_dates_in` finds it inside a longer span)
_SPOKEN = re.compile(r"(?P<words>[A-Za-z]+(?:(?:,?\s+|-)[A-Za-z]+)*)(?:(?P<ysep>,?\s+)(?P<year>\d{4}))?")


def shift_spoken_date(text: str, offset: int) -> str | None:
    """``text`` (a date said in words, module docstring) moved by ``offset`` days and said again;
    None when ``text`` is not such a date. A year in digits after it stays in digits, and the
    separator before a year (``, ``) is kept."""
    shape = _SPOKEN.fullmatch(text)
    if shape is None:
        return None
    pieces = _WORDS.findall(shape.group("words"))
    tokens = [t for t in pieces if t.isalpha()]
    lowered = [t.lower() for t in tokens]
    months = [i for i, w in enumerate(lowered) if w in MONTHS]
    if not months and shape.group("year") is None:  # a year alone (``nineteen ninety eight``)
        return _shift_spoken_year(text, tokens, lowered, offset)
    if len(months) != 1:
        return None
    m = months[0]
    before, after = lowered[:m], lowered[m + 1 :]
    the_after = False
    if before[:1] == ["the"]:
        before = before[1:]
    if before and before[-1:] == ["of"]:  # 'the fourteenth of October [year]'
        day, year_words = _day_value(before[:-1]), after
        if day is None:  # 'on the fourteenth of October': not a day before 'of'
            return None
    elif not before:  # 'July twenty ninth [year]', 'July the twenty ninth', 'May two thousand nine'
        if after[:1] == ["the"]:
            after, the_after = after[1:], True
        day, year_words = None, after
        for n in (2, 1):
            if len(after) >= n and _day_value(after[:n]) is not None:
                day, year_words = _day_value(after[:n]), after[n:]
                break
    else:
        return None
    if shape.group("year") is not None:  # 'the twelfth of May, 2021'
        if year_words:
            return None
        year: int | None = int(shape.group("year"))
        year_sep = shape.group("ysep")
    else:
        year = _year_value(year_words) if year_words else None
        first = len(tokens) - len(year_words)  # token k is pieces[2k]: the separator before the year
        year_sep = pieces[2 * first - 1] if year_words else ""
    if (year_words and year is None) or (day is None and year is None):
        return None
    try:
        when = dt.date(year or 2000, month := MONTHS.index(lowered[m]) + 1, day or 1)
    except ValueError:
        return None
    moved = when + dt.timedelta(days=offset)
    if day is None:  # month and year only: the month moves with the offset
        moved = dt.date(moved.year, moved.month, 1)
    joiner = "-" if "-" in text else " "
    month_word = apply_case(MONTHS[moved.month - 1], case_code(tokens[m]))
    del month
    day_words = _say_day(moved.day, joiner) if day is not None else ""
    if year is None:
        year_text = ""
    elif shape.group("year") is not None:
        year_text = f"{moved.year:04d}"
    else:
        year_text = _say_year(moved.year, year_words)
    if lowered[0] == "the" or (before and "of" in lowered[:m]):
        said = f"{'the ' if lowered[0] == 'the' else ''}{day_words} of {month_word}"
    else:
        said = f"{month_word} {'the ' if the_after else ''}{day_words}".strip()
    if year_text:
        said = f"{said}{year_sep or ' '}{year_text}"
    if text[:1].isupper() and not said[:1].isupper():
        said = said[:1].upper() + said[1:]
    return said


def _year_alone(words: list[str]) -> int | None:
    """A year said in words on its own: ``two thousand (and) eight``, ``nineteen ninety eight``,
    ``nineteen oh five``, ``nineteen hundred``, ``twenty twelve``; not ``twenty one`` (a number:
    the year would be said ``twenty oh one``) nor ``nineteen five``."""
    year = _year_value(words)
    if year is None or words[:2] == ["two", "thousand"]:
        return year
    low = words[1:]
    return year if low in (["hundred"],) or low[:1] == ["oh"] or year % 100 >= 10 else None


def _shift_spoken_year(text: str, tokens: list[str], lowered: list[str], offset: int) -> str | None:
    """A year said in words alone, moved as a year (from July 2, as :mod:`.dates` moves ``1998``)
    and said again in its style; None when ``text`` is no such year."""
    year = _year_alone(lowered)
    if year is None:
        return None
    moved = (dt.date(year, 7, 2) + dt.timedelta(days=offset)).year
    said = _say_year(moved, lowered)
    if "-" in text:  # ``nineteen ninety-eight``
        said = re.sub(r"(?<=ty) (?=[a-z])", "-", said)
    return apply_case(said, case_code(tokens[0])) if tokens[0].isupper() else (
        said[:1].upper() + said[1:] if tokens[0][:1].isupper() else said)


#: the words that say the signs of an address, and the sign each says
_SAID_SIGN = re.compile(r"[ \t]+(" + "|".join(w for w in ADDRESS_SIGN_WORDS if w != "at")
                        + r"|at(?:[ \t]+(?:sign|symbol))?)[ \t]+", re.IGNORECASE)
#: the word written for a sign where the address said none (the first of its words)
_SIGN_WORDS = {c: w for w, c in reversed(ADDRESS_SIGN_WORDS.items())}


def written_address(text: str) -> tuple[str, dict[str, str]] | None:
    """An e-mail or web address said in words written with its signs (``maria dot lopez at gmail
    dot com`` -> ``maria.lopez@gmail.com``), and the words it used for each sign; None when
    ``text`` is no address said so (no such word, or words left between its parts)."""
    words: dict[str, str] = {}

    def sign(match: re.Match[str]) -> str:
        word = match.group(1)
        mark = ADDRESS_SIGN_WORDS[word.split()[0].lower()]
        words.setdefault(mark, word)
        return mark

    written = _SAID_SIGN.sub(sign, text)
    if not words or any(c.isspace() for c in written):
        return None
    return written, words


def said_address(written: str, words: dict[str, str]) -> str:
    """``written`` said in words again, each sign by the word :func:`written_address` found for it
    (``dot``, ``at`` ... where the address had none)."""
    return re.sub(r"[.@_-]", lambda m: f" {words.get(m.group(), _SIGN_WORDS[m.group()])} ", written)
