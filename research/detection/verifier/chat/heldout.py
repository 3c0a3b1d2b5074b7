"""Decision 0233: verifiers on chat records they were not fitted on.

    PYTHONPATH=src python research/detection/verifier/chat/heldout.py HELD.jsonl NAME=VERIFIER ...

``VERIFIER`` is ``shipped``, ``off`` or a directory written by ``train_verifier.py --out``. For each,
on the records of ``HELD.jsonl`` (``chat_set.py``, one fold): recall of the injected names (a gold
span is found when the kept spans cover >= 50 % of it, the scorer's rule) in total and by shape and
letter case, recall of the real private names, and the false NAME spans kept (a kept NAME span
that gold covers < 50 %) per 1,000 words.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from embedanon.detectors.registry import build_detectors


def covered(spans: list, a: int, b: int) -> bool:
    return 2 * sum(max(0, min(b, s.end) - max(a, s.start)) for s in spans) >= b - a


def measure(records: list[dict], verify: object) -> dict:
    detector = build_detectors("model,regex", verify=verify)
    found, total, false, words = Counter(), Counter(), 0, 0
    for rec in records:
        text, spans = rec["text"], detector.detect(rec["text"])
        words += len(text.split())
        mask = bytearray(len(text))
        for g in rec["spans"]:
            mask[g["start"]:g["end"]] = b"\x01" * (g["end"] - g["start"])
            keys = ["all", g["origin"]]
            if g["origin"] == "injected":
                keys += [f"shape:{g['shape']}", f"mode:{g['mode']}"]
            hit = covered(spans, g["start"], g["end"])
            for k in keys:
                total[k] += 1
                found[k] += hit
        false += sum(1 for s in spans
                     if s.label == "NAME" and 2 * mask.count(1, s.start, s.end) < s.end - s.start)
    out = {k: f"{found[k]}/{total[k]} = {found[k] / total[k]:.3f}" for k in sorted(total)}
    out[f"false NAME /{words} words"] = f"{false} = {1000 * false / words:.2f}/1k"
    return out


def main() -> None:
    lines = Path(sys.argv[1]).read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line]
    results = {}
    for arg in sys.argv[2:]:
        name, _, which = arg.partition("=")
        verify = {"shipped": True, "off": False}.get(which, which)
        results[name] = measure(records, verify)
    keys = list(next(iter(results.values())))
    print(f"{'':24}" + "".join(f"{n:>28}" for n in results))
    for k in keys:
        print(f"{k:24}" + "".join(f"{results[n][k]:>28}" for n in results))


if __name__ == "__main__":
    main()
