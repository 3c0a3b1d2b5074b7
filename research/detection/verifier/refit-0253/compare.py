"""Decision 0253: the shipped verifier against a refit on real text neither has seen.

    PYTHONPATH=src python research/detection/verifier/refit-0253/compare.py shipped
    PYTHONPATH=src python research/detection/verifier/refit-0253/compare.py REFIT_DIR
    python research/detection/lower_edges/measure_real.py compare OUT/real-shipped.json OUT/real-refit.json

Writes each text's spans (Brown fiction and MTSamples notes outside the set, the text of 0119) to
``OUT`` (default /tmp/vrefit) and prints the FP benchmark's rate.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "lower_edges"))
sys.path.insert(0, str(HERE.parents[2] / "evaluation"))

import measure_real  # noqa: E402
import score  # noqa: E402

from embedanon.detectors.registry import build_detectors  # noqa: E402


def main() -> None:
    which = sys.argv[1]
    out_dir = Path(os.environ.get("OUT", "/tmp/vrefit"))
    detector = build_detectors("model,regex", verify=True if which == "shipped" else which)
    name = "shipped" if which == "shipped" else "refit"
    out = {}
    for rid, text in measure_real.brown_paragraphs() + measure_real.mtsamples_notes():
        out[rid] = [[s.start, s.end, s.label, text[s.start:s.end]] for s in detector.detect(text)]
    (out_dir / f"real-{name}.json").write_text(json.dumps(out), encoding="utf-8")
    print(name, "FP benchmark", score.fp_benchmark(detector)["all"])


if __name__ == "__main__":
    main()
