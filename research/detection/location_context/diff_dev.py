"""Decision 0170: the spans that change on dev and dev2 with the variant of
``exempt_in_transcripts.py``, each marked gold or false.

    cd research/evaluation && PYTHONPATH=../../src python ../detection/location_context/diff_dev.py
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "evaluation"))
sys.path.insert(0, str(HERE))

from score import HERE as EVAL  # noqa: E402
from score import build, read  # noqa: E402

before = {}
detector = build("model,regex")
for split in ("dev", "dev2"):
    for rec in read(EVAL / "realtext" / f"{split}.jsonl"):
        before[rec["id"]] = {(p.start, p.end, p.label) for p in detector.detect(rec["text"])}
import exempt_in_transcripts  # noqa: E402,F401  (patches the verifier from here on)

detector = build("model,regex")
for split in ("dev", "dev2"):
    for rec in read(EVAL / "realtext" / f"{split}.jsonl"):
        t = rec["text"]
        after = {(p.start, p.end, p.label) for p in detector.detect(t)}
        for a, b, label in sorted(after ^ before[rec["id"]]):
            gold = any(x["start"] < b and a < x["end"] for x in rec["spans"])
            print(split, "+" if (a, b, label) in after else "-", label, t[a:b], "GOLD" if gold else "false",
                  "|", t[max(0, a - 60):b + 30].replace("\n", " "))
