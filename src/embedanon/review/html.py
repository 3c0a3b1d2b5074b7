"""Render a :class:`~embedanon.review.model.Review` as one self-contained HTML page.

The page needs nothing but itself: style sheet and script are inline and allowed by a
Content-Security-Policy that names their SHA-256 hashes and forbids everything else (no network,
no other script, no inline handlers), so even text that slipped past escaping could not run.
Every piece of text goes through :func:`html.escape`. Replacements are shown only in the
side-by-side panes, each as a colored span whose tooltip gives its kind and stage; the page has
no table of originals and their replacements.
"""

from __future__ import annotations

import base64
import hashlib
import math
import os
import re
from collections.abc import Sequence
from html import escape
from typing import Any

from .. import __version__
from .._atomic import OutputError, atomic_write, is_stream, regular_target
from ..privacy.metrics import scan
from ..text import lookup_key
from .assets import CSS, JS, KIND_COLORS, LABEL_PALETTE, UNKNOWN_COLOR
from .model import Review, ReviewRecord, ReviewText, label_of
from .svg import GROUP_COLORS, Bar, column_bars, rate_bars

STAGE_HELP = {
    "mechanism": "drawn by the mechanism",
    "fallback": "outside the embedding and not placeable: a uniformly random candidate",
    "guard": "leak guard redrew a variant of the original",
    "codes": "every digit and letter replaced, shape kept",
    "surrogate": "a fake value of the same category",
    "redact": "removed",
}
Group = tuple[str, str, str | None]  # (kind, stage, label)


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


#: Characters that reorder or hide text without being seen: bidirectional embeddings, overrides,
#: isolates and marks, and zero-width characters. Shown as ``\u202e`` escapes in names.
_INVISIBLE = re.compile("[\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]")


def _spelled(value: Any) -> str:
    """``value`` with each invisible control written as its ``\\uXXXX`` escape."""
    return _INVISIBLE.sub(lambda m: f"\\u{ord(m.group()):04x}", str(value))


def _name(value: Any) -> str:
    """A file or field name, escaped, invisible controls spelled out, isolated from its
    neighbors (``<bdi>``) so it cannot reorder the text around it."""
    return f"<bdi>{_e(_spelled(value))}</bdi>"


def _pct(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{100 * value:.1f}%"


def _num(value: float | int) -> str:
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:g}"


def _csp_hash(source: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode() + "'"


class _Groups:
    """Legend groups (kind, stage, label) in a stable order, each with an index and colors."""

    def __init__(self, review: Review) -> None:
        counts = review.item_counts()
        self.counts = counts
        self.order: list[Group] = sorted(counts, key=lambda g: (g[0], g[1], g[2] or ""))
        self.index = {g: i for i, g in enumerate(self.order)}
        labels = sorted({g[2] for g in self.order if g[2]})
        self.label_colors = {lab: LABEL_PALETTE[i % len(LABEL_PALETTE)] for i, lab in enumerate(labels)}

    def colors(self, group: Group) -> tuple[str, str]:
        kind, stage, label = group
        if label:
            return self.label_colors[label]
        k, s = _slug(kind), _slug(stage)
        return KIND_COLORS.get(f"k-{k}.s-{s}") or KIND_COLORS.get(f"k-{k}") or UNKNOWN_COLOR

    def css(self) -> str:
        rules = []
        for group, i in self.index.items():
            bg, accent = self.colors(group)
            rules.append(f'.it[data-g="{i}"]{{background:{bg};border-bottom-color:{accent}}}'
                         f'.sw[data-g="{i}"]{{background:{bg};border-color:{accent}}}')
        return "\n".join(rules)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-") or "x"


def _tooltip(group: Group, same: bool) -> str:
    kind, stage, label = group
    parts = [f"kind: {kind}", f"stage: {stage}"]
    if label:
        parts.append(f"label: {label}")
    if same:
        parts.append("unchanged by the mechanism")
    return " \u00b7 ".join(parts)


def _panes(rec: ReviewRecord, t_index: int, text: ReviewText, groups: _Groups) -> str:
    doc, original = text.document, text.original
    _, _, kept = scan(original, doc)
    orig_marks: list[tuple[int, int, str, str]] = []
    new_marks: list[tuple[int, int, str, str]] = []
    items = list(doc.items)
    for n, item in enumerate(items):
        group = (str(item.kind), str(item.stage), label_of(item))
        old, new = original[item.start:item.end], doc.text[item.new_start:item.new_end]
        same = bool(old) and lookup_key(old) == lookup_key(new)
        base = (f'it k-{_slug(group[0])} s-{_slug(group[1])}' + (" same" if same else ""))
        attrs = (f'data-g="{groups.index[group]}" data-i="{rec.number}-{t_index}-{n}" '
                 f'title="{_e(_tooltip(group, same))}"')
        for marks, a, b in ((orig_marks, item.start, item.end), (new_marks, item.new_start, item.new_end)):
            cls = base + (" zero" if a == b else "")
            marks.append((a, b, f'<span class="{cls}" {attrs}>', "</span>"))
    # A kept token lies between two items, where both texts are equal: shift it by the offset
    # difference of the item before it.
    delta, k = 0, 0
    for start, end in kept:
        while k < len(items) and items[k].end <= start and items[k].start < start:
            delta = items[k].new_end - items[k].end
            k += 1
        tag = '<span class="kept" title="kept verbatim: no item covers this token">'
        orig_marks.append((start, end, tag, "</span>"))
        new_marks.append((start + delta, end + delta, tag, "</span>"))
    return (f'<div class="pair"><div class="pane orig"><div class="pane-title">Original</div>'
            f'{_marked(original, orig_marks)}</div><div class="pane anon"><div class="pane-title">'
            f'Anonymized</div>{_marked(doc.text, new_marks)}</div></div>')


def _marked(text: str, marks: list[tuple[int, int, str, str]]) -> str:
    if not text:
        return '<div class="text empty-text">(empty)</div>'
    marks.sort(key=lambda m: (m[0], m[1]))
    out, pos = [], 0
    for start, end, open_tag, close_tag in marks:
        out.append(escape(text[pos:start]))
        out.append(open_tag + escape(text[start:end]) + close_tag)
        pos = end
    out.append(escape(text[pos:]))
    # <bdi>: bidirectional controls in the text (evidence, shown as it is) reorder only the text.
    return '<div class="text"><bdi>' + "".join(out) + "</bdi></div>"


def _record(rec: ReviewRecord, groups: _Groups, named_fields: bool) -> str:
    stats = rec.stats
    unchanged = sum(
        1 for t in rec.texts for it in t.document.items
        if it.end > it.start and lookup_key(t.original[it.start:it.end]) ==
        lookup_key(t.document.text[it.new_start:it.new_end]))
    chips = [f'<span class="chip rate">change rate {_pct(stats.change_rate)}</span>',
             f'<span class="chip">{stats.changed:,} of {stats.words:,} words changed</span>',
             f'<span class="chip">{stats.items:,} replaced spans</span>']
    if unchanged:
        chips.append(f'<span class="chip alert">{unchanged:,} unchanged by the mechanism</span>')
    if stats.kept:
        chips.append(f'<span class="chip alert">{stats.kept:,} tokens kept verbatim</span>')
    body = []
    for i, text in enumerate(rec.texts):
        fname = (f'<div class="fname">field <code>{_name(text.field)}</code> \u00b7 change rate '
                 f'{_pct(text.stats.change_rate)}</div>' if named_fields else "")
        body.append(f'<div class="field">{fname}{_panes(rec, i, text, groups)}</div>')
    return (f'<article class="record" id="record-{rec.number}" data-number="{rec.number}" '
            f'data-rate="{_e(_pct(stats.change_rate))}"><header><h3>Record {rec.number:,}</h3>'
            f'{"".join(chips)}</header>{"".join(body)}</article>')


def _card(label: str, value: str, detail: str = "") -> str:
    return (f'<div class="card"><div class="l">{_e(label)}</div><div class="v">{_e(value)}</div>'
            f'<div class="d">{_e(detail)}</div></div>')


def _cards(review: Review) -> str:
    stats, s = review.stats, review.settings
    shown = len(review.records)
    reviewable = review.records_total - review.empty_records
    population = (f"of {review.records_total:,} records, uniform sample" if shown < reviewable
                  else f"of {review.records_total:,} records (all)")
    if review.empty_records:
        population += f"; {review.empty_records:,} empty"
    params = ", ".join(f"{n} = {_num(v) if isinstance(v, int | float) else v}" for n, v in s.params)
    cards = [
        _card("Records shown", f"{shown:,}", population),
        _card("Change rate", _pct(stats.change_rate), f"{stats.changed:,} of {stats.words:,} word tokens"),
        _card("Replaced spans", f"{stats.items:,}", f"{stats.kept:,} tokens kept verbatim"),
        _card("Mechanism", s.mechanism, params or "no parameters"),
    ]
    if review.scope:
        r = review.release
        cards.append(_card("Scope", review.scope, "no records" if r is None else
                           f"word tokens: {r.mechanism_words:,} by the mechanism, {r.verbatim_words:,} "
                           f"unchanged (verbatim), {r.other_words:,} surrogate or redaction"))
    if s.epsilon is not None:
        spent = review.epsilon_spent or 0.0
        cards.append(_card("Differential privacy", f"\u03b5 = {s.epsilon:g} per word",
                           f"longest record {review.longest_record_draws:,} word parts drawn: "
                           f"n\u00b7\u03b5 = {spent:g} spent" + ("" if review.release is None else
                                                             " at most")))
    else:
        cards.append(_card("Differential privacy", "no \u03b5",
                           f"{s.mechanism} has no differential-privacy guarantee"))
    return '<div class="cards">' + "".join(cards) + "</div>"


def _settings(review: Review) -> str:
    s = review.settings
    key = {"file": "release key file", "default": "your default release key",
           "seed": "derived from --seed (experiments only)",
           "fresh": "a fresh key (--fresh-key, not saved)"}.get(s.key_origin, s.key_origin)
    key_note = {
        "seed": "A seed can be guessed and the noise replayed: never release with --seed.",
        "fresh": "This page shows one possible release; the file you publish differs unless it "
                 "is made with the same --key.",
    }.get(s.key_origin, "The same key and input give the same release and the same sample.")
    rows = [
        ("Input", f"<code>{_name(review.input_name)}</code> ({_e(review.format)})"),
        ("Fields", ", ".join(f"<code>{_name(f)}</code>" for f in review.fields) or "every line"),
        ("Mechanism", f"<code>{_e(s.mechanism)}</code>"),
        *([("Scope", f"<code>{_e(review.scope)}</code>")] if review.scope else []),
        ("Parameters", ", ".join(f"{_e(n)} = <code>{_e(v)}</code>" for n, v in s.params) or "none"),
        ("Embedding", f"<code>{_name(s.embedding)}</code>"),
        ("Key", f"{_e(key)}, fingerprint <code>{_e(s.key_fingerprint)}</code>"
                f'<div class="note{"" if s.key_origin in ("file", "default") else " warn"}">'
                f"{_e(key_note)}</div>"),
        ("Configuration digest", f"<code>{_e(s.digest)}</code>"),
        ("Sample", _e(f"{len(review.records):,} of {review.records_total:,} records "
                      f"(requested {'all' if review.requested == 0 else review.requested}), drawn "
                      "uniformly with the key's own sampling stream"
                      + (f"; {review.empty_records:,} empty records are not shown"
                         if review.empty_records else ""))),
    ]
    if s.epsilon is not None:
        rows.append(("\u03b5 spent", _e(
            f"{s.epsilon:g} per word part the mechanism replaces (well-known: 2); a record of n "
            f"such parts spends n\u00b7\u03b5; the longest record of the input has "
            f"{review.longest_record_draws:,}: {review.epsilon_spent or 0.0:g}"
            + ("" if review.release is None else " at most (outside full scope only some parts are "
               "drawn by the mechanism)"))))
    body = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<div class="panel"><h2>Settings</h2><table>{body}</table></div>'


def _legend(groups: _Groups) -> str:
    rows = []
    for group in groups.order:
        i = groups.index[group]
        kind, stage, label = group
        what = STAGE_HELP.get(stage, "")
        rows.append(
            f'<tr><td><label><input type="checkbox" checked disabled data-group="{i}">'
            f'<span class="sw" data-g="{i}"></span></label></td><td><code>{_e(kind)}</code></td>'
            f'<td><code>{_e(stage)}</code>{f" <code>{_e(label)}</code>" if label else ""}'
            f'<div class="note">{_e(what)}</div></td><td class="n">{groups.counts[group]:,}</td></tr>')
    if not rows:
        rows.append('<tr><td colspan="4">No replaced spans in the sample.</td></tr>')
    return ('<div class="panel legend"><h2>Replaced spans by kind and stage</h2><table><tr><th>show</th>'
            '<th>kind</th><th>stage</th><th>spans</th></tr>' + "".join(rows) + '</table>'
            '<p class="note"><span class="kept">wavy underline</span>: a token kept verbatim; '
            'dashed outline: a span the mechanism left unchanged (metric DP may do so, by design).</p>'
            '<p class="note" id="js-status"></p></div>')


def _figures(review: Review) -> str:
    stats = review.stats
    bars = [Bar("change rate (word tokens changed)", stats.change_rate, "change",
                detail=f"{stats.changed} of {stats.words}")]
    bars += [Bar(f.name, f.value, f.group, detail=f"{f.tokens} tokens" if f.tokens else "")
             for f in review.figures]
    chart = rate_bars(bars, title="Privacy figures of the sample") + (
        '<p class="note legend-line"><span class="dot" data-c="change"></span>change '
        '<span class="dot" data-c="mechanism"></span>mechanism statistics '
        '<span class="dot" data-c="attack"></span>attacks (share of words recovered)</p>')
    rows = "".join(
        f"<tr><td>{_e(f.name)}</td><td class=\"n\">{_pct(f.value)}</td><td class=\"n\">"
        f"{f.tokens:,}</td><td>{_e(f.note)}</td></tr>" for f in review.figures)
    table = ('<table><tr><th>figure</th><th>rate</th><th>tokens</th><th>how to read it</th></tr>'
             + rows + "</table>") if rows else ""
    notes = "".join(f'<p class="note warn">{_e(n)}</p>' for n in review.notes)
    return ('<div class="panel"><h2>Privacy figures</h2>' + chart + table +
            f'<p class="note">Measured on the {len(review.records):,} records shown. Attack rates '
            "are the share of word tokens whose original an attacker recovers (lower is better); "
            "N_w is the share of draws returning the word itself.</p>" + _released_by(review) + notes
            + "</div>")


def _released_by(review: Review) -> str:
    """Outside plain full scope: who released the sample's words, and privacy-report's warnings."""
    if not review.scope:
        return ""
    r = review.release
    counts = "" if r is None else (
        f" Released by: mechanism {r.mechanism_words:,}, unchanged (verbatim) {r.verbatim_words:,}, "
        f"surrogate or redaction {r.other_words:,} of {r.change.word_tokens:,} word tokens. N_w and the "
        f"attack rates cover only the {r.mechanism_words:,} word tokens the mechanism released (n/a "
        "when it released none); the change rate covers them all.")
    warnings = "".join(f'<p class="note warn">warning: {_e(w)}</p>' for w in review.warnings)
    return f'<p class="note">Scope <code>{_e(review.scope)}</code>.{_e(counts)}</p>' + warnings


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
    groups = _Groups(review)
    css = CSS + groups.css() + "\n" + "".join(
        f'.dot[data-c="{group}"]{{background:{color}}}' for group, color in GROUP_COLORS.items())
    csp = (f"default-src 'none'; style-src {_csp_hash(css)}; script-src {_csp_hash(JS)}; "
           "img-src 'none'; font-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'")
    named = review.format != "txt"
    records = "".join(_record(r, groups, named) for r in review.records)
    if not records:
        records = '<div class="panel">The input has no records to show.</div>'
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_e(csp)}">'
        '<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex, nofollow">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>ORIGINAL TEXT \u2014 embedanon review of {_e(_spelled(review.input_name))}</title>"
        f"<style>{css}</style></head><body>"
        '<div class="banner" id="banner" role="alert"><span class="sign">ORIGINAL TEXT</span>'
        f"<p><strong>Confidential: not anonymized.</strong> {_e(BANNER)}</p></div>"
        '<div class="wrap"><div class="top"><div><h1>Release review</h1>'
        f'<div class="sub"><code>{_name(review.input_name)}</code> \u00b7 {len(review.records):,} of '
        f"{review.records_total:,} records \u00b7 mechanism <code>{_e(review.settings.mechanism)}</code>"
        f"</div></div><div class=\"sub\">generated {_e(review.generated)}</div></div>"
        f"{_cards(review)}<div class=\"grid2\">{_settings(review)}{_legend(groups)}</div>"
        f"{_figures(review)}{_per_record(review)}"
        f'<nav id="record-nav" aria-label="records"></nav><section class="records">{records}</section>'
        f"<footer>embedanon {_e(__version__)} \u00b7 review page \u00b7 contains original text: "
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
    with atomic_write(os.fspath(path), private=True) as fh:
        fh.write(page)


def check_target(path: str | os.PathLike[str]) -> None:
    """Refuse, before any work, a target the page must not go to: standard output, a special
    file (device, FIFO, ``/dev/stdout``) or a path that cannot be a regular file.

    Raises:
        OutputError: with one line naming the problem.
    """
    text = os.fspath(path)
    if text == "-" or (text and is_stream(text)):
        raise OutputError("the review page contains original text and is written to a regular "
                          "file only, not to standard output or a special file")
    regular_target(text, stream_ok=False)


def summary_lines(review: Review) -> Sequence[str]:
    """Counts only (for ``-v`` on stderr): never text."""
    stats = review.stats
    lines = [f"review: {len(review.records)} of {review.records_total} records, "
             f"{stats.words} words, change rate {_pct(stats.change_rate)}, {stats.items} spans"]
    if review.release is not None:
        r = review.release
        lines.append(f"review: scope {review.scope}, released by: mechanism {r.mechanism_words}, unchanged "
                     f"(verbatim) {r.verbatim_words}, surrogate or redaction {r.other_words} of "
                     f"{r.change.word_tokens} word tokens")
    return lines
