"""Shared by the before/after measurements of this folder (decisions 0171–0189): compare the spans
two runs of the same script found on the same texts, one run on the code before a change and one
on the code after.

A run writes a JSON list of ``[corpus, text, spans]`` rows, each span ``[start, end]`` or
``[start, end, label]``; :func:`compare` prints every span found by one run and not the other
(``corpus +|- [label] piece | context``) and a last line with the counts. :func:`main` is the
command line of a measurement that compares every span (:func:`write_spans`).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path


def compare(before: str, after: str, noun: str, context: tuple[int, int] = (50, 30)) -> None:
    """Print the spans that differ between the runs in files ``before`` and ``after`` (same texts,
    same order), ``context`` characters before and after each, then ``# N texts; <noun> spans
    added A, removed R``."""
    a_rows = json.loads(Path(before).read_text(encoding="utf-8"))
    b_rows = json.loads(Path(after).read_text(encoding="utf-8"))
    added = removed = 0
    left, right = context
    for (corpus, text, x), (_, _, y) in zip(a_rows, b_rows, strict=True):
        xs, ys = {tuple(s) for s in x}, {tuple(s) for s in y}
        for span in sorted(xs ^ ys):
            start, end = span[0], span[1]
            sign = "+" if span in ys else "-"
            added += sign == "+"
            removed += sign == "-"
            label = [span[2]] if len(span) > 2 else []
            print(corpus, sign, *label, text[start:end], "|",
                  text[max(0, start - left):end + right].replace("\n", " "))
    print(f"# {len(a_rows)} texts; {noun} spans added {added}, removed {removed}")


def write_spans(path: str, texts: Iterable[tuple[str, str]], labels: tuple[str, ...] = ()) -> int:
    """Run ``model,regex`` on ``(corpus, text)`` pairs and write the rows :func:`compare` reads:
    every span ``[start, end, label]``, or only the spans of ``labels``, as ``[start, end]`` when
    there is one label. Returns the number of rows."""
    from embedanon.detectors.registry import build_detectors

    detector = build_detectors("model,regex")
    rows = []
    for corpus, text in texts:
        spans = [s for s in detector.detect(text) if not labels or s.label in labels]
        rows.append([corpus, text, [(s.start, s.end) if len(labels) == 1 else (s.start, s.end, s.label)
                                    for s in spans]])
    Path(path).write_text(json.dumps(rows), encoding="utf-8")
    return len(rows)


def main(texts: Callable[[], Iterable[tuple[str, str]]], labels: tuple[str, ...] = (), noun: str = "",
         context: tuple[int, int] = (60, 40)) -> None:
    """``script.py OUT.json`` (:func:`write_spans` of ``texts()``, the spans of ``labels`` or all,
    and a line with the number of texts when all) or ``script.py --compare BEFORE.json
    AFTER.json`` (:func:`compare`, ``noun`` and ``context`` as it takes them)."""
    if sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3], noun, context)
    else:
        n = write_spans(sys.argv[1], texts(), labels)
        if not labels:
            print(n, "texts")


def main_on_real_text(labels: tuple[str, ...] = (), noun: str = "",
                      context: tuple[int, int] = (60, 40)) -> None:
    """:func:`main` over the real texts outside the test half (NLTK webtext, 500 Brown files, 800
    MTSamples notes), or with ``--more`` over IMDB train and unsup, AG News test and PubMed
    (``given_names/corpora.py``: ``outside_or_more``)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent / "given_names"))
    from corpora import outside_or_more

    main(lambda: outside_or_more(sys.argv), labels, noun, context)


def main_where(holds: Callable[[str, str], bool], labels: tuple[str, ...] = (), noun: str = "",
               context: tuple[int, int] = (60, 40)) -> None:
    """:func:`main` over the real texts outside the test half for which ``holds(corpus, text)``
    (``given_names/corpora.py``: ``outside_where``)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent / "given_names"))
    from corpora import outside_where

    main(lambda: outside_where(holds), labels, noun, context)


def main_on_matching(pattern: re.Pattern[str], labels: tuple[str, ...] = (), noun: str = "",
                     context: tuple[int, int] = (60, 40)) -> None:
    """:func:`main_where` ``pattern`` is found."""
    main_where(lambda _, text: pattern.search(text) is not None, labels, noun, context)
