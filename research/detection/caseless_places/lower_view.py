"""Decision 0178: dev and dev2 written all in lower case (``str.lower``, every record keeps its
length), the gold spans as they stand; scored by ``research/evaluation/score.py --data`` with the
code before and after.

    python lower_view.py            # writes /tmp/dev-lower.jsonl and /tmp/dev2-lower.jsonl
"""

from __future__ import annotations

import json
from pathlib import Path

REALTEXT = Path(__file__).resolve().parents[2] / "evaluation" / "realtext"

if __name__ == "__main__":
    for split in ("dev", "dev2"):
        rows = []
        for line in (REALTEXT / f"{split}.jsonl").read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            assert len(record["text"].lower()) == len(record["text"])
            rows.append({**record, "text": record["text"].lower()})
        out = Path(f"/tmp/{split}-lower.jsonl")
        out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        print(split, len(rows))
