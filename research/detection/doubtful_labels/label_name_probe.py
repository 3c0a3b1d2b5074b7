"""Recall of names written as speaker labels: in 400 overheard conversations outside the set, one
repeated role label is replaced, on all its turns, by a first name of each culture group's
faker-js pool (``research/evaluation/data/names.json``; 35 % in lower case). A turn counts as
found when a NAME span overlaps the name (``--any``: a span of any label).

    PYTHONPATH=src python research/detection/doubtful_labels/label_name_probe.py
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections import Counter, defaultdict

from common import EVALUATION, score, unused_blocks

blocks = unused_blocks()
random.Random(11).shuffle(blocks)
pools = json.loads((EVALUATION / "data" / "names.json").read_text(encoding="utf-8"))["groups"]
firsts = {g: sorted({n for loc in v.values() for n in loc.get("first", [])}) for g, v in pools.items()}
detector = score.build("model,regex")
wanted = None if "--any" in sys.argv else {"NAME"}
rng = random.Random(5)
found: Counter[tuple[str, str]] = Counter()
total: Counter[tuple[str, str]] = Counter()
missed: defaultdict[tuple[str, str], set[str]] = defaultdict(set)
done = 0
for block in blocks:
    labels = Counter(m.group(1) for m in score.LABEL_LINE.finditer(block))
    repeated = [label for label, n in labels.items() if n >= 2]
    if not repeated:
        continue
    for group, names in firsts.items():
        lower = rng.random() < 0.35
        name = rng.choice(names)
        name = name.lower() if lower else name
        text = re.sub(rf"(?m)^{re.escape(repeated[0])}:", name + ":", block)
        preds = detector.detect(text)
        key = (group, "lower" if lower else "title")
        for m in re.finditer(rf"(?m)^{re.escape(name)}:", text):
            a, e = m.start(), m.start() + len(name)
            total[key] += 1
            if any(p.start < e and a < p.end and (wanted is None or p.label in wanted) for p in preds):
                found[key] += 1
            else:
                missed[key].add(name)
    done += 1
    if done >= 400:
        break
for key in sorted(total):
    print(key, f"{found[key]}/{total[key]} = {found[key] / total[key]:.3f}", sorted(missed[key])[:12])
for group in firsts:
    f = sum(n for k, n in found.items() if k[0] == group)
    t = sum(n for k, n in total.items() if k[0] == group)
    print(group, f"{f}/{t} = {f / t:.4f}")
