"""Decision 0174: dev and dev2 with typographic quotes and apostrophes, as word processors and
phones write them (``'`` -> ``’`` after a letter or sentence punctuation, else ``‘``; ``"`` ->
``”`` or ``“`` likewise); same length, so the gold spans stand. Scored by
``research/evaluation/score.py --data`` with the code before and after.

    python curly_view.py            # writes /tmp/dev-curly.jsonl and /tmp/dev2-curly.jsonl
"""

from __future__ import annotations

import json
from pathlib import Path

REALTEXT = Path(__file__).resolve().parents[2] / "evaluation" / "realtext"


def curly(text: str) -> str:
    out = []
    for i, ch in enumerate(text):
        closing = i > 0 and (text[i - 1].isalnum() or text[i - 1] in ".,!?")
        if ch == "'":
            out.append("\u2019" if closing else "\u2018")
        elif ch == '"':
            out.append("\u201d" if closing else "\u201c")
        else:
            out.append(ch)
    return "".join(out)


if __name__ == "__main__":
    for split in ("dev", "dev2"):
        rows = []
        for line in (REALTEXT / f"{split}.jsonl").read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            rows.append({**record, "text": curly(record["text"])})
        out = Path(f"/tmp/{split}-curly.jsonl")
        out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        print(split, sum("\u2019" in r["text"] or "\u201c" in r["text"] for r in rows), len(rows))
