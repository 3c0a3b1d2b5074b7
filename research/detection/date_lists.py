"""DATE spans over lists and ranges of dates, and what hybrid scope does with the ``model,regex`` DATE spans.

For the code on the import path (run once with the base's ``src`` and once with the branch's),
per corpus: the model's DATE spans and how many overlap two ``regex`` dates or more; the
``model,regex`` DATE spans, widened as hybrid scope widens them, and how many of those the DATE
surrogate can parse and shift as one date, or still hold two dates; of the others, how many hold
a date the surrogate shifts inside them (``union_shape_dates_inside``: since the scrub, the rest
of such a span is scrubbed; before it, the whole span got random digits in its shape).
Then the spans the ``--off`` decode rules change: each detector's spans with those manifest flags
off that are not among its spans with them on, DATE and other labels apart (zero where the code
knows no such flag). Corpora: span files (``{"id", "text", ...}`` per line), the MTSamples notes,
seeded synthetic lists of 2-4 dates (eight formats, five separators) and seeded synthetic ranges
(eight formats, seven joiners). Counts only, no text.

    PYTHONPATH=src python research/detection/date_lists.py --spans /tmp/h14-sets/dev.jsonl \
        --mtsamples /work/shared/data/mtsamples/mtsamples.csv.gz --off date_ranges,date_edges \
        --out research/detection/date-rules-after.json
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import gzip
import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from embedanon.detectors.base import Span
from embedanon.detectors.merge import UnionDetector
from embedanon.detectors.model import ModelDetector
from embedanon.detectors.regex import RegexDetector
from embedanon.pipeline.scope import widen
from embedanon.surrogates.dates import shift_date

try:  # this stop's surrogate shifts the dates inside a span that is not one date
    from embedanon.surrogates.dates import shift_dates_in
except ImportError:  # older code: such a span got random digits in its shape
    shift_dates_in = None

FORMATS = ("%m/%d/%Y", "%Y-%m-%d", "{d} %B %Y", "%B {d}, %Y", "%b {d}, %Y", "%d.%m.%Y", "%m/%d/%y", "%B %Y")
SEPARATORS = ("{a}, {b} and {c}", "{a}, {b}, and {c}", "{a}; {b}; {c}", "{a}, {b} or {c}",
              "{a} and {b} and {c}")
JOINERS = ("{a} to {b}", "from {a} to {b}", "from {a} through {b}", "{a} - {b}", "{a} until {b}",
           "between {a} and {b}", "{a} thru {b}")
TEMPLATES = ("Visits on {L}.", "The patient was seen {L} in clinic.", "MRI dates: {L}.",
             "Follow-up appointments were {L}; no changes.", "She was admitted {L} for chest pain.")


def synthetic_lists(n: int, seed: int) -> Iterator[str]:
    """``n`` sentences, each with a list of 2-4 dates in one format (seeded)."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        fmt = FORMATS[rng.integers(len(FORMATS))]
        days = sorted(int(x) for x in rng.integers(0, 3000, int(rng.integers(2, 5))))
        dates = [dt.date(2015, 1, 1) + dt.timedelta(days=x) for x in days]
        items = [d.strftime(fmt.replace("{d}", str(d.day))) for d in dates]
        pattern = SEPARATORS[rng.integers(len(SEPARATORS))]
        joiner = pattern[pattern.index("{a}") + 3 : pattern.index("{b}")]
        last = pattern[pattern.index("{b}") + 3 : pattern.index("{c}")]
        listed = joiner.join(items[:-1]) + (last if len(items) > 2 else last.replace(",", "")) + items[-1]
        yield TEMPLATES[rng.integers(len(TEMPLATES))].format(L=listed)


def synthetic_ranges(n: int, seed: int) -> Iterator[str]:
    """``n`` sentences, each with a range of two dates in one format (seeded)."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        fmt = FORMATS[rng.integers(len(FORMATS))]
        days = sorted(int(x) for x in rng.integers(0, 3000, 2))
        a, b = (dt.date(2015, 1, 1) + dt.timedelta(days=x) for x in days)
        a_text, b_text = (d.strftime(fmt.replace("{d}", str(d.day))) for d in (a, b))
        listed = JOINERS[rng.integers(len(JOINERS))].format(a=a_text, b=b_text)
        yield TEMPLATES[rng.integers(len(TEMPLATES))].format(L=listed)


def texts(args: argparse.Namespace) -> Iterator[tuple[str, str]]:
    """(corpus, text) pairs of every corpus asked for."""
    for path in args.spans:
        with open(path, encoding="utf-8") as f:
            for line in f:
                yield Path(path).name, json.loads(line)["text"]
    if args.mtsamples:
        with gzip.open(args.mtsamples, "rt", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                yield "mtsamples", row["transcription"] or ""
    for text in synthetic_lists(args.synthetic, args.seed):
        yield "synthetic-lists", text
    for text in synthetic_ranges(args.synthetic, args.seed + 1):
        yield "synthetic-ranges", text


def _dates_in(span: Span, dates: list[Span]) -> int:
    return sum(d.start < span.end and span.start < d.end for d in dates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", action="append", default=[], help="a span file (repeatable)")
    parser.add_argument("--mtsamples", default="", help="mtsamples.csv.gz")
    parser.add_argument("--synthetic", type=int, default=500, help="synthetic list (and range) sentences")
    parser.add_argument("--off", default="", help="decode rules whose changes to count (comma-separated)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    model, regex = ModelDetector(), RegexDetector(labels=("DATE",))
    union = UnionDetector([model, RegexDetector()])
    without = ModelDetector()
    off = set(filter(None, args.off.split(",")))
    without.rules = tuple(rule for rule in without.rules if rule.name not in off)
    union_without = UnionDetector([without, RegexDetector()])
    counts: dict[str, dict[str, int]] = {}
    keys = ("docs", "model_date", "model_date_several", "union_date", "union_shifted", "union_shape",
            "union_shape_dates_inside",
            "union_date_several", "model_date_changed", "model_other_changed", "union_date_changed",
            "union_other_changed")
    for corpus, text in texts(args):
        c = counts.setdefault(corpus, dict.fromkeys(keys, 0))
        c["docs"] += 1
        dates = regex.detect(text)
        for span in (s for s in model.detect(text) if s.label == "DATE"):
            c["model_date"] += 1
            c["model_date_several"] += _dates_in(span, dates) >= 2
        for span in (s for s in widen(text, union.detect(text)) if s.label == "DATE"):
            c["union_date"] += 1
            shifted = shift_date(text[span.start : span.end], 17) is not None
            c["union_shifted" if shifted else "union_shape"] += 1
            if not shifted and shift_dates_in is not None:
                inside = shift_dates_in(text[span.start : span.end], 17, lambda gap: "\x00" * len(gap))
                c["union_shape_dates_inside"] += inside.strip("\x00") != ""
            c["union_date_several"] += _dates_in(span, dates) >= 2
        for name, on, off in (("model", model, without), ("union", union, union_without)):
            after = set(on.detect(text))
            for span in off.detect(text):
                if span not in after:
                    c[f"{name}_{'date' if span.label == 'DATE' else 'other'}_changed"] += 1
    Path(args.out).write_text(json.dumps(counts, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(counts, indent=1))


if __name__ == "__main__":
    main()
