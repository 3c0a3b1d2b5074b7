"""0145 (rejected): the mined candidates kept as figures: at least MIN reviews, no particle at the
end, not two weighty name parts (0117), not a prefix of a longer name written at least half as often.

    PYTHONPATH=src python research/detection/public_figures/filter_imdb.py CANDS.tsv MIN OUT.txt
"""

from __future__ import annotations

import sys

from embedanon.lexicon import weighty_name

PARTICLES = {"de", "van", "von", "la", "le", "da", "del", "della", "di", "du", "st", "mc", "mac", "o", "d",
             "el", "al", "bin", "ben", "ter", "der", "den"}


def main(cands: str, least: int, out_path: str) -> None:
    with open(cands, encoding="utf-8") as fh:
        rows = [(int(c), k) for c, k in (line.rstrip("\n").split("\t") for line in fh)]
    count = {k: c for c, k in rows}
    keep = []
    for c, k in rows:
        words = k.split()
        if c < least or words[-1] in PARTICLES:
            continue
        if len(words) == 2 and weighty_name(words[0], "first") and weighty_name(words[1], "last"):
            continue
        if any(kk.startswith(k + " ") and cc >= 0.5 * c for kk, cc in count.items()
               if len(kk.split()) == len(words) + 1):
            continue
        keep.append(k)
    with open(out_path, "w", encoding="utf-8") as out:
        out.write("\n".join(keep) + "\n")
    print(len(keep))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
