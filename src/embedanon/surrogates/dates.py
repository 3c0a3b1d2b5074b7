"""DATE: parsed, shifted by the record's offset and written back in the same format.

One offset per record, uniform on ``[-date_shift_days, -1] ∪ [1, date_shift_days]`` days, drawn
from ``record_prf("DATE\\x00shift")``: every date of a record moves by the same number of days,
so intervals inside a record survive exactly, while the same date in two records moves
differently.

Formats (English month and weekday names, any case, full or abbreviated, optional ordinal):
``2024-03-07`` (also ``/`` or ``.``), ``20240307``,
``03/07/2024`` and ``3-7-24`` (read as ``date_order`` unless only the other order is a valid
date), ``March 7, 2024``, ``Mar. 7th 2024``, ``7 March 2024``, ``07-Mar-2024``, ``7th of March``,
``March 2024``, ``03/2024``, ``2019/05`` (year first), ``2024``, ``'98``, ``03/07`` (no year),
``12/94`` (a month and a two-digit year that is no day), each
optionally after a weekday (``Thursday, March 7``), decades (``1990s``), ranges of days
(``March 5-7, 2024``), and two dates or years joined by ``-`` or ``/`` (``2019-2020``,
``3/4/2019-3/9/2019``: both ends move).
Each field keeps its width (``03`` stays two digits, ``24`` a two-digit year; a two-digit day
next to a month name is not padded unless it starts with 0; a two-digit month or day of a numeric
date without a leading zero follows the record's style, :func:`date_style`), a month name keeps its style and
case (a bare ``May`` counts as a full name), and a weekday is recomputed for the new date
(shifted by ``offset mod 7`` when there is no year). Partial dates are shifted from an
anchor: the 15th for month and year, July 2 for a bare year; they keep their value when the
offset is smaller than their resolution.

A time of day may follow a date with a day or a weekday (``Monday at 9:45am``, ``3/4 at 23:59``),
after ``T``, a space, a comma or ``at`` / ``@`` (``2024-03-07T10:15:00Z``, ``03/07/2024 10:30``,
``12/25/08 at 10am``, ``March 7, 2024, 9:05 p.m.``): it is kept as written (a time of day alone
names no one, and intervals within a day survive).

A span that is not one date (``03/01/2024, discharged``, ``DOB 02/29/1960``, ``03/07/2024 10:30
John Smith`` after a merge) has every date inside it shifted by the same offset
(:func:`shift_dates_in`), and the text between them scrubbed (:func:`~.shape.scrub`): digits
become random digits and every word that is not a date word (:data:`DATE_WORDS`: month and weekday
names, ordinal suffixes, ``at``, ``of``, ``am``, ``noon``, ``early`` ...) random letters. So a name
or a number a DATE span took in by mistake is never kept, and its dates keep their intervals.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

from .._english import HOLIDAY, TIME_UNIT_ALTERNATION, WEEKDAYS
from ..text import apply_case, case_code
from .base import Context
from .config import SurrogateConfig
from .keys import entity_key
from .names import NameMaker, lexicon
from .shape import ordinal_suffix, scrubbed
from .spoken import shift_spoken_date

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")  # fmt: skip
_MON = (r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
        r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)(?P<mdot>\.?)")  # fmt: skip
_WDN = (r"(?P<wd>mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?"
        r"|sat(?:urday)?|sun(?:day)?)")  # fmt: skip
_WD = rf"(?:{_WDN}\.?,?\s+)?"
_ORD = r"(?P<ord>st|nd|rd|th)?"
#: a time of day after a date: ``T10:15:00Z``, `` 10:30``, ``, 9:05 p.m.``, `` at 10am``, ``@ 14:00``
_CLOCK = (r"\d{1,2}(?::\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:\s*[ap]\.?m\.?(?![^\W\d_]))?"
          r"|\s*[ap]\.?m\.?(?![^\W\d_]))(?:\s*(?:z|[+-]\d{2}(?::?\d{2})?)(?![^\W\d_]))?")
_TIME = rf"(?P<time>(?:T|,?\s+(?:(?:at|@)\s+)?){_CLOCK})?"
_PATTERNS = tuple(
    re.compile(pattern, re.IGNORECASE | re.DOTALL)
    for pattern in (
        rf"{_WD}(?P<y>\d{{4}})(?P<s>[-/.])(?P<m>\d{{1,2}})(?P=s)(?P<d>\d{{1,2}}){_TIME}",
        r"(?P<y>(?:1[89]|2[01])\d\d)(?P<m>[01]\d)(?P<d>[0-3]\d)",
        rf"{_WD}(?P<a>\d{{1,2}})(?P<s>[-/.])(?P<b>\d{{1,2}})(?P=s)(?P<y>\d{{4}}|\d{{2}}){_TIME}",
        rf"{_WD}{_MON}(?P<s1>\s+|-)(?P<d>\d{{1,2}}){_ORD}(?:(?P<s2>,\s*|\s+|-)(?P<y>\d{{4}}))?{_TIME}",
        rf"{_WD}(?:the\s+)?(?P<d>\d{{1,2}}){_ORD}(?P<s1>\s+(?:of\s+)?|-|/|\.\s*){_MON}"
        rf"(?:(?P<s2>,?\s+|-|/|\.\s*)(?P<y>\d{{4}}|\d{{2}}))?{_TIME}",
        rf"{_MON}(?P<s1>,?\s+|-|/)(?P<y>\d{{4}})",
        # a range of days in one month (``March 5-7, 2024``): the last day moves with the first
        rf"{_MON}(?P<s1>\s+)(?P<d>\d{{1,2}})(?P<rs>\s*[-\u2013]\s*)(?P<d2>\d{{1,2}})"
        rf"(?:(?P<s2>,\s*|\s+)(?P<y>\d{{4}}))?",
        r"(?P<m>\d{1,2})(?P<s>[-/])(?P<y>\d{4})",
        # year and month (``2019/05``, ``2019-5``): a month that is no month (``2019-20``) is none
        r"(?P<y>\d{4})(?P<s>[-/])(?P<m>\d{1,2})",
        rf"(?P<a>\d{{1,2}})(?P<s>/)(?P<b>\d{{1,2}}){_TIME}",  # no year (``03/07``): shifted in a leap year
        # a month and a year of two digits that is no day (``12/94``, ``8/71``; decision 0176)
        r"(?P<m>0?[1-9]|1[0-2])(?P<s>/)(?P<y>3[2-9]|[4-9]\d)",
        r"(?P<y>(?:1[89]|2[01])\d\d)",
        r"['\u2019](?P<y>\d{2})",  # a year of two digits after an apostrophe (``'98``)
        rf"{_WDN}\.?{_TIME}",
    )
)
_STRIP = " \t\r\n()[]{},;:"
#: a decade (``1990s``, ``1980's``)
_DECADE = re.compile(r"([12]\d{2}0)(['\u2019]?s)")

#: the words a DATE surrogate keeps where it scrubs (:func:`~.shape.scrub`), case-folded: month
#: and weekday names and their abbreviations, ordinal suffixes, the words that introduce, join or
#: refine a date or a time, and time-zone abbreviations. None of them names a person or a place
DATE_WORDS = frozenset({
    *MONTHS, *(m[:3] for m in MONTHS), "sept", *WEEKDAYS, *(d[:3] for d in WEEKDAYS),
    "tues", "thur", "thurs", "st", "nd", "rd", "th",
    "about", "after", "and", "approx", "approximately", "around", "at", "before", "between", "by",
    "ca", "circa", "during", "for", "from", "in", "of", "on", "or", "since", "the", "thru",
    "through", "til", "till", "to", "until", "with",
    "a", "am", "p", "pm", "m", "h", "hr", "hrs", "hour", "hours", "min", "mins", "minute",
    "minutes", "o", "clock", "noon", "midnight", "morning", "afternoon", "evening", "night",
    "overnight", "tonight", "today", "yesterday", "tomorrow", "t", "z", "utc", "gmt", "est", "edt",
    "cst", "cdt", "mst", "mdt", "pst", "pdt", "bst", "cet", "cest",
    "early", "mid", "late", "end", "beginning", "start", "middle", "week", "weeks", "weekend",
    "month", "months", "year", "years", "day", "days", "ago", "last", "next", "this", "past",
    "previous", "prior", "spring", "summer", "autumn", "fall", "winter", "quarter", "half",
    "first", "second", "third", "fourth", "q", "fy",
})


def month_number(name: str) -> int:
    """1-12 for an English month name or abbreviation (``Sept`` included)."""
    lowered = name.lower()
    return next(i for i, month in enumerate(MONTHS, 1) if month.startswith(lowered[:3]))


def _weekday_index(name: str) -> int:
    return next(i for i, day in enumerate(WEEKDAYS) if day.startswith(name.lower()[:3]))


def _month_name(month: int, original: str) -> str:
    full = MONTHS[month - 1]
    lowered = original.lower()
    if lowered in MONTHS:
        word = full
    elif lowered == "sept" and month == 9:
        word = "sept"
    else:
        word = full[:3]
    return apply_case(word, case_code(original))


def _weekday_name(day: int, original: str) -> str:
    word = WEEKDAYS[day] if original.lower() in WEEKDAYS else WEEKDAYS[day][:3]
    return apply_case(word, case_code(original))


def _width(value: int, original: str, *, numeric: bool, style: str = "") -> str:
    """``value`` zero-padded like ``original``: a leading 0 pads; so does a width of 2 in an
    all-numeric date (``12/31/99`` → ``01/01/00``) unless the record writes its numeric dates
    unpadded (``style``, :func:`date_style`), but not next to a month name (``Sept 30`` → ``Oct 1``)."""
    padded = original.startswith("0") or (numeric and len(original) > 1 and style != "unpadded")
    return f"{value:0{len(original)}d}" if padded else str(value)


#: the numeric dates whose month and day fields show how a record writes them: ``2024-03-07``,
#: ``3/7/24``, ``03.07.2024``, ``3/7`` (no year: with ``/`` only, as ``3-7`` is often a range)
_STYLE_DATES = re.compile(
    r"(?<![\w./-])(?:\d{4}(?P<s1>[-/.])(?P<m>\d{1,2})(?P=s1)(?P<d>\d{1,2})"
    r"|(?P<a>\d{1,2})(?P<s2>[-/.])(?P<b>\d{1,2})(?P=s2)(?:\d{4}|\d{2})"
    r"|(?P<c>\d{1,2})/(?P<e>\d{1,2}))(?![\w/-])")


def date_style(text: str) -> str:
    """How ``text`` (a whole record) writes the month and day of its numeric dates: ``"padded"``
    when some field has a leading zero and none has one digit (``03/07/2024``), ``"unpadded"`` when
    some has one digit and none a leading zero (``3/7/24``), else ``""`` (no evidence, or both).

    A DATE surrogate writes a field of two digits without a leading zero (``11/22/92``) in the
    record's style, not by its own digits: padded by its own digits, ``11/22/92`` among ``3/7/92``
    became ``04/06/92``, which told the original's month (10-12) and day (10-31), and with them the
    record's shift to within a few weeks (decision 0620)."""
    padded = unpadded = False
    iso_two = iso_one = False  # year-first dates with dashes seen: all fields two digits / one of one
    for match in _STYLE_DATES.finditer(text):
        g = match.groupdict()
        fields = [f for f in (g["m"], g["d"], g["a"], g["b"], g["c"], g["e"]) if f]
        values = [int(f) for f in fields]
        if max(values) > 31 or min(values) > 12 or min(values) == 0:
            continue  # no month and day (``46/25``, a score): no evidence
        if g["m"] is not None and g["s1"] == "-":  # year first with dashes: ISO 8601's shape
            one_digit = any(len(f) == 1 for f in fields)
            iso_one, iso_two = iso_one or one_digit, iso_two or not one_digit
        padded = padded or any(f.startswith("0") for f in fields)
        unpadded = unpadded or any(len(f) == 1 for f in fields)
    # ISO 8601 pads by rule: a record that writes ``2021-12-14`` and never ``2021-3-7`` writes
    # padded dates (a dose ``1/1`` beside it had made it unpadded, and its surrogate
    # ``2022-2-22``; surrogate audit, stop 57)
    padded = padded or (iso_two and not iso_one)
    if padded == unpadded:
        return ""
    return "padded" if padded else "unpadded"


def _year(text: str) -> int:
    value = int(text)
    if len(text) == 2:
        return 2000 + value if value < 50 else 1900 + value
    return value


def shift_date(text: str, offset: int, *, order: str = "mdy", style: str = "") -> str | None:
    """``text`` shifted by ``offset`` days in its own format, or None when it is not one date
    (with its time of day) in the formats of the module docstring; ``style``: the record's
    :func:`date_style`."""
    core = text.strip(_STRIP)
    if not core:
        return None
    decade = _DECADE.fullmatch(core)
    if decade:  # ``1990s``: its middle moved, written as a decade again
        moved = dt.date(int(decade.group(1)) + 5, 1, 1) + dt.timedelta(days=offset)
        start = text.index(core)
        return f"{text[:start]}{moved.year // 10 * 10:04d}{decade.group(2)}{text[start + len(core) :]}"
    for candidate in (core, core[:-1]) if core.endswith(".") else (core,):
        for pattern in _PATTERNS:
            match = pattern.fullmatch(candidate)
            if match:
                new = _shift_match(match, offset, order, style)
                if new is not None:
                    start = text.index(candidate)
                    return text[:start] + new + text[start + len(candidate) :]
    return None


#: the longest text :func:`shift_dates_in` tries as one date (a weekday, a month name, an ordinal,
#: a year and a time with seconds and a zone fit in 64 characters), and the longest span it searches
_LONGEST_DATE = 64
_LONGEST_SEARCH = 4096


def shift_dates_in(text: str, offset: int, gap: Callable[[str], str], *, order: str = "mdy",
                   style: str = "") -> str:
    """Every date inside ``text`` shifted by ``offset`` (leftmost, then longest, as
    :func:`shift_date` reads one), and the text between them rewritten by ``gap``.

    A DATE span that holds more than a date (``03/01/2024, discharged``, ``DOB 02/29/1960``,
    ``spring of 2019 with Zqxwv``) keeps its dates and their intervals; the surrogate scrubs the
    rest. A span longer than 4,096 characters is not searched (``gap`` gets all of it).
    """
    out: list[str] = []
    done = pos = 0
    n = len(text) if len(text) <= _LONGEST_SEARCH else 0
    while pos < n:
        if not (text[pos].isalnum() or _year_apostrophe(text, pos)) or (pos and text[pos - 1].isalnum()):
            pos += 1
            continue
        best: tuple[int, str] | None = None
        for end in range(min(n, pos + _LONGEST_DATE), pos, -1):  # longest first
            if end < n and text[end].isalnum() or not text[end - 1].isalnum() and text[end - 1] != ".":
                continue
            if end + 1 < n and text[end] in "/-" and text[end + 1].isdigit() and not _range_after(text, end):
                continue  # ``03/07`` of ``03/07/2024x`` (but ``2019`` of ``2019-2020``: a range)
            window = text[pos:end]
            new = shift_date(window, offset, order=order, style=style)
            if new is None and window[:1].isalpha():  # a date said in words (``on July twenty ninth.``)
                new = shift_spoken_date(window, offset)
            if new is not None:
                best = (end, new)
                break
        if best is None:
            pos += 1
            continue
        out += [gap(text[done:pos]) if pos > done else "", best[1]]
        done = pos = best[0]
    if done < len(text):
        out.append(gap(text[done:]))
    return "".join(out)


def _year_apostrophe(text: str, pos: int) -> bool:
    """``text[pos]`` is the apostrophe of a year of two digits (``'98``), where a date may start."""
    return text[pos] in "'\u2019" and text[pos + 1 : pos + 3].isdigit()


_WORD_AFTER = re.compile(r"\S+")


def _range_after(text: str, end: int) -> bool:
    """The date that ends at ``end`` is the first end of a range: the separator after it is
    followed by another date (``2019-2020``, ``3/4/2019-3/9/2019``, ``2024-03-07/2024-03-09``),
    not by the rest of a longer token (``03/07`` of ``03/07/2024x``)."""
    other = _WORD_AFTER.match(text, end + 1)
    return other is not None and shift_date(other.group(), 1) is not None


def _shift_match(match: re.Match[str], offset: int, order: str, style: str = "") -> str | None:
    g = match.groupdict()
    fields: dict[str, str] = {}  # group name -> its role ("y", "m", "d", "mon", "wd")
    for name in ("y", "m", "d", "mon", "wd"):
        if g.get(name) is not None:
            fields[name] = name
    if g.get("a") is not None:
        a, b = int(g["a"]), int(g["b"])
        month_first = a <= 12 if order == "mdy" else b > 12  # the other order when only it can be valid
        fields["a"], fields["b"] = ("m", "d") if month_first else ("d", "m")
    value = {role: g[name] for name, role in fields.items()}
    try:
        year = _year(value["y"]) if "y" in value else 2000
        month = int(value["m"]) if "m" in value else month_number(value["mon"]) if "mon" in value else 7
        day = int(value["d"]) if "d" in value else 15 if "m" in value or "mon" in value else 2
        if "wd" in value and len(value) == 1:  # a weekday alone, with its time of day if any
            moved = _weekday_name((_weekday_index(value["wd"]) + offset) % 7, value["wd"])
            return _rebuild(match, {"wd": moved})
        new = dt.date(year, month, day) + dt.timedelta(days=offset)
    except (ValueError, OverflowError):
        return None
    if "y" in value and len(value["y"]) == 4 and not 1 <= new.year <= 9999:
        return None
    replacements: dict[str, str] = {}
    # a numeric date pads a field of two digits only when its month and day both have two
    # (``12/31/99`` -> ``01/01/00``), not ``9/30/23`` (-> ``2/2/24``, not ``2/02/24``)
    numeric = "mon" not in fields and all(len(g[name]) > 1 for name, role in fields.items() if role in "md")
    for name, role in fields.items():
        old_text = g[name]
        if role == "y":
            replacements[name] = f"{new.year % 100:02d}" if len(old_text) == 2 else f"{new.year:04d}"
        elif role == "m":
            replacements[name] = _width(new.month, old_text, numeric=numeric, style=style)
        elif role == "d":
            replacements[name] = _width(new.day, old_text, numeric=numeric, style=style)
        elif role == "mon":
            replacements[name] = _month_name(new.month, old_text)
        elif role == "wd":
            shifted = new.weekday() if "y" in value else (_weekday_index(old_text) + offset) % 7
            replacements[name] = _weekday_name(shifted, old_text)
    if g.get("ord"):
        replacements["ord"] = ordinal_suffix(new.day, g["ord"])
    if g.get("d2") is not None:
        try:
            end = dt.date(year, month, int(g["d2"])) + dt.timedelta(days=offset)
        except ValueError:
            return None
        if end <= new:
            return None
        same = (end.year, end.month) == (new.year, new.month)  # else the end says its month
        replacements["d2"] = str(end.day) if same else f"{_month_name(end.month, g['mon'])} {end.day}"
    return _rebuild(match, replacements)


def _rebuild(match: re.Match[str], replacements: dict[str, str]) -> str:
    text = match.string
    spans = sorted((match.start(name), match.end(name), new) for name, new in replacements.items())
    out, pos = [], match.start()
    for start, end, new in spans:
        out.append(text[pos:start])
        out.append(new)
        pos = end
    out.append(text[pos : match.end()])
    return "".join(out)


#: a month name on its own (``June``, ``Sept.``): not a pattern of :func:`shift_date`, so that the
#: verbs ``may`` and ``march`` are never read as months
_BARE_MONTH = re.compile(
    r"(?<![^\W\d_])(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)(?![^\W\d_])", re.IGNORECASE)


def shift_month_names(text: str, offset: int) -> str:
    """Every capitalized month name of ``text`` standing alone (``in June``, ``early Sept``)
    moved as a date of month resolution: the 15th of the month moved by ``offset`` days, in the
    name's style and case. A month alone is a date (it moves with the record's other dates) and a
    name a detector took for one (``June``, ``April``) is then no longer the original, unless the
    offset is shorter than a month (then it keeps its value, as ``March 2024`` does)."""
    def one(match: re.Match[str]) -> str:
        word = match.group()
        if word.islower():
            return word
        month = (dt.date(2000, month_number(word), 15) + dt.timedelta(days=offset)).month
        return _month_name(month, word)

    return _BARE_MONTH.sub(one, text)


_AMOUNT = (r"(?:\d{1,3}(?:\.\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
           r"|a\s+few|a\s+couple\s+of|several|few|many)")
#: a length of time alone, perhaps relative to the record's time (``10 days ago``, ``for 3 weeks``,
#: ``two years later``, ``the past 6 months``): an interval, which one offset per record keeps as
#: it is; no calendar date is in it to move
_DURATION = re.compile(
    r"(?:(?:for|about|around|approximately|approx\.?|over|the|past|last|next|within|in|after|some|"
    rf"nearly|almost|only|just|a|an|~)\s+)*{_AMOUNT}(?:\s+|-)(?:{TIME_UNIT_ALTERNATION})s?(?:\s+(?:ago|later|before|after|earlier|prior|previously|since|back|from\s+now))?",
    re.IGNORECASE)


#: a length of time inside a longer DATE span (``12 days after 03/04/2019``), as whole words
_DURATION_IN = re.compile(rf"(?<![\w.]){_DURATION.pattern}(?!\w)", re.IGNORECASE)


def is_duration(text: str) -> bool:
    """``text`` (a DATE span, less the punctuation around it) is a length of time alone: an amount
    and a unit, perhaps with ``ago``, ``later`` or ``for`` (:data:`_DURATION`)."""
    return _DURATION.fullmatch(text.strip(_STRIP + ".!?")) is not None


#: what a holiday becomes in a record whose dates are shifted: no day of the calendar
HOLIDAY_SURROGATE = "the holiday"


class DateMaker:
    """DATE surrogates (see the module docstring)."""

    label = "DATE"

    def __init__(self, config: SurrogateConfig) -> None:
        self._maximum = config.date_shift_days
        self._order = config.date_order
        self._names = NameMaker(config)

    def offset(self, context: Context) -> int:
        """The record's shift in days (never 0)."""
        return context.record("DATE\x00shift").signed_offset(self._maximum)

    def make(self, text: str, context: Context) -> str:
        core = text.strip(_STRIP + ".!?")
        if core and HOLIDAY.fullmatch(core):  # the holiday, not a shifted day (decision 0219)
            at = text.index(core)  # the punctuation around it (``Easter,``) stays
            holiday = HOLIDAY_SURROGATE.upper() if core.isupper() else HOLIDAY_SURROGATE
            return text[:at] + holiday + text[at + len(core) :]
        offset = self.offset(context)
        shifted = shift_date(text, offset, order=self._order, style=context.date_style)
        if shifted is None:  # a date said in words (transcribed speech)
            shifted = shift_spoken_date(text, offset)
        if shifted is not None:
            return shifted
        if is_duration(text):
            # ``10 days ago``: kept as written, as every interval of the record is (decision 0653);
            # random digits (``03 days ago``) broke the record's timeline and protected no date
            return text
        names = _name_words(text)
        gaps: list[str] = []

        def gap(part: str) -> str:
            gaps.append(part)
            out, at = [], 0
            for m in _DURATION_IN.finditer(part):  # ``12 days after 03/04/2019``: the interval stays
                out += [scrubbed(shift_month_names(part[at : m.start()], offset), stream, DATE_WORDS - names),
                        m.group()]
                at = m.end()
            return "".join(out) + scrubbed(shift_month_names(part[at:], offset), stream, DATE_WORDS - names)

        stream = context.entity(f"DATE\x00{entity_key(text)}")
        out = shift_dates_in(text, offset, gap, order=self._order, style=context.date_style)
        if names and gaps == [text] and _capitalized_words(text):
            # no date in it at all, and it reads as a person's name (``Summer``, ``Autumn Smith``):
            # a name surrogate, not the original's date words kept and the rest scrubbed
            return self._names.make(text, context)
        return out


_LETTER_RUN = re.compile(r"[^\W\d_]+")


def _name_words(text: str) -> frozenset[str]:
    """The capitalized date words of ``text`` that the name lists hold (``Summer``, ``Autumn``;
    month and weekday names are dates, moved by :func:`shift_month_names`), case-folded: scrubbed
    instead of kept, so a name a detector took for a date does not survive."""
    masks = lexicon().masks
    return frozenset(word.casefold() for word in _LETTER_RUN.findall(text)
                     if not word.islower() and word.casefold() in DATE_WORDS
                     and word.casefold() in masks and not _BARE_MONTH.fullmatch(word)
                     and word.casefold()[:3] not in _WEEKDAY_STEMS)


_WEEKDAY_STEMS = frozenset(day[:3] for day in WEEKDAYS)


def _capitalized_words(text: str) -> bool:
    return all(not word.islower() for word in _LETTER_RUN.findall(text))
