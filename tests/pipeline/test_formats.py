"""``neutral_formats``: phones and IDs lose their layout in full scope; nothing else changes."""

from __future__ import annotations

import re

import pytest

from embedanon import Anonymizer
from embedanon.pipeline.scope import format_spans
from embedanon.surrogates.config import NEUTRAL_ID, NEUTRAL_PHONE
from tests.helpers.noise import fast_key

pytestmark = pytest.mark.default_embedding

PHONES = ["+44 20 7946 0958", "(617) 555-0134", "+49 (0) 9141 777631", "030 901820", "98765 43210",
          "+233 54 914 1777"]


def _shape(value: str) -> str:
    return re.sub(r"[A-Z]", "@", re.sub(r"\d", "#", value))


def test_format_spans_find_phones_and_ids_not_dates() -> None:
    text = "call (617) 555-0134 on 02/19/2007, MRN 12345678"
    labels = [s.label for s in format_spans(text)]
    assert labels == ["PHONE", "ID"]
    assert format_spans("no digits here") == []


@pytest.mark.parametrize("phone", PHONES)
def test_every_phone_layout_becomes_the_neutral_one(phone: str) -> None:
    anon = Anonymizer(key=fast_key(31), neutral_formats=True)
    doc = anon.anonymize_document(f"Phone: {phone}.")
    phones = [doc.text[i.new_start : i.new_end] for i in doc.items if i.label == "PHONE"]
    assert len(phones) == 1 and _shape(phones[0]) == _shape(NEUTRAL_PHONE)
    assert doc.full_scope


def test_layout_is_kept_without_the_option() -> None:
    """Negative control: by default digits are fresh but the layout is the original's."""
    anon = Anonymizer(key=fast_key(31))
    for phone in PHONES:
        out = anon.anonymize(f"Phone: {phone}.")
        assert _shape(out.split(": ", 1)[1]) == _shape(phone) + "."


def test_ids_neutral_and_words_as_in_full_scope() -> None:
    key = fast_key(32)
    text = "The patient, MRN 12345678, was seen today."
    neutral = Anonymizer(key=key, neutral_formats=True).anonymize_document(text)
    plain = Anonymizer(key=key).anonymize_document(text)
    ids = [neutral.text[i.new_start : i.new_end] for i in neutral.items if i.label == "ID"]
    assert [_shape(v) for v in ids] == [_shape(NEUTRAL_ID)]
    words = [(i.start, neutral.text[i.new_start : i.new_end]) for i in neutral.items if i.kind == "word"]
    same = [(i.start, plain.text[i.new_start : i.new_end]) for i in plain.items if i.kind == "word"]
    assert words == same  # the option moves no word's noise


def test_batching_does_not_change_output() -> None:
    anon = Anonymizer(key=fast_key(33), neutral_formats=True)
    texts = [f"Call {p} about ID AB123456." for p in PHONES]
    assert list(anon.anonymize_many(texts)) == [anon.anonymize(t) for t in texts]
