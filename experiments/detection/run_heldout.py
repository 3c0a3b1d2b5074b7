"""Score ``model``, ``regex`` and ``model,regex`` on the held-out sets, and the 10-document domain
adaptation on presidio-research's synthetic sentences.

Run from the repository root (sets made by scripts/make_pii_set.py, see README.md here)::

    python experiments/detection/run_heldout.py --sets DIR --out experiments/detection/heldout
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from train_detector import evaluate, load_jsonl, presidio_records  # noqa: E402

from embedanon.detectors.model import ModelDetector, train  # noqa: E402
from embedanon.detectors.registry import build_detectors  # noqa: E402

PRESIDIO = ROOT / ".." / "shared" / "data" / "presidio-synth" / "synth_dataset_v2.json"


def score(detector, records: list[dict]) -> dict:
    start = time.perf_counter()
    preds = [detector.detect(r["text"]) for r in records]
    secs = time.perf_counter() - start
    res = evaluate(records, preds)
    mb = sum(len(r["text"].encode("utf-8")) for r in records) / 1e6
    res["speed"] = {"docs": len(records), "docs_per_s": len(records) / secs, "mb_per_s": mb / secs}
    return res


def adaptation(tmp: Path, shots: int, seeds: list[int]) -> dict:
    """Adapt on ``shots`` presidio documents (drawn per seed), score on the others."""
    records = presidio_records(PRESIDIO)
    base = ModelDetector()
    out: dict = {"shots": shots, "runs": []}
    for seed in seeds:
        order = sorted(range(len(records)), key=lambda i: zlib.crc32(f"{seed}:{i}".encode()))
        pick = [i for i in order if records[i]["spans"]][:shots]
        rest = [r for i, r in enumerate(records) if i not in set(pick)]
        weights = train([records[i] for i in pick], base="model", seed=seed)
        weights.save(tmp / f"adapted-{shots}-{seed}")
        adapted = ModelDetector(path=tmp / f"adapted-{shots}-{seed}")
        out["runs"].append(
            {
                "seed": seed,
                "train_ids": [records[i]["id"] for i in pick],
                "base": evaluate(rest, [base.detect(r["text"]) for r in rest])["overall"],
                "adapted": evaluate(rest, [adapted.detect(r["text"]) for r in rest])["overall"],
            }
        )
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", required=True, help="directory with test-names/test-locales/test-text .jsonl")
    ap.add_argument("--out", required=True, help="path prefix for .json")
    ap.add_argument("--tmp", default="/tmp/embedanon-adapt")
    args = ap.parse_args()
    sets = {
        name: load_jsonl(Path(args.sets) / f"{name}.jsonl")
        for name in ("test-names", "test-locales", "test-text")
    }
    sets["presidio-synth"] = presidio_records(PRESIDIO)
    results: dict = {"sets": {}}
    for spec in ("model", "regex", "model,regex"):
        detector = build_detectors(spec)
        for name, records in sets.items():
            results["sets"].setdefault(name, {})[spec] = score(detector, records)
            o = results["sets"][name][spec]["overall"]
            print(f"{spec:12s} {name:15s} R={o['recall']:.3f} P={o['precision']:.3f}", file=sys.stderr)
    results["adaptation"] = [adaptation(Path(args.tmp), shots, [0, 1, 2]) for shots in (10, 50)]
    Path(args.out).with_suffix(".json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
