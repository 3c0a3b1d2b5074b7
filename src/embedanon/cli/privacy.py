"""``embedanon privacy-report``: change rate, N_w, S_w and attack success on a text file."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, replace
from typing import Annotated, Any, Optional

import numpy as np
import typer

from .._english import counted
from .._validate import positive_int
from ..detectors.evaluate import read_span_records
from ..errors import ConfigError, InputError
from ..files import read_record_texts, read_texts
from ..language import not_english_message, sample_of
from ..noise import ReleaseKey
from ..pipeline import anonymize_records
from ..pipeline.document import AnonymizedDocument, anonymize_documents
from ..privacy.attacks.figures import PrivacyFigures, run_attacks, with_verbatim_names
from ..privacy.attacks.likelihood import Likelihood, likelihood_for
from ..privacy.attacks.membership import MembershipFigure, membership_games
from ..privacy.epsilon import amount, epsilon_sentences
from ..privacy.prior import has_aligned_words
from ..privacy.report import PrivacyReport, privacy_report, report_seed
from ..privacy.scoped import (
    ReleaseCounts,
    ScopedRelease,
    full_scope_config,
    is_plain,
    longest_record_parts,
    scoped_release,
    verbatim_name_groups,
)
from ..privacy.verdict import (
    figure_samples,
    figure_values,
    for_scope,
    judge,
    parse_overrides,
    with_overrides,
)
from ..text import mechanism_draws
from .common import handle_errors
from .convention import examples
from .options import (
    EncodingErrorsOpt,
    FieldOpt,
    FmtOpt,
    release_anonymizer,
    release_options,
)
from .progress import choose, run_with_progress

EXAMPLES = examples(
    "embedanon privacy-report examples/clinical_note.txt --key release.key",
    "embedanon privacy-report examples/visits.csv --field note -m exponential --epsilon 12 --json",
    "embedanon privacy-report examples/visits.csv --field note --scope hybrid --releases 3",
)

#: Texts anonymized per progress update.
_SLICE = 64


@handle_errors
@release_options
def privacy_report_command(
    input_path: Annotated[str, typer.Argument(
        metavar="INPUT", help="Input file, read as anonymize reads it.")],
    fmt: FmtOpt = None,
    field: FieldOpt = None,
    encoding_errors: EncodingErrorsOpt = "strict",
    releases: Annotated[int, typer.Option(
        help="Multi-release attack: the input released N times. Under a fixed key (the default "
             "key, --key, --seed) every release is the same text, reported as '= 1 release'; with "
             "--fresh-key each release draws a fresh key, as a holder re-running with new noise "
             "would, and the attack intersects them.", metavar="N")] = 1,
    spans: Annotated[Optional[str], typer.Option(
        help="spans.jsonl marking person names (with 'group') of the input's texts, in order: "
             "name figures per culture group (NAME spans are read; spans of any other label are "
             "left out).", metavar="FILE")] = None,
    attacker_text: Annotated[Optional[str], typer.Option(
        help="Text of the input's kind that an attacker could hold (published notes of the same "
             "specialty, never the input itself), read as anonymize reads a file: its word "
             "frequencies, mixed half and half with the public list, give the in-embedding and "
             "out-of-vocabulary attacks a domain prior.", metavar="FILE")] = None,
    contextual: Annotated[bool, typer.Option(help="Run the contextual (bigram Viterbi) attacker.")] = True,
    draws: Annotated[int, typer.Option(help="Draws per word type for N_w and S_w.", metavar="N")] = 100,
    max_words: Annotated[int, typer.Option(
        help="Word types N_w and S_w are computed over.", metavar="N")] = 200,
    neighbors: Annotated[int, typer.Option(
        help="Attack: nearest words considered as pre-images of each replacement (laws not "
             "inverted exactly: every mechanism but knn).", metavar="N")] = 50,
    mc_draws: Annotated[int, typer.Option(
        help="Attack on laplace/mahalanobis: samples per candidate pre-image.", metavar="N")] = 100,
    empirical_draws: Annotated[int, typer.Option(
        help="laplace/mahalanobis (no exact law): run the full attacks on a law estimated from N "
             "runs of the mechanism per candidate input (lower bounds; slow); 0: skip them.",
        metavar="N")] = 0,
    threshold: Annotated[Optional[list[str]], typer.Option(
        help="Hold FIGURE to NUMBER instead of its default threshold in the verdict (repeatable; "
             "figures and defaults: docs/privacy/report.md).", metavar="FIGURE=NUMBER")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of lines.")] = False,
    progress: Annotated[str, typer.Option(
        help="Anonymizing the releases: auto (a bar on a terminal), bar, plain (a line every few "
             "seconds), none.", metavar="auto|bar|plain|none")] = "auto",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress messages.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log counts to stderr.")] = False,
    *,
    release: dict[str, Any],
) -> None:
    """Measure what an attacker who knows the tool recovers from a release of INPUT.

    INPUT is anonymized in memory as configured; the report holds counts and rates only, never
    text or word mappings."""
    # every count is checked before any work (issue 34, defect 9: 0 was refused after it all)
    for name, value in (("releases", releases), ("draws", draws), ("max_words", max_words),
                        ("neighbors", neighbors), ("mc_draws", mc_draws)):
        positive_int(f"--{name.replace('_', '-')}", value)
    thresholds = with_overrides(parse_overrides(threshold))
    if empirical_draws < 0:
        raise ConfigError(f"empirical draws must be an integer >= 0, got {empirical_draws}")
    if spans == "-" and input_path == "-":  # the input takes all of it: "-: no records" came after
        raise ConfigError("--spans and INPUT cannot both be standard input; give the spans file by name")
    records = read_record_texts(input_path, fmt=fmt, fields=field, encoding_errors=encoding_errors)
    texts = [text for record in records for text in record]
    language = sample_of(texts)
    if language.english is False and not quiet:  # as anonymize warns: counts and the name only
        shown = "<stdin>" if input_path == "-" else input_path
        typer.echo(f"warning: {not_english_message(shown, language)}; the figures are an English attacker's",
                   err=True)
    attacker = _attacker_text(attacker_text) if attacker_text is not None else None
    name_spans = _name_spans(spans, texts) if spans else None  # a wrong file fails before any work
    anonymizer = release_anonymizer(**release)
    def say(message: str) -> None:
        if not (quiet or as_json):
            typer.echo(message, err=True)

    say(f"anonymizing {len(texts)} text{'s' * (len(texts) != 1)} ({releases} release{'s' * (releases > 1)})")
    config = anonymizer.config
    plain = is_plain(config.scope)
    full = config if plain else full_scope_config(config)
    # Release 1 under the configured key. A fixed key releases the same text every time (one
    # release, whatever N); with --fresh-key each further release draws a fresh key.
    fixed = anonymizer.key.origin != "fresh"
    keys = [anonymizer.key] + ([] if fixed else [ReleaseKey.fresh() for _ in range(releases - 1)])
    outs: list[list[str]] = []
    docs: list[list[AnonymizedDocument]] = []  # the scoped releases, when not plain

    def work(progress: Callable[[int], None] | None) -> None:
        for k in keys:  # in slices, for the progress display (the output is the same)
            out: list[str] = []
            scoped: list[AnonymizedDocument] = []
            for i in range(0, len(texts), _SLICE):
                chunk = texts[i : i + _SLICE]
                out += anonymize_records(chunk, full, k)
                if not plain:
                    scoped += anonymize_documents(chunk, config, k)
                if progress is not None:
                    progress(sum(len(t) for t in chunk))
            outs.append(out)
            docs.append(scoped)

    run_with_progress(choose(progress, quiet or as_json, input_path == "-"),
                      len(keys) * sum(len(t) for t in texts), work)
    # The change rate describes the release as published; the word attacks model the mechanism, so
    # outside plain full scope they read only the tokens it released (see embedanon.privacy.scoped).
    originals, released = texts, outs
    scoped: ScopedRelease | None = None
    given_spans = name_spans  # of the originals: names a scope releases unchanged are counted from them
    if not plain:
        scoped = scoped_release(config.scope, texts, docs, outs)
        view = scoped.view
        originals, released = list(view.originals), [list(r) for r in view.releases]
        name_spans = view.map_spans(name_spans) if name_spans is not None else None
    say("measuring N_w, S_w and the Bayes attack")
    mechanism, index = anonymizer.mechanism, anonymizer.runtime.index
    exact = hasattr(mechanism, "distribution")
    # one law for every attack on this release (its tables and caches are built once)
    law = likelihood_for(mechanism, index, neighbors=neighbors) if exact else None
    epsilon = dict(config.params).get("epsilon")
    report = privacy_report(originals, released[0], mechanism=mechanism, index=index, key=anonymizer.key,
                            epsilon=None if epsilon is None else float(epsilon), draws=draws,
                            max_words=max_words, neighbors=neighbors, mc_draws=mc_draws, likelihood=law,
                            attack=not (exact or empirical_draws))  # else run_attacks has these figures
    counts = _full_scope_counts(report) if scoped is None else scoped.counts
    # a record (a CSV/JSONL row: one person's) spends the epsilon of all its fields together
    per_text = counts.document_parts or tuple(mechanism_draws(t) for t in texts)
    longest_record = longest_record_parts(per_text, [len(r) for r in records])
    # From here on ``report.change`` is the release's; N_w, S_w and the attacks stay the mechanism's.
    report = replace(report, change=counts.change)
    figures = None
    if exact or empirical_draws:
        say("running the public-prior, out-of-vocabulary"
            + (", contextual" if contextual else "") + " and multi-release attacks"
            + ("" if exact else f" (law estimated from {empirical_draws} runs per input: lower bounds)"))
        figures = run_attacks(originals, released, mechanism=mechanism, index=index, name_spans=name_spans,
                              release_counts=sorted({1, len(keys)}), contextual=contextual,
                              empirical_draws=0 if exact else empirical_draws, attacker_text=attacker,
                              neighbors=neighbors, likelihood=law, seed=report_seed(anonymizer.key, 3))
        if scoped is not None and given_spans is not None:  # names the scope left as they are
            figures = replace(figures, names=with_verbatim_names(
                figures.names, verbatim_name_groups(texts, docs[0], given_spans)))
    # membership reads the release as published, in every scope
    published = [out if plain else [d.text for d in doc] for out, doc in zip(outs, docs, strict=True)]
    say("playing the membership games on the layout and the words")
    membership = _membership(texts, published, anonymizer.key, law, index.store.id_of, index.store.words,
                             kept=not plain)
    warnings = []
    if attacker is not None and {t.strip() for t in texts if t.strip()} <= {t.strip() for t in attacker}:
        warnings.append("--attacker-text holds every text of the input: the domain-prior figures are an "
                        "oracle's, not what an attacker without the input recovers")
    if figures is None:
        given = (("--attacker-text", attacker is not None), ("--releases", releases > 1),
                 ("--spans", spans is not None))
        unused = [name for name, on in given if on]
        if unused:
            warnings.append(f"{anonymizer.config.mechanism} has no exact law, so the attacks did not run "
                            f"and {', '.join(unused)} had no effect on them; add --empirical-draws N (lower "
                            "bounds, slow)")
    if anonymizer.key.origin == "seed":
        warnings.append("this release used --seed: anyone who guesses the seed (e.g. by replaying one "
                        "note they also hold) replays the noise; release with --key")
    if scoped is not None:  # the same lines the review page shows
        warnings.extend(scoped.warnings)
    values = figure_values(
        change_rate=counts.change.change_rate, n_w=report.n_w_mean, s_w=report.s_w_mean,
        # each fresh-key release draws every word again: the N releases spend N times (basic
        # composition); under one key they are one text and spend once
        epsilon_record=None if report.epsilon is None else len(keys) * longest_record * report.epsilon,
        attacks=None if figures is None else figures.as_dict(), membership_auc=membership.strongest_auc)
    if releases > 1 and fixed:  # N releases under one key are one text: nothing gained, exactly
        values["releases_gain"] = 0.0
    samples = figure_samples(attacks=None if figures is None else figures.as_dict(),
                             membership_records=membership.records)
    verdict = judge(values, for_scope(thresholds, config.scope.scope), samples)
    if as_json:
        payload: dict[str, Any] = {"report": _report_dict(report),
                                   "repeated_releases": _repeated(releases, fixed),
                                   "release": {**_release_dict(config.scope.scope, counts),
                                               "longest_record_mechanism_parts": longest_record},
                                   "warnings": warnings,
                                   "attacks": None if figures is None else figures.as_dict(),
                                   "membership": membership.as_dict(),
                                   "verdict": verdict.as_dict()}
        typer.echo(json.dumps(finite_json(payload), indent=2, allow_nan=False, default=str))
        return
    for line in (format_report(report, counts, releases=len(keys), longest_record=longest_record)
                 + (format_figures(figures) if figures else []) + format_membership(membership)):
        typer.echo(line)
    if releases > 1 and fixed:
        typer.echo(f"{f'after {releases} releases:':<22}= 1 release (every release under this key is the "
                   "same text; only --fresh-key draws new noise)")
    for warning in warnings:
        typer.echo(f"warning:              {warning}")
    for line in verdict.lines():
        typer.echo(line)


def _repeated(releases: int, fixed: bool) -> dict[str, Any] | None:
    """What N releases amount to: one release under a fixed key (default key, --key, --seed)."""
    if releases == 1:
        return None
    return {"releases": releases, "fixed_key": fixed, "same_as_releases": 1 if fixed else releases}


#: Records the membership game is played on at most (a keyed sample of a larger input).
MEMBERSHIP_RECORDS = 2000


def _membership(texts: list[str], published: list[list[str]], key: ReleaseKey, law: Likelihood | None,
                id_of: Callable[[str], int], words: Sequence[str], *, kept: bool) -> MembershipFigure:
    """The layout and word membership games on the release (a keyed sample of at most
    :data:`MEMBERSHIP_RECORDS` records: the games on a release of that many); the word game reads
    the mechanism's law, or without one (None) the words returned as themselves
    (:func:`~embedanon.privacy.attacks.membership.verbatim_evidence`), over every release of
    ``published`` (one per key: under ``--fresh-key`` each further release adds evidence; the
    layout, kept by every release, is read once); ``kept``: the scope keeps words as they are."""
    if len(texts) > MEMBERSHIP_RECORDS:
        rng = np.random.default_rng(report_seed(key, 4))
        chosen = np.sort(rng.choice(len(texts), size=MEMBERSHIP_RECORDS, replace=False)).tolist()
        texts = [texts[i] for i in chosen]
        published = [[release[i] for i in chosen] for release in published]
    return membership_games(texts, published, law=None if law is None else law.pairs, words=words,
                            id_of=id_of, kept=kept, seed=report_seed(key, 5))


def format_membership(figure: MembershipFigure) -> list[str]:
    """The membership line (AUCs and shares, never text)."""
    words = _rate(figure.word_auc)
    return [f"membership:           AUC {_rate(figure.strongest_auc)} over {figure.records} records "
            f"(0.5: chance; the stronger of layout {_rate(figure.auc)} and words {words}); "
            f"{_rate(figure.unique_layout)} have a layout, {_rate(figure.unique_sentences)} a sentence "
            "structure no other released record has"]


def finite_json(value: Any) -> Any:
    """``value`` with every float that JSON cannot hold (nan, inf: a rate over no tokens) as
    None, so the output is valid JSON (issue 34, defect 10: a bare NaN on empty input)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(v) for v in value]
    return value


def _report_dict(report: PrivacyReport) -> dict[str, Any]:
    out = asdict(report)
    for key in ("attack_uniform", "attack_corpus"):
        result = getattr(report, key)
        out[key] = None if result is None else {"tokens": result.tokens, "success": result.rate(1),
                                                "method": report.attack_method}
    out["change"]["change_rate"] = report.change.change_rate
    return out


def _full_scope_counts(report: PrivacyReport) -> ReleaseCounts:
    """The counts of a plain full-scope release, from its report."""
    return ReleaseCounts.full_scope(report.change, parts=report.input_parts,
                                    longest_parts=report.longest_document_parts)


def _release_dict(scope: str, counts: ReleaseCounts) -> dict[str, Any]:
    return {"scope": scope, "word_tokens": counts.change.word_tokens,
            "changed_words": counts.change.changed_words, "change_rate": counts.change.change_rate,
            "verbatim_words": counts.verbatim_words, "mechanism_words": counts.mechanism_words,
            "surrogate_or_redacted_words": counts.other_words, "mechanism_parts": counts.mechanism_parts,
            "longest_document_mechanism_parts": counts.longest_parts}


def _attacker_text(path: str) -> list[str]:
    """The attacker's texts (any format anonymize reads; the field ``text`` of jsonl/csv)."""
    if path == "-":
        raise ConfigError("--attacker-text cannot be standard input (the input may be read from it); "
                          "give a file")
    if not os.path.exists(path):
        raise InputError(f"--attacker-text file not found: {path}")
    texts = read_texts(path)
    if not has_aligned_words(texts):  # counted once, by the attack
        raise InputError(f"{path} has no words for the attacker's prior")
    return texts


def _name_spans(path: str, texts: list[str]) -> list[list[tuple[int, int, str]]]:
    """Name spans per text from a spans.jsonl file whose records are the input's texts in order
    (spans of other labels, any label, are read and left out, as evaluate-detection reads them)."""
    records = read_span_records(path, any_label=True)
    if len(records) != len(texts):
        raise InputError(f"{path} has {counted(len(records), 'record')}; the input has "
                         f"{counted(len(texts), 'text')}")
    out = []
    for n, (record, text) in enumerate(zip(records, texts, strict=True), 1):
        if record["text"] != text:
            raise InputError(f"{path}: record {n} is not the input's text {n}")
        out.append([(s["start"], s["end"], str(s.get("group", "unknown")))
                    for s in record["spans"] if s.get("label") == "NAME"])
    return out


def format_figures(figures: PrivacyFigures) -> list[str]:
    """Lines of the attack figures (counts and rates only)."""
    f = figures.as_dict()

    def topk(d: dict[str, Any]) -> str:
        return f"top-1 {_rate(d.get('top1', float('nan')))}, top-5 {_rate(d.get('top5', float('nan')))}"

    lines = [
        f"public-prior attack:  {topk(f['public_prior'])}  ({f['invocab_tokens']} in-embedding word tokens; "
        f"{'exact' if f['exact'] else 'lower bound'})",
        f"uniform / oracle:     {topk(f['uniform_prior'])} / {topk(f['oracle_prior'])}",
        *([f"release-fitted prior: {topk(f['release_prior'])}  (EM on the released words alone)"]
          if f.get("release_prior") else []),
        f"out-of-vocabulary:    {topk(f['oov'])}  "
        f"({counted(f['oov']['tokens'], 'token')} through their proxies; {f['oov_in_dictionary']} "
        f"in the attacker's vocabulary)",
    ]
    if f.get("record_pooled") and f.get("oov_record_pooled"):
        fitted = (f" / release-fitted {topk(f['release_record_pooled'])}"
                  if f.get("release_record_pooled") else "")
        lines.append(f"record-pooled:        {topk(f['record_pooled'])}{fitted} / out-of-vocabulary "
                     f"{topk(f['oov_record_pooled'])}  (each record's released words read together)")
    if f.get("domain_prior"):
        lines += [
            f"domain prior:         {topk(f['domain_prior'])}  (public list and --attacker-text, half each)",
            f"out-of-vocab, domain: {topk(f['oov_domain'])}  ({f['oov_domain_in_dictionary']} of "
            f"{counted(f['oov_domain']['tokens'], 'token')} in the attacker's vocabulary)",
        ]
        if f.get("domain_record_pooled") and f.get("oov_domain_record_pooled"):
            lines.append(f"record-pooled, domain: {topk(f['domain_record_pooled'])} / out-of-vocabulary "
                         f"{topk(f['oov_domain_record_pooled'])}")
    if f.get("contextual_domain"):
        lines.append(f"contextual, domain:   top-1 {_rate(f['contextual_domain']['contextual_top1'])} "
                     "(the domain prior and bigrams of --attacker-text, forward-backward)")
    if f.get("contextual_oov_domain"):
        lines.append(f"rare words in context: top-1 {_rate(f['contextual_oov_domain']['contextual_top1'])} "
                     f"of {counted(f['contextual_oov_domain']['tokens'], 'token')} (the same, over the "
                     "out-of-vocabulary domain vocabulary)")
    if f["contextual"]:
        c = f["contextual"]
        lines.append(f"contextual attack:    top-1 {_rate(c['contextual_top1'])} (Viterbi "
                     f"{_rate(c['viterbi_top1'])}, context-free {_rate(c['context_free_top1'])}; public "
                     "bigrams, forward-backward)")
    for r in f["releases"]:
        lines.append(f"after {r['releases']} release(s):   unique recovery {_rate(r['unique_recovery'])}, "
                     f"top-1 {_rate(r['top1'])}, majority vote {_rate(r['majority_top1'])}")
    confirmation = f.get("name_confirmation")
    if confirmation and confirmation["names"]:
        lines.append(f"name confirmation:    AUC {_rate(confirmation['auc'])} (which of two names: "
                     f"{confirmation['names']} names from the {confirmation['source']}, "
                     f"{confirmation['decoys']} other names each; 0.5: chance)")
    for n in f["names"]:
        verbatim = f" ({n['verbatim']} released unchanged: read, not guessed)" if n.get("verbatim") else ""
        lines.append(f"names ({n['group']}):{' ' * max(1, 12 - len(n['group']))}top-1 {_rate(n['top1'])}, "
                     f"top-10 {_rate(n['top10'])} of {n['tokens']} name tokens{verbatim}")
    return lines


def _rate(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.3f}"


def format_report(report: PrivacyReport, counts: ReleaseCounts | None = None, *,
                  releases: int = 1, longest_record: int | None = None) -> list[str]:
    """Lines of the report (counts and rates only).

    Args:
        report: the figures; ``report.change`` is the release's.
        counts: what released each word token (default: plain full scope, every word through the
            mechanism).
        releases: independent releases of the input (``--releases N --fresh-key``: N; under one
            key N releases are one text: 1). Each spends epsilon again (basic composition).
        longest_record: word parts the mechanism replaced in the longest record, all its texts
            (fields) together (None: one text per record, the longest document).
    """
    c = report.change
    counts = _full_scope_counts(report) if counts is None else counts
    scoped = counts.mechanism_words != c.word_tokens
    words = "word parts the mechanism replaced" if scoped else "word parts the mechanism replaces"
    if report.epsilon is None:
        spent = f"not applicable: {report.mechanism} is not differentially private (no epsilon)"
    else:
        e, m, longest = report.epsilon, counts.mechanism_parts, counts.longest_parts
        record = longest if longest_record is None else longest_record
        spent = (f"n x epsilon for a document of n {words} (epsilon = {e:g} per part; 'well-known' "
                 f"is 2 parts); longest document: {longest} x {e:g} = {amount(longest * e)}; whole input: "
                 f"{m} x {e:g} = {amount(m * e)}")
        if record != longest:
            spent += (f"; longest record (its fields together): {record} x {e:g} = {amount(record * e)}")
        if releases > 1:
            unit = "document" if record == longest else "record"
            spent += (f"; {releases} releases with fresh noise spend {releases} times that: longest "
                      f"{unit} {releases} x {record} x {e:g} = {amount(releases * record * e)}, "
                      f"whole input {releases} x {m} x {e:g} = {amount(releases * m * e)}")
        if counts.verbatim_words or counts.other_words:
            spent += "; the other words have no epsilon"
        plain = epsilon_sentences(e, longest_parts=record, scope_all=not scoped)
        spent += f"\nepsilon in words:     {plain['per_word']}; {plain['note_500_words']}"
    released = ([f"released by:          mechanism {counts.mechanism_words}, unchanged (verbatim) "
                 f"{counts.verbatim_words}, surrogate, redaction or name guard {counts.other_words} "
                 f"of {c.word_tokens} word tokens"] if scoped else [])
    of = ", mechanism words only" if scoped else ""
    attack = []
    a, b = report.attack_uniform, report.attack_corpus
    if a is not None and b is not None:
        attack = [f"attack top-1 success: {_rate(a.rate(1))} uniform prior, {_rate(b.rate(1))} corpus "
                  f"prior  ({a.tokens} in-embedding word tokens; {report.attack_method})"]
    return [
        f"mechanism:            {report.mechanism}",
        f"documents:            {report.documents}",
        f"tokens:               {c.tokens}  (not counting whitespace)",
        f"word tokens:          {c.word_tokens}",
        f"change rate:          {_rate(c.change_rate)}  "
        f"({c.changed_words} of {c.word_tokens} word tokens changed)",
        *released,
        f"N_w:                  {_rate(report.n_w_mean)}  "
        f"(mean fraction unchanged; {report.stats_words} word types x {report.draws} draws{of})",
        f"S_w:                  {'n/a' if math.isnan(report.s_w_mean) else f'{report.s_w_mean:.1f}'}"
        f"  (mean distinct outputs in {report.draws} draws)",
        *attack,
        f"epsilon spent:        {spent}",
    ]
