"""Seeded PII makers and the edit machinery of the real-text evaluation set (``build_set.py``).

Every function takes a ``random.Random`` owned by one record (seeded from the set's seed and the
record's id), so a record's injections do not depend on the order records are built in.

Names come from ``data/names.json`` (four culture groups, faker-js name parts that no list of the
shipped detector's training data has; see ``extract_names.py``). Places, organizations, e-mail
domains and phone shapes are small hand-written lists below (public knowledge, no source needed).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
NAMES = json.loads((HERE / "data" / "names.json").read_text(encoding="utf-8"))["groups"]
GROUP_NAMES: tuple[str, ...] = tuple(NAMES)

#: towns and cities (smaller than a state) from many regions
CITIES = (
    "Dayton", "Ringwood", "Tamale", "Ibadan", "Kumasi", "Enugu", "Puebla", "Rosario", "Valparaíso",
    "Cusco", "Medellín", "Braga", "Coimbra", "Sevilla", "Toluca", "Mysore", "Coimbatore", "Nagpur",
    "Da Nang", "Hue", "Bandung", "Surabaya", "Cebu", "Brno", "Olomouc", "Split", "Zadar", "Cluj",
    "Iasi", "Liepaja", "Aarhus", "Bergen", "Tromsø", "Fresno", "Spokane", "Akron", "Macon", "Tulsa",
    "Boise", "Duluth", "Scranton", "Yonkers", "Flushing", "Bakersfield", "Gary", "Wichita",
    "Chattanooga", "Kalamazoo", "Tallahassee", "Provo", "Oaxaca", "Arequipa", "Ilorin", "Ho",
    "Cape Coast", "Ipoh", "Madurai", "Guntur", "Chiang Mai", "Yogyakarta",
)
STREET_KINDS = ("Street", "Avenue", "Road", "Lane", "Drive", "Court", "Boulevard", "Way")
HOSPITAL_SHAPES = ("{city} General Hospital", "St. {given} Medical Center", "{city} Regional Medical Center",
                   "{surname} Memorial Hospital", "{city} Children's Hospital", "{city} Family Clinic")
SCHOOL_SHAPES = ("{city} High School", "{surname} Elementary", "{city} Community College",
                 "University of {city}", "{given} Middle School")
EMPLOYER_SHAPES = ("{surname} & Sons Plumbing", "{city} Auto Body", "{surname} Logistics",
                   "the {city} Tribune", "{surname} Dental Group", "{city} Public Library")
MAIL_DOMAINS = ("gmail.com", "yahoo.com", "outlook.com", "hotmail.com", "mail.ru", "proton.me",
                "aol.com", "icloud.com")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
ORDINAL_WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
                 "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
                 "seventeenth", "eighteenth", "nineteenth", "twentieth")
TENS = {20: "twenty", 30: "thirty"}
UNITS = ("", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


@dataclass
class Mark:
    """A labelled piece of an inserted string: ``new[start:end]`` is a ``label``."""

    start: int
    end: int
    label: str
    group: str | None = None


@dataclass
class Piece:
    """A string to insert with its labelled parts (built with :meth:`add`)."""

    text: str = ""
    marks: list[Mark] = field(default_factory=list)

    def add(self, text: str, label: str | None = None, group: str | None = None) -> Piece:
        if label is not None:
            self.marks.append(Mark(len(self.text), len(self.text) + len(text), label, group))
        self.text += text
        return self


@dataclass
class Edit:
    """Replace ``text[start:end]`` by ``piece``."""

    start: int
    end: int
    piece: Piece


def apply_edits(text: str, edits: list[Edit]) -> tuple[str, list[dict[str, object]]]:
    """The edited text and its injected spans (dicts with start, end, label, group?, origin).

    Edits must not overlap; they are applied left to right.
    """
    out: list[str] = []
    spans: list[dict[str, object]] = []
    pos = 0
    length = 0
    for e in sorted(edits, key=lambda e: e.start):
        if e.start < pos:
            raise ValueError("overlapping edits")
        out.append(text[pos:e.start])
        length += e.start - pos
        for m in e.piece.marks:
            span: dict[str, object] = {"start": length + m.start, "end": length + m.end, "label": m.label,
                                       "origin": "injected"}
            if m.group is not None:
                span["group"] = m.group
            spans.append(span)
        out.append(e.piece.text)
        length += len(e.piece.text)
        pos = e.end
    out.append(text[pos:])
    return "".join(out), spans


# -- people ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Person:
    first: str
    last: str
    group: str


def person(rng: random.Random, group: str) -> Person:
    """A first and last name of ``group``, from one locale (yo_NG has no surnames: en_NG ones)."""
    locales = NAMES[group]
    loc = rng.choice([k for k, v in locales.items() if v["first"]])
    first = rng.choice(locales[loc]["first"])
    lasts = locales[loc]["last"] or locales["en_NG"]["last"]
    return Person(first, rng.choice(lasts), group)


def nickname(first: str) -> str:
    """A short form of a long given name (``Toluwalope`` -> ``Tolu``, ``Opeoluwa`` -> ``Ope``): its
    first 4 (or 3) letters when they end in a vowel and are not an English word; else the name."""
    base = first.split()[0]
    if len(base) >= 7:
        for cut in (4, 3):
            short = base[:cut]
            if short[-1].lower() in "aeiouáéíóúāēīōū" and short.lower() not in _common():
                return short
    return base


_COMMON: set[str] = set()


def _common() -> set[str]:
    if not _COMMON:
        from embedanon.privacy.prior import word_frequencies

        ranked = sorted(word_frequencies().items(), key=lambda kv: -kv[1])
        _COMMON.update(w for w, _ in ranked[:20_000])
    return _COMMON


def name_piece(rng: random.Random, p: Person, *, form: str, lower: bool = False) -> Piece:
    """``form``: full (First Last), first, last, nick, title (Mr./Ms./Dr. Last; the title is not
    part of the span)."""
    piece = Piece()
    if form == "title":
        piece.add(rng.choice(("Mr. ", "Ms. ", "Mrs. ", "Dr. ")))
        piece.add(p.last, "NAME", p.group)
        return piece
    value = {"full": f"{p.first} {p.last}", "first": p.first, "last": p.last,
             "nick": nickname(p.first)}[form]
    return piece.add(value.lower() if lower else value, "NAME", p.group)


def pick_group(rng: random.Random) -> str:
    return rng.choice(GROUP_NAMES)


# -- other identifiers ----------------------------------------------------------------------------
def spoken_number(n: int) -> str:
    if n < 20:
        return ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
                "nineteen"][n]
    tens, unit = divmod(n, 10)
    head = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty",
            9: "ninety"}[tens]
    return head + (" " + UNITS[unit] if unit else "")


def spoken_ordinal(n: int) -> str:
    if n <= 20:
        return ORDINAL_WORDS[n - 1]
    tens, unit = divmod(n, 10)
    return TENS[tens * 10] + (" " + ORDINAL_WORDS[unit - 1] if unit else "ieth")


def date_text(rng: random.Random, *, spoken_share: float = 0.25) -> str:
    """A date as people write or say it (full, partial, numeric, spoken)."""
    month, day, year = rng.randrange(12), rng.randint(1, 28), rng.randint(1998, 2023)
    m = MONTHS[month]
    kind = rng.random()
    if kind < spoken_share:
        y = ("two thousand " + spoken_number(year - 2000)) if year >= 2000 else \
            "nineteen " + spoken_number(year - 1900)
        return f"{m} {spoken_ordinal(day)}" + (f" {y}" if rng.random() < 0.6 else "")
    shapes = [f"{m} {day}, {year}", f"{day} {m} {year}", f"{month + 1}/{day}/{year}",
              f"{month + 1:02d}/{day:02d}/{year % 100:02d}", f"{m} {day}", f"{m} {year}",
              f"{m[:3]}. {day}", f"the {day}{_suffix(day)} of {m}", f"{year}-{month + 1:02d}-{day:02d}"]
    return rng.choice(shapes)


def _suffix(day: int) -> str:
    return "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def phone_text(rng: random.Random) -> str:
    a, b, c = rng.randint(201, 989), rng.randint(200, 999), rng.randint(0, 9999)
    return rng.choice([f"({a}) {b}-{c:04d}", f"{a}-{b}-{c:04d}", f"{a}.{b}.{c:04d}",
                       f"04{rng.randint(10, 99)} {b} {c % 1000:03d}",
                       f"+44 7{rng.randint(100, 999)} {b}{c % 1000:03d}",
                       f"+233 {rng.randint(20, 59)} {b} {c:04d}"])


def email_text(rng: random.Random, p: Person) -> str:
    first, last = _ascii(p.first.split()[0]).lower(), _ascii(p.last.split()[-1]).lower()
    local = rng.choice([f"{first}.{last}", f"{first}{rng.randint(1, 99)}", f"{first[0]}{last}",
                        f"{last}.{first[:1]}", f"{first}_{last}"])
    return f"{local}@{rng.choice(MAIL_DOMAINS)}"


def url_text(rng: random.Random, p: Person) -> str:
    first, last = _ascii(p.first.split()[0]).lower(), _ascii(p.last.split()[-1]).lower()
    return rng.choice([f"http://www.{last}{first[:1]}.com/", f"https://{first}{last}.blogspot.com",
                       f"www.facebook.com/{first}.{last}", f"http://{last}-family.net/photos",
                       f"https://github.com/{first}{last[:1]}"])


def mrn_text(rng: random.Random) -> str:
    return rng.choice([f"{rng.randint(0, 99_999_999):08d}", f"MR{rng.randint(100000, 999999)}",
                       f"{rng.randint(100, 999)}-{rng.randint(10, 99)}-{rng.randint(1000, 9999)}"])


def plate_text(rng: random.Random) -> str:
    letters = "ABCDEFGHJKLMNPRSTUVWXYZ"
    return rng.choice([f"{rng.randint(1, 9)}{''.join(rng.choices(letters, k=3))}{rng.randint(100, 999)}",
                       f"{''.join(rng.choices(letters, k=3))}-{rng.randint(1000, 9999)}",
                       f"{''.join(rng.choices(letters, k=2))}{rng.randint(10, 99)} "
                       f"{''.join(rng.choices(letters, k=3))}"])


def ssn_text(rng: random.Random) -> str:
    return f"{rng.randint(100, 665)}-{rng.randint(10, 99)}-{rng.randint(1000, 9999)}"


def street_text(rng: random.Random, p: Person) -> str:
    return f"{rng.randint(2, 9800)} {p.last.split()[-1]} {rng.choice(STREET_KINDS)}"


def org_text(rng: random.Random, shapes: tuple[str, ...], p: Person) -> str:
    return rng.choice(shapes).format(city=rng.choice(CITIES), given=p.first.split()[0],
                                     surname=p.last.split()[-1])


def _ascii(text: str) -> str:
    import unicodedata

    out = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z]", "", out) or "user"
