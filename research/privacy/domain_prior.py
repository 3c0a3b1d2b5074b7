"""An attacker who holds text of the corpus's kind: ``privacy-report --attacker-text``.

The release: 200 MTSamples *Surgery* transcriptions (first 1,500 characters, seed 32). The
attacker's text: 2,000 transcriptions of the *other* specialties, with every transcription of the
release (MTSamples lists some notes under two specialties) and every one sharing its first 200
characters removed, so the attacker never holds a released note. A control attacker holds 2,000
unlabelled IMDB reviews instead (text of another kind). The domain prior's share (half) is fixed in
``embedanon.privacy.prior.DOMAIN_SHARE``, not fitted here.

    .venv/bin/python research/privacy/domain_prior.py --out research/privacy/domain-prior.json
"""

from __future__ import annotations

import argparse
import csv
import gzip
import itertools
import json
import lzma
import random
import subprocess
import sys
import tempfile
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
SEED = 32


def _clean(text: str) -> str:
    return " ".join(text.split())


def build_sets(folder: Path) -> dict[str, int]:
    with gzip.open(DATA / "mtsamples" / "mtsamples.csv.gz", "rt", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    rng = random.Random(SEED)
    surgery = [_clean(r["transcription"]) for r in rows
               if r["medical_specialty"].strip() == "Surgery" and r["transcription"].strip()]
    rng.shuffle(surgery)
    release = surgery[:200]
    heads = {t[:200] for t in release}
    other = sorted({_clean(r["transcription"]) for r in rows
                    if r["medical_specialty"].strip() != "Surgery" and r["transcription"].strip()})
    rng.shuffle(other)
    released = set(release)
    other = [t for t in other if t not in released and t[:200] not in heads][:2000]
    with lzma.open(DATA / "imdb" / "imdb_unsup.csv.xz", "rt", encoding="utf-8") as fh:
        reader = itertools.islice(csv.DictReader(fh), 20000)
        imdb_lines = [_clean(r["text"].replace("<br />", " ")) for r in reader]
    rng.shuffle(imdb_lines)
    sets = {"release": [t[:1500] for t in release], "attacker-mtsamples": other,
            "attacker-imdb": imdb_lines[:2000]}
    for name, texts in sets.items():
        with open(folder / f"{name}.jsonl", "w", encoding="utf-8") as fh:
            for t in texts:
                fh.write(json.dumps({"text": t}) + "\n")
    return {name: len(texts) for name, texts in sets.items()}


def report(folder: Path, attacker: str, mechanism: list[str]) -> dict:
    cmd = [sys.executable, "-m", "embedanon", "privacy-report", str(folder / "release.jsonl"), "--seed", "7",
           "--json", "--attacker-text", str(folder / f"{attacker}.jsonl"), *mechanism]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    attacks = json.loads(out)["attacks"]
    keep = ("invocab_tokens", "public_prior", "release_prior", "oracle_prior", "oov", "oov_in_dictionary",
            "domain_prior", "oov_domain", "oov_domain_in_dictionary", "contextual", "contextual_domain",
            "record_pooled", "release_record_pooled", "oov_record_pooled", "domain_record_pooled",
            "oov_domain_record_pooled")
    return {k: attacks[k] for k in keep}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    results: dict = {"seed": SEED, "release_seed": 7}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        results["sets"] = build_sets(folder)
        for label, mech in (("knn", []), ("exponential-14", ["-m", "exponential", "--epsilon", "14"])):
            for attacker in ("attacker-mtsamples", "attacker-imdb"):
                results[f"{label} / {attacker}"] = report(folder, attacker, mech)
                print(label, attacker, file=sys.stderr)
        for k in (20, 50):  # how far a larger k goes against the strongest attacker (no control)
            results[f"knn-{k} / attacker-mtsamples"] = report(folder, "attacker-mtsamples", ["--k", str(k)])
            print(f"knn-{k}", file=sys.stderr)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
