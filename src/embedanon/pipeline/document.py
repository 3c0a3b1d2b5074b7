"""One record in, one :class:`AnonymizedDocument` out: the pure per-record functions.

A record's output is a pure function of (text, config, key, identity): the identity is the field
name and the text itself (its content), so no global counter is needed and the same data under
the same key gives the same release, in any process, chunking or engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..config import AnonymizerConfig
from ..noise import ReleaseKey
from .replace import Item, replace_texts
from .runtime import get_runtime


@dataclass(frozen=True, slots=True)
class AnonymizedDocument:
    """A released text and what changed in it.

    Attributes:
        text: the anonymized text.
        items: every replaced span, in order (see :class:`~embedanon.pipeline.replace.Item`);
            text outside the items is the original's.
    """

    text: str
    items: tuple[Item, ...]


def record_identity(text: str, field: str = "") -> bytes:
    """What makes a record a record for the noise: its field name and its content."""
    return b"%s\x00%s" % (field.encode("utf-8", "surrogatepass"), text.encode("utf-8", "surrogatepass"))


def _check_texts(texts: Sequence[str], fields: Sequence[str] | None) -> list[str]:
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"text must be str, got {type(text).__name__}")
    if fields is None:
        return [""] * len(texts)
    if len(fields) != len(texts):
        raise ValueError("one field name per text is needed")
    return list(fields)


def anonymize_records(texts: Sequence[str], config: AnonymizerConfig, key: ReleaseKey, *,
                      fields: Sequence[str] | None = None) -> list[str]:
    """Anonymize several texts (field ``fields[i]`` of their records, default ``""``).

    The same output as :func:`anonymize_text` on each; batching only makes it faster.
    """
    names = _check_texts(texts, fields)
    rt = get_runtime(config)
    with rt.lock:
        source = rt.source(key)
        tags = source.tags([record_identity(t, f) for t, f in zip(texts, names, strict=True)])
        out, _ = replace_texts(rt, source, list(texts), tags)
    return out


def anonymize_documents(texts: Sequence[str], config: AnonymizerConfig, key: ReleaseKey, *,
                        fields: Sequence[str] | None = None) -> list[AnonymizedDocument]:
    """Like :func:`anonymize_records`, with the items of every text."""
    names = _check_texts(texts, fields)
    rt = get_runtime(config)
    with rt.lock:
        source = rt.source(key)
        tags = source.tags([record_identity(t, f) for t, f in zip(texts, names, strict=True)])
        out, items = replace_texts(rt, source, list(texts), tags, with_items=True)
    assert items is not None
    return [AnonymizedDocument(text, tuple(its)) for text, its in zip(out, items, strict=True)]


def anonymize_text(text: str, config: AnonymizerConfig, key: ReleaseKey, *, field: str = "") -> str:
    """Anonymize one text. Pure: same (text, config, key, field) -> same output, in any process."""
    return anonymize_records([text], config, key, fields=[field])[0]


def anonymize_document(text: str, config: AnonymizerConfig, key: ReleaseKey, *,
                       field: str = "") -> AnonymizedDocument:
    """Anonymize one text and report every replaced span."""
    return anonymize_documents([text], config, key, fields=[field])[0]
