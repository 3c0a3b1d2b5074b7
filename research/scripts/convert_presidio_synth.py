"""Convert presidio-research's synthetic PII set to embedanon's spans.jsonl format.

Input: ``synth_dataset_v2.json`` (../shared/data/presidio-synth, MIT, all values fake): a JSON list of
``{full_text, spans: [{entity_type, entity_value, start_position, end_position}], template_id, ...}``
with end-exclusive offsets. Output: one ``{"id", "text", "spans": [{"start", "end", "label"}],
"ignore"?: [[start, end], ...]}`` per line (``ignore``: see ``embedanon.detectors.evaluate``).

Mappings (``--mapping``):

* ``v1`` (the README's first presidio-synth numbers, ``research/detection/heldout.json`` before
  the DEV/TEST split): ``PERSON`` -> NAME, ``STREET_ADDRESS`` and ``ZIP_CODE`` -> ADDRESS,
  ``DATE_TIME`` -> DATE, ``PHONE_NUMBER`` -> PHONE, ``AGE``, ``EMAIL_ADDRESS`` -> EMAIL,
  ``DOMAIN_NAME`` -> URL, ``IP_ADDRESS`` -> IP, ``CREDIT_CARD``/``IBAN_CODE``/``US_SSN``/
  ``US_DRIVER_LICENSE`` -> ID. ``GPE``, ``ORGANIZATION``, ``TITLE`` and ``NRP`` are dropped, so a
  prediction on a city, a company, a job title or a nationality counts against precision.
* ``v1-gpe``: ``v1`` with ``GPE`` -> ADDRESS (the regex / Presidio per-label table in the README).
* ``v2`` (after the DEV analysis; stated, not hidden): as ``v1``, but the types and values that
  embedanon's label set deliberately excludes become *ignored regions* (neither a miss nor a false
  positive): ``GPE`` (cities and countries on their own), ``ORGANIZATION``, ``TITLE``, ``NRP``, and
  ``DATE_TIME`` values that ``regex`` documents as not dates (a bare year such as ``During 1971``,
  a clock time, a weekday or month name alone).

Halves (``--half``): presidio-synth is split by *template* so that no sentence pattern is on both
sides: a record is DEV when ``zlib.crc32(f"presidio-synth:{template_id}".encode()) % 2 == 0``,
else TEST (713 / 787 records, 102 / 107 templates). Error analysis and fixes look at DEV only.

    python research/scripts/convert_presidio_synth.py ../shared/data/presidio-synth/synth_dataset_v2.json \
        -o presidio-synth.jsonl [--mapping v2] [--half dev|test|all]
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
import zlib

from embedanon.detectors.presidio import ENTITY_LABELS

#: the presidio-research types that count as gold (v1), labelled by the product's one Presidio map
BASE_LABELS = {kind: ENTITY_LABELS[kind] for kind in (
    "PERSON", "STREET_ADDRESS", "ZIP_CODE", "CREDIT_CARD", "IBAN_CODE", "US_SSN", "US_DRIVER_LICENSE",
    "DATE_TIME", "PHONE_NUMBER", "AGE", "EMAIL_ADDRESS", "DOMAIN_NAME", "IP_ADDRESS")}
OUTSIDE = ("GPE", "ORGANIZATION", "TITLE", "NRP")
MAPPINGS = ("v1", "v1-gpe", "v2")
#: DATE_TIME values that are not dates in embedanon's label set (README, "What regex decides")
_NOT_A_DATE = re.compile(
    r"(?:1[6-9]|20)\d\d|\d{1,2}(?::\d\d){0,2}\s*(?:[ap]\.?m\.?)?|noon|midnight|(?:this |last |next )?"
    r"(?:morning|afternoon|evening|night|tonight|today|tomorrow|yesterday|weekend|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|"
    r"june|july|august|september|october|november|december)",
    re.IGNORECASE,
)
#: presidio types that exist in some mapping (an unknown type is an error)
KNOWN = {*BASE_LABELS, *OUTSIDE}


def half_of(template_id: object) -> str:
    """``"dev"`` or ``"test"`` for one template id (the rule in the module docstring)."""
    return "dev" if zlib.crc32(f"presidio-synth:{template_id}".encode()) % 2 == 0 else "test"


def convert(records: list[dict], *, mapping: str = "v1-gpe", half: str = "all"
            ) -> tuple[list[dict], collections.Counter]:
    """Records in embedanon's format under ``mapping``, only those of ``half``; and span counts.

    Record ids are ``synth-<index in the input file>`` whatever the half.
    """
    if mapping not in MAPPINGS or half not in ("dev", "test", "all"):
        raise ValueError("mapping must be v1, v1-gpe or v2 and half dev, test or all")
    out, counts = [], collections.Counter()
    for i, record in enumerate(records):
        if half != "all" and half_of(record.get("template_id")) != half:
            continue
        text = record["full_text"]
        spans, ignore = [], []
        for span in record["spans"]:
            kind, start, end = span["entity_type"], span["start_position"], span["end_position"]
            if text[start:end] != span["entity_value"]:
                raise SystemExit(f"record {i}: a span's offsets do not match its value")
            if kind not in KNOWN:
                raise SystemExit(f"record {i}: unknown entity type {kind!r}")
            if mapping == "v1-gpe" and kind == "GPE":
                label = "ADDRESS"
            elif mapping == "v2" and (kind in OUTSIDE or (
                    kind == "DATE_TIME" and _NOT_A_DATE.fullmatch(text[start:end].strip()))):
                ignore.append([start, end])
                counts[f"ignored {kind}"] += 1
                continue
            elif kind in OUTSIDE:
                counts[f"dropped {kind}"] += 1
                continue
            else:
                label = BASE_LABELS[kind]
            spans.append({"start": start, "end": end, "label": label})
            counts[label] += 1
        spans.sort(key=lambda s: (s["start"], s["end"]))
        item = {"id": f"synth-{i}", "text": text, "spans": spans}
        if ignore:
            item["ignore"] = sorted(ignore)
        out.append(item)
    return out, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help="synth_dataset_v2.json")
    parser.add_argument("-o", "--output", default="-", help="spans.jsonl to write ('-': stdout)")
    parser.add_argument("--mapping", choices=MAPPINGS, default="v1-gpe")
    parser.add_argument("--half", choices=("dev", "test", "all"), default="all")
    args = parser.parse_args()
    with open(args.input, encoding="utf-8") as fh:
        records, counts = convert(json.load(fh), mapping=args.mapping, half=args.half)
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
