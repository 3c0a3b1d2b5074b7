"""The folded view the allow and deny lists match on, against a plain per-character reference."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from embedanon.detectors.folding import fold_char, fold_key, folded_view, original_span


def _reference_fold(ch: str) -> str:
    """Folding written out, with no ASCII shortcut: NFKD, casefold, NFKD, no marks, no Cf;
    typographic apostrophes and hyphens are the ASCII ones."""
    if unicodedata.category(ch) == "Cf":
        return ""
    if unicodedata.name(ch, "") in ("LEFT SINGLE QUOTATION MARK", "RIGHT SINGLE QUOTATION MARK",
                                    "MODIFIER LETTER APOSTROPHE"):
        return "'"
    if unicodedata.name(ch, "") in ("HYPHEN", "NON-BREAKING HYPHEN"):
        return "-"
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", ch).casefold())
    return "".join(c for c in folded if not unicodedata.category(c).startswith("M"))


def _reference_view(text: str) -> tuple[str, list[int]]:
    pieces = [_reference_fold(ch) for ch in text]
    return "".join(pieces), [i for i, piece in enumerate(pieces) for _ in piece]


_MIXED = st.text(alphabet=st.sampled_from(
    "aZ ß\u00df\u1e9e\u0130\u0131\u03a3\u03c2e\u0301\u00e9\u200b\u00ad\ufeff\u00a0\t\nＺｏ\ufb01\u00bd_1-.'\u2018\u2019\u02bc\u2010\u2011\u201d"
), max_size=40)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=40), _MIXED))
def test_folded_view_equals_the_per_character_reference(text: str) -> None:
    view, origins = folded_view(text)
    ref_view, ref_origins = _reference_view(text)
    assert view == ref_view
    assert (origins if origins is not None else list(range(len(text)))) == ref_origins


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=60))
def test_ascii_fast_path_is_the_identity_map(text: str) -> None:
    view, origins = folded_view(text)
    assert origins is None and view == text.lower() == _reference_view(text)[0]


@pytest.mark.parametrize(("value", "key"), [
    ("  van\u00a0 der\nBERG ", "van der berg"),
    ("Ｚｏｒｂｌａｔ", "zorblat"),
    ("Straße", "strasse"),
    ("Zo\u0301rblat", "zorblat"),  # NFD
    ("Z\u00f3rblat", "zorblat"),  # NFC
    ("Zor\u200bbl\u00adat", "zorblat"),
    ("\u200b", ""),
])
def test_fold_key(value: str, key: str) -> None:
    assert fold_key(value) == key


def test_original_span_takes_whole_characters() -> None:
    text = "x Zorblate\u0301\u200b y"  # NFD accent, then a zero-width space, after the match
    view, origins = folded_view(text)
    start = view.index("zorblate")
    assert original_span(text, origins, start, start + len("zorblate")) == (2, 12)
    assert fold_char("\u0301") == "" and fold_char("Ｚ") == "z"
