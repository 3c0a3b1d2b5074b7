"""Leak of out-of-vocabulary surnames through their proxies: how often the release is the
name's own first two letters, one of its 2-letter pieces, or shares its first letter
(before/after the two-letter rule of leakguard.oov_variants). Usage: python oov_name_leaks.py before|after
Faker surnames of 8 locales (seeded); 10 records each; seed 1."""
import sys

from faker import Faker

import embedanon.leakguard as lg

before = sys.argv[1] == "before"
if before:
    import embedanon.pipeline.runtime as r
    import embedanon.vectors.compose as c
    import embedanon.vectors.index as ix
    c.oov_variants = lg.keys_are_variants; ix.oov_variants = lg.keys_are_variants; r.oov_variants = lg.keys_are_variants
from embedanon import Anonymizer
from embedanon.text import lookup_key

names=set()
for loc in ["pl_PL","fi_FI","zu_ZA","vi_VN","tr_TR","hu_HU","cs_CZ","id_ID"]:
    f=Faker(loc); f.seed_instance(7)
    for _ in range(60): names.add(f.last_name())
for mech, params in [("exponential", {"epsilon": 14.0}), ("knn", {})]:
    a=Anonymizer(mechanism=mech, seed=1, **params)
    oov=[n for n in sorted(names) if n.isalpha() and a.runtime.store.id_of(lookup_key(n))<0]
    first2=piece2=first1=total=0
    for n in oov:
        for f in range(10):
            out=lookup_key(a.anonymize(n, field=str(f)))
            k=lookup_key(n); total+=1
            first2 += out==k[:2]; piece2 += len(out)==2 and out in k; first1 += out[:1]==k[:1]
    print(sys.argv[1], mech, f"{len(oov)} OOV surnames x10: output == first two letters {first2/total:.3f}, a 2-letter piece {piece2/total:.3f}, same first letter {first1/total:.3f}")
