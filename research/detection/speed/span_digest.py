"""Digest of the spans ``build_detectors("model,regex")`` predicts on the real-text evaluation
set (dev, test) and the false-positive benchmark, with and without the verifier: one SHA-256 per
file, over every span's (record, start, end, label, score, source). Used to show that a speed
change leaves every output as it was; it prints hashes and counts only, never a span or an error.

    python research/detection/speed/span_digest.py --out research/detection/speed/digest-before.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from embedanon.detectors.registry import build_detectors

HERE = Path(__file__).resolve().parents[2] / "evaluation" / "realtext"
FILES = ("dev.jsonl", "test.jsonl", "fp_benchmark.jsonl")


def digest(texts: list[str], detector: object) -> dict[str, object]:
    h = hashlib.sha256()
    n = 0
    for i, text in enumerate(texts):
        for s in detector.detect(text):  # type: ignore[attr-defined]
            h.update(f"{i}\t{s.start}\t{s.end}\t{s.label}\t{s.score!r}\t{s.source}\n".encode())
            n += 1
    return {"sha256": h.hexdigest(), "spans": n, "texts": len(texts)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--extra", type=Path, help="a text file, one document per line (e.g. the bench corpus)")
    args = ap.parse_args()
    sets = {name: [json.loads(x)["text"] for x in (HERE / name).read_text("utf-8").splitlines() if x.strip()]
            for name in FILES}
    if args.extra:
        sets[args.extra.name] = args.extra.read_text("utf-8").splitlines()
    out: dict[str, object] = {}
    for verify in (True, False):
        detector = build_detectors("model,regex", verify=verify)
        for name, texts in sets.items():
            out[f"{name} verify={verify}"] = digest(texts, detector)
    args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
