"""One record in, one :class:`AnonymizedDocument` out: the pure per-record functions.

A record's output is a pure function of (text, config, key): the text itself is the record's
identity, so no global counter is needed and the same data under the same key gives the same
release, in any process, chunking, engine, file format or field.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ..config import AnonymizerConfig
from ..detectors.base import Span
from ..errors import ConfigError
from ..noise import NoiseSource, ReleaseKey
from .nameguard import guard_names
from .replace import Item, replace_texts
from .runtime import Runtime, get_runtime
from .scope import assemble, detect, format_spans


@dataclass(frozen=True, slots=True)
class AnonymizedDocument:
    """A released text and what changed in it.

    Attributes:
        text: the anonymized text.
        items: every replaced span, in order (see :class:`~embedanon.pipeline.replace.Item`);
            text outside the items is the original's.
        full_scope: every word went through the mechanism (scope ``all``, or a scoped record
            whose detectors failed and which fell back to full scope).
    """

    text: str
    items: tuple[Item, ...]
    full_scope: bool = True


def record_identity(text: str) -> bytes:
    """What makes a record a record for the noise: its content alone, not where it was read from
    (a field or column name, a file format), so the same text released from a ``.txt`` line and
    from a JSONL field is one release, not two. The leading zero byte keeps the bytes of the
    identity older versions gave a ``.txt`` line (field name ``""``)."""
    return b"\x00" + text.encode("utf-8", "surrogatepass")


#: where a sentence ends: ``.``, ``!`` or ``?`` (closing quotes or brackets may follow) and
#: whitespace, or a line break and the whitespace after it
_SENTENCE_END = re.compile(r"[.!?]+[\"'\u2019\u201d)\]]*\s+|\n\s*")
#: a unit of fewer words (``Dr.``, ``No.``) joins the next one, so short common pieces do not
#: become fixed substitutions of their own
_MIN_UNIT_WORDS = 3
_WORDISH = re.compile(r"\w+")


def sentence_units(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the noise units of ``text`` under ``noise_unit="sentence"``: they cover
    the text in order, each sentence with the whitespace after it; a unit of fewer than three
    words is joined to the next (``Dr.`` to ``Smith is here.``), the last to the one before.
    A unit's identity is its text without the whitespace around it."""
    bounds: list[tuple[int, int]] = []
    start = 0
    words = [m.end() for m in _WORDISH.finditer(text)]  # where each word ends, ascending
    taken = 0  # words before ``start``
    for m in _SENTENCE_END.finditer(text):
        if m.end() == len(text):
            break
        upto = bisect_right(words, m.end())
        if upto - taken >= _MIN_UNIT_WORDS:
            bounds.append((start, m.end()))
            start, taken = m.end(), upto
    if bounds and len(words) - taken < _MIN_UNIT_WORDS:
        start = bounds.pop()[0]
    bounds.append((start, len(text)))
    return bounds


def _replace(rt: Runtime, source: NoiseSource, texts: list[str], identities: list[bytes], unit: str, *,
             with_items: bool = False, name_guard: bool = False) -> tuple[list[str], list[list[Item]] | None]:
    """:func:`~.replace.replace_texts` with the noise addressed by record or by sentence: under
    ``"sentence"`` every unit of :func:`sentence_units` is replaced as a record of its own (its
    identity: its stripped text) and the record is put back together, items moved to its
    offsets. A one-sentence record without whitespace around it gets the same output either way.
    ``name_guard`` (with items) applies hybrid scope's :func:`~.nameguard.guard_names` to each
    record or unit, under the same noise addressing."""
    if unit == "record":
        tags = source.tags(identities)
        out, items = replace_texts(rt, source, texts, tags, with_items=with_items or name_guard)
        if name_guard and items is not None:
            out, items = guard_names(rt, source, tags, list(texts), out, items)
        return out, items
    units = [sentence_units(t) for t in texts]
    pieces = [t[a:b] for t, us in zip(texts, units, strict=True) for a, b in us]
    tags = source.tags([record_identity(p.strip()) for p in pieces])
    out, items = replace_texts(rt, source, pieces, tags, with_items=with_items or name_guard)
    if name_guard and items is not None:
        out, items = guard_names(rt, source, tags, pieces, out, items)
    new_texts: list[str] = []
    new_items: list[list[Item]] = []
    k = 0
    for us in units:
        joined, moved, shift = [], [], 0
        for a, _ in us:
            joined.append(out[k])
            if items is not None:
                moved += [replace(it, start=it.start + a, end=it.end + a, new_start=it.new_start + shift,
                                  new_end=it.new_end + shift) for it in items[k]]
            shift += len(out[k])
            k += 1
        new_texts.append("".join(joined))
        new_items.append(moved)
    return new_texts, new_items if items is not None else None


def check_config_key(config: object, key: object) -> None:
    """Refuse a wrong config or key up front (else an AttributeError from deep inside)."""
    if not isinstance(config, AnonymizerConfig):
        raise TypeError(f"config must be an AnonymizerConfig, got {type(config).__name__}")
    if not isinstance(key, ReleaseKey):
        raise TypeError("key must be a ReleaseKey (ReleaseKey.from_file(path), .from_seed(n) or "
                        f".fresh()), got {type(key).__name__}")


def _check_texts(texts: Sequence[str]) -> None:
    # one str was taken as a list of one-letter texts, and a generator was used up here, so
    # nothing was anonymized and [] came back
    if isinstance(texts, (str, bytes)):
        raise TypeError(f"texts must be a list of str, not one {type(texts).__name__}")
    if not (hasattr(texts, "__len__") and hasattr(texts, "__getitem__")):
        raise TypeError(f"texts must be a list of str, got {type(texts).__name__}")
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"text must be str, got {type(text).__name__}")


def anonymize_records(texts: Sequence[str], config: AnonymizerConfig, key: ReleaseKey) -> list[str]:
    """Anonymize several texts.

    The same output as :func:`anonymize_text` on each; batching only makes it faster.
    """
    check_config_key(config, key)
    if config.scope.scope != "all":
        return [doc.text for doc in anonymize_documents(texts, config, key)]
    _check_texts(texts)
    # neutral formats: only the texts with a phone or ID need documents; the rest take the fast
    # path (each text's output is a pure function of itself, so splitting changes no byte). Their
    # spans go to the documents as found here: a long record has one, and finding them twice
    # was half its time (decision 0163)
    found = ({i: spans for i, t in enumerate(texts) if (spans := format_spans(t))}
             if config.scope.neutral_formats else {})
    formats = list(found)
    chosen = set(formats)
    plain = [t for i, t in enumerate(texts) if i not in chosen] if chosen else list(texts)
    rt = get_runtime(config)
    with rt.lock:
        source = rt.source(key)
        out, _ = _replace(rt, source, plain, [record_identity(t) for t in plain], config.noise_unit)
    if not formats:
        return out
    chosen_texts = [texts[i] for i in formats]
    docs = iter(_documents(chosen_texts, [record_identity(t) for t in chosen_texts], config, key,
                           [found[i] for i in formats]))
    rest = iter(out)
    return [next(docs).text if i in chosen else next(rest) for i in range(len(texts))]


def anonymize_documents(texts: Sequence[str], config: AnonymizerConfig, key: ReleaseKey, *,
                        spans: Sequence[Sequence[Span] | None] | None = None) -> list[AnonymizedDocument]:
    """Like :func:`anonymize_records`, with the items of every text.

    In a scope other than ``all``, each text is run through the detectors and assembled from its
    full-scope replacement (:mod:`.scope`); a text the detectors fail on stays in full scope. In
    scope ``all`` with ``neutral_formats``, phones and IDs become neutral-format surrogates the
    same way (the document stays ``full_scope``: no detector chose what changes).

    ``spans``: one entry per text, the spans to replace in it instead of the detectors' (a span
    file corrected by hand: :func:`~embedanon.detectors.evaluate.record_spans`), or None for a
    text the detectors should read. Each text's spans must lie inside it and not overlap. Not in
    scope ``all``, where no span chooses what changes.
    """
    check_config_key(config, key)
    _check_texts(texts)
    given = None if spans is None else _given_spans(texts, spans, config)
    return _documents(texts, [record_identity(t) for t in texts], config, key, given=given)


def _given_spans(texts: Sequence[str], spans: object, config: AnonymizerConfig) -> list[list[Span] | None]:
    """``spans`` checked against ``texts`` (see :func:`anonymize_documents`); errors name the
    text's index and the span's offsets, never the text."""
    if config.scope.scope == "all":
        raise ConfigError("spans choose what a detected or hybrid scope replaces; scope 'all' replaces "
                          "every word")
    if isinstance(spans, (str, bytes)) or not isinstance(spans, Sequence) or len(spans) != len(texts):
        raise TypeError(f"spans must be a sequence with one entry (a list of Spans, or None) per text: "
                        f"{len(texts)}")
    out: list[list[Span] | None] = []
    for i, (text, entry) in enumerate(zip(texts, spans, strict=True)):
        if entry is None:
            out.append(None)
            continue
        items = list(entry) if isinstance(entry, Iterable) and not isinstance(entry, (str, bytes)) else None
        if items is None or not all(isinstance(s, Span) for s in items):
            raise TypeError(f"spans[{i}] must hold Spans (embedanon.detectors.base.Span)")
        try:
            ordered = disjoint_spans(items)
        except ValueError as exc:
            raise ValueError(f"spans[{i}]: {exc}") from None
        out.append([s.check(text) for s in ordered])
    return out


def disjoint_spans(spans: Iterable[Span]) -> tuple[Span, ...]:
    """``spans`` sorted by (start, end), or a ValueError naming the first two that overlap (their
    offsets and labels, never the text): given spans replace the detectors', whose spans never
    overlap."""
    ordered = tuple(sorted(spans, key=lambda s: (s.start, s.end)))
    for a, b in zip(ordered, ordered[1:], strict=False):
        if b.start < a.end:
            raise ValueError(f"[{a.start}, {a.end}) {a.label} and [{b.start}, {b.end}) {b.label} overlap; "
                             "merge them or keep one")
    return ordered


def _documents(texts: Sequence[str], identities: list[bytes], config: AnonymizerConfig,
               key: ReleaseKey, found_formats: list[list[Span]] | None = None, *,
               given: list[list[Span] | None] | None = None) -> list[AnonymizedDocument]:
    """The documents of ``texts``; ``found_formats``: ``format_spans`` of each text when the
    caller has them already (scope ``all`` with ``neutral_formats`` only)."""
    rt = get_runtime(config)
    scoped = config.scope.scope != "all"
    formats = not scoped and config.scope.neutral_formats
    # neutral formats in scope all: the format spans are assembled as hybrid spans (surrogates)
    span_scope = config.scope if scoped else replace(config.scope, scope="hybrid") if formats else None
    with rt.lock:  # detection too: the model detector's caches are the runtime's (thread-safety rule)
        spans: list[list[Span] | None]
        if scoped and given is not None:  # the caller's spans (a corrected file), else the detectors'
            spans = [g if g is not None else detect(rt.detector, t)
                     for t, g in zip(texts, given, strict=True)]
        elif scoped:
            spans = [detect(rt.detector, t) for t in texts]
        elif not formats:
            spans = []
        elif found_formats is not None:  # the caller found them already
            spans = list(found_formats)
        else:
            spans = [format_spans(t) for t in texts]
        source = rt.source(key)
        out, items = _replace(rt, source, list(texts), identities, config.noise_unit, with_items=True,
                              name_guard=config.scope.scope == "hybrid" and config.scope.name_guard)
    assert items is not None
    # a record whose detector failed is released in full scope: with neutral formats (the
    # default) as scope all releases it, its phones and IDs as neutral surrogates
    fallback = replace(config.scope, scope="hybrid") if config.scope.neutral_formats else None
    docs = []
    for i, (text, new, its) in enumerate(zip(texts, out, items, strict=True)):
        found = spans[i] if span_scope is not None else None
        record_prf = key.record_prf("surrogate-record", identities[i])
        if found is not None and (scoped or found):
            new, scoped_items = assemble(text, new, tuple(its), found, span_scope, key,  # type: ignore[arg-type]
                                         record_prf, keep_roles=scoped)
            docs.append(AnonymizedDocument(new, scoped_items, full_scope=not scoped))
        elif scoped and fallback is not None and (found := format_spans(text)):
            new, scoped_items = assemble(text, new, tuple(its), found, fallback, key, record_prf,
                                         keep_roles=False)
            docs.append(AnonymizedDocument(new, scoped_items, full_scope=True))
        else:
            docs.append(AnonymizedDocument(new, tuple(its), full_scope=True))
    return docs


@dataclass(frozen=True, slots=True)
class Task:
    """Texts to anonymize, with the config and key: what an engine
    (:mod:`embedanon.backends`) sends to a worker."""

    texts: tuple[str, ...]
    config: AnonymizerConfig
    key: ReleaseKey
    #: the spans to replace in each text instead of the detectors' (``anonymize --spans``)
    spans: tuple[tuple[Span, ...], ...] | None = None


def run_task(task: Task) -> list[str]:
    """Anonymize a task's texts (what every worker runs)."""
    return anonymize_records(task.texts, task.config, task.key)


def prefix_end(text: str, limit: int, unit: str = "record") -> int:
    """Where :func:`anonymize_prefix` cuts ``text`` to keep at most ``limit`` characters.

    ``len(text)`` when the text is no longer; else, under ``noise_unit="record"``, at the last
    line break in the second half of the limit, or the last whitespace before it (no word,
    number, code, e-mail address or URL is cut); under ``"sentence"``, at the end of the last
    noise unit (:func:`sentence_units`) that ends there. 0 when there is no such place.
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ValueError(f"limit must be an integer >= 0, got {limit!r}")
    if len(text) <= limit:
        return len(text)
    if unit == "sentence":
        units = _leading_units(text, limit)
        return units[-1][1] if units else 0
    head = text[:limit + 1]
    line = head.rfind("\n", limit // 2)
    if line >= 0:
        return line
    return next((i for i in range(limit, -1, -1) if head[i].isspace()), 0)


def rough_end(text: str, limit: int) -> int:
    """A cut for a text whose :func:`prefix_end` leaves no word before it (a text with no
    whitespace, a long unpunctuated run under ``noise_unit="sentence"``): the record rule of
    :func:`prefix_end` (a line break or whitespace) if it leaves a word, else ``limit`` itself,
    moved back off combining marks and joiners so no character loses its accent. Unlike
    :func:`prefix_end` it may cut a word (or a noise unit), whose release then differs from the
    whole text's: only for a page that would otherwise show nothing."""
    if len(text) <= limit:
        return len(text)
    cut = prefix_end(text, limit)
    if text[:cut].strip():
        return cut
    cut = limit
    while cut > 0 and unicodedata.category(text[cut]) in ("Mn", "Mc", "Me", "Cf"):  # marks, joiners
        cut -= 1
    return cut


def _leading_units(text: str, limit: int) -> list[tuple[int, int]]:
    """The noise units of ``text`` that end at or before ``limit``, equal to the first units of
    :func:`sentence_units` (tested), found without reading the rest of a long text: a unit is
    emitted once it holds three words; the only later change, a tail of fewer than three words
    joining the last unit, is checked by counting at most three words after it."""
    bounds: list[tuple[int, int]] = []
    start = last = words = 0
    for m in _SENTENCE_END.finditer(text):
        if m.end() > limit or m.end() == len(text):
            break
        # m.end() follows whitespace: no word straddles it, so words are counted piece by piece
        words += len(_WORDISH.findall(text, last, m.end()))
        last = m.end()
        if words >= _MIN_UNIT_WORDS:
            bounds.append((start, m.end()))
            start, words = m.end(), 0
    if bounds:
        # sentence_units joins a tail of fewer than three words to the last unit: if everything
        # after the last unit found here is such a tail, that unit is not one of the whole text's
        tail = 0
        for _ in _WORDISH.finditer(text, bounds[-1][1]):
            tail += 1
            if tail == _MIN_UNIT_WORDS:
                break
        if tail < _MIN_UNIT_WORDS:
            bounds.pop()
    return bounds


def anonymize_prefix(text: str, limit: int, config: AnonymizerConfig,
                     key: ReleaseKey, *, rough: bool = False,
                     spans: Sequence[Span] | None = None) -> tuple[AnonymizedDocument, int]:
    """The release of the first characters of ``text``: for a text too long to show whole.

    The text is cut at :func:`prefix_end` and the part before the cut is anonymized as a record
    whose identity is the whole text's, so in scope ``all`` it equals the start of the whole
    release, word for word and item for item (tested), at a cost bounded by ``limit`` rather
    than by the text. In other scopes the detectors read only the part before the cut, so a
    span that would reach across it may be found differently. ``rough``: cut at
    :func:`rough_end` instead, which may cut a word or a noise unit (its release then differs).
    ``spans``: the spans to replace instead of the detectors' (as :func:`anonymize_documents`
    takes them for the whole text); a span that reaches across the cut is cut there too.

    Returns:
        ``(document, cut)``: the release of ``text[:cut]``.
    """
    check_config_key(config, key)
    _check_texts([text])
    given = None if spans is None else _given_spans([text], [spans], config)
    cut = rough_end(text, limit) if rough else prefix_end(text, limit, config.noise_unit)
    if given is not None and given[0] is not None and cut < len(text):
        given = [[Span(s.start, min(s.end, cut), s.label, s.score, s.source)
                  for s in given[0] if s.start < cut]]
    part = text if cut == len(text) else text[:cut]
    return _documents([part], [record_identity(text)], config, key, given=given)[0], cut


def anonymize_text(text: str, config: AnonymizerConfig, key: ReleaseKey) -> str:
    """Anonymize one text. Pure: same (text, config, key) -> same output, in any process."""
    return anonymize_records([text], config, key)[0]


def anonymize_document(text: str, config: AnonymizerConfig, key: ReleaseKey) -> AnonymizedDocument:
    """Anonymize one text and report every replaced span."""
    return anonymize_documents([text], config, key)[0]
