"""Score ``model``, ``regex`` and ``model,regex`` on the held-out sets with the project's
evaluator (``embedanon evaluate-detection``'s ``evaluate``: span coverage >= 50 %), and the
few-document domain adaptation on presidio-research's synthetic sentences.

Run from the repository root (sets made by research/scripts/make_pii_set.py, see README.md here)::

    python research/detection/run_heldout.py --sets DIR --out research/detection/heldout

presidio-synth is scored under the gold mappings and halves of ``research/scripts/convert_presidio_synth.py``
(``--presidio NAME=MAPPING:HALF``, repeatable): by default the whole file and the TEST half, each
under the old mapping ``v1`` and the new ``v2`` (the DEV half is for error analysis only:
``presidio_dev_errors.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from convert_presidio_synth import convert  # noqa: E402
from train_detector import presidio_records  # noqa: E402

from embedanon.detectors.evaluate import evaluate, read_records  # noqa: E402
from embedanon.detectors.model import ModelDetector  # noqa: E402
from embedanon.detectors.registry import build_detectors  # noqa: E402
from embedanon.detectors.training import train  # noqa: E402

PRESIDIO = ROOT / ".." / "shared" / "data" / "presidio-synth" / "synth_dataset_v2.json"
SETS = ("test-names", "test-locales", "test-text", "test-crapii")  # test-crapii: round 4, when present


def gold(records: list[dict]) -> list:
    """Project GoldRecords from dicts (presidio's unmapped types are simply absent)."""
    keep = ("id", "text", "spans", "ignore")
    return read_records((json.dumps({k: r[k] for k in keep if k in r}) for r in records), "set")


def summary(report) -> dict:
    d = report.to_dict()
    keep = (
        "documents",
        "docs_per_second",
        "megabytes_per_second",
        "overlap",
        "typed",
        "per_label",
        "groups",
        "group_test",
    )
    return {k: d[k] for k in keep}


def adaptation(tmp: Path, shots: int, seeds: list[int]) -> dict:
    """Adapt the shipped model on ``shots`` presidio documents (drawn per seed), score the rest."""
    records = presidio_records(PRESIDIO)
    base = build_detectors("model")
    out: dict = {"shots": shots, "runs": []}
    for seed in seeds:
        order = sorted(range(len(records)), key=lambda i: zlib.crc32(f"{seed}:{i}".encode()))
        pick = [i for i in order if records[i]["spans"]][:shots]
        chosen = set(pick)
        rest = gold([r for i, r in enumerate(records) if i not in chosen])
        weights = train([records[i] for i in pick], base="model", seed=seed)
        adapted = ModelDetector(path=weights.save(tmp / f"adapted-{shots}-{seed}"))
        out["runs"].append(
            {
                "seed": seed,
                "train_ids": [records[i]["id"] for i in pick],
                "base": summary(evaluate(rest, base))["overlap"],
                "adapted": summary(evaluate(rest, adapted))["overlap"],
            }
        )
        b, a = out["runs"][-1]["base"], out["runs"][-1]["adapted"]
        print(
            f"adapt {shots} seed {seed}: R {b['recall']:.3f}->{a['recall']:.3f} "
            f"P {b['precision']:.3f}->{a['precision']:.3f}",
            file=sys.stderr,
        )
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default=None, help="directory with test-names/test-locales/test-text .jsonl "
                    "(omitted: presidio-synth only)")
    ap.add_argument("--out", required=True, help="path prefix for .json")
    ap.add_argument("--tmp", default="/tmp/embedanon-adapt")
    ap.add_argument("--detectors", default="model,regex,model+regex")
    ap.add_argument("--skip-adaptation", action="store_true")
    ap.add_argument("--sub-docs", type=int, default=300, help="documents per set for presidio / NAME-sub")
    ap.add_argument("--presidio", action="append", default=None, metavar="NAME=MAPPING:HALF",
                    help="presidio-synth sets to score (default: whole file and TEST half, v1 and v2; "
                    "'none': no presidio-synth set)")
    ap.add_argument("--model-path", default=None, help="score this model directory, not the shipped one")
    args = ap.parse_args()
    specs = args.presidio or ["presidio-synth=v1:all", "presidio-synth-test=v1:test",
                              "presidio-synth-v2=v2:all", "presidio-synth-test-v2=v2:test"]
    sets = {
        name: gold(
            [
                json.loads(x)
                for x in (Path(args.sets) / f"{name}.jsonl").read_text("utf-8").split("\n")
                if x.strip()
            ]
        )
        for name in (SETS if args.sets else ())
        if name != "test-crapii" or (Path(args.sets) / f"{name}.jsonl").exists()
    }
    raw = json.loads(PRESIDIO.read_text(encoding="utf-8"))
    for item in (spec for spec in specs if spec != "none"):
        name, _, how = item.partition("=")
        mapping, _, half = how.partition(":")
        sets[name] = gold(convert(raw, mapping=mapping, half=half)[0])
    results: dict = {"matching": "project evaluator, min_coverage 0.5", "presidio_sets": specs,
                     "model_path": args.model_path, "sets": {}}
    extra = {"model_path": args.model_path} if args.model_path else {}
    for spec in filter(None, args.detectors.split(",")):
        names = spec.removesuffix("-sub").replace("+", ",")
        detector = build_detectors(names, **(extra if "model" in names.split(",") else {}))
        for name, records in sets.items():
            if spec == "presidio" or spec.endswith("-sub"):  # Presidio is slow: the first N documents
                records = records[: args.sub_docs]
            rep = summary(evaluate(records, detector))
            results["sets"].setdefault(name, {})[spec.replace("+", ",")] = rep
            o = rep["overlap"]
            print(
                f"{spec:12s} {name:15s} R={o['recall']:.3f} P={o['precision']:.3f} "
                f"{rep['docs_per_second']:.0f} docs/s",
                file=sys.stderr,
            )
    if not args.skip_adaptation:
        results["adaptation"] = [adaptation(Path(args.tmp), shots, [0, 1, 2]) for shots in (10, 50)]
    Path(args.out).with_suffix(".json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
