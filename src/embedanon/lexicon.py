"""Public English word lists the package ships (``embedanon/data/``, see ``data/SOURCE.md``).

The lowest room that reads them: the detectors (word frequency bands, common-word checks of the
decode rules), the privacy attacks (the attacker's prior) and the experiment runner all read the
same list from here, so no lower room imports a higher one to get it.

* :func:`word_frequencies`: the 100,000 most frequent alphabetic English words of ``wordfreq``
  (Speer et al.), with their frequencies (built by ``scripts/build_attack_data.py``).
"""

from __future__ import annotations

import gzip
from functools import lru_cache
from importlib import resources


def data_lines(name: str) -> list[str]:
    """The lines of the gzipped text file ``name`` of ``embedanon/data/``."""
    with resources.files(__package__).joinpath("data", name).open("rb") as raw, \
            gzip.open(raw, "rt", encoding="utf-8") as fh:
        return fh.read().splitlines()


@lru_cache(maxsize=1)
def word_frequencies() -> dict[str, float]:
    """The bundled public English word frequencies: {lower-case word: frequency}, 100,000 words."""
    out: dict[str, float] = {}
    for line in data_lines("wordfreq_en.tsv.gz"):
        word, freq = line.split("\t")
        out[word] = float(freq)
    return out
