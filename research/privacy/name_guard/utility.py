"""Decision 0380: what hybrid scope's name guard costs classifiers (real corpora of ../shared/data).

Each corpus (a stratified sample, seed 0) is released in scope hybrid with the exponential
mechanism at epsilon 14 (key: experiment seed 31) with the name guard off and on; the same
texts, key and detectors. Reported: the share of word parts the guard redrew, and 3-fold
cross-validated TF-IDF + logistic-regression macro-F1 and accuracy, trained and tested on each
release (``anonymized -> anonymized``) beside the original text.

    PYTHONPATH=src python research/privacy/name_guard/utility.py [--data DIR] [--limit N] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path

from embedanon import Anonymizer
from embedanon.utility.classify import evaluate_utility
from embedanon.utility.datasets import load_dataset

CORPORA = [("ag-news", "ag-news/test.csv"), ("mtsamples", "mtsamples/mtsamples.csv.gz"),
           ("pubmed", "pubmed-5term/pubmed.csv"), ("imdb", "imdb/imdb_train.csv.xz")]


def release(texts: list[str], guard: bool) -> tuple[list[str], int, int]:
    anonymizer = Anonymizer(mechanism="exponential", epsilon=14.0, seed=31, scope="hybrid",
                            detectors="model,regex")
    anonymizer.config = replace(anonymizer.config,
                                scope=replace(anonymizer.config.scope, name_guard=guard))
    docs = anonymizer.anonymize_many_documents(texts) if hasattr(anonymizer, "anonymize_many_documents") \
        else [anonymizer.anonymize_document(t) for t in texts]
    guarded = sum(it.kind == "guard" for d in docs for it in d.items)
    words = sum(it.kind in ("word", "guard") for d in docs for it in d.items)
    return [d.text for d in docs], guarded, words


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=1000)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--data", type=Path, default=Path("../shared/data"), help="the shared data folder")
    args = ap.parse_args()
    rows = []
    for name, path in CORPORA:
        ds = load_dataset(name, args.data / path, limit=args.limit, seed=0, per_class=3)
        texts, labels = list(ds.texts), list(ds.labels)
        row: dict[str, object] = {"corpus": name, "documents": len(texts)}
        base = evaluate_utility(texts, None, labels, folds=3, seed=0)[0]
        row["original"] = {"macro_f1": round(base.macro_f1, 4), "accuracy": round(base.accuracy, 4)}
        for guard in (False, True):
            t0 = time.time()
            out, guarded, words = release(texts, guard)
            res = evaluate_utility(texts, out, labels, folds=3, seed=0)[1]
            row["guard" if guard else "no_guard"] = {
                "macro_f1": round(res.macro_f1, 4), "accuracy": round(res.accuracy, 4),
                "guarded_words": guarded, "word_parts": words, "seconds": round(time.time() - t0, 1)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
