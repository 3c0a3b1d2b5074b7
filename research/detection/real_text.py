"""The real-text check of a candidate detector: spans it adds or removes on real unlabelled text.

1,200 MTSamples transcriptions and 1,200 IMDB *test* reviews (never a generator's text source:
the generator reads IMDB's train file), drawn with a fixed seed, run through ``model,regex`` with
two model directories. Reported, never a shipping condition (rounds 16-25). Prints counts, and
with ``--show`` the differing spans with a little context (public corpora only).

    python research/detection/real_text.py --before /tmp/shipped --after /tmp/cand --out FILE
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import lzma
import re
import sys
from pathlib import Path

import numpy as np

from embedanon.detectors.registry import build_detectors

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def draw(n: int, seed: int) -> dict[str, list[str]]:
    """``n`` MTSamples transcriptions and ``n`` IMDB test reviews, chosen by ``seed``."""
    rng = np.random.default_rng(seed)
    with gzip.open(DATA / "mtsamples" / "mtsamples.csv.gz", "rt", encoding="utf-8") as f:
        notes = [r["transcription"].strip() for r in csv.DictReader(f) if r["transcription"].strip()]
    with lzma.open(DATA / "imdb" / "imdb_test.csv.xz", "rt", encoding="utf-8") as f:
        reviews = [re.sub(r"<br\s*/?>", " ", r["text"]) for r in csv.DictReader(f)]
    return {name: [docs[i] for i in sorted(rng.choice(len(docs), size=n, replace=False).tolist())]
            for name, docs in (("mtsamples", notes), ("imdb", reviews))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="model directory (the shipped one: its copy)")
    ap.add_argument("--after", required=True, help="candidate model directory")
    ap.add_argument("--n", type=int, default=1200)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--show", action="store_true", help="print the differing spans in context")
    ap.add_argument("--out", required=True, help="JSON of the counts")
    args = ap.parse_args(argv)
    before = build_detectors("model,regex", model_path=args.before)
    after = build_detectors("model,regex", model_path=args.after)
    report: dict[str, dict[str, int]] = {}
    for name, docs in draw(args.n, args.seed).items():
        added = removed = 0
        for text in docs:
            a = {(s.start, s.end, s.label) for s in before.detect(text)}
            b = {(s.start, s.end, s.label) for s in after.detect(text)}
            for tag, diff in (("+", b - a), ("-", a - b)):
                for start, end, label in sorted(diff):
                    if args.show:
                        print(f"{name} {tag}{label}: ...{text[max(0, start - 30):start]}[{text[start:end]}]"
                              f"{text[end:end + 20]}...".replace("\n", " "))
            added += len(b - a)
            removed += len(a - b)
        report[name] = {"docs": len(docs), "spans_added": added, "spans_removed": removed}
        print(name, report[name], file=sys.stderr)
    Path(args.out).write_text(json.dumps({"seed": args.seed, **report}, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
