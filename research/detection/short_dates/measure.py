"""Decision 0176: DATE spans of ``model,regex`` on real text outside the evaluation set that holds a
``M/D`` or ``M/YY`` after a word that places an event in time: MTSamples notes, IMDB train reviews,
NLTK webtext and Brown texts that share no line with the test half, with the code before and after.

    PYTHONPATH=<src>:../../evaluation python measure.py OUT.json
    python measure.py --compare BEFORE.json AFTER.json > changes.txt
"""

from __future__ import annotations

import csv
import gzip
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "given_names"))
sys.path.insert(0, str(HERE.parent))

from before_after import main  # noqa: E402

CUE = re.compile(r"\b(?:on|since|until|till|through|thru|from|by|before|after|due|dated|born)\s+\d{1,2}/\d",
                 re.IGNORECASE)


def texts() -> list[tuple[str, str]]:
    from build_set import DATA
    from corpora import brown, evaluation_lines, imdb, webtext

    lines = evaluation_lines("test")
    out: list[tuple[str, str]] = []
    with gzip.open(DATA / "mtsamples" / "mtsamples.csv.gz", "rt", encoding="utf-8") as fh:
        out += [("mtsamples", row["transcription"]) for row in csv.DictReader(fh)]
    out += imdb("imdb_train", corpus="imdb")
    out += [*webtext(), *brown()]
    return [(c, t) for c, t in out
            if CUE.search(t) and not any(x.strip() in lines for x in re.split(r"[\n,]", t))]


if __name__ == "__main__":
    main(texts, ("DATE",), "DATE", (50, 30))
