"""Releasing with spans a steward corrected by hand (round-trip audit; decision 0244).

`detect` writes a span file to correct, but nothing released with the corrected spans: only
--allow/--deny, corpus-wide, or retraining reached a release."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from embedanon import Anonymizer
from embedanon.detectors.base import Span
from embedanon.detectors.evaluate import read_span_file, record_spans
from embedanon.errors import ConfigError, InputError
from tests.helpers.noise import fast_key

TEXT = "Seen by Dr. Newton today. Zed Quorvin called from Port Ashby on 3/4/2021."


def _span(text: str, part: str, label: str) -> dict[str, object]:
    return {"start": text.index(part), "end": text.index(part) + len(part), "label": label}


@pytest.mark.parametrize("scope", ["detected", "hybrid"])
def test_a_corrected_span_file_is_what_the_release_replaces(tmp_path: Path, scope: str) -> None:
    # the steward deleted a false 'Newton', added the town the detectors missed, relabelled nothing
    corrected = {"id": 1, "text": TEXT, "spans": [_span(TEXT, "Zed Quorvin", "NAME"),
                                                  _span(TEXT, "Port Ashby", "LOCATION"),
                                                  _span(TEXT, "3/4/2021", "DATE")]}
    path = tmp_path / "corrected.jsonl"
    path.write_text(json.dumps(corrected) + "\n", encoding="utf-8")
    (record,) = read_span_file(path)
    anon = Anonymizer(key=fast_key(3), scope=scope)
    doc = anon.anonymize_document(record.text, spans=record_spans(record))
    replaced = {(i.start, i.end) for i in doc.items if i.label}
    assert {(s["start"], s["end"]) for s in corrected["spans"]} <= replaced  # type: ignore[misc]
    assert {i.label for i in doc.items if i.label} == {"NAME", "LOCATION", "DATE"}
    for part in ("Zed", "Quorvin", "Ashby", "3/4/2021"):
        assert part not in doc.text
    if scope == "detected":  # what the steward took out stays as written
        assert doc.text.startswith("Seen by Dr. Newton today. ")
    # None for a text reads it with the detectors, as without spans
    plain = anon.anonymize_document(TEXT)
    assert Anonymizer(key=fast_key(3), scope=scope).anonymize_document(TEXT, spans=None).text == plain.text


def test_given_spans_are_checked_and_refused_in_one_line() -> None:
    anon = Anonymizer(key=fast_key(3), scope="detected")
    with pytest.raises(ValueError, match=r"spans\[0\]: \[0, 5\) NAME and \[3, 9\) NAME overlap"):
        anon.anonymize_document(TEXT, spans=[Span(0, 5, "NAME", 1.0, "x"), Span(3, 9, "NAME", 1.0, "x")])
    with pytest.raises(ValueError, match="outside a text"):
        anon.anonymize_document("short", spans=[Span(0, 50, "NAME", 1.0, "x")])
    with pytest.raises(TypeError, match="must hold Spans"):
        anon.anonymize_document(TEXT, spans=[{"start": 0, "end": 4, "label": "NAME"}])  # type: ignore[list-item]
    with pytest.raises(ConfigError, match="scope 'all' replaces every word"):
        Anonymizer(key=fast_key(3), scope="all").anonymize_document(TEXT, spans=[])
    with pytest.raises(InputError, match="record 7: labels PATIENT_ID are not the tool's"):
        from embedanon.detectors.evaluate import GoldRecord, GoldSpan
        record_spans(GoldRecord("7", TEXT, (GoldSpan(0, 4, "PATIENT_ID"),)))


def test_spans_given_as_a_generator_are_read_once() -> None:
    anon = Anonymizer(key=fast_key(3), scope="detected")
    start = TEXT.index("Zed Quorvin")
    as_list = anon.anonymize_document(TEXT, spans=[Span(start, start + 11, "NAME", 1.0, "x")])
    as_generator = anon.anonymize_document(TEXT, spans=(s for s in [Span(start, start + 11, "NAME", 1.0, "x")]))  # type: ignore[arg-type]
    assert as_generator.text == as_list.text and "Quorvin" not in as_list.text
