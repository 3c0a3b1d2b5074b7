"""Dev-half name misses (never the test half): the gold NAME parts (``\\w+`` runs of a gold NAME span)
that no predicted span touches, per register, with and without the verifier, and each miss in
its context for reading, marked whether the first stage proposed it (the verifier dropped it)
or not (the first stage missed it).

    python research/detection/verifier/dev_misses.py            # counts and the list, stdout
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from embedanon.detectors.registry import build_detectors

DEV = Path(__file__).resolve().parents[2] / "evaluation" / "realtext" / "dev.jsonl"


def touched(spans: list, a: int, b: int) -> bool:
    return any(s.start < b and a < s.end for s in spans)


def main() -> int:
    records = [json.loads(x) for x in DEV.read_text("utf-8").splitlines() if x.strip()]
    shipped, first = build_detectors("model,regex"), build_detectors("model,regex", verify=False)
    parts: Counter[str] = Counter()
    missed: dict[str, Counter[str]] = {"first stage": Counter(), "verifier": Counter()}
    lines = []
    for rec in records:
        text, reg = rec["text"], rec["register"]
        kept, proposed = shipped.detect(text), first.detect(text)
        for g in rec["spans"]:
            if g["label"] != "NAME":
                continue
            for m in re.finditer(r"\w+", text[g["start"]:g["end"]]):
                a, b = g["start"] + m.start(), g["start"] + m.end()
                parts[reg] += 1
                if touched(kept, a, b):
                    continue
                why = "verifier" if touched(proposed, a, b) else "first stage"
                missed[why][reg] += 1
                context = text[max(0, a - 40):a] + "[[" + text[a:b] + "]]" + text[b:b + 30]
                context = context.replace("\n", "|")
                lines.append(f"{reg}\t{why}\t{g.get('origin', '')}\t{context}")
    print("register\tparts\tmissed by the first stage\tdropped by the verifier")
    for reg in sorted(parts):
        print(f"{reg}\t{parts[reg]}\t{missed['first stage'][reg]}\t{missed['verifier'][reg]}")
    totals = [sum(parts.values()), sum(missed["first stage"].values()), sum(missed["verifier"].values())]
    print("all\t" + "\t".join(map(str, totals)))
    print()
    print("\n".join(sorted(lines)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
