"""Decision 0181: the transcripts and scripts of dev and dev2 as a chat or meeting tool exports
them, each line opened by a clock time (``[00:01:23] Doctor: ...`` or ``10:32 Doctor: ...``), the
gold spans moved with their text; plus the same records without times (``plain``), scored by
``research/evaluation/score.py --data``.

    python timestamp_view.py    # writes /tmp/{dev,dev2}-{plain,bracketed,bare}-times.jsonl
"""

from __future__ import annotations

import json
from pathlib import Path

REALTEXT = Path(__file__).resolve().parents[1] / "evaluation" / "realtext"


def stamp(second: int, style: str) -> str:
    """The clock time of a line: ``[00:01:23] `` (bracketed) or ``10:32 `` (bare), or nothing."""
    if style == "plain":
        return ""
    if style == "bracketed":
        return f"[{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}] "
    minute = 9 * 60 + 30 + second // 15
    return f"{minute // 60}:{minute % 60:02d} "


def timestamped(record: dict, style: str) -> dict:
    """``record`` with a clock time before each non-empty line, its gold spans moved."""
    text = record["text"]
    pieces: list[str] = []
    shift_at: list[tuple[int, int]] = []  # (original offset of a line, total shift from there)
    shift = 0
    at = 0
    second = 7
    for line in text.split("\n"):
        prefix = stamp(second, style) if line.strip() else ""
        second += 11 + len(line) // 9
        shift += len(prefix)
        shift_at.append((at, shift))
        pieces.append(prefix + line)
        at += len(line) + 1

    def moved(offset: int) -> int:
        return offset + max(s for a, s in shift_at if a <= offset)

    spans = [{**s, "start": moved(s["start"]), "end": moved(s["start"]) + s["end"] - s["start"]}
             for s in record["spans"]]
    out = {**record, "text": "\n".join(pieces), "spans": spans}
    for old, new in zip(record["spans"], spans, strict=True):
        assert text[old["start"]:old["end"]] == out["text"][new["start"]:new["end"]]
    return out


if __name__ == "__main__":
    for split in ("dev", "dev2"):
        lines = (REALTEXT / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()
        records = [r for r in map(json.loads, lines) if r["register"] in ("transcript", "script")]
        for style in ("plain", "bracketed", "bare"):
            out = Path(f"/tmp/{split}-{style}-times.jsonl")
            rows = [json.dumps(timestamped(r, style)) + "\n" for r in records]
            out.write_text("".join(rows), encoding="utf-8")
        print(split, len(records))
