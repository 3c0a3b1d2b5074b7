"""Upstream utility: word2vec trained on original vs anonymized text, scored on word benchmarks.

A data holder may release text so that others can *train embeddings* on it. This module trains
gensim word2vec (skip-gram, fixed seed, one worker so it is reproducible) on a corpus and on its
anonymized release, and scores both on WordSim-353 and SimLex-999 (Spearman's rho over the
pairs both words of which are in the model's vocabulary) and on the Google analogy set (accuracy
over the questions inside the 30,000 most frequent words), as ``gensim``'s
``evaluate_word_pairs`` / ``evaluate_word_analogies`` do. The files are those of gensim's test
data (``../shared/data/gensim-testdata``); nothing is downloaded.

Corpora: :func:`read_lines` (one text per line, optionally gzip, e.g. the biomedical sentences)
and :func:`read_csv_texts` (a text column of a CSV, e.g. IMDB's unlabelled reviews).
"""

from __future__ import annotations

import gzip
import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..text import lookup_key, split_joined, split_words

_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class WordBenchmarks:
    """Scores of one embedding on the word benchmarks.

    Attributes:
        wordsim_spearman, simlex_spearman: Spearman's rho over the covered pairs.
        wordsim_oov, simlex_oov: fraction of pairs not covered (a word outside the vocabulary).
        wordsim_pairs, simlex_pairs: pairs scored.
        analogy_accuracy: accuracy over the analogy questions inside ``restrict_vocab``.
        analogy_questions: how many questions that was.
        vocabulary: words in the model.
    """

    wordsim_spearman: float
    wordsim_oov: float
    simlex_spearman: float
    simlex_oov: float
    wordsim_pairs: int
    simlex_pairs: int
    analogy_accuracy: float
    analogy_questions: int
    vocabulary: int


def tokens(text: str) -> list[str]:
    """Lower-case alphabetic word parts of ``text`` (the unit word2vec is trained on)."""
    out: list[str] = []
    for token in split_words(text)[1::2]:
        out.extend(lookup_key(p) for p in split_joined(token)[::2] if p.isalpha())
    return out


def read_lines(path: str | Path, *, limit: int, seed: int = 0) -> list[str]:
    """``limit`` lines drawn uniformly (seeded) from a text file (``.gz`` decompressed), file order."""
    file = Path(path)
    if not file.is_file():
        raise ConfigError(f"corpus not found: {file}")
    opener: Any = gzip.open if file.suffix == ".gz" else open
    with opener(file, "rt", encoding="utf-8") as fh:
        lines = [line.strip() for line in fh if line.strip()]
    return _sample(lines, limit, seed)


def read_csv_texts(path: str | Path, *, column: str, limit: int, seed: int = 0) -> list[str]:
    """``limit`` texts of a CSV column (``.xz``/``.gz`` decompressed; ``<br />`` removed)."""
    from .datasets import _rows

    file = Path(path)
    if not file.is_file():
        raise ConfigError(f"corpus not found: {file}")
    texts = [_BR.sub(" ", row[column]) for row in _rows(file, "corpus", [("column", column)])]
    return _sample(texts, limit, seed)


def _sample(items: list[str], limit: int, seed: int) -> list[str]:
    if limit >= len(items):
        return items
    keep = np.sort(np.random.default_rng(seed).choice(len(items), size=limit, replace=False))
    return [items[i] for i in keep.tolist()]


def train_word2vec(
    texts: Iterable[str],
    *,
    seed: int = 0,
    vector_size: int = 100,
    window: int = 5,
    min_count: int = 5,
    epochs: int = 5,
) -> Any:
    """Skip-gram word2vec on the :func:`tokens` of ``texts``; returns gensim ``KeyedVectors``.

    One worker thread and a fixed seed: the same corpus gives the same vectors.
    """
    from gensim.models import Word2Vec

    logging.getLogger("gensim").setLevel(logging.WARNING)
    sentences = [t for t in (tokens(x) for x in texts) if t]
    model = Word2Vec(
        sentences,
        vector_size=vector_size,
        window=window,
        min_count=min_count,
        sg=1,
        epochs=epochs,
        seed=seed,
        workers=1,
    )
    return model.wv


def evaluate_word_vectors(
    wv: Any,
    testdata: str | Path,
    *,
    restrict_vocab: int = 30_000,
    vocabulary: set[str] | None = None,
    workdir: str | Path | None = None,
) -> WordBenchmarks:
    """Score ``wv`` on WordSim-353, SimLex-999 and the Google analogies under ``testdata``.

    Args:
        wv: gensim ``KeyedVectors``.
        testdata: folder with ``wordsim353.tsv``, ``simlex999.txt``, ``questions-words.txt``.
        restrict_vocab: only the most frequent words of ``wv`` answer analogies.
        vocabulary: when given, only pairs and questions all of whose words are in it are scored
            (e.g. the words common to several models, so that they are compared on the same items);
            the filtered files are written under ``workdir``.
        workdir: folder for the filtered files (needed with ``vocabulary``).
    """
    folder = Path(testdata)
    files = {name: folder / name for name in ("wordsim353.tsv", "simlex999.txt", "questions-words.txt")}
    for path in files.values():
        if not path.is_file():
            raise ConfigError(f"benchmark file not found: {path}")
    if vocabulary is not None:
        if workdir is None:
            raise ConfigError("workdir is needed to restrict the benchmarks to a vocabulary")
        files = {name: _restrict(path, vocabulary, Path(workdir)) for name, path in files.items()}
    logging.getLogger("gensim").setLevel(logging.ERROR)
    pairs = {}
    for name in ("wordsim353.tsv", "simlex999.txt"):
        _, spearman, oov = wv.evaluate_word_pairs(
            str(files[name]), restrict_vocab=restrict_vocab, case_insensitive=True
        )
        items = sum(
            1
            for line in files[name].read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")
        )
        pairs[name] = (float(spearman[0]), float(oov) / 100.0, round(items * (1 - float(oov) / 100.0)))
    questions = [
        line
        for line in files["questions-words.txt"].read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith(":")
    ]
    score, asked = float("nan"), 0
    if questions:  # gensim divides by the number of questions asked
        known = set(wv.index_to_key[:restrict_vocab])
        if any(all(w.lower() in known for w in q.split()) for q in questions):
            score, sections = wv.evaluate_word_analogies(
                str(files["questions-words.txt"]), restrict_vocab=restrict_vocab, case_insensitive=True
            )
            total = next((s for s in sections if s["section"] == "Total accuracy"), None)
            asked = 0 if total is None else len(total["correct"]) + len(total["incorrect"])
    ws, sl = pairs["wordsim353.tsv"], pairs["simlex999.txt"]
    return WordBenchmarks(
        ws[0],
        ws[1],
        sl[0],
        sl[1],
        ws[2],
        sl[2],
        float(score) if asked else float("nan"),
        asked,
        len(wv.index_to_key),
    )


def _restrict(path: Path, vocabulary: set[str], workdir: Path) -> Path:
    """A copy of a benchmark file keeping comment/section lines and items whose words are all known."""
    workdir.mkdir(parents=True, exist_ok=True)
    kept = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith(("#", ":")):
            kept.append(line)
            continue
        fields = line.split("\t") if "\t" in line else line.split()
        words = fields[:2] if path.name != "questions-words.txt" else fields
        if all(w.lower() in vocabulary for w in words):
            kept.append(line)
    out = workdir / path.name
    out.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return out


def anonymize_texts(texts: Sequence[str], anonymizer: Any, *, jobs: int = 1) -> list[str]:
    """The release of ``texts`` (same order)."""
    return list(anonymizer.anonymize_many(texts, jobs=jobs))
