"""Name survival by culture group: how often an injected name part comes back unchanged.

Same data as ``attacks.py`` (``--docs`` MTSamples notes, two injected Faker names each, seed 9) and
its first release (``Anonymizer(seed=1000)``, full scope). A name part *survives* when its released
word has the same lookup key as the original. Counts and rates only.

Usage: ``nice .venv/bin/python research/privacy/name_survival.py [--docs 200]``
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from attacks import inject_names, load_notes

from embedanon import Anonymizer
from embedanon.privacy.attacks import corpus_slots

HERE = Path(__file__).resolve().parent
SETTINGS = {"knn": {"k": 10}, "exponential": {"epsilon": 14.0}, "tem": {"epsilon": 14.0}}


def survival(mechanism: str, params: dict, texts: list[str], spans: list) -> dict:
    anon = Anonymizer(mechanism=mechanism, seed=1000, **params)
    release = list(anon.anonymize_many(texts))
    store = anon.runtime.store
    counts: dict[str, list[int]] = {}
    for doc, doc_spans in zip(corpus_slots(texts, release, store), spans, strict=True):
        for slot in (s for sent in doc for s in sent):
            group = next((g for a, b, g in doc_spans if a <= slot.start < b), None)
            if group is None:
                continue
            same = slot.released_id >= 0 and store.words[slot.released_id] == slot.key
            for g in ("all", group):
                c = counts.setdefault(g, [0, 0])
                c[0] += 1
                c[1] += int(same)
    return {g: {"tokens": n, "survived": s, "rate": s / n} for g, (n, s) in sorted(counts.items())}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--chars", type=int, default=1500)
    args = parser.parse_args()
    texts, spans = inject_names(load_notes(args.docs, args.chars, seed=9), seed=9)
    runs = {m: {"params": p, "groups": survival(m, p, texts, spans)} for m, p in SETTINGS.items()}
    result = {"docs": args.docs, "release_seed": 1000, "mechanisms": runs}
    (HERE / "name-survival.json").write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
