"""Decision 0379: does pooling notes into one AUC misstate the word membership game?

Usage: ``python measure.py MECHANISM EPSILON N`` (EPSILON ignored for knn).

N IMDB test sentences of 3-12 words (file order), released under seed 1. For each note the
game's member score (best record of the release) and outsider score (best record without its
own) are recomputed as ``word_membership`` does (no sampling at this size), then:

* pooled: the game's AUC (every member score against every outsider score, one threshold);
* off-diagonal: the same without the pairs of a note with itself;
* calibrated: an attacker who knows the tool subtracts from each score the note's own expected
  score, estimated by releasing the note four more times under its own keys (seeds 2-5);
* paired: P(member > outsider) of the same note, ties one half (an oracle that knows each note's
  outsider score: a ceiling, not an attack).

Prints the four AUCs; no text.
"""

from __future__ import annotations

import csv
import lzma
import re
import sys

import numpy as np

from embedanon.pipeline.anonymizer import Anonymizer
from embedanon.privacy.attacks import membership
from embedanon.privacy.attacks.likelihood import likelihood_for

IMDB = "/work/shared/data/imdb/imdb_test.csv.xz"


def sentences(count: int) -> list[str]:
    rows: list[str] = []
    with lzma.open(IMDB, "rt", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            text = row["text"].replace("<br />", " ")
            rows.extend(s for s in re.split(r"(?<=[.!?])\s+", text) if 3 <= len(s.split()) <= 12)
            if len(rows) >= count:
                break
    return rows[:count]


def main() -> None:
    mechanism, epsilon, n = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    texts = sentences(n)
    params = {} if mechanism == "knn" else {"epsilon": epsilon}
    anonymizers = [Anonymizer(mechanism=mechanism, seed=seed, **params) for seed in (1, 2, 3, 4, 5)]
    released, *simulated = [list(a.anonymize_many(texts)) for a in anonymizers]
    runtime = anonymizers[0].runtime
    store = runtime.index.store
    law = likelihood_for(anonymizers[0].mechanism, runtime.index).pairs
    notes = [membership._word_ids(t, store.id_of) for t in texts]
    records = [membership._word_ids(t, store.id_of) for t in released]
    own_draws = [[membership._word_ids(t, store.id_of) for t in release] for release in simulated]
    by_length: dict[int, list[int]] = {}
    for j, ids in enumerate(records):
        by_length.setdefault(len(ids), []).append(j)
    floor = membership._FLOOR
    members, outsiders, expected = [], [], []
    for i, note in enumerate(notes):
        others = [j for j in by_length.get(len(note), ()) if j != i]
        fits_own = len(records[i]) == len(note)
        chosen = [i, *others] if fits_own else others
        if not len(note) or not chosen:
            members.append(floor)
            outsiders.append(floor)
            expected.append(0.0)
            continue
        scores = membership._word_scores(note, [records[j] for j in chosen], law, False)
        rest = scores[1:] if fits_own else scores
        outsider = float(rest.max()) if len(rest) else floor
        members.append(max(float(scores[0]) if fits_own else floor, outsider))
        outsiders.append(outsider)
        draws = [float(membership._word_scores(note, [d[i]], law, False)[0])
                 if len(d[i]) == len(note) else 0.0 for d in own_draws]
        expected.append(float(np.mean(draws)))
    m, o, e = np.array(members), np.array(outsiders), np.array(expected)
    pooled = membership.mann_whitney_auc(m, o)
    diagonal = (m > o) + 0.5 * (m == o)
    off = (pooled * n * n - diagonal.sum()) / (n * n - n)
    game = membership.word_membership(texts, released, pairs=law, id_of=store.id_of)
    print(f"{mechanism} {epsilon:g} n={n}: game {game:.4f} pooled {pooled:.4f} off-diagonal {off:.4f} "
          f"calibrated {membership.mann_whitney_auc(m - e, o - e):.4f} paired {float(diagonal.mean()):.4f}")


if __name__ == "__main__":
    main()
