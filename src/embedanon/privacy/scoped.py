"""What a scoped release exposes: which word tokens the mechanism released, which it did not.

Outside plain full scope (scope ``detected`` or ``hybrid``, or ``all`` with neutral formats) a
release is assembled from the full-scope replacement (:mod:`embedanon.pipeline.scope`). Each
alphanumeric token of the original is then

* **verbatim**: no item touches it (in scope ``detected``, every word outside the detected spans);
* **mechanism**: every item touching it is the full-scope replacement (item kind ``word`` or
  ``code``), so it reads exactly as in full scope under the same key;
* **other**: part of a surrogate or redacted span, or a word hybrid scope's name guard redrew
  (item kind ``guard``: outside the mechanism's law, :mod:`embedanon.pipeline.nameguard`).

The word attacks model the mechanism, so they measure a *view* of the release that holds only
the mechanism's tokens (:func:`mechanism_view`); the change rate of the release as a whole comes
from the items, counted as the review page counts them (:func:`embedanon.privacy.metrics.scan`).
``privacy-report`` and the review page both take their figures' input from
:func:`scoped_release`, and their warnings from :func:`release_warnings`.

Nothing here logs or returns text beyond the views handed to the attacks.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ..config import AnonymizerConfig, ScopeConfig
from ..text import ALNUM_KINDS, drawn_parts, tokenize
from .metrics import ChangeStats, DocumentLike, align_tokens, scan

#: Item kinds copied from the full-scope replacement (``surrogate``, ``redact`` and ``guard`` are not).
MECHANISM_KINDS = frozenset({"word", "code"})
#: Put between two runs of mechanism tokens in a view: it ends a sentence, so the contextual
#: attacker never chains words that were not adjacent in the release.
SEPARATOR = " .\n"


@dataclass(frozen=True, slots=True)
class ReleaseCounts:
    """Word tokens of a release by what released them (counts only).

    Attributes:
        change: token counts of the release as published (changed words from its items).
        verbatim_words: word tokens no item touches: released unchanged, with no protection.
        mechanism_words: word tokens released as the mechanism's full-scope replacement.
        mechanism_parts: the word parts of those tokens the mechanism replaced, each a use of
            epsilon (:func:`~embedanon.text.drawn_parts`: ``well-known`` is 2).
        longest_parts: the most of them in one document (its epsilon spent is this times epsilon).
        document_parts: those parts per document, in order (empty when not counted).
    """

    change: ChangeStats
    verbatim_words: int
    mechanism_words: int
    mechanism_parts: int = 0
    longest_parts: int = 0
    document_parts: tuple[int, ...] = field(default=(), compare=False)  # a detail of the totals

    def __post_init__(self) -> None:
        if min(self.verbatim_words, self.mechanism_words) < 0 or self.verbatim_words + \
                self.mechanism_words > self.change.word_tokens:
            raise ValueError(f"need verbatim_words, mechanism_words >= 0 with a sum <= word_tokens, got "
                             f"{self.verbatim_words}, {self.mechanism_words}, {self.change.word_tokens}")

    @property
    def other_words(self) -> int:
        """Word tokens inside surrogate or redacted spans, or redrawn by the name guard."""
        return self.change.word_tokens - self.verbatim_words - self.mechanism_words

    @classmethod
    def full_scope(cls, change: ChangeStats, *, parts: int = 0, longest_parts: int = 0) -> ReleaseCounts:
        """Counts of a plain full-scope release: every word goes through the mechanism (``parts``
        and ``longest_parts``: :func:`~embedanon.text.mechanism_draws` of the input and of its
        longest document)."""
        return cls(change, 0, change.word_tokens, parts, longest_parts)


def mechanism_tokens(original: str, document: DocumentLike) -> set[int]:
    """Start offsets of the alphanumeric tokens of ``original`` that ``document`` releases as the
    mechanism's replacement: touched by at least one item, and only by items of
    :data:`MECHANISM_KINDS`."""
    items = list(document.items)
    ends = [it.end for it in items]
    out = set()
    for token in tokenize(original):
        if token.kind not in ALNUM_KINDS:
            continue
        j = bisect_right(ends, token.start)  # items are ordered and do not overlap
        kinds = set()
        while j < len(items) and items[j].start < token.end:
            kinds.add(str(items[j].kind))
            j += 1
        if kinds and kinds <= MECHANISM_KINDS:
            out.add(token.start)
    return out


def verbatim_name_groups(originals: Sequence[str], documents: Sequence[DocumentLike],
                         spans: Sequence[Sequence[tuple[int, int, str]]]) -> list[str]:
    """The culture group of each word token inside a name span of ``spans`` (character offsets of
    the originals) that ``documents`` release unchanged: no item touches it (counts only)."""
    groups = []
    for original, document, doc_spans in zip(originals, documents, spans, strict=True):
        if not doc_spans:
            continue
        kept = {start for start, _ in scan(original, document)[2]}
        for token in tokenize(original):
            if token.kind != "word" or token.start not in kept:
                continue
            inside = [group for start, end, group in doc_spans if start < token.end and end > token.start]
            groups += inside[:1]
    return groups


def release_counts(originals: Sequence[str], documents: Sequence[DocumentLike]) -> ReleaseCounts:
    """Counts of the release ``documents`` of ``originals`` (one document each)."""
    if len(originals) != len(documents):
        raise ValueError(f"need one document per text, got {len(documents)} for {len(originals)}")
    tokens = words = changed = verbatim = mechanism = parts = longest = 0
    per_document = []
    for original, document in zip(originals, documents, strict=True):
        n, c, kept = scan(original, document)
        words, changed = words + n, changed + c
        kept_starts = {start for start, _ in kept}
        by_mechanism = mechanism_tokens(original, document)
        drawn = 0
        for token in tokenize(original):
            tokens += token.kind != "space"
            if token.kind == "word":
                verbatim += token.start in kept_starts
                mechanism += token.start in by_mechanism
            if token.start in by_mechanism:
                drawn += drawn_parts(token.text)
        parts, longest = parts + drawn, max(longest, drawn)
        per_document.append(drawn)
    return ReleaseCounts(ChangeStats(tokens, words, changed), verbatim, mechanism, parts, longest,
                         tuple(per_document))


def longest_record_parts(per_text: Sequence[int], sizes: Sequence[int]) -> int:
    """The most word parts drawn in one record: ``per_text`` (one count per text, such as
    :attr:`ReleaseCounts.document_parts`) summed over each record's ``sizes`` texts, in order
    (a record of several fields spends the ε of all of them)."""
    longest = at = 0
    for size in sizes:
        longest = max(longest, sum(per_text[at:at + size]))
        at += size
    return longest


@dataclass(frozen=True, slots=True)
class MechanismView:
    """The mechanism's tokens of a release, as texts the attacks can read.

    Attributes:
        originals: per document, its runs of mechanism tokens joined by :data:`SEPARATOR`.
        releases: ``releases[r][d]``: the same runs in full-scope release r of document d
            (token-aligned with ``originals[d]``).
        runs: per document, ``(start, end, view_start)``: each run's offsets in the original and
            where it starts in the view.
    """

    originals: tuple[str, ...]
    releases: tuple[tuple[str, ...], ...]
    runs: tuple[tuple[tuple[int, int, int], ...], ...]

    def map_spans(self, spans: Sequence[Sequence[tuple[int, int, str]]]) -> list[list[tuple[int, int, str]]]:
        """``(start, end, group)`` spans of the originals moved to the view (clipped to its runs)."""
        out = []
        for doc_spans, runs in zip(spans, self.runs, strict=True):
            moved = []
            for start, end, group in doc_spans:
                for a, b, at in runs:
                    if start < b and end > a:
                        moved.append((max(start, a) - a + at, min(end, b) - a + at, group))
            out.append(moved)
        return out


def mechanism_view(originals: Sequence[str], documents: Sequence[Sequence[DocumentLike]],
                   full_releases: Sequence[Sequence[str]]) -> MechanismView:
    """The tokens the mechanism released in every release, taken from the full-scope releases.

    Args:
        originals: the documents.
        documents: ``documents[r][d]``: scoped release r of document d, with its items.
        full_releases: ``full_releases[r][d]``: the full-scope release of document d under the
            same key as ``documents[r][d]`` (there the mechanism's tokens read the same).
    """
    if len(documents) != len(full_releases) or not documents:
        raise ValueError("need one full-scope release per scoped release, and at least one")
    views: list[str] = []
    released: list[list[str]] = [[] for _ in full_releases]
    all_runs = []
    for d, original in enumerate(originals):
        keep = set.intersection(*(mechanism_tokens(original, docs[d]) for docs in documents))
        pairs = [align_tokens(original, rel[d]) for rel in full_releases]
        spans: list[tuple[int, int]] = []  # runs as token index ranges
        first = last = -1
        for i, (x, _) in enumerate(pairs[0]):
            if x.kind not in ALNUM_KINDS:
                continue
            if x.start in keep:
                first = i if first < 0 else first
                last = i
            elif first >= 0:
                spans.append((first, last))
                first = -1
        if first >= 0:
            spans.append((first, last))
        runs, at = [], 0
        for i, j in spans:
            start, end = pairs[0][i][0].start, pairs[0][j][0].end
            runs.append((start, end, at))
            at += end - start + len(SEPARATOR)
        views.append(SEPARATOR.join(original[pairs[0][i][0].start : pairs[0][j][0].end] for i, j in spans))
        for r, rel in enumerate(full_releases):
            released[r].append(SEPARATOR.join(rel[d][pairs[r][i][1].start : pairs[r][j][1].end]
                                              for i, j in spans))
        all_runs.append(tuple(runs))
    return MechanismView(tuple(views), tuple(tuple(r) for r in released), tuple(all_runs))


def is_plain(scope: ScopeConfig) -> bool:
    """Plain full scope: every word goes through the mechanism and no span becomes a surrogate,
    so the release is the full-scope release and its figures need no view."""
    return scope.scope == "all" and not scope.neutral_formats


def full_scope_config(config: AnonymizerConfig) -> AnonymizerConfig:
    """``config`` in plain full scope: under the same key, its release holds the mechanism's
    tokens of the scoped release exactly as they read there."""
    return replace(config, scope=ScopeConfig(neutral_formats=False))


@dataclass(frozen=True, slots=True)
class ScopedRelease:
    """What the figures of a release outside plain full scope read, and how to qualify them.

    Attributes:
        scope: the scope (``all``, ``detected``, ``hybrid``).
        view: the mechanism's tokens, for N_w, S_w and the word attacks.
        counts: word tokens of the first release by what released them.
        warnings: one line each (counts only), as :func:`release_warnings` gives them.
    """

    scope: str
    view: MechanismView
    counts: ReleaseCounts
    warnings: tuple[str, ...]


def scoped_release(scope: ScopeConfig, originals: Sequence[str], documents: Sequence[Sequence[DocumentLike]],
                   full_releases: Sequence[Sequence[str]]) -> ScopedRelease:
    """The view and the counts of a release made in ``scope`` (not plain full scope).

    Args:
        scope: the scope the releases were made in.
        originals: the documents.
        documents: ``documents[r][d]``: release r of document d in ``scope``, with its items.
        full_releases: ``full_releases[r][d]``: the release of document d under the same key in
            plain full scope (:func:`full_scope_config`).
    """
    view = mechanism_view(originals, documents, full_releases)
    counts = release_counts(originals, documents[0])
    replaced = any(item.kind not in MECHANISM_KINDS for doc in documents[0] for item in doc.items)
    return ScopedRelease(scope.scope, view, counts, tuple(release_warnings(scope, counts, replaced=replaced)))


def release_warnings(scope: ScopeConfig, counts: ReleaseCounts, *, replaced: bool | None = None) -> list[str]:
    """What the figures of a release in ``scope`` describe, one line each (none in plain full
    scope; counts only, never text).

    ``replaced``: whether any span of the release is a surrogate or a redaction (None: judged by
    the word tokens inside such spans; a phone or an ID has none)."""
    warnings = []
    if replaced is None:
        replaced = counts.other_words > 0
    if scope.neutral_formats and replaced:  # only when a phone or ID was replaced
        warnings.append("neutral formats: phones and IDs are surrogates in the release; the word attacks "
                        "measure the words the mechanism released")
    if scope.scope != "all":
        warnings.append(scope_warning(scope.scope, counts))
    return warnings


def scope_warning(scope: str, counts: ReleaseCounts) -> str:
    """What the figures of a release that is not plain full scope describe (counts only)."""
    n = counts.change.word_tokens
    parts = []
    if counts.verbatim_words:
        where = " (outside the detected spans)" if scope == "detected" else ""
        parts.append(f"{counts.verbatim_words} of {n} word tokens are released unchanged{where}, "
                     "with no protection; no figure but the change rate covers them")
    if counts.other_words:
        what = "surrogates, redactions or redrawn by the name guard" if scope == "hybrid" else \
            "surrogates or redactions"
        parts.append(f"{counts.other_words} of {n} word tokens are {what}, outside the word attacks")
    parts.append(f"N_w, S_w and the word attacks measure only the {counts.mechanism_words} of {n} word "
                 "tokens the mechanism released (exactly as in full scope under the same key)")
    if counts.verbatim_words:
        parts.append("the contextual attack sees those words without the unchanged text around them, "
                     "which a real attacker also reads")
    return f"scope {scope}: " + "; ".join(parts)
