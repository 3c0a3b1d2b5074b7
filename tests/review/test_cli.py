"""``embedanon review`` through CliRunner and once through a real process: the page shows the
same release as ``anonymize`` under the same key, nothing reaches stdout, bad input is one line."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedanon.cli import app

CANARY = "Zebulonius"
PRECIOUS = "precious output\n"
runner = CliRunner()


def review(emb: Path, *args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["review", *args, "--embedding", str(emb), "--k", "3", "--no-attacks"])


def panes(page: str, side: str) -> list[str]:
    """Texts of the ``orig``/``anon`` panes (tags dropped, entities decoded)."""
    found = re.findall(rf'<div class="pane {side}"><div class="pane-title">\w+</div><div class="text">(.*?)</div>',
                       page, flags=re.S)
    return [unescape(re.sub(r"<[^>]+>", "", p)) for p in found]


def test_txt_page_private_and_silent(tiny_embedding: Path, tmp_path: Path) -> None:
    src = tmp_path / "notes.txt"
    src.write_text(f"{CANARY} has chest pain\nThe doctor saw the patient.\n", encoding="utf-8")
    out = tmp_path / "review.html"
    result = review(tiny_embedding, str(src), "-o", str(out), "--seed", "1")
    assert result.exit_code == 0, result.output
    # one summary line on stderr (counts, the verdict), nothing else
    (line,) = result.output.splitlines()
    assert re.fullmatch(r"reviewed 2 of 2 records in [0-9.]+ s: (PASS|FAIL|n/a)[^\n]*; \d+ unchanged "
                        r"look-alikes to check", line), line
    quiet = review(tiny_embedding, str(src), "-o", str(out), "--seed", "1", "-q")
    assert quiet.exit_code == 0 and quiet.output == ""
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    page = out.read_text(encoding="utf-8")
    assert panes(page, "orig") == [f"{CANARY} has chest pain", "The doctor saw the patient."]
    assert page.count('<article class="record"') == 2
    verbose = review(tiny_embedding, str(src), "-o", str(out), "--seed", "1", "-v")
    assert verbose.exit_code == 0 and CANARY not in verbose.output and "change rate" in verbose.output


def test_jsonl_page_shows_the_release_of_anonymize(tiny_embedding: Path, tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    rows = [{"id": i, "text": f"the patient {i} has fever", "note": f"{CANARY} visit today"} for i in range(5)]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "review.html"
    common = ["--field", "text", "--field", "note", "--seed", "9", "--embedding", str(tiny_embedding),
              "--k", "3"]
    result = runner.invoke(app, ["review", str(src), "-o", str(out), "--no-attacks", *common])
    assert result.exit_code == 0, result.output
    released = tmp_path / "out.jsonl"
    assert runner.invoke(app, ["anonymize", str(src), "-o", str(released), *common]).exit_code == 0
    expected = [v for line in released.read_text(encoding="utf-8").splitlines()
                for k, v in json.loads(line).items() if k in ("text", "note")]
    page = out.read_text(encoding="utf-8")
    assert panes(page, "anon") == expected
    assert 'field <code><bdi>note</bdi></code>' in page


def test_a_compressed_tsv_is_read_with_tabs(tiny_embedding: Path, tmp_path: Path) -> None:
    import gzip

    src = tmp_path / "notes.tsv.gz"
    src.write_bytes(gzip.compress(b"id\ttext\n1\tthe patient, a man, has fever\n"))
    out = tmp_path / "review.html"
    result = review(tiny_embedding, str(src), "-o", str(out), "--field", "text", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert panes(out.read_text(encoding="utf-8"), "orig") == ["the patient, a man, has fever"]


def test_sample_is_deterministic_under_the_seed(tiny_embedding: Path, tmp_path: Path) -> None:
    src = tmp_path / "many.txt"
    src.write_text("".join(f"the patient {i} was seen\n" for i in range(40)), encoding="utf-8")

    def numbers(seed: str) -> list[str]:
        out = tmp_path / f"r{seed}.html"
        assert review(tiny_embedding, str(src), "-o", str(out), "--sample", "3", "--seed", seed).exit_code == 0
        return re.findall(r'<article class="record" id="record-(\d+)"', out.read_text(encoding="utf-8"))

    first = numbers("1")
    assert len(first) == 3 and first == numbers("1")
    assert any(numbers(s) != first for s in ("2", "3", "4"))
    out = tmp_path / "all.html"
    assert review(tiny_embedding, str(src), "-o", str(out), "--sample", "0", "--seed", "1").exit_code == 0
    assert out.read_text(encoding="utf-8").count('<article class="record"') == 40


def _bad_cases(tmp: Path) -> list[tuple[str, list[str], str]]:
    txt = tmp / "notes.txt"
    txt.write_text(f"{CANARY} has pain\n", encoding="utf-8")
    jsonl = tmp / "bad.jsonl"
    jsonl.write_text(f'{{"text": "{CANARY}"}}\n{{"text": "{CANARY}" \n', encoding="utf-8")
    nofield = tmp / "nofield.jsonl"
    nofield.write_text(f'{{"other": "{CANARY}"}}\n', encoding="utf-8")
    headless = tmp / "headless.csv"
    headless.write_text(f"{CANARY},pain\nMary,ache\n", encoding="utf-8")
    out = str(tmp / "out.html")
    return [
        ("missing input", [str(tmp / "nope.txt"), "-o", out], "input not found"),
        ("negative sample", [str(txt), "-o", out, "--sample", "-1"], "sample must be between"),
        ("sample over the cap", [str(txt), "-o", out, "--sample", "1001"], "sample must be between"),
        ("stdout", [str(txt), "-o", "-"], "regular file only"),
        ("empty output", [str(txt), "-o", ""], "output path is empty; name a file"),  # not '-'
        ("device", [str(txt), "-o", "/dev/null"], "regular file only"),
        ("directory", [str(txt), "-o", str(tmp)], "is a directory"),
        ("same as input", [str(txt), "-o", str(txt)], "same file as input"),
        ("field on txt", [str(txt), "-o", out, "--field", "x"], "--field applies to jsonl, csv, tsv, parquet input"),
        ("field twice", [str(jsonl), "-o", out, "--field", "text", "--field", "text"], "--field 'text' is given twice"),
        ("bad json", [str(jsonl), "-o", out], "line 2 is not valid JSON"),
        ("missing field", [str(nofield), "-o", out], "has no field 'text'"),
        ("headerless csv", [str(headless), "-o", out], "no column 'text'"),
        ("epsilon on knn", [str(txt), "-o", out, "--epsilon", "1"], "epsilon"),
        ("unknown mechanism", [str(txt), "-o", out, "-m", "nope"], "nope"),
        # second detection-commands audit: a page of original text under a release's name (or a
        # compressed one, written as plain HTML) could be taken for the release and sent with it
        ("data file name", [str(txt), "-o", str(tmp / "notes.anon.csv")],
         "is named as a .csv data file, but review writes an HTML page holding the original text"),
        ("compressed name", [str(txt), "-o", str(tmp / "review.html.gz")], "is named as compressed (gzip)"),
        # a CLI audit: a caption file's name is a data file's too
        ("caption file name", [str(txt), "-o", str(tmp / "release.vtt")],
         "is named as a .vtt data file, but review writes an HTML page"),
        # second detection-commands audit: a threshold for a figure the page never measures held nothing
        ("multi-release threshold", [str(txt), "-o", out, "--threshold", "releases_top1=0.1"],
         "--threshold releases_top1: the page measures one release"),
        ("attack threshold without attacks", [str(txt), "-o", out, "--no-attacks", "--threshold",
                                              "attack_oov_top1=0.5"],
         "--threshold attack_oov_top1 applies only with the attacks (drop --no-attacks)"),
    ]


BAD_CASES = ["missing input", "negative sample", "sample over the cap", "stdout", "empty output", "device",
             "directory",
             "same as input", "field on txt", "field twice", "bad json", "missing field", "headerless csv",
             "epsilon on knn", "unknown mechanism", "data file name", "compressed name", "caption file name",
             "multi-release threshold", "attack threshold without attacks"]


def test_bad_case_names_cover_the_table(tmp_path: Path) -> None:
    assert [c[0] for c in _bad_cases(tmp_path)] == BAD_CASES


@pytest.mark.parametrize("name", BAD_CASES)
def test_bad_input_is_one_line_exit_2_and_nothing_written(name: str, tiny_embedding: Path,
                                                          tmp_path: Path) -> None:
    case = {c[0]: c for c in _bad_cases(tmp_path)}[name]
    out = tmp_path / "out.html"
    out.write_text(PRECIOUS, encoding="utf-8")
    before = sorted(os.listdir(tmp_path))
    result = review(tiny_embedding, *case[1])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and case[2] in lines[0], result.output
    assert CANARY not in result.output
    assert out.read_text(encoding="utf-8") == PRECIOUS and sorted(os.listdir(tmp_path)) == before


@pytest.mark.slow
def test_real_process(tiny_embedding: Path, tmp_path: Path) -> None:
    src = tmp_path / "notes.txt"
    src.write_text(f"{CANARY} has chest pain\n", encoding="utf-8")
    out = tmp_path / "review.html"
    proc = subprocess.run(
        [sys.executable, "-m", "embedanon", "review", str(src), "-o", str(out), "--seed", "2",
         "--embedding", str(tiny_embedding), "--k", "3"],
        capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert CANARY not in proc.stdout + proc.stderr and proc.stdout == ""
    page = out.read_text(encoding="utf-8")
    assert CANARY in page and "words recovered, public prior, top-1" in page  # the attacks ran
    assert proc.stderr.startswith("reviewed 1 of 1 records")


def test_progress_goes_to_stderr_in_stages_and_never_holds_text(tiny_embedding: Path, tmp_path: Path) -> None:
    src = tmp_path / "notes.txt"
    src.write_text("".join(f"{CANARY} {i} has chest pain\n" for i in range(5)), encoding="utf-8")
    out = tmp_path / "review.html"
    proc = subprocess.run(
        [sys.executable, "-m", "embedanon", "review", str(src), "-o", str(out), "--seed", "2",
         "--embedding", str(tiny_embedding), "--k", "3", "--progress", "plain"],
        capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout == "" and CANARY not in proc.stderr
    # a first run on the embedding also says that it builds its neighbor table (cached after)
    lines = [line for line in proc.stderr.splitlines() if not line.startswith("building neighbor table")]
    stages = [re.match(r"review: (\w+) ", line).group(1) for line in lines[:-1]]  # type: ignore[union-attr]
    assert stages[0] == "reading" and "anonymizing" in stages and "measuring" in stages
    assert stages[-1] == "writing" and "review: anonymizing 1 of 5 texts (" in proc.stderr
    assert lines[-1].startswith("reviewed 5 of 5 records in ")


def test_a_threshold_moves_the_verdict_and_a_wrong_one_is_refused(tiny_embedding: Path, tmp_path: Path) -> None:
    src = tmp_path / "notes.txt"
    src.write_text("the patient has chest pain\n", encoding="utf-8")
    out = tmp_path / "review.html"
    lenient = review(tiny_embedding, str(src), "-o", str(out), "--seed", "1", "--threshold", "s_w=0")
    plain = review(tiny_embedding, str(src), "-o", str(out), "--seed", "1")
    assert plain.exit_code == lenient.exit_code == 0, lenient.output

    def failed(output: str) -> int:
        found = re.search(r"FAIL: (\d+) of", output)
        return 0 if found is None else int(found.group(1))

    assert failed(lenient.output) == failed(plain.output) - 1  # S_w (below 5 here) meets 0
    assert "change_rate" not in plain.output and "FAIL" in out.read_text(encoding="utf-8")
    out.write_text(PRECIOUS, encoding="utf-8")
    wrong = review(tiny_embedding, str(src), "-o", str(out), "--seed", "1", "--threshold", "nothing=1")
    assert wrong.exit_code == 2 and "unknown figure 'nothing'" in wrong.output
    assert out.read_text(encoding="utf-8") == PRECIOUS


def test_epsilon_spent_counts_word_parts(tiny_embedding: Path, tmp_path: Path) -> None:
    """QA pass 4: the page said 13 words for a record whose release drew the mechanism 20 times."""
    src = tmp_path / "hy.txt"
    src.write_text("The well-known follow-up of a left-sided non-small-cell mass was re-evaluated in the "
                   "x-ray.\n", encoding="utf-8")
    out = tmp_path / "review.html"
    result = runner.invoke(app, ["review", str(src), "-o", str(out), "--embedding", str(tiny_embedding),
                                 "-m", "exponential", "--epsilon", "14", "--seed", "1", "--no-attacks"])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert "longest record 20 word parts" in page and "n\u00b7\u03b5 = 280 spent" in page
    assert "(&#x27;well-known&#x27; is 2 parts)" in page  # the example word quoted


def test_the_figures_a_page_measures_without_attacks_are_the_ones_it_takes_thresholds_for(
        tiny_embedding: Path, tmp_path: Path) -> None:
    """The table behind '--threshold ... applies only with the attacks': every figure a
    --no-attacks page judges must be in it, or a threshold for it would be refused wrongly."""
    from embedanon import Anonymizer
    from embedanon.cli.review import _WITHOUT_ATTACKS
    from embedanon.review import build_review, default_sources

    notes = tmp_path / "notes.txt"
    notes.write_text("the patient was seen today\nthe doctor had a fever\n", encoding="utf-8")
    judged = set()
    for mechanism, params in (("knn", {"k": 3}), ("exponential", {"epsilon": 12.0})):
        anonymizer = Anonymizer(str(tiny_embedding), mechanism, seed=1, **params)
        page = build_review(str(notes), anonymizer, sources=default_sources(attacks=False))
        assert page.verdict is not None
        judged |= {check.figure.partition(":")[0] for check in page.verdict.checks}
    assert judged == _WITHOUT_ATTACKS
