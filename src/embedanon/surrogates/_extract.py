"""Extract Faker's Latin-script name lists into ``data/names.json`` (run once, by a maintainer).

``python -m embedanon.surrogates._extract`` rewrites the bundled file from the installed Faker.
The names are bundled rather than read from Faker at run time so that, under one release key,
the same entity keeps the same surrogate across Faker versions, and so that a choice is a plain
unbiased index into a list (about 10x cheaper than seeding Faker per name; see the surrogates
README for the measurement). Faker's lists are MIT-licensed (https://github.com/joke2k/faker).

Only single-token names (letters, at most one internal hyphen) in Latin script are kept: the
surrogates replace names inside English-script text, one token for one token.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

#: Culture groups of the default "mixed" draw, each a list of Faker locales.
GROUPS: dict[str, tuple[str, ...]] = {
    "anglo": ("en_US", "en_GB", "en_IE", "en_NZ"),
    "hispanic": ("es_ES", "es_MX", "es_CO", "es_AR", "es_CL", "pt_BR", "pt_PT"),
    "european": ("de_DE", "fr_FR", "it_IT", "nl_NL", "pl_PL", "sv_SE", "cs_CZ", "da_DK", "fi_FI",
                 "ro_RO", "hr_HR"),
    "african": ("yo_NG", "ig_NG", "ha_NG", "en_KE", "sw", "tw_GH", "zu_ZA"),
    "south-asian": ("en_IN", "en_PK"),
    "east-asian": ("zh_CN", "zh_TW", "ja_JP"),
    "southeast-asian": ("en_TH", "vi_VN", "id_ID"),
    "middle-eastern": ("tr_TR", "fr_DZ", "uz_UZ", "az_AZ"),
}  # fmt: skip

_NAME = re.compile(r"[^\W\d_]{2,}(?:-[^\W\d_]{2,})?")
_FEMALE = ("first_romanized_names_female", "first_names_female")
_MALE = ("first_romanized_names_male", "first_names_male")
_GIVEN = ("first_romanized_names", "first_names", "first_names_unisex")
_SURNAME = ("last_romanized_names", "last_names", "last_names_female", "last_names_male",
            "last_names_unisex", "male_last_names", "unisex_last_names")  # fmt: skip


def _latin(name: str) -> bool:
    return all(ord(ch) < 0x250 for ch in name)


def _clean(values: object) -> list[str]:
    out: dict[str, None] = {}
    for value in values:  # type: ignore[attr-defined]
        name = str(value).strip()
        if name.isupper():
            name = "-".join(piece.capitalize() for piece in name.split("-"))
        if _NAME.fullmatch(name) and _latin(name) and name not in ("John", "Jane", "Doe"):
            out[name] = None
    return list(out)


def _first(provider: object, attributes: tuple[str, ...]) -> list[str]:
    """Names of the first attribute that yields any usable (romanized, Latin-script) names."""
    for attribute in attributes:
        values = getattr(provider, attribute, None)
        if values is not None and not isinstance(values, property):
            names = _clean(values)
            if names:
                return names
    return []


def extract() -> dict[str, object]:
    """Read the name lists of every locale in :data:`GROUPS` from the installed Faker."""
    from faker import Faker

    locales: dict[str, dict[str, list[str]]] = {}
    for group_locales in GROUPS.values():
        for locale in group_locales:
            fake = Faker(locale)
            provider = next(p for p in fake.get_providers() if ".person" in type(p).__module__)
            female, male = _first(provider, _FEMALE), _first(provider, _MALE)
            gendered = set(female) | set(male)
            given = [n for n in _first(provider, _GIVEN) if n not in gendered]
            surnames: dict[str, None] = {}
            for attribute in _SURNAME:
                values = getattr(provider, attribute, None)
                if values is not None:
                    surnames.update(dict.fromkeys(_clean(values)))
            if not (female or male or given) or not surnames:
                raise RuntimeError(f"locale {locale} has no usable names")
            locales[locale] = {"female": female, "male": male, "other": given, "surname": list(surnames)}
    import faker

    return {"faker_version": faker.VERSION, "groups": GROUPS, "locales": locales}


def main() -> None:
    path = Path(__file__).with_name("data") / "names.json"
    data = extract()
    path.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True) + "\n")
    counts = {loc: sum(map(len, v.values())) for loc, v in data["locales"].items()}  # type: ignore[attr-defined]
    sys.stdout.write(f"wrote {path} ({path.stat().st_size} bytes): {counts}\n")


if __name__ == "__main__":
    main()
