"""One record of the review page: original and release side by side, with only what matters marked.

Two things are marked, in both panes at the same characters:

* a **detected span** (an item with a detector label: a surrogate or a redaction), colored by its
  label, its tooltip giving label and stage;
* a **look-alike** (:mod:`~embedanon.review.lookalike`): an unchanged stretch that looks like
  personal data, outlined in red, with an anchor the page's look-alike list links to.

Every other replacement (the mechanism's words, random digits) is plain text: the reader's eye
goes to what may leak, and the page grows with the text, not with the number of words. Every
piece of text goes through :func:`html.escape`.
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

from ..text import lookup_key
from .lookalike import KINDS
from .model import ReviewRecord, ReviewText, label_of

Group = tuple[str, str, str | None]  # (kind, stage, label)
Mark = tuple[int, int, str, str]  # (start, end, opening tag, closing tag)


def attr(value: Any) -> str:
    """``value`` escaped for text or a quoted attribute (an unpaired surrogate, which UTF-8
    cannot hold, written as its ``\\udcff`` escape)."""
    return escape(_UNPAIRED.sub(_escaped, str(value)), quote=True)


def slug(text: str) -> str:
    """A class-name fragment of ``text``."""
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-") or "x"


def percent(value: float) -> str:
    """``12.3%`` (``n/a`` for nan)."""
    return "n/a" if value != value else f"{100 * value:.1f}%"


def detected_items(text: ReviewText) -> list[tuple[int, Any]]:
    """``(position, item)`` of the items of ``text`` with a detector label, in order."""
    return [(n, item) for n, item in enumerate(text.document.items) if label_of(item)]


def _tooltip(item: Any, same: bool) -> str:
    parts = [f"label: {label_of(item)}", f"kind: {item.kind}", f"stage: {item.stage}"]
    if same:
        parts.append("released unchanged")
    return " \u00b7 ".join(parts)


def _marks(rec: ReviewRecord, t: int, text: ReviewText,
           label_index: dict[str, int]) -> tuple[list[Mark], list[Mark]]:
    doc, original = text.document, text.original
    orig: list[Mark] = []
    new: list[Mark] = []
    for n, item in detected_items(text):
        label = str(label_of(item))
        old, out = original[item.start:item.end], doc.text[item.new_start:item.new_end]
        same = bool(old) and lookup_key(old) == lookup_key(out)
        cls = "it lab" + (" same" if same else "")
        common = (f'data-l="{label_index[label]}" data-i="{rec.number}-{t}-{n}" '
                  f'title="{attr(_tooltip(item, same))}"')
        for marks, a, b in ((orig, item.start, item.end), (new, item.new_start, item.new_end)):
            zero = " zero" if a == b else ""
            marks.append((a, b, f'<span class="{cls}{zero}" {common}>', "</span>"))
    for n, found in enumerate(text.lookalikes):
        what = attr(f"unchanged: {KINDS[found.kind]}")
        anchor = f"la-{rec.number}-{t}-{n}"
        tag = f'<mark class="la k-{found.kind}" data-i="{anchor}" title="{what}"'
        orig.append((found.start, found.end, f'{tag} id="{anchor}">', "</mark>"))
        new.append((found.new_start, found.new_end, tag + ">", "</mark>"))
    return orig, new


def marked(text: str, marks: list[Mark]) -> str:
    """``text`` escaped, with each mark's tags around its characters. A mark inside or across an
    earlier one is dropped (a look-alike never lies inside a detected span: that span changed)."""
    if not text:
        return '<div class="text empty-text">(empty)</div>'
    marks = sorted(marks, key=lambda m: (m[0], -m[1]))
    out, pos = [], 0
    for start, end, open_tag, close_tag in marks:
        if start < pos:
            continue
        out.append(_text(text[pos:start]))
        out.append(open_tag + _text(text[start:end]) + close_tag)
        pos = end
    out.append(_text(text[pos:]))
    # <bdi>: bidirectional controls in the text (evidence, shown as it is) reorder only the text.
    return '<div class="text"><bdi>' + "".join(out) + "</bdi></div>"


#: Control characters (Unicode category Cc) other than TAB, LF and CR: a browser drops a NUL and
#: shows the others as nothing (or as a blank, a form feed), so the reviewer would not see them.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _control(match: re.Match[str]) -> str:
    """A control character as a visible symbol in a ``ctl`` span: its control picture (the U+2400
    block: U+2407 for BEL, U+2421 for DEL), or for the C1 controls, which have none, its escape as
    names are spelled (:func:`spelled`: a backslash, ``u`` and four hex digits). Marks are placed
    on the text's own offsets before this is applied (:func:`marked`), so what a mark covers does
    not move."""
    code = ord(match.group())
    shown = chr(0x2400 + code) if code < 0x20 else "\u2421" if code == 0x7F else f"\\u{code:04x}"
    return f'<span class="ctl" title="control character U+{code:04X}">{shown}</span>'


def _text(text: str) -> str:
    """Record text escaped, each control character other than TAB, LF and CR shown as a symbol
    (:func:`_control`): HTML parsers drop a NUL and browsers show the others as nothing."""
    return _CONTROL.sub(_control, escape(text))


def _cut_note(text: ReviewText) -> str:
    if not text.truncated:
        return ""
    rough = ("" if text.exact_cut else
             "; it has no place to cut before the limit, so it is cut inside a word (with "
             "--noise-unit sentence, inside a sentence) whose release here may differ from the "
             "full release's")
    return (f'<div class="cut" role="note">truncated: the page shows the first {len(text.original):,} of '
            f"{text.length:,} characters of this text; the figures cover only them{rough}</div>")


def panes(rec: ReviewRecord, t: int, text: ReviewText, label_index: dict[str, int]) -> str:
    """The two panes of one text."""
    orig, new = _marks(rec, t, text, label_index)
    cut = _cut_note(text)
    return (f'<div class="pair"><div class="pane orig"><div class="pane-title">Original</div>'
            f'{marked(text.original, orig)}{cut}</div><div class="pane anon"><div class="pane-title">'
            f"Anonymized</div>{marked(text.document.text, new)}{cut}</div></div>")


def field_name(value: Any) -> str:
    """A file or field name, escaped, invisible controls spelled out, isolated from its
    neighbors (``<bdi>``) so it cannot reorder the text around it."""
    return f"<bdi>{attr(spelled(value))}</bdi>"


#: Characters that reorder or hide text without being seen: bidirectional embeddings, overrides,
#: isolates and marks, and zero-width characters; and unpaired surrogates (a file name that is not
#: UTF-8, as Python decodes it), which the UTF-8 page cannot hold. Shown as ``\u202e`` escapes in
#: names.
_INVISIBLE = re.compile("[\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff\ud800-\udfff]")
_UNPAIRED = re.compile("[\ud800-\udfff]")


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def spelled(value: Any) -> str:
    """``value`` with each invisible control written as its ``\\uXXXX`` escape."""
    return _INVISIBLE.sub(_escaped, str(value))


def record_html(rec: ReviewRecord, label_index: dict[str, int], named_fields: bool) -> str:
    """One ``<article>``: a header of counts, then each text's panes."""
    stats = rec.stats
    detected = sum(len(detected_items(t)) for t in rec.texts)
    lookalikes = sum(len(t.lookalikes) for t in rec.texts)
    chips = [f'<span class="chip rate">change rate {percent(stats.change_rate)}</span>',
             f'<span class="chip">{stats.changed:,} of {stats.words:,} words changed</span>']
    if detected:
        chips.append(f'<span class="chip">{detected:,} detected spans</span>')
    if lookalikes:
        chips.append(f'<span class="chip alert">{lookalikes:,} unchanged look-alikes</span>')
    if any(t.truncated for t in rec.texts):
        chips.append('<span class="chip alert">truncated</span>')
    body = []
    for t, text in enumerate(rec.texts):
        fname = (f'<div class="fname">field <code>{field_name(text.field)}</code> \u00b7 change rate '
                 f"{percent(text.stats.change_rate)}</div>" if named_fields else "")
        body.append(f'<div class="field">{fname}{panes(rec, t, text, label_index)}</div>')
    return (f'<article class="record" id="record-{rec.number}" data-number="{rec.number}" '
            f'data-rate="{attr(percent(stats.change_rate))}"><header><h3>Record {rec.number:,}</h3>'
            f'{"".join(chips)}</header>{"".join(body)}</article>')
