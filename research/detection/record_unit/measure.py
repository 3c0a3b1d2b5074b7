"""Decision 0115: transcripts, scripts and forum chunks detected as whole records against line by line
(what a ``.txt`` input does: one record per line), on the real-text dev and dev2 halves (never test).

    python research/detection/record_unit/measure.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "evaluation"))
import score as S  # noqa: E402

from embedanon.detectors.base import Span  # noqa: E402
from embedanon.detectors.evaluate import Counts, GoldSpan, score_document  # noqa: E402


def main() -> None:
    detector = S.build("model,regex")
    for split in ("dev", "dev2"):
        records = [r for r in S.read(S.HERE / "realtext" / f"{split}.jsonl")
                   if r["register"] in ("transcript", "script", "forum")]
        whole, lines = Counts(), Counts()
        flagged_whole = flagged_lines = labels = 0
        for rec in records:
            text = rec["text"]
            gold = [GoldSpan(s["start"], s["end"], s["label"], s.get("group")) for s in rec["spans"]]
            by_record = list(detector.detect(text))
            by_line: list[Span] = []
            offset = 0
            for line in text.split("\n"):
                by_line += [Span(p.start + offset, p.end + offset, p.label, p.score, p.source)
                            for p in detector.detect(line)]
                offset += len(line) + 1
            whole += score_document(text, gold, by_record)[0]
            lines += score_document(text, gold, by_line)[0]
            for a, b in S.role_labels(rec):
                labels += 1
                flagged_whole += any(p.start < b and a < p.end for p in by_record)
                flagged_lines += any(p.start < b and a < p.end for p in by_line)
        print(f"{split}: {len(records)} records; whole records P {whole.precision:.3f} R {whole.recall:.3f}; "
              f"line by line P {lines.precision:.3f} R {lines.recall:.3f}; role labels flagged "
              f"{flagged_whole} vs {flagged_lines} of {labels}")


if __name__ == "__main__":
    main()
