"""Decision 0374: the membership word game over 1, 2, 3 and 5 releases under fresh keys.

    PYTHONPATH=src python research/privacy/membership-releases/measure.py

200 MTSamples descriptions (short texts, so layouts often tie; shuffled with seed 3), the
exponential mechanism at two epsilons, keys from seeds 0-4; prints the word game's AUC.
"""

from __future__ import annotations

import csv
import gzip
import io
import random
from pathlib import Path

from embedanon import Anonymizer
from embedanon.privacy.attacks.likelihood import likelihood_for
from embedanon.privacy.attacks.membership import word_membership

DATA = Path("/work/shared/data/mtsamples/mtsamples.csv.gz")


def main() -> None:
    with gzip.open(DATA) as raw:
        rows = list(csv.DictReader(io.TextIOWrapper(raw, encoding="utf-8")))
    random.Random(3).shuffle(rows)
    texts = [r["description"].strip() for r in rows if r.get("description", "").strip()][:200]
    for eps in (3.0, 6.0):
        anons = [Anonymizer(mechanism="exponential", epsilon=eps, seed=s) for s in range(5)]
        pubs = [list(a.anonymize_many(texts)) for a in anons]
        law = likelihood_for(anons[0].mechanism, anons[0].runtime.index, neighbors=200)
        id_of = anons[0].runtime.index.store.id_of
        aucs = [round(word_membership(texts, pubs[0], pairs=law.pairs, id_of=id_of, more=pubs[1:n]), 3)
                for n in (1, 2, 3, 5)]
        print("eps", eps, "word AUC with 1, 2, 3, 5 releases:", aucs)


if __name__ == "__main__":
    main()
