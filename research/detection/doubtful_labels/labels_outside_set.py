"""Line-start labels the shipped detector flags in 1,500 overheard conversations outside the set.

    PYTHONPATH=src python research/detection/doubtful_labels/labels_outside_set.py
"""

from __future__ import annotations

import random
from collections import Counter

from common import score, unused_blocks

blocks = unused_blocks()
random.Random(7).shuffle(blocks)
detector = score.build("model,regex")
total, flagged = 0, Counter()
for block in blocks[:1500]:
    preds = detector.detect(block)
    for m in score.LABEL_LINE.finditer(block):
        a, e = m.start(1), m.end(1)
        total += 1
        hit = [p for p in preds if p.start < e and a < p.end]
        if hit:
            shown = "|".join(f"{block[p.start:p.end]}/{p.label}/{p.source}/{p.score:.2f}" for p in hit)
            flagged[f"{m.group(1)}  ->  {shown}"] += 1
print("blocks", min(1500, len(blocks)), "labels", total, "flagged", sum(flagged.values()))
for key, n in flagged.most_common():
    print(n, key)
