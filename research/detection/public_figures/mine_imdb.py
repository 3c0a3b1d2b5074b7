"""0145 (rejected): candidate public figures from IMDB train + unsup reviews (never imdb_test, which
the evaluation set reads): runs of two or three title-case words opening on a listed given name,
counted once per review. Writes ``count<TAB>key`` for keys in at least MIN reviews.

    PYTHONPATH=src python research/detection/public_figures/mine_imdb.py OUT.tsv MIN
"""

from __future__ import annotations

import collections
import csv
import lzma
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "evaluation"))
from build_set import DATA  # noqa: E402  (the evaluation set's own lookup of ../shared/data)

from embedanon.lexicon import folded, name_parts, public_figure_key  # noqa: E402

IMDB = DATA / "imdb"
_WORD = r"[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?"
_RUN = re.compile(rf"(?<![\w.'-])({_WORD}(?:[ ]{_WORD}){{1,2}})(?![\w'-])")


def main(out_path: str, least: int) -> None:
    csv.field_size_limit(10**8)
    first = name_parts("first")
    counts: collections.Counter[str] = collections.Counter()
    for name in ("imdb_train.csv.xz", "imdb_unsup.csv.xz"):
        with lzma.open(IMDB / name, "rt", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                seen = set()
                for m in _RUN.finditer(row["text"].replace("<br />", " ")):
                    words = m.group(1).split()
                    for i in range(len(words)):
                        for j in range(i + 2, min(len(words), i + 3) + 1):
                            if folded(words[i]) in first:
                                seen.add(public_figure_key(" ".join(words[i:j])))
                counts.update(seen)
    with open(out_path, "w", encoding="utf-8") as out:
        for key, count in sorted(counts.items(), key=lambda kc: (-kc[1], kc[0])):
            if count < least:
                break
            out.write(f"{count}\t{key}\n")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
