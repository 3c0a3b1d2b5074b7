"""Evaluate a detector on span-labelled documents: precision, recall, F1, F5, groups, speed.

Data: JSON lines ``{"id", "text", "spans": [{"start", "end", "label", "group"?}]}`` with
end-exclusive code-point offsets (extra fields are ignored). ``evaluate-detection`` accepts any
label: those outside :data:`~.base.LABELS` (``LOCATION``, ``ORGANIZATION`` of the real-text set
before a detector has them) are scored like the others (overlap is label-blind, per label lists
them) and counted in ``unknown_labels``. Gold spans may overlap
(a nested entity is a gold span of its own and counts as one); the same ``[start, end)`` listed
twice in one record (whatever the labels) is refused, since it would count one entity twice.

Matching. The *coverage* of a span by a set of spans is the fraction of its characters that lie
inside their union. It is compared exactly, in integers, with ``min_coverage`` read as the decimal
it is written as (:func:`exact_fraction`: at 0.14, 7 of 50 characters are enough).

* **overlap** (the headline figure, label-blind): a gold span is *found* when the predicted spans
  cover at least ``min_coverage`` (default 50 %) of its characters; a predicted span is *correct*
  when the gold spans cover at least ``min_coverage`` of its characters. Label-blind because a
  found span is protected whatever label it got. Recall = found / gold spans, precision =
  correct / predicted spans.
* **typed**: the same, counting only predictions and gold spans of the same label.
* **exact**: a gold span is found (and a prediction correct) only if a span with the same start,
  end and label exists on the other side.
* **per label**: overlap figures, recall by gold label, precision by predicted label.
* **label confusion**: for each gold span found (overlap), the prediction that shares the most
  characters with it (the earliest on a tie); where its label differs, ``GOLD>PREDICTED`` is
  counted. Hybrid scope picks the surrogate by the label, so a phone labelled ``ID`` is released
  with an ID-shaped surrogate: protected, but no longer reading like a phone.
* **ignored regions** (optional ``"ignore": [[start, end], ...]`` per record): text that is neither
  gold nor wrong to flag (a benchmark's entity types outside :data:`~.base.LABELS`, e.g.
  organizations). A predicted span that is not correct but is covered at least ``min_coverage`` by
  gold and ignored characters together is left out of every count; gold spans are unaffected.

F-beta = (1 + beta^2) P R / (beta^2 P + R); F1 (beta = 1) and F5 (beta = 5, recall weighted 25
times precision as in Kaggle's "PII Data Detection"; span-level here, not token-level). A rate
over nothing is undefined (nan; ``n/a`` in the tables, ``null`` in JSON): precision without
predictions, recall without gold spans. F-beta is a weighted harmonic mean, so it is 0 whenever
precision or recall is 0, even when the other is undefined (gold spans and no predictions at all:
recall 0, F 0), and undefined only when a rate is undefined and the other is not 0.

Groups: gold NAME spans carrying a ``group`` (e.g. the culture of an injected name) give overlap
recall per group with counts (a ``group`` on another label is left out of the test, which is
about names, and counted per label in ``groups_left_out``);
the groups with the highest and lowest recall are compared by a pooled
two-proportion z-test and a Mann-Whitney U test on the 0/1 found indicators (scipy), and all
groups together by a chi-square test of homogeneity (scipy, no continuity correction: with two
groups it equals the z-test). The best/worst pair is chosen after looking, so its p-values are
optimistic; the chi-square one is the omnibus test. Two more tests hold when misses are few (a
chi-square approximation wants about five expected misses per group) and the pair is picked after
looking: under the null hypothesis that every name is equally likely to be missed, whatever its
group, the observed misses are a random draw without replacement from all names; 20,000 such
draws (multivariate hypergeometric, seed 0, so reports are reproducible) give a Monte Carlo exact
p-value for the chi-square statistic (``p_exact_chi2``) and one for the gap between the best and
the worst group (``p_range``: how often a random assignment of the same misses gives a gap at
least as large, which accounts for picking the extremes). Both use the standard ``(1 + hits) /
(1 + draws)`` estimate. All of these ask whether the groups differ *at all*. A target such as
"gap ≤ 0.02" is a different question, answered by an equivalence test (``p_equivalence``,
:func:`equivalence_p`): a small p-value shows every pair of groups within the margin.

Intervals: recall, precision and each group's recall get an exact (Clopper-Pearson) 95 %
binomial interval (:func:`clopper_pearson`).

Speed: documents and UTF-8 megabytes per second of ``detect`` calls only. A document on which the
detector raises :class:`~.base.DetectorUnavailable` counts as having no predictions (and is
counted). Reports hold counts and rates only, never text.
"""

from __future__ import annotations

import collections
import math
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path, PurePath
from typing import IO, Any

from .._validate import fraction, positive_int
from ..errors import InputError
from .base import LABELS, Detector, DetectorUnavailable, Span


@dataclass(frozen=True, slots=True)
class GoldSpan:
    start: int
    end: int
    label: str
    group: str | None = None


@dataclass(frozen=True, slots=True)
class GoldRecord:
    id: str
    text: str
    spans: tuple[GoldSpan, ...]
    ignore: tuple[tuple[int, int], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """``{"id", "text", "spans": [{"start", "end", "label", "group"?}], "ignore"?}`` (the file format)."""
        spans = [{"start": s.start, "end": s.end, "label": s.label,
                  **({"group": s.group} if s.group is not None else {})} for s in self.spans]
        extra = {"ignore": [list(r) for r in self.ignore]} if self.ignore else {}
        return {"id": self.id, "text": self.text, "spans": spans, **extra}


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_range(what: str, start: int, end: int, length: int) -> None:
    """``[start, end)`` must be a non-empty range inside a text of ``length`` characters."""
    if start >= end:
        raise InputError(f"{what} [{start}, {end}) is "
                         + ("empty (start = end)" if start == end else "reversed (start > end)"))
    if start < 0 or end > length:
        raise InputError(f"{what} [{start}, {end}) is not inside the text ({length} characters)")


#: a label or group as reports and refusals print it: a category, never a span's text (decision 0247)
_CATEGORY_RE = re.compile(r"\s*\w[\w .:/+-]{0,39}", re.UNICODE)
_CATEGORY_RULE = ("at most 40 characters and 3 words of letters, digits and _ - . : / +, "
                  "as NAME_STUDENT or west-african")


def _is_category(value: str) -> bool:
    """Whether a span's ``label`` or ``group`` reads as a category name, which the score report,
    the group test and training's refusals print. A field that holds text (a column shifted by
    hand, a tool that writes the span's words there) is refused unprinted instead."""
    return bool(_CATEGORY_RE.fullmatch(value.rstrip())) and len(value.split()) <= 3


def parse_record(line: str, where: str, *, default_id: str | None = None,
                 any_label: bool = False) -> GoldRecord:
    """One JSON line as a record; :class:`InputError` naming ``where`` (never the text).

    Fields other than ``id``, ``text``, ``spans`` and ``ignore`` (and other than ``start``, ``end``,
    ``label``, ``group`` in a span: ``score``, ``source``, ``origin`` ...) are ignored, so the
    span files of other tools and of the real-text evaluation set read as they are. A span that
    carries its own ``text`` (as many tools write it) must hold it at ``[start, end)``: offsets
    counted in UTF-16 units (JavaScript) or bytes, or a record text changed after labelling
    (CRLF made LF), would otherwise score misaligned spans without a word (decision 0368).

    Args:
        line: one JSON object.
        where: how errors name the line (``"spans.jsonl: line 3"``).
        default_id: id of a record without one (None: an ``id`` is required).
        any_label: accept any non-empty string label (``evaluate-detection``: labels outside
            :data:`~.base.LABELS` are found by any label in the overlap figures and listed);
            else only :data:`LABELS`.
    """
    from ..io import parse_json_line  # strict: json.loads keeps the last of two "spans" silently

    obj = parse_json_line(line, where)
    if not isinstance(obj, dict) or not isinstance(obj.get("text"), str) \
            or not isinstance(obj.get("spans"), list):
        raise InputError(f"{where} must be an object with a string 'text' and a list 'spans'")
    if default_id is not None and "id" not in obj:
        obj["id"] = default_id
    if not isinstance(obj.get("id"), (str, int)) or isinstance(obj.get("id"), bool):
        raise InputError(f"{where} needs an 'id' (string or integer)")
    text, spans = obj["text"], []
    seen: dict[tuple[int, int], int] = {}
    for i, item in enumerate(obj["spans"]):
        if not isinstance(item, dict) or not _int(item.get("start")) or not _int(item.get("end")):
            raise InputError(f"{where}: span {i} needs integer 'start' and 'end'")
        start, end, label, group = item["start"], item["end"], item.get("label"), item.get("group")
        _check_range(f"{where}: span {i}", start, end, len(text))
        if any_label and not (isinstance(label, str) and label.strip()):
            raise InputError(f"{where}: span {i} needs a non-empty string 'label'")
        if any_label and not _is_category(str(label)):
            raise InputError(f"{where}: span {i} 'label' is not a category name ({_CATEGORY_RULE}); "
                             "is a text in that field?")
        if not any_label and label not in LABELS:
            raise InputError(f"{where}: span {i} label must be one of {', '.join(LABELS)}")
        if (start, end) in seen:  # one entity listed twice would count twice in every recall
            raise InputError(f"{where}: span {i} repeats span {seen[start, end]} [{start}, {end})")
        seen[start, end] = i
        if group is not None and not (isinstance(group, str) and group.strip()):
            # a blank group was a group of its own, a nameless row in the group test
            raise InputError(f"{where}: span {i} group must be a non-empty string (leave 'group' out "
                             "for a name without one)")
        if group is not None and not _is_category(group):
            raise InputError(f"{where}: span {i} 'group' is not a category name ({_CATEGORY_RULE}); "
                             "is a text in that field?")
        if "text" in item and item["text"] != text[start:end]:  # decision 0368; neither is quoted
            raise InputError(f"{where}: span {i} [{start}, {end}) does not hold the span's own 'text' "
                             "(offsets must count code points, not UTF-16 units or bytes, in the "
                             "record's text as written)")
        spans.append(GoldSpan(start, end, str(label), group))
    ignore = obj.get("ignore", [])
    if not isinstance(ignore, list) or not all(
            isinstance(r, list) and len(r) == 2 and _int(r[0]) and _int(r[1]) for r in ignore):
        raise InputError(f"{where}: 'ignore' must be a list of [start, end] integer pairs")
    for j, (a, b) in enumerate(ignore):
        _check_range(f"{where}: ignore region {j}", a, b, len(text))
    return GoldRecord(str(obj["id"]), text, tuple(spans), tuple((a, b) for a, b in ignore))


def read_records(lines: Iterable[str], source: str, *, require_id: bool = True,
                 any_label: bool = False, allow_empty: bool = False) -> list[GoldRecord]:
    """Records of JSONL lines (blank lines skipped); at least one is required.

    Args:
        lines: one JSON object per item (split on ``"\\n"`` only: see :func:`jsonl_lines`).
        source: how errors name the input.
        require_id: refuse a record without an ``id``, and one whose ``id`` an earlier record has
            (else a record without one gets its line number, and ids may repeat).
        any_label: see :func:`parse_record`.
        allow_empty: a file of no records is read as none (``detect``'s output for an input with
            no texts), not refused.
    """
    records: list[GoldRecord] = []
    first: dict[str, int] = {}  # id -> line of its first record
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        record = parse_record(line, f"{source}: line {n}", default_id=None if require_id else str(n),
                              any_label=any_label)
        if require_id:  # a file given twice (cat dev.jsonl dev.jsonl) would count every span twice
            if record.id in first:  # the id is not quoted: it may be a patient's number
                raise InputError(f"{source}: line {n} repeats the id of line {first[record.id]} "
                                 "(each record needs its own id; 1 and \"1\" are one id)")
            first[record.id] = n
        records.append(record)
    if not records and not allow_empty:
        raise InputError(f"{source}: no records")
    return records


def jsonl_lines(stream: IO[bytes], source: str) -> Iterator[str]:
    """Decoded lines of a UTF-8 JSONL byte stream, split on ``"\\n"`` only.

    Not ``str.splitlines``: it also breaks at U+2028, U+2029, U+0085 and other characters that
    JSON allows unescaped inside strings, which would cut valid records in two.

    A UTF-8 byte-order mark at the start of the stream is dropped (it is not JSON; ``anonymize``'s
    JSONL and CSV readers skip it too).

    Raises:
        InputError: naming the first line that is not valid UTF-8 (never its content).
    """
    for n, raw in enumerate(stream, 1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"{source}: line {n} is not valid UTF-8") from None
        yield line.removeprefix("\ufeff") if n == 1 else line


#: names of tables, which a span file (JSON Lines) never has: ``detect -o`` refuses them
_TABLE_NAME = re.compile(r"\.(?:csv|tsv|parquet|pq)(?:\.(?:gz|bz2|xz|zst))?\Z", re.IGNORECASE)


def read_span_file(path: str | Path, *, require_id: bool = True, any_label: bool = False,
                   allow_empty: bool = False) -> list[GoldRecord]:
    """Validated records of a span-labelled JSONL file (``"-"``: standard input).

    The one reader of ``spans.jsonl`` (``evaluate-detection`` and ``detector train`` both use it).
    ``allow_empty``: see :func:`read_records`.

    Raises:
        InputError: a missing or unreadable file, a table's name (the input given for the span
            file: it said "line 1 is not valid JSON"), or naming the line of the first malformed
            record.
    """
    from ..io import open_input

    shown = "<stdin>" if str(path) == "-" else str(path)  # "-: line 3" named no input
    if _TABLE_NAME.search(shown):
        raise InputError(f"{shown} is named as a table; a span file is JSON Lines (detect INPUT -o "
                         "spans.jsonl writes one)")
    with open_input(str(path)) as fh:
        return read_records(jsonl_lines(fh, shown), shown, require_id=require_id, any_label=any_label,
                            allow_empty=allow_empty)


def read_span_records(path: str | Path, *, any_label: bool = False) -> list[dict[str, Any]]:
    """Records of a span-labelled JSONL file as dicts (``{"id", "text", "spans": [...]}``).

    A thin view of :func:`read_span_file` (the one reader and validator of the
    format; a record without an ``id`` gets its line number; ``any_label``: see
    :func:`parse_record`).

    Raises:
        InputError: naming the line of the first malformed record (never quoting its text).
    """
    return [record.to_dict() for record in read_span_file(path, require_id=False, any_label=any_label)]


def detected_records(texts: Iterable[str], detector: Detector, *,
                     ids: Iterable[str | int] | None = None) -> Iterator[dict[str, Any]]:
    """Each text with the spans ``detector`` finds in it, as a record of the span file format
    (``{"id", "text", "spans": [{"start", "end", "label", "text", "score", "source"}]}``): what
    ``embedanon detect`` writes, for a person to correct by hand and then score detectors
    against with :func:`evaluate` (each span's ``text`` is checked against its offsets when the
    file is read back; ``score`` and ``source`` are ignored there).

    Args:
        texts: the texts, in order.
        detector: the detector (a union, its verifier included, as ``anonymize`` builds it).
        ids: one id per text (default: 1, 2, 3 ... in order).

    Raises:
        DetectorUnavailable: the detector cannot run on a text (nothing is made up for it).
    """
    given = iter(ids) if ids is not None else None
    for k, text in enumerate(texts, 1):
        record_id = k if given is None else next(given)
        spans = [{"start": s.start, "end": s.end, "label": s.label, "text": text[s.start:s.end],
                  "score": round(float(s.score), 4), "source": s.source}
                 for s in sorted(detector.detect(text), key=lambda s: (s.start, s.end))]
        yield {"id": record_id, "text": text, "spans": spans}


@dataclass(frozen=True, slots=True)
class Counts:
    """Matched counts; the rates are properties (nan when undefined)."""

    gold: int = 0
    found: int = 0
    predicted: int = 0
    correct: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.gold + other.gold, self.found + other.found,
                      self.predicted + other.predicted, self.correct + other.correct)

    @property
    def recall(self) -> float:
        return self.found / self.gold if self.gold else math.nan

    @property
    def precision(self) -> float:
        return self.correct / self.predicted if self.predicted else math.nan

    def f_beta(self, beta: float) -> float:
        """The weighted harmonic mean of precision and recall (module docstring): 0 when either
        is 0, even if the other is undefined (no predictions at all, or no gold spans), since
        the harmonic mean of 0 and any rate is 0; nan when a rate is undefined and the other is
        not 0."""
        p, r = self.precision, self.recall
        if p == 0 or r == 0:
            return 0.0
        if math.isnan(p) or math.isnan(r):
            return math.nan
        return (1 + beta**2) * p * r / (beta**2 * p + r)


@dataclass(frozen=True, slots=True)
class GroupRow:
    group: str
    spans: int
    found: int

    @property
    def recall(self) -> float:
        return self.found / self.spans if self.spans else math.nan


@dataclass(frozen=True, slots=True)
class GroupTest:
    """Best vs worst group (z-test, Mann-Whitney U), all groups (chi-square, exact tests) and
    equivalence of all groups within ``margin`` (:func:`equivalence_p`); nan: not computable."""

    best: str
    worst: str
    gap: float
    z: float
    p_z: float
    p_mann_whitney: float
    p_chi2: float
    p_exact_chi2: float = math.nan
    p_range: float = math.nan
    margin: float = math.nan
    p_equivalence: float = math.nan


@dataclass(frozen=True, slots=True)
class DetectionReport:
    detector: str
    documents: int
    failed_documents: int
    megabytes: float
    seconds: float
    min_coverage: float
    overlap: Counts
    typed: Counts
    exact: Counts
    per_label: dict[str, Counts] = field(default_factory=dict)
    groups: tuple[GroupRow, ...] = ()
    group_test: GroupTest | None = None
    #: ``"GOLD>PREDICTED"`` -> found gold spans whose main prediction has the other label
    confusion: dict[str, int] = field(default_factory=dict)
    #: gold labels outside :data:`~.base.LABELS` -> number of gold spans (found by any label in
    #: the overlap and per-label figures; no prediction has their label, so never typed or exact)
    unknown_labels: dict[str, int] = field(default_factory=dict)
    #: labels other than NAME -> number of their gold spans that carry a ``group`` (not tested)
    groups_left_out: dict[str, int] = field(default_factory=dict)
    #: the message of the last :class:`~.base.DetectorUnavailable` ("" when none failed); it names
    #: the detector and the reason, never the text
    last_failure: str = ""

    @property
    def docs_per_second(self) -> float:
        return self.documents / self.seconds if self.seconds > 0 else math.nan

    @property
    def megabytes_per_second(self) -> float:
        return self.megabytes / self.seconds if self.seconds > 0 else math.nan

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready counts and rates (nan -> None)."""
        def rates(c: Counts) -> dict[str, Any]:
            return {**asdict(c), "precision": c.precision, "recall": c.recall, "f1": c.f_beta(1),
                    "f5": c.f_beta(5)}

        out = {"detector": self.detector, "documents": self.documents,
               "failed_documents": self.failed_documents, "min_coverage": self.min_coverage,
               "seconds": self.seconds, "docs_per_second": self.docs_per_second,
               "megabytes_per_second": self.megabytes_per_second, "overlap": rates(self.overlap),
               "typed": rates(self.typed), "exact": rates(self.exact),
               "per_label": {k: rates(v) for k, v in self.per_label.items()},
               "groups": [{**asdict(g), "recall": g.recall} for g in self.groups],
               "confusion": dict(self.confusion), "unknown_labels": dict(self.unknown_labels),
               "groups_left_out": dict(self.groups_left_out),
               "intervals": {"recall": clopper_pearson(self.overlap.found, self.overlap.gold),
                             "precision": clopper_pearson(self.overlap.correct, self.overlap.predicted),
                             "groups": {g.group: clopper_pearson(g.found, g.spans) for g in self.groups}},
               "group_test": asdict(self.group_test) if self.group_test else None}
        return _json_ready(out)


def _json_ready(value: Any) -> Any:
    """``value`` with tuples as lists, numbers as plain floats and ints, and nan as None.

    Not a text replacement of ``NaN`` in the dumped JSON: labels and groups are the user's own
    strings, and one named ``NaN`` (or ``NaNny_PHONE``) came back as ``null`` (``nullny_PHONE``)."""
    if isinstance(value, dict):
        return {str(k): _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    if value is None or isinstance(value, (str, bool, int)):
        return value
    number = float(value)
    return None if math.isnan(number) else number


def _mask(length: int, spans: Iterable[tuple[int, int]]) -> bytearray:
    mask = bytearray(length)
    for start, end in spans:
        mask[start:end] = b"\x01" * (end - start)
    return mask


def exact_fraction(value: float) -> Fraction:
    """``value`` as the decimal it is written as (its shortest repr): ``0.14`` is 14/100.

    The double nearest to 0.14 is slightly above it, so ``7 >= 0.14 * 50`` is False in floating
    point and 7 of 50 characters would not reach a coverage of 0.14 (QA 5B; also 0.28 and 0.56
    of 25). Coverage is compared in integers against this fraction instead."""
    return Fraction(repr(float(value)))


def _covered(mask: bytearray, start: int, end: int, need: Fraction) -> bool:
    """At least ``need`` of the characters ``[start, end)`` are set in ``mask``, exactly:
    ``count / length >= p / q`` as ``count * q >= p * length``."""
    return mask.count(1, start, end) * need.denominator >= need.numerator * (end - start)


def score_document(text: str, gold: Sequence[GoldSpan], predicted: Sequence[Span], *,
                   min_coverage: float = 0.5, ignore: Sequence[tuple[int, int]] = ()
                   ) -> tuple[Counts, Counts, Counts, dict[str, Counts], list[bool]]:
    """Overlap, typed and exact counts, per-label overlap counts, and ``found`` per gold span.

    ``ignore``: regions whose unmatched predictions are not counted (see the module docstring);
    every prediction still counts toward finding gold spans.
    """
    n, need = len(text), exact_fraction(min_coverage)
    gold_mask = _mask(n, ((g.start, g.end) for g in gold))
    counted = list(predicted)
    if ignore:
        either = _mask(n, [*((g.start, g.end) for g in gold), *ignore])
        counted = [p for p in predicted if _covered(gold_mask, p.start, p.end, need)
                   or not _covered(either, p.start, p.end, need)]
    pred_mask = _mask(n, ((p.start, p.end) for p in predicted))
    found = [_covered(pred_mask, g.start, g.end, need) for g in gold]
    correct = [_covered(gold_mask, p.start, p.end, need) for p in counted]
    overlap = Counts(len(gold), sum(found), len(counted), sum(correct))
    per_label: dict[str, Counts] = {}
    typed = Counts()
    for label in sorted({g.label for g in gold} | {p.label for p in counted}):
        g_l = [g for g in gold if g.label == label]
        p_l = [p for p in counted if p.label == label]
        gm = _mask(n, ((g.start, g.end) for g in g_l))
        pm = _mask(n, ((p.start, p.end) for p in predicted if p.label == label))
        typed += Counts(len(g_l), sum(_covered(pm, g.start, g.end, need) for g in g_l),
                        len(p_l), sum(_covered(gm, p.start, p.end, need) for p in p_l))
        per_label[label] = Counts(
            len(g_l), sum(f for f, g in zip(found, gold, strict=True) if g.label == label),
            len(p_l), sum(c for c, p in zip(correct, counted, strict=True) if p.label == label))
    gold_keys = {(g.start, g.end, g.label) for g in gold}
    pred_keys = {(p.start, p.end, p.label) for p in predicted}
    exact = Counts(len(gold), sum((g.start, g.end, g.label) in pred_keys for g in gold),
                   len(counted), sum((p.start, p.end, p.label) in gold_keys for p in counted))
    return overlap, typed, exact, per_label, found


def clopper_pearson(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) two-sided interval of a binomial proportion: the ``p`` whose
    tail probabilities are each ``(1 - confidence) / 2``; (nan, nan) without trials.

    The bounds are beta quantiles (scipy, which scikit-learn brings): constant time, where
    :func:`clopper_pearson_reference`, the plain reference a test holds it equal to, sums the
    whole binomial distribution at each of 60 bisection steps (14 s per interval at 300,000
    spans). Without scipy the reference is used."""
    if trials <= 0:
        return math.nan, math.nan
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be in [0, {trials}], got {successes}")
    try:
        from scipy.special import betaincinv
    except ImportError:  # pragma: no cover - scipy comes with scikit-learn
        return clopper_pearson_reference(successes, trials, confidence)
    tail = (1.0 - confidence) / 2
    lower = 0.0 if successes == 0 else float(betaincinv(successes, trials - successes + 1, tail))
    upper = 1.0 if successes == trials else float(betaincinv(successes + 1, trials - successes, 1.0 - tail))
    return lower, upper


def clopper_pearson_reference(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The plain reference of :func:`clopper_pearson`.

    Computed by bisection on the binomial distribution function (``math.comb`` in exact
    integers scaled to floats), so it needs no scipy: the lower bound solves
    ``P(X >= k; n, p) = alpha / 2`` (0 when k = 0), the upper ``P(X <= k; n, p) = alpha / 2``
    (1 when k = n). Conservative: the coverage is at least ``confidence`` for every ``p``.
    """
    if trials <= 0:
        return math.nan, math.nan
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be in [0, {trials}], got {successes}")
    tail = (1.0 - confidence) / 2

    def cdf(k: int, p: float) -> float:  # P(X <= k)
        if p <= 0.0:
            return 1.0
        if p >= 1.0:
            return 1.0 if k >= trials else 0.0
        log_p, log_q = math.log(p), math.log1p(-p)
        log_n = math.lgamma(trials + 1)
        return min(1.0, sum(math.exp(log_n - math.lgamma(i + 1) - math.lgamma(trials - i + 1)
                                     + i * log_p + (trials - i) * log_q) for i in range(k + 1)))

    def solve(f: Callable[[float], float]) -> float:  # f increasing in p, root in [0, 1]
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
        return (lo + hi) / 2

    lower = 0.0 if successes == 0 else solve(lambda p: (1.0 - cdf(successes - 1, p)) - tail)
    upper = 1.0 if successes == trials else solve(lambda p: tail - cdf(successes, p))
    return lower, upper


def two_proportion_z(found_a: int, n_a: int, found_b: int, n_b: int) -> tuple[float, float]:
    """Pooled two-proportion z statistic and two-sided p-value (nan when undefined)."""
    if not n_a or not n_b:
        return math.nan, math.nan
    pooled = (found_a + found_b) / (n_a + n_b)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
    if se == 0:
        return 0.0, 1.0
    z = (found_a / n_a - found_b / n_b) / se
    return z, math.erfc(abs(z) / math.sqrt(2))


#: Default margin of the equivalence test: the project's fairness target (a name-recall gap
#: between culture groups of at most 0.02).
EQUIVALENCE_MARGIN = 0.02


def equivalence_p(rows: Sequence[GroupRow], margin: float = EQUIVALENCE_MARGIN) -> float:
    """p-value for "every pair of groups differs in recall by less than ``margin``".

    The tests above ask whether the groups differ at all; with thousands of names per group a
    gap far smaller than any target is "significant", and with few names a large gap is not. An
    equivalence test asks the question of a target like "gap ≤ 0.02": per pair, two one-sided
    z-tests (TOST) of ``|r_a − r_b| ≥ margin`` with Agresti-Caffo adjusted proportions
    (``(found + 1) / (spans + 2)``, which behave near recall 1); all pairs at once by the
    intersection-union principle, so the p-value is the largest pair's, with no multiplicity
    correction needed. Small p: the gap is shown to be under the margin. nan with fewer than two
    groups with spans.
    """
    rows = [r for r in rows if r.spans]
    if len(rows) < 2:
        return math.nan
    worst = 0.0
    for i, a in enumerate(rows):
        for b in rows[i + 1 :]:
            pa, pb = (a.found + 1) / (a.spans + 2), (b.found + 1) / (b.spans + 2)
            se = math.sqrt(pa * (1 - pa) / (a.spans + 2) + pb * (1 - pb) / (b.spans + 2))
            z = (abs(pa - pb) - margin) / se
            worst = max(worst, 0.5 * math.erfc(-z / math.sqrt(2)))  # Phi(z)
    return worst


def compare_groups(rows: Sequence[GroupRow], *, margin: float = EQUIVALENCE_MARGIN) -> GroupTest | None:
    """Tests between groups (see the module docstring); None with fewer than two groups."""
    rows = [r for r in rows if r.spans]
    if len(rows) < 2:
        return None
    best = max(rows, key=lambda r: (r.recall, r.group))
    worst = min(rows, key=lambda r: (r.recall, r.group))
    z, p_z = two_proportion_z(best.found, best.spans, worst.found, worst.spans)
    p_u = p_chi2 = math.nan
    try:
        from scipy import stats
    except ImportError:  # scipy comes with scikit-learn; without it only the z-test is reported
        stats = None
    if stats is not None:
        a = [1] * best.found + [0] * (best.spans - best.found)
        b = [1] * worst.found + [0] * (worst.spans - worst.found)
        if len(set(a + b)) > 1:
            p_u = float(stats.mannwhitneyu(a, b, alternative="two-sided").pvalue)
            table = [[r.found for r in rows], [r.spans - r.found for r in rows]]
            if all(sum(row) for row in table):
                p_chi2 = float(stats.chi2_contingency(table, correction=False)[1])
        else:
            p_u = p_chi2 = 1.0
    p_exact, p_range = permutation_tests(rows)
    return GroupTest(best.group, worst.group, best.recall - worst.recall, z, p_z, p_u, p_chi2,
                     p_exact, p_range, margin, equivalence_p(rows, margin))


def permutation_tests(rows: Sequence[GroupRow], *, draws: int = 20_000, seed: int = 0) -> tuple[float, float]:
    """Monte Carlo exact p-values (chi-square statistic, best-worst recall gap) under random
    assignment of the observed misses to names (see the module docstring); (1.0, 1.0) without
    misses or without found names."""
    import numpy as np

    n = np.array([r.spans for r in rows], dtype=np.int64)
    miss = n - np.array([r.found for r in rows], dtype=np.int64)
    total = int(miss.sum())
    if total == 0 or total == int(n.sum()):
        return 1.0, 1.0
    sims = np.random.default_rng(seed).multivariate_hypergeometric(n, total, size=draws)
    expected = n * (total / n.sum())

    def chi2(m: np.ndarray) -> np.ndarray:
        found, exp_found = n - m, n - expected
        return ((m - expected) ** 2 / expected + (found - exp_found) ** 2 / exp_found).sum(axis=-1)

    def gap(m: np.ndarray) -> np.ndarray:
        recall = 1.0 - m / n
        return recall.max(axis=-1) - recall.min(axis=-1)

    tol = 1e-9  # ties count as at least as extreme
    p_chi = (int((chi2(sims) >= chi2(miss) - tol).sum()) + 1) / (draws + 1)
    p_gap = (int((gap(sims) >= gap(miss) - tol).sum()) + 1) / (draws + 1)
    return p_chi, p_gap


def label_confusion(gold: Sequence[GoldSpan], predicted: Sequence[Span],
                    found: Sequence[bool]) -> list[str]:
    """``"GOLD>PREDICTED"`` for each found gold span whose main prediction (the one sharing the
    most characters with it; the earliest on a tie) has another label (module docstring)."""
    out: list[str] = []
    for g, hit in zip(gold, found, strict=True):
        if not hit:
            continue
        best, shared = None, 0
        for p in predicted:
            common = min(p.end, g.end) - max(p.start, g.start)
            if common > shared:
                best, shared = p, common
        if best is not None and best.label != g.label:
            out.append(f"{g.label}>{best.label}")
    return out


def record_spans(record: GoldRecord) -> list[Span]:
    r"""The spans of a span-file record as :class:`~embedanon.detectors.base.Span`\ s, to release
    a record with the spans a steward corrected by hand
    (``Anonymizer.anonymize_document(record.text, spans=record_spans(record))``).

    Raises:
        InputError: a label the tool does not know (read the file with ``any_label=False`` to be
            told which line), named with the record's id, never its text.
    """
    unknown = sorted({s.label for s in record.spans if s.label not in LABELS})
    if unknown:
        raise InputError(f"record {record.id}: labels {', '.join(unknown)} are not the tool's; "
                         f"rename them to one of {', '.join(LABELS)}")
    return [Span(s.start, s.end, s.label, 1.0, "recorded") for s in record.spans]


class RecordedSpans:
    """A detector that gives the spans a file recorded for each document, in order: scores a
    saved ``detect`` output, another tool's or a second annotator's file without running
    anything (``evaluate-detection --predictions``).

    The i-th call must be for the text of the i-th record of ``predicted``; :meth:`finish` checks
    that every record was used. Both raise an :class:`~embedanon.errors.InputError` naming the
    record, never its text.
    """

    name = "recorded spans"

    def __init__(self, predicted: Sequence[GoldRecord], source: str) -> None:
        self._records = _gold_records(predicted)
        self._source = source
        self._next = 0

    def detect(self, text: str) -> list[Span]:
        if self._next >= len(self._records):
            raise InputError(f"{self._source} has {len(self._records):,} records, fewer than the labelled "
                             "documents; give predictions for the same records in the same order")
        record = self._records[self._next]
        self._next += 1
        if record.text != text:
            raise InputError(f"{self._source}: record {self._next:,} holds another text than labelled "
                             f"document {self._next:,}; give predictions for the same records in the "
                             "same order")
        return record_spans(record)

    def finish(self) -> None:
        if self._next != len(self._records):
            raise InputError(f"{self._source} has {len(self._records):,} records, more than the "
                             f"{self._next:,} labelled documents; give predictions for the same records "
                             "in the same order")


def _gold_records(records: object) -> tuple[GoldRecord, ...]:
    """``records`` as a tuple of :class:`GoldRecord`, or a TypeError naming what was given (never
    a value: a record holds private text)."""
    hint = "; read a span file with read_span_file(path)"
    if isinstance(records, (str, bytes, PurePath)):
        raise TypeError(f"records must be GoldRecords, not a {type(records).__name__}{hint}")
    if not isinstance(records, Iterable):
        raise TypeError(f"records must be an iterable of GoldRecords, got {type(records).__name__}{hint}")
    out = tuple(records)
    for i, record in enumerate(out):
        if not isinstance(record, GoldRecord):
            raise TypeError(f"records[{i}] must be a GoldRecord, got {type(record).__name__}"
                            "; make one with GoldRecord(id, text, (GoldSpan(start, end, label), ...)) or "
                            "read_span_file(path)")
    return out


def evaluate(records: Iterable[GoldRecord], detector: Detector, *,
             min_coverage: float = 0.5, margin: float = EQUIVALENCE_MARGIN) -> DetectionReport:
    """Run ``detector`` on every record and score it against the gold spans (``margin``: of the
    groups' equivalence test, :func:`equivalence_p`).

    Raises:
        TypeError: ``records`` is not an iterable of :class:`GoldRecord` (a path: read it with
            :func:`read_span_file` first) or ``detector`` has no ``detect`` method.
    """
    records = _gold_records(records)
    if not callable(getattr(detector, "detect", None)):
        raise TypeError("detector must be a Detector (e.g. build_detectors('model,regex')), "
                        f"got {type(detector).__name__}")
    min_coverage = fraction("min_coverage", min_coverage, low_open=True)  # 0: anything matches
    margin = fraction("margin", margin, low_open=True)
    overlap = typed = exact = Counts()
    per_label: dict[str, Counts] = {}
    groups: dict[str, list[int]] = {}
    confusion: collections.Counter[str] = collections.Counter()
    unknown: collections.Counter[str] = collections.Counter()
    left_out: collections.Counter[str] = collections.Counter()
    seconds, failed, size, last_failure = 0.0, 0, 0, ""
    for record in records:
        began = time.perf_counter()
        try:
            predicted = [s.check(record.text) for s in detector.detect(record.text)]
        except DetectorUnavailable as exc:
            predicted, failed, last_failure = [], failed + 1, str(exc)
        seconds += time.perf_counter() - began
        size += len(record.text.encode("utf-8", "surrogatepass"))
        o, t, e, labels, found = score_document(record.text, record.spans, predicted,
                                                min_coverage=min_coverage, ignore=record.ignore)
        overlap, typed, exact = overlap + o, typed + t, exact + e
        for label, counts in labels.items():
            per_label[label] = per_label.get(label, Counts()) + counts
        confusion.update(label_confusion(record.spans, predicted, found))
        for gold, hit in zip(record.spans, found, strict=True):
            if gold.label not in LABELS:
                unknown[gold.label] += 1
            if gold.group is not None and gold.label == "NAME":  # the group test is about names
                tally = groups.setdefault(gold.group, [0, 0])
                tally[0] += 1
                tally[1] += hit
            elif gold.group is not None:  # counted and said: PERSON spans would vanish silently
                left_out[gold.label] += 1
    rows = tuple(GroupRow(g, n, k) for g, (n, k) in sorted(groups.items()))
    ordered = {label: per_label[label] for label in [*LABELS, *sorted(set(per_label) - set(LABELS))]
               if label in per_label}
    return DetectionReport(getattr(detector, "name", "?"), len(records), failed, size / 1e6, seconds,
                           min_coverage, overlap, typed, exact, ordered, rows,
                           compare_groups(rows, margin=margin), dict(confusion.most_common()),
                           dict(unknown.most_common()), dict(left_out.most_common()), last_failure)


def measure_speed(texts: Sequence[str], detectors: Mapping[str, Detector], *, rounds: int = 2,
                  warmup: int = 20) -> dict[str, dict[str, float]]:
    """Detection speed of several detectors on the same texts, side by side.

    Each detector first runs on ``warmup`` texts (lazy loads, caches); then ``rounds`` rounds run
    every detector over all texts in turn, so that the load of a shared machine hits them alike.
    Only ``detect`` calls are timed, by the wall clock and by this process's CPU time (the fairer
    figure on a loaded machine; everything runs in this process).

    Returns:
        ``{name: {"docs_per_s_wall", "docs_per_s_cpu", "mb_per_s_wall", "mb_per_s_cpu",
        "seconds_wall", "seconds_cpu"}}`` (UTF-8 megabytes, 10^6 bytes).
    """
    rounds = positive_int("rounds", rounds)
    if not texts:
        raise InputError("measure_speed needs at least one text")
    mb = sum(len(t.encode("utf-8", "surrogatepass")) for t in texts) / 1e6
    for detector in detectors.values():
        for text in texts[:warmup]:
            detector.detect(text)
    wall = dict.fromkeys(detectors, 0.0)
    cpu = dict.fromkeys(detectors, 0.0)
    for _ in range(rounds):
        for name, detector in detectors.items():
            w0, c0 = time.perf_counter(), time.process_time()
            for text in texts:
                detector.detect(text)
            wall[name] += time.perf_counter() - w0
            cpu[name] += time.process_time() - c0
    n = len(texts) * rounds

    def rate(amount: float, seconds: float) -> float:
        return amount / seconds if seconds > 0 else math.nan

    return {name: {"docs_per_s_wall": rate(n, wall[name]), "docs_per_s_cpu": rate(n, cpu[name]),
                   "mb_per_s_wall": rate(mb * rounds, wall[name]),
                   "mb_per_s_cpu": rate(mb * rounds, cpu[name]),
                   "seconds_wall": wall[name], "seconds_cpu": cpu[name]} for name in detectors}
