"""Build a :class:`~embedanon.review.model.Review` from an input file: read, sample, anonymize,
measure, judge.

Each sampled text is anonymized exactly as ``anonymize`` does it (field name ``""`` for a text
line, the field's name in JSONL/CSV), so under the same key the page shows the same release; a
text longer than ``max_chars`` is cut and its start released with the whole text's noise
(:func:`~embedanon.pipeline.document.anonymize_prefix`). Only the sample is held in memory; the
other records are read once, for counting. The figures are held to the privacy verdict's
thresholds (:mod:`embedanon.privacy.verdict`), as ``privacy-report`` holds them.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from .. import io as eio
from ..config import AnonymizerConfig, ScopeConfig
from ..detectors.base import Span
from ..errors import ConfigError, InputError
from ..mechanisms import available
from ..noise import ReleaseKey
from ..pipeline import Anonymizer
from ..pipeline.document import AnonymizedDocument, anonymize_prefix
from ..privacy.scoped import (
    ScopedRelease,
    full_scope_config,
    is_plain,
    longest_record_parts,
    scoped_release,
)
from ..text import mechanism_draws
from .figures import (
    FigureSource,
    collect_figures,
    default_sources,
    judge_review,
    membership_figure,
    threshold_table,
)
from .lookalike import default_vocabulary, find_lookalikes
from .model import Review, ReviewRecord, ReviewText, Settings
from .sample import reservoir_sample, sample_rng, sample_size


def settings_of(anonymizer: Anonymizer) -> Settings:
    """The release's settings, with the mechanism's defaults filled in."""
    config = anonymizer.config
    mechanism = anonymizer.mechanism
    given = dict(config.params)
    spec = available().get(config.mechanism)
    names = list(spec.params) if spec is not None else sorted(given)
    params = []
    for name in names:
        value = given.get(name, getattr(mechanism, name, None))
        if value is not None:
            params.append((name, value))
    epsilon = given.get("epsilon", getattr(mechanism, "epsilon", None))
    scope = config.scope
    detection: tuple[tuple[str, str], ...] = ()
    if scope.scope != "all":  # two pages from different detectors differed only in the digest
        detection = (
            ("Detectors", scope.detectors),
            ("Detector options", ", ".join(name for name, _ in scope.detector_options) or "none"),
            ("Strategies", ", ".join(f"{label}={action}" for label, action in scope.strategies)
             or "the scope's default"),
            ("Allow and deny lists", f"{len(scope.allow):,} allowed and {len(scope.deny):,} denied "
                                     "strings (not shown)"),
            ("Phone and ID formats", "neutral" if scope.neutral_formats else "kept (--keep-formats)"),
        )
    vocabulary = ""
    if scope.scope != "detected":  # the mechanism replaces words: from which candidates
        index = anonymizer.runtime.index
        restricted = (", restricted by a word list (--candidates)" if config.allowlist else
                      ", restricted to the bundled public word list (an embedding others may not read)"
                      if index.policy.allowlist is not None else "")  # decision 0237
        vocabulary = (f"{len(index.candidates):,} candidate words of at least {config.min_length} letters"
                      + restricted)
    return Settings(
        mechanism=config.mechanism, params=tuple(params), embedding=config.embedding,
        key_origin=anonymizer.key.origin, key_fingerprint=anonymizer.key.fingerprint(),
        digest=anonymizer.digest(), epsilon=None if epsilon is None else float(epsilon),
        detection=detection, vocabulary=vocabulary, noise_unit=config.noise_unit,
    )


def _records(path: str, fmt: str, fields: list[str], errors: str) -> Iterator[eio.Record]:
    shown = "<stdin>" if path == "-" else path
    if fmt == "parquet":
        from ..parquet import ParquetJob

        yield from ParquetJob(path, io.BytesIO(), fields, shown).records(write_back=False)
        return
    with eio.open_input(path) as fh:
        eio.refuse_binary(fh, path)
        if fmt == "txt":
            yield from eio.read_txt(fh, shown, errors)
        elif fmt == "file":
            yield from eio.read_file(fh, shown, errors)
        elif fmt == "jsonl":
            yield from eio.read_jsonl(fh, shown, errors, fields)
        else:
            for record in eio.read_csv(fh, shown, errors, fields, eio.csv_delimiter(shown, fmt)):
                if not record.header:
                    yield record


def _shown(text: str, limit: int | None, config: AnonymizerConfig, key: ReleaseKey,
           spans: Sequence[Span] | None = None) -> tuple[AnonymizedDocument, int, bool]:
    """The release of the part of ``text`` the page shows, where it is cut, and whether that part
    is exactly the start of the text's release. A text with no word or sentence boundary before
    the limit (no whitespace: CJK, a code blob; no sentence end under ``noise_unit="sentence"``)
    showed nothing; it is cut inside a word or a noise unit instead (decision 0367)."""
    doc, cut = anonymize_prefix(text, limit or len(text), config, key, spans=spans)
    if limit and cut < len(text) and not text[:cut].strip() and text.strip():
        doc, cut = anonymize_prefix(text, limit, config, key, rough=True, spans=spans)
        return doc, cut, False
    return doc, cut, True


def _draw_count(texts: Sequence[str]) -> int:
    return sum(map(mechanism_draws, texts))


#: The most characters of one text a page shows and measures; a longer text is cut at a word
#: boundary before it, and the page says so. Bounds what one record costs: a 20 MB line makes a
#: page of about this size, in about the time and memory of a short note.
MAX_TEXT_CHARS = 20_000

#: ``progress(stage, done, total)``: ``reading`` (records read, total 0: unknown), ``anonymizing``
#: (texts of the sample), ``measuring`` (figure sources), ``writing`` (the page, 0 or 1).
Progress = Callable[[str, int, int], None]


def _no_progress(stage: str, done: int, total: int) -> None:
    """The default progress callback: nothing to show."""


def build_review(path: str, anonymizer: Anonymizer, *, fmt: str | None = None,
                 fields: Sequence[str] | None = None, sample: int = 20, encoding_errors: str = "strict",
                 sources: Sequence[FigureSource] | None = None, generated: str | None = None,
                 max_chars: int = MAX_TEXT_CHARS, thresholds: Mapping[str, float] | None = None,
                 progress: Progress | None = None,
                 spans: Sequence[Sequence[Span] | None] | None = None) -> Review:
    """Read ``path``, draw the sample, anonymize it, measure the figures and judge them.

    Args:
        path: input file (``-``: standard input).
        anonymizer: the release's anonymizer (its key also draws the sample).
        fmt: ``txt``, ``jsonl`` or ``csv`` (default: from the extension).
        fields: JSONL/CSV fields (default ``text``); not for txt.
        sample: records to show (0: all, up to :data:`~embedanon.review.sample.MAX_SAMPLE`).
        encoding_errors: ``strict`` or ``replace``.
        sources: privacy figure sources (default :func:`~embedanon.review.figures.default_sources`).
        generated: timestamp shown on the page (default: now, UTC).
        max_chars: the most characters of one text shown and measured (0: no limit); a longer
            text is cut (:func:`~embedanon.pipeline.document.anonymize_prefix`: what is shown is
            exactly the start of its release).
        thresholds: figure -> limit, replacing the verdict's default thresholds.
        progress: called with counts as the work goes (see :data:`Progress`); never with text.
        spans: the spans each text of the input is released with instead of the detectors' (one
            entry per text, in the input's order, as :func:`embedanon.files.read_given_spans`
            reads a corrected span file; ``anonymize --spans``), so the page shows that release.

    Raises:
        ConfigError, InputError: bad parameters or input (one line, never quoting the input).
    """
    size = sample_size(sample)
    form = eio.detect_format(path, fmt)
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 0:
        raise ConfigError(f"max_chars must be an integer >= 0, got {max_chars!r}")
    eio.check_encoding_errors(encoding_errors)
    if fields:
        eio.format_of_field_input(path, form, fmt, fields)
    limits = threshold_table(thresholds)  # refused before any work
    report = progress or _no_progress
    names = list(fields or ["text"]) if form not in ("txt", "file") else [""]
    longest = 0
    total = empty = 0

    placed = 0  # texts read so far: a text's place in the input, as a span file numbers them

    def counted() -> Iterator[tuple[int, tuple[str, ...], int]]:
        # Records with nothing to review (blank lines, empty or null fields) are counted only.
        nonlocal longest, total, empty, placed
        for record in _records(path, form, names, encoding_errors):
            total += 1
            first, placed = placed, placed + len(record.texts)
            report("reading", total, 0)
            if not any(t.strip() for t in record.texts):
                empty += 1
            else:
                longest = max(longest, _draw_count(record.texts))
                yield total, record.texts, first

    drawn = [entry for _, entry in reservoir_sample(counted(), size, sample_rng(anonymizer.key))[0]]
    if spans is not None and placed != len(spans):
        raise InputError(f"the span file has {len(spans):,} records for the {placed:,} texts of the input")
    chosen = [(number, texts) for number, texts, _ in drawn]
    given = [[None if spans is None else spans[first + j] for j in range(len(texts))]
             for _, texts, first in drawn]
    config, key = anonymizer.config, anonymizer.key
    limit = max_chars or None
    vocabulary = default_vocabulary(anonymizer.runtime.index.store.words)
    n_texts = sum(len(texts) for _, texts in chosen)
    records = []
    shown: list[str] = []
    docs = []
    for (number, texts), record_spans in zip(chosen, given, strict=True):
        review_texts = []
        for j, text in enumerate(texts):
            doc, cut, exact = _shown(text, limit, config, key, record_spans[j])
            original = text[:cut]
            review_texts.append(ReviewText.build(names[j], original, doc, length=len(text), exact_cut=exact,
                                                 lookalikes=find_lookalikes(original, doc, vocabulary)))
            shown.append(original)
            docs.append(doc)
            report("anonymizing", len(shown), n_texts)
        records.append(ReviewRecord(number, tuple(review_texts)))
    originals, released = shown, [d.text for d in docs]
    scoped: ScopedRelease | None = None
    bound = False  # longest is the full-scope count: exact in plain full scope
    # in scope all with neutral formats (the default), a sample where no phone or ID got a
    # surrogate was released exactly as in plain full scope: nothing to separate
    formats_only = config.scope.scope == "all" and not any(
        str(item.kind) in ("surrogate", "redact") for d in docs for item in d.items)
    if shown and not is_plain(config.scope) and not formats_only:
        # As privacy-report measures it: the figures read only the tokens the mechanism released,
        # taken from the full-scope release under the same key (embedanon.privacy.scoped).
        full_config = full_scope_config(config)
        whole = [text for _, texts in chosen for text in texts]
        full = [_shown(text, limit, full_config, key)[0].text for text in whole]
        scoped = scoped_release(config.scope, originals, [docs], [full])
        complete = len(chosen) == total - empty and all(
            len(text) == len(shown_text) for text, shown_text in zip(whole, originals, strict=True))
        bound = not (complete and scoped.counts.document_parts)
        if not bound:  # every record shown whole: the parts the mechanism drew, as privacy-report counts
            longest = longest_record_parts(scoped.counts.document_parts, [len(texts) for _, texts in chosen])
        # the figures read the mechanism's view, as privacy-report's do, whatever the counts
        originals, released = list(scoped.view.originals), list(scoped.view.releases[0])
        if config.scope.scope == "all" and not scoped.counts.other_words:
            scoped = None  # format surrogates replaced no word: the page names no release counts
    figures, notes = collect_figures(default_sources() if sources is None else sources,
                                     originals, released, anonymizer,
                                     progress=lambda done, n: report("measuring", done, n))
    # membership reads the sample as published, in every scope (as privacy-report does)
    figures = (*figures, membership_figure(shown, [d.text for d in docs], anonymizer))
    review = Review(
        input_name="<stdin>" if path == "-" else Path(path).name, format=form,
        fields=tuple(names) if form not in ("txt", "file") else (), settings=settings_of(anonymizer),
        records_total=total, empty_records=empty, longest_record_draws=longest, requested=sample,
        records=tuple(records), figures=figures, notes=notes,
        generated=generated or datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        scope=scope_label(config.scope),
        release=None if scoped is None else scoped.counts,
        warnings=() if scoped is None else scoped.warnings,
        max_chars=max_chars,
        draws_bound=bound,
    )
    return replace(review, verdict=judge_review(review, limits))


def scope_label(scope: ScopeConfig) -> str:
    """How the page names a scope: ``""`` for full scope (the page then names none), and the
    format setting only where it is not the default (neutral formats)."""
    if scope.scope == "all":
        return ""
    return scope.scope + ("" if scope.neutral_formats else " with kept formats")
