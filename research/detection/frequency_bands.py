"""How often the words of span-labelled sets are absent from the shipped public frequency list,
names by culture group against other words (round 25's motivation table).

    python research/detection/frequency_bands.py /tmp/r11/dev-africa.jsonl ...
"""

from __future__ import annotations

import argparse
import collections
import json

from embedanon.detectors.features import fold, frequency_band, public_ranks, tokenize


def band_counts(path: str) -> dict[str, collections.Counter[str]]:
    """{kind: Counter(band)} over the alphabetic tokens of one file; kind is ``name:<group>``,
    ``other-cap`` or ``other-lower``."""
    ranks = public_ranks()
    stats: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            text = record["text"]
            group_at: dict[int, str] = {}
            for span in record["spans"]:
                if span["label"] == "NAME":
                    for i in range(span["start"], span["end"]):
                        group_at[i] = span.get("group", "?")
            toks = tokenize(text)
            for start, word in zip(toks.starts.tolist(), toks.words, strict=True):
                if not word.isalpha():
                    continue
                band = frequency_band(ranks.get(fold(word), -1))  # the key the feature reads
                kind = (f"name:{group_at[start]}" if start in group_at
                        else "other-cap" if word[0].isupper() else "other-lower")
                stats[kind][band] += 1
    return stats


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    args = ap.parse_args(argv)
    for path in args.files:
        print(path)
        for kind, counts in sorted(band_counts(path).items()):
            n = sum(counts.values())
            bands = ("absent", "<1000", "<10000", "<30000", "listed")
            shares = " ".join(f"{b}={counts[b] / n:.3f}" for b in bands)
            print(f"  {kind:24s} n={n:7d} {shares}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
