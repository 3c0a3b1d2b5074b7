"""``embedanon detect``: the spans the detectors find, as a span file to correct by hand; and
``embedanon evaluate-detection``: precision, recall, F1/F5, per label and per group (counts only)."""

from __future__ import annotations

import contextlib
import json
import math
import os
import time
from collections import Counter
from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer

from .._atomic import atomic_write, private_target
from .._validate import fraction
from ..compressed import by_name, strip_suffix, text_output
from ..detectors.base import LABELS, Detector, DetectorUnavailable, Span
from ..detectors.evaluate import (
    EQUIVALENCE_MARGIN,
    Counts,
    DetectionReport,
    RecordedSpans,
    detected_records,
    evaluate,
    read_span_file,
)
from ..detectors.registry import build_detectors
from ..errors import ConfigError, InputError
from ..files import check_paths, iter_numbered_texts
from ..io import NAMED_AS, check_encoding_errors
from ..review.sample import reservoir_sample
from .common import handle_errors
from .convention import examples
from .options import (
    AllowOpt,
    DenyOpt,
    DetectFieldOpt,
    DetectorOptionOpt,
    EncodingErrorsOpt,
    FmtOpt,
    InputArg,
    LlmModelOpt,
    LlmUrlOpt,
    LlmVerifyOpt,
    detector_options,
    flags_named,
    refuse_detector_options,
    word_lists,
)
from .progress import ProgressOpt, StageProgress, choose

DETECT_EXAMPLES = examples(
    "embedanon detect examples/visits.csv --field note -o spans.jsonl --sample 50",
    "embedanon evaluate-detection --data spans.jsonl -d model,regex",
)
#: what each stage of ``detect`` counts
_DETECT_UNITS = {"reading": ("text", "texts"), "detecting": ("text", "texts"), "writing": ("file", "files")}
#: what each stage of ``evaluate-detection`` counts
_EVALUATE_UNITS = {"reading": ("document", "documents"), "detecting": ("document", "documents")}


@handle_errors
def detect_command(
    input_path: InputArg,
    output: Annotated[str, typer.Option(
        "--output", "-o", metavar="FILE",
        help="The span file (JSONL; a regular file: it contains the original text).")],
    fmt: FmtOpt = None,
    field: DetectFieldOpt = None,
    encoding_errors: EncodingErrorsOpt = "strict",
    detector: Annotated[str, typer.Option(
        "--detector", "-d", metavar="NAMES",
        help="Detector name(s), comma-separated (regex, llm, presidio, model, transformer).")
    ] = "model,regex",
    llm_url: LlmUrlOpt = None,
    llm_model: LlmModelOpt = None,
    llm_verify: LlmVerifyOpt = False,
    detector_option: DetectorOptionOpt = None,
    allow: AllowOpt = None,
    deny: DenyOpt = None,
    sample: Annotated[int, typer.Option(
        metavar="N", help="Texts written: a uniform sample of N drawn with --seed, in input order (0: all); "
                          "memory holds N texts (0: one at a time), never the input.")
    ] = 0,
    seed: Annotated[int, typer.Option(metavar="N", help="Seed of the --sample draw.")] = 0,
    progress: ProgressOpt = "auto",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress and no summary line.")] = False,
) -> None:
    """Write the spans the detectors find in INPUT as a span file, to correct by hand.

    One JSON line per text: {id, text, spans: [{start, end, label, text, score, source}]}, the
    id being the text's place in INPUT (1, 2, ...); with several --field, each line also names
    its record (as 'review' numbers them) and field. Correct the spans (delete the wrong ones, add
    the missed ones), then score detectors against the file with 'evaluate-detection --data'.
    The file contains the original text: handle it like the source data."""
    started = time.monotonic()
    private_target(output, "the span file")
    named = NAMED_AS.get(Path(strip_suffix(output)).suffix.lower())
    if named not in (None, "JSON Lines"):  # as anonymize refuses -o out.csv for JSON lines
        raise InputError(f"output {output} is named as {named}, but detect writes a span file in JSON "
                         "Lines; name it .jsonl")
    if sample < 0:
        raise InputError(f"sample must be 0 (all) or a positive number of texts, got {sample}")
    if seed and not sample:  # an option that would be ignored is refused, as in anonymize
        raise InputError("--seed applies only to --sample N (it seeds the draw of the sample)")
    if seed < 0:  # numpy's generator takes no negative seed
        raise InputError(f"--seed must be a non-negative integer, got {seed}")
    check_encoding_errors(encoding_errors)  # as anonymize: else any Python error handler ran
    check_paths([("input", input_path), ("allow", allow), ("deny", deny)], [("output", output)])
    # the llm detector's own options, as anonymize and evaluate-detection take them (its
    # message names --llm-url and --llm-model)
    own = {"llm_url": llm_url, "llm_model": llm_model, "llm_verify": llm_verify or None}
    options = detector_options(own, detector_option)
    allowed, denied = word_lists(allow, deny)
    with flags_named(own):
        union = build_detectors(detector, allow=allowed, deny=dict(denied), **options)
    mode = choose(progress, quiet, input_path == "-")
    shown = StageProgress(mode, "detect", _DETECT_UNITS)
    try:
        grouped = iter_numbered_texts(input_path, fmt=fmt, fields=field, encoding_errors=encoding_errors)
        # with several fields the id (a text's place) no longer names a record: say which one, as
        # the review page numbers it (blank records counted)
        names = field or []
        placed = (({"record": number, "field": names[k]} if len(names) > 1 else {}, text)
                  for number, record_texts in grouped for k, text in enumerate(record_texts))
        # one pass, and memory never holds the input: a sample its K texts (reservoir sampling),
        # all texts (--sample 0) one at a time, read, detected and written in turn
        total = 0  # texts read (for --sample 0: those written, counted as they go)
        if sample:
            shown("reading", 0, 0)
            chosen, total = reservoir_sample(placed, sample, np.random.default_rng(seed))
            shown("reading", total, 0)
            items, size = iter(chosen), len(chosen)
        else:
            items, size = enumerate(placed), 0  # the total is known at the end only
        labels: Counter[str] = Counter()
        written = 0
        shown("detecting", 0, size)
        kind = by_name(output)  # -o spans.jsonl.gz: compressed, as anonymize writes it
        with atomic_write(os.fspath(output), private=True, original=True, binary=kind is not None) as raw, \
                (text_output(raw, kind, output) if kind else contextlib.nullcontext(raw)) as fh:
            for i, (place, text) in items:
                record = next(detected_records([text], union, ids=[i + 1]))
                labels.update(span["label"] for span in record["spans"])
                fh.write(json.dumps({"id": record.pop("id"), **place, **record}, ensure_ascii=False) + "\n")
                written += 1
                shown("detecting", written, size)
            shown("writing", 0, 1)  # the file is renamed into place on leaving the block
        total = total if sample else written
        shown("writing", 1, 1)
    finally:
        shown.close()
    if not quiet:  # counts only, never text
        by_label = ", ".join(f"{label} {n:,}" for label, n in sorted(labels.items())) or "none"
        typer.echo(f"detect: {sum(labels.values()):,} spans in {written:,} of {total:,} texts "
                   f"({by_label}) in {time.monotonic() - started:.1f} s; the file holds the original "
                   "text", err=True)


EXAMPLES = examples(
    "embedanon evaluate-detection --data examples/spans.jsonl --detector model,regex",
    "embedanon evaluate-detection --data examples/spans.jsonl -d model --json",
    "embedanon evaluate-detection --data corrected.jsonl --predictions detected.jsonl",
)


@handle_errors
def evaluate_detection_command(
    data: Annotated[str, typer.Option("--data", help="Span-labelled JSONL: {id, text, spans: [{start, end, "
                                                     "label, group?}]} ('-' for stdin); any label, extra "
                                                     "fields ignored.", metavar="FILE")],
    detector: Annotated[Optional[str], typer.Option(
        "--detector", "-d", help="Detector name(s), comma-separated (regex, llm, presidio, model, "
                                 "transformer).", metavar="NAMES")] = None,
    predictions: Annotated[Optional[str], typer.Option(
        "--predictions", help="Score the spans of this span file (the same records in the same order: "
                              "a saved 'detect' output, another tool's or annotator's) instead of "
                              "running detectors.", metavar="FILE")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")] = False,
    min_coverage: Annotated[float, typer.Option(help="Fraction of a span's characters the other side must "
                                                     "cover for a match.", metavar="FRACTION")] = 0.5,
    llm_url: Annotated[Optional[str], typer.Option(
        help="llm: OpenAI-compatible endpoint URL.", metavar="URL")] = None,
    llm_model: Annotated[Optional[str], typer.Option(help="llm: model name.", metavar="NAME")] = None,
    llm_api_key_env: Annotated[Optional[str], typer.Option(
        help="llm: environment variable holding the API key (default EMBEDANON_LLM_API_KEY).",
        metavar="NAME")] = None,
    llm_verify: Annotated[Optional[bool], typer.Option(
        "--llm-verify/--no-llm-verify", help="llm: run the True/False verifier pass.")] = None,
    margin: Annotated[float, typer.Option(help="Groups: margin of the equivalence test (every pair of "
                                               "groups' name recall within it).", metavar="FRACTION")
                      ] = EQUIVALENCE_MARGIN,
    detector_option: DetectorOptionOpt = None,
    allow: AllowOpt = None,
    deny: DenyOpt = None,
    progress: ProgressOpt = "auto",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress.")] = False,
) -> None:
    """Score detectors on labelled documents: precision, recall, F1 and F5, per label and group.

    Prints counts and rates only, never text. When the detectors could run on no document (an
    llm endpoint down), there are no figures: one error line and exit 2."""
    if not 0.0 < margin < 1.0:
        raise InputError(f"--margin must be in (0, 1), got {margin}")
    fraction("--min-coverage", min_coverage, low_open=True)  # as evaluate checks it, named as typed
    own = {"llm_url": llm_url, "llm_model": llm_model, "llm_api_key_env": llm_api_key_env,
           "llm_verify": llm_verify}
    recorded: RecordedSpans | None = None
    if predictions is not None:  # a file's spans: nothing runs, so nothing may configure a detector
        refuse_detector_options("--predictions scores a file's spans", detector=detector,
                                detector_option=detector_option, allow=allow, deny=deny, **own)
        if predictions == "-" and data == "-":
            raise ConfigError("--predictions and --data cannot both be standard input")
        recorded = RecordedSpans(read_span_file(predictions, require_id=False), predictions)
        union: Detector = recorded
    elif detector is None:
        raise ConfigError("give detectors to run (-d model,regex) or a span file to score "
                          "(--predictions FILE)")
    else:
        options = detector_options(own, detector_option)  # e.g. model_path=adapted/
        allowed, denied = word_lists(allow, deny)  # the same lists as anonymize --allow / --deny
        with flags_named(own):
            union = build_detectors(detector, allow=allowed, deny=dict(denied), **options)
    shown = StageProgress(choose(progress, quiet, data == "-"), "evaluate-detection", _EVALUATE_UNITS)
    try:
        shown("reading", 0, 0)
        records = read_span_file(data, any_label=True)
        report = evaluate(records, _Shown(union, shown, len(records)), min_coverage=min_coverage,
                          margin=margin)
        if recorded is not None:
            recorded.finish()
    finally:
        shown.close()
    with_text = sum(1 for record in records if record.text.strip())  # a blank one needs no detector
    if report.failed_documents and report.failed_documents >= with_text:
        # recall 0 of a detector that never ran is no figure: exit 2, as for any error
        raise DetectorUnavailable(f"the detectors could not run on any of the {with_text:,} documents with "
                                  f"text (last failure: {report.last_failure}); no figures")
    if as_json:
        typer.echo(json.dumps(report.to_dict(), sort_keys=True))
        return
    for line in format_report(report):
        typer.echo(line)


class _Shown:
    """``detector`` reporting, before each document, how many it has done (counts only)."""

    def __init__(self, detector: Detector, shown: StageProgress, total: int) -> None:
        self.detector, self.shown, self.total, self.done = detector, shown, total, 0
        self.name = getattr(detector, "name", "?")  # the report names the detector

    def detect(self, text: str) -> list[Span]:
        self.shown("detecting", self.done, self.total)
        self.done += 1
        return self.detector.detect(text)


def _r(value: float) -> str:
    return "  n/a" if math.isnan(value) else f"{value:.3f}"


def _row(name: str, c: Counts, width: int = 10) -> str:
    return (f"{name:<{width}} {c.gold:>6} {c.found:>6} {c.predicted:>6} {c.correct:>6}  "
            f"{_r(c.precision)}  {_r(c.recall)}  {_r(c.f_beta(1))}  {_r(c.f_beta(5))}")


def _ci(bounds: list[float | None] | tuple[float | None, float | None]) -> str:
    low, high = bounds
    return "n/a" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"


def format_report(report: DetectionReport) -> list[str]:
    """Text tables of a report (counts and rates only); the first column is as wide as its longest
    label (ORGANIZATION, another tool's labels) so the numbers stay under their headings."""
    width = max([10, *map(len, report.per_label)])
    head = f"{'':<{width}} {'gold':>6} {'found':>6} {'pred':>6} {'right':>6}  {'prec':>5}  {'rec':>5}  " \
           f"{'F1':>5}  {'F5':>5}"
    lines = [f"detector: {report.detector}   documents: {report.documents}   "
             f"failed (DetectorUnavailable): {report.failed_documents}",
             f"matching: a span is matched when >= {report.min_coverage * 100:.4g}% of its characters "
             "are covered",
             head, _row("overlap", report.overlap, width), _row("typed", report.typed, width),
             _row("exact", report.exact, width),
             "", "per label (overlap; recall by gold label, precision by predicted label)", head]
    lines += [_row(label, counts, width) for label, counts in report.per_label.items()]
    if report.unknown_labels:
        lines.append("gold labels the detectors do not have (found by a prediction of any label in the "
                     "overlap and per-label rows; never in the typed and exact rows): "
                     + ", ".join(f"{label} {n}" for label, n in report.unknown_labels.items()))
        # 'name' or ' NAME' from a hand edit scores typed recall 0 against NAME without a word
        near = {label: label.strip().upper() for label in report.unknown_labels
                if label.strip().upper() in LABELS}
        if near:
            lines.append("labels are compared exactly; did you mean "
                         + ", ".join(f"{known} for {label!r}" for label, known in near.items()) + "?")
    if report.groups_left_out:
        lines.append("groups on labels other than NAME (left out of the group test, which is about "
                     "names): " + ", ".join(f"{label} {n}" for label, n in report.groups_left_out.items()))
    ci = report.to_dict()["intervals"]
    # of the overlap row; "exact 95% intervals" read as the interval of the exact row above
    lines.append(f"overlap row, 95% intervals (exact binomial, Clopper-Pearson): recall {_ci(ci['recall'])}, "
                 f"precision {_ci(ci['precision'])}")
    if report.confusion:
        lines += ["", "label confusion (found spans whose main prediction has another label; "
                      "hybrid scope picks the surrogate by the label):",
                  "  " + ", ".join(f"{pair} {n}" for pair, n in report.confusion.items())]
    if report.groups:
        named = max([16, *(len(g.group) for g in report.groups)])
        lines += ["", f"{'group':<{named}} {'spans':>6} {'found':>6} {'recall':>7}"]
        lines += [f"{g.group:<{named}} {g.spans:>6} {g.found:>6} {_r(g.recall):>7}  "
                  f"{_ci(ci['groups'][g.group])}" for g in report.groups]
        t = report.group_test
        if t is not None:
            lines.append(f"gap {t.best} - {t.worst} = {t.gap:.3f}; two-proportion z = {t.z:.2f} "
                         f"(p = {t.p_z:.3g}); Mann-Whitney U p = {t.p_mann_whitney:.3g}; "
                         f"chi-square over all groups p = {t.p_chi2:.3g}")
            lines.append(f"exact (20,000 random assignments of the misses): chi-square p = "
                         f"{t.p_exact_chi2:.3g}; gap {t.best} - {t.worst} p = {t.p_range:.3g}")
            lines.append(f"equivalence (every pair of groups within {t.margin:g}; TOST, intersection-union): "
                         f"p = {t.p_equivalence:.3g}")
    lines += ["", f"speed: {report.docs_per_second:.1f} docs/s, {report.megabytes_per_second:.3g} MB/s "
                  f"({report.seconds:.2f} s in detect)"]
    return lines
