"""Real text with no private PII as verifier training negatives: PubMed abstracts (decision 0252).

    python research/detection/verifier/make_negatives.py --n 300 --seed 20261206 \\
        --train /tmp/neg/pubmed-train.jsonl --heldout /tmp/neg/pubmed-heldout.jsonl

Draws ``2 * n`` abstracts of ``../shared/data/pubmed-5term/pubmed.csv`` (seeded shuffle) from the
documents that no evaluation record (dev, dev2, test) and no false-positive benchmark text uses,
with the benchmark's own filter (fewer than 3,000 words, no ``N-year-old`` case description), and
writes the first ``n`` as training records and the next ``n`` as a held-out set, in the span
JSONL of the evaluation set with no gold spans (``register`` ``abstract-neg``, ``doc``
``pubmed:ROW``): every span a detector flags on them is a false positive.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
REALTEXT = ROOT / "research" / "evaluation" / "realtext"
sys.path.insert(0, str(ROOT / "research" / "evaluation"))
from build_set import DATA  # noqa: E402  (../shared/data, found as the evaluation set finds it)

PUBMED = DATA / "pubmed-5term" / "pubmed.csv"


def used_documents() -> set[str]:
    """The ``doc`` keys of every evaluation record and the PubMed rows of the FP benchmark."""
    used = set()
    for split in ("dev", "dev2", "test"):
        with open(REALTEXT / f"{split}.jsonl", encoding="utf-8") as f:
            used |= {json.loads(line)["doc"] for line in f if line.strip()}
    with open(REALTEXT / "fp_benchmark.jsonl", encoding="utf-8") as f:
        for line in f:
            rid = json.loads(line)["id"]
            if rid.startswith("fp-pub-"):
                used.add(f"pubmed:{int(rid[len('fp-pub-'):])}")
    return used


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=20261206)
    ap.add_argument("--train", type=Path, required=True)
    ap.add_argument("--heldout", type=Path, required=True)
    args = ap.parse_args()
    used = used_documents()
    with open(PUBMED, encoding="utf-8") as f:
        rows = [r["abstract"] for r in csv.DictReader(f)]
    pool = [i for i, t in enumerate(rows)
            if f"pubmed:{i}" not in used and len(t.split()) < 3000 and not re.search(r"\d+-year-old", t)]
    random.Random(args.seed).shuffle(pool)
    if len(pool) < 2 * args.n:
        raise SystemExit(f"only {len(pool)} unused abstracts")
    for path, part in ((args.train, pool[: args.n]), (args.heldout, pool[args.n : 2 * args.n])):
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            for i in part:
                out.write(json.dumps({"id": f"neg-pub-{i:04d}", "text": rows[i], "spans": [],
                                      "register": "abstract-neg", "source": "pubmed-5term",
                                      "doc": f"pubmed:{i}"}) + "\n")
        print(f"{path}: {len(part)} abstracts, {sum(len(rows[i].split()) for i in part)} words")


if __name__ == "__main__":
    main()
