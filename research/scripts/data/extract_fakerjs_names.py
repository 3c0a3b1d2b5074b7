"""Rebuild ``fakerjs_african_names.json`` (the name pools of ``make_pii_set.py --split dev-africa``).

Input: the person name lists of @faker-js/faker 10.6.0 (MIT, npm), dumped with node::

    npm pack @faker-js/faker@10.6.0 && tar xzf faker-js-faker-10.6.0.tgz
    node -e 'import("./package/dist/index.js").then(F => { const f = x => x == null ? [] :
      Array.isArray(x) ? x : Object.values(x).flat(); const o = {}; for (const l of ["en_ZA",
      "zu_ZA", "fr_SN", "en"]) { const p = F[l].person; o[l] = {first: f(p.first_name),
      last: f(p.last_name)} } console.log(JSON.stringify(o)) })' > fakerjs.json
    python research/scripts/data/extract_fakerjs_names.py fakerjs.json

Kept: alphabetic title-case names that no Python Faker locale of the generator (training, test or
dev locales, plus en_US / en_GB) has, and (en_ZA) that faker-js ``en`` does not have, so the pools
share no name with any other split. en_ZA's remaining surnames mix English, Afrikaans, Indian and
Bantu names; only the Bantu ones are kept (``EN_ZA_BANTU``, chosen by hand).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from faker import Faker

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import make_pii_set as m  # noqa: E402

EN_ZA_BANTU = {"Baloyi", "Bongo", "Dhlamini", "Khumalu", "Letsoalo", "Mabunda", "Maluleke", "Modise",
               "Mofokeng", "Mokwena", "Molefe", "Moloi", "Motaung", "Motloung", "Mphahlele", "Mudau",
               "Nhlapo", "Shongwe", "Tsabalala", "Tsotetsi", "Zondi", "Zulu", "Zuma", "Zungu", "Zwane"}


def faker_parts(loc: str) -> set[str]:
    out: set[str] = set()
    for provider in Faker(loc).get_providers():
        for attr in dir(provider):
            if attr.startswith(("first_name", "last_name", "first_romanized", "last_romanized")):
                value = getattr(provider, attr)
                if callable(value):
                    continue
                for x in (list(value) if isinstance(value, dict | list | tuple) else []):
                    if isinstance(x, str):
                        out.add(x.lower())
                        out.update(y.lower() for y in re.split(r"[- ]", x) if y)
    return out


def main(path: str) -> None:
    d = json.loads(Path(path).read_text(encoding="utf-8"))
    known: set[str] = set()
    for loc in [*m.GROUPS, *m.DEV_LOCALES, "en_US", "en_GB"]:
        known |= faker_parts(loc)
    english = {x.lower() for kind in ("first", "last") for x in d["en"][kind]}

    def keep(names: list[str], *, drop_english: bool = False) -> list[str]:
        return sorted({n for n in names if n.isalpha() and n[:1].isupper() and n[1:].islower()
                       and n.lower() not in known and not (drop_english and n.lower() in english)})

    south_first = keep(d["zu_ZA"]["first"]) + keep(d["en_ZA"]["first"], drop_english=True)
    south_last = keep(d["zu_ZA"]["last"]) + [n for n in keep(d["en_ZA"]["last"], drop_english=True)
                                             if n in EN_ZA_BANTU]
    out = {
        "source": "@faker-js/faker 10.6.0 (MIT), person.first_name / last_name; see SOURCE.md",
        "african-south": {"first": sorted(set(south_first)), "last": sorted(set(south_last))},
        "african-west": {"first": keep(d["fr_SN"]["first"]), "last": keep(d["fr_SN"]["last"])},
    }
    target = Path(__file__).with_name("fakerjs_african_names.json")
    target.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for g in ("african-south", "african-west"):
        print(g, {k: len(v) for k, v in out[g].items()})


if __name__ == "__main__":
    main(sys.argv[1])
