"""Score a trained model with ``train_detector.py``'s own evaluator (any-overlap, traps flagged) on
the held-out sets, writing the same ``.json`` / ``.md`` tables as ``train_detector.py --test``,
without retraining (round 3: the model was chosen on development data first, then scored once).

    python research/detection/score_model.py --model src/embedanon/detectors/data/model \
        --train-results /tmp/r3-res.json --sets /tmp/pii --out research/detection/model
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import train_detector as td  # noqa: E402

from embedanon.detectors.model import ModelDetector  # noqa: E402

PRESIDIO = ROOT / ".." / "shared" / "data" / "presidio-synth" / "synth_dataset_v2.json"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True, help="model directory")
    ap.add_argument("--train-results", required=True, help="train_detector.py --results JSON (dev sweep)")
    ap.add_argument("--sets", required=True, help="directory with test-names/test-locales/test-text .jsonl")
    ap.add_argument("--out", required=True, help="path prefix for .json and .md")
    args = ap.parse_args()
    det = ModelDetector(path=args.model)
    results = {"threshold": det.threshold,
               "dev_sweep": json.loads(Path(args.train_results).read_text())["dev_sweep"], "sets": {}}
    names = ("test-names", "test-locales", "test-text", "test-crapii")  # test-crapii: round 4, when present
    tests = [(n, Path(args.sets) / f"{n}.jsonl") for n in names if (Path(args.sets) / f"{n}.jsonl").exists()]
    for name, path in [*tests, ("presidio-synth", PRESIDIO)]:
        records = td.presidio_records(path) if name == "presidio-synth" else td.load_jsonl(path)
        began = time.perf_counter()
        preds = [det.detect(r["text"]) for r in records]
        secs = time.perf_counter() - began
        res = td.evaluate(records, preds)
        mb = sum(len(r["text"].encode("utf-8")) for r in records) / 1e6
        res["speed"] = {"docs": len(records), "docs_per_s": len(records) / secs, "mb_per_s": mb / secs}
        results["sets"][name] = res
        print(name, json.dumps(res["overall"]), file=sys.stderr)
    results["manifest"] = json.loads((Path(args.model) / "manifest.json").read_text())
    out = Path(args.out)
    out.with_suffix(".json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    out.with_suffix(".md").write_text(td.markdown(results), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
