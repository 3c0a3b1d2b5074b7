"""Labelled text corpora for utility experiments: loaders by name, paths in, nothing downloaded.

Every loader is ``loader(path, *, limit=None, seed=0, **options) -> Dataset`` and is registered in
:data:`LOADERS` with the options it accepts (:class:`LoaderSpec`). Shared rules:

* texts have their whitespace runs collapsed to one space; empty texts are dropped;
* exact duplicate texts are kept once; a text that occurs with two different labels is dropped
  (MTSamples files the same note under a specialty and a note type);
* ``limit`` draws a stratified sample (each class keeps its share, largest remainder first) with
  ``numpy.random.default_rng(seed)``; the sample keeps file order;
* ``part`` (``all``, ``dev``, ``heldout``) cuts the (limited) corpus into two stratified halves
  with a fixed split seed, so a lever can be chosen on ``dev`` and reported on ``heldout``; keep
  ``limit`` and ``seed`` equal between the two (the halves are cut from the sample).

Built-in loaders (files as laid out in ``../shared/data``, see its ``SOURCE.md`` files):

* ``mtsamples`` (``mtsamples/mtsamples.csv.gz``): :data:`MTSAMPLES_SPECIALTIES`, six clinical
  specialties with >= 150 distinct notes each. Note-type labels (Surgery, Consult - History and
  Phy., Radiology, SOAP / Chart / Progress Notes, Discharge Summary, General Medicine) are not
  classes: they describe the document, not the specialty, and repeat notes of the specialties. A
  note is kept when exactly one of the chosen specialties is among its labels.
* ``imdb`` (``imdb/imdb_train.csv.xz`` or ``imdb_test.csv.xz``): ``pos``/``neg``; ``<br />`` tags
  become spaces; ``unsup`` rows are skipped.
* ``ag-news`` (``ag-news/test.csv``, the test split only): World, Sports, Business, Sci/Tech;
  text is ``title. description``.
* ``pubmed`` (``pubmed-5term/pubmed.csv``): abstract, search term (5 classes).
* ``sentence-polarity`` (``nltk_data/corpora/sentence_polarity.zip``, read with zipfile): Pang &
  Lee snippets, ``pos``/``neg``.
* ``trec`` (``nltk_data/corpora/qc.zip``): TREC question classification (Li & Roth), 6 coarse
  labels (``fine: true`` for the 50 fine ones); ``split``: ``train`` (5,452), ``test`` (500),
  ``all``.
* ``csv`` / ``jsonl``: any file, with ``text_column`` and ``label_column`` (``.gz``/``.xz``/
  ``.bz2`` are decompressed; ``.tsv`` is tab-separated).

Errors are one-line :class:`~embedanon.errors.ConfigError` naming the option; no text is quoted.
"""

from __future__ import annotations

import bz2
import csv
import decimal
import gzip
import json
import lzma
import math
import re
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from .._registry import Registry
from ..errors import ConfigError

MTSAMPLES_SPECIALTIES = (
    "Cardiovascular / Pulmonary",
    "Orthopedic",
    "Gastroenterology",
    "Neurology",
    "Obstetrics / Gynecology",
    "Urology",
)
AG_NEWS_LABELS = {"1": "World", "2": "Sports", "3": "Business", "4": "Sci/Tech"}
PARTS = ("all", "dev", "heldout")
#: Seed of the dev/heldout split. The halves are cut from the ``limit`` sample, so they are disjoint
#: only between specs with the same ``limit`` and ``seed`` (no experiment seed moves a document).
SPLIT_SEED = 20240917
_SPACE = re.compile(r"\s+")
_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Dataset:
    """A labelled corpus.

    Attributes:
        name: the dataset's name in the experiment.
        texts: the documents.
        labels: one label per document (strings).
    """

    name: str
    texts: tuple[str, ...]
    labels: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.texts) != len(self.labels):
            raise ValueError(f"{len(self.texts)} texts but {len(self.labels)} labels")
        if len(set(self.labels)) < 2:
            raise ConfigError(f"dataset {self.name!r} needs at least 2 classes, got {len(set(self.labels))}")

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def classes(self) -> tuple[str, ...]:
        return tuple(sorted(set(self.labels)))

    def counts(self) -> dict[str, int]:
        return dict(sorted(Counter(self.labels).items()))


#: A reader: ``(path, *, where, **options) -> (text, label) pairs``; :func:`load_dataset` does the rest.
Loader = Callable[..., Iterable[tuple[str, str]]]


@dataclass(frozen=True, slots=True)
class LoaderSpec:
    """A registered loader: the function, its options with defaults, and the allowed values of some."""

    name: str
    load: Loader
    options: tuple[tuple[str, Any], ...] = ()
    choices: tuple[tuple[str, tuple[Any, ...]], ...] = ()

    def check(self, options: dict[str, Any], where: str) -> dict[str, Any]:
        """Options with defaults filled in; unknown keys and values outside ``choices`` refused."""
        known = dict(self.options)
        for key in options:
            if key not in known:
                valid = ", ".join(sorted(known)) or "none"
                raise ConfigError(
                    f"{where}: unknown key {key!r} for loader {self.name!r}; valid keys: {valid}"
                )
        out = {**known, **options}
        for key, allowed in self.choices:
            if out[key] not in allowed:
                raise ConfigError(
                    f"{where}.{key} must be one of {', '.join(map(str, allowed))}, got {out[key]!r}"
                )
        for key, value in out.items():
            if value is None and key in ("text_column", "label_column"):
                raise ConfigError(f"{where}.{key} is required for loader {self.name!r}")
        return out


LOADERS: Registry[LoaderSpec] = Registry("loader")


def loader(
    name: str, *, choices: dict[str, tuple[Any, ...]] | None = None, **options: Any
) -> Callable[[Loader], Loader]:
    """Register ``function(path, *, limit, seed, part, **options)`` under ``name``."""

    def decorator(function: Loader) -> Loader:
        LOADERS.add(name, LoaderSpec(name, function, tuple(options.items()), tuple((choices or {}).items())))
        return function

    return decorator


def check_folds(labels: Iterable[object], folds: int, where: str) -> None:
    """Refuse a corpus that stratified ``folds``-fold cross-validation cannot split.

    Every class needs at least ``folds`` documents (else a test fold misses it and a training
    fold may hold a single class), and there must be two classes. Checked before any work; the
    message gives counts, never a label (labels are data).

    Raises:
        ConfigError: fewer than 2 classes, or a class smaller than ``folds``.
    """
    sizes = Counter(labels)
    if len(sizes) < 2:
        raise ConfigError(f"{where}: needs at least 2 classes, got {len(sizes)}")
    smallest = min(sizes.values())
    if smallest < folds:
        raise ConfigError(
            f"{where}: folds {folds} needs at least {folds} documents in every class, "
            f"the smallest class has {smallest} (lower folds or add documents)"
        )


def load_dataset(
    loader_name: str,
    path: str | Path,
    *,
    name: str | None = None,
    limit: int | None = None,
    seed: int = 0,
    part: str = "all",
    where: str = "dataset",
    per_class: int = 0,
    **options: Any,
) -> Dataset:
    """Load a corpus with a registered loader (see the module docstring).

    Args:
        loader_name: registered loader.
        path: the file.
        name: the dataset's name (default: the loader's).
        limit: this many documents (stratified sample), or None for all; more when ``per_class``
            needs more (``limit`` 20, six classes, ``per_class`` 5: 30 documents).
        per_class: the sample keeps at least this many documents of each class (fewer where the
            class has fewer), so that cross-validation with this many folds can split it.
        seed: seed of the sample.
        part: ``all``, ``dev`` or ``heldout`` (stratified halves, fixed split seed).
        where: how messages name this dataset (``datasets[0]``).
        **options: loader options (``text_column`` ...).

    Raises:
        ConfigError: unknown loader or option, a missing file, column or an unreadable file.
    """
    try:
        spec = LOADERS.get(loader_name)
    except ConfigError as exc:
        raise ConfigError(f"{where}.loader: {exc}") from None
    opts = spec.check(options, where)
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 2):
        raise ConfigError(f"{where}.limit must be an integer >= 2, got {limit!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError(f"{where}.seed must be an integer, got {seed!r}")
    if part not in PARTS:
        raise ConfigError(f"{where}.part must be one of {', '.join(PARTS)}, got {part!r}")
    file = Path(path)
    if not file.is_file():
        raise ConfigError(f"{where}.path: no such file: {file}")
    try:
        pairs: list[tuple[str, str]] = list(spec.load(file, where=where, **opts))
    except (OSError, EOFError, lzma.LZMAError, zipfile.BadZipFile, UnicodeDecodeError, csv.Error) as exc:
        raise ConfigError(f"{where}.path: cannot read {file} ({type(exc).__name__})") from None
    texts, labels = _clean(pairs)
    if limit is not None and limit < len(texts):
        keep = stratified_sample(labels, limit, seed, floor=per_class)
        texts, labels = [texts[i] for i in keep], [labels[i] for i in keep]
    if part != "all":
        dev = set(stratified_sample(labels, len(labels) // 2, SPLIT_SEED))
        chosen = [i for i in range(len(texts)) if (i in dev) == (part == "dev")]
        texts, labels = [texts[i] for i in chosen], [labels[i] for i in chosen]
    if not texts:
        raise ConfigError(f"{where}: loader {loader_name!r} found no labelled texts in {file}")
    check_folds(labels, 1, f"{where} ({name or loader_name})")  # 2 classes; named as the other errors
    return Dataset(name or loader_name, tuple(texts), tuple(labels))


def _clean(pairs: Iterable[tuple[str, str]]) -> tuple[list[str], list[str]]:
    seen: dict[str, str | None] = {}
    for text, label in pairs:
        text = _SPACE.sub(" ", text).strip()
        if not text or not label:
            continue
        if text in seen and seen[text] != label:
            seen[text] = None  # the same text under two labels: drop it
        else:
            seen.setdefault(text, label)
    kept = [(t, lab) for t, lab in seen.items() if lab is not None]
    return [t for t, _ in kept], [lab for _, lab in kept]


def stratified_sample(labels: list[str], n: int, seed: int, *, floor: int = 0) -> list[int]:
    """Indices of a stratified sample of size ``n`` (sorted; classes keep their shares).

    Each class c of size n_c gets floor(n * n_c / N) places, the remaining places go to the
    largest remainders (ties: class name); within a class the documents are drawn uniformly.
    ``floor``: every class then gets at least min(``floor``, n_c) places, taken from the classes
    with the most places (ties: class name); the sample exceeds ``n`` only when ``n`` is smaller
    than the places the floor needs. With ``floor=0`` the sample is the plain stratified one.
    """
    total = len(labels)
    n = min(n, total)
    by_class: dict[str, list[int]] = {}
    for i, label in enumerate(labels):
        by_class.setdefault(label, []).append(i)
    names = sorted(by_class)
    exact = {c: n * len(by_class[c]) / total for c in names}
    quota = {c: int(exact[c]) for c in names}
    rest = n - sum(quota.values())
    for c in sorted(names, key=lambda c: (-(exact[c] - quota[c]), c))[:rest]:
        quota[c] += 1
    if floor > 0:
        least = {c: min(floor, len(by_class[c])) for c in names}
        excess = sum(max(0, least[c] - quota[c]) for c in names)
        quota = {c: max(quota[c], least[c]) for c in names}
        while excess > 0:
            spare = [c for c in names if quota[c] > least[c]]
            if not spare:
                break
            quota[max(spare, key=lambda c: (quota[c], c))] -= 1
            excess -= 1
    rng = np.random.default_rng(seed)
    out: list[int] = []
    for c in names:
        members = by_class[c]
        picked = rng.choice(len(members), size=quota[c], replace=False)
        out.extend(members[j] for j in picked.tolist())
    return sorted(out)


def _open_text(path: Path, encoding: str = "utf-8-sig") -> IO[str]:
    """``path`` opened for reading text, decompressed by its suffix; ``utf-8-sig`` drops the byte
    order mark Excel's "CSV UTF-8" writes (else the first column's name starts with U+FEFF)."""
    suffixes = path.suffixes
    if suffixes and suffixes[-1] == ".gz":
        return gzip.open(path, "rt", encoding=encoding, newline="")
    if suffixes and suffixes[-1] == ".xz":
        return lzma.open(path, "rt", encoding=encoding, newline="")
    if suffixes and suffixes[-1] == ".bz2":
        return bz2.open(path, "rt", encoding=encoding, newline="")
    return open(path, encoding=encoding, newline="")


def _rows(
    path: Path, where: str, required: Iterable[tuple[str, str]], delimiter: str | None = None
) -> Iterator[dict[str, str]]:
    """Rows of a CSV file; ``required`` are (config key, column) pairs checked against the header."""
    csv.field_size_limit(1 << 30)
    inner = path.name.removesuffix(".gz").removesuffix(".xz").removesuffix(".bz2")
    sep = delimiter or ("\t" if inner.endswith(".tsv") else ",")
    with _open_text(path) as fh:
        reader = csv.DictReader(fh, delimiter=sep)
        columns = reader.fieldnames or []
        for key, column in required:
            if column not in columns:
                # the first row is named by count only: in a file without a header row it is a
                # record, and an error message never quotes data; a name equal but for case is a
                # header name, safe to suggest
                same = [c for c in columns if c.casefold() == column.casefold()]
                hint = (f"did you mean {same[0]!r}?" if same
                        else "the first row must be a header row naming the columns")
                raise ConfigError(
                    f"{where}.{key}: no column {column!r} in the first row of {path.name} "
                    f"({len(columns)} column{'' if len(columns) == 1 else 's'}; {hint})"
                )
        yield from reader


@loader("mtsamples", specialties=MTSAMPLES_SPECIALTIES)
def load_mtsamples(path: Path, *, where: str, specialties: Iterable[str]) -> Iterator[tuple[str, str]]:
    chosen = set(specialties)
    labels: dict[str, set[str]] = {}
    order: list[str] = []
    for row in _rows(path, where, [("path", "transcription"), ("path", "medical_specialty")]):
        text = _SPACE.sub(" ", row["transcription"]).strip()
        if text not in labels:
            labels[text] = set()
            order.append(text)
        labels[text].add(row["medical_specialty"].strip())
    for text in order:
        mine = labels[text] & chosen
        if len(mine) == 1:
            yield text, next(iter(mine))


@loader("imdb")
def load_imdb(path: Path, *, where: str) -> Iterator[tuple[str, str]]:
    for row in _rows(path, where, [("path", "text"), ("path", "label")]):
        if row["label"] in ("pos", "neg"):
            yield _BR.sub(" ", row["text"]), row["label"]


@loader("ag-news")
def load_ag_news(path: Path, *, where: str) -> Iterator[tuple[str, str]]:
    for row in _rows(path, where, [("path", "label"), ("path", "title"), ("path", "description")]):
        label = AG_NEWS_LABELS.get(row["label"].strip())
        if label is not None:
            text = f"{row['title'].strip()}. {row['description']}".replace("\\", " ")
            yield text, label


@loader("pubmed")
def load_pubmed(path: Path, *, where: str) -> Iterator[tuple[str, str]]:
    for row in _rows(path, where, [("path", "abstract"), ("path", "term")]):
        yield row["abstract"], row["term"].strip()


def _zip_lines(path: Path, member: str, where: str) -> list[str]:
    with zipfile.ZipFile(path) as archive:
        try:
            data = archive.read(member)
        except KeyError:
            raise ConfigError(f"{where}.path: {path.name} has no member {member!r}") from None
    # Pang & Lee's and Li & Roth's files are Latin-1 (bytes > 127 are rare accents).
    return data.decode("latin-1").splitlines()


@loader("sentence-polarity")
def load_sentence_polarity(path: Path, *, where: str) -> Iterator[tuple[str, str]]:
    for label in ("pos", "neg"):
        for line in _zip_lines(path, f"sentence_polarity/rt-polarity.{label}", where):
            yield line, label


@loader("trec", choices={"split": ("train", "test", "all"), "fine": (False, True)}, split="train", fine=False)
def load_trec(path: Path, *, where: str, split: str, fine: bool) -> Iterator[tuple[str, str]]:
    for name in ("train", "test") if split == "all" else (split,):
        for line in _zip_lines(path, f"qc/{name}.txt", where):
            head, _, text = line.partition(" ")
            if text:
                yield text, head if fine else head.split(":")[0]


@loader("csv", text_column="text", label_column="label", delimiter=None)
def load_csv(
    path: Path, *, where: str, text_column: str, label_column: str, delimiter: str | None
) -> Iterator[tuple[str, str]]:
    if delimiter is not None and (not isinstance(delimiter, str) or len(delimiter) != 1):
        raise ConfigError(f"{where}.delimiter must be one character, got {delimiter!r}")
    for row in _rows(path, where, [("text_column", text_column), ("label_column", label_column)], delimiter):
        text, label = row[text_column], row[label_column]
        if text is not None and label is not None:
            yield text, label.strip()


def label_text(value: bool | int | float | decimal.Decimal | str) -> str:
    """The class a JSON label names, as text: numbers equal as numbers are one class.

    ``1``, ``1.0`` and ``1e0`` are the number one (``"1"``), ``2.50`` and ``0.25e1`` are ``"2.5"``;
    a number is compared exactly as written (JSON numbers are decimals, so ``0.1`` and
    ``0.10000000000000001`` are two classes). A string is its text, stripped (``"1"`` is the class of
    the number 1 too, as a CSV file spells it); ``true`` and ``false`` are not numbers.
    """
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, bool):
        return str(value)
    number = decimal.Decimal(value)  # exact for an int, a Decimal and a float alike
    if number == number.to_integral_value() and number.adjusted() < 64:
        return str(int(number))
    # every digit kept (the default context would round past 28), trailing zeros dropped
    return str(number.normalize(decimal.Context(prec=max(1, len(number.as_tuple().digits)))))


@loader("jsonl", text_column="text", label_column="label")
def load_jsonl(path: Path, *, where: str, text_column: str, label_column: str) -> Iterator[tuple[str, str]]:
    with _open_text(path) as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line, parse_float=decimal.Decimal)  # labels compare as numbers
            except json.JSONDecodeError:
                raise ConfigError(f"{where}.path: line {number} of {path.name} is not valid JSON") from None
            if not isinstance(record, dict):
                raise ConfigError(f"{where}.path: line {number} of {path.name} is not a JSON object")
            for key, column in (("text_column", text_column), ("label_column", label_column)):
                if column not in record:
                    raise ConfigError(f"{where}.{key}: line {number} of {path.name} has no field {column!r}")
            text, label = record[text_column], record[label_column]
            if not isinstance(text, str):
                raise ConfigError(
                    f"{where}.text_column: line {number} of {path.name}: "
                    f"field {text_column!r} is not a string"
                )
            if isinstance(label, float) and not math.isfinite(label):  # NaN is Python's missing value
                raise ConfigError(
                    f"{where}.label_column: line {number} of {path.name}: field {label_column!r} is "
                    f"{label} (a missing label; every record needs one)"
                )
            if isinstance(label, bool | int | float | decimal.Decimal | str):
                yield text, label_text(label)
            else:
                raise ConfigError(
                    f"{where}.label_column: line {number} of {path.name}: "
                    f"field {label_column!r} is not a string or number"
                )
