"""Decision 0186: which address shapes the evidence test keeps.

1. Faker's street addresses and postal addresses (one line), 300 of each per locale, seed 7: the
   locales the shipped model was trained on and others. The share with no evidence is the share
   of such an address the rule would drop if the model labelled it whole.
2. presidio-research's synthetic sentences (``../shared/data/presidio-synth``): recall of the gold
   STREET_ADDRESS, ZIP_CODE and GPE spans by ``model,regex`` (span coverage >= 50 %), and the
   ADDRESS spans that differ between two runs (``--spans OUT.json`` with each src, then
   ``--compare BEFORE AFTER``).

    PYTHONPATH=src python shapes.py --faker
    PYTHONPATH=<src> python shapes.py --spans OUT.json
    python shapes.py --compare BEFORE.json AFTER.json
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "evaluation"))

from build_set import DATA  # noqa: E402  (the evaluation set's own lookup of ../shared/data)

PRESIDIO = DATA / "presidio-synth" / "synth_dataset_v2.json"
LOCALES = ("en_US", "en_IN", "de_DE", "fr_FR", "es_MX", "en_KE", "it_IT", "nl_NL", "en_GB", "es_ES", "pt_BR",
           "en_AU", "en_CA", "id_ID", "sw", "zu_ZA", "pl_PL", "fi_FI", "es_CO", "es_CL", "en_PK", "zh_TW")


def faker() -> None:
    from faker import Faker

    from embedanon.detectors.rules.streets import address_evidence

    for locale in LOCALES:
        fake = Faker(locale)
        fake.seed_instance(7)
        values = [v for _ in range(300) for v in (fake.street_address(), fake.address().replace("\n", ", "))]
        missing = [v for v in values if not address_evidence(v, 0, len(v))]
        print(f"{locale}: {len(missing)}/{len(values)} without evidence", missing[:3])


def spans(out: str) -> None:
    from embedanon.detectors.registry import build_detectors

    detector = build_detectors("model,regex")
    data = json.loads(PRESIDIO.read_text(encoding="utf-8"))
    recall: Counter[str] = Counter()
    gold: Counter[str] = Counter()
    rows = []
    for record in data:
        text = record["full_text"]
        found = list(detector.detect(text))
        mask = bytearray(len(text))
        for s in found:
            mask[s.start : s.end] = b"\x01" * (s.end - s.start)
        for g in record["spans"]:
            if g["entity_type"] in ("STREET_ADDRESS", "ZIP_CODE", "GPE"):
                a, b = g["start_position"], g["end_position"]
                gold[g["entity_type"]] += 1
                recall[g["entity_type"]] += 2 * mask.count(1, a, b) >= b - a
        rows.append([text, [(s.start, s.end) for s in found if s.label == "ADDRESS"]])
    for kind in sorted(gold):
        print(f"{kind}: {recall[kind]}/{gold[kind]} found")
    Path(out).write_text(json.dumps(rows), encoding="utf-8")


def compare(before: str, after: str) -> None:
    a_rows = json.loads(Path(before).read_text(encoding="utf-8"))
    b_rows = json.loads(Path(after).read_text(encoding="utf-8"))
    for (text, x), (_, y) in zip(a_rows, b_rows, strict=True):
        xs, ys = {tuple(s) for s in x}, {tuple(s) for s in y}
        for s in sorted(xs ^ ys):
            context = text[max(0, s[0] - 40) : s[1] + 20]
            print("+" if s in ys else "-", repr(text[s[0] : s[1]]), "|", repr(context))


if __name__ == "__main__":
    if sys.argv[1] == "--faker":
        faker()
    elif sys.argv[1] == "--spans":
        spans(sys.argv[2])
    else:
        compare(sys.argv[2], sys.argv[3])
