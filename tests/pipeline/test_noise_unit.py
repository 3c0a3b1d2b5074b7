"""``noise_unit="sentence"``: a sentence's own text addresses its noise, so a sentence copied into
other records (clinical copy-forward, boilerplate) is released the same way everywhere instead of
giving an attacker one fresh draw per copy."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from embedanon import Anonymizer, ConfigError
from embedanon.cli import app
from embedanon.config import AnonymizerConfig
from embedanon.pipeline.document import sentence_units

pytestmark = pytest.mark.default_embedding

COPIED = "She denies chest pain, fever or shortness of breath."
RECORDS = [
    f"The patient was seen in clinic today. {COPIED} Follow up in two weeks.",
    f"Another visit about the left knee. {COPIED}",
    f"{COPIED}\nPlan: repeat the blood tests next month.",
]


@pytest.fixture(scope="module")
def by_record() -> Anonymizer:
    return Anonymizer(seed=5)


@pytest.fixture(scope="module")
def by_sentence() -> Anonymizer:
    return Anonymizer(seed=5, noise_unit="sentence")


@pytest.mark.parametrize(
    ("text", "units"),
    [
        ("One two three. Four five six.", ["One two three. ", "Four five six."]),
        ("Dr. Okafor saw her today. No. She is well now.\nPlan: labs in a week.",
         ["Dr. Okafor saw her today. ", "No. She is well now.\n", "Plan: labs in a week."]),
        ("One two three. Four.", ["One two three. Four."]),  # a short last unit joins the one before
        ("Is it? Yes it is! \"Quoted, she said.\" Then more words here.  ",
         ["Is it? Yes it is! ", "\"Quoted, she said.\" ", "Then more words here.  "]),
        ("", [""]),
        ("no end at all", ["no end at all"]),
    ],
)
def test_sentence_units_cover_the_text_in_order(text, units):
    bounds = sentence_units(text)
    assert [text[a:b] for a, b in bounds] == units
    assert bounds[0][0] == 0 and bounds[-1][1] == len(text)
    assert all(x[1] == y[0] for x, y in zip(bounds, bounds[1:], strict=False))


def _copied_output(anon: Anonymizer, record: str) -> str:
    """The released text of COPIED inside ``record`` (its words, from the document's items)."""
    doc = anon.anonymize_document(record)
    a = record.index(COPIED)
    b = a + len(COPIED)
    inside = [it for it in doc.items if a <= it.start and it.end <= b]
    return doc.text[inside[0].new_start : inside[-1].new_end]


def test_a_copied_sentence_is_released_the_same_way_in_every_record(by_record, by_sentence):
    alone = by_sentence.anonymize(COPIED)
    copies = {_copied_output(by_sentence, r) for r in RECORDS}
    assert copies == {alone.rstrip(".")} or copies == {alone}
    # by record (the default) every copy is a fresh draw: the copies differ
    assert len({_copied_output(by_record, r) for r in RECORDS}) > 1


def test_one_sentence_records_are_released_as_by_record(by_record, by_sentence):
    for text in (COPIED, "Short one."):
        assert by_sentence.anonymize(text) == by_record.anonymize(text)
    # a unit's identity is its text without the whitespace around it
    padded = "  Leading and trailing spaces here.  "
    assert by_sentence.anonymize(padded) == "  " + by_record.anonymize(padded.strip()) + "  "


def test_items_map_the_record_back_together(by_sentence):
    for record in RECORDS:
        doc = by_sentence.anonymize_document(record)
        rebuilt, at = [], 0
        for it in doc.items:
            rebuilt += [record[at : it.start], doc.text[it.new_start : it.new_end]]
            at = it.end
        rebuilt.append(record[at:])
        assert "".join(rebuilt) == doc.text
        assert doc.text == by_sentence.anonymize(record)


def test_sentence_units_in_hybrid_scope_leave_no_detected_name(by_sentence):
    anon = Anonymizer(seed=5, noise_unit="sentence", scope="hybrid", mechanism="exponential", epsilon=14)
    text = "Dr. Okafor saw the patient today. Call Thembile Maduma at (217) 555-0198 tomorrow."
    out = anon.anonymize(text)
    assert not any(s in out for s in ("Okafor", "Thembile", "Maduma", "555-0198"))
    assert anon.anonymize_document(text).text == out


def test_the_output_does_not_depend_on_workers(by_sentence):
    texts = RECORDS * 3
    assert list(by_sentence.anonymize_many(texts, jobs=2)) == [by_sentence.anonymize(t) for t in texts]


def test_a_wrong_noise_unit_is_refused():
    with pytest.raises(ConfigError, match="noise unit must be one of record, sentence"):
        AnonymizerConfig(noise_unit="paragraph")
    with pytest.raises(ConfigError, match="noise unit"):
        Anonymizer(seed=1, noise_unit="line")


def test_cli_noise_unit(tmp_path):
    src = tmp_path / "notes.txt"
    src.write_text("\n".join(RECORDS[:2]) + "\n", encoding="utf-8")
    runner = CliRunner()
    report = tmp_path / "report.json"
    out = runner.invoke(app, ["anonymize", str(src), "--seed", "5", "--noise-unit", "sentence",
                              "--report", str(report)])
    assert out.exit_code == 0, out.output
    assert json.loads(report.read_text(encoding="utf-8"))["settings"]["noise_unit"] == "sentence"
    by_sentence = Anonymizer(seed=5, noise_unit="sentence")
    assert out.stdout.splitlines() == [by_sentence.anonymize(r) for r in RECORDS[:2]]
    bad = runner.invoke(app, ["anonymize", str(src), "--seed", "5", "--noise-unit", "paragraph"])
    assert bad.exit_code == 2
    assert "noise unit must be one of record, sentence" in bad.output
    assert "patient" not in bad.output
