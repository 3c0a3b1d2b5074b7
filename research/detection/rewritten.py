"""A record of the real-text halves written again in another layout (a caption file, a
transcription service's export), its gold spans moved with the text they cover: the helper of
``caption_files/caption_view.py`` (decision 0194) and ``speaker_lines/otter_view.py`` (0199)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

REALTEXT = Path(__file__).resolve().parents[1] / "evaluation" / "realtext"


def conversations(split: str) -> list[dict]:
    """The transcripts and scripts of the real-text half ``split`` (``dev`` or ``dev2``)."""
    lines = (REALTEXT / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()
    return [r for r in map(json.loads, lines) if r["register"] in ("transcript", "script")]


class Rewrite:
    """The new text of ``record``, written piece by piece; a piece copied from the old text names
    where it came from, so the gold spans inside it move with it."""

    def __init__(self, record: dict) -> None:
        self.record = record
        self.pieces: list[str] = []
        self.length = 0
        self.moves: list[tuple[int, int, int]] = []  # (old start, new start, length) of copies

    def emit(self, piece: str, original: int | None = None) -> None:
        """Write ``piece``; ``original``: its offset in the old text when it is copied from there."""
        if original is not None:
            self.moves.append((original, self.length, len(piece)))
        self.pieces.append(piece)
        self.length += len(piece)

    def _moved(self, start: int, stop: int) -> tuple[int, int]:
        for a, b, n in self.moves:
            if a <= start and stop <= a + n:
                return b + start - a, b + stop - a
        raise ValueError("a span crosses a cut")

    def done(self) -> dict:
        """The record with the new text and its gold spans moved (each checked to cover the same
        characters)."""
        text, new_text = self.record["text"], "".join(self.pieces)
        spans = []
        for s in self.record["spans"]:
            a, b = self._moved(s["start"], s["end"])
            assert new_text[a:b] == text[s["start"]:s["end"]]
            spans.append({**s, "start": a, "end": b})
        return {**self.record, "text": new_text, "spans": spans}


def lines_with_offsets(text: str) -> Iterator[tuple[int, str]]:
    """Each line of ``text`` (split at LF) with its offset."""
    at = 0
    for line in text.split("\n"):
        yield at, line
        at += len(line) + 1
