"""Render a :class:`~embedanon.review.model.Review` as one self-contained HTML page.

The page needs nothing but itself: style sheet and script are inline and allowed by a
Content-Security-Policy that names their SHA-256 hashes and forbids everything else (no network,
no other script, no inline handlers), so even text that slipped past escaping could not run.
Every piece of text goes through :func:`html.escape`.

From the top: the privacy verdict with the settings, a few figures, the list of unchanged words
that look like personal data (with links to where they occur), settings and legend, and the
records side by side (:mod:`.panes`), where only detected spans and those look-alikes are marked.
The page has no table of originals and their replacements: the look-alike list names words the
release kept as they were, which the release itself shows.
"""

from __future__ import annotations

import base64
import hashlib
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from .._atomic import atomic_write, private_target
from ..compressed import by_name, strip_suffix
from ..errors import ConfigError
from ..io import DATA_SUFFIXES
from ..privacy.verdict import Check, shown
from .assets import CSS, JS, LABEL_PALETTE
from .lookalike import KINDS
from .model import Review, label_of
from .panes import attr, detected_items, field_name, percent, record_html, slug, spelled
from .sample import MAX_SAMPLE
from .svg import Bar, column_bars

#: The figures a page shows as cards when measured (verdict keys), after the change rate.
CARD_FIGURES = ("attack_contextual_top1", "attack_public_top1", "attack_oov_top1", "n_w")


def _num(value: float | int) -> str:
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:g}"


def _csp_hash(source: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode() + "'"


class _Labels:
    """Detector labels of the sample in a stable order, each with an index and colors."""

    def __init__(self, review: Review) -> None:
        counts: Counter[str] = Counter()
        for record in review.records:
            for text in record.texts:
                counts.update(str(label_of(item)) for _, item in detected_items(text))
        self.counts = counts
        self.order = sorted(counts)
        self.index = {label: i for i, label in enumerate(self.order)}

    def css(self) -> str:
        rules = []
        for i in self.index.values():
            bg, accent = LABEL_PALETTE[i % len(LABEL_PALETTE)]
            rules.append(f'.it[data-l="{i}"]{{background:{bg};border-bottom-color:{accent}}}'
                         f'.sw[data-l="{i}"]{{background:{bg};border-color:{accent}}}')
        return "\n".join(rules)


def _value(check: Check) -> str:
    value = check.value
    if value is None:
        return "n/a"
    figure = check.figure.split(":", 1)[0]
    if figure in AUC_FIGURES:
        return shown(value, check.threshold)
    if figure in COUNT_FIGURES:
        return f"{value:g}"
    return shown(value, check.threshold, scale=100, digits=1, unit="%")


def _threshold(check: Check) -> str:
    """The threshold in the unit of :func:`_value`: a rate's limit as a percentage."""
    figure, threshold = check.figure.split(":", 1)[0], check.threshold
    if figure in COUNT_FIGURES or figure in AUC_FIGURES:
        return threshold.describe()
    return f"{'<=' if threshold.at_most else '>='} {100 * threshold.limit:g}%"


#: Verdict figures that are counts or epsilons, not rates.
COUNT_FIGURES = frozenset({"s_w", "epsilon_record"})
#: Verdict figures that are areas under a curve (0.5: chance), not rates: shown as decimals.
AUC_FIGURES = frozenset({"name_confirmation_auc", "membership_auc"})


def _pct(value: float) -> str:
    return percent(value)


def _settings_line(review: Review) -> str:
    s = review.settings
    params = ", ".join(f"{n} = {_num(v) if isinstance(v, int | float) else v}" for n, v in s.params)
    key = {"file": "release key", "default": "default release key", "seed": "--seed (experiments only)",
           "fresh": "a fresh key"}.get(s.key_origin, s.key_origin)
    parts = [f"mechanism <code>{attr(s.mechanism)}</code>" + (f" ({attr(params)})" if params else ""),
             f"scope <code>{attr(review.scope or 'all')}</code>",
             f"embedding <code>{field_name(s.embedding)}</code>",
             f"{attr(key)} <code>{attr(s.key_fingerprint)}</code>",
             f"configuration <code>{attr(s.digest)}</code>"]
    return '<p class="settings-line">' + " \u00b7 ".join(parts) + "</p>"


def _verdict(review: Review) -> str:
    verdict = review.verdict
    shown = len(review.records)
    head = f"Measured on the {shown:,} records shown"
    if review.max_chars and any(t.truncated for r in review.records for t in r.texts):
        head += f" (texts longer than {review.max_chars:,} characters: their start only)"
    notes = "".join(f'<p class="note warn">{attr(n)}</p>' for n in review.notes)
    if verdict is None:
        return ('<section class="panel verdict v-na" id="verdict"><h2>Privacy verdict</h2>'
                '<div class="verdict-head"><span class="badge">NOT JUDGED</span><span class="summary">'
                "this embedanon has no privacy verdict; the figures are below</span></div>"
                f"{_settings_line(review)}{_figure_table(review)}<p class=\"note\">{attr(head)}.</p>"
                f"{_released_by(review)}{notes}</section>")
    status = str(verdict.status)

    def table(checks: list[Check]) -> str:
        rows = []
        for check in checks:
            st = str(check.status)
            rows.append(
                f'<tr class="c-{slug(st)}"><td><span class="st st-{slug(st)}">{attr(st.upper())}</span></td>'
                f"<td>{attr(check.label)}</td><td class=\"n\">{attr(_value(check))}</td>"
                f'<td class="n">{attr(_threshold(check))}</td>'
                f"<td class=\"remedy\">{attr(_remedy(check))}</td></tr>")
        return ('<table class="checks"><tr><th>verdict</th><th>figure</th><th>measured</th><th>threshold</th>'
                "<th>what moves it</th></tr>" + "".join(rows) + "</table>")

    # what fails first, with what moves it; the rest one click away (in the verdict's order)
    failed = [c for c in verdict.checks if c.status in ("fail", "unsure")]
    others = [c for c in verdict.checks if c.status not in ("fail", "unsure")]
    passed = sum(1 for c in others if c.status == "pass")
    rest = ""
    if others:
        what = (f"{passed:,} figure meets its threshold" if passed == 1
                else f"{passed:,} figures meet their thresholds")
        if len(others) > passed:
            what += f", {len(others) - passed:,} not measured (n/a)"
        rest = f'<details class="passed"><summary>{attr(what)}</summary>{table(others)}</details>'
    return (f'<section class="panel verdict v-{slug(status)}" id="verdict"><h2>Privacy verdict</h2>'
            f'<div class="verdict-head"><span class="badge">{attr(status.upper())}</span>'
            f'<span class="summary">{attr(verdict.summary())}</span></div>{_settings_line(review)}'
            f"{table(failed) if failed else ''}{rest}"
            f'<p class="note">{attr(head)}. Thresholds are the documented defaults of '
            "<code>privacy-report</code> (<code>--threshold FIGURE=LIMIT</code> changes one); "
            "attack rates are the share of word tokens an attacker recovers.</p>"
            f"{_released_by(review)}{notes}</section>")


def _remedy(check: Check) -> str:
    """What moves a failing figure; for an unsure one, its sample and interval."""
    if check.status == "fail":
        return check.threshold.remedy
    if check.status == "unsure" and check.interval is not None:
        low, high = check.interval
        return (f"measured on {check.samples}: 95 % interval {low:.3f}-{high:.3f} reaches past the limit; "
                "measure more text")
    return ""


def _figure_table(review: Review) -> str:
    """Without a verdict: every measured figure, plainly."""
    rows = "".join(
        f"<tr><td>{attr(f.name)}</td><td class=\"n\">{_pct(f.value) if f.rate else _num(f.value)}</td>"
        f"<td class=\"n\">{f.tokens:,}</td><td>{attr(f.note)}</td></tr>" for f in review.figures)
    if not rows:
        return ""
    return ('<table><tr><th>figure</th><th>value</th><th>tokens</th><th>how to read it</th></tr>'
            + rows + "</table>")


def _card(label: str, value: str, detail: str = "", cls: str = "") -> str:
    return (f'<div class="card{" " + cls if cls else ""}"><div class="l">{attr(label)}</div>'
            f'<div class="v">{attr(value)}</div><div class="d">{attr(detail)}</div></div>')


def _cards(review: Review) -> str:
    stats, s = review.stats, review.settings
    shown = len(review.records)
    reviewable = review.records_total - review.empty_records
    population = (f"of {review.records_total:,} records, uniform sample" if shown < reviewable
                  else f"of {review.records_total:,} records (all)")
    cards = [_card("Records shown", f"{shown:,}", population),
             _card("Change rate", _pct(stats.change_rate),
                   f"{stats.changed:,} of {stats.words:,} word tokens")]
    by_key = {f.key: f for f in review.figures if f.key}
    for key in CARD_FIGURES:
        figure = by_key.get(key)
        if figure is not None and len(cards) < 5:
            detail = f"{figure.tokens:,} tokens" if figure.tokens else ""
            value = _pct(figure.value) if figure.rate else _num(figure.value)
            cards.append(_card(figure.name, value, detail))
    lookalikes = sum(len(t.lookalikes) for r in review.records for t in r.texts)
    cards.append(_card("Look-alikes to check", f"{lookalikes:,}",
                       "unchanged words that look like personal data", "alert" if lookalikes else ""))
    if s.epsilon is not None:
        cards.append(_card("\u03b5 per record", ("at most " if review.draws_bound else "")
                           + f"{review.epsilon_spent or 0.0:g}", f"{s.epsilon:g} per word; longest record "
                           f"{review.longest_record_draws:,} word parts"))
    return '<div class="cards">' + "".join(cards) + "</div>"


#: The most words the look-alike list shows, and records linked per word.
MAX_LOOKALIKE_ROWS = 300
MAX_PLACES = 12


def _lookalikes(review: Review) -> str:
    rows = review.lookalike_rows()
    total = sum(len(r.places) for r in rows)
    # the list has a row per word; a bare count of occurrences over fewer rows read as rows missing
    counted = f"{len(rows):,} {'word' if len(rows) == 1 else 'words'}, {total:,} " \
              f"{'occurrence' if total == 1 else 'occurrences'}" if rows else "none"
    title = f"Unchanged words that look like personal data ({counted})"
    if not rows:
        return (f'<section class="panel" id="lookalikes"><h2>{title}</h2><p class="note">None in the '
                "records shown: no name-like word outside the vocabulary, number, code, e-mail address "
                "or URL was released unchanged.</p></section>")
    body = []
    for row in rows[:MAX_LOOKALIKE_ROWS]:
        # one link per record (to its first occurrence there), with how often it occurs in it
        per_record: dict[int, list[tuple[int, int]]] = {}
        for number, t, n in row.places:
            per_record.setdefault(number, []).append((t, n))
        links = " ".join(
            f'<a href="#la-{number}-{at[0][0]}-{at[0][1]}">{number:,}</a>'
            + (f'<span class="times">\u00d7{len(at)}</span>' if len(at) > 1 else "")
            for number, at in list(per_record.items())[:MAX_PLACES])
        more = len(per_record) - MAX_PLACES
        if more > 0:
            links += f' <span class="note">and {more:,} more records</span>'
        body.append(f'<tr><td><code class="word">{attr(spelled(row.word))}</code></td>'
                    f"<td>{attr(KINDS[row.kind])}</td><td class=\"n\">{len(row.places):,}</td>"
                    f'<td class="places">{links}</td></tr>')
    more_rows = len(rows) - MAX_LOOKALIKE_ROWS
    tail = (f'<p class="note">and {more_rows:,} more words, marked in the records below.</p>'
            if more_rows > 0 else "")
    return (f'<section class="panel" id="lookalikes"><h2>{title}</h2><p class="note">The release left '
            "these exactly as they were. Check each: a name, a date, a number or an address that "
            "identifies someone calls for another scope, a deny list or a detector option. They are "
            "outlined in red in the records (the links go there).</p><table><tr><th>word</th>"
            "<th>looks like</th><th>times</th><th>records</th></tr>" + "".join(body) + "</table>" + tail
            + "</section>")


def _requested(review: Review) -> str:
    """What the sample asked for; 'all' over more records than a page holds says the cap
    ('1,000 of 1,500 records (requested all)' read as records lost)."""
    if review.requested:
        return f"{review.requested:,}"
    capped = len(review.records) + review.empty_records < review.records_total
    return f"all, at most {MAX_SAMPLE:,} a page" if capped else "all"


def _settings(review: Review) -> str:
    s = review.settings
    key = {"file": "release key file", "default": "your default release key",
           "seed": "derived from --seed (experiments only)",
           "fresh": "a fresh key (--fresh-key, not saved)"}.get(s.key_origin, s.key_origin)
    key_note = {
        "seed": "A seed can be guessed and the noise replayed: never release with --seed.",
        "fresh": "This page shows one possible release; the file you publish differs unless it "
                 "is made with the same --key, and releases under fresh keys compose.",
    }.get(s.key_origin, "The same key and input give the same release and the same sample. A release "
                        "of the same data under another key is a second draw: the two together give "
                        "back more than either (they compose).")
    rows = [
        ("Input", f"<code>{field_name(review.input_name)}</code> ({attr(review.format)})"),
        ("Fields", ", ".join(f"<code>{field_name(f)}</code>" for f in review.fields) or "every line"),
        ("Mechanism", f"<code>{attr(s.mechanism)}</code>"),
        ("Scope", f"<code>{attr(review.scope or 'all')}</code>"),
        *((heading, attr(value)) for heading, value in s.detection),
        ("Parameters", ", ".join(f"{attr(n)} = <code>{attr(v)}</code>" for n, v in s.params) or "none"),
        ("Embedding", f"<code>{field_name(s.embedding)}</code>"),
        *((("Candidates", attr(s.vocabulary)),) if s.vocabulary else ()),
        ("Noise unit", attr("each record (--noise-unit record)" if s.noise_unit == "record" else
                            "each sentence (--noise-unit sentence): a sentence copied anywhere is "
                            "released the same way")),
        ("Key", f"{attr(key)}, fingerprint <code>{attr(s.key_fingerprint)}</code>"
                f'<div class="note{"" if s.key_origin in ("file", "default") else " warn"}">'
                f"{attr(key_note)}</div>"),
        ("Configuration digest", f"<code>{attr(s.digest)}</code>"),
        ("Sample", attr(f"{len(review.records):,} of {review.records_total:,} records "
                        f"(requested {_requested(review)}), drawn "
                        "uniformly with the key's own sampling stream"
                        + (f"; {review.empty_records:,} empty records are not shown"
                           if review.empty_records else ""))),
    ]
    if review.max_chars:
        rows.append(("Shown per text", attr(f"at most {review.max_chars:,} characters; a longer text is "
                                            "cut at a word boundary and marked truncated")))
    if s.epsilon is not None:
        rows.append(("\u03b5 spent", attr(
            f"{s.epsilon:g} per word part the mechanism replaces ('well-known' is 2 parts); a record of n "
            f"such parts spends n\u00b7\u03b5; the longest record of the input has "
            f"{review.longest_record_draws:,}: n\u00b7\u03b5 = {review.epsilon_spent or 0.0:g} spent"
            + (" at most (outside full scope only some parts are drawn by the mechanism; the page "
               "shows a sample, so it counts them all)" if review.draws_bound else ""))))
    body = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<div class="panel"><h2>Settings</h2><table>{body}</table></div>'


def _legend(labels: _Labels, review: Review) -> str:
    rows = []
    for label in labels.order:
        i = labels.index[label]
        rows.append(
            f'<tr><td><label><input type="checkbox" checked disabled data-label="{i}">'
            f'<span class="sw" data-l="{i}"></span></label></td><td><code>{attr(label)}</code>'
            f'<div class="note">detected: a surrogate or a redaction</div></td>'
            f'<td class="n">{labels.counts[label]:,}</td></tr>')
    kinds: Counter[str] = Counter(found.kind for r in review.records for t in r.texts
                                  for found in t.lookalikes)
    for kind in sorted(kinds):
        rows.append(f'<tr><td><span class="la-sw">abc</span></td><td>{attr(KINDS[kind])}'
                    f'<div class="note">released unchanged</div></td><td class="n">{kinds[kind]:,}</td></tr>')
    if not rows:
        rows.append('<tr><td colspan="3">Nothing marked in the sample: no detected span, no '
                    "look-alike.</td></tr>")
    return ('<div class="panel legend"><h2>What is marked in the records</h2><table><tr><th>mark</th>'
            "<th>what</th><th>spans</th></tr>" + "".join(rows) + "</table>"
            '<p class="note">Only detected spans and unchanged look-alikes are marked; every other word '
            "the release changed is plain text. Hover a mark to see its counterpart; untick a label to "
            'hide its color.</p><p class="note" id="js-status"></p></div>')


def _released_by(review: Review) -> str:
    """Outside plain full scope: who released the sample's words, and privacy-report's warnings."""
    if not review.scope:
        return ""
    r = review.release
    counts = "" if r is None else (
        f" Released by: mechanism {r.mechanism_words:,}, unchanged (verbatim) {r.verbatim_words:,}, "
        f"surrogate, redaction or name guard {r.other_words:,} of {r.change.word_tokens:,} word "
        "tokens. N_w and the "
        f"attack rates cover only the {r.mechanism_words:,} word tokens the mechanism released (n/a "
        "when it released none); the change rate covers them all.")
    warnings = "".join(f'<p class="note warn">warning: {attr(w)}</p>' for w in review.warnings)
    return f'<p class="note">Scope <code>{attr(review.scope)}</code>.{attr(counts)}</p>' + warnings


def _per_record(review: Review) -> str:
    bars = [Bar(str(r.number), r.stats.change_rate, "change", href=f"#record-{r.number}",
                detail=f"record {r.number}: {r.stats.changed} of {r.stats.words} words")
            for r in review.records]
    return ('<div class="panel"><h2>Change rate per record</h2>' +
            column_bars(bars, title="Change rate per record") + "</div>")


BANNER = ("This page contains the ORIGINAL text of the records shown, next to their anonymized "
          "release. Handle it like the source data: keep it where the source data is kept, do not "
          "e-mail, upload or print it, never share it with recipients of the release, and delete "
          "it after the review.")


def render_html(review: Review) -> str:
    """The page as one string (UTF-8 when written)."""
    labels = _Labels(review)
    css = CSS + labels.css() + "\n"
    csp = (f"default-src 'none'; style-src {_csp_hash(css)}; script-src {_csp_hash(JS)}; "
           "img-src 'none'; font-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'")
    named = review.format not in ("txt", "file")
    records = "".join(record_html(r, labels.index, named) for r in review.records)
    if not records:
        records = '<div class="panel">The input has no records to show.</div>'
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{attr(csp)}">'
        '<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex, nofollow">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>ORIGINAL TEXT \u2014 embedanon review of {attr(spelled(review.input_name))}</title>"
        f"<style>{css}</style></head><body>"
        '<div class="banner" id="banner" role="alert"><span class="sign">ORIGINAL TEXT</span>'
        f"<p><strong>Confidential: not anonymized.</strong> {attr(BANNER)}</p></div>"
        '<div class="wrap"><div class="top"><div><h1>Release review</h1>'
        f'<div class="sub"><code>{field_name(review.input_name)}</code> \u00b7 {len(review.records):,} of '
        f"{review.records_total:,} records \u00b7 mechanism <code>{attr(review.settings.mechanism)}</code>"
        f"</div></div><div class=\"sub\">generated {attr(review.generated)}</div></div>"
        f"{_verdict(review)}{_cards(review)}{_lookalikes(review)}"
        f"<div class=\"grid2\">{_settings(review)}{_legend(labels, review)}</div>{_per_record(review)}"
        f'<nav id="record-nav" aria-label="records"></nav><section class="records">{records}</section>'
        f"<footer>embedanon {attr(__version__)} \u00b7 review page \u00b7 contains original text: "
        "handle like the source data.</footer></div>"
        f"<script>{JS}</script></body></html>\n"
    )


def write_review(review: Review, path: str | os.PathLike[str]) -> None:
    """Write the page to ``path`` atomically, as a private file (mode 0600 when new).

    Raises:
        OutputError: ``path`` is standard output or a special file (the page holds original
            text and goes to a regular file only), or cannot be written.
    """
    check_target(path)
    page = render_html(review)
    with atomic_write(os.fspath(path), private=True, original=True) as fh:
        fh.write(page)


def check_target(path: str | os.PathLike[str], *, name: bool = True) -> None:
    """Refuse, before any work, a target the page must not go to: standard output, a special
    file (device, FIFO, ``/dev/stdout``) or a path that cannot be a regular file; and (``name``)
    one named as data (:func:`check_page_name`).

    Raises:
        OutputError: with one line naming the problem.
        ConfigError: see :func:`check_page_name`.
    """
    private_target(path, "the review page")
    if name:
        check_page_name(path)


def check_page_name(path: str | os.PathLike[str]) -> None:
    """Refuse a page name that says a data file (``-o notes.anon.csv``: a page of original text
    that could be taken for the release and sent with it) or a compressed one (written as plain
    HTML).

    Raises:
        ConfigError: with one line naming the problem.
    """
    name = os.fspath(path)
    kind, suffix = by_name(name), Path(strip_suffix(name)).suffix.lower()
    if kind is not None or suffix in DATA_SUFFIXES:  # anonymize's inputs and outputs
        said = f"compressed ({kind})" if kind is not None else f"a {suffix} data file"
        raise ConfigError(f"output {name} is named as {said}, but review writes an HTML page holding "
                          "the original text; name it .html")


def summary_lines(review: Review) -> Sequence[str]:
    """Counts only (for ``-v`` on stderr): never text."""
    stats = review.stats
    lines = [f"review: {len(review.records)} of {review.records_total} records, "
             f"{stats.words} words, change rate {_pct(stats.change_rate)}, {stats.items} spans"]
    if review.release is not None:
        r = review.release
        lines.append(f"review: scope {review.scope}, released by: mechanism {r.mechanism_words}, unchanged "
                     f"(verbatim) {r.verbatim_words}, surrogate, redaction or name guard {r.other_words} of "
                     f"{r.change.word_tokens} word tokens")
    return lines
