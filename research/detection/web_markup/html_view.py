"""Decision 0173: dev and dev2 with their line breaks written as HTML (``\\n`` -> ``<br />``), the way
a web export keeps them, gold spans moved with the text; scored by ``research/evaluation/score.py
--data`` with the code before and after.

    python html_view.py            # writes /tmp/dev-html.jsonl and /tmp/dev2-html.jsonl
"""

from __future__ import annotations

import json
from pathlib import Path

REALTEXT = Path(__file__).resolve().parents[2] / "evaluation" / "realtext"
TAG = "<br />"


def html(record: dict) -> dict:
    text = record["text"]
    shift = [0] * (len(text) + 1)
    for i, ch in enumerate(text):
        shift[i + 1] = shift[i] + (len(TAG) - 1 if ch == "\n" else 0)
    spans = [{**s, "start": s["start"] + shift[s["start"]], "end": s["end"] + shift[s["end"]]}
             for s in record["spans"]]
    out = {**record, "text": text.replace("\n", TAG), "spans": spans}
    for s, t in zip(record["spans"], spans, strict=True):
        assert text[s["start"]:s["end"]].replace("\n", TAG) == out["text"][t["start"]:t["end"]]
    return out


if __name__ == "__main__":
    for split in ("dev", "dev2"):
        lines = (REALTEXT / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()
        rows = [html(json.loads(line)) for line in lines]
        out = Path(f"/tmp/{split}-html.jsonl")
        out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        print(split, len(rows), sum("<br />" in r["text"] for r in rows))
