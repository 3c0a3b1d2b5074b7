"""`anonymize --spans FILE`: release with the spans of detect's output, corrected by hand
(round-trip audit; decisions 0244, 0245)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedanon.cli import app

runner = CliRunner()

NOTES = [
    "Patient: Kwame Hernandez, seen on 2/27/2018 at Lakeview Family Clinic. Call (604) 555-1791.",
    "Dr. Newton reviewed the Newton method with Maria Okafor on 3/4/2021.",
    "",
    "Zed Quorvin lives in Port Ashby; phone 617-555-0134.",
]


@pytest.fixture
def notes(tmp_path: Path) -> tuple[Path, Path, Path]:
    src = tmp_path / "notes.jsonl"
    # a blank line between records: detect and the run number texts alike
    lines = [json.dumps({"id": i, "text": t}) for i, t in enumerate(NOTES)]
    src.write_text("\n".join(lines[:2]) + "\n\n" + "\n".join(lines[2:]) + "\n", encoding="utf-8")
    key = tmp_path / "k.key"
    assert runner.invoke(app, ["keygen", str(key)]).exit_code == 0
    detected = tmp_path / "detected.jsonl"
    result = runner.invoke(app, ["detect", str(src), "--field", "text", "-o", str(detected), "-q"])
    assert result.exit_code == 0, result.output
    return src, key, detected


def _run(src: Path, key: Path, out: Path, *extra: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["anonymize", str(src), "--field", "text", "--key", str(key), "-o", str(out),
                               "-q", *extra])


@pytest.mark.parametrize("scope", ["detected", "hybrid"])
def test_detects_own_output_releases_as_the_detectors_do(notes, tmp_path: Path, scope: str) -> None:  # type: ignore[no-untyped-def]
    src, key, detected = notes
    assert _run(src, key, tmp_path / "a.jsonl", "--scope", scope).exit_code == 0
    for extra in ([], ["--jobs", "2"]):
        result = _run(src, key, tmp_path / "b.jsonl", "--scope", scope, "--spans", str(detected), *extra)
        assert result.exit_code == 0, result.output
        assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_the_corrections_are_what_is_replaced(notes, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src, key, detected = notes
    records = [json.loads(line) for line in detected.read_text(encoding="utf-8").splitlines()]
    for r in records:  # the steward keeps every date and adds the town the detectors missed
        r["spans"] = [s for s in r["spans"] if s["label"] != "DATE"]
        if "Port Ashby" in r["text"] and not any(s["start"] <= r["text"].index("Port") < s["end"]
                                                 for s in r["spans"]):
            at = r["text"].index("Port Ashby")
            r["spans"] = sorted([*r["spans"], {"start": at, "end": at + 10, "label": "LOCATION"}],
                                key=lambda s: s["start"])
    corrected = tmp_path / "corrected.jsonl"
    corrected.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    report = tmp_path / "report.json"
    result = _run(src, key, tmp_path / "out.jsonl", "--scope", "detected", "--spans", str(corrected),
                  "--report", str(report))
    assert result.exit_code == 0, result.output
    out = [json.loads(line)["text"] for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()
           if line.strip()]
    assert "2/27/2018" in out[0] and "3/4/2021" in out[1]  # kept, as corrected
    assert "Port Ashby" not in out[3] and "Quorvin" not in out[3] and "Kwame" not in out[0]
    settings = json.loads(report.read_text(encoding="utf-8"))["settings"]
    assert settings["span_source"] == "span file" and settings["detectors"] is None


@pytest.mark.parametrize(("edit", "message"), [
    (lambda lines: lines[::-1], "record 1 holds another text than text 1 of"),
    (lambda lines: lines[:2], "has 2 records, fewer than the texts of"),
    (lambda lines: lines + lines[:1], "has 5 records, more than the 4 texts of"),
])
def test_a_span_file_of_other_texts_is_refused_before_any_output(notes, tmp_path: Path, edit, message: str  # type: ignore[no-untyped-def]
                                                                 ) -> None:
    src, key, detected = notes
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(edit(detected.read_text(encoding="utf-8").splitlines())) + "\n", encoding="utf-8")
    result = _run(src, key, tmp_path / "out.jsonl", "--scope", "detected", "--spans", str(bad))
    assert result.exit_code == 2 and message in result.output and len(result.output.splitlines()) == 1
    assert not (tmp_path / "out.jsonl").exists()
    assert "Quorvin" not in result.output


def test_spans_are_refused_where_they_cannot_apply(notes, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src, key, detected = notes
    out = tmp_path / "out.jsonl"
    for extra, message in [
        ([], "scope all replaces every word"),
        (["--scope", "detected", "--detector", "regex"], "--detector configures detectors it does not run"),
    ]:
        result = _run(src, key, out, *extra, "--spans", str(detected))
        assert result.exit_code == 2 and message in result.output, result.output
    overlapping = tmp_path / "overlap.jsonl"
    records = [json.loads(line) for line in detected.read_text(encoding="utf-8").splitlines()]
    records[0]["spans"] = [{"start": 9, "end": 25, "label": "NAME"}, {"start": 15, "end": 25, "label": "NAME"}]
    overlapping.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    result = _run(src, key, out, "--scope", "detected", "--spans", str(overlapping))
    assert result.exit_code == 2 and "record 1: spans [9, 25) NAME and [15, 25) NAME overlap" in result.output
    assert not out.exists()


def test_a_resumed_run_gives_each_text_its_own_spans(notes, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A resumed run skips the records written before: the spans of the texts it skips are
    skipped too, so the rest is released as in one run (the given spans differ from the
    detectors' here, so a shift would show)."""
    import embedanon.files as files
    from embedanon import Anonymizer
    from embedanon.backends.base import build_backend

    src, key, detected = notes
    records = [json.loads(line) for line in detected.read_text(encoding="utf-8").splitlines()]
    for r in records:
        r["spans"] = [s for s in r["spans"] if s["label"] != "NAME"]  # names kept: a shift would show
    corrected = tmp_path / "corrected.jsonl"
    corrected.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    anon = Anonymizer(key=str(key), scope="detected")
    given = files.read_given_spans(str(corrected), str(src), fields=["text"])

    def run(skip: int) -> list[str]:
        out: list[str] = []
        with open(src, "rb") as fh:
            read, writer = files._reader(fh, str(src), "jsonl", ["text"], "strict", True)
            files._run_one(read, lambda r, t: out.append(writer(r, t)), anonymizer=anon,
                           engine=build_backend("processes", jobs=1), stats=files.RunStats(), progress=None,
                           skip=skip, given=given)
        return out

    whole = run(0)
    for skip in (1, 2, 3):
        assert run(skip) == whole[skip:]
    assert "Kwame Hernandez" in whole[0] and "Maria Okafor" in whole[1]


def test_spans_need_one_regular_input_file(notes, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Table audit (stop 58): a named pipe was drained to match the span file, then read again
    by the run, which waited for ever; two inputs were told 'not standard input'."""
    import os

    src, key, detected = notes
    out = tmp_path / "out.jsonl"
    (tmp_path / "od").mkdir()
    other = tmp_path / "other.jsonl"
    other.write_bytes(src.read_bytes())
    result = _run(src, key, tmp_path / "od", "--scope", "detected", "--spans", str(detected), str(other))
    assert result.exit_code == 2 and "2 INPUTs were given" in result.output, result.output
    assert not any((tmp_path / "od").iterdir())
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.jsonl"
        os.mkfifo(fifo)
        result = _run(fifo, key, out, "--scope", "detected", "--spans", str(detected))
        assert result.exit_code == 2 and "needs INPUT as a regular file" in result.output, result.output
    assert not out.exists()


def test_review_shows_the_release_made_with_the_span_file(notes, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Table audit (stop 58): the page re-ran the detectors, so a span the steward deleted was
    shown replaced while the release kept it. review --spans shows anonymize --spans' release."""
    from embedanon.files import read_given_spans
    from embedanon.pipeline import Anonymizer
    from embedanon.review import build_review

    src, key, detected = notes
    records = [json.loads(line) for line in detected.read_text(encoding="utf-8").splitlines()]
    records[3]["spans"] = [s for s in records[3]["spans"] if "Quorvin" not in s.get("text", "")]
    corrected = tmp_path / "corrected.jsonl"
    corrected.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    result = _run(src, key, tmp_path / "out.jsonl", "--scope", "detected", "--spans", str(corrected))
    assert result.exit_code == 0, result.output
    released = [json.loads(line)["text"] for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()
                if line.strip()]
    assert "Zed Quorvin" in released[3]
    anonymizer = Anonymizer(scope="detected", key=str(key))
    given = read_given_spans(str(corrected), str(src), fields=["text"])
    review = build_review(str(src), anonymizer, fields=["text"], sample=0, sources=(), spans=given)
    shown = {r.texts[0].original: r.texts[0].document.text for r in review.records}
    assert [shown[t] for t in NOTES if t] == [r for r, t in zip(released, NOTES, strict=True) if t]
    # as a page, from the command line
    page = tmp_path / "page.html"
    result = runner.invoke(app, ["review", str(src), "--field", "text", "--key", str(key), "-o", str(page),
                                 "--scope", "detected", "--spans", str(corrected), "--sample", "0",
                                 "--no-attacks", "-q"])
    assert result.exit_code == 0, result.output
    plain = tmp_path / "plain.html"
    result = runner.invoke(app, ["review", str(src), "--field", "text", "--key", str(key), "-o", str(plain),
                                 "--scope", "detected", "--sample", "0", "--no-attacks", "-q"])
    assert result.exit_code == 0, result.output
    # the original only; with the span file also the release (and the look-alike list)
    assert plain.read_text(encoding="utf-8").count("Quorvin") == 1
    assert page.read_text(encoding="utf-8").count("Quorvin") >= 2
    result = runner.invoke(app, ["review", str(src), "--field", "text", "--key", str(key), "-o", str(page),
                                 "--spans", str(corrected), "-q"])
    assert result.exit_code == 2 and "scope all replaces every word" in result.output


def test_a_text_cut_for_the_page_keeps_its_spans_before_the_cut() -> None:
    """anonymize_prefix with given spans: a span across the cut is cut there; none after it."""
    from embedanon.detectors.base import Span
    from embedanon.pipeline import Anonymizer
    from embedanon.pipeline.document import anonymize_prefix

    anonymizer = Anonymizer(scope="detected", seed=5)
    text = "Zed Quorvin saw Ann Lee. " + "The knee is better today. " * 40 + "Mary Jones came."
    spans = [Span(0, 11, "NAME", 1.0, "file"), Span(16, 23, "NAME", 1.0, "file"),
             Span(len(text) - 16, len(text) - 6, "NAME", 1.0, "file")]
    doc, cut = anonymize_prefix(text, 20, anonymizer.config, anonymizer.key, spans=spans)
    assert cut < 23 and "Quorvin" not in doc.text
    assert [(i.start, i.end) for i in doc.items if str(i.kind) == "surrogate"][:1] == [(0, 11)]
    whole, _ = anonymize_prefix(text, len(text), anonymizer.config, anonymizer.key, spans=spans)
    assert "Mary Jones" not in whole.text and "Ann Lee" not in whole.text


def test_a_table_of_no_rows_releases_with_its_empty_span_file(tmp_path: Path) -> None:
    """Table audit (stop 58): detect wrote an empty span file for a header-only CSV, and
    anonymize --spans refused it ('no records')."""
    src = tmp_path / "empty.csv"
    src.write_text("id,note\n", encoding="utf-8")
    key = tmp_path / "k.key"
    assert runner.invoke(app, ["keygen", str(key)]).exit_code == 0
    spans = tmp_path / "spans.jsonl"
    assert runner.invoke(app, ["detect", str(src), "--field", "note", "-o", str(spans), "-q"]).exit_code == 0
    out = tmp_path / "out.csv"
    result = runner.invoke(app, ["anonymize", str(src), "--field", "note", "--key", str(key), "-o", str(out),
                                 "--scope", "detected", "--spans", str(spans), "-q"])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8") == "id,note\n"


def test_a_sample_span_file_and_a_table_are_named_for_what_they_are(notes, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Table audit (stop 58): a detect --sample file given to --spans said only 'record 1 holds
    another text', and a table given as a span file 'line 1 is not valid JSON'."""
    src, key, detected = notes
    sample = tmp_path / "sample.jsonl"
    result = runner.invoke(app, ["detect", str(src), "--field", "text", "-o", str(sample), "--sample", "2",
                                 "--seed", "3", "-q"])
    assert result.exit_code == 0, result.output
    result = _run(src, key, tmp_path / "out.jsonl", "--scope", "detected", "--spans", str(sample))
    assert result.exit_code == 2 and "detect --sample writes a sample" in result.output, result.output
    table = tmp_path / "notes.csv"
    table.write_text("id,text\n1,a note\n", encoding="utf-8")
    result = runner.invoke(app, ["evaluate-detection", "--data", str(table), "-d", "regex"])
    assert result.exit_code == 2 and "is named as a table; a span file is JSON Lines" in result.output


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="named pipes are POSIX")
def test_review_reads_a_named_pipe_once(notes, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Final read (stop 59): review read a sample of its input ahead to warn on text that is not
    English, which drained a named pipe, and the page's own read then waited for ever (without
    --quiet). Only a regular file is read ahead; the pipe's page is written."""
    import os
    import subprocess
    import sys
    import threading

    src, key, _ = notes
    fifo, page = tmp_path / "pipe.jsonl", tmp_path / "page.html"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "wb") as fh:
            fh.write(src.read_bytes())

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    result = subprocess.run([sys.executable, "-m", "embedanon", "review", str(fifo), "--field", "text", "--key",
                             str(key), "-o", str(page), "--progress", "none"],
                            capture_output=True, text=True, timeout=180, check=False)
    writer.join(5)
    assert result.returncode == 0, result.stderr
    assert page.exists()
