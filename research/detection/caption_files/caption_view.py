"""Decision 0194: the transcripts and scripts of dev and dev2 as a meeting or caption tool
exports them, one cue per non-empty line, the gold spans moved with their text, scored by
``research/evaluation/score.py --data``:

- ``zoom``: WebVTT as Zoom writes a transcript (``WEBVTT``, a cue number, ``00:00:07.000 -->
  00:00:12.500``, the line with its ``Speaker:`` label);
- ``short``: WebVTT with the short stamps (``00:07.000 --> 00:12.500``) and no cue numbers;
- ``teams``: WebVTT as Teams writes it (a cue identifier ``<uuid>/<n>-0``, full stamps, a line's
  ``Speaker:`` label as a voice tag: ``<v Speaker>text</v>``);
- ``srt``: SubRip (a cue number, ``00:00:07,000 --> 00:00:12,500``, CRLF line ends);
- ``angle``: a chat log, each line's ``Speaker:`` label in angle brackets (``<Speaker> text``;
  decision 0209), no cue lines;
- ``bold``: a Markdown transcript, each line's label in bold (``**Speaker:** text``; decision
  0210), no cue lines;
- ``plain``: the records as they are, for reference.

    python caption_view.py [SPLIT ...]   # writes /tmp/{SPLIT}-{STYLE}-captions.jsonl
    cd ../../evaluation && PYTHONPATH=<src> python score.py --data /tmp/dev-teams-captions.jsonl --no-fp

``scores.txt``: each file scored with main's src at 4cd494e (before) and with the change (after).
"""

from __future__ import annotations

import json
import random
import re
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rewritten import Rewrite, conversations, lines_with_offsets  # noqa: E402

STYLES = ("plain", "zoom", "short", "srt", "teams", "angle", "bold")
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
    out = Rewrite(record)
    if style in ("angle", "bold"):  # a chat log or a Markdown transcript: the lines as they are
        opens, closes = ("<", "> ") if style == "angle" else ("**", ":** ")
        for k, (at, line) in enumerate(lines_with_offsets(record["text"])):
            out.emit("\n" if k else "")
            label = _LABEL.match(line)
            if label is None:
                out.emit(line, at)
                continue
            out.emit(opens)
            out.emit(label.group(1), at)
            out.emit(closes)
            out.emit(line[label.end():], at + label.end())
        return out.done()
    end = "\r\n" if style == "srt" else "\n"
    if style != "srt":
        out.emit("WEBVTT" + end + end)
    ms, cue = 7000, 1
    run = uuid.UUID(int=rng.getrandbits(128))
    for at, line in lines_with_offsets(record["text"]):
        if not line.strip():
            continue
        stop = ms + 1500 + 60 * len(line)
        if style in ("zoom", "srt"):
            out.emit(f"{cue}{end}")
        elif style == "teams":
            out.emit(f"{run}/{cue}-0{end}")
        out.emit(f"{_stamp(ms, style)} --> {_stamp(stop, style)}{end}")
        label = _LABEL.match(line) if style == "teams" else None
        if label is not None:
            out.emit("<v ")
            out.emit(label.group(1), at)
            out.emit(">")
            out.emit(line[label.end():], at + label.end())
            out.emit("</v>" + end + end)
        else:
            out.emit(line, at)
            out.emit(end + end)
        ms, cue = stop + 400, cue + 1
    return out.done()


if __name__ == "__main__":
    # the splits to export (default dev and dev2; decision 0209 also exported the test half once,
    # to score its Teams export before and after, never to read it)
    for split in sys.argv[1:] or ("dev", "dev2"):
        records = conversations(split)
        for style in STYLES:
            rng = random.Random(194)
            rows = [json.dumps(captioned(r, style, rng)) + "\n" for r in records]
            Path(f"/tmp/{split}-{style}-captions.jsonl").write_text("".join(rows), encoding="utf-8")
        print(split, len(records))
