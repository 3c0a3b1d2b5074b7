"""Choose the record-pooled attack's record share on development notes (issue: within-record pooling).

The pooled attack (``embedanon.privacy.attacks.pooled``) mixes each record's own released words
into the attack's prior with a fixed share. The share is chosen here, on 200 MTSamples
*Cardiovascular / Pulmonary* transcriptions (first 1,500 characters, seed 77; none of them a note
of the *Surgery* release that ``domain_prior.py`` reports on), among 0.1, 0.25 and 0.5: the
share with the highest top-1 of the release-fitted prior pooled, summed over knn and exponential
ε=14 (release key: seed 11). The figures on the Surgery release are in ``domain-prior.json``.

    .venv/bin/python research/privacy/record_pooling.py --out research/privacy/record-pooling-dev.json
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import sys
from pathlib import Path

import numpy as np

from embedanon import Anonymizer
from embedanon.privacy.attacks import PosteriorAttack, corpus_slots, likelihood_for
from embedanon.privacy.attacks.bayes import release_prior
from embedanon.privacy.attacks.pooled import record_pooled_run
from embedanon.privacy.prior import embedding_vocabulary, public_prior

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
SHARES = (0.1, 0.25, 0.5)


def dev_notes() -> list[str]:
    with gzip.open(DATA / "mtsamples" / "mtsamples.csv.gz", "rt", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    def text(r: dict[str, str]) -> str:
        return " ".join(r["transcription"].split())

    surgery = {text(r) for r in rows if r["medical_specialty"].strip() == "Surgery"}
    cardio = "Cardiovascular / Pulmonary"
    notes = [text(r) for r in rows if r["medical_specialty"].strip() == cardio and r["transcription"].strip()]
    notes = [t for t in notes if t not in surgery]
    random.Random(77).shuffle(notes)
    return [t[:1500] for t in notes[:200]]


def figures(texts: list[str], mechanism: str, epsilon: float | None) -> dict[str, float]:
    kw: dict = {"mechanism": mechanism, "seed": 11}
    if epsilon is not None:
        kw["epsilon"] = epsilon
    anon = Anonymizer(**kw)
    released = [anon.anonymize(t) for t in texts]
    store = anon.runtime.index.store
    likelihood = likelihood_for(anon.mechanism, anon.runtime.index)
    guarded = not getattr(anon.mechanism, "may_return_input", False)
    docs = corpus_slots(texts, released, store)

    def attack(prior: np.ndarray) -> PosteriorAttack:
        return PosteriorAttack(likelihood, embedding_vocabulary(store, prior), store.words, guarded=guarded)

    inv = [s for d in docs for sent in d for s in sent if s.released_id >= 0 and s.original_id >= 0]
    xs = [s.original_id for s in inv]
    ys = np.array([s.released_id for s in inv], dtype=np.int64)
    public = attack(public_prior(store))
    fitted = attack(release_prior(attack(np.full(len(store), 1.0 / len(store))), ys, public_prior(store)))
    records = []
    for d in docs:
        slots = [s for sent in d for s in sent if s.released_id >= 0]
        truths = [s.original_id if s.original_id >= 0 else -2 for s in slots]
        released_ids = np.array([s.released_id for s in slots], dtype=np.int64)
        records.append((released_ids, np.array(truths, dtype=np.int64)))
    out = {"tokens": len(xs), "public": public.run(xs, ys).rate(1), "fitted": fitted.run(xs, ys).rate(1)}
    for share in SHARES:
        out[f"public pooled {share}"] = record_pooled_run(public, records, share=share).rate(1)
        out[f"fitted pooled {share}"] = record_pooled_run(fitted, records, share=share).rate(1)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    texts = dev_notes()
    results: dict = {"notes": len(texts), "seed": 77, "release_seed": 11}
    for label, mech, eps in (("knn", "knn", None), ("exponential-14", "exponential", 14.0)):
        results[label] = figures(texts, mech, eps)
        print(label, {k: round(v, 3) for k, v in results[label].items()}, file=sys.stderr)
    results["chosen_share"] = max(SHARES, key=lambda s: sum(results[m][f"fitted pooled {s}"]
                                                            for m in ("knn", "exponential-14")))
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
