"""A guard for the verifier: names that are also common English words.

The real-text evaluation set injects names that are never among the 20,000 most frequent English
words (``research/evaluation/README.md``), so a verifier fitted on it could learn "a common word is
not a name" and drop ``Will``, ``Grace`` or ``Bill`` in real text. This probe (hand-written
sentences, the name in a name slot, prose / chat / transcript registers) counts, of the names the
detector finds without the verifier, how many the verifier keeps.

    python research/detection/verifier/probe_common_names.py [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from embedanon.detectors.registry import build_detectors
from embedanon.detectors.verify import SpanVerifier

#: word-like names, then ten of the most common English given names; the verifier's training never
#: puts any of them in a name slot (``train_verifier.py`` leaves them out of its augmentation pool)
NAMES = ("Will", "Grace", "Hope", "Mark", "Bill", "Rose", "June", "Joy", "Faith", "Frank", "Jack", "Dawn",
         "Max", "Pat", "Sandy", "Art", "Gene", "Rob", "Sue", "Don", "Ray", "Carol", "Robin", "Amber",
         "Holly", "Ivy", "Iris", "Victor", "Harry", "Drew", "Chase", "Miles", "Wade", "Dean", "Cliff",
         "Lance", "Rusty", "Penny", "Summer", "Ginger",
         "David", "Sarah", "Michael", "Linda", "James", "Susan", "Robert", "Karen", "Thomas", "Nancy")

#: name slots in three registers; {n} is the name, {m} a second name
TEMPLATES = (
    "I talked to {n} yesterday and she said the results came back fine.",
    "{n} and I drove to the lake on Saturday.",
    "Thanks {n}, see you tomorrow!",
    "ok so {n} told me he can't make it tonight",
    "Me: did you call {n}?\nFriend: not yet, {m} has his number",
    "{n}: Are you coming to dinner?\n{m}: Yes, in ten minutes.",
    "The patient's daughter, {n}, was present during the visit.",
    "My brother {n} works nights at the warehouse.",
)


def probe(off: Any, verifier: Any) -> dict[str, Any]:
    """Of the name slots the unverified detector ``off`` finds as NAME, how many ``verifier`` keeps."""
    slots = found = kept = 0
    per_template = []
    for t, template in enumerate(TEMPLATES):
        t_found = t_kept = 0
        for i, name in enumerate(NAMES):
            other = NAMES[(i + 7) % len(NAMES)]
            text = template.format(n=name, m=other)
            targets = [(p, len(word)) for key, word in (("{n}", name), ("{m}", other)) if key in template
                       for p in _positions(text, word)]
            off_spans = off.detect(text)
            on_spans = verifier.verify(text, off_spans)
            for start, length in targets:
                slots += 1
                hit_off = _covers(off_spans, start, length)
                hit_on = hit_off and _covers(on_spans, start, length)
                found, kept = found + hit_off, kept + hit_on
                t_found, t_kept = t_found + hit_off, t_kept + hit_on
        per_template.append({"template": t, "found": t_found, "kept": t_kept})
    return {"slots": slots, "found_without_verifier": found, "kept_by_verifier": kept,
            "kept_share": round(kept / found, 4) if found else None, "per_template": per_template}


def probe_probabilities(off: Any, verifier: Any) -> list[float]:
    """The verifier's probability of the NAME span covering each name slot ``off`` finds."""
    out = []
    for template in TEMPLATES:
        for i, name in enumerate(NAMES):
            other = NAMES[(i + 7) % len(NAMES)]
            text = template.format(n=name, m=other)
            spans = off.detect(text)
            proba = verifier.probabilities(text, spans)
            for key, word in (("{n}", name), ("{m}", other)):
                if key not in template:
                    continue
                for start in _positions(text, word):
                    hit = [k for k, s in enumerate(spans)
                           if s.start <= start and start + len(word) <= s.end and s.label == "NAME"]
                    if hit:
                        out.append(float(proba[hit[0]]))
    return out


def _covers(spans: list[Any], start: int, length: int) -> bool:
    return any(s.start <= start and start + length <= s.end and s.label == "NAME" for s in spans)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--detector", default="model,regex")
    ap.add_argument("--verifier", help="a verifier directory (default: the shipped one)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    off = build_detectors(args.detector, verify=False)
    report = {"detector": args.detector} | probe(off, SpanVerifier(path=args.verifier))
    if args.json:
        json.dump(report, sys.stdout, sort_keys=True)
        print()
    else:
        print(f"{report['slots']} name slots; detector finds {report['found_without_verifier']}; "
              f"verifier keeps {report['kept_by_verifier']} ({report['kept_share']})")
        for row in report["per_template"]:
            print(f"  template {row['template']}: found {row['found']}, kept {row['kept']}")


def _positions(text: str, word: str) -> list[int]:
    out, i = [], text.find(word)
    while i >= 0:
        before_ok = i == 0 or not text[i - 1].isalpha()
        if before_ok and (i + len(word) == len(text) or not text[i + len(word)].isalpha()):
            out.append(i)
        i = text.find(word, i + 1)
    return out


if __name__ == "__main__":
    main()
