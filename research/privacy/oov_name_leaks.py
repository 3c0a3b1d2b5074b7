"""Leak of out-of-vocabulary surnames through their proxies: how often the release is the name's own
first two letters, one of its 2-letter pieces, or shares its first letter, before and after the
two-letter rule of ``embedanon.leakguard.oov_variants``.

Usage: ``python research/privacy/oov_name_leaks.py before|after`` (Faker surnames of 8 locales,
seeded; 10 records each; seed 1). Results: ``oov_name_leaks.txt``.
"""

from __future__ import annotations

import sys

from faker import Faker

import embedanon.leakguard as leakguard
import embedanon.pipeline.runtime as runtime
import embedanon.vectors.compose as compose
import embedanon.vectors.index as index
from embedanon import Anonymizer
from embedanon.text import lookup_key

LOCALES = ["pl_PL", "fi_FI", "zu_ZA", "vi_VN", "tr_TR", "hu_HU", "cs_CZ", "id_ID"]


def main(mode: str) -> None:
    if mode == "before":  # the rules before the fix: variants only
        for module in (compose, index, runtime):
            module.oov_variants = leakguard.keys_are_variants  # type: ignore[attr-defined]
    names: set[str] = set()
    for locale in LOCALES:
        fake = Faker(locale)
        fake.seed_instance(7)
        names.update(fake.last_name() for _ in range(60))
    for mechanism, params in [("exponential", {"epsilon": 14.0}), ("knn", {})]:
        anon = Anonymizer(mechanism=mechanism, seed=1, **params)
        oov = [n for n in sorted(names) if n.isalpha() and anon.runtime.store.id_of(lookup_key(n)) < 0]
        first2 = piece2 = first1 = total = 0
        for name in oov:
            key = lookup_key(name)
            for record in range(10):
                out = lookup_key(anon.anonymize(name, field=str(record)))
                total += 1
                first2 += out == key[:2]
                piece2 += len(out) == 2 and out in key
                first1 += out[:1] == key[:1]
        print(f"{mode} {mechanism}: {len(oov)} OOV surnames x 10: output == first two letters "
              f"{first2 / total:.3f}, a 2-letter piece {piece2 / total:.3f}, same first letter "
              f"{first1 / total:.3f}")


if __name__ == "__main__":
    main(sys.argv[1])
