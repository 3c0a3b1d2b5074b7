#!/usr/bin/env python
"""Digest of ``anonymize`` outputs over a fixed corpus, to show a refactor changes no output.

Builds a small fixed corpus of real text (the first clinical notes of MTSamples, the first IMDB
reviews, presidio-research's synthetic PII sentences, ``examples/clinical_note.txt``), writes a
fixed release key (not secret: for this check only), runs the ``anonymize`` command on it in
several configurations (five mechanisms, the three scopes, txt and jsonl) and prints one SHA-256
per configuration and one over all of them. Compare two commits with the same script and data:
identical digests mean byte-identical outputs.

    .venv/bin/python research/house/digest.py            # about a minute
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import json
import lzma
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data" if (REPO.parent / "shared").is_dir() else Path("/work/shared/data")
KEY_HEX = hashlib.sha256(b"embedanon house digest, not a secret").hexdigest()
DOCS_PER_SOURCE = 25
MAX_CHARS = 1200

#: name -> extra arguments of ``anonymize``
RUNS: dict[str, list[str]] = {
    "knn": [],
    "knn-k3": ["--k", "3"],
    "laplace": ["-m", "laplace", "--epsilon", "12"],
    "mahalanobis": ["-m", "mahalanobis", "--epsilon", "12"],
    "exponential": ["-m", "exponential", "--epsilon", "10"],
    "tem": ["-m", "tem", "--epsilon", "10", "--gamma", "1.0"],
    "detected": ["--scope", "detected"],
    "detected-redact": ["--scope", "detected", "--strategy", "DEFAULT=redact"],
    "hybrid-knn": ["--scope", "hybrid"],
    "hybrid-exponential": ["--scope", "hybrid", "-m", "exponential", "--epsilon", "12"],
    "sentence-unit": ["--noise-unit", "sentence"],
}


def _csv_column(path: Path, column: str, opener) -> list[str]:
    csv.field_size_limit(sys.maxsize)
    out = []
    with opener(path, "rt", encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            text = " ".join((row.get(column) or "").replace("<br />", " ").split())
            if text:
                out.append(text[:MAX_CHARS])
            if len(out) == DOCS_PER_SOURCE:
                break
    return out


def corpus() -> list[str]:
    docs = _csv_column(DATA / "mtsamples" / "mtsamples.csv.gz", "transcription", gzip.open)
    docs += _csv_column(DATA / "imdb" / "imdb_train.csv.xz", "text", lzma.open)
    synth = json.loads((DATA / "presidio-synth" / "synth_dataset_v2.json").read_text(encoding="utf-8"))
    docs += [" ".join(r["full_text"].split()) for r in synth[:DOCS_PER_SOURCE]]
    docs.append(" ".join((REPO / "examples" / "clinical_note.txt").read_text(encoding="utf-8").split()))
    return docs


def main() -> int:
    exe = Path(sys.executable).parent / "anonymize"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        key = work / "release.key"
        fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, KEY_HEX.encode() + b"\n")
        os.close(fd)
        docs = corpus()
        txt = work / "corpus.txt"
        txt.write_text("\n".join(docs) + "\n", encoding="utf-8")
        jsonl = work / "corpus.jsonl"
        jsonl.write_text("".join(json.dumps({"id": i, "note": d}) + "\n" for i, d in enumerate(docs)),
                         encoding="utf-8")
        print(f"corpus: {len(docs)} documents, {txt.stat().st_size} bytes, "
              f"sha256 {hashlib.sha256(txt.read_bytes()).hexdigest()[:16]}")
        runs = {name: [str(txt), *extra] for name, extra in RUNS.items()}
        runs["jsonl-hybrid"] = [str(jsonl), "--field", "note", "--scope", "hybrid"]
        total = hashlib.sha256()
        for name, args in runs.items():
            out = work / f"{name}.out"
            cmd = [str(exe), *args, "--key", str(key), "--quiet", "-o", str(out)]
            subprocess.run(cmd, check=True)
            digest = hashlib.sha256(out.read_bytes()).hexdigest()
            total.update(f"{name} {digest}\n".encode())
            print(f"{name:20s} {digest[:16]}")
        print(f"{'ALL':20s} {total.hexdigest()[:16]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
