"""``SurrogateConfig``: how detected spans are replaced (frozen, hashable, validated)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from .._validate import positive_int
from ..errors import ConfigError

#: Fixed phone pattern of ``phone_format="neutral"`` (``#`` = a random digit): the same for every
#: source, so the format reveals nothing about the source country (issue 9).
NEUTRAL_PHONE = "+00 ### ### ####"
#: Fixed ID pattern of ``id_format="neutral"`` (``@`` = a random capital letter, ``#`` = a digit).
NEUTRAL_ID = "@@-######"

#: RFC 2606 reserved second-level domains: never anyone's real address.
RESERVED_DOMAINS: tuple[str, ...] = ("example.com", "example.net", "example.org")
#: Generic (not country-specific) free-mail providers from Faker's ``free_email_domains`` lists.
PUBLIC_EMAIL_DOMAINS: tuple[str, ...] = (
    "gmail.com", "googlemail.com", "hotmail.com", "icloud.com", "live.com", "outlook.com",
    "protonmail.com", "yahoo.com", "ymail.com", "yandex.com", "zohomail.com",
)  # fmt: skip
#: Widely known public sites of mixed top-level domains (hand-picked; none derived from any input).
PUBLIC_URL_DOMAINS: tuple[str, ...] = (
    "archive.org", "bbc.co.uk", "bitbucket.org", "blogspot.com", "dropbox.com", "github.com",
    "gitlab.com", "google.com", "medium.com", "mozilla.org", "nih.gov", "nytimes.com", "python.org",
    "reddit.com", "sourceforge.net", "stackexchange.com", "w3.org", "who.int", "wikipedia.org",
    "wordpress.com", "youtube.com",
)  # fmt: skip


@cache
def name_data() -> dict[str, Any]:
    """The bundled name lists (``data/names.json``, extracted from Faker by ``_extract.py``)."""
    text = resources.files(__package__).joinpath("data", "names.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@cache
def _faker_locales() -> frozenset[str]:
    from faker.config import AVAILABLE_LOCALES

    return frozenset(AVAILABLE_LOCALES)


def _choice(key: str, value: object, valid: tuple[str, ...], extra: str = "") -> str:
    if isinstance(value, str) and value in valid:
        return value
    options = ", ".join(repr(v) for v in valid)
    raise ConfigError(f"{key} must be one of {options}{extra}, got {value!r}")


def _strings(key: str, value: object, what: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, tuple | list) or not value:
        raise ConfigError(f"{key} must be {what}, got {value!r}")
    if not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{key} must be {what}, got {value!r}")
    return tuple(value)


def _domains(key: str, value: object, public: tuple[str, ...]) -> tuple[str, ...]:
    if isinstance(value, str):
        _choice(key, value, ("public", "reserved"), " or a list of domains")
        return public if value == "public" else RESERVED_DOMAINS
    domains = _strings(key, value, "'public', 'reserved' or a non-empty list of domains")
    for domain in domains:
        labels = domain.split(".")
        if len(labels) < 2 or not all(lab and lab.replace("-", "").isalnum() for lab in labels):
            raise ConfigError(f"{key} must list domain names like 'example.org', got {domain!r}")
    return tuple(d.lower() for d in domains)


def _cultures(value: object) -> tuple[str, ...] | tuple[tuple[str, float], ...]:
    """``name_cultures`` other than ``"mixed"``: names (equal weights) or (name, weight) pairs."""
    data = name_data()
    known = (*data["groups"], *data["locales"])
    what = "'mixed', a list of groups/locales or a mapping of them to weights"
    if isinstance(value, Mapping):
        value = tuple(sorted(value.items()))
    if not isinstance(value, tuple | list):
        raise ConfigError(f"name_cultures must be {what}, got {value!r}")
    pairs = bool(value) and all(isinstance(v, tuple | list) and len(v) == 2 for v in value)
    names = [v[0] for v in value] if pairs else value
    _strings("name_cultures", names, what)
    for item in names:
        if item not in known:
            raise ConfigError(f"name_cultures must name groups or locales among {', '.join(known)}, "
                              f"got {item!r}")
    if len(set(names)) != len(names):
        raise ConfigError(f"name_cultures names a group or locale twice, got {value!r}")
    if not pairs:
        return tuple(names)
    weights = []
    for name, weight in value:
        if isinstance(weight, bool) or not isinstance(weight, int | float) or not 0 < weight < float("inf"):
            raise ConfigError(f"name_cultures weight of {name!r} must be a finite number > 0, got {weight!r}")
        weights.append((name, float(weight)))
    return tuple(sorted(weights))  # one mix, one config: the order it was written in does not matter


@dataclass(frozen=True, slots=True)
class SurrogateConfig:
    """How detected spans are replaced by fake values of the same kind.

    Attributes:
        name_cultures: the fixed mix of culture groups surrogate names are drawn from, the same
            whatever the original name (so a surrogate says nothing of the original's culture):
            ``"mixed"`` (default, every bundled group with the same weight), a list of group
            names and/or bundled Faker locales (equal weights), or a mapping of them to weights
            (``{"anglo": 0.6, "hispanic": 0.3, "african": 0.1}``: a population of your own).
        name_gender: ``"any"`` (default): a given name's surrogate is drawn from all given names
            of the unit, whatever the original's gender; ``"keep"``: from the original's gender
            when the lists give it one (copies the gender into the release).
        phone_format: ``"neutral"`` (default, :data:`NEUTRAL_PHONE`), ``"keep-shape"`` (random
            digits in the original's layout; that layout can reveal the source country) or a
            pattern of your own with at least 7 ``#`` (``"(555) ###-####"``).
        id_format: ``"neutral"`` (default, :data:`NEUTRAL_ID`) or ``"keep-shape"`` (each
            digit/letter random, separators kept; the layout can reveal the issuer or country).
        date_shift_days: dates of a record move by one offset uniform on
            ``[-date_shift_days, -1] ∪ [1, date_shift_days]`` days.
        date_order: how an ambiguous numeric date such as ``03/04/2024`` is read: ``"mdy"`` or ``"dmy"``.
        email_domains: ``"public"`` (generic free-mail providers), ``"reserved"`` (example.com/.net/.org)
            or a list of domains; the surrogate's domain is drawn from it independently of the source.
        url_domains: same, for URLs (``"public"``: well-known sites of mixed top-level domains).
        age_top: ages >= this become ``str(age_top)`` (HIPAA safe harbor aggregates ages over 89).
        age_jitter: other ages move by a per-record offset in ``[-age_jitter, age_jitter]`` minus 0
            (0 keeps them).
        address_locales: Faker locales street addresses are drawn from.
        consistency: ``"record"`` (default): an entity gets the same surrogate within a record
            and an unrelated one in each other record, so surrogates link no records and their
            frequencies are not the names' (no frequency analysis); ``"corpus"``: the same
            surrogate everywhere under one key, which links every record of a person (useful
            for longitudinal work; anyone can then link them too, and the most frequent
            surrogate surname is the most frequent real one's).
    """

    name_cultures: str | tuple[str, ...] | tuple[tuple[str, float], ...] = "mixed"
    name_gender: str = "any"
    phone_format: str = "neutral"
    id_format: str = "neutral"
    date_shift_days: int = 365
    date_order: str = "mdy"
    email_domains: str | tuple[str, ...] = "public"
    url_domains: str | tuple[str, ...] = "public"
    age_top: int = 90
    age_jitter: int = 2
    address_locales: tuple[str, ...] = ("en_US",)
    consistency: str = "record"

    def __post_init__(self) -> None:
        if self.name_cultures != "mixed":
            object.__setattr__(self, "name_cultures", _cultures(self.name_cultures))
        _choice("name_gender", self.name_gender, ("any", "keep"))
        phone = self.phone_format
        if not (isinstance(phone, str) and phone.count("#") >= 7 and set(phone) <= set("#0123456789 +-().")):
            _choice("phone_format", phone, ("neutral", "keep-shape"), " or a pattern with at least 7 '#'")
        _choice("id_format", self.id_format, ("keep-shape", "neutral"))
        _choice("date_order", self.date_order, ("mdy", "dmy"))
        _choice("consistency", self.consistency, ("corpus", "record"))
        positive_int("date_shift_days", self.date_shift_days, maximum=36500)
        positive_int("age_top", self.age_top, maximum=200)
        if isinstance(self.age_jitter, bool) or not isinstance(self.age_jitter, int) or self.age_jitter < 0:
            raise ConfigError(f"age_jitter must be an integer >= 0, got {self.age_jitter!r}")
        for key in ("email_domains", "url_domains"):
            value = getattr(self, key)
            if not isinstance(value, str):
                object.__setattr__(self, key, _domains(key, value, ()))
            else:
                _domains(key, value, ())
        locales = _strings("address_locales", self.address_locales, "a non-empty list of Faker locales")
        # The default needs no check; importing Faker to check costs 0.1-0.2 s.
        unknown = [] if locales == ("en_US",) else [loc for loc in locales if loc not in _faker_locales()]
        if unknown:
            raise ConfigError(f"address_locales must be Faker locales such as 'en_US', got {unknown[0]!r}")
        object.__setattr__(self, "address_locales", locales)

    def name_mix(self) -> tuple[tuple[str, float], ...]:
        """The culture units surrogate names are drawn from, with their weights."""
        cultures = self.name_cultures
        if cultures == "mixed":
            return tuple((group, 1.0) for group in name_data()["groups"])
        return tuple(item if isinstance(item, tuple) else (item, 1.0) for item in cultures)

    def domains(self, key: str) -> tuple[str, ...]:
        """The domain list of ``email_domains`` or ``url_domains``."""
        public = PUBLIC_EMAIL_DOMAINS if key == "email_domains" else PUBLIC_URL_DOMAINS
        return _domains(key, getattr(self, key), public)
