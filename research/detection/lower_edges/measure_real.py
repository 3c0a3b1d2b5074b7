"""Decision 0119, measured on real text outside the evaluation set: what the ``lower_edges`` rule
changes on the Brown corpus's fiction (categories ck, cl, cm, cn, cp, cr: characters' names next to
verbs) and on MTSamples notes that no evaluation record comes from.

Run twice, once per source tree, then compare:

    PYTHONPATH=/path/to/before/src python measure_real.py dump before.json
    PYTHONPATH=src python measure_real.py dump after.json
    python measure_real.py compare before.json after.json   # counts, and every change, for reading

The changes are read by hand (``report.md``): a trimmed word that belongs to no name is right, a
span the rule lets the verifier keep is right when it is a person's name.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import random
import re
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: ../shared/data beside the checkout (or inside it), or $EMBEDANON_SHARED_DATA (as build_set.py)
DATA = next((p for p in (Path(os.environ.get("EMBEDANON_SHARED_DATA", "/nonexistent")),
                         HERE.parents[2] / "shared" / "data", HERE.parents[3] / "shared" / "data",
                         Path("/work/shared/data")) if p.is_dir()), HERE.parents[2] / "shared" / "data")
EVAL = Path(__file__).resolve().parents[2] / "evaluation" / "realtext"
FICTION = ("ck", "cl", "cm", "cn", "cp", "cr")
SEED = 119


def _detokenize(tokens: list[str]) -> str:
    text = " ".join("\"" if t in ("``", "''") else t for t in tokens)
    text = re.sub(r" ([.,;:?!)])", r"\1", text)
    return re.sub(r"\( ", "(", text)


def brown_paragraphs() -> list[tuple[str, str]]:
    out = []
    with zipfile.ZipFile(DATA / "nltk_data" / "corpora" / "brown.zip") as z:
        for name in sorted(z.namelist()):
            base = name.rsplit("/", 1)[-1]
            if base[:2] not in FICTION or len(base) != 4:
                continue
            for k, para in enumerate(re.split(r"\n\s*\n", z.read(name).decode("utf-8"))):
                tokens = [t.rsplit("/", 1)[0] for t in para.split() if "/" in t]
                if len(tokens) >= 8:
                    out.append((f"brown:{base}:{k}", _detokenize(tokens)))
    return out


def mtsamples_notes(n: int = 1000) -> list[tuple[str, str]]:
    used = set()
    for path in EVAL.glob("*.jsonl"):
        for line in path.open(encoding="utf-8"):
            doc = json.loads(line).get("doc", "")
            if doc.startswith("mtsamples"):
                used.add(doc.split(":", 1)[1])
    with gzip.open(DATA / "mtsamples" / "mtsamples.csv.gz", "rt", encoding="utf-8") as f:
        rows = [(f"mtsamples:{r['note_id']}", r["transcription"]) for r in csv.DictReader(f)
                if r["note_id"] not in used and r["transcription"].strip()]
    random.Random(SEED).shuffle(rows)
    return rows[:n]


def dump(path: str) -> None:
    from embedanon.detectors.registry import build_detectors

    detector = build_detectors("model,regex")
    out = {}
    for rid, text in brown_paragraphs() + mtsamples_notes():
        out[rid] = [[s.start, s.end, s.label, text[s.start:s.end]] for s in detector.detect(text)]
    Path(path).write_text(json.dumps(out), encoding="utf-8")


def compare(before_path: str, after_path: str) -> None:
    before = json.loads(Path(before_path).read_text(encoding="utf-8"))
    after = json.loads(Path(after_path).read_text(encoding="utf-8"))
    counts = {"records": len(after), "spans before": 0, "spans after": 0, "trimmed": 0, "added": 0,
              "removed": 0}
    for rid, spans in after.items():
        old = {tuple(s) for s in before[rid]}
        new = {tuple(s) for s in spans}
        counts["spans before"] += len(old)
        counts["spans after"] += len(new)
        for s in sorted(new - old):
            inside = [o for o in old - new if o[0] <= s[0] and s[1] <= o[1]]
            if inside:
                counts["trimmed"] += 1
                print(f"TRIM  {rid}  {inside[0][3]!r} -> {s[3]!r}")
            else:
                counts["added"] += 1
                print(f"ADD   {rid}  {s[3]!r}")
        for o in sorted(old - new):
            if not any(s[0] >= o[0] and s[1] <= o[1] for s in new - old):
                counts["removed"] += 1
                print(f"DROP  {rid}  {o[3]!r}")
    print(json.dumps(counts))


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(sys.argv[2])
    else:
        compare(sys.argv[2], sys.argv[3])
