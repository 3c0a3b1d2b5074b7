"""Decision 0170: LOCATION candidates of ``model,regex`` (verifier off) on real text outside the
evaluation set (``given_names/corpora.py``: no line shared with test, dev or dev2) and whether the
shipped verifier keeps them; writes ``dropped-outside.txt`` (the dropped ones).

    cd research/detection/location_context && PYTHONPATH=../../../src python dropped_outside.py
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "given_names"))

from corpora import evaluation_lines, outside_test_half  # noqa: E402

import embedanon.detectors.verify as V  # noqa: E402
from embedanon.detectors.registry import build_detectors  # noqa: E402

lines = evaluation_lines("dev", "dev2")
verifier = V.SpanVerifier()
detector = build_detectors("model,regex", verify=False)
rows = []
for _, corpus, text in outside_test_half():
    if corpus not in ("overheard", "singles", "firefox", "brown", "mtsamples"):
        continue
    if any(x.strip() in lines for x in text.split("\n")):
        continue
    predicted = detector.detect(text)
    if not predicted:
        continue
    for p, q in zip(predicted, verifier.probabilities(text, predicted), strict=True):
        if p.label == "LOCATION":
            kept = bool(q >= verifier.threshold or verifier.exempt(text, p))
            rows.append((corpus, kept, round(float(q), 3), p.source, text[p.start:p.end],
                         text[max(0, p.start - 60):p.end + 40].replace("\n", " ")))
print(Counter((r[0], r[1]) for r in rows))
with open(HERE / "dropped-outside.txt", "w", encoding="utf-8") as fh:
    for corpus, kept, q, source, span, context in rows:
        if not kept:
            fh.write(f"{corpus}\t{q}\t{source}\t{span}\t{context}\n")
