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
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rewritten import Rewrite, conversations, lines_with_offsets  # noqa: E402

STYLES = ("otter", "rev")
#: a line's speaker label, as score.py reads it
_LABEL = re.compile(r"([^:\n/]{1,40}):[ \t]+")


def _stamp(seconds: int, style: str) -> str:
    if style == "otter":
        return f"  {seconds // 60}:{seconds % 60:02d}"
    return f" ({seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}):"


def exported(record: dict, style: str) -> dict:
    """``record`` with each labelled line as a speaker line and its turn on the next line."""
    out = Rewrite(record)
    seconds = 0
    for at, line in lines_with_offsets(record["text"]):
        if at:
            out.emit("\n")
        label = _LABEL.match(line)
        if label is not None:
            out.emit(label.group(1), at)
            out.emit(_stamp(seconds, style) + "\n")
            out.emit(line[label.end():], at + label.end())
            out.emit("\n")
            seconds += 3 + len(line) // 12
        else:
            out.emit(line, at)
    return out.done()


if __name__ == "__main__":
    for split in ("dev", "dev2"):
        records = conversations(split)
        for style in STYLES:
            rows = [json.dumps(exported(r, style)) + "\n" for r in records]
            Path(f"/tmp/{split}-{style}-speakers.jsonl").write_text("".join(rows), encoding="utf-8")
        print(split, len(records))
