"""Real text outside the set: all NLTK webtext blocks, 500 Brown files (their first 3,000
characters), 800 MTSamples notes (shuffled with seed 1, first 3,000 characters); and, for the
measurements that read further, IMDB train and unsup, AG News test and PubMed
(:func:`reviews_news_abstracts`)."""

from __future__ import annotations

import csv
import gzip
import json
import lzma
import random
import re
import sys
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1].parent / "evaluation"))

from build_set import DATA  # noqa: E402  (the evaluation set's own lookup of ../shared/data)


def webtext() -> Iterator[tuple[str, str]]:
    with zipfile.ZipFile(DATA / "nltk_data" / "corpora" / "webtext.zip") as z:
        for name in ("overheard", "firefox", "singles", "pirates", "grail", "wine"):
            text = z.read(f"webtext/{name}.txt").decode("latin-1")
            for m in re.finditer(r"(?:[^\n]+\n?)+", text):
                yield name, m.group(0).strip()


def brown() -> Iterator[tuple[str, str]]:
    with zipfile.ZipFile(DATA / "nltk_data" / "corpora" / "brown.zip") as z:
        for name in z.namelist():
            if re.search(r"brown/c[a-r]\d\d$", name):
                words = z.read(name).decode("latin-1").split()
                yield "brown", " ".join(w.rsplit("/", 1)[0] for w in words)[:3000]


def mtsamples() -> Iterator[tuple[str, str]]:
    with gzip.open(DATA / "mtsamples" / "mtsamples.csv.gz", "rt", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    random.Random(1).shuffle(rows)
    for row in rows[:800]:
        yield "mtsamples", row["transcription"][:3000]


def imdb(*names: str, corpus: str | None = None) -> Iterator[tuple[str, str]]:
    """The reviews of the IMDB files ``names`` (``imdb_train``, ``imdb_unsup``; the set reads only
    imdb_test) as ``(corpus or the file's name, text)``."""
    for name in names:
        with lzma.open(DATA / "imdb" / f"{name}.csv.xz", "rt", encoding="utf-8") as fh:
            yield from ((corpus or name, row["text"]) for row in csv.DictReader(fh))


def test_half_documents() -> set[str]:
    """The ``doc`` keys of the evaluation set's test half (``agnews:12``, ``pubmed:40`` ...): the
    source documents whose excerpts it holds."""
    realtext = Path(__file__).resolve().parents[2] / "evaluation" / "realtext"
    lines = (realtext / "test.jsonl").read_text(encoding="utf-8").splitlines()
    return {json.loads(line)["doc"] for line in lines if line.strip()}


def reviews_news_abstracts() -> Iterator[tuple[str, str]]:
    """IMDB train and unsup reviews, AG News test (title and description), the PubMed abstracts:
    ``(corpus, text)``; less the AG News items and abstracts whose excerpts the test half holds
    (its IMDB reviews come from IMDB's test split, which is not read here). Until the stop of
    decision 0229 those few were read too."""
    held = test_half_documents()
    yield from imdb("imdb_train", "imdb_unsup")
    with open(DATA / "ag-news" / "test.csv", encoding="utf-8", newline="") as fh:
        yield from (("ag-news", f"{row['title']}. {row['description']}")
                    for i, row in enumerate(csv.DictReader(fh)) if f"agnews:{i}" not in held)
    with open(DATA / "pubmed-5term" / "pubmed.csv", encoding="utf-8", newline="") as fh:
        yield from (("pubmed", row["abstract"]) for i, row in enumerate(csv.DictReader(fh))
                    if f"pubmed:{i}" not in held)


def speeches_and_broadcasts() -> Iterator[tuple[str, str]]:
    """NLTK's ABC (rural and science news: a headline and its lines, up to about 1,500 characters),
    State of the Union and inaugural addresses (a line each, 20 characters or more) and
    movie_reviews (a review's first 3,000 characters, lower case): ``(corpus, text)``. No text of
    the evaluation set comes from them (decision 0214)."""
    corpora = DATA / "nltk_data" / "corpora"
    with zipfile.ZipFile(corpora / "abc.zip") as z:
        for name in ("rural", "science"):
            block = ""
            for line in z.read(f"abc/{name}.txt").decode("utf-8", "replace").splitlines():
                if block and len(block) + len(line) > 1500:
                    yield "abc", block
                    block = ""
                block = f"{block}\n{line}" if block else line
            if block:
                yield "abc", block
    for corpus in ("state_union", "inaugural"):
        with zipfile.ZipFile(corpora / f"{corpus}.zip") as z:
            for name in sorted(n for n in z.namelist() if n.endswith(".txt")):
                text = z.read(name).decode("latin-1")
                yield from ((corpus, line.strip()) for line in text.splitlines() if len(line.strip()) >= 20)
    with zipfile.ZipFile(corpora / "movie_reviews.zip") as z:
        for name in sorted(n for n in z.namelist() if n.endswith(".txt")):
            yield "movie_reviews", z.read(name).decode("latin-1")[:3000]


def all_texts() -> Iterator[tuple[str, str]]:
    yield from webtext()
    yield from brown()
    yield from mtsamples()


def evaluation_lines(*splits: str) -> set[str]:
    """The lines of 25 characters or more (stripped) of every record of the evaluation set's
    ``splits`` (``test``, ``dev``, ``dev2``): a text that holds one is no text outside them."""
    realtext = Path(__file__).resolve().parents[2] / "evaluation" / "realtext"
    lines: set[str] = set()
    for split in splits:
        for record in (realtext / f"{split}.jsonl").read_text(encoding="utf-8").splitlines():
            lines |= {x.strip() for x in json.loads(record)["text"].split("\n") if len(x.strip()) >= 25}
    return lines


def outside_test_half() -> Iterator[tuple[int, str, str]]:
    """``(index in all_texts(), corpus, text)`` of every text of :func:`all_texts` that shares no
    line of 25 characters or more with a record of the evaluation set's test half."""
    lines = evaluation_lines("test")
    for i, (corpus, text) in enumerate(all_texts()):
        if not any(x.strip() in lines for x in text.split("\n")):
            yield i, corpus, text


def outside_where(holds: Callable[[str, str], bool]) -> list[tuple[str, str]]:
    """The texts of :func:`outside_test_half`, :func:`reviews_news_abstracts` and (from decision
    0214 on) :func:`speeches_and_broadcasts` for which ``holds(corpus, text)``, as ``(corpus,
    text)``."""
    out = [(corpus, text) for _, corpus, text in outside_test_half() if holds(corpus, text)]
    out += [(corpus, text) for corpus, text in reviews_news_abstracts() if holds(corpus, text)]
    return out + [(corpus, text) for corpus, text in speeches_and_broadcasts() if holds(corpus, text)]


def outside_matching(pattern: re.Pattern[str]) -> list[tuple[str, str]]:
    """:func:`outside_where` ``pattern`` is found."""
    return outside_where(lambda _, text: pattern.search(text) is not None)


def outside_or_more(argv: list[str]) -> list[tuple[str, str]]:
    """The texts of :func:`outside_test_half` as ``(corpus, text)``, or, when ``argv`` holds
    ``--more`` (removed from it), those of :func:`reviews_news_abstracts`: the two runs of a
    ``measure.py`` that reads every text."""
    if "--more" in argv:
        argv.remove("--more")
        return list(reviews_news_abstracts())
    return [(corpus, text) for _, corpus, text in outside_test_half()]
