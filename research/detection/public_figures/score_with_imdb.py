"""0145 (rejected): ``score.py`` with the mined figures added to the shipped public-figure list
(``--strict``: less names whose surname is weighty). Run from research/evaluation::

    PYTHONPATH=../../src python ../detection/public_figures/score_with_imdb.py KEEP.txt --split dev --strict
"""

from __future__ import annotations

import runpy
import sys

import embedanon.detectors.rules.words as rule_words
import embedanon.lexicon as lexicon


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as fh:
        extra = {line.strip() for line in fh if line.strip()}
    if "--strict" in sys.argv:
        extra = {k for k in extra if not lexicon.weighty_name(k.split()[-1], "last")}
    merged = frozenset(lexicon.public_figures() | extra)
    rule_words.public_figures = lambda: merged  # type: ignore[assignment]
    print("extra", len(extra), file=sys.stderr)
    sys.argv = ["score.py"] + [a for a in sys.argv[2:] if a != "--strict"]
    runpy.run_path("score.py", run_name="__main__")


if __name__ == "__main__":
    main()
