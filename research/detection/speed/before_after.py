"""Detection speed of two source trees (before / after a change) in one sitting: ``scripts/bench.py``'s
``detection_speed`` (``model,regex`` with and without the verifier, and Presidio + spaCy sm, on the
same documents in the same process) run in a fresh process per tree, the trees alternating
(A B A B ...), so the machine's load hits both alike. Each run's ratio to Presidio is measured
in its own process; the report gives every run and the medians.

    python research/detection/speed/before_after.py --before /tmp/old --after . \\
        --corpus corpus.txt --runs 2 --out research/detection/speed/before-after.json

``--corpus``: one document per line (``scripts/bench.py`` builds it from ../shared/data; its
first ``--docs`` lines are timed).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

RUN = """
import json, sys
sys.path.insert(0, {scripts!r})
import bench
print(json.dumps(bench.detection_speed(__import__("pathlib").Path({corpus!r}), {docs}, rounds={rounds})))
"""


def run(tree: Path, corpus: Path, docs: int, rounds: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    code = RUN.format(scripts=str(tree / "scripts"), corpus=str(corpus), docs=docs, rounds=rounds)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--after", type=Path, required=True)
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--docs", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    for _ in range(args.runs):
        for name in ("before", "after"):
            res = run(getattr(args, name).resolve(), args.corpus.resolve(), args.docs, args.rounds)
            runs[name].append(res)
            det = res["detectors"]
            print(f"{name}: model,regex {det['model,regex']['docs_per_s_cpu']:.1f} docs/s (cpu), "
                  f"--no-verify {det['model,regex --no-verify']['docs_per_s_cpu']:.1f}, "
                  f"presidio {det['presidio']['docs_per_s_cpu']:.1f}: "
                  f"{res['ratio_model_regex_vs_presidio']['cpu']:.2f}x cpu, "
                  f"{res['ratio_model_regex_vs_presidio']['wall']:.2f}x wall", file=sys.stderr, flush=True)
    summary = {}
    for name, results in runs.items():
        summary[name] = {
            key: statistics.median(r["detectors"][det][f"docs_per_s_{clock}"] for r in results)
            for det, key_base in (("model,regex", "model_regex"), ("model,regex --no-verify", "no_verify"),
                                  ("presidio", "presidio"))
            for clock, key in (("wall", f"{key_base}_docs_per_s_wall"), ("cpu", f"{key_base}_docs_per_s_cpu"))
        }
        for clock in ("wall", "cpu"):
            summary[name][f"ratio_{clock}"] = statistics.median(
                r["ratio_model_regex_vs_presidio"][clock] for r in results)
    report = {"corpus_docs": args.docs, "rounds": args.rounds, "runs_per_tree": args.runs,
              "order": "before, after alternating", "median": summary, "runs": runs}
    text = json.dumps(report, indent=1)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
