"""Decision 0183: where the spoken-number rule of ``regex`` (7 to 15 digit words, no counting)
matches in real text: NLTK webtext, 500 Brown files, 800 MTSamples notes (``corpora.all_texts``),
IMDB train and unsup reviews, AG News test, the PubMed abstracts; and every run of five digit
words or more, with the rule's verdict.

    PYTHONPATH=<src> python measure.py > runs.txt
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "given_names"))

from corpora import all_texts, reviews_news_abstracts  # noqa: E402

from embedanon.detectors.regex import _SPOKEN_NUMBER, _not_counting  # noqa: E402

WORD = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)"
RUN = re.compile(rf"(?<![\w'-]){WORD}(?:(?:[ \t]*[,.][ \t]*|[ \t]+|-){WORD}){{4,}}(?![\w'-])", re.IGNORECASE)


def texts() -> Iterator[tuple[str, str]]:
    yield from all_texts()
    yield from reviews_news_abstracts()


if __name__ == "__main__":
    n = runs = matched = 0
    for corpus, text in texts():
        n += 1
        for m in RUN.finditer(text):
            runs += 1
            rule = _SPOKEN_NUMBER.fullmatch(m.group())
            phone = rule is not None and _not_counting(rule)
            matched += phone
            print(corpus, "PHONE" if phone else "-", repr(m.group()))
    print(f"# {n} texts; {runs} runs of 5+ digit words; {matched} read as a number said digit by digit")
