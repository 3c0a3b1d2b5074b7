"""Decision 0208 (rejected): the age of the one spoken to or about (``You're only 5!``, ``she's
15``, ``he is 28``), read as 0171 reads a speaker's own (``I'm 23``). Prints every match of the
candidate pattern (not shipped; it is written out here) in the real text outside the test half:
the 4,483 texts of ``given_names/corpora.py`` and the 85,841 reviews, news and abstracts.

    PYTHONPATH=src python research/detection/first_person_ages/others_ages.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "given_names"))

import corpora  # noqa: E402

from embedanon.detectors import regex  # noqa: E402

PATTERN = re.compile(
    r"\b(?:you['’]?re|you\s+are|s?he['’]?s|s?he\s+is)(?:\s+(?:only|just|now|almost|nearly|about|barely))?\s+"
    + regex._AGE_NUMBER + r"(?!\w|[\"”″]|[.,:/'’]\d|\s*(?:" + regex._NO_AGE_AFTER + "|" + regex._MEASURES
    + r"|for\b|episodes?|yards?|met(?:er|re)s?\b|mph\b|paces?\b|steps?\b)|\s+\d)", re.IGNORECASE)


def main() -> None:
    texts = [(c, t) for _, c, t in corpora.outside_test_half()] + list(corpora.reviews_news_abstracts())
    n = 0
    for corpus, text in texts:
        for m in PATTERN.finditer(text):
            n += 1
            print(corpus, "|", text[max(0, m.start() - 40) : m.end() + 30].replace("\n", " "))
    print(n, "matches in", len(texts), "texts")


if __name__ == "__main__":
    main()
