"""How much of the layout membership signal a layout-normalising mode would remove (issue 33 item 4).

The attack is :func:`embedanon.privacy.attacks.membership.layout_membership` (the membership
game on the release itself: each record scored with and without its own release). Corpora, all
real text: 200 MTSamples notes (first ~1,500 characters, two injected names each, as
``attacks.py``), 500 NLTK webtext lines of the Firefox forum and overheard chat (at least 5
words), 200 IMDB test reviews. Releases: knn k = 10 and exponential epsilon = 14 in scope all,
knn in scope hybrid, each under one release key.

Rows per release: the attacker reading every level; one that ignores the full layout (sentence
structure and word count only: what a perfect normaliser of whitespace, punctuation and numbers
would leave); one that reads the word count only; and a concrete normaliser (whitespace and line
breaks -> one space, punctuation runs -> their first character, digit runs -> one digit)
applied to the release and by the attacker to its note.

Usage: ``nice .venv/bin/python research/privacy/membership.py`` (writes membership.json here).
"""

from __future__ import annotations

import csv
import json
import lzma
import re
import sys
import time
import zipfile
from pathlib import Path

from embedanon import Anonymizer, ReleaseKey
from embedanon.privacy.attacks.membership import layout_membership

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from attacks import SHARED, inject_names, load_notes  # noqa: E402

_SPACE = re.compile(r"\s+")
_PUNCT_RUN = re.compile(r"([^\w\s])[^\w\s]+")
_DIGITS = re.compile(r"\d+")


def normalize(text: str) -> str:
    """The candidate layout-normalising mode measured here."""
    text = _SPACE.sub(" ", text).strip()
    text = _PUNCT_RUN.sub(r"\1", text)
    return _DIGITS.sub(lambda m: m.group()[0], text)


def webtext(n: int) -> list[str]:
    out = []
    with zipfile.ZipFile(SHARED / "nltk_data" / "corpora" / "webtext.zip") as z:
        for name in ("webtext/firefox.txt", "webtext/overheard.txt"):
            lines = z.read(name).decode("utf-8", "replace").splitlines()
            out += [line for line in lines if len(line.split()) >= 5][: n // 2]
    return out


def imdb(n: int) -> list[str]:
    with lzma.open(SHARED / "imdb" / "imdb_test.csv.xz", "rt", encoding="utf-8") as fh:
        rows = [r["text"].replace("<br />", "\n") for r in csv.DictReader(fh)]
    return rows[:: len(rows) // n][:n]


def main() -> None:
    key = ReleaseKey.from_seed(33)  # a study, not a release: reproducible
    notes, _ = inject_names(load_notes(200, 1500, seed=9), seed=9)
    corpora = {"mtsamples": notes, "webtext": webtext(500), "imdb": imdb(200)}
    setups = {"knn": dict(mechanism="knn"), "exponential-14": dict(mechanism="exponential", epsilon=14.0),
              "knn-hybrid": dict(mechanism="knn", scope="hybrid")}
    out: dict = {}
    for corpus, texts in corpora.items():
        for name, params in setups.items():
            t0 = time.time()
            released = list(Anonymizer(key=key, **params).anonymize_many(texts))
            row = {
                "records": len(texts),
                "all_levels": layout_membership(texts, released).as_dict(),
                "sentences_and_words": layout_membership(texts, released, levels=("sentences", "words")).auc,
                "words_only": layout_membership(texts, released, levels=("words",)).auc,
                "normalized": layout_membership(texts, [normalize(t) for t in released],
                                                normalize=normalize).as_dict(),
                "seconds": round(time.time() - t0, 1),
            }
            out[f"{corpus}/{name}"] = row
            print(corpus, name, json.dumps(row), flush=True)
    (HERE / "membership.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
