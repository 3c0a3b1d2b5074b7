"""Decision 0194: the transcripts and scripts of dev and dev2 as a meeting or caption tool
exports them, one cue per non-empty line, the gold spans moved with their text, scored by
``research/evaluation/score.py --data``:

- ``zoom``: WebVTT as Zoom writes a transcript (``WEBVTT``, a cue number, ``00:00:07.000 -->
  00:00:12.500``, the line with its ``Speaker:`` label);
- ``short``: WebVTT with the short stamps (``00:07.000 --> 00:12.500``) and no cue numbers;
- ``teams``: WebVTT as Teams writes it (a cue identifier ``<uuid>/<n>-0``, full stamps, a line's
  ``Speaker:`` label as a voice tag: ``<v Speaker>text</v>``);
- ``srt``: SubRip (a cue number, ``00:00:07,000 --> 00:00:12,500``, CRLF line ends);
- ``plain``: the records as they are, for reference.

    python caption_view.py    # writes /tmp/{dev,dev2}-{plain,zoom,short,srt,teams}-captions.jsonl
    cd ../../evaluation && PYTHONPATH=<src> python score.py --data /tmp/dev-teams-captions.jsonl --no-fp

``scores.txt``: each file scored with main's src at 4cd494e (before) and with the change (after).
"""

from __future__ import annotations

import json
import random
import re
import uuid
from pathlib import Path

REALTEXT = Path(__file__).resolve().parents[2] / "evaluation" / "realtext"
STYLES = ("plain", "zoom", "short", "srt", "teams")
#: a line's speaker label, as score.py reads it
_LABEL = re.compile(r"([^:\n/]{1,40}):[ \t]+")


def _stamp(ms: int, style: str) -> str:
    h, m, s, t = ms // 3_600_000, ms // 60_000 % 60, ms // 1000 % 60, ms % 1000
    if style == "short":
        return f"{m:02d}:{s:02d}.{t:03d}"
    return f"{h:02d}:{m:02d}:{s:02d}{',' if style == 'srt' else '.'}{t:03d}"


def captioned(record: dict, style: str, rng: random.Random) -> dict:
    """``record`` as a caption file of ``style``, one cue per non-empty line, its spans moved."""
    if style == "plain":
        return record
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

    end = "\r\n" if style == "srt" else "\n"
    if style != "srt":
        emit("WEBVTT" + end + end)
    ms, cue = 7000, 1
    run = uuid.UUID(int=rng.getrandbits(128))
    at = 0
    for line in text.split("\n"):
        if line.strip():
            stop = ms + 1500 + 60 * len(line)
            if style in ("zoom", "srt"):
                emit(f"{cue}{end}")
            elif style == "teams":
                emit(f"{run}/{cue}-0{end}")
            emit(f"{_stamp(ms, style)} --> {_stamp(stop, style)}{end}")
            label = _LABEL.match(line) if style == "teams" else None
            if label is not None:
                emit("<v ")
                emit(label.group(1), at)
                emit(">")
                emit(line[label.end():], at + label.end())
                emit("</v>" + end + end)
            else:
                emit(line, at)
                emit(end + end)
            ms, cue = stop + 400, cue + 1
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
            rng = random.Random(194)
            rows = [json.dumps(captioned(r, style, rng)) + "\n" for r in records]
            Path(f"/tmp/{split}-{style}-captions.jsonl").write_text("".join(rows), encoding="utf-8")
        print(split, len(records))
