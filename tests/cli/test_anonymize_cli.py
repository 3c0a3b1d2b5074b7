"""The anonymize command: formats, record preservation, bad input, a real subprocess."""

from __future__ import annotations

import csv
import json
import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedanon.cli import anonymize_app, app

pytestmark = pytest.mark.default_embedding
runner = CliRunner()


def run(*args: str, input: str | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["anonymize", *args], input=input)


def test_txt_file_to_file(tmp_path: Path) -> None:
    src = tmp_path / "notes.txt"
    src.write_text("John has chest pain.\r\nSeen 2023-01-15.\n\nLast line", encoding="utf-8")
    out = tmp_path / "out.txt"
    result = run(str(src), "-o", str(out), "--seed", "1")
    assert result.exit_code == 0, result.output
    text = out.read_bytes().decode()
    assert text.count("\r\n") == 1 and text.count("\n") == 3  # line endings kept exactly
    assert "John" not in text and "chest" not in text
    assert text.split("\r\n")[0].endswith(".")


_VTT = ("WEBVTT\r\n\r\n1\r\n00:00:01.000 --> 00:00:04.500\r\nDoctor: Hello Maria, how is the knee?\r\n\r\n"
        "2\r\n00:00:04.900 --> 00:00:09.120\r\nMaria: Better since Monday.\r\n")


@pytest.mark.parametrize("scope", ["detected", "hybrid"])
def test_a_caption_file_is_one_record_and_stays_a_caption_file(tmp_path: Path, scope: str) -> None:
    """Decision 0195: a .vtt is one record (its cues one conversation: Maria in the label and in a
    cue get one surrogate), written back with its line endings, signature, numbers and timings."""
    src = tmp_path / "call.vtt"
    src.write_bytes(_VTT.encode())
    out = tmp_path / "out.vtt"
    result = run(str(src), "-o", str(out), "--seed", "1", "--scope", scope)
    assert result.exit_code == 0, result.output
    assert "anonymized 1 record" in result.output
    lines = out.read_bytes().decode().split("\r\n")
    kept = _VTT.split("\r\n")
    assert [lines[k] for k in (0, 1, 2, 3, 5, 6, 7, 9)] == [kept[k] for k in (0, 1, 2, 3, 5, 6, 7, 9)]
    assert "Maria" not in "".join(lines)
    first = lines[4].removeprefix("Doctor: ").split(" ")[1].rstrip(",")
    assert lines[8].startswith(f"{first}: ")
    # read as text (--format txt), each line is a record
    result = run(str(src), "-o", str(tmp_path / "lines.vtt"), "--seed", "1", "--scope", scope, "--format", "txt")
    assert "anonymized 9 records" in result.output


def test_a_field_of_a_caption_file_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "call.srt"
    src.write_text("1\n00:00:01,000 --> 00:00:02,000\nHi.\n", encoding="utf-8")
    result = run(str(src), "--field", "note", "--seed", "1")
    assert result.exit_code == 2
    assert "call.srt is read as one text (a .srt file is one record)" in result.output


def test_stdin_to_stdout_and_console_script_alias() -> None:
    a = runner.invoke(anonymize_app, ["-", "--seed", "4"], input="Mary visited Boston\n")
    b = run("-", "--seed", "4", input="Mary visited Boston\n")
    assert a.exit_code == b.exit_code == 0
    assert a.stdout == b.stdout and a.stdout.count("\n") == 1 and "Mary" not in a.stdout


def test_jsonl_only_named_fields_change(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    records = [
        {"id": 1, "text": "John Smith has pain", "note": "keep me", "score": 1.5},
        {"id": 2, "text": None, "note": "null text stays null", "nested": {"a": [1, 2]}},
        {"id": 3, "text": "Mary", "note": "Mary"},
    ]
    src.write_text("\n".join(json.dumps(r) for r in records) + "\n\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    result = run(str(src), "-o", str(out), "--seed", "2")
    assert result.exit_code == 0, result.output
    lines = out.read_text(encoding="utf-8").split("\n")
    assert len(lines) == 5 and lines[3] == "" and lines[4] == ""  # blank line kept
    got = [json.loads(line) for line in lines[:3]]
    for before, after in zip(records, got):
        assert list(before) == list(after)  # same keys, same order
        for key in before:
            if key != "text" or before[key] is None:
                assert after[key] == before[key]
    assert got[0]["text"] != records[0]["text"] and got[2]["text"] != "Mary"


def test_jsonl_several_fields(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text('{"a": "John", "b": "Mary", "c": "Paul"}\n', encoding="utf-8")
    result = run(str(src), "--field", "a", "--field", "b", "--seed", "1")
    assert result.exit_code == 0, result.output
    rec = json.loads(result.stdout)
    assert rec["a"] != "John" and rec["b"] != "Mary" and rec["c"] == "Paul"


def test_csv_only_named_columns_change(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    rows = [["id", "text", "label"], ["1", "John, the patient, said \"ouch\"", "pain"],
            ["2", "multi\nline note about Mary", "x"], ["3", "", "empty"]]
    with open(src, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    out = tmp_path / "out.csv"
    result = run(str(src), "-o", str(out), "--seed", "3")
    assert result.exit_code == 0, result.output
    with open(out, newline="", encoding="utf-8") as fh:
        got = list(csv.reader(fh))
    assert len(got) == len(rows) and got[0] == rows[0]
    for before, after in zip(rows[1:], got[1:]):
        assert after[0] == before[0] and after[2] == before[2]
    assert got[1][1] != rows[1][1] and got[1][1].count(",") == 2 and got[1][1].count('"') == 2
    assert got[2][1].count("\n") == 1 and got[3][1] == ""


def test_several_inputs_into_directory(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("John\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("Mary\n", encoding="utf-8")
    outdir = tmp_path / "out"
    outdir.mkdir()
    result = run(str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "-o", str(outdir))
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in outdir.iterdir()) == ["a.txt", "b.txt"]


def test_missing_output_directory_is_created_private_and_removed_on_failure(tmp_path: Path) -> None:
    """Issue 34: the README's ``-o outdir/`` failed on a fresh checkout. A directory named by
    several inputs or a trailing separator is created (0700: it holds anonymized text); a run
    that fails leaves no directory behind."""
    (tmp_path / "a.txt").write_text("John\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("Mary\n", encoding="utf-8")
    both = str(tmp_path / "a.txt"), str(tmp_path / "b.txt")
    result = run(*both, "-o", str(tmp_path / "new" / "out"), "--seed", "1")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "new" / "out").iterdir()) == ["a.txt", "b.txt"]
    assert (tmp_path / "new" / "out").stat().st_mode & 0o777 == 0o700
    result = run(both[0], "-o", str(tmp_path / "one") + "/", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert [p.name for p in (tmp_path / "one").iterdir()] == ["a.txt"]
    (tmp_path / "bad.jsonl").write_text("{broken\n", encoding="utf-8")
    result = run(both[0], str(tmp_path / "bad.jsonl"), "-o", str(tmp_path / "gone" / "deeper") + "/")
    assert result.exit_code == 2 and "not valid JSON" in result.stderr
    assert not (tmp_path / "gone").exists()


def test_csv_gz_and_parquet_one_liners(tmp_path: Path) -> None:
    """Issue 34: MTSamples ships as .csv.gz; the documented one-liners read it and Parquet."""
    import gzip

    pq = pytest.importorskip("pyarrow.parquet")
    rows = [["note_id", "transcription"], ["1", "John Smith, 54, has chest pain."], ["2", ""]]
    plain = tmp_path / "notes.csv"
    with open(plain, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    (tmp_path / "notes.csv.gz").write_bytes(gzip.compress(plain.read_bytes()))
    key = tmp_path / "release.key"
    assert runner.invoke(app, ["keygen", str(key)]).exit_code == 0
    a = run(str(tmp_path / "notes.csv.gz"), "--field", "transcription", "--key", str(key), "-o", str(tmp_path / "a.csv"))
    b = run(str(plain), "--field", "transcription", "--key", str(key), "-o", str(tmp_path / "b.csv.gz"))
    assert a.exit_code == b.exit_code == 0, a.output + b.output
    assert (tmp_path / "a.csv").read_bytes() == gzip.decompress((tmp_path / "b.csv.gz").read_bytes())
    out = (tmp_path / "a.csv").read_text(encoding="utf-8")
    # whole words: a surrogate such as "Richard Johnson" holds "John" as a substring
    assert re.search(r"\bJohn\b", out) is None and re.search(r"\bSmith\b", out) is None, out
    import pyarrow as pa

    pq.write_table(pa.table({"note_id": [1, 2], "transcription": [rows[1][1], None]}), tmp_path / "notes.parquet")
    c = run(str(tmp_path / "notes.parquet"), "--field", "transcription", "--key", str(key), "-o",
            str(tmp_path / "c.parquet"))
    assert c.exit_code == 0, c.output
    got = pq.read_table(tmp_path / "c.parquet").to_pydict()
    with open(tmp_path / "a.csv", newline="", encoding="utf-8") as fh:
        assert got == {"note_id": [1, 2], "transcription": [list(csv.reader(fh))[1][1], None]}


def test_jobs_do_not_change_output(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text("".join(f"Patient {i} John Smith has pain {i}\n" for i in range(300)), encoding="utf-8")
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    assert run(str(src), "-o", str(one), "--seed", "8").exit_code == 0
    assert run(str(src), "-o", str(two), "--seed", "8", "--jobs", "2").exit_code == 0
    assert one.read_text() == two.read_text()


def _bad(tmp_path: Path) -> dict[str, tuple[list[str], str]]:
    good = tmp_path / "good.txt"
    good.write_text("John\n", encoding="utf-8")
    latin = tmp_path / "latin1.txt"
    latin.write_bytes("ok line\ncaf\xe9\n".encode("latin-1"))
    jsonl = tmp_path / "bad.jsonl"
    jsonl.write_text('{"text": "John"}\n{"text": "Mary"\n{"text": "Paul"}\n', encoding="utf-8")
    nofield = tmp_path / "nofield.jsonl"
    nofield.write_text('{"text": "John"}\n{"body": "Mary"}\n', encoding="utf-8")
    notobj = tmp_path / "list.jsonl"
    notobj.write_text('[1, 2]\n', encoding="utf-8")
    numfield = tmp_path / "num.jsonl"
    numfield.write_text('{"text": 5}\n', encoding="utf-8")
    csvfile = tmp_path / "t.csv"
    csvfile.write_text("id,body\n1,John\n", encoding="utf-8")
    return {
        "missing input": ([str(tmp_path / "nope.txt")], "input not found"),
        "directory input": ([str(tmp_path)], "input is a directory"),
        "invalid utf-8": ([str(latin)], "line 2 is not valid UTF-8"),
        "malformed jsonl": ([str(jsonl)], "line 2 is not valid JSON"),
        "missing field": ([str(nofield)], "line 2 has no field 'text'"),
        "not an object": ([str(notobj)], "line 1 is a JSON array, not an object"),
        "field not a string": ([str(numfield)], "field 'text' is a JSON number, not a string"),
        "missing csv column": ([str(csvfile)], "no column 'text'"),
        "k zero": ([str(good), "--k", "0"], "k must be an integer >= 1"),
        "k too large": ([str(good), "--k", "999999"], "k must be at most"),
        "unknown embedding": ([str(good), "--embedding", "nope"], "unknown embedding 'nope'"),
        "unknown mechanism": ([str(good), "--mechanism", "magic"], "unknown mechanism 'magic'"),
        "epsilon with knn": ([str(good), "--epsilon", "1"], "does not take 'epsilon'"),
        "output is input": ([str(good), "-o", str(good)], "same file as input"),
        "bad format": ([str(good), "--format", "xml"], "format must be one of"),
        "field on txt": ([str(good), "--field", "x"], "--field applies to jsonl, csv, tsv, parquet input"),
        # audit: a field named twice was anonymized twice and its words and epsilon counted twice
        "field twice": ([str(csvfile), "--field", "text", "--field", "text"], "--field 'text' is given twice"),
        "bad jobs": ([str(good), "--jobs", "0"], "jobs must be an integer >= 1"),
        "bad encoding errors": ([str(good), "--encoding-errors", "ignore"], "encoding errors must be"),
        "missing output dir": ([str(good), "-o", str(tmp_path / "no" / "out.txt")],
                               "output directory does not exist"),
        "detector option without value": ([str(good), "--scope", "hybrid", "--detector-option", "model_path"],
                                          "detector option must look like DETECTOR_OPTION=VALUE"),
        "unknown detector option": ([str(good), "--scope", "hybrid", "--detector", "regex",
                                     "--detector-option", "regex_colour=1"], "has no option regex_colour"),
        "bad detector threshold": ([str(good), "--scope", "hybrid", "--detector", "model",
                                    "--detector-option", "model_threshold=2"], "threshold must be"),
    }


CASES = ["missing input", "directory input", "invalid utf-8", "malformed jsonl", "missing field",
         "not an object", "field not a string", "missing csv column", "k zero", "k too large",
         "unknown embedding", "unknown mechanism", "epsilon with knn", "output is input", "bad format",
         "field on txt", "field twice", "bad jobs", "bad encoding errors", "missing output dir",
         "detector option without value", "unknown detector option", "bad detector threshold"]


@pytest.mark.parametrize("case", CASES)
def test_bad_input_one_line_exit_2_no_output(tmp_path: Path, case: str) -> None:
    table = _bad(tmp_path)
    assert sorted(table) == sorted(CASES)
    args, message = table[case]
    before = set(os.listdir(tmp_path))
    out_args = [] if "-o" in args else ["-o", str(tmp_path / "result.out")]
    result = run(*args, *out_args)
    assert result.exit_code == 2, (case, result.output)
    err = result.stderr.strip()
    assert err.startswith("error: ") and message in err, err
    assert len(err.splitlines()) == 1 and "Traceback" not in result.output
    assert set(os.listdir(tmp_path)) == before, "partial output left behind"


def test_encoding_errors_replace(tmp_path: Path) -> None:
    latin = tmp_path / "latin1.txt"
    latin.write_bytes("ok line\ncaf\xe9\n".encode("latin-1"))
    result = run(str(latin), "--encoding-errors", "replace", "--seed", "1")
    assert result.exit_code == 0 and result.stdout.count("\n") == 2


def test_failure_midway_leaves_previous_output_untouched(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text('{"text": "a"}\n' * 50 + "{broken\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    out.write_text("precious\n", encoding="utf-8")
    result = run(str(src), "-o", str(out))
    assert result.exit_code == 2 and "line 51" in result.stderr
    assert out.read_text() == "precious\n"
    assert sorted(os.listdir(tmp_path)) == ["in.jsonl", "out.jsonl"]


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0"])
def test_invalid_epsilon_rejected_even_before_mechanism_check(tmp_path: Path, value: str) -> None:
    src = tmp_path / "in.txt"
    src.write_text("John\n", encoding="utf-8")
    result = run(str(src), "--epsilon", value)
    assert result.exit_code == 2 and "epsilon" in result.stderr


def test_real_subprocess(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text("Patient John Smith, 54, has chest pain.\n", encoding="utf-8")
    env = {**os.environ}
    ok = subprocess.run([sys.executable, "-m", "embedanon", "anonymize", str(src)],
                        capture_output=True, text=True, env=env, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert not re.search(r"\bJohn\b", ok.stdout) and ok.stdout.count("\n") == 1
    # every run ends with one summary line on stderr: counts and time, never text; -q: nothing
    assert re.fullmatch(r"anonymized 1 record \(1 text, 0\.00 MB\) from 1 input in \d+\.\d s\n", ok.stderr)
    quiet = subprocess.run([sys.executable, "-m", "embedanon", "anonymize", str(src), "-q"],
                           capture_output=True, text=True, env=env, timeout=120)
    assert quiet.returncode == 0 and quiet.stdout == ok.stdout and quiet.stderr == ""
    plain = subprocess.run([sys.executable, "-m", "embedanon", "anonymize", str(src),
                            "--progress", "plain"], capture_output=True, text=True, env=env, timeout=120)
    assert plain.returncode == 0 and plain.stdout == ok.stdout
    lines = plain.stderr.splitlines()
    assert "100 % done" in lines[-2] and lines[-1].startswith("anonymized 1 record") and "John" not in plain.stderr
    # with progress, only notices (first-use table builds), progress lines and the summary, never text
    assert all(line.startswith(("building ", "anonymizing: ", "anonymized ")) for line in lines)
    bad = subprocess.run([sys.executable, "-m", "embedanon", "anonymize", str(tmp_path / "x.txt")],
                         capture_output=True, text=True, env=env, timeout=120)
    assert bad.returncode == 2 and bad.stderr.strip() == f"error: input not found: {tmp_path / 'x.txt'}"


def test_progress_bar_only_on_a_terminal(tmp_path: Path) -> None:
    import pty

    src = tmp_path / "in.txt"
    src.write_text("John has pain\n" * 50, encoding="utf-8")
    main, secondary = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "embedanon", "anonymize", str(src), "-o", str(tmp_path / "o.txt")],
            stderr=secondary, stdout=subprocess.DEVNULL, timeout=120,
        )
        os.close(secondary)
        shown = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(main)
    assert proc.returncode == 0
    assert b"anonymizing" in shown and b"100%" in shown
    quiet = subprocess.run([sys.executable, "-m", "embedanon", "anonymize", str(src), "-q"],
                           capture_output=True, text=True, timeout=120)
    assert quiet.returncode == 0 and quiet.stderr == ""


@pytest.mark.parametrize(("value", "message"), [
    ("0", "epsilon must be a finite number > 0, got 0.0"),
    ("-1", "epsilon must be a finite number > 0, got -1.0"),
    ("nan", "epsilon must be a finite number > 0, got nan"),
    ("inf", "epsilon must be a finite number > 0, got inf"),
    ("abc", "error: invalid value for '--epsilon'"),
])
def test_invalid_epsilon_for_a_metric_dp_mechanism(tmp_path: Path, value: str, message: str) -> None:
    src = tmp_path / "in.txt"
    src.write_text("John\n", encoding="utf-8")
    result = run(str(src), "--mechanism", "laplace", "--epsilon", value, "-o", str(tmp_path / "o.txt"))
    assert result.exit_code == 2 and message in result.stderr and len(result.stderr.splitlines()) == 1
    assert not (tmp_path / "o.txt").exists()


@pytest.mark.parametrize("mechanism", ["laplace", "mahalanobis", "exponential", "tem"])
def test_epsilon_mechanisms_run_from_the_cli(tmp_path: Path, mechanism: str) -> None:
    src = tmp_path / "in.txt"
    src.write_text("John Smith has chest pain.\nMary has a cough.\n", encoding="utf-8")
    a = run(str(src), "--mechanism", mechanism, "--epsilon", "5", "--seed", "3")
    b = run(str(src), "--mechanism", mechanism, "--epsilon", "5", "--seed", "3")
    assert a.exit_code == 0, a.output
    assert a.stdout == b.stdout and a.stdout.count("\n") == 2
    assert a.stdout != src.read_text()  # at epsilon 5 nearly every word changes (see calibration)


@pytest.mark.parametrize(("mechanism", "options"), [
    ("exponential", ["--epsilon", "710"]), ("exponential", ["--epsilon", "1e300"]),
    ("tem", ["--gamma", "2", "--epsilon", "1e6"]), ("laplace", ["--epsilon", "1e-300"]),
    ("laplace", ["--epsilon", "1e-40"]), ("mahalanobis", ["--epsilon", "1e-300"]),
    ("laplace", ["--epsilon", "1e-310"]), ("mahalanobis", ["--epsilon", "5e-324"]),
    ("mahalanobis", ["--epsilon", "1e300"])])
def test_every_finite_epsilon_runs(tmp_path: Path, mechanism: str, options: list[str]) -> None:
    """Any finite epsilon > 0 works: huge ones release (nearly) every word unchanged, tiny ones
    give noise (issue 6 item 9: exp() overflowed at epsilon >= 710; Laplace noise overflowed
    float32 at 1e-40)."""
    src = tmp_path / "in.txt"
    src.write_text("the patient has chest pain\n", encoding="utf-8")
    result = run(str(src), "--mechanism", mechanism, *options, "--seed", "3")
    assert result.exit_code == 0, result.output
    out = result.stdout.split()
    assert len(out) == 5 and all(w.isalpha() for w in out)
    huge = float(options[-1]) > 1
    assert (out == src.read_text().split()) == huge


def test_epsilon_required_by_metric_dp_mechanisms(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text("John\n", encoding="utf-8")
    result = run(str(src), "--mechanism", "laplace")
    assert result.exit_code == 2 and "epsilon" in result.stderr


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_csv_keeps_line_endings(tmp_path: Path, ending: str) -> None:
    src = tmp_path / "in.csv"
    src.write_bytes(ending.join(["id,text", "1,John has pain", "2,Mary", ""]).encode())
    out = tmp_path / "out.csv"
    assert run(str(src), "-o", str(out), "--seed", "1").exit_code == 0
    data = out.read_bytes().decode()
    assert data.count(ending) == 3 and data.startswith("id,text" + ending)
    if ending == "\n":
        assert "\r" not in data


def test_byte_order_marks_are_kept(tmp_path: Path) -> None:
    jsonl = tmp_path / "bom.jsonl"
    jsonl.write_bytes('\ufeff{"text": "John"}\n{"text": "Mary"}\n'.encode())
    out = tmp_path / "out.jsonl"
    assert run(str(jsonl), "-o", str(out), "--seed", "1").exit_code == 0
    data = out.read_text(encoding="utf-8")
    assert data.startswith('\ufeff{"text": ') and data.count("\n") == 2 and "John" not in data
    csvfile = tmp_path / "bom.csv"
    csvfile.write_bytes("\ufefftext,id\nJohn,1\n".encode())
    out_csv = tmp_path / "out.csv"
    assert run(str(csvfile), "-o", str(out_csv), "--seed", "1").exit_code == 0
    rows = out_csv.read_text(encoding="utf-8").splitlines()
    assert rows[0] == "\ufefftext,id" and rows[1].endswith(",1") and not rows[1].startswith("John")


def test_a_txt_byte_order_mark_changes_no_output(tmp_path: Path) -> None:
    """QA 5A (bom_repro.sh): with a BOM, record 1 of a .txt was released unlike the same line
    without one, and unlike the same text in JSONL. Now only the kept BOM differs."""
    line = "John Smith was seen today\n"
    outputs = {}
    for name, data in (("plain.txt", line), ("bom.txt", "\ufeff" + line),
                       ("bom.jsonl", "\ufeff" + json.dumps({"text": line[:-1]}) + "\n")):
        (tmp_path / name).write_bytes(data.encode())
        result = run(str(tmp_path / name), "-o", str(tmp_path / f"out-{name}"), "--seed", "3")
        assert result.exit_code == 0, result.output
        outputs[name] = (tmp_path / f"out-{name}").read_text(encoding="utf-8")
    assert outputs["bom.txt"] == "\ufeff" + outputs["plain.txt"] and "Smith" not in outputs["plain.txt"]
    assert json.loads(outputs["bom.jsonl"].removeprefix("\ufeff"))["text"] + "\n" == outputs["plain.txt"]


def test_csv_field_longer_than_the_csv_module_default(tmp_path: Path) -> None:
    src = tmp_path / "long.csv"
    src.write_text("id,text\n1," + "pain " * 40_000 + "\n", encoding="utf-8")  # 200 KB field
    result = run(str(src), "--seed", "1", "-o", str(tmp_path / "o.csv"))
    assert result.exit_code == 0, result.output


def test_detector_options_reach_the_detector(tmp_path: Path) -> None:
    """A near-1 threshold makes the model flag nothing: in detected scope the text then stays."""
    src = tmp_path / "in.txt"
    src.write_text("Please call John Smith tomorrow about the results.\n", encoding="utf-8")
    outs = {}
    for threshold in ("0.5", "0.999999"):
        out = tmp_path / f"out-{threshold}.txt"
        result = run(str(src), "-o", str(out), "--seed", "1", "--scope", "detected", "--detector", "model",
                     "--detector-option", f"model_threshold={threshold}")
        assert result.exit_code == 0, result.output
        outs[threshold] = out.read_text(encoding="utf-8")
    assert "John" not in outs["0.5"]
    assert outs["0.999999"] == src.read_text(encoding="utf-8")


def test_neutral_formats_flag(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text("Call +44 20 7946 0958 today.\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    result = run(str(src), "-o", str(out), "--seed", "1", "--neutral-formats")
    assert result.exit_code == 0, result.output
    assert re.search(r"\+00 \d{3} \d{3} \d{4}", out.read_text(encoding="utf-8"))


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_failed_detection_is_one_notice_and_a_report_count(tmp_path: Path, jobs: str) -> None:
    """QA W2: an LLM detector that answers nonsense makes every record fall back to full scope;
    that used to happen silently. One notice line (counts, no text), the count in the report,
    and the output is the same as before."""
    from tests.helpers.llm_stub import Reply, StubLLM

    src = tmp_path / "in.txt"
    src.write_text("Please call John Smith tomorrow.\nMary Jones was seen.\n\n", encoding="utf-8")
    out, report = tmp_path / "out.txt", tmp_path / "r.json"
    with StubLLM([Reply(body=b"<html>down for maintenance</html>")]) as stub:
        result = runner.invoke(app, [
            "anonymize", str(src), "-o", str(out), "--scope", "hybrid", "--detector", "llm",
            "--llm-url", stub.url + "/chat/completions", "--llm-model", "m", "--report", str(report),
            "--jobs", jobs])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[:-1] == ["notice: detection failed on 2 of 3 records; they were "
                                               "released in full scope (every word perturbed)"]
    assert re.fullmatch(r"anonymized \d+ records? .* s", result.stderr.splitlines()[-1])
    assert json.loads(report.read_text(encoding="utf-8"))["counts"]["full_scope_fallbacks"] == 2
    assert out.read_text(encoding="utf-8") == runner.invoke(
        app, ["anonymize", str(src)]).stdout  # full scope, byte for byte


def test_report_epsilon_counts_the_word_tokens_privacy_report_counts(tmp_path: Path) -> None:
    """QA pass 3: the report counted numbers and codes (redrawn uniformly, no epsilon) as words,
    so its epsilon spent disagreed with privacy-report and review."""
    from embedanon.privacy.metrics import change_stats
    from embedanon.text import mechanism_draws

    texts = ["Seen on 2024-03-15 at 10:30, BP 120/80, dose 5 mg x3 follow-up.", "COVID19 test 42 negative"]
    src = tmp_path / "in.txt"
    src.write_text("\n".join(texts) + "\n", encoding="utf-8")
    report = tmp_path / "r.json"
    result = run(str(src), "-o", str(tmp_path / "out.txt"), "-m", "exponential",
                 "--epsilon", "13", "--report", str(report))
    assert result.exit_code == 0, result.output
    data = json.loads(report.read_text(encoding="utf-8"))
    spent = data["epsilon"]
    words = [change_stats(t, t).word_tokens for t in texts]  # privacy-report's count
    assert words == [7, 2] and data["counts"]["word_tokens"] == 9  # Seen on at BP dose mg follow-up
    draws = [mechanism_draws(t) for t in texts]
    assert draws == [8, 2]  # x3 is a code; the mechanism draws each part of follow-up
    assert spent["longest_text_draws"] == 8 and spent["whole_input"] == 13.0 * 10


@pytest.mark.parametrize(("scope", "draws"), [("detected", 2), ("hybrid", 7)])
def test_report_epsilon_counts_only_what_the_mechanism_released_outside_scope_all(
        tmp_path: Path, scope: str, draws: int) -> None:
    """QA pass 6: in scope detected every word token was counted as drawn (12 of 12) although only
    the detected spans go through the mechanism; in hybrid the surrogates were counted too."""
    src = tmp_path / "in.txt"
    src.write_text("Write to ana.ruiz@example.org or call Zorblat Quexley today.\n", encoding="utf-8")
    report = tmp_path / "r.json"
    deny = tmp_path / "deny.txt"
    deny.write_text("NAME\tZorblat Quexley\n", encoding="utf-8")
    result = run(str(src), "-o", str(tmp_path / "out.txt"), "-m", "exponential", "--epsilon",
                 "13", "--scope", scope, "--detector", "regex", "--deny", str(deny), "--strategy",
                 "NAME=mechanism", "--strategy", "EMAIL=surrogate", "--report", str(report))
    assert result.exit_code == 0, result.output
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["settings"]["word_lists"] == {"allow": 0, "deny": 1}  # counts, never the entries
    assert "Zorblat" not in report.read_text(encoding="utf-8")
    # detected: Zorblat, Quexley; hybrid: those and the 5 words outside the spans (the e-mail is a surrogate)
    assert data["counts"]["drawn_parts"] == draws and data["epsilon"]["whole_input"] == 13.0 * draws
    assert "spend none" in data["epsilon"]["note"]
    assert "releases ('well-known' is 2 parts) spends epsilon" in data["epsilon"]["note"]


@pytest.mark.parametrize(("args", "guard"), [
    (["--scope", "hybrid"], True), (["--scope", "hybrid", "--no-name-guard"], False),
    (["--scope", "detected"], None), ([], None)])
def test_report_and_verbose_say_whether_the_name_guard_ran(tmp_path: Path, args: list[str],
                                                           guard: bool | None,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    """Decision 0380: hybrid's name guard is a setting of the release, in the run report and -v."""
    caplog.set_level(logging.INFO, logger="embedanon.cli.anonymize")
    src = tmp_path / "in.txt"
    src.write_text("We met Nick at the station today.\n", encoding="utf-8")
    report = tmp_path / "r.json"
    scoped = [*args, "--detector", "regex"] if args else []
    result = run(str(src), "-o", str(tmp_path / "out.txt"), "-v", "--seed", "1", "--report", str(report),
                 *scoped)
    assert result.exit_code == 0, result.output
    assert json.loads(report.read_text(encoding="utf-8"))["settings"]["name_guard"] is guard
    said = {True: "; name guard on", False: "; name guard off"}.get(guard)  # type: ignore[arg-type]
    logged = caplog.text + result.stderr
    assert (said in logged) if said else ("name guard" not in logged)
    assert "Nick" not in logged


@pytest.mark.parametrize(("args", "notice"), [
    (["--scope", "detected", "-m", "exponential", "--epsilon", "14", "--strategy", "DEFAULT=mechanism"], True),
    (["--scope", "hybrid", "-m", "laplace", "--epsilon", "50", "--strategy", "NAME=mechanism"], True),
    (["--scope", "detected", "-m", "exponential", "--epsilon", "14"], False),  # surrogates by default
    (["--scope", "detected", "--strategy", "DEFAULT=mechanism"], False),  # knn never returns its input
    (["--scope", "hybrid", "-m", "exponential", "--epsilon", "14"], False),  # surrogates
    (["--scope", "detected", "-m", "exponential", "--epsilon", "14", "--strategy", "DEFAULT=surrogate"], False),
    (["-m", "exponential", "--epsilon", "14"], False),  # scope all: no span is special
])
def test_a_notice_when_an_epsilon_mechanism_may_keep_a_detected_span(tmp_path: Path, args: list[str],
                                                                     notice: bool) -> None:
    """QA pass 3: at epsilon 14, 'Dr. John Smith saw Sarah Davis' came back with both names in
    scope detected; nothing said that a detected span can survive."""
    src = tmp_path / "in.txt"
    src.write_text("Dr. John Smith saw Sarah Davis today.\n", encoding="utf-8")
    if args[0] == "--scope":
        args = [*args, "--detector", "regex", "--deny", str(_deny(tmp_path))]
    result = run(str(src), "-o", str(tmp_path / "out.txt"), *args)
    assert result.exit_code == 0, result.output
    assert ("a detected span can come back unchanged" in result.stderr) == notice
    assert "John" not in result.stderr and "Sarah" not in result.stderr
    quiet = run(str(src), "-o", str(tmp_path / "q.txt"), "-q", *args)
    assert quiet.exit_code == 0 and quiet.stderr == ""


@pytest.mark.parametrize(("strategies", "warned"), [
    (["DEFAULT=keep"], True), (["DEFAULT=keep", "NAME=surrogate"], False), ([], False)])
def test_a_warning_when_scope_detected_keeps_every_label(tmp_path: Path, strategies: list[str],
                                                          warned: bool) -> None:
    """Verbatim audit: ``--scope detected --strategy DEFAULT=keep`` wrote its input back unchanged
    and said 'anonymized'. Now a warning says so, and --quiet does not hide it."""
    src = tmp_path / "in.txt"
    src.write_text("Dr. John Smith saw Sarah Davis today.\n", encoding="utf-8")
    flags = [x for s in strategies for x in ("--strategy", s)]
    for quiet in ([], ["-q"]):
        result = run(str(src), "-o", str(tmp_path / f"out{len(quiet)}.txt"), "--scope", "detected",
                     "--detector", "regex", "--deny", str(_deny(tmp_path)), *flags, *quiet)
        assert result.exit_code == 0, result.output
        assert ("nothing is replaced" in result.stderr) == warned
        assert "John" not in result.stderr and "Sarah" not in result.stderr


def _deny(tmp_path: Path) -> Path:
    deny = tmp_path / "deny.tsv"
    deny.write_text("NAME\tJohn Smith\nNAME\tSarah Davis\n", encoding="utf-8")
    return deny


def test_report_of_an_epsilon_past_the_largest_float_is_valid_json(tmp_path: Path) -> None:
    """Privacy audit: at --epsilon 1e308 the report wrote 'longest_text': Infinity (13 x 1e308),
    which is not JSON, and said 'e^inf' and '= inf' in words. A total past the largest float is
    null, and said as 'more than 1.8e+308' (decision 0370)."""
    src = tmp_path / "in.txt"
    src.write_text("The patient walked to the clinic on Monday and felt much better.\n", encoding="utf-8")
    report = tmp_path / "r.json"
    result = run(str(src), "-o", str(tmp_path / "out.txt"), "-m", "exponential", "--epsilon", "1e308",
                 "--report", str(report))
    assert result.exit_code == 0, result.output

    def no_constant(name: str) -> None:
        raise AssertionError(f"the report holds {name}, which JSON has not")

    spent = json.loads(report.read_text(encoding="utf-8"), parse_constant=no_constant)["epsilon"]
    assert spent["per_word"] == 1e308 and spent["longest_text_draws"] == 12
    assert spent["longest_text"] is None and spent["whole_input"] is None
    words = " ".join(spent["in_words"].values())
    assert "inf" not in words.replace("information", "") and words.count("more than 1.8e+308") == 4
    # a total that fits is still a number
    fits = tmp_path / "fits.json"
    result = run(str(src), "-o", str(tmp_path / "out2.txt"), "-m", "exponential", "--epsilon", "1e300",
                 "--report", str(fits))
    assert result.exit_code == 0, result.output
    assert json.loads(fits.read_text(encoding="utf-8"))["epsilon"]["longest_text"] == 12 * 1e300


def test_tab_separated_standard_input_with_format_tsv(tmp_path: Path) -> None:
    """Standard input was read as comma-separated whatever it held (--format tsv was refused):
    a TAB header was one column and --field found nothing, or a header with a comma anonymized
    part of a cell (detection-commands audit). --format tsv reads it as a .tsv file is read."""
    tsv = "note,x\tid\nJohn Smith, has pain\t1\nMary Jones\t2\n"
    src = tmp_path / "in.tsv"
    src.write_text(tsv, encoding="utf-8")
    from_file = run(str(src), "--seed", "4", "--field", "note,x")
    from_stdin = run("-", "--format", "tsv", "--seed", "4", "--field", "note,x", input=tsv)
    assert from_file.exit_code == from_stdin.exit_code == 0, from_stdin.output
    assert from_stdin.stdout == from_file.stdout
    rows = list(csv.reader(from_stdin.stdout.splitlines(), delimiter="\t"))
    assert [row[1] for row in rows] == ["id", "1", "2"] and "Smith" not in from_stdin.stdout
    named = run("-", "--format", "tsv", "--seed", "4", "--field", "note,x", "-o", str(tmp_path / "o.csv"),
                input=tsv)
    assert named.exit_code == 2 and "tab-separated CSV for <stdin>; name the output .tsv" in named.output


def test_report_epsilon_of_a_record_adds_all_its_fields(tmp_path: Path) -> None:
    """Privacy audit: with --field a --field b the report's 'per_record' sentence said the longest
    record spends 13 x 10 (its longest field), where the row releases both fields and spends
    (7 + 13) x 10 = 200 by basic composition. longest_record_draws counts a record's fields together;
    longest_text_draws stays the longest single text."""
    src = tmp_path / "in.csv"
    src.write_text('id,a,b\n1,"The patient walked to the clinic today.","She said the pain was worse at night '
                   'and better in the morning."\n2,"No fever.","Cough at night."\n', encoding="utf-8")
    report = tmp_path / "r.json"
    result = run(str(src), "-o", str(tmp_path / "out.csv"), "--field", "a", "--field", "b", "-m",
                 "exponential", "--epsilon", "10", "--report", str(report))
    assert result.exit_code == 0, result.output
    spent = json.loads(report.read_text(encoding="utf-8"))["epsilon"]
    assert spent["longest_text_draws"] == 13 and spent["longest_text"] == 130.0
    assert spent["longest_record_draws"] == 20 and spent["longest_record"] == 200.0
    assert "the longest record has 20 such parts" in spent["in_words"]["per_record"]


def test_report_counts_the_words_the_name_guard_redrew(tmp_path: Path) -> None:
    """Decision 0380: a word the guard redraws leaves the epsilon count; the run report said only
    that the guard ran, so the words that left the count were nowhere (an audit's finding). Now
    ``counts.name_guard_redraws`` says how many: with the guard off, the mechanism draws them."""
    src = tmp_path / "in.txt"
    src.write_text("yesterday we met Nick and Stuart near the station, said Carter to the nurse.\n",
                   encoding="utf-8")
    counts = {}
    for guard in ("--name-guard", "--no-name-guard"):
        report = tmp_path / f"r{guard}.json"
        result = run(str(src), "-o", str(tmp_path / f"out{guard}.txt"), "--seed", "1", "-m", "exponential",
                     "--epsilon", "2000", "--scope", "hybrid", "--detector", "regex", guard,
                     "--report", str(report))
        assert result.exit_code == 0, result.output
        counts[guard] = json.loads(report.read_text(encoding="utf-8"))["counts"]
        assert "Nick" not in report.read_text(encoding="utf-8")
    guarded = counts["--name-guard"]["name_guard_redraws"]
    assert guarded == 3  # Nick, Stuart, Carter: at epsilon 2,000 the mechanism returns each as itself
    assert counts["--no-name-guard"]["name_guard_redraws"] == 0
    assert counts["--no-name-guard"]["drawn_parts"] == counts["--name-guard"]["drawn_parts"] + guarded


def test_a_private_embedding_is_named_in_a_notice_after_the_run(tmp_path: Path) -> None:
    """Decision 0237: an embedding others may not read gives only public words, and the run says
    so on its last lines (a failure stays one line); --candidates names the list instead."""
    from tests.helpers.embeddings import write_glove

    common = ["patient", "doctor", "nurse", "clinic", "pain", "heart", "chest", "river", "table", "window",
              "music", "green", "house"]
    glove = write_glove(tmp_path / "mine.glove.txt", common)
    glove.chmod(0o600)
    src = tmp_path / "in.txt"
    src.write_text("patient doctor pain\n", encoding="utf-8")
    result = run(str(src), "-o", str(tmp_path / "out.txt"), "--seed", "1", "--embedding", str(glove))
    assert result.exit_code == 0, result.output
    notices = [line for line in result.stderr.splitlines() if line.startswith("notice: embedding ")]
    assert notices == [f"notice: embedding {glove} is not readable by everyone, so its words may be your "
                       "notes'; replacements come only from its words in the bundled public word list "
                       "(--candidates FILE names another public list)"]
    words = tmp_path / "words.txt"
    words.write_text("".join(w + "\n" for w in common), encoding="utf-8")
    listed = run(str(src), "-o", str(tmp_path / "out2.txt"), "--seed", "1", "--embedding", str(glove),
                 "--candidates", str(words))
    assert listed.exit_code == 0 and "notice: embedding" not in listed.stderr
