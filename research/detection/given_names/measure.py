"""Candidate rule of 0139 (rejected): a capitalized given name that 0.1 % of the US population
bears, inside a sentence (not after ``.!?:`` or a line start), not followed by another
capitalized word and touched by no span, becomes a NAME.

    PYTHONPATH=src python research/detection/given_names/measure.py dev      # dev + dev2, scored
    PYTHONPATH=src python research/detection/given_names/measure.py outside  # listed, read by hand
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1] / "evaluation")]

import score  # noqa: E402
from corpora import all_texts  # noqa: E402

from embedanon.detectors.registry import build_detectors  # noqa: E402
from embedanon.lexicon import weighty_name  # noqa: E402

DETECTOR = build_detectors("model,regex")
CALENDAR = frozenset(("january", "february", "march", "april", "may", "june", "july", "august", "september",
                      "october", "november", "december", "monday", "tuesday", "wednesday", "thursday",
                      "friday", "saturday", "sunday"))
WORD = re.compile(r"(?<![\w'\u2019-])([A-Z][a-z]+)(?![\w\u2019-]|'[a-rt-z])")


def candidates(text: str, spans: list) -> list[tuple[int, int]]:
    if text.upper() == text or text.lower() == text:
        return []
    out = []
    for m in WORD.finditer(text):
        a, b = m.span(1)
        if m.group(1).lower() in CALENDAR or not weighty_name(m.group(1), "first"):
            continue
        before = text[:a].rstrip(" \t\"'`(")
        if not before or before[-1] in ".!?:\n>-" or any(s.start < b and a < s.end for s in spans):
            continue
        if re.match(r"[ \t]+[A-Z][a-z]+", text[b:]):
            continue
        out.append((a, b))
    return out


def shown(text: str, a: int, b: int) -> str:
    return text[max(0, a - 40) : b + 25].replace("\n", " / ")


if sys.argv[1:] == ["dev"]:
    tp = fp = 0
    for split in ("dev", "dev2"):
        for r in score.read(score.HERE / "realtext" / f"{split}.jsonl"):
            for a, b in candidates(r["text"], DETECTOR.detect(r["text"])):
                gold = any(g["start"] < b and a < g["end"] for g in r["spans"])
                tp, fp = tp + gold, fp + (not gold)
                tag = "TP" if gold else "FP"
                print(tag, split, r["register"], r["text"][a:b], "|", shown(r["text"], a, b))
    print("dev+dev2 new TP", tp, "FP", fp)
else:
    n = 0
    for register, text in all_texts():
        for a, b in candidates(text, DETECTOR.detect(text)):
            n += 1
            print(register, text[a:b], "|", shown(text, a, b))
    print("outside additions", n)
