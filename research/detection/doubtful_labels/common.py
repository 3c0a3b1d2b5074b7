"""Shared pieces of the 0136 measurements: the overheard blocks outside the real-text set."""

from __future__ import annotations

import re
import sys
from pathlib import Path

EVALUATION = Path(__file__).resolve().parents[2] / "evaluation"
sys.path.insert(0, str(EVALUATION))

import build_set  # noqa: E402
import score  # noqa: E402


def unused_blocks() -> list[str]:
    """Overheard conversations (blocks with two or more labels) in no half of the set."""
    used = {r["doc"] for split in ("dev", "dev2", "test")
            for r in score.read(score.HERE / "realtext" / f"{split}.jsonl")}
    text = build_set._webtext("overheard.txt")
    out = []
    for m in re.finditer(r"(?:[^\n]+\n?)+", text):
        block = m.group(0).strip()
        if len(score.LABEL_LINE.findall(block)) >= 2 and f"overheard:{m.start()}" not in used:
            out.append(block)
    return out
