"""Utility against privacy on MTSamples: classify the medical specialty of anonymized notes.

For each setting (no anonymization, knn with several k, exponential and laplace at several
epsilon) the script anonymizes the notes, trains a TF-IDF + logistic-regression classifier
(5-fold CV, embedanon.utility) and measures privacy (word change rate over all notes; N_w, S_w
and the Bayes re-identification attack on the first notes, embedanon.privacy).

    .venv/bin/python research/utility_vs_privacy.py [--data ../shared/data] [--per-class 150]

Writes research/utility_vs_privacy.json and .md. Needs ../shared/data (MTSamples); it is an
experiment, not a test.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import sys
import time
from pathlib import Path

from embedanon import Anonymizer
from embedanon.privacy import change_stats, privacy_report
from embedanon.utility import evaluate_utility

HERE = Path(__file__).resolve().parent
SPECIALTIES = ["Cardiovascular / Pulmonary", "Orthopedic", "Gastroenterology", "Neurology",
               "Obstetrics / Gynecology", "Urology"]
SETTINGS: list[tuple[str, dict]] = [
    ("knn k=5", {"mechanism": "knn", "k": 5}),
    ("knn k=10", {"mechanism": "knn", "k": 10}),
    ("knn k=20", {"mechanism": "knn", "k": 20}),
    ("exponential eps=12", {"mechanism": "exponential", "epsilon": 12.0}),
    ("exponential eps=14", {"mechanism": "exponential", "epsilon": 14.0}),
    ("exponential eps=16", {"mechanism": "exponential", "epsilon": 16.0}),
    ("laplace eps=60", {"mechanism": "laplace", "epsilon": 60.0}),
    ("laplace eps=80", {"mechanism": "laplace", "epsilon": 80.0}),
]


def load_notes(data: Path, per_class: int) -> tuple[list[str], list[str]]:
    csv.field_size_limit(1 << 30)
    docs, labels, counts = [], [], dict.fromkeys(SPECIALTIES, 0)
    with gzip.open(data / "mtsamples" / "mtsamples.csv.gz", "rt", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            label = row["medical_specialty"].strip()
            text = " ".join(row["transcription"].split())
            if label in counts and text and counts[label] < per_class:
                counts[label] += 1
                docs.append(text)
                labels.append(label)
    return docs, labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=HERE.parents[1] / "shared" / "data")
    parser.add_argument("--per-class", type=int, default=150)
    parser.add_argument("--attack-docs", type=int, default=25)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2020)
    args = parser.parse_args()
    if not (args.data / "mtsamples").is_dir():
        sys.exit(f"MTSamples not found under {args.data}")
    docs, labels = load_notes(args.data, args.per_class)
    print(f"{len(docs)} notes, {len(set(labels))} specialties", file=sys.stderr)
    rows = []
    base = evaluate_utility(docs, None, labels, seed=args.seed)[0]
    rows.append({"setting": "original", "macro_f1_aa": base.macro_f1, "macro_f1_ao": base.macro_f1,
                 "change_rate": 0.0, "n_w": 1.0, "s_w": 1.0, "attack_uniform": 1.0,
                 "attack_corpus": 1.0, "seconds": 0.0})
    for name, params in SETTINGS:
        start = time.time()
        anon = Anonymizer(seed=args.seed, **params)
        outs = list(anon.anonymize_many(docs, jobs=args.jobs))
        seconds = time.time() - start
        pairs = zip(docs, outs, strict=True)
        change = sum((change_stats(a, b) for a, b in pairs), start=change_stats("", ""))
        _, aa, ao = evaluate_utility(docs, outs, labels, seed=args.seed)
        report = privacy_report(docs[: args.attack_docs], Anonymizer(seed=args.seed + 1, **params),
                                draws=50, max_words=200, mc_draws=50)
        rows.append({"setting": name, "macro_f1_aa": aa.macro_f1, "macro_f1_ao": ao.macro_f1,
                     "change_rate": change.change_rate, "n_w": report.n_w_mean, "s_w": report.s_w_mean,
                     "attack_uniform": report.attack_uniform.success,
                     "attack_corpus": report.attack_corpus.success, "seconds": seconds})
        print(json.dumps(rows[-1]), file=sys.stderr)
    (HERE / "utility_vs_privacy.json").write_text(json.dumps(
        {"notes": len(docs), "specialties": SPECIALTIES, "seed": args.seed, "rows": rows}, indent=2) + "\n")
    lines = ["| setting | macro-F1 anon→anon | macro-F1 anon→orig | word change rate | N_w | S_w (50 draws) "
             "| attack top-1 (uniform prior) | attack top-1 (corpus prior) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['setting']} | {r['macro_f1_aa']:.3f} | {r['macro_f1_ao']:.3f} | "
                     f"{r['change_rate']:.3f} | {r['n_w']:.3f} | {r['s_w']:.1f} | "
                     f"{r['attack_uniform']:.3f} | {r['attack_corpus']:.3f} |")
    (HERE / "utility_vs_privacy.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
