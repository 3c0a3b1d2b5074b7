"""`embedanon detect`: the detectors' spans as a span file a person corrects, read back by
`evaluate-detection` (issue 31 item 7: one span format for what the tool finds and what people label)."""

from __future__ import annotations

import json
import re
import stat
import tracemalloc
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedanon.cli import app
from embedanon.detectors.base import Span
from embedanon.detectors.evaluate import detected_records, read_span_file

runner = CliRunner()


class _Fixed:
    """Finds every 'Okafor' as a NAME."""

    name = "fixed"

    def detect(self, text: str) -> list[Span]:
        out, at = [], text.find("Okafor")
        while at >= 0:
            out.append(Span(at, at + 6, "NAME", 0.5, "fixed"))
            at = text.find("Okafor", at + 1)
        return out[::-1]  # unsorted on purpose: the records hold them sorted


def test_detected_records_are_span_records_with_the_span_texts() -> None:
    records = list(detected_records(["Ana met Okafor and Okafor.", "Nothing."], _Fixed()))
    assert [r["id"] for r in records] == [1, 2]
    assert [(s["start"], s["text"]) for s in records[0]["spans"]] == [(8, "Okafor"), (19, "Okafor")]
    assert records[1]["spans"] == []
    assert list(detected_records(["Okafor"], _Fixed(), ids=["a"]))[0]["id"] == "a"


@pytest.mark.default_embedding
def test_detect_writes_a_private_span_file_that_evaluate_detection_reads(tmp_path: Path) -> None:
    data = tmp_path / "visits.csv"
    data.write_text('id,note\n1,"Seen by Dr. Okafor on 3 May 2021. Call 617-555-0143."\n2,"Nothing here."\n',
                    encoding="utf-8")
    out = tmp_path / "spans.jsonl"
    result = runner.invoke(app, ["detect", str(data), "--field", "note", "-o", str(out), "-d", "regex"])
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o600  # it holds the original text
    out.chmod(0o644)  # and stays owner-only when it replaces a file others could read (0376)
    again = runner.invoke(app, ["detect", str(data), "--field", "note", "-o", str(out), "-d", "regex"])
    assert again.exit_code == 0 and stat.S_IMODE(out.stat().st_mode) == 0o600
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in lines] == [1, 2] and lines[0]["text"].startswith("Seen by Dr. Okafor")
    assert {s["label"] for s in lines[0]["spans"]} == {"DATE", "PHONE"}
    assert "Okafor" not in result.output and "617" not in result.output  # counts only on the terminal
    records = read_span_file(out)  # the evaluation's own reader, span texts checked
    assert len(records) == 2 and len(records[0].spans) == 2
    scored = runner.invoke(app, ["evaluate-detection", "--data", str(out), "-d", "regex", "--json"])
    assert scored.exit_code == 0, scored.output
    report = json.loads(scored.output)
    assert report["overlap"]["precision"] == 1.0 and report["overlap"]["recall"] == 1.0


@pytest.mark.default_embedding
def test_detect_sample_is_seeded_and_keeps_input_order_and_places(tmp_path: Path) -> None:
    data = tmp_path / "notes.txt"
    data.write_text("".join(f"Note {i} for Okafor.\n" for i in range(1, 21)), encoding="utf-8")
    ids = []
    for name in ("a", "b"):
        out = tmp_path / f"{name}.jsonl"
        result = runner.invoke(app, ["detect", str(data), "-o", str(out), "-d", "regex", "--sample", "5",
                                     "--seed", "7", "-q"])
        assert result.exit_code == 0, result.output
        ids.append([json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()])
    assert ids[0] == ids[1] and ids[0] == sorted(ids[0]) and len(set(ids[0])) == 5
    texts = data.read_text(encoding="utf-8").splitlines()
    first = json.loads((tmp_path / "a.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert texts[first["id"] - 1] == first["text"]  # the id is the text's place in the input


def test_detect_sample_holds_the_sample_not_the_input(tmp_path: Path) -> None:
    """--sample K held every text of the input until the draw (all of MTSamples for a sample of
    50); it now holds K. Python's allocations are traced: 20,000 texts (4.4 MB) against 200 must
    not raise the peak by 1 MB; before, the peak rose by more than 5 MB."""
    def peak(lines: int) -> int:
        data = tmp_path / f"notes{lines}.txt"
        data.write_text("".join(f"Note {i:06d} for Okafor {'x' * 200}\n" for i in range(lines)), encoding="utf-8")
        tracemalloc.start()
        try:
            result = runner.invoke(app, ["detect", str(data), "-o", str(tmp_path / "spans.jsonl"), "-d", "regex",
                                         "--sample", "5", "--seed", "3", "-q"])
            most = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert result.exit_code == 0, result.output
        assert len((tmp_path / "spans.jsonl").read_text(encoding="utf-8").splitlines()) == 5
        return most

    peak(200)  # first run: the detectors' compiled patterns and caches
    small, large = peak(200), peak(20_000)
    assert large - small < 1_000_000, (small, large)


def test_detect_without_a_sample_streams_the_input(tmp_path: Path) -> None:
    """--sample 0 (all texts, the default) read the whole input into a list, then kept every
    record with its spans until the file was written: memory grew with the input. It now reads,
    detects and writes one text at a time. Python's allocations are traced as for --sample K:
    20,000 texts (4.4 MB, each with a span) against 200 must not raise the peak by 1 MB."""
    def peak(lines: int) -> int:
        data = tmp_path / f"notes{lines}.txt"
        data.write_text("".join(f"Note {i:06d} for Okafor {'x' * 200}\n" for i in range(lines)), encoding="utf-8")
        out = tmp_path / "spans.jsonl"
        tracemalloc.start()
        try:
            result = runner.invoke(app, ["detect", str(data), "-o", str(out), "-d", "regex", "--sample", "0", "-q"])
            most = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert result.exit_code == 0, result.output
        records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        assert [r["id"] for r in records] == list(range(1, lines + 1))
        assert records[-1]["text"] == f"Note {lines - 1:06d} for Okafor {'x' * 200}"
        return most

    peak(200)  # first run: the detectors' compiled patterns and caches
    small, large = peak(200), peak(20_000)
    assert large - small < 1_000_000, (small, large)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-o", "-"], "regular file only"),
        (["-o", "{input}"], "output"),
        (["-o", "{out}", "--sample", "-1"], "sample"),
        # second API audit: any Python error handler ran; 'surrogateescape' then failed writing
        # the span file with a traceback, 'ignore' dropped bytes, 'bogus' was a LookupError traceback
        (["-o", "{out}", "--encoding-errors", "surrogateescape"],
         "encoding errors must be one of strict, replace, got 'surrogateescape'"),
        (["-o", "{out}", "--encoding-errors", "ignore"], "encoding errors must be one of strict, replace"),
        # second detection-commands audit: --seed without --sample ran and wrote every text
        (["-o", "{out}", "--seed", "5"], "--seed applies only to --sample N"),
        (["-o", "{out}", "--sample", "2", "--seed", "-1"], "--seed must be a non-negative integer, got -1"),
        # second detection-commands audit: JSON lines were written under a CSV or Parquet name
        (["-o", "{out}.csv"], "is named as comma-separated CSV, but detect writes a span file in JSON Lines"),
        (["-o", "{out}.parquet"], "is named as Parquet, but detect writes a span file in JSON Lines"),
        (["-o", "{out}.txt"], "is named as plain text, but detect writes a span file in JSON Lines"),
        (["-o", "{out}.tsv.gz"], "is named as tab-separated CSV, but detect writes a span file in JSON Lines"),
    ],
)
def test_detect_refuses_with_one_line_and_writes_nothing(tmp_path: Path, args: list[str], message: str) -> None:
    data = tmp_path / "notes.txt"
    data.write_text("Seen by Dr. Okafor.\n", encoding="utf-8")
    out = tmp_path / "spans.jsonl"
    argv = [a.format(input=data, out=out) for a in args]
    result = runner.invoke(app, ["detect", str(data), *argv, "-d", "regex"])
    assert result.exit_code == 2 and message in result.output
    assert len(result.output.strip().splitlines()) == 1 and "Okafor" not in result.output
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]  # nothing written, under any name
    assert data.read_text(encoding="utf-8") == "Seen by Dr. Okafor.\n"


def test_detect_takes_the_llm_options_its_message_names(tmp_path: Path) -> None:
    """Second API audit: 'detect -d llm' said 'the llm detector needs --llm-url and --llm-model',
    options detect did not have ('No such option'); anonymize and evaluate-detection have them."""
    from tests.helpers.llm_stub import Reply, StubLLM

    data = tmp_path / "notes.txt"
    data.write_text("Seen by Dr. Ana Ruiz today.\n", encoding="utf-8")
    out = tmp_path / "spans.jsonl"
    refused = runner.invoke(app, ["detect", str(data), "-o", str(out), "-d", "llm"])
    assert refused.exit_code == 2 and "needs --llm-url and --llm-model" in refused.output
    with StubLLM([Reply("Seen by Dr. @@@Ana Ruiz### today.")]) as stub:
        result = runner.invoke(app, ["detect", str(data), "-o", str(out), "-d", "llm", "--llm-url", stub.url,
                                     "--llm-model", "stub", "-q"])
    assert result.exit_code == 0, result.output
    spans = json.loads(out.read_text(encoding="utf-8"))["spans"]
    assert [(s["text"], s["label"]) for s in spans] == [("Ana Ruiz", "NAME")]


@pytest.mark.default_embedding
def test_detect_with_several_fields_names_each_texts_record_and_field(tmp_path: Path) -> None:
    """With two --field the id (the text's place) of row 2's note was 4: nothing in the line said
    which record or column it came from, and the review page calls that text record 2."""
    data = tmp_path / "visits.csv"
    data.write_text("id,title,note\n1,Visit,Nothing here.\n2,Follow-up,Call 617-555-0143 today.\n",
                    encoding="utf-8")
    out = tmp_path / "spans.jsonl"
    result = runner.invoke(app, ["detect", str(data), "--field", "title", "--field", "note", "-o", str(out),
                                 "-d", "regex", "-q"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["id"], r["record"], r["field"]) for r in lines] == [
        (1, 1, "title"), (2, 1, "note"), (3, 2, "title"), (4, 2, "note")]
    assert lines[3]["text"] == "Call 617-555-0143 today." and lines[3]["spans"][0]["label"] == "PHONE"
    assert len(read_span_file(out)) == 4  # the extra keys read back as they are
    one = tmp_path / "one.jsonl"
    assert runner.invoke(app, ["detect", str(data), "--field", "note", "-o", str(one), "-d", "regex",
                               "-q"]).exit_code == 0
    assert [set(json.loads(line)) for line in one.read_text(encoding="utf-8").splitlines()] == [
        {"id", "text", "spans"}] * 2  # one field: the id is the record


def test_evaluation_intervals_name_the_overlap_row_they_belong_to() -> None:
    """The interval line sat under the typed and exact rows saying 'exact 95% intervals': read as the
    exact row's, it put recall [0.292, 1.000] on an exact recall of 1/3. It is the overlap row's."""
    from embedanon.cli.detection import format_report
    from embedanon.detectors.evaluate import GoldRecord, GoldSpan, evaluate

    text = "Okafor and Okafor met Okaforsen."
    gold = GoldRecord("1", text, (GoldSpan(0, 6, "NAME"), GoldSpan(11, 17, "NAME"), GoldSpan(22, 31, "NAME")))
    report = evaluate([gold], _Fixed())
    assert (report.overlap.found, report.exact.found) == (3, 2)
    line = next(line for line in format_report(report) if "Clopper-Pearson" in line)
    assert line.startswith("overlap row, 95% intervals"), line
    assert "recall [0.292, 1.000]" in line  # 3 of 3: 0.025 ** (1 / 3) = 0.2924


def _ends(line: str, skip: int, count: int) -> list[int]:
    """Where the first ``count`` words after the first ``skip`` characters of ``line`` end."""
    return [skip + m.end() for m in re.finditer(r"\S+", line[skip:])][:count]


def test_evaluation_tables_keep_numbers_under_their_headings_with_long_labels() -> None:
    """A label longer than the first column (ORGANIZATION, 12 characters, or another tool's
    US_DRIVER_LICENSE) pushed its row's numbers two or more places right of their headings; a group
    name over 16 characters did the same in the group table."""
    from embedanon.cli.detection import format_report
    from embedanon.detectors.evaluate import GoldRecord, GoldSpan, evaluate

    text = "Okafor and Okafor met at Acme Incorporated."
    group = "West African (Igbo)"
    gold = GoldRecord("1", text, (GoldSpan(0, 6, "NAME", group), GoldSpan(11, 17, "NAME", group),
                                  GoldSpan(25, 42, "US_DRIVER_LICENSE")))
    lines = format_report(evaluate([gold], _Fixed()))
    head = next(line for line in lines if line.rstrip().endswith("F5"))
    for name in ("overlap", "NAME", "US_DRIVER_LICENSE"):
        row = next(line for line in lines if line.startswith(name + " "))
        assert _ends(row, len(name), 8) == _ends(head, 0, 8), (head, row)
    group_head = next(line for line in lines if line.startswith("group "))
    group_row = next(line for line in lines if line.startswith(group))
    assert _ends(group_row, len(group), 3) == _ends(group_head, len("group"), 3), (group_head, group_row)


def test_detect_compresses_a_span_file_named_so(tmp_path: Path) -> None:
    """Second detection-commands audit: '-o spans.jsonl.gz' wrote plain JSON lines under a gzip
    name ('gunzip' refused it); anonymize compresses an output so named, and so does detect now."""
    import gzip

    data = tmp_path / "notes.txt"
    data.write_text("Call 617-555-0143 today.\n", encoding="utf-8")
    out = tmp_path / "spans.jsonl.gz"
    result = runner.invoke(app, ["detect", str(data), "-o", str(out), "-d", "regex", "-q"])
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    with gzip.open(out, "rt", encoding="utf-8") as fh:
        (line,) = fh.read().splitlines()
    assert json.loads(line)["spans"][0]["label"] == "PHONE"
    scored = runner.invoke(app, ["evaluate-detection", "--data", str(out), "-d", "regex", "--json"])
    assert scored.exit_code == 0 and json.loads(scored.output)["overlap"]["recall"] == 1.0


def test_the_regex_labels_option_takes_a_comma_separated_list(tmp_path: Path) -> None:
    """Second detection-commands audit: '--detector-option regex_labels=PHONE,EMAIL' (the 'labels'
    option the error of a wrong one lists) was read letter by letter and always refused: "regex
    labels must be among ..., got ['P', 'H', 'O', 'N', 'E', ',', ...]"."""
    from embedanon.detectors.regex import RegexDetector

    data = tmp_path / "notes.txt"
    data.write_text("Mail ana@example.org or call 617-555-0143 on 3/4/2019.\n", encoding="utf-8")
    out = tmp_path / "spans.jsonl"
    result = runner.invoke(app, ["detect", str(data), "-o", str(out), "-d", "regex", "-q",
                                 "--detector-option", "regex_labels=PHONE, EMAIL"])
    assert result.exit_code == 0, result.output
    (line,) = out.read_text(encoding="utf-8").splitlines()
    assert [span["label"] for span in json.loads(line)["spans"]] == ["EMAIL", "PHONE"]  # no DATE
    assert RegexDetector(labels="PHONE").labels == RegexDetector(labels=("PHONE",)).labels
    refused = runner.invoke(app, ["detect", str(data), "-o", str(out), "-d", "regex",
                                  "--detector-option", "regex_labels=PHONE,NAME"])
    assert refused.exit_code == 2 and "regex_labels must be among" in refused.output


def test_a_gold_label_that_differs_from_a_known_one_by_case_or_spaces_gets_a_hint() -> None:
    """Second detection-commands audit: a hand-corrected file with 'name' and ' NAME' scored typed
    recall 0 against the detectors' NAME, and the report only listed them among labels the
    detectors do not have; it now asks whether NAME was meant."""
    from embedanon.cli.detection import format_report
    from embedanon.detectors.evaluate import GoldRecord, GoldSpan, evaluate

    gold = GoldRecord("1", "Okafor and Okafor", (GoldSpan(0, 6, "name"), GoldSpan(11, 17, " NAME")))
    lines = format_report(evaluate([gold], _Fixed()))
    assert "labels are compared exactly; did you mean NAME for 'name', NAME for ' NAME'?" in lines
    other = format_report(evaluate([GoldRecord("1", "Okafor", (GoldSpan(0, 6, "PERSON"),))], _Fixed()))
    assert not any("did you mean" in line for line in other)  # another tool's label: no guess


def test_evaluate_detection_shows_progress_and_keeps_stdout_for_the_figures(tmp_path: Path) -> None:
    """A steward's audit: 3,000 MTSamples transcriptions took 40 s with model,regex and not a
    line on stderr (detect, review, anonymize and privacy-report all show progress). It now
    has --progress/-q like detect: counts only, on stderr; stdout keeps the JSON alone."""
    data = tmp_path / "gold.jsonl"
    data.write_text("".join(json.dumps({"id": i, "text": f"Seen by Dr. Okafor on {i} May 2021.",
                                        "spans": []}) + "\n" for i in range(1, 4)), encoding="utf-8")
    result = runner.invoke(app, ["evaluate-detection", "--data", str(data), "-d", "regex", "--json",
                                 "--progress", "plain"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["documents"] == 3
    lines = [line.split(" (")[0] for line in result.stderr.splitlines()]
    assert lines == ["evaluate-detection: reading 0 documents", "evaluate-detection: detecting 0 of 3 documents"]
    assert "Okafor" not in result.stderr
    quiet = runner.invoke(app, ["evaluate-detection", "--data", str(data), "-d", "regex", "--json",
                                "--progress", "plain", "-q"])
    assert quiet.exit_code == 0 and quiet.stderr == ""
    figures = [json.loads(r.stdout) for r in (result, quiet)]
    assert [(f["documents"], f["overlap"]) for f in figures] == [(3, figures[0]["overlap"])] * 2


def test_evaluate_detection_scores_a_saved_span_file_as_it_scores_the_detectors(tmp_path: Path) -> None:
    """Round-trip audit: evaluate-detection read gold spans from a file but could only re-run
    detectors for predictions; a saved detect output, another tool's or a second annotator's
    file could not be scored (decision 0243). The saved output of a detector scores as running
    it does; a file of other records, or of another count, is one line, exit 2."""
    gold = tmp_path / "gold.jsonl"
    gold.write_text(Path("examples/spans.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    saved = tmp_path / "detected.jsonl"
    assert runner.invoke(app, ["detect", str(gold), "-o", str(saved), "-d", "regex", "-q"]).exit_code == 0
    ran = runner.invoke(app, ["evaluate-detection", "--data", str(gold), "-d", "regex", "--json", "-q"])
    read = runner.invoke(app, ["evaluate-detection", "--data", str(gold), "--predictions", str(saved),
                               "--json", "-q"])
    assert ran.exit_code == read.exit_code == 0, read.output
    figures = [json.loads(r.stdout) for r in (ran, read)]
    for f in figures:
        for timing in ("detector", "seconds", "docs_per_second", "megabytes_per_second"):
            f.pop(timing, None)
    assert figures[0] == figures[1]
    lines = saved.read_text(encoding="utf-8").splitlines()
    for name, content, message in [
        ("short", lines[:2], "has 2 records, fewer than the labelled documents"),
        ("long", lines + lines[:1], f"has {len(lines) + 1} records, more than the {len(lines)} labelled"),
        ("reversed", lines[::-1], "record 1 holds another text than labelled document 1"),
    ]:
        bad = tmp_path / f"{name}.jsonl"
        bad.write_text("\n".join(content) + "\n", encoding="utf-8")
        result = runner.invoke(app, ["evaluate-detection", "--data", str(gold), "--predictions", str(bad), "-q"])
        assert result.exit_code == 2 and message in result.output, result.output
        assert len(result.output.splitlines()) == 1
    both = runner.invoke(app, ["evaluate-detection", "--data", str(gold), "--predictions", str(saved), "-d", "regex"])
    assert both.exit_code == 2 and "--detector configures detectors it does not run" in both.output
    neither = runner.invoke(app, ["evaluate-detection", "--data", str(gold)])
    assert neither.exit_code == 2 and "--predictions FILE" in neither.output


def test_detect_numbers_records_as_the_review_page_does(tmp_path: Path) -> None:
    """Round-trip audit: after a blank JSONL line (or a blank CSV row) detect's record 4 was the
    review page's record 5, though its help says records are numbered as review numbers them:
    detect counted only the records with texts. Blank records now count, a CSV header does not."""
    from embedanon.files import iter_numbered_texts

    src = tmp_path / "in.jsonl"
    src.write_text('{"a": "Call Zed Quorvin.", "b": "x"}\n\n{"a": null, "b": "y"}\n'
                   '{"a": "Maria phoned.", "b": "z"}\n', encoding="utf-8")
    out = tmp_path / "spans.jsonl"
    result = runner.invoke(app, ["detect", str(src), "--field", "a", "--field", "b", "-o", str(out), "-q"])
    assert result.exit_code == 0, result.output
    numbers = sorted({json.loads(line)["record"] for line in out.read_text(encoding="utf-8").splitlines()})
    assert numbers == [1, 3, 4]
    csv = tmp_path / "in.csv"
    csv.write_text("a,b\nCall Zed.,x\n\nMaria phoned.,z\n", encoding="utf-8")
    from embedanon import Anonymizer
    from embedanon.review import build_review

    for path, shown in ((src, [1, 3, 4]), (csv, [1, 3])):  # the blank line or row is counted, not shown
        page = build_review(str(path), Anonymizer(seed=1, scope="detected"), fields=["a", "b"], sample=0,
                            sources=())
        assert [r.number for r in page.records] == shown
        assert [n for n, texts in iter_numbered_texts(str(path), fields=["a", "b"]) if any(t.strip() for t in texts)
                ] == shown


def test_an_llm_option_beside_predictions_is_named_by_its_flag(tmp_path: Path) -> None:
    """The refusal named the option's inner name (``llm_url configures ...``), not the flag typed."""
    gold = tmp_path / "gold.jsonl"
    gold.write_text(Path("examples/spans.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    result = runner.invoke(app, ["evaluate-detection", "--data", str(gold), "--predictions", str(gold),
                                 "--llm-url", "http://127.0.0.1:9/v1", "-q"])
    assert result.exit_code == 2
    assert result.output == ("error: --predictions scores a file's spans; --llm-url configures detectors it "
                             "does not run\n")
