"""Decision 0177: dev and dev2 written all in capitals (``str.upper``, every record keeps its
length), the gold spans as they stand; scored by ``research/evaluation/score.py --data``, with the
shipped detector and with the truecasing views of ``truecase.py``.

    python upper_view.py            # writes /tmp/dev-upper.jsonl and /tmp/dev2-upper.jsonl
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
            assert len(record["text"].upper()) == len(record["text"])
            rows.append({**record, "text": record["text"].upper()})
        out = Path(f"/tmp/{split}-upper.jsonl")
        out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        print(split, len(rows))
