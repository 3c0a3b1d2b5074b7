"""Train a large (>= 200k words) word2vec embedding on the text under ``shared/data``.

Used to exercise :class:`embedanon.vectors.index.NeighborIndex` at a realistic vocabulary size
(approximate search, table building, memory). The result is far too big to commit; it is written
outside the repository:

    python research/scripts/make_large_embedding.py                      # -> /tmp/large-embedding.bin
    python research/scripts/make_large_embedding.py --out X.bin --epochs 3 --min-count 2

Corpus (about 35M tokens): IMDB train/test/unsup reviews, the biomedical sentences, MTSamples
transcriptions, PubMed abstracts, AG News and the NLTK corpora zips. Text is cut with the
project's tokenizer (``embedanon.text.WORD_RE``) and passed through ``lookup_key`` so that every
trained word survives :func:`embedanon.vectors.formats.read_vectors` unchanged. The tokenised corpus
is cached next to the output (``<out>.corpus.txt``) so a rerun skips tokenising.

When training does not reach ``--min-words`` words (e.g. the data folder is partial), the missing
rows are synthesised: random pseudo-words, each placed near a random trained word (unit Gaussian
noise around it), so the vocabulary still has the cluster structure of a real embedding. The
report says how many rows are synthetic.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import logging
import lzma
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from embedanon.text import WORD_RE, lookup_key

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
log = logging.getLogger("make_large_embedding")


def _csv_texts(opener, path: Path, columns: tuple[str, ...]) -> Iterator[str]:
    csv.field_size_limit(1 << 28)
    with opener(path, "rt", encoding="utf-8", errors="replace", newline="") as fh:
        for row in csv.DictReader(fh):
            for column in columns:
                if row.get(column):
                    yield row[column]


def _zip_texts(path: Path) -> Iterator[str]:
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            if info.is_dir() or info.filename.endswith(("README", ".xml")):
                continue
            text = archive.read(info).decode("utf-8", errors="replace")
            if path.stem == "brown":  # word/TAG pairs
                text = " ".join(part.rsplit("/", 1)[0] for part in text.split())
            yield from text.splitlines()


def raw_texts(data: Path) -> Iterator[str]:
    """Every text unit (review, sentence, abstract, line) of the corpus, in a fixed order."""
    for name in ("imdb_train", "imdb_test", "imdb_unsup"):
        path = data / "imdb" / f"{name}.csv.xz"
        if path.is_file():
            for text in _csv_texts(lzma.open, path, ("text",)):
                yield text.replace("<br />", " ")
    path = data / "biomed-sentences" / "biomed_sentences.txt.gz"
    if path.is_file():
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
            yield from fh
    path = data / "mtsamples" / "mtsamples.csv.gz"
    if path.is_file():
        yield from _csv_texts(gzip.open, path, ("description", "transcription"))
    path = data / "pubmed-5term" / "pubmed.csv"
    if path.is_file():
        yield from _csv_texts(open, path, ("abstract",))
    path = data / "ag-news" / "test.csv"
    if path.is_file():
        with open(path, encoding="utf-8", errors="replace") as fh:
            yield from fh
    corpora = data / "nltk_data" / "corpora"
    if corpora.is_dir():
        for path in sorted(corpora.glob("*.zip")):
            yield from _zip_texts(path)


def tokenize_corpus(data: Path, target: Path) -> tuple[int, int]:
    """Write one tokenised, lower-cased text unit per line; return (lines, tokens)."""
    tmp = target.with_suffix(".tmp")
    lines = tokens = 0
    with open(tmp, "w", encoding="utf-8") as out:
        for text in raw_texts(data):
            words = [lookup_key(w) for w in WORD_RE.findall(text)]
            if words:
                out.write(" ".join(words))
                out.write("\n")
                lines += 1
                tokens += len(words)
    tmp.replace(target)
    return lines, tokens


def synthesize(words: list[str], vecs: np.ndarray, n: int, seed: int) -> tuple[list[str], np.ndarray]:
    """``n`` pseudo-words, each a noisy copy of a random trained vector (keeps cluster structure)."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    taken = set(words)
    new_words: list[str] = []
    while len(new_words) < n:
        word = "".join(rng.choice(letters, size=int(rng.integers(6, 12))))
        if word not in taken:
            taken.add(word)
            new_words.append(word)
    base = vecs[rng.integers(0, len(vecs), size=n)]
    scale = np.linalg.norm(base, axis=1, keepdims=True)
    noise = rng.normal(size=base.shape).astype(np.float32) * scale / np.sqrt(vecs.shape[1])
    return new_words, (base + 0.5 * noise).astype(np.float32)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/large-embedding.bin"))
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--min-words", type=int, default=200_000)
    parser.add_argument("--min-count", type=int, default=1)
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")

    from gensim.models import Word2Vec
    from gensim.models.keyedvectors import KeyedVectors
    from gensim.models.word2vec import LineSentence

    t0 = time.perf_counter()
    corpus = args.out.with_name(args.out.name + ".corpus.txt")
    if not corpus.is_file():
        if not args.data.is_dir():
            sys.exit(f"data folder not found: {args.data}")
        lines, tokens = tokenize_corpus(args.data, corpus)
        log.info("tokenised %d lines, %d tokens in %.0fs", lines, tokens, time.perf_counter() - t0)
    t1 = time.perf_counter()
    model = Word2Vec(
        LineSentence(str(corpus)), vector_size=args.dim, window=5, min_count=args.min_count,
        sg=0, negative=5, epochs=args.epochs, workers=args.workers, seed=args.seed,
    )
    train_s = time.perf_counter() - t1
    words = list(model.wv.index_to_key)
    vecs = np.asarray(model.wv.vectors, dtype=np.float32)
    trained = len(words)
    if trained < args.min_words:
        extra_words, extra_vecs = synthesize(words, vecs, args.min_words - trained, args.seed)
        words += extra_words
        vecs = np.vstack([vecs, extra_vecs])
    kv = KeyedVectors(vector_size=args.dim)
    kv.add_vectors(words, vecs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_name(args.out.name + ".tmp")
    kv.save_word2vec_format(str(tmp), binary=True)
    tmp.replace(args.out)
    report = {
        "out": str(args.out), "words": len(words), "trained_words": trained,
        "synthetic_words": len(words) - trained, "dim": args.dim, "min_count": args.min_count,
        "epochs": args.epochs, "workers": args.workers, "corpus_tokens": model.corpus_total_words,
        "train_seconds": round(train_s, 1), "total_seconds": round(time.perf_counter() - t0, 1),
        "bytes": args.out.stat().st_size,
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
