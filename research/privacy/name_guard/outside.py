"""Decision 0380: what hybrid scope's name guard redraws on real text outside the test half.

Texts: ``research/detection/given_names/corpora.py``'s ``outside_test_half()`` (NLTK webtext
blocks, 500 Brown files, 800 MTSamples notes, less every block that shares a line of 25
characters or more with a record of the test half). Each is
released in scope hybrid (exponential, epsilon 14, experiment seed 31, ``model,regex``); printed:
per corpus the word parts and the guarded ones, and every guarded word with its context as TSV
(public text only: these corpora hold no private PII), to read by hand::

    PYTHONPATH=src python research/privacy/name_guard/outside.py guarded.tsv
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "research" / "detection" / "given_names"))
from corpora import outside_test_half  # noqa: E402

from embedanon import Anonymizer  # noqa: E402


def main(out_path: str) -> None:
    anonymizer = Anonymizer(mechanism="exponential", epsilon=14.0, seed=31, scope="hybrid",
                            detectors="model,regex")
    words: Counter[str] = Counter()
    guarded: Counter[str] = Counter()
    with open(out_path, "w", encoding="utf-8") as out:
        for i, corpus, text in outside_test_half():
            doc = anonymizer.anonymize_document(text)
            for item in doc.items:
                words[corpus] += item.kind in ("word", "guard")
                if item.kind == "guard":
                    guarded[corpus] += 1
                    ctx = text[max(0, item.start - 50): item.end + 30].replace("\n", " | ").replace("\t", " ")
                    out.write(f"{corpus}\t{i}\t{text[item.start:item.end]}\t{ctx}\n")
    for corpus in sorted(words):
        print(f"{corpus}: {guarded[corpus]} of {words[corpus]} word parts guarded "
              f"({guarded[corpus] / words[corpus]:.4f})")


if __name__ == "__main__":
    main(sys.argv[1])
