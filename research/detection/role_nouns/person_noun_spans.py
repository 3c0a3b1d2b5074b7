"""0140: NAME spans made only of person nouns (any case), on dev + dev2 (gold or false) and on the
4,547 real texts outside the set (``../given_names/corpora.py``), each with its context.

    PYTHONPATH=src python research/detection/role_nouns/person_noun_spans.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "given_names"), str(HERE.parents[1] / "evaluation")]

import score  # noqa: E402
from corpora import all_texts  # noqa: E402

from embedanon.detectors.registry import build_detectors  # noqa: E402
from embedanon.lexicon import person_noun  # noqa: E402

DETECTOR = build_detectors("model,regex")
WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")


def nouns_only(piece: str) -> bool:
    words = WORD.findall(piece)
    return bool(words) and all(person_noun(w) for w in words)


def shown(text: str, a: int, b: int) -> str:
    return text[max(0, a - 40) : b + 25].replace("\n", " / ")


gold = false = 0
for split in ("dev", "dev2"):
    for r in score.read(score.HERE / "realtext" / f"{split}.jsonl"):
        text = r["text"]
        for p in DETECTOR.detect(text):
            if p.label == "NAME" and nouns_only(text[p.start : p.end]):
                hit = any(g["start"] < p.end and p.start < g["end"] for g in r["spans"])
                gold, false = gold + hit, false + (not hit)
                tag = "GOLD" if hit else "FP"
                print(tag, split, repr(text[p.start : p.end]), "|", shown(text, p.start, p.end))
print("dev+dev2: gold", gold, "false", false)
n = 0
for register, text in all_texts():
    for p in DETECTOR.detect(text):
        if p.label == "NAME" and nouns_only(text[p.start : p.end]):
            n += 1
            print("OUT", register, repr(text[p.start : p.end]), "|", shown(text, p.start, p.end))
print("outside", n)
