"""Build the public attacker data shipped in ``src/embedanon/privacy/data/`` and the word and name
lists of ``src/embedanon/data/`` (run once, offline).

Three files, all from public sources and none from any corpus the attacks are evaluated on:

* ``wordfreq_en.tsv.gz``: the 100,000 most frequent alphabetic English words of ``wordfreq``
  (``get_frequency_dict("en", "large")``, Speer et al.), ``word<TAB>frequency``. Extracted once
  here rather than imported at run time: the headline privacy figure must not depend on an optional
  package (wordfreq pulls in regex, ftfy, langcodes and msgpack) and must not change when wordfreq
  is upgraded. wordfreq's data is CC BY-SA 4.0; the file keeps that licence (see data/SOURCE.md).
* ``names.tsv.gz``: first names and surnames of Faker's person providers (MIT), one row per
  (name, part, culture group) with Faker's weight where it has one (en_US, en_GB surnames) and
  weight 1 otherwise: ``name<TAB>part<TAB>group<TAB>weight``. Only names written in Latin letters.
* ``bigrams_en.npz``: word unigram and bigram counts over NLTK's Brown and Webtext corpora and the
  biomedical sentence corpus of ../shared/data (PubMed/PMC; *not* MTSamples, which the experiments
  attack), pruned to bigrams seen at least ``--min-count`` times. Sentences are split on ``.?!``;
  words are lower-cased lookup keys (:func:`embedanon.text.lookup_key`).

Usage::

    .venv/bin/pip install 'wordfreq>=3.1' faker
    .venv/bin/python scripts/build_attack_data.py [--shared ../shared/data] [--min-count 3]
"""

from __future__ import annotations

import argparse
import gzip
import importlib
import re
import zipfile
from collections import Counter
from pathlib import Path

from embedanon.privacy.attacks.contextual import train_bigrams
from embedanon.text import lookup_key

OUT = Path(__file__).resolve().parents[1] / "src" / "embedanon" / "privacy" / "data"
#: the word and name lists are read by the detectors too, so they live below both (``embedanon.lexicon``)
LEXICON = Path(__file__).resolve().parents[1] / "src" / "embedanon" / "data"
TOP_WORDS = 100_000
#: Faker locales per culture group (only providers whose names are in Latin letters).
GROUPS = {
    "american": ["en_US"],
    "european": ["en_GB", "de_DE", "fr_FR", "it_IT", "pl_PL"],
    "hispanic": ["es_MX", "es_ES", "pt_BR"],
    "african": ["yo_NG", "zu_ZA", "tw_GH"],
    "south_asian": ["en_IN"],
}
_SENTENCE_END = re.compile(r"[.?!]+")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


def build_wordfreq() -> None:
    import wordfreq

    freqs = wordfreq.get_frequency_dict("en", "large")
    rows = sorted(((w, f) for w, f in freqs.items() if w.isalpha()), key=lambda kv: (-kv[1], kv[0]))
    with gzip.open(LEXICON / "wordfreq_en.tsv.gz", "wt", encoding="utf-8", compresslevel=9) as fh:
        for word, freq in rows[:TOP_WORDS]:
            fh.write(f"{word}\t{freq:.4g}\n")


def build_names() -> None:
    rows: dict[tuple[str, str, str], float] = {}
    for group, locales in GROUPS.items():
        for locale in locales:
            provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
            for part, attrs in (("first", ("first_names_male", "first_names_female", "first_names")),
                                ("last", ("last_names",))):
                for attr in attrs:
                    names = getattr(provider, attr, None) or ()
                    weighted = names.items() if isinstance(names, dict) else ((n, 1.0) for n in names)
                    for name, weight in weighted:
                        key = lookup_key(name)
                        if key.isascii() and key.isalpha():
                            slot = (key, part, group)
                            rows[slot] = max(rows.get(slot, 0.0), float(weight))
    with gzip.open(LEXICON / "names.tsv.gz", "wt", encoding="utf-8", compresslevel=9) as fh:
        for (name, part, group), weight in sorted(rows.items()):
            fh.write(f"{name}\t{part}\t{group}\t{weight:.6g}\n")


def _sentences_of(text: str):
    for sentence in _SENTENCE_END.split(text):
        words = [lookup_key(w) for w in _WORD.findall(sentence)]
        if words:
            yield words


def public_sentences(shared: Path):
    corpora = shared / "nltk_data" / "corpora"
    with zipfile.ZipFile(corpora / "brown.zip") as zf:
        for name in sorted(zf.namelist()):
            if re.fullmatch(r"brown/c[a-r]\d\d", name):
                raw = zf.read(name).decode("utf-8")
                yield from _sentences_of(" ".join(tok.rsplit("/", 1)[0] for tok in raw.split()))
    with zipfile.ZipFile(corpora / "webtext.zip") as zf:
        for name in sorted(zf.namelist()):
            if name.endswith(".txt"):
                yield from _sentences_of(zf.read(name).decode("utf-8", errors="replace"))
    with gzip.open(shared / "biomed-sentences" / "biomed_sentences.txt.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            yield from _sentences_of(line)


def build_bigrams(shared: Path, min_count: int) -> None:
    model = train_bigrams(public_sentences(shared), min_count=min_count, min_word_count=2)
    model.save(OUT / "bigrams_en.npz")
    sizes = Counter({"vocabulary": len(model.words), "bigrams": len(model.bigram_keys)})
    print(dict(sizes), "tokens", int(model.unigram_counts.sum()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    shared = Path(__file__).resolve().parents[2] / "shared" / "data"
    parser.add_argument("--shared", type=Path, default=shared)
    parser.add_argument("--min-count", type=int, default=3)
    parser.add_argument("--only", choices=["wordfreq", "names", "bigrams"], default=None)
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    if args.only in (None, "wordfreq"):
        build_wordfreq()
    if args.only in (None, "names"):
        build_names()
    if args.only in (None, "bigrams"):
        build_bigrams(args.shared, args.min_count)
    for path in sorted(OUT.iterdir()):
        print(path.name, path.stat().st_size, "bytes")


if __name__ == "__main__":
    main()
