"""Bidirectional and invisible controls cannot spoof the review page: record text is isolated
(``<bdi>``, shown as it is), file and field names are isolated and show each control as an escape."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from embedanon import Anonymizer
from embedanon.review import build_review, render_html, write_review

RLO, LRI, PDI = "\u202e", "\u2066", "\u2069"
CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _outside_bdi(page: str) -> str:
    """The page with every ``<bdi>...</bdi>`` removed (they do not nest in this page)."""
    assert page.count("<bdi>") == page.count("</bdi>")
    return re.sub(r"<bdi>.*?</bdi>", "", page, flags=re.S)


def test_controls_are_isolated_and_names_spelled_out(tmp_path: Path, anonymizer: Anonymizer) -> None:
    path = tmp_path / f"notes{RLO}lmth.jsonl"
    field = f"te{LRI}xt{PDI}"
    records = [{field: f"The doctor saw {RLO}the patient at night."}, {field: "Mother had fever today."}]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    review = build_review(str(path), anonymizer, fmt="jsonl", fields=[field], sources=(),
                          generated="2026-01-01 00:00 UTC")
    page = render_html(review)
    assert not CONTROLS.search(_outside_bdi(page))
    # Names: no raw control anywhere, the escape shown instead.
    names = re.findall(r"<code><bdi>(.*?)</bdi></code>", page)
    assert "notes\\u202elmth.jsonl" in page and "te\\u2066xt\\u2069" in page
    assert any("notes\\u202elmth.jsonl" in n for n in names)
    assert sum("te\\u2066xt\\u2069" in n for n in names) >= 2  # settings row and each record's field
    assert not any(CONTROLS.search(n) for n in names)
    title = re.search(r"<title>(.*?)</title>", page, flags=re.S)
    assert title and not CONTROLS.search(title.group(1))
    # Every raw control left is inside a record's text (kept: the reviewer's evidence), isolated.
    texts = re.findall(r'<div class="text"><bdi>(.*?)</bdi></div>', page, flags=re.S)
    assert page.count(RLO) == sum(t.count(RLO) for t in texts) >= 1


def test_a_file_name_that_is_not_utf8_is_spelled_out_and_the_page_written(tmp_path: Path,
                                                                          anonymizer: Anonymizer) -> None:
    """Review audit: `embedanon review 'bad\\xffname.jsonl'` did all its work, then died with a
    UnicodeEncodeError traceback (exit 1) writing the page: Python decodes such a name with an
    unpaired surrogate (U+DCFF), which UTF-8 cannot hold. Now the name is shown as its escape."""
    name = "notes\udcffx.jsonl"
    try:
        path = tmp_path / name
        path.write_text(json.dumps({"text": "Mother had fever today."}) + "\n", encoding="utf-8")
    except (OSError, UnicodeError):
        pytest.skip("this file system takes only UTF-8 names")
    review = build_review(str(path), anonymizer, fmt="jsonl", sources=(), generated="2026-01-01 00:00 UTC")
    out = tmp_path / "review.html"
    write_review(review, out)
    page = out.read_text(encoding="utf-8")
    assert "notes\\udcffx.jsonl" in page
    assert "notes\\udcffx.jsonl" in re.search(r"<title>(.*?)</title>", page, flags=re.S).group(1)  # type: ignore[union-attr]


def test_a_nul_in_a_record_is_shown_not_dropped(tmp_path: Path, anonymizer: Anonymizer) -> None:
    """Review audit: a NUL in a record reached the page as a raw NUL, which HTML parsers drop
    from text (a parse error), so the reviewer saw the text without it. It is shown as U+2400."""
    path = tmp_path / "notes.jsonl"
    path.write_text(json.dumps({"text": "The doctor saw\x00the patient at night."}) + "\n", encoding="utf-8")
    page = render_html(build_review(str(path), anonymizer, fmt="jsonl", sources=(), generated="now"))
    assert "\x00" not in page
    texts = re.findall(r'<div class="text"><bdi>(.*?)</bdi></div>', page, flags=re.S)
    nul = '<span class="ctl" title="control character U+0000">\u2400</span>'
    assert f"saw{nul}the" in texts[0] and nul in texts[1]


#: every control character (Unicode Cc) but TAB, LF and CR
HIDDEN = [chr(c) for c in [*range(0x20), *range(0x7F, 0xA0)] if chr(c) not in "\t\n\r"]


def test_control_characters_are_shown_and_marks_stay_on_their_characters(tiny_embedding: Path,
                                                                          tmp_path: Path) -> None:
    """Leftover audit: controls other than NUL (BEL, ESC, VT, DEL, the C1 controls ...) reached
    the page raw, and a browser shows them as nothing: a record holding them looked clean. Each is
    now a visible symbol in a ``ctl`` span, and a detected span after or around them is marked on
    the same characters as before."""
    detected = Anonymizer(str(tiny_embedding), "knn", k=3, seed=1, scope="detected", detectors="regex")
    text = "The doctor\x07saw\x1b the\x0bmother\x7f\x85 call\x0c 617-555-0134 now\x9b.\tnight\r\n"
    path = tmp_path / "notes.jsonl"
    records = [{"text": text}, {"text": "".join(HIDDEN) + " mother"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    page = render_html(build_review(str(path), detected, fmt="jsonl", sources=(), generated="now"))
    assert not any(ch in page for ch in HIDDEN)  # none raw, anywhere
    texts = re.findall(r'<div class="text"><bdi>(.*?)</bdi></div>', page, flags=re.S)
    shown = [html.unescape(re.sub(r"<[^>]+>", "", t)) for t in texts]  # what the reader sees
    assert shown[0] == ("The doctor\u2407saw\u241b the\u240bmother\u2421\\u0085 call\u240c 617-555-0134 "
                        "now\\u009b.\tnight\r\n")  # TAB, CR and LF stay white space
    assert '<span class="ctl" title="control character U+0007">\u2407</span>' in texts[0]
    assert '<span class="ctl" title="control character U+009B">\\u009b</span>' in texts[0]
    # the phone is marked on its own characters in both panes
    assert re.search(r'<span class="it lab"[^>]*>617-555-0134</span>', texts[0])
    assert re.search(r'<span class="it lab"[^>]*>[^<]*\d[^<]*</span> now<span class="ctl"', texts[1])
    # all 62 controls of the second record, one symbol each, in order
    assert texts[2].count('class="ctl"') == len(HIDDEN) == 62
    assert shown[2].startswith("".join(chr(0x2400 + ord(c)) for c in HIDDEN[:29]) + "\u2421\\u0080")
    assert "\\u009f mother" in shown[2]
