"""Every span ``model,regex`` (verifier on) flags on real text outside the test half, as TSV, to
compare two trees (decision 0141).

Texts: ``research/detection/given_names/corpora.py``'s ``all_texts()`` (all NLTK webtext blocks, 500
Brown files, 800 MTSamples notes) less every block that shares a line of 25 characters or more
with a record of the test half. Columns: corpus, text index, start, end, label, score, span,
context. The TSVs hold public text only (no private PII is in these corpora)::

    PYTHONPATH=src python research/detection/propagation_case/collect.py before.tsv
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "research" / "detection" / "given_names"))
from corpora import all_texts, outside_test_half  # noqa: E402

from embedanon.detectors.registry import build_detectors  # noqa: E402


def main(out_path: str) -> None:
    detector = build_detectors("model,regex", verify=True)
    n = 0
    with open(out_path, "w", encoding="utf-8") as out:
        for i, corpus, text in outside_test_half():
            n += 1
            for sp in detector.detect(text):
                flat = (text[sp.start : sp.end].replace("\n", " ").replace("\t", " "))
                ctx = text[max(0, sp.start - 50) : sp.end + 30].replace("\n", " | ").replace("\t", " ")
                out.write(f"{corpus}\t{i}\t{sp.start}\t{sp.end}\t{sp.label}\t{sp.score:.2f}\t{flat}\t{ctx}\n")
    print(f"texts {n}, skipped (share a line with the test half) {sum(1 for _ in all_texts()) - n}",
          file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
