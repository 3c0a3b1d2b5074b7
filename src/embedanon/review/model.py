"""What a review page shows: records with their items and counts, and a summary of the run.

These objects hold original text (that is what the page is for) and live only as long as one
page is built; nothing here logs or prints.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Protocol

from ..privacy.metrics import DocumentLike, scan
from ..privacy.scoped import ReleaseCounts
from ..privacy.verdict import Verdict
from ..text import lookup_key
from .lookalike import Lookalike


class ItemLike(Protocol):
    """An item of :class:`~embedanon.pipeline.document.AnonymizedDocument` (duck-typed, so that a
    ``label`` attribute added later is picked up with ``getattr``)."""

    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def new_start(self) -> int: ...
    @property
    def new_end(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def stage(self) -> str: ...


def label_of(item: ItemLike) -> str | None:
    """An item's detector label (``PERSON`` ...), or None when it has none."""
    label = getattr(item, "label", None)
    return str(label) if label else None


@dataclass(frozen=True, slots=True)
class TextStats:
    """Counts of one anonymized text (or a sum of them).

    Attributes:
        words: word tokens of the original (see :mod:`embedanon.text`).
        changed: of them, word tokens whose released form differs, ignoring case.
        kept: alphanumeric tokens (words, numbers, codes) that no item touches: released verbatim.
        items: items (replaced spans).
    """

    words: int = 0
    changed: int = 0
    kept: int = 0
    items: int = 0

    def __post_init__(self) -> None:
        if not (0 <= self.changed <= self.words and self.kept >= 0 and self.items >= 0):
            raise ValueError(f"need 0 <= changed <= words and counts >= 0, got {self.changed}, "
                             f"{self.words}, {self.kept}, {self.items}")

    @property
    def change_rate(self) -> float:
        """changed / words (nan for a text without words)."""
        return self.changed / self.words if self.words else float("nan")

    def __add__(self, other: TextStats) -> TextStats:
        return TextStats(self.words + other.words, self.changed + other.changed,
                         self.kept + other.kept, self.items + other.items)


def text_stats(original: str, document: DocumentLike) -> TextStats:
    """Count words, changed words and verbatim tokens from the items (no re-alignment of two
    strings); for full-scope output the change rate equals that of
    :func:`embedanon.privacy.metrics.change_stats`."""
    words, changed, kept = scan(original, document)
    return TextStats(words, changed, len(kept), len(document.items))


@dataclass(frozen=True, slots=True)
class ReviewText:
    """One anonymized text of a record, as far as the page shows it.

    Attributes:
        field: its field name (``""`` for a line of a text file).
        original: the input text, or its first characters when it is longer than the page shows
            (see ``length``).
        document: the release of ``original`` (released text and items), with the noise the
            whole text gets (:func:`~embedanon.pipeline.document.anonymize_prefix`).
        stats: its counts.
        length: characters of the whole input text (``>= len(original)``).
        lookalikes: unchanged stretches that look like personal data
            (:mod:`~embedanon.review.lookalike`), in text order.
        exact_cut: False when a truncated text had no word (or sentence) boundary before the
            limit and was cut inside one: the release of its last word (sentence) shown may differ
            from the whole text's (:func:`~embedanon.pipeline.document.rough_end`).
    """

    field: str
    original: str
    document: DocumentLike
    stats: TextStats
    length: int = -1
    lookalikes: tuple[Lookalike, ...] = ()
    exact_cut: bool = True

    def __post_init__(self) -> None:
        if self.length == -1:
            object.__setattr__(self, "length", len(self.original))
        if self.length < len(self.original):
            raise ValueError(f"length must be >= the {len(self.original)} characters shown, "
                             f"got {self.length}")

    @property
    def truncated(self) -> bool:
        """Whether the page shows only the start of the text."""
        return self.length > len(self.original)

    @classmethod
    def build(cls, field_name: str, original: str, document: DocumentLike, *, length: int = -1,
              lookalikes: tuple[Lookalike, ...] = (), exact_cut: bool = True) -> ReviewText:
        return cls(field_name, original, document, text_stats(original, document), length, lookalikes,
                   exact_cut)


@dataclass(frozen=True, slots=True)
class ReviewRecord:
    """A sampled record: its 1-based number in the input and its texts."""

    number: int
    texts: tuple[ReviewText, ...]

    def __post_init__(self) -> None:
        if self.number < 1:
            raise ValueError(f"record number must be >= 1, got {self.number}")

    @property
    def stats(self) -> TextStats:
        return sum((t.stats for t in self.texts), TextStats())


@dataclass(frozen=True, slots=True)
class Figure:
    """One privacy figure: a rate in [0, 1] (or a count, ``rate=False``; nan: not measured) over a
    number of tokens.

    Attributes:
        group: what measured it (``attack``, ``mechanism``).
        name: what it is, e.g. ``public-prior attack, top-1``.
        value: the rate.
        tokens: how many tokens it was measured over (0: not token-based).
        note: one line on how to read it.
        key: its name in the privacy verdict (:mod:`embedanon.privacy.verdict`, e.g.
            ``attack_contextual_top1``), ``""`` when the verdict does not judge it.
        rate: whether ``value`` is a rate (shown as a percentage) or a count.
    """

    group: str
    name: str
    value: float
    tokens: int = 0
    note: str = ""
    key: str = ""
    rate: bool = True

    def __post_init__(self) -> None:
        if self.rate and not (self.value != self.value or 0.0 <= self.value <= 1.0):  # nan is allowed
            raise ValueError(f"figure {self.name!r} must be a rate in [0, 1], got {self.value}")
        if not self.rate and not (self.value != self.value or self.value >= 0.0):
            raise ValueError(f"figure {self.name!r} must be a number >= 0, got {self.value}")


@dataclass(frozen=True, slots=True)
class Settings:
    """How the release was made (no secret: the key shows only its origin and fingerprint).

    Attributes:
        mechanism: mechanism name.
        params: its parameters as (name, value) pairs, defaults included.
        embedding: embedding name or path.
        key_origin: ``file``, ``default``, ``seed`` or ``fresh`` (:data:`~embedanon.noise.KEY_ORIGINS`).
        key_fingerprint: the key's public fingerprint.
        digest: configuration digest (:meth:`~embedanon.pipeline.Anonymizer.digest`).
        epsilon: per-word epsilon, or None when the mechanism has none.
        detection: outside scope all, how spans were found, as (heading, value) rows: the
            detectors, the names of their options (never the values: a URL may carry a
            password), the strategies, how many allowed and denied strings (never the strings:
            a deny list holds the private words themselves) and the phone and ID formats.
        vocabulary: outside scope detected, the candidate vocabulary: how many words, their
            shortest length and whether a list restricts them (never the list's path or words).
        noise_unit: what addresses the noise, ``record`` or ``sentence``.
    """

    mechanism: str
    params: tuple[tuple[str, Any], ...]
    embedding: str
    key_origin: str
    key_fingerprint: str
    digest: str
    epsilon: float | None = None
    detection: tuple[tuple[str, str], ...] = ()
    vocabulary: str = ""
    noise_unit: str = "record"


@dataclass(frozen=True, slots=True)
class Review:
    """Everything a page shows.

    Attributes:
        input_name: the input path as given.
        format: ``txt``, ``jsonl`` or ``csv``.
        fields: the anonymized fields (``()`` for txt).
        settings: the release's settings.
        records_total: records in the input.
        empty_records: of them, records with no text to review (blank lines, empty fields): never
            sampled.
        longest_record_draws: word parts the mechanism replaces in the input's longest record (all
            its fields; :func:`~embedanon.text.mechanism_draws`, ``well-known`` is 2); outside
            plain full scope the parts it drew in the scoped release when the page shows every
            record whole (as ``privacy-report`` counts them), else an upper bound
            (``draws_bound``), since some words get surrogates or stay.
        draws_bound: ``longest_record_draws`` is an upper bound, not the count.
        requested: records asked for (0: all, up to the cap).
        records: the sampled records, in input order.
        figures: privacy figures measured on the sample.
        notes: one-line notes about figures that could not be measured.
        generated: when the page was made (ISO 8601, UTC).
        scope: ``""`` for plain full scope; else the scope the release was made in (``detected``,
            ``hybrid``, ``all with neutral formats``): the figures then measure only the words the
            mechanism released (:mod:`embedanon.privacy.scoped`).
        release: outside plain full scope, the sample's word tokens by what released them.
        warnings: outside plain full scope, what the figures describe (privacy-report's lines).
        verdict: the privacy verdict of the figures (None: no figure was measured).
        max_chars: the most characters of one text the page shows (0: no limit).
    """

    input_name: str
    format: str
    fields: tuple[str, ...]
    settings: Settings
    records_total: int
    longest_record_draws: int
    requested: int
    records: tuple[ReviewRecord, ...]
    figures: tuple[Figure, ...] = ()
    notes: tuple[str, ...] = ()
    generated: str = ""
    empty_records: int = 0
    scope: str = ""
    release: ReleaseCounts | None = None
    warnings: tuple[str, ...] = ()
    verdict: Verdict | None = None
    max_chars: int = 0
    draws_bound: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.empty_records <= self.records_total or len(self.records) > self.records_total:
            raise ValueError("need 0 <= empty_records <= records_total and records <= records_total")

    @property
    def stats(self) -> TextStats:
        """Counts over the sampled records."""
        return sum((r.stats for r in self.records), TextStats())

    @property
    def epsilon_spent(self) -> float | None:
        """n * epsilon for the longest record (None without epsilon)."""
        eps = self.settings.epsilon
        return None if eps is None else self.longest_record_draws * eps

    def item_counts(self) -> Counter[tuple[str, str, str | None]]:
        """Items of the sample by (kind, stage, label)."""
        counts: Counter[tuple[str, str, str | None]] = Counter()
        for record in self.records:
            for text in record.texts:
                for item in text.document.items:
                    counts[(str(item.kind), str(item.stage), label_of(item))] += 1
        return counts

    def lookalike_rows(self) -> list[LookalikeRow]:
        """The look-alikes of the sample grouped by kind and word (case and accents ignored),
        most frequent first, each with where it occurs."""
        rows: dict[tuple[str, str], LookalikeRow] = {}
        for record in self.records:
            for t, text in enumerate(record.texts):
                for n, found in enumerate(text.lookalikes):
                    word = text.original[found.start:found.end]
                    key = (found.kind, lookup_key(word))
                    row = rows.get(key)
                    if row is None:
                        row = rows[key] = LookalikeRow(word, found.kind, [])
                    row.places.append((record.number, t, n))
        return sorted(rows.values(), key=lambda r: (-len(r.places), r.places[0]))


@dataclass(slots=True)
class LookalikeRow:
    """One word of the look-alike list: as first written, its kind, and where it occurs as
    ``(record number, text index, look-alike index)``."""

    word: str
    kind: str
    places: list[tuple[int, int, int]]
