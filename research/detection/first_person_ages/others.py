"""Decision 0171, the extension not shipped: the same age cue in the second and third person and after
kin words, in IMDB train/unsup, NLTK webtext, Brown and MTSamples (100 shuffled lines printed, seed 11).

    PYTHONPATH=../../evaluation python others.py
"""

from __future__ import annotations

import csv
import lzma
import random
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "given_names"))

from build_set import DATA  # noqa: E402
from corpora import brown, mtsamples, webtext  # noqa: E402

EXCL = (r"(?!\w|[.,:/'’\"]\d|\s*(?:%|°|percent|degrees?|times|points?|pages?|miles?|km|"
        r"minutes?|hours?|days?|weeks?|months?|years?|am|pm|a\.m|p\.m|o'clock|of\b|to\b|or\b|"
        r"for\b|-\d|ft\b|feet|foot|inch|cm\b|kg\b|kilos?\b|lbs?\b|pounds?|stone\b|dollars?|bucks?|"
        r"grand\b|episodes?|seconds?|secs?\b|mins?\b|hrs?\b))")
KIN = ("son|daughter|kid|child|boy|girl|brother|sister|baby|grandson|granddaughter|nephew|niece|cousin|"
       "husband|wife|mom|mother|dad|father|grandma|grandmother|grandpa|grandfather|boyfriend|girlfriend|friend")
PAT = re.compile(r"\b(?:(?:he|she|you|we|they)(?:['’]s|['’]re|\s+is|\s+are|\s+was|\s+were)"
                 r"|(?:my|our|his|her|their|your)\s+(?:" + KIN + r")s?(?:['’]s|\s+is|\s+was|\s+are|\s+were))"
                 r"(?:\s+(?:only|just|now|almost|nearly|about|barely))?\s+(1[01]\d|12[0-5]|[1-9]?\d)" + EXCL,
                 re.IGNORECASE)
rows = []
for name in ("imdb_train", "imdb_unsup"):
    with lzma.open(DATA / "imdb" / f"{name}.csv.xz", "rt", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            t = row["text"]
            rows += [(name, t[max(0, m.start() - 50):m.start()], m.group(0), t[m.end():m.end() + 30])
                     for m in PAT.finditer(t)]
for name, t in [*webtext(), *brown(), *mtsamples()]:
    rows += [(name, t[max(0, m.start() - 50):m.start()], m.group(0), t[m.end():m.end() + 30])
             for m in PAT.finditer(t)]
print(len(rows), Counter(r[0] for r in rows))
random.Random(11).shuffle(rows)
for r in rows[:100]:
    print(r[0][:8], "|", r[1].replace("\n", " ")[-45:], ">>", r[2], "<<", r[3].replace("\n", " "))
