"""Build a :class:`~embedanon.review.model.Review` from an input file: read, sample, anonymize.

Each sampled text is anonymized exactly as ``anonymize`` does it (field name ``""`` for a text
line, the field's name in JSONL/CSV), so under the same key the page shows the same release.
Only the sample is held in memory; the other records are read once, for counting.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

from .. import io as eio
from ..config import ScopeConfig
from ..errors import ConfigError
from ..mechanisms import available
from ..pipeline import Anonymizer
from ..pipeline.document import anonymize_documents, anonymize_records
from ..privacy.scoped import ScopedRelease, full_scope_config, is_plain, scoped_release
from ..text import mechanism_draws
from .figures import FigureSource, collect_figures, default_sources
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
    return Settings(
        mechanism=config.mechanism, params=tuple(params), embedding=config.embedding,
        key_origin=anonymizer.key.origin, key_fingerprint=anonymizer.key.fingerprint(),
        digest=anonymizer.digest(), epsilon=None if epsilon is None else float(epsilon),
    )


def _records(path: str, fmt: str, fields: list[str], errors: str) -> Iterator[eio.Record]:
    shown = "<stdin>" if path == "-" else path
    if fmt == "parquet":
        from ..parquet import ParquetJob

        yield from ParquetJob(path, io.BytesIO(), fields, shown).records()
        return
    with eio.open_input(path) as fh:
        eio.refuse_binary(fh, path)
        if fmt == "txt":
            yield from eio.read_txt(fh, shown, errors)
        elif fmt == "jsonl":
            yield from eio.read_jsonl(fh, shown, errors, fields)
        else:
            delimiter = "\t" if shown.lower().endswith(".tsv") else ","
            for record in eio.read_csv(fh, shown, errors, fields, delimiter):
                if not record.header:
                    yield record


def _draw_count(texts: Sequence[str]) -> int:
    return sum(map(mechanism_draws, texts))


def build_review(path: str, anonymizer: Anonymizer, *, fmt: str | None = None,
                 fields: Sequence[str] | None = None, sample: int = 20, encoding_errors: str = "strict",
                 sources: Sequence[FigureSource] | None = None, generated: str | None = None) -> Review:
    """Read ``path``, draw the sample, anonymize it and measure the figures.

    Args:
        path: input file (``-``: standard input).
        anonymizer: the release's anonymizer (its key also draws the sample).
        fmt: ``txt``, ``jsonl`` or ``csv`` (default: from the extension).
        fields: JSONL/CSV fields (default ``text``); not for txt.
        sample: records to show (0: all, up to :data:`~embedanon.review.sample.MAX_SAMPLE`).
        encoding_errors: ``strict`` or ``replace``.
        sources: privacy figure sources (default :func:`~embedanon.review.figures.default_sources`).
        generated: timestamp shown on the page (default: now, UTC).

    Raises:
        ConfigError, InputError: bad parameters or input (one line, never quoting the input).
    """
    size = sample_size(sample)
    form = eio.detect_format(path, fmt)
    if encoding_errors not in eio.ENCODING_ERRORS:
        raise ConfigError(f"encoding errors must be one of {', '.join(eio.ENCODING_ERRORS)}, "
                          f"got {encoding_errors!r}")
    if fields:
        eio.format_of_field_input(path, form, fmt)
    names = list(fields or ["text"]) if form != "txt" else [""]
    longest = 0

    total = empty = 0

    def counted() -> Iterator[tuple[int, tuple[str, ...]]]:
        # Records with nothing to review (blank lines, empty or null fields) are counted only.
        nonlocal longest, total, empty
        for record in _records(path, form, names, encoding_errors):
            total += 1
            if not any(t.strip() for t in record.texts):
                empty += 1
            else:
                longest = max(longest, _draw_count(record.texts))
                yield total, record.texts

    chosen = [pair for _, pair in reservoir_sample(counted(), size, sample_rng(anonymizer.key))[0]]
    flat = [t for _, texts in chosen for t in texts]
    docs = anonymize_documents(flat, anonymizer.config, anonymizer.key) if flat else []
    records = []
    pos = 0
    for number, texts in chosen:
        review_texts = []
        for j, text in enumerate(texts):
            review_texts.append(ReviewText.build(names[j], text, docs[pos]))
            pos += 1
        records.append(ReviewRecord(number, tuple(review_texts)))
    originals, released = flat, [d.text for d in docs]
    config = anonymizer.config
    scoped: ScopedRelease | None = None
    if flat and not is_plain(config.scope):
        # As privacy-report measures it: the figures read only the tokens the mechanism released,
        # taken from the full-scope release under the same key (embedanon.privacy.scoped).
        full = anonymize_records(originals, full_scope_config(config), anonymizer.key)
        scoped = scoped_release(config.scope, originals, [docs], [full])
        originals, released = list(scoped.view.originals), list(scoped.view.releases[0])
    figures, notes = collect_figures(default_sources() if sources is None else sources,
                                     originals, released, anonymizer)
    return Review(
        input_name="<stdin>" if path == "-" else Path(path).name, format=form,
        fields=tuple(names) if form != "txt" else (), settings=settings_of(anonymizer),
        records_total=total, empty_records=empty, longest_record_draws=longest, requested=sample,
        records=tuple(records), figures=figures, notes=notes,
        generated=generated or datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        scope=scope_label(config.scope),
        release=None if scoped is None else scoped.counts,
        warnings=() if scoped is None else scoped.warnings,
    )


def scope_label(scope: ScopeConfig) -> str:
    """How the page names a scope: ``""`` for plain full scope (the page then names none)."""
    if is_plain(scope):
        return ""
    return scope.scope + (" with neutral formats" if scope.neutral_formats else "")
