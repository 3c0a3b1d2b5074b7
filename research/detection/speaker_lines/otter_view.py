"""Decision 0199: the transcripts and scripts of dev and dev2 as transcription services export
them, the speaker on a line of its own with the time after it and the turn on the next line, the
gold spans moved with their text, scored by ``research/evaluation/score.py --data``:

- ``otter``: ``Doctor  0:04`` (Otter.ai: two spaces, minutes and seconds);
- ``rev``: ``Doctor (00:00:04):`` (Rev: the time in brackets, a colon after).

A line with no speaker label (a stage direction) stays as it is.

    python otter_view.py    # writes /tmp/{dev,dev2}-{otter,rev}-speakers.jsonl
"""

from __future__ import annotations

import json
import re
from pathlib import Path

REALTEXT = Path(__file__).resolve().parents[2] / "evaluation" / "realtext"
STYLES = ("otter", "rev")
#: a line's speaker label, as score.py reads it
_LABEL = re.compile(r"([^:\n/]{1,40}):[ \t]+")


def _stamp(seconds: int, style: str) -> str:
    if style == "otter":
        return f"  {seconds // 60}:{seconds % 60:02d}"
    return f" ({seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}):"


def exported(record: dict, style: str) -> dict:
    """``record`` with each labelled line as a speaker line and its turn on the next line."""
    text = record["text"]
    out: list[str] = []
    length = 0
    moves: list[tuple[int, int, int]] = []  # (original start, new start, length) of copied pieces

    def emit(piece: str, original: int | None = None) -> None:
        nonlocal length
        if original is not None:
            moves.append((original, length, len(piece)))
        out.append(piece)
        length += len(piece)

    at, seconds = 0, 0
    for k, line in enumerate(text.split("\n")):
        if k:
            emit("\n")
        label = _LABEL.match(line)
        if label is not None:
            emit(label.group(1), at)
            emit(_stamp(seconds, style) + "\n")
            emit(line[label.end():], at + label.end())
            emit("\n")
            seconds += 3 + len(line) // 12
        else:
            emit(line, at)
        at += len(line) + 1
    new_text = "".join(out)

    def moved(start: int, stop: int) -> tuple[int, int]:
        for a, b, n in moves:
            if a <= start and stop <= a + n:
                return b + start - a, b + stop - a
        raise ValueError("a span crosses a cut")

    spans = []
    for s in record["spans"]:
        a, b = moved(s["start"], s["end"])
        assert new_text[a:b] == text[s["start"]:s["end"]]
        spans.append({**s, "start": a, "end": b})
    return {**record, "text": new_text, "spans": spans}


if __name__ == "__main__":
    for split in ("dev", "dev2"):
        lines = (REALTEXT / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()
        records = [r for r in map(json.loads, lines) if r["register"] in ("transcript", "script")]
        for style in STYLES:
            rows = [json.dumps(exported(r, style)) + "\n" for r in records]
            Path(f"/tmp/{split}-{style}-speakers.jsonl").write_text("".join(rows), encoding="utf-8")
        print(split, len(records))
