"""Decision 0232: how often a name the body shows sits inside a role label, on real text.

    PYTHONPATH=src python research/detection/role_names/measure.py

Texts: ``corpora.outside_where`` (the real corpora outside the test half) with 2+ line-start
labels. For each, the default detector's spans, propagated as the scopes do, and the role ranges;
prints each label piece that ``named_in_roles`` takes out of a role (for reading by hand) and the
counts.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "given_names"))
import corpora  # noqa: E402

from embedanon.detectors.registry import build_detectors  # noqa: E402
from embedanon.pipeline.scope import named_in_roles, propagate  # noqa: E402
from embedanon.structure import role_ranges  # noqa: E402

_LABELS = re.compile(r"^[^:\n]{1,40}:", re.M)


def main() -> None:
    texts = corpora.outside_where(lambda corpus, text: len(_LABELS.findall(text)) >= 2)
    detector = build_detectors("model,regex")
    records = labels = cut = 0
    for rid, text in texts:
        roles = role_ranges(text)
        if not roles:
            continue
        records += 1
        labels += len(roles)
        pieces = named_in_roles(text, propagate(text, detector.detect(text)), roles)
        for a, b in pieces:
            cut += 1
            line = text[text.rfind("\n", 0, a) + 1 : a] + "[[" + text[a:b] + "]]" + text[b : b + 20]
            print(f"{rid}\t{line.splitlines()[0]}")
    print(f"{len(texts)} texts with 2+ labels; {records} with role ranges ({labels} ranges); "
          f"{cut} label pieces replaced", file=sys.stderr)


if __name__ == "__main__":
    main()
