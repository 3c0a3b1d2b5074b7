"""Worst-case inputs of the ``regex`` detector, timed at two sizes (not a test: a benchmark).

Each case is a record built to make a pattern backtrack: padding after a phone or ID keyword,
a long run of local-part characters before an ``@``, long digit runs after ``+``. Linear time
shows as a ratio near the size ratio (8); the cubic keyword case took 30 s at 2,000 spaces and
the apostrophe e-mail case 49 s at 100 KB before the fixes of this version.

    python research/detection/regex_worst_case.py [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import time

from embedanon.detectors.regex import RegexDetector
from embedanon.pipeline.domains import tld_starts

CASES = {
    "call + spaces": lambda n: "call" + " " * n + "x1 and 5",
    "MRN + spaces": lambda n: "MRN" + " " * n + "none 5",
    "apostrophes before @": lambda n: "a'" * (n // 2) + "@x.com",
    "+ and 40 digits": lambda n: (" +" + "1" * 40) * (n // 42),
    "+ and 30 digits, a letter": lambda n: (" +" + "1" * 30 + "a") * (n // 33),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", help="write the timings here")
    args = parser.parse_args()
    detector = RegexDetector()
    sizes = (1_000, 8_000)
    rows = {}
    for name, make in CASES.items():
        seconds = []
        for n in sizes:
            text = make(n)
            start = time.process_time()
            detector.detect(text)
            tld_starts(text)
            seconds.append(round(time.process_time() - start, 4))
        rows[name] = {"chars": sizes, "cpu_s": seconds, "ratio": round(seconds[1] / max(seconds[0], 1e-4), 1)}
        print(f"{name:28s} {seconds[0]:.3f} s -> {seconds[1]:.3f} s (x{rows[name]['ratio']})")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
