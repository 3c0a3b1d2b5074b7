"""``embedanon calibrate`` and ``embedanon privacy-report`` through CliRunner (and one subprocess)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from embedanon.cli import app
from embedanon.vectors.defaults import home_dir

from ..conftest import TINY_WORDS, make_store

runner = CliRunner()


@pytest.fixture(scope="module")
def tiny_name() -> str:
    """The 8-word tiny embedding saved under $EMBEDANON_HOME, usable with --embedding."""
    name = "tiny-cli-privacy"
    target = home_dir() / "embeddings" / name
    if not (target / "meta.json").is_file():
        make_store(TINY_WORDS).save(target)
    return name


def _stderr(result) -> str:  # type: ignore[no-untyped-def]
    try:
        return result.stderr
    except ValueError:  # older click: stderr mixed into output
        return result.output


def test_calibrate_knn_writes_csv_and_png(tiny_name: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["calibrate", "-m", "knn", "--k", "3,2", "--embedding", tiny_name,
                                 "--words", "8", "--draws", "200", "-o", str(tmp_path / "cal")])
    assert result.exit_code == 0, result.output
    csv_path = tmp_path / "cal" / "calibration-knn.csv"
    assert (tmp_path / "cal" / "calibration-knn.png").read_bytes()[:4] == b"\x89PNG"
    with open(csv_path, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    # knn never keeps the word and (w.p. > 1 - 1e-30) shows all k outputs in 200 draws
    assert [(r["parameter"], float(r["value"]), float(r["n_w_mean"]), float(r["s_w_mean"])) for r in rows] \
        == [("k", 2.0, 0.0, 2.0), ("k", 3.0, 0.0, 3.0)]
    lines = result.stdout.splitlines()
    assert lines[0].split()[:2] == ["k", "N_w"] and len(lines) == 5  # header, 2 rows, 2 paths


def test_a_run_without_plot_names_an_earlier_plot_beside_its_csv(tiny_name: str, tmp_path: Path) -> None:
    """Found by the experiment audit: 'calibrate --epsilon 50,60 --plot' then '--epsilon 5 --no-plot'
    left calibration-laplace.png of 50 and 60 beside the CSV of 5, saying nothing."""
    common = ["calibrate", "-m", "knn", "--embedding", tiny_name, "--words", "8", "--draws", "20",
              "-o", str(tmp_path)]
    assert runner.invoke(app, [*common, "--k", "2,3", "--plot"]).exit_code == 0
    again = runner.invoke(app, [*common, "--k", "4", "--no-plot"])
    assert again.exit_code == 0, again.output
    assert f"note: {tmp_path / 'calibration-knn.png'} is from an earlier run (this one drew no plot)" \
        in _stderr(again)
    (tmp_path / "calibration-knn.png").unlink()
    quiet = runner.invoke(app, [*common, "--k", "4", "--no-plot"])
    assert "earlier run" not in _stderr(quiet)


@pytest.mark.parametrize("mechanism", ["laplace", "mahalanobis"])
def test_calibrate_epsilon_below_the_float_range_of_the_radius(mechanism: str, tiny_name: str,
                                                               tmp_path: Path) -> None:
    """QA B2: epsilon below about 1e-305 overflowed the noise radius and ended in RuntimeError."""
    result = runner.invoke(app, ["calibrate", "-m", mechanism, "--epsilon", "1e-310,5e-324", "--embedding",
                                 tiny_name, "--words", "8", "--draws", "20", "--no-plot", "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert _stderr(result) == "" and len(result.stdout.splitlines()) == 4  # header, 2 rows, path


@pytest.mark.parametrize("value", ["1,0", "-1", "nan", "inf", "abc", "1,,5"])
def test_bad_epsilon_list_is_one_line_and_exit_2(value: str, tiny_name: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["calibrate", "-m", "laplace", "--epsilon", value,
                                 "--embedding", tiny_name, "-o", str(tmp_path)])
    assert result.exit_code == 2
    err = _stderr(result).strip()
    assert err.startswith("error: epsilon must be") and "\n" not in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("args", "message"), [
    (["-m", "knn", "--epsilon", "1,2"], "takes no epsilon"),
    (["-m", "knn"], "needs --k"),
    (["-m", "laplace"], "needs --epsilon"),
    (["-m", "knn", "--k", "0"], "k must be"),
    (["-m", "nope", "--epsilon", "1"], "unknown mechanism"),
    (["-m", "knn", "--k", "2", "--draws", "0"], "draws must be"),
])
def test_calibrate_usage_errors(args: list[str], message: str, tiny_name: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["calibrate", *args, "--embedding", tiny_name, "-o", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert message in _stderr(result) and len(_stderr(result).strip().splitlines()) == 1


def test_privacy_report_prints_counts_never_text(tiny_name: str, tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_text("Alpha bravo, charlie delta! echo 42 foxtrot.\ngolf hotel alpha\n", encoding="utf-8")
    result = runner.invoke(app, ["privacy-report", "-m", "knn", "--k", "2", "--embedding", tiny_name,
                                 "--seed", "1", str(path)])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "tokens:               13 " in out
    assert "word tokens:          9\n" in out
    assert "change rate:          1.000" in out
    assert "N_w:                  0.000" in out
    assert "S_w:                  2.0" in out
    assert "uniform / oracle:" in out and "not applicable" in out
    for word in TINY_WORDS:  # neither the input nor any replacement is printed
        assert word not in out.lower()


def test_privacy_report_epsilon_spent(tiny_name: str, tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_text("alpha bravo charlie\ndelta\n", encoding="utf-8")
    result = runner.invoke(app, ["privacy-report", "-m", "laplace", "--epsilon", "2", "--embedding",
                                 tiny_name, "--seed", "1", "--mc-draws", "20", str(path)])
    assert result.exit_code == 0, result.output
    assert "longest document: 3 x 2 = 6; whole input: 4 x 2 = 8" in result.stdout


def test_privacy_report_errors(tiny_name: str, tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_text("alpha\n", encoding="utf-8")
    result = runner.invoke(app, ["privacy-report", "-m", "laplace", "--epsilon", "-1",
                                 "--embedding", tiny_name, str(path)])
    assert result.exit_code == 2 and "epsilon must be a finite number > 0" in _stderr(result)
    result = runner.invoke(app, ["privacy-report", "--k", "2", "--embedding", tiny_name,
                                 str(tmp_path / "missing.txt")])
    assert result.exit_code == 2 and "input not found" in _stderr(result)
    path.write_bytes(b"caf\xe9\n")
    result = runner.invoke(app, ["privacy-report", "--k", "2", "--embedding", tiny_name, str(path)])
    assert result.exit_code == 2 and "not valid UTF-8" in _stderr(result)


def test_subprocess_bad_epsilon(tmp_path: Path) -> None:
    env = {**os.environ, "EMBEDANON_HOME": str(tmp_path), "EMBEDANON_CACHE": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "embedanon", "calibrate", "-m", "laplace",
                           "--epsilon", "5,0"], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "error: epsilon must be a comma-separated list of finite numbers > 0, got '0' in '5,0'"
    ]


def _scoped_report(tiny_name: str, tmp_path: Path, *args: str) -> Result:
    """privacy-report on 12 word tokens of which one name (2 tokens) is detected (a deny entry)."""
    path = tmp_path / "in.txt"
    path.write_text("alpha bravo charlie delta echo foxtrot golf hotel\nalpha bravo charlie delta\n",
                    encoding="utf-8")
    deny = tmp_path / "deny.txt"
    deny.write_text("NAME\tcharlie\n", encoding="utf-8")
    result = runner.invoke(app, ["privacy-report", "-m", "knn", "--k", "2", "--embedding", tiny_name,
                                 "--seed", "1", "--draws", "5", "--no-contextual", str(path), *args])
    assert result.exit_code == 0, result.output
    for word in TINY_WORDS:  # counts only: neither the input nor any replacement
        assert word not in result.stdout.lower()
    return result


def test_privacy_report_detected_scope_describes_the_release(tiny_name: str, tmp_path: Path) -> None:
    """QA: in scope detected the report said 12 of 12 words changed (the full-scope release) while
    the release keeps every word outside the detected spans; now it counts the release."""
    args = ("--scope", "detected", "--detector", "regex", "--deny", str(tmp_path / "deny.txt"),
            "--strategy", "DEFAULT=mechanism")  # the mechanism, not the default surrogates
    out = _scoped_report(tiny_name, tmp_path, *args).stdout
    assert "change rate:          0.167  (2 of 12 word tokens changed)" in out
    assert "released by:          mechanism 2, unchanged (verbatim) 10, surrogate, redaction or name guard 0" in out
    assert "10 of 12 word tokens are released unchanged (outside the detected spans)" in out
    assert "measure only the 2 of 12 word tokens the mechanism released" in out
    data = json.loads(_scoped_report(tiny_name, tmp_path, *args, "--json").stdout)
    assert data["report"]["change"]["change_rate"] == pytest.approx(2 / 12)
    assert data["release"] == {"scope": "detected", "word_tokens": 12, "changed_words": 2,
                               "change_rate": pytest.approx(2 / 12), "verbatim_words": 10,
                               "mechanism_words": 2, "surrogate_or_redacted_words": 0,
                               "mechanism_parts": 2, "longest_document_mechanism_parts": 1,
                               "longest_record_mechanism_parts": 1}
    # N_w, S_w and the attacks read only the mechanism's two tokens (one word type)
    assert data["report"]["stats_words"] == 1
    assert data["attacks"]["invocab_tokens"] == 2


def test_privacy_report_hybrid_and_all_keep_their_figures(tiny_name: str, tmp_path: Path) -> None:
    """Hybrid changes every word (surrogates in the span, the mechanism elsewhere); the attacks
    read the 10 words the mechanism released, not the surrogates. Full scope: all 12."""
    data = json.loads(_scoped_report(tiny_name, tmp_path, "--scope", "hybrid", "--detector", "regex",
                                     "--deny", str(tmp_path / "deny.txt"), "--json").stdout)
    assert data["release"] == {"scope": "hybrid", "word_tokens": 12, "changed_words": 12, "change_rate": 1.0,
                               "verbatim_words": 0, "mechanism_words": 10, "surrogate_or_redacted_words": 2,
                               "mechanism_parts": 10, "longest_document_mechanism_parts": 7,
                               "longest_record_mechanism_parts": 7}
    assert data["attacks"]["invocab_tokens"] == 10
    assert "2 of 12 word tokens are surrogates, redactions or redrawn by the name guard" in data["warnings"][-1]
    assert "unchanged" not in data["warnings"][-1]
    data = json.loads(_scoped_report(tiny_name, tmp_path, "--json").stdout)
    assert data["release"] == {"scope": "all", "word_tokens": 12, "changed_words": 12, "change_rate": 1.0,
                               "verbatim_words": 0, "mechanism_words": 12, "surrogate_or_redacted_words": 0,
                               "mechanism_parts": 12, "longest_document_mechanism_parts": 8,
                               "longest_record_mechanism_parts": 8}
    assert data["attacks"]["invocab_tokens"] == 12 and data["report"]["stats_words"] == 8
    assert not [w for w in data["warnings"] if "scope" in w]


def test_calibrate_recommends_an_epsilon_for_a_target(tiny_name: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["calibrate", "-m", "exponential", "--epsilon", "0.5,2,8,32", "--target",
                                 "n_w=0.5", "--embedding", tiny_name, "--no-plot", "-o", str(tmp_path),
                                 "--draws", "50"])
    assert result.exit_code == 0, result.output
    line = next(x for x in result.stdout.splitlines() if x.startswith("recommendation:"))
    assert "--epsilon" in line or "no epsilon measured" in line
    bad = runner.invoke(app, ["calibrate", "-m", "exponential", "--target", "n_w=7", "--embedding", tiny_name])
    assert bad.exit_code == 2 and "--target must be FIGURE=LIMIT" in bad.output


def test_calibrate_shows_progress_on_stderr_when_asked(tiny_name: str, tmp_path: Path) -> None:
    """`calibrate --target attack_top1=...` ran 6 minutes without a word on the terminal (found by
    running docs/privacy/epsilon.md's examples): it now has --progress and -q like review."""
    args = ["calibrate", "-m", "knn", "--k", "2,3", "--embedding", tiny_name, "--words", "8", "--draws", "20",
            "--no-plot", "-o", str(tmp_path)]
    shown = runner.invoke(app, [*args, "--progress", "plain"])
    assert shown.exit_code == 0, shown.output
    assert _stderr(shown).splitlines()[0].startswith("calibrate: measuring 0 of 2 values (")
    assert shown.stdout.splitlines()[0].split()[:2] == ["k", "N_w"]  # the table stays on stdout
    quiet = runner.invoke(app, [*args, "--progress", "plain", "-q"])
    assert quiet.exit_code == 0 and "calibrate:" not in quiet.output
    # train audit: -q still printed its notes and 'wrote ...'; the table stays
    assert "wrote " not in quiet.output and "note: " not in quiet.output
    assert quiet.stdout.splitlines()[0].split()[:2] == ["k", "N_w"]
    target = runner.invoke(app, [*args[:4], "2,4", "--target", "attack_top1=0.5", *args[5:], "--progress", "plain"])
    assert target.exit_code == 0, target.output
    assert _stderr(target).splitlines()[0].startswith("calibrate: measuring 0 values (")


def test_calibrate_and_recommend_report_each_value_measured(tiny_name: str) -> None:
    from embedanon.privacy.calibration import calibrate
    from embedanon.privacy.recommend import recommend

    seen: list[float] = []
    rows = calibrate("knn", [2, 3], parameter="k", embedding=tiny_name, words=8, draws=20,
                     on_value=lambda row: seen.append(row.value))
    assert seen == [r.value for r in rows] == [2.0, 3.0]
    seen.clear()
    advice = recommend("knn", "attack_top1", 0.5, values=[2, 4], parameter="k", embedding=tiny_name, words=8,
                       draws=20, on_value=lambda row: seen.append(row.value))
    assert sorted(seen) == sorted(r.value for r in advice.rows)  # the bisection's values too


def test_without_matplotlib_calibrate_writes_the_csv_unless_a_plot_is_asked_for(
        tiny_name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README says calibrate writes a CSV 'and a plot with the plot extra', but on a plain
    install docs/cli.md's 'calibrate -m laplace --epsilon 10,20,40 -o calibration/' ended in
    'error: plotting needs matplotlib' (found on the clone `make demo` installed)."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    args = ["calibrate", "-m", "knn", "--k", "2,3", "--embedding", tiny_name, "--words", "8", "--draws", "20"]
    result = runner.invoke(app, [*args, "-o", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["calibration-knn.csv"]
    assert "no plot: pip install embedanon[plot] for one" in _stderr(result)
    asked = runner.invoke(app, [*args, "--plot", "-o", str(tmp_path / "b")])
    assert asked.exit_code == 2 and "plotting needs matplotlib" in asked.output
    assert not (tmp_path / "b").exists()


def test_words_above_the_candidate_pool_say_they_were_capped(tiny_name: str, tmp_path: Path) -> None:
    """Left by an audit: 'calibrate --words 8000' on the default embedding sampled its 5,000
    most frequent candidates and said nothing (the CSV's words column read 5000)."""
    result = runner.invoke(app, ["calibrate", "-m", "knn", "--k", "2", "--embedding", tiny_name,
                                 "--words", "500", "--draws", "5", "-o", str(tmp_path), "--no-plot"])
    assert result.exit_code == 0, result.output
    with open(tmp_path / "calibration-knn.csv", encoding="utf-8") as fh:
        sampled = int(next(csv.DictReader(fh))["words"])
    assert sampled < 500
    notes = [line for line in _stderr(result).splitlines() if "--words" in line]
    assert notes == [f"note: --words 500 is more than the {sampled} most frequent candidate words it "
                     f"samples from; all {sampled} were used"]
    within = runner.invoke(app, ["calibrate", "-m", "knn", "--k", "2", "--embedding", tiny_name,
                                 "--words", str(sampled), "--draws", "5", "-o", str(tmp_path), "--no-plot"])
    assert within.exit_code == 0 and "--words" not in _stderr(within)
