"""Block word game (``word_membership``) against the note-by-note reference on real IMDB text
(decision 0377).

Usage: ``python measure.py MECHANISM EPSILON sentences|reviews SIZES [LARGEST_SIZE_FOR_THE_REFERENCE]``
(SIZES comma-separated; ``FIRST=reference`` runs the reference first at each size). Records
are IMDB test reviews, or their sentences of 3 words or more, in
file order; the release is ``MECHANISM`` under seed 1, a second release (fresh key) under seed 2.
Prints per size and number of releases the AUC of both games, whether they are equal, and their
seconds; never text.
"""

from __future__ import annotations

import csv
import lzma
import os
import re
import sys
import time

from embedanon.pipeline.anonymizer import Anonymizer
from embedanon.privacy.attacks import membership
from embedanon.privacy.attacks.likelihood import likelihood_for

IMDB = "/work/shared/data/imdb/imdb_test.csv.xz"
#: which game runs first at each size (``FIRST=reference`` in the environment: the reference)
FIRST = os.environ.get("FIRST", "block")


def records(kind: str, count: int) -> list[str]:
    rows: list[str] = []
    with lzma.open(IMDB, "rt", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            text = row["text"].replace("<br />", " ")
            if kind == "sentences":
                rows.extend(s for s in re.split(r"(?<=[.!?])\s+", text) if len(s.split()) >= 3)
            else:
                rows.append(text)
            if len(rows) >= count:
                break
    return rows[:count]


def main() -> None:
    mechanism, epsilon, kind = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    sizes = [int(s) for s in sys.argv[4].split(",")]
    reference_up_to = int(sys.argv[5]) if len(sys.argv) > 5 else max(sizes)
    texts = records(kind, max(sizes))
    params = {} if mechanism == "knn" else {"epsilon": epsilon}
    anonymizers = [Anonymizer(mechanism=mechanism, seed=seed, **params) for seed in (1, 2)]
    releases = [list(a.anonymize_many(texts)) for a in anonymizers]
    runtime = anonymizers[0].runtime
    store = runtime.index.store
    exact = hasattr(anonymizers[0].mechanism, "distribution")
    law = (likelihood_for(anonymizers[0].mechanism, runtime.index).pairs if exact
           else membership.verbatim_evidence(store.words))
    for n in sizes:
        for more in ([], [releases[1][:n]]):
            args = {"pairs": law, "id_of": store.id_of, "seed": 3, "more": more}
            line = f"{mechanism} {epsilon:g} {kind} n={n} releases={1 + len(more)}:"
            reference = None
            if n <= reference_up_to and FIRST == "reference":  # the law's caches warm for the second
                started = time.perf_counter()
                reference = membership.word_membership_reference(texts[:n], releases[0][:n], **args)
                line += f" reference {reference!r} {time.perf_counter() - started:.2f}s"
            started = time.perf_counter()
            fast = membership.word_membership(texts[:n], releases[0][:n], **args)
            line += f" block {fast!r} {time.perf_counter() - started:.2f}s"
            if n <= reference_up_to and FIRST != "reference":
                started = time.perf_counter()
                reference = membership.word_membership_reference(texts[:n], releases[0][:n], **args)
                line += f" reference {reference!r} {time.perf_counter() - started:.2f}s"
            if reference is not None:
                line += f" equal={fast == reference}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
