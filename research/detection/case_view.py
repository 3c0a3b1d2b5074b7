"""Decisions 0177 and 0178: dev and dev2 written all in capitals (``upper``) or all in lower case
(``lower``), every record keeping its length, the gold spans as they stand; scored by
``research/evaluation/score.py --data``.

    python case_view.py upper       # writes /tmp/dev-upper.jsonl and /tmp/dev2-upper.jsonl
    python case_view.py lower       # writes /tmp/dev-lower.jsonl and /tmp/dev2-lower.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REALTEXT = Path(__file__).resolve().parents[1] / "evaluation" / "realtext"

if __name__ == "__main__":
    case = sys.argv[1]
    if case not in ("upper", "lower"):
        sys.exit("usage: case_view.py upper|lower")
    for split in ("dev", "dev2"):
        rows = []
        for line in (REALTEXT / f"{split}.jsonl").read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            text = record["text"].upper() if case == "upper" else record["text"].lower()
            assert len(text) == len(record["text"])
            rows.append({**record, "text": text})
        out = Path(f"/tmp/{split}-{case}.jsonl")
        out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        print(split, len(rows))
