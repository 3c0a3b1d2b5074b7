"""Train a word2vec embedding on public text disjoint from every evaluated corpus (issue 8, item 5).

The "neighbor quality" lever: knn over an embedding trained with gensim on public biomedical and
general English text instead of the MiniLM input embeddings. Written to
``research/embeddings/public-w2v.bin`` (word2vec binary, git-ignored: regenerate it with this
script; it is deterministic) and ``public-w2v.json`` (provenance, committed):

    nice -n 10 .venv/bin/python research/scripts/train_public_embedding.py    # 162 s on an idle core

Training text (``../shared/data``; see each folder's SOURCE.md): the 157k biomedical sentences of
``biomed-sentences`` (NER corpora from PubMed/PMC, cambridgeltl/MTL-Bioinformatics-2016; not the
``pubmed-5term`` abstracts) and the NLTK corpora ``brown``, ``abc``, ``state_union``, ``inaugural``
and ``webtext``. Never used: any corpus the experiments evaluate (MTSamples, PubMed 5-term, IMDB,
AG News, sentence polarity, TREC) nor its relatives (movie_reviews, subjectivity). The script counts
how many sentences of the evaluated corpora occur verbatim (as token sequences of >= 8 words) in the
training text and records it in the JSON (expected 0).

Model: skip-gram word2vec, 100-d, window 5, min_count 5, 5 epochs, seed 0, **one worker** (gensim
is then deterministic: two runs wrote byte-identical files, sha256 recorded in the JSON). Vocabulary
written: trained words that are in the bundled public frequency list (wordfreq,
``embedanon.privacy.prior``), alphabetic, at least 2 letters, by training frequency, at most
``--max-words`` (keeps the file < 20 MB).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import hashlib
import json
import lzma
import re
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from embedanon.privacy.prior import word_frequencies
from embedanon.utility.upstream import tokens

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
OUT = REPO / "experiments" / "embeddings" / "public-w2v.bin"
NLTK = ("brown", "abc", "state_union", "inaugural", "webtext")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
MIN_OVERLAP_WORDS = 8


def training_lines(data: Path) -> Iterator[tuple[str, str]]:
    """(source, line) for every training line, in a fixed order."""
    with gzip.open(data / "biomed-sentences" / "biomed_sentences.txt.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            yield "biomed-sentences", line
    for name in NLTK:
        with zipfile.ZipFile(data / "nltk_data" / "corpora" / f"{name}.zip") as archive:
            for info in sorted(archive.infolist(), key=lambda i: i.filename):
                skip = info.filename.endswith(("README", ".xml", "cats.txt")) or "/CONTENTS" in info.filename
                if info.is_dir() or skip:
                    continue
                text = archive.read(info).decode("utf-8", errors="replace")
                if name == "brown":  # word/TAG pairs
                    text = "\n".join(" ".join(p.rsplit("/", 1)[0] for p in line.split())
                                     for line in text.splitlines())
                for line in text.splitlines():
                    yield name, line


def evaluated_texts(data: Path) -> Iterator[str]:
    """Texts of the evaluated corpora (for the overlap count only; nothing is kept)."""
    csv.field_size_limit(1 << 28)
    sources = (
        (gzip.open, data / "mtsamples" / "mtsamples.csv.gz", "transcription"),
        (open, data / "pubmed-5term" / "pubmed.csv", None),
        (open, data / "ag-news" / "test.csv", None),
    )
    for opener, path, column in sources:
        if not path.is_file():
            continue
        with opener(path, "rt", encoding="utf-8", errors="replace", newline="") as fh:
            for row in csv.DictReader(fh):
                if column is not None:
                    yield row.get(column) or ""
                else:
                    yield " ".join(v for v in row.values() if isinstance(v, str) and len(v) > 40)
    path = data / "imdb" / "imdb_train.csv.xz"
    if path.is_file():
        with lzma.open(path, "rt", encoding="utf-8", errors="replace", newline="") as fh:
            for i, row in enumerate(csv.DictReader(fh)):
                if i >= 5000:
                    break
                yield row.get("text") or ""
    for name in ("sentence_polarity", "qc"):
        with zipfile.ZipFile(data / "nltk_data" / "corpora" / f"{name}.zip") as archive:
            for info in archive.infolist():
                if not info.is_dir():
                    yield from archive.read(info).decode("latin-1").splitlines()


def _digest(words: list[str]) -> bytes:
    return hashlib.blake2b(" ".join(words).encode(), digest_size=12).digest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--max-words", type=int, default=45000)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    from gensim.models import Word2Vec

    start = time.time()
    sentences: list[list[str]] = []
    per_source: dict[str, int] = {}
    for source, line in training_lines(args.data):
        words = tokens(line)
        if words:
            sentences.append(words)
            per_source[source] = per_source.get(source, 0) + len(words)
    seen = {_digest(s) for s in sentences if len(s) >= MIN_OVERLAP_WORDS}
    checked = overlap = 0
    for text in evaluated_texts(args.data):
        for sentence in _SENTENCE.split(text):
            words = tokens(sentence)
            if len(words) >= MIN_OVERLAP_WORDS:
                checked += 1
                overlap += _digest(words) in seen
    print(f"{len(sentences)} sentences, {sum(per_source.values())} tokens; overlap with evaluated "
          f"corpora: {overlap} of {checked} sentences", file=sys.stderr)
    model = Word2Vec(sentences, vector_size=100, window=5, min_count=5, sg=1, epochs=args.epochs,
                     seed=args.seed, workers=1)
    wv = model.wv
    public = word_frequencies()
    keep = [w for w in wv.index_to_key if w in public and w.isalpha() and len(w) >= 2][: args.max_words]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    from gensim.models import KeyedVectors

    out = KeyedVectors(100, dtype=np.float32)
    out.add_vectors(keep, np.asarray([wv[w] for w in keep], dtype=np.float32))
    tmp = args.out.with_suffix(".tmp")
    out.save_word2vec_format(str(tmp), binary=True)
    tmp.replace(args.out)
    sha = hashlib.sha256(args.out.read_bytes()).hexdigest()
    meta = {
        "file": args.out.name,
        "sha256": sha,
        "words": len(keep),
        "trained_vocabulary": len(wv.index_to_key),
        "dim": 100,
        "model": {"algorithm": "word2vec skip-gram (gensim)", "gensim": __import__("gensim").__version__,
                  "window": 5, "min_count": 5, "negative": 5, "epochs": args.epochs, "seed": args.seed,
                  "workers": 1},
        "tokens": per_source,
        "sentences": len(sentences),
        "vocabulary_rule": "trained words in the bundled wordfreq list, alphabetic, >= 2 letters, "
                           f"most frequent first, at most {args.max_words}",
        "overlap_with_evaluated": {"sentences_checked": checked, "verbatim": overlap,
                                   "min_words": MIN_OVERLAP_WORDS},
        "seconds": round(time.time() - start, 1),
    }
    args.out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(meta, indent=2), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
