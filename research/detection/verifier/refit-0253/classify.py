"""Decision 0253: counts of the hand reading of ``changes-brown-mtsamples.txt`` (each changed span
read in its text: a person's name, or not). ``python classify.py``."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: read by hand: the spans the refit adds / drops that are a person's name, and those that are not
NAMES_ADDED = {
    "Armstrong", "Arthur Willis", "Blanche", "Casey", "Chambers", "Dan", "David", "Digby", "Doc Doolittle",
    "Doolittle", "Ed Dow", "Emmett Foster", "George", "Hal", "John", "Julia Fortune", "Kate",
    "Lucille Warren", "Mark", "Master Calvin", "Mike", "Morgan", "Penny", "Roberts", "Rod", "Shelley",
    "Tanner", "Uncle Randolph", "Viola", "When Johnson", "Even Sally", "Virginia", "White", "Red",
}
OTHER_ADDED = {
    "232-1137)", "3150-4500)", "Allstates", "Captain", "EPB", "Ethibond", "Fontanelles", "Gore-Tex", "India",
    "Jumping Jerusalem", "Monocryl", "Swim", "Vicryl", "Ziac", "antegrade", "axilla", "dorsi", "femur",
    "patella", "said", "Kent House", "Majdanek", "King", "Luis Rey Mission", "Kager\u2019",
}
NAMES_DROPPED = {
    "Pat O'Dwyer", "Abel", "Alexander Prieur", "Blake", "Budd", "Dan", "Dan grinned", "Dill", "Dumont",
    "Galt", "Hamrick", "Handley", "Helva", "Henrietta", "Hoag", "Holden", "Jack", "John Hunter",
    "John-and-Linda", "Kitti", "Lew Durkin", "Lucille Warren", "Macklin", "Maggie", "McDevitt", "Meredith",
    "Mickey", "Mike", "Morgan", "Nadine", "Nate", "Nicodemus", "Pullen James", "Quint", "Roberts", "Vivian",
    "Weber", "Weigand", "Welch", "Willis", "Winston", "XYZ Estep", "Burbank", "Long Island", "Venice",
    "Wilmer Eye Institute", "Highlands Oil & Gas Company", "Sweeney Blue",
}
OTHER_DROPPED = {
    "100, AST 57, GGT 226,", "27", "51", "90 mmH2O.", "ABD", "Abscess", "Bon jour", "Bovie", "Bursas",
    "Carthago delenda", "Crip", "DEMILEE-USA", "DJD", "Ellik evacuator", "Flotilla", "GALL", "Gelfoam", "Hgb",
    "Hoa-whup", "Indermil", "Irises", "JVD", "Longue Vue", "Lumbar radiculopathy", "Maj", "Marlex", "Merocel",
    "Metzenbaum", "Neuro", "Ozagen", "Quinzaine", "RLE", "Rameau", "Ramus", "Sonuvabitch", "Steri-Strips",
    "Toujours gai", "Treitz", "Xyz", "char", "de chambre", "ileus", "ma insomma", "nontender", "varices",
    "yielding-Mediterranian-woman", "Postanesthesia Care Unit", "Medical Center", "Madison", "Miro", "Gott",
    "Yalagaloo", "Dor",
}
_LINE = re.compile(r"(ADD|DROP)\s+\S+\s+(['\"])(.*)\2$")


def main() -> None:
    counts: Counter[str] = Counter()
    for line in (HERE / "changes-brown-mtsamples.txt").read_text(encoding="utf-8").splitlines():
        m = _LINE.match(line.strip())
        if not m:
            continue
        kind, piece = m.group(1), m.group(3)
        names, other = (NAMES_ADDED, OTHER_ADDED) if kind == "ADD" else (NAMES_DROPPED, OTHER_DROPPED)
        counts[kind + (" name" if piece in names else " other" if piece in other else " unread")] += 1
    print(dict(sorted(counts.items())))


if __name__ == "__main__":
    main()
