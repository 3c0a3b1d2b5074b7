"""Copy-forward: sentences repeated across the records of one release, by record and by sentence.

Clinical notes copy text forward: a follow-up note repeats sentences of the note before it. With
``noise_unit="record"`` (the default) each record's text addresses its noise, so every copy of a
sentence is a fresh draw, and an attacker who lines the copies up (same length and layout, same
place in the note) holds N draws of each word: the multi-release attack of ``privacy-report``.
With ``noise_unit="sentence"`` every copy is released the same way, so the copies add nothing.

Corpus: 200 MTSamples *Orthopedic* transcriptions (first 1,500 characters, seed 91); each note is
released with a follow-up note built from 60 % of its sentences (in order) and the sentences of
another note, in one release (key: seed 11). The attack (knn k = 10, public prior) runs on the
copied sentences: their release inside the note, and inside the follow-up.

    .venv/bin/python research/privacy/copy_forward.py --out research/privacy/copy-forward.json
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
from pathlib import Path

from embedanon import Anonymizer
from embedanon.pipeline.document import sentence_units
from embedanon.privacy.attacks import PosteriorAttack, likelihood_for
from embedanon.privacy.attacks.multirelease import multi_release
from embedanon.privacy.prior import embedding_vocabulary, public_prior

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


def notes() -> list[str]:
    with gzip.open(DATA / "mtsamples" / "mtsamples.csv.gz", "rt", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    texts = [" ".join(r["transcription"].split()) for r in rows
             if r["medical_specialty"].strip() == "Orthopedic" and r["transcription"].strip()]
    texts = list(dict.fromkeys(texts))
    random.Random(91).shuffle(texts)
    return [t[:1500] for t in texts[:200]]


def released_slice(anon: Anonymizer, record: str, a: int, b: int) -> str:
    """The released text of ``record[a:b]`` (whole words), from the document's items."""
    doc = anon.anonymize_document(record)
    inside = [it for it in doc.items if a <= it.start and it.end <= b]
    if not inside:
        return record[a:b]
    first, last = inside[0], inside[-1]
    return record[a:first.start] + doc.text[first.new_start : last.new_end] + record[last.end : b]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    texts = notes()
    rng = random.Random(7)
    pairs = []  # (note, follow-up, the copied sentences as (offset in note, offset in follow-up))
    for i, note in enumerate(texts):
        units = [note[a:b].strip() for a, b in sentence_units(note)]
        keep = [u for u in units if rng.random() < 0.6]
        other = texts[(i + 1) % len(texts)]
        extra = [other[a:b].strip() for a, b in sentence_units(other)][:3]
        follow = " ".join(keep + extra)
        pairs.append((note, follow, keep))
    out: dict = {"corpus": "200 MTSamples Orthopedic notes (1,500 chars, seed 91), follow-ups copying 60 % "
                           "of each note's sentences (seed 7)", "mechanism": "knn k=10", "key": "seed 11"}
    for unit in ("record", "sentence"):
        anon = Anonymizer(seed=11, noise_unit=unit)
        originals, first, second = [], [], []
        for note, follow, keep in pairs:
            for sentence in keep:
                a = note.index(sentence)
                c = follow.index(sentence)
                originals.append(sentence)
                first.append(released_slice(anon, note, a, a + len(sentence)))
                second.append(released_slice(anon, follow, c, c + len(sentence)))
        store = anon.runtime.index.store
        attack = PosteriorAttack(likelihood_for(anon.mechanism, anon.runtime.index),
                                 embedding_vocabulary(store, public_prior(store)), store.words,
                                 guarded=not getattr(anon.mechanism, "may_return_input", False))
        figs = multi_release(originals, [first, second], attack, store, counts=(1, 2))
        out[unit] = {"copied_sentences": len(originals),
                     "identical_copies": sum(x == y for x, y in zip(first, second, strict=True)),
                     "figures": [f.as_dict() for f in figs]}
        print(unit, out[unit])
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
