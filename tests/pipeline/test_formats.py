"""``neutral_formats``: phones and IDs lose their layout in full scope; nothing else changes."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


def test_layout_is_kept_only_when_asked() -> None:
    """Negative control: with neutral_formats=False (--keep-formats) digits are fresh but the
    layout is the original's; the default (issue 33 item 6) is the neutral layout."""
    kept, default = Anonymizer(key=fast_key(31), neutral_formats=False), Anonymizer(key=fast_key(31))
    assert default.config.scope.neutral_formats
    for phone in PHONES:
        out = kept.anonymize(f"Phone: {phone}.")
        assert _shape(out.split(": ", 1)[1]) == _shape(phone) + "."
        assert _shape(default.anonymize(f"Phone: {phone}.").split(": ", 1)[1]) == _shape(NEUTRAL_PHONE) + "."


def test_ids_neutral_and_words_as_in_full_scope() -> None:
    key = fast_key(32)
    text = "The patient, MRN 12345678, was seen today."
    neutral = Anonymizer(key=key, neutral_formats=True).anonymize_document(text)
    plain = Anonymizer(key=key, neutral_formats=False).anonymize_document(text)
    ids = [neutral.text[i.new_start : i.new_end] for i in neutral.items if i.label == "ID"]
    assert [_shape(v) for v in ids] == [_shape(NEUTRAL_ID)]
    words = [(i.start, neutral.text[i.new_start : i.new_end]) for i in neutral.items if i.kind == "word"]
    same = [(i.start, plain.text[i.new_start : i.new_end]) for i in plain.items if i.kind == "word"]
    assert words == same  # the option moves no word's noise


def test_batching_does_not_change_output() -> None:
    anon = Anonymizer(key=fast_key(33), neutral_formats=True)
    texts = [f"Call {p} about ID AB123456." for p in PHONES]
    assert list(anon.anonymize_many(texts)) == [anon.anonymize(t) for t in texts]


def _format_spans_reference(text: str) -> list:  # type: ignore[type-arg]
    """The plain reference: every phone, ID and date rule on the whole text, dates dropped."""
    from embedanon.detectors.regex import RegexDetector

    return [s for s in RegexDetector(labels=("PHONE", "ID", "DATE")).detect(text) if s.label != "DATE"]


FORMAT_CASES = ["call (617) 555-0134 on 02/19/2007, MRN 12345678", "seen 03/07/2005 at 10:30",
                "030 901820", "BP 120/80, 1:200000 epinephrine, T2N0M0", "no digits here", "",
                "+44 20 7946 0958 or 0049 30 1234567", "12/25/2008 12345678", "ID: AB1234"]


@pytest.mark.parametrize("text", FORMAT_CASES)
def test_format_spans_agree_with_the_plain_reference(text: str) -> None:
    """The date rules run only where a phone or ID rule matched: the same spans as all of them."""
    assert format_spans(text) == _format_spans_reference(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["0", "12", "345", "2005", "/", "-", " ", "(", ")", "+", ".", "March ",
                                 "MRN ", "AB", ":", "\n"]), max_size=20).map("".join))
def test_format_spans_agree_with_the_plain_reference_on_any_text(text: str) -> None:
    assert format_spans(text) == _format_spans_reference(text)


def test_a_batch_splits_into_fast_and_document_paths_without_changing_a_byte() -> None:
    """Texts without a phone or ID take the fast path, the others documents; the output is what
    each text gives on its own, in order."""
    from embedanon.pipeline.document import anonymize_documents, anonymize_records

    anon = Anonymizer(key=fast_key(34))
    texts = ["Call (617) 555-0134 now.", "The patient is well.", "MRN 12345678 seen.", "Fine.",
             "No phone here, 5 mg daily."]
    alone = [anonymize_documents([t], anon.config, anon.key)[0].text for t in texts]
    assert anonymize_records(texts, anon.config, anon.key) == alone
    assert _shape(alone[0].split()[1]) != _shape("(617)")


_PIECES = ["Call ", "(617) 555-0134", "MRN 12345678", " seen ", "02/19/2007", "AB123456", ". ",
           "The patient is well", "\n", "+44 20 7946 0958", ", 5 mg daily", "Smith "]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_PIECES), max_size=8).map("".join), min_size=1, max_size=5))
def test_a_batch_is_released_as_each_text_alone(texts: list[str]) -> None:
    """``anonymize_records`` hands the format spans it found to the documents (0163); the plain
    reference is each text alone through ``anonymize_documents``, which finds them itself."""
    from embedanon.pipeline.document import anonymize_documents, anonymize_records

    anon = _BATCH_ANON
    alone = [anonymize_documents([t], anon.config, anon.key)[0].text for t in texts]
    assert anonymize_records(texts, anon.config, anon.key) == alone


_BATCH_ANON = Anonymizer(key=fast_key(35))


def test_scope_all_finds_each_texts_formats_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A text with a phone or ID had its format rules run twice (once to choose its path, once
    in its document): half of a long record's time in scope ``all`` (decision 0163)."""
    from embedanon.pipeline import document

    calls: list[str] = []

    def counted(text: str) -> list:  # type: ignore[type-arg]
        calls.append(text)
        return format_spans(text)

    monkeypatch.setattr(document, "format_spans", counted)
    anon = Anonymizer(key=fast_key(36))
    texts = ["Call (617) 555-0134 now.", "The patient is well.", "MRN 12345678 seen."]
    document.anonymize_records(texts, anon.config, anon.key)
    assert len(calls) == len(texts)


LABELLED = ["HISTORY OF PRESENT ILLNESS: call (217) 555-0198 tomorrow.",
            "Doctor: your number is 617-555-0134, right?\nPatient: yes.",
            "NOTE: MRN 12345678 seen today."]


@pytest.mark.parametrize("text", LABELLED)
def test_role_labels_change_in_scope_all_with_a_phone_or_id(text: str) -> None:
    """Scope all replaces every word: a line-start role label (``NOTE:``, ``Doctor:``) that
    hybrid scope keeps as structure is replaced too when the text holds a phone or ID and so
    takes the neutral-format path; its words get exactly what --keep-formats gives them."""
    key = fast_key(35)
    neutral = Anonymizer(key=key, neutral_formats=True).anonymize_document(text)
    plain = Anonymizer(key=key, neutral_formats=False).anonymize_document(text)
    words = [(i.start, neutral.text[i.new_start : i.new_end]) for i in neutral.items if i.kind == "word"]
    same = [(i.start, plain.text[i.new_start : i.new_end]) for i in plain.items if i.kind == "word"]
    assert words == same
    label = text.split(":", 1)[0].split()
    assert not set(label) & set(neutral.text.split(":", 1)[0].split())
