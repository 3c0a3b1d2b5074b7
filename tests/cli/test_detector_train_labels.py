"""`detector train` on span files that also label places and institutions.

The span format (and `evaluate-detection`) accepts LOCATION and ORGANIZATION, which the regex
detector finds and the trained model does not tag; training on such a file ended in a KeyError
traceback (found by running `detector train` on a file of ORGANIZATION spans).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedanon.cli import app
from tests.helpers.detector import name_records

runner = CliRunner()


@pytest.mark.default_embedding
def test_location_and_organization_spans_are_left_out_with_one_warning(tmp_path: Path) -> None:
    records = name_records(4, seed=3)
    text = "Seen at Mercy Hospital in Springfield today."
    records.append({"text": text, "spans": [
        {"start": text.index("Mercy"), "end": text.index(" in"), "label": "ORGANIZATION"},
        {"start": text.index("Springfield"), "end": text.index(" today"), "label": "LOCATION"}]})
    data = tmp_path / "spans.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "adapted"
    result = runner.invoke(app, ["detector", "train", "--data", str(data), "-o", str(out), "--epochs", "1"])
    assert result.exit_code == 0, result.output
    assert (out / "weights.npz").is_file()
    warnings = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert warnings == [f"warning: {data}: 2 spans not trained on (LOCATION 1, ORGANIZATION 1): the trained "
                        "model does not tag these labels, so their words are left out of training (the regex "
                        "detector finds listed places and institutions)"]
    assert "Mercy" not in result.output and "Springfield" not in result.output


def test_the_words_of_a_place_or_institution_are_not_trained_as_not_personal(tmp_path: Path) -> None:
    """Round-trip audit: a steward who labelled a town LOCATION (the guideline's label) and trained
    got a model that no longer flagged it at all: its tokens were trained as O, not personal
    (``Port Ashby`` protected in 100 of 100 records before, 0 after). They are now left out of
    training, like an ignored region (decision 0611); a region the file ignored already stays."""
    from embedanon.cli.detector import _model_labels_only
    from embedanon.detectors.features import tokenize
    from embedanon.detectors.training import UNLABELLED, token_labels

    text = "Seen by Dr. Okafor at Lakeview Clinic in Port Ashby today."
    spans = [{"start": 12, "end": 18, "label": "NAME"},
             {"start": text.index("Lakeview"), "end": text.index(" in"), "label": "ORGANIZATION"},
             {"start": text.index("Port"), "end": text.index(" today"), "label": "LOCATION"}]
    (record,) = _model_labels_only([{"text": text, "spans": spans, "ignore": [[0, 4]]}], tmp_path / "g.jsonl")
    assert record["spans"] == spans[:1]
    toks = tokenize(text)
    y = token_labels(toks.starts, toks.ends, record["spans"], record["ignore"])
    by_word = {text[a:b]: int(c) for a, b, c in zip(toks.starts, toks.ends, y)}
    assert by_word["Port"] == by_word["Ashby"] == by_word["Lakeview"] == by_word["Clinic"] == UNLABELLED
    assert by_word["Seen"] == UNLABELLED and by_word["today"] == 0 and by_word["Okafor"] > 0


def test_an_output_directory_of_other_files_is_refused_under_the_option_the_user_gave(tmp_path: Path) -> None:
    """The refusal named '--out', a spelling the help no longer shows (found with -o DIR/)."""
    data = tmp_path / "spans.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in name_records(2, seed=1)), encoding="utf-8")
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("keep me\n", encoding="utf-8")
    result = runner.invoke(app, ["detector", "train", "--data", str(data), "-o", str(other)])
    assert result.exit_code == 2
    assert result.output == (f"error: -o/--output {other} is a directory holding other files, not a trained "
                             "detector; choose a new or empty directory\n")
    assert (other / "notes.txt").read_text(encoding="utf-8") == "keep me\n"


@pytest.mark.parametrize(("files", "replaced"), [
    ({"manifest.json": '{"notes": 1}', "notes.csv": "a,b"}, False),  # a user's manifest.json
    ({"manifest.json": '{"format_version": 2}', "weights.npz": "", "notes.csv": "a,b"}, False),
    ({"manifest.json": '{"format_version": 2}', "weights.npz": "", "evals/x.txt": "x"}, False),
    ({"manifest.json": '{"format_version": 2}', "weights.npz": ""}, True),
    ({"manifest.json": "not json", "weights.npz": ""}, False),
    ({"embedanon-detector.json": "{}", "config.json": "{}", "model.safetensors": "", "tokenizer.json": "{}",
      "tokenizer_config.json": "{}", "special_tokens_map.json": "{}", "vocab.txt": ""}, True),
    ({"embedanon-detector.json": "{}", "model.safetensors": "", "labels.csv": "x"}, False),
])
def test_only_a_directory_holding_a_trained_detector_alone_is_replaced(tmp_path: Path, files: dict[str, str],
                                                                        replaced: bool) -> None:
    """Train audit: a directory holding a ``manifest.json`` among other files counted as a trained
    detector, and training replaced it whole: the other files were lost, exit 0 (decision 0237)."""
    from embedanon.detectors.training import check_model_directory
    from embedanon.errors import EmbedanonError

    out = tmp_path / "out"
    for name, content in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(content, encoding="utf-8")
    if replaced:
        assert check_model_directory(out) == out.resolve()
    else:
        with pytest.raises(EmbedanonError, match="is a directory holding other files, not a trained detector"):
            check_model_directory(out)


@pytest.mark.default_embedding
@pytest.mark.parametrize(("second", "labels"), [
    ({"start": 9, "end": 14, "label": "NAME"}, "[4, 14) NAME and [9, 14) NAME"),  # a nested surname
    ({"start": 9, "end": 25, "label": "DATE"}, "[4, 14) NAME and [9, 25) DATE"),
])
def test_overlapping_spans_are_refused_before_training(tmp_path: Path, second: dict[str, object],
                                                       labels: str) -> None:
    """Decision 0610: a token has one label in training; of two overlapping spans the later one
    took the shared tokens, silently (found by hand in the detector audit: trained, exit 0)."""
    text = "Mr. John Smith was seen on 03/04/2021."
    records = [*name_records(2, seed=1),
               {"text": text, "spans": [{"start": 4, "end": 14, "label": "NAME"}, second]}]
    data = tmp_path / "spans.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "adapted"
    result = runner.invoke(app, ["detector", "train", "--data", str(data), "-o", str(out), "--epochs", "1"])
    assert result.exit_code == 2, result.output
    assert result.output == (f"error: {data}: record 3: spans {labels} overlap; a token has one label "
                             "in training, so merge them or keep one\n")
    assert not out.exists()


def test_overlap_check_sees_a_span_inside_an_earlier_wide_one() -> None:
    from embedanon.detectors.training import require_disjoint_spans
    from embedanon.errors import InputError

    spans = [{"start": 0, "end": 30, "label": "ADDRESS"}, {"start": 2, "end": 4, "label": "ID"},
             {"start": 10, "end": 12, "label": "NAME"}]
    require_disjoint_spans([{"text": "x" * 40, "spans": spans[1:]}], "t")  # disjoint: fine
    with pytest.raises(InputError, match=r"\[0, 30\) ADDRESS and \[2, 4\) ID overlap"):
        require_disjoint_spans([{"text": "x" * 40, "spans": spans}], "t")
    # adjacent spans (end == start) do not overlap
    require_disjoint_spans([{"text": "x" * 40, "spans": [{"start": 0, "end": 5, "label": "NAME"},
                                                          {"start": 5, "end": 9, "label": "NAME"}]}], "t")


def test_training_shows_progress_on_stderr(tmp_path: Path) -> None:
    """A steward's audit: 1,000 MTSamples transcriptions trained for minutes (7.5 s an epoch, 20
    epochs) without a line on stderr. It now shows the documents featurized, the epochs done and
    the writing (counts only); -q none."""
    data = tmp_path / "gold.jsonl"
    data.write_text("".join(json.dumps({"id": i, "text": f"Seen by Dr. Okafor on {i} May.",
                                        "spans": [{"start": 11, "end": 17, "label": "NAME"}]}) + "\n"
                            for i in range(1, 4)), encoding="utf-8")
    result = runner.invoke(app, ["detector", "train", "--data", str(data), "-o", str(tmp_path / "m"),
                                 "--epochs", "2", "--progress", "plain"])
    assert result.exit_code == 0, result.output
    lines = [line.split(" (")[0] for line in result.stderr.splitlines()]
    assert lines == ["detector train: featurizing 0 of 3 documents", "detector train: training 0 of 2 epochs",
                     "detector train: writing 0 of 1 model"]
    assert "Okafor" not in result.stderr
    quiet = runner.invoke(app, ["detector", "train", "--data", str(data), "-o", str(tmp_path / "q"),
                                "--epochs", "2", "--progress", "plain", "-q"])
    assert quiet.exit_code == 0 and quiet.stderr == "", quiet.stderr


def test_unknown_labels_are_all_named_in_one_line_and_evaluate_detection_still_reads_them(tmp_path: Path) -> None:
    """Left by the audit: a gold file labelled NAME_STUDENT (as the Kaggle PII set is) stopped
    training at 'line 1: span 0 label must be one of ...', naming neither the label nor the
    others the file holds. Still refused (a model cannot learn a label it does not tag), in one
    line naming every unknown label with its count, the most frequent first, and the renaming;
    never a span's text. evaluate-detection scores the same file as it is."""
    text = "Thanks, Amina Okafor! Mail amina@example.com or see example.org/amina."
    spans = [{"start": 8, "end": 20, "label": "NAME_STUDENT"}, {"start": 26, "end": 43, "label": "EMAIL"},
             {"start": 51, "end": 69, "label": "URL_PERSONAL"}]
    records = [{"id": i, "text": text, "spans": spans[: 3 if i == 1 else 1]} for i in range(1, 4)]
    data = tmp_path / "gold.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "adapted"
    result = runner.invoke(app, ["detector", "train", "--data", str(data), "-o", str(out), "--epochs", "1"])
    assert result.exit_code == 2, result.output
    assert result.output == (
        f"error: {data}: 4 spans with labels training does not know (NAME_STUDENT 3, URL_PERSONAL 1); "
        "rename them to the known labels (NAME, EMAIL, URL, PHONE, ID, DATE, ADDRESS, AGE, IP, LOCATION, "
        "ORGANIZATION), e.g. NAME_STUDENT -> NAME (evaluate-detection scores any label)\n")
    assert "Amina" not in result.output and not out.exists()
    scored = runner.invoke(app, ["evaluate-detection", "--data", str(data), "-d", "regex"])
    assert scored.exit_code == 0, scored.output


def test_the_unknown_labels_named_are_the_most_frequent_few() -> None:
    from embedanon.detectors.training import require_known_labels
    from embedanon.errors import InputError

    spans = [{"start": 0, "end": 1, "label": label} for n, label in enumerate(
        ["B_LABEL", "A_LABEL", "C", "D", "E", "F\nX", "G" * 50]) for _ in range(7 - n)]
    with pytest.raises(InputError) as caught:
        require_known_labels([{"text": "x", "spans": spans}], "t")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("t: 28 spans with labels training does not know (B_LABEL 7, A_LABEL 6, C 5, "
                              "D 4, E 3 and 2 more); rename them")
    assert "e.g. NAME_STUDENT -> NAME" in message  # no known label among their words
    require_known_labels([{"text": "x", "spans": [{"start": 0, "end": 1, "label": "LOCATION"}]}], "t")
    with pytest.raises(InputError, match=r"\(NAME\\nSTUDENT 1\); .* e\.g\. NAME\\nSTUDENT -> NAME "):
        require_known_labels([{"text": "x", "spans": [{"start": 0, "end": 1, "label": "NAME\nSTUDENT"}]}], "t")
