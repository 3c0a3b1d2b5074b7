"""Upstream utility: word2vec on original vs knn-anonymized text (issue 8, item 4).

Corpora (../shared/data): a seeded sample of the biomedical sentences and of IMDB's unlabelled
reviews. Each is anonymized with knn (k = 5, 10, 20, seed 0), and skip-gram word2vec (100-d,
window 5, min_count 5, 5 epochs, seed 0, one worker) is trained on the original and on each
release; every model is scored on WordSim-353, SimLex-999 and the Google analogies
(embedanon.utility.upstream). Writes research/upstream/results.json and results.md.

    nice .venv/bin/python research/upstream/run.py [--sentences 40000] [--reviews 4000]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
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
        "biomed-sentences": read_lines(
            args.data / "biomed-sentences" / "biomed_sentences.txt.gz", limit=args.sentences
        ),
        "imdb-unsup": read_csv_texts(
            args.data / "imdb" / "imdb_unsup.csv.xz", column="text", limit=args.reviews
        ),
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
        models, seconds = {}, {}
        for release, docs in releases.items():
            start = time.perf_counter()
            models[release] = train_word2vec(docs, seed=0)
            seconds[release] = time.perf_counter() - start
        # the same items for every release of a corpus: those whose words every model knows
        common = set.intersection(*(set(m.index_to_key[:30_000]) for m in models.values()))
        with tempfile.TemporaryDirectory() as workdir:
            for release, model in models.items():
                own = evaluate_word_vectors(model, testdata)
                same = evaluate_word_vectors(model, testdata, vocabulary=common, workdir=workdir)
                rows.append(
                    {
                        "corpus": name,
                        "texts": len(texts),
                        "tokens": n_tokens,
                        "release": release,
                        **asdict(own),
                        **{f"common_{k}": v for k, v in asdict(same).items()},
                        "train_seconds": seconds[release],
                    }
                )
                print(json.dumps(rows[-1]), file=sys.stderr)
    (HERE / "results.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    lines = [
        "Scored on the items whose words all releases' models of the corpus know (WordSim-353 and "
        "SimLex-999 Spearman ρ, analogy accuracy; pairs/questions in brackets), then on each model's own "
        "coverage.",
        "",
        "| corpus | release | WordSim ρ (common) | SimLex ρ (common) | analogies (common) | "
        "WordSim ρ (own coverage) | SimLex ρ (own) | analogies (own) | vocabulary |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        c = {k.removeprefix("common_"): v for k, v in r.items() if k.startswith("common_")}
        lines.append(
            f"| {r['corpus']} ({r['tokens'] / 1e6:.2f}M tokens) | {r['release']} | "
            f"{c['wordsim_spearman']:.3f} ({c['wordsim_pairs']}) | {c['simlex_spearman']:.3f} "
            f"({c['simlex_pairs']}) | {c['analogy_accuracy']:.3f} "
            f"({c['analogy_questions']}) | {r['wordsim_spearman']:.3f} ({1 - r['wordsim_oov']:.0%}) | "
            f"{r['simlex_spearman']:.3f} ({1 - r['simlex_oov']:.0%}) | "
            f"{r['analogy_accuracy']:.3f} ({r['analogy_questions']}) | {r['vocabulary']} |"
        )
    (HERE / "results.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
