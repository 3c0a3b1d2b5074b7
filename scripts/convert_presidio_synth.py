"""Convert presidio-research's synthetic PII set to embedanon's spans.jsonl format.

Input: ``synth_dataset_v2.json`` (../shared/data/presidio-synth, MIT, all values fake): a JSON list of
``{full_text, spans: [{entity_type, entity_value, start_position, end_position}], ...}`` with
end-exclusive offsets. Output: one ``{"id", "text", "spans": [{"start", "end", "label"}]}`` per line.

Entity types are mapped onto embedanon labels by ``TYPE_LABELS``; ``ORGANIZATION``, ``TITLE`` (job
titles) and ``NRP`` (nationality, religion, politics) are not personal identifiers in embedanon's
label set and are dropped, so a prediction on them counts against precision. ``GPE`` (cities,
countries) and ``ZIP_CODE`` become ``ADDRESS`` (HIPAA Safe Harbor lists geographic subdivisions).

    python scripts/convert_presidio_synth.py ../shared/data/presidio-synth/synth_dataset_v2.json \
        -o presidio-synth.jsonl
"""

from __future__ import annotations

import argparse
import collections
import json
import sys

TYPE_LABELS = {
    "PERSON": "NAME", "STREET_ADDRESS": "ADDRESS", "GPE": "ADDRESS", "ZIP_CODE": "ADDRESS",
    "CREDIT_CARD": "ID", "IBAN_CODE": "ID", "US_SSN": "ID", "US_DRIVER_LICENSE": "ID",
    "DATE_TIME": "DATE", "PHONE_NUMBER": "PHONE", "AGE": "AGE", "EMAIL_ADDRESS": "EMAIL",
    "DOMAIN_NAME": "URL", "IP_ADDRESS": "IP",
}
DROPPED = {"ORGANIZATION", "TITLE", "NRP"}


def convert(records: list[dict]) -> tuple[list[dict], collections.Counter]:
    out, counts = [], collections.Counter()
    for i, record in enumerate(records):
        text = record["full_text"]
        spans = []
        for span in record["spans"]:
            kind, start, end = span["entity_type"], span["start_position"], span["end_position"]
            if text[start:end] != span["entity_value"]:
                raise SystemExit(f"record {i}: a span's offsets do not match its value")
            if kind in DROPPED:
                counts[f"dropped {kind}"] += 1
                continue
            if kind not in TYPE_LABELS:
                raise SystemExit(f"record {i}: unknown entity type {kind!r}")
            spans.append({"start": start, "end": end, "label": TYPE_LABELS[kind]})
            counts[TYPE_LABELS[kind]] += 1
        spans.sort(key=lambda s: (s["start"], s["end"]))
        out.append({"id": f"synth-{i}", "text": text, "spans": spans})
    return out, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help="synth_dataset_v2.json")
    parser.add_argument("-o", "--output", default="-", help="spans.jsonl to write ('-': stdout)")
    args = parser.parse_args()
    with open(args.input, encoding="utf-8") as fh:
        records, counts = convert(json.load(fh))
    lines = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    if args.output == "-":
        sys.stdout.write(lines)
    else:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(lines)
    summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    print(f"{len(records)} records; {summary}", file=sys.stderr)


if __name__ == "__main__":
    main()
