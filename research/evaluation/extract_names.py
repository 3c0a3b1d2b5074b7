"""Rebuild ``data/names.json``: the injection name pools of the real-text evaluation set.

Input: the person name lists of @faker-js/faker 10.6.0 (MIT, npm), dumped with node::

    npm pack @faker-js/faker@10.6.0 && tar xzf faker-js-faker-10.6.0.tgz
    node -e 'import("./package/dist/index.js").then(F => { const f = x => x == null ? [] :
      Array.isArray(x) ? x : Object.values(x).flat(); const o = {}; for (const l of [LOCALES])
      { const p = F[l].person; o[l] = {first: f(p.first_name), last: f(p.last_name)} }
      console.log(JSON.stringify(o)) })' > fakerjs.json
    python research/evaluation/extract_names.py fakerjs.json

Kept: alphabetic (accents allowed) title-case name parts that the shipped detector's training data
could not have contained and that no other split of ``research/scripts/make_pii_set.py`` uses: no
part of any Python Faker locale the generator knows (training, held-out test and dev locales, plus
en_US / en_GB), of the faker-js pool of ``--split dev-africa``, or of the CRAPII gold names; and no
part that is one of the 20,000 most frequent English words (``Will``, ``Hope``: the set is about
names, not about word-names, which the guideline still covers where they occur in real text).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[0] / "scripts"))
sys.path.insert(0, str(HERE.parents[0] / "scripts" / "data"))
import extract_fakerjs_names as fx  # noqa: E402
import make_pii_set as m  # noqa: E402

#: culture group -> faker-js locales (first and last names drawn from the same locale)
GROUPS: dict[str, tuple[str, ...]] = {
    "american-european": ("en", "da", "nb_NO", "ro", "cs_CZ", "hr", "lv"),
    "hispanic": ("es", "es_MX", "pt_BR", "pt_PT"),
    "african": ("en_GH", "yo_NG", "en_NG"),
    "south-southeast-asian": ("en_IN", "vi", "id_ID"),
}
_NAME = re.compile(r"^[^\W\d_]+$")


def main(path: str) -> None:
    from embedanon.privacy.prior import word_frequencies

    d = json.loads(Path(path).read_text(encoding="utf-8"))
    known: set[str] = set()
    for loc in [*m.GROUPS, *m.DEV_LOCALES, "en_US", "en_GB"]:
        known |= fx.faker_parts(loc)
    known |= m.known_name_parts()  # also the dev-africa pool and CRAPII
    ranked = sorted(word_frequencies().items(), key=lambda kv: -kv[1])
    common = {w for w, _ in ranked[:20_000]}

    def keep(names: list[str]) -> list[str]:
        out = set()
        for n in names:
            parts = n.split()
            if all(_NAME.match(p) and p[:1].isupper() and p[1:].islower() and len(p) >= 3
                   and p.lower() not in known and p.lower() not in common for p in parts):
                out.add(n)
        return sorted(out)

    pools = {}
    for group, locales in GROUPS.items():
        pools[group] = {loc: {"first": keep(d[loc]["first"]), "last": keep(d[loc]["last"])}
                        for loc in locales}
    out = {"source": "@faker-js/faker 10.6.0 (MIT), person.first_name / last_name; see README.md",
           "groups": pools}
    (HERE / "data" / "names.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n",
                                              encoding="utf-8")
    for group, locs in pools.items():
        print(group, {k: (len(v["first"]), len(v["last"])) for k, v in locs.items()})


if __name__ == "__main__":
    main(sys.argv[1])
