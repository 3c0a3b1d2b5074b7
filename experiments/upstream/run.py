"""Upstream utility: word2vec on original vs knn-anonymized text (issue 8, item 4).

Corpora (../shared/data): a seeded sample of the biomedical sentences and of IMDB's unlabelled
reviews. Each is anonymized with knn (k = 5, 10, 20, seed 0), and skip-gram word2vec (100-d,
window 5, min_count 5, 5 epochs, seed 0, one worker) is trained on the original and on each
release; every model is scored on WordSim-353, SimLex-999 and the Google analogies
(embedanon.utility.upstream). Writes experiments/upstream/results.json and results.md.

    nice .venv/bin/python experiments/upstream/run.py [--sentences 40000] [--reviews 4000]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

from embedanon import Anonymizer
from embedanon.utility.upstream import (
    anonymize_texts,
    evaluate_word_vectors,
    read_csv_texts,
    read_lines,
    tokens,
    train_word2vec,
)

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[2] / "shared" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SHARED)
    parser.add_argument("--sentences", type=int, default=40_000)
    parser.add_argument("--reviews", type=int, default=4_000)
    parser.add_argument("--k", type=int, nargs="+", default=[5, 10, 20])
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    corpora = {
        "biomed-sentences": read_lines(args.data / "biomed-sentences" / "biomed_sentences.txt.gz",
                                       limit=args.sentences),
        "imdb-unsup": read_csv_texts(args.data / "imdb" / "imdb_unsup.csv.xz", column="text",
                                     limit=args.reviews),
    }
    testdata = args.data / "gensim-testdata"
    rows = []
    for name, texts in corpora.items():
        n_tokens = sum(len(tokens(t)) for t in texts)
        releases = {"original": texts}
        for k in args.k:
            start = time.perf_counter()
            releases[f"knn k={k}"] = anonymize_texts(texts, Anonymizer(k=k, seed=0), jobs=args.jobs)
            print(f"{name}: anonymized knn k={k} in {time.perf_counter() - start:.0f} s", file=sys.stderr)
        for release, docs in releases.items():
            start = time.perf_counter()
            scores = evaluate_word_vectors(train_word2vec(docs, seed=0), testdata)
            rows.append({"corpus": name, "texts": len(texts), "tokens": n_tokens, "release": release,
                         **asdict(scores), "train_seconds": time.perf_counter() - start})
            print(json.dumps(rows[-1]), file=sys.stderr)
    (HERE / "results.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    lines = ["| corpus | release | WordSim-353 ρ (pairs covered) | SimLex-999 ρ (covered) | analogies acc. "
             "(questions) | vocabulary |", "|---|---|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['corpus']} ({r['tokens'] / 1e6:.2f}M tokens) | {r['release']} | "
                     f"{r['wordsim_spearman']:.3f} ({1 - r['wordsim_oov']:.0%}) | "
                     f"{r['simlex_spearman']:.3f} ({1 - r['simlex_oov']:.0%}) | "
                     f"{r['analogy_accuracy']:.3f} ({r['analogy_questions']}) | {r['vocabulary']} |")
    (HERE / "results.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
