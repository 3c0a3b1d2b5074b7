"""Domain adaptation with presidio-synth's unmapped entities as ignored regions or as O (decision 0611).

Adapts the shipped model on ``--shots`` documents of presidio-research's ``generated_large.json``
(drawn per seed as ``run_heldout.adaptation`` draws them) twice: with the ORGANIZATION, GPE, TITLE
and NRP spans given as the span format's ``ignore`` regions (left out of training since 0611) and
with them trained as ``O`` (what training did before). Both are scored on the other documents with
the project's evaluator, those regions ignored as in ``evaluate-detection``.

    python research/detection/ignore_regions/measure.py --out research/detection/ignore_regions/results.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "research" / "scripts"))

from train_detector import presidio_records  # noqa: E402

from embedanon.detectors.evaluate import evaluate, read_records  # noqa: E402
from embedanon.detectors.model import ModelDetector  # noqa: E402
from embedanon.detectors.training import train  # noqa: E402

DATA = Path("/work/shared/data/presidio-synth/generated_large.json")  # the shared corpora (SOURCE.md there)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shots", type=int, default=10)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--score", type=int, default=600, help="documents scored (the first N not drawn)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    records = [{**{k: v for k, v in r.items() if k != "meta"}, "ignore": r["meta"]["ignore"]}
               for r in presidio_records(DATA)]
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in args.seeds:
            order = sorted(range(len(records)), key=lambda i: zlib.crc32(f"{seed}:{i}".encode()))
            pick = [i for i in order if records[i]["spans"]][: args.shots]
            chosen = set(pick)
            rest = [records[i] for i in order if i not in chosen][: args.score]
            fields = ("id", "text", "spans", "ignore")
            gold = read_records((json.dumps({k: r[k] for k in fields}) for r in rest), "presidio")
            regions = sum(len(records[i]["ignore"]) for i in pick)
            row: dict = {"seed": seed, "ignored_regions_in_training": regions}
            for variant, train_records in (
                ("ignored", [records[i] for i in pick]),
                ("as_O", [{**records[i], "ignore": []} for i in pick]),
            ):
                weights = train(train_records, base="model", seed=seed)
                detector = ModelDetector(path=weights.save(Path(tmp) / f"{variant}-{seed}"))
                overlap = evaluate(gold, detector).to_dict()["overlap"]
                row[variant] = {k: overlap[k] for k in ("recall", "precision", "f1", "f5")}
            runs.append(row)
            print(json.dumps(row), file=sys.stderr)
    result = {"data": "presidio-synth generated_large.json", "shots": args.shots, "scored": args.score,
              "runs": runs}
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
