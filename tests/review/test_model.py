"""Counts from items (text_stats / scan) against a quadratic reference and against
privacy.metrics.change_stats on real pipeline output; item validation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from embedanon import AnonymizedDocument, Anonymizer
from embedanon.pipeline import Item
from embedanon.privacy.metrics import change_stats, check_items, scan
from embedanon.review.model import TextStats, text_stats
from embedanon.text import lookup_key, tokenize


def It(start: int, end: int, new_start: int, new_end: int) -> Item:
    """A word the mechanism replaced."""
    return Item(start, end, new_start, new_end, "word", "mechanism")


def _reference(original: str, doc: AnonymizedDocument) -> tuple[int, int, list[tuple[int, int]]]:
    """Plain version: for each token, scan every item for overlap (zero-length items touch the
    token they sit in or start)."""
    words = changed = 0
    kept = []
    for tok in tokenize(original):
        if tok.kind not in ("word", "number", "mixed"):
            continue
        hits = [it for it in doc.items
                if (it.start < tok.end and it.end > tok.start) or (it.start == it.end and tok.start <= it.start < tok.end)]
        if not hits:
            kept.append((tok.start, tok.end))
        if tok.kind == "word":
            words += 1
            if hits:
                old, new, last = "", "", tok.start
                for it in hits:
                    gap = original[last:it.start] if it.start > last else ""
                    old += gap + original[it.start:it.end]
                    new += gap + doc.text[it.new_start:it.new_end]
                    last = max(last, it.end)
                old += original[last:tok.end]
                new += original[last:tok.end]
                changed += lookup_key(old) != lookup_key(new)
    return words, changed, kept


def _replace(original: str, spans: list[tuple[int, int, str]]) -> AnonymizedDocument:
    out, items, pos = [], [], 0
    for start, end, repl in spans:
        out.append(original[pos:start])
        new_start = sum(map(len, out))
        out.append(repl)
        items.append(It(start, end, new_start, new_start + len(repl)))
        pos = end
    out.append(original[pos:])
    return AnonymizedDocument("".join(out), tuple(items))


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, AnonymizedDocument]:
    original = draw(st.text(alphabet="ab C1-' .", max_size=30))
    cuts = sorted(draw(st.lists(st.integers(0, len(original)), max_size=8)))
    spans = []
    for a, b in zip(cuts[::2], cuts[1::2], strict=False):
        spans.append((a, b, draw(st.sampled_from(["", "x", "AB", original[a:b]]))))
    return original, _replace(original, spans)


@given(documents())
@settings(max_examples=300, deadline=None)
def test_scan_agrees_with_quadratic_reference(case: tuple[str, AnonymizedDocument]) -> None:
    original, doc = case
    assert scan(original, doc) == _reference(original, doc)


def test_hand_made_cases() -> None:
    text = "John was seen at 10:30 today"
    # John -> Mary (changed), was -> WAS (same word, different case: unchanged), 10 -> 47 (code)
    doc = _replace(text, [(0, 4, "Mary"), (5, 8, "WAS"), (17, 19, "47")])
    stats = text_stats(text, doc)
    assert stats == TextStats(words=5, changed=1, kept=4, items=3)  # seen, at, 30, today kept
    assert stats.change_rate == pytest.approx(0.2)
    assert TextStats().change_rate != TextStats().change_rate  # nan without words
    # A clitic outside the item: "patient's" with "patient" replaced is one changed word
    assert text_stats("patient's", _replace("patient's", [(0, 7, "doctor")])) == TextStats(1, 1, 0, 1)


def test_bad_items_are_refused_without_text() -> None:
    with pytest.raises(ValueError, match="item 1") as info:
        check_items("abcdef", AnonymizedDocument("abcdef", (It(0, 3, 0, 3), It(2, 4, 3, 5))))
    assert "abc" not in str(info.value)
    with pytest.raises(ValueError, match="outside"):
        check_items("ab", AnonymizedDocument("ab", (It(0, 5, 0, 2),)))
    with pytest.raises(ValueError, match="new offsets"):
        check_items("ab", AnonymizedDocument("a", (It(0, 2, 0, 2),)))
    with pytest.raises(ValueError):
        TextStats(words=1, changed=2)


@pytest.mark.parametrize("text", [
    "The patient has chest pain and fever since the night.",
    "Zebulonius O'Neil, 54, e-mail z@x.org; the doctor's visit at 10:30 (A12B).",
    "",
    "   ... !!",
])
def test_change_rate_equals_privacy_metrics_on_pipeline_output(anonymizer: Anonymizer, text: str) -> None:
    doc = anonymizer.anonymize_document(text)
    mine = text_stats(text, doc)
    ref = change_stats(text, doc.text)
    assert (mine.words, mine.changed) == (ref.word_tokens, ref.changed_words)
    assert mine.kept == 0  # full scope: every alphanumeric token is touched
