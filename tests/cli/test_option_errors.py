"""Bad and conflicting options: one line on stderr naming the option, exit 2, nothing written.

Word-list files (``--allow``/``--deny``), usage errors of every command, options that would be
silently ignored, an llm detector without its endpoint, absurd ``--jobs``, a malformed Dask
address and a process started with stderr closed. A tiny embedding keeps the runs fast.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedanon import Anonymizer
from embedanon.cli import app
from embedanon.cli.options import word_lists
from embedanon.errors import ConfigError
from tests.helpers.embeddings import write_glove

runner = CliRunner()
CANARY = "Zorblat"
_WORDS = ["patient", "doctor", "nurse", "hospital", "clinic", "pain", "heart", "chest", "river",
          "table", "window", "music", "green", "house", "garden", "paper", "stone", "today", "met"]


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return write_glove(tmp_path / "tiny.glove.txt", _WORDS)


def _anonymize(tiny: Path, tmp_path: Path, *args: str, text: str = f"we met {CANARY} today\n"):  # type: ignore[no-untyped-def]
    src = tmp_path / "in.txt"
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "out.txt"
    result = runner.invoke(app, ["anonymize", str(src), "-o", str(out), "--seed", "1",
                                 "--embedding", str(tiny), *args])
    return result, out


def _one_line_exit_2(result, message: str) -> None:  # type: ignore[no-untyped-def]
    err = result.stderr
    assert result.exit_code == 2, result.output
    assert len(err.splitlines()) == 1 and err.startswith("error: "), err
    assert message in err, err
    assert CANARY not in err and "Traceback" not in err


# -- word lists ---------------------------------------------------------------------------------
def _file(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize(("data", "message"), [
    (b"NAME\tZorblat\tx\nNAME\tQuexley\n", "deny file line 1 must be LABEL<TAB>string"),  # 3 columns
    (b"NAME\tQuexley\nNAME\tZorblat\t\n", "deny file line 2 must be LABEL<TAB>string"),   # empty 3rd
    (b"\n\nNAME Zorblat\n", "deny file line 3 must be LABEL<TAB>string"),  # numbers count blanks
    (b"NAME\t \n", "deny file line 1 must be LABEL<TAB>string"),
])
def test_malformed_deny_lines_are_refused_by_their_line(tmp_path: Path, data: bytes, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        word_lists(None, _file(tmp_path, "deny.txt", data))
    assert str(info.value) == message


def test_deny_and_allow_files_with_bom_blank_lines_and_crlf(tmp_path: Path) -> None:
    deny = _file(tmp_path, "deny.txt", b"\xef\xbb\xbfNAME\tZorblat\r\n\r\n  \nname\tQuexley\n")
    allow = _file(tmp_path, "allow.txt", b"\xef\xbb\xbfAspirin\r\n\nMonday\n")
    assert word_lists(allow, deny) == (("Aspirin", "Monday"), [("Zorblat", "NAME"), ("Quexley", "NAME")])


def test_allow_line_with_a_tab_is_refused(tmp_path: Path) -> None:
    """A deny-style line in the allow file is a mistake: as one string it would match nothing."""
    with pytest.raises(ConfigError, match="allow file line 2 must be one string without a TAB"):
        word_lists(_file(tmp_path, "allow.txt", b"Monday\nNAME\tZorblat\n"), None)


def test_deny_line_with_an_extra_column_is_refused_not_released(tiny: Path, tmp_path: Path) -> None:
    """QA P3: the extra column made the entry unmatchable and the name was released as is."""
    deny = _file(tmp_path, "d3", b"NAME\tZorblat\tx\nNAME\tQuexley\n")
    result, out = _anonymize(tiny, tmp_path, "--scope", "detected", "--detector", "regex", "--deny", deny)
    _one_line_exit_2(result, "deny file line 1 must be LABEL<TAB>string")
    assert not out.exists()
    good = _file(tmp_path, "d2", b"\xef\xbb\xbf\nNAME\tZorblat\n")  # BOM and a blank line: fine
    result, out = _anonymize(tiny, tmp_path, "--scope", "detected", "--detector", "regex", "--deny", good)
    assert result.exit_code == 0, result.output
    released = out.read_text(encoding="utf-8")
    assert released.startswith("we met ") and released.endswith(" today\n") and CANARY.lower() not in released.lower()


def test_deny_line_with_swapped_columns_is_refused_without_quoting_it(tiny: Path, tmp_path: Path) -> None:
    """QA: ``string<TAB>LABEL`` put the string in the label's place, and the message quoted it."""
    deny = _file(tmp_path, "swapped", f"NAME\tQuexley\n{CANARY} Fenn\tNAME\n".encode())
    result, out = _anonymize(tiny, tmp_path, "--scope", "detected", "--detector", "regex", "--deny", deny)
    _one_line_exit_2(result, "deny file line 2: the label must be one of")
    assert CANARY.casefold() not in result.stderr.casefold() and not out.exists()


@pytest.mark.parametrize(("data", "message"), [
    (b"NAME\tZorblat\nNAME\tQuexley\n\nID\tZORBLAT\n", "deny file lines 1 and 4 give the same string"),
    ("NAME\tZ\u00f3rblat\nADDRESS\tZo\u0301rblat\n".encode(), "deny file lines 1 and 2 give the same string"),
])
def test_deny_string_under_two_labels_is_refused_by_its_lines(tmp_path: Path, data: bytes, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        word_lists(None, _file(tmp_path, "deny.txt", data))
    assert "rblat" not in str(info.value).casefold()


def test_deny_string_twice_under_one_label_is_fine(tiny: Path, tmp_path: Path) -> None:
    deny = _file(tmp_path, "twice", b"NAME\tZorblat\nname\tZORBLAT\nNAME\tZorblat\n")
    result, out = _anonymize(tiny, tmp_path, "--scope", "detected", "--detector", "regex", "--deny", deny)
    assert result.exit_code == 0, result.output
    assert CANARY.lower() not in out.read_text(encoding="utf-8").lower()


# -- usage errors -------------------------------------------------------------------------------
@pytest.mark.parametrize(("args", "message"), [
    (["anonymize", "in.txt", "--k", "1.5"], "error: invalid value for '--k'"),
    (["anonymize", "in.txt", "--no-such-option"], "error: no such option: --no-such-option"),
    (["anonymize"], "error: missing argument 'INPUT...'"),
    (["calibrate", "-m", "knn", "--words", "many"], "error: invalid value for '--words'"),
    (["privacy-report", "in.txt", "--releases", "x"], "error: invalid value for '--releases'"),
    (["evaluate-detection"], "error: missing option '--data'"),
    (["embeddings", "nope"], "error: no such command 'nope'"),
    (["detector", "train", "--data", "x", "-o", "y", "--epochs", "x"], "error: invalid value for '--epochs'"),
    (["no-such-command"], "error: no such command 'no-such-command'"),
])
def test_usage_errors_are_one_line(args: list[str], message: str) -> None:
    """QA B7: typer's usage panel was six lines."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [result.stderr.strip()] and result.stderr.startswith(message), \
        result.stderr
    assert result.stdout == ""


def test_console_script_usage_error_is_one_line() -> None:
    from embedanon.cli import anonymize_app

    result = runner.invoke(anonymize_app, ["in.txt", "--k", "1.5"])
    assert result.exit_code == 2 and result.stderr.startswith("error: invalid value for '--k'")
    assert len(result.stderr.splitlines()) == 1


def test_help_is_unchanged() -> None:
    for args in (["--help"], ["anonymize", "--help"], []):
        result = runner.invoke(app, args)
        assert result.exit_code in (0, 2) and "Usage:" in result.output and "--help" in result.output
    assert "Mechanism" in runner.invoke(app, ["anonymize", "--help"]).output


# -- options that would be ignored --------------------------------------------------------------
@pytest.mark.parametrize(("args", "message"), [
    (["--strategy", "NAME=keep"], "with --scope all, --strategy applies only to PHONE, ID and DEFAULT"),
    (["--keep-formats", "--strategy", "PHONE=redact"],
     "--strategy applies only to --scope detected or hybrid, or to the phones and IDs of neutral formats"),
    (["--phone-format", "keep-shape"], "--phone-format applies only to --scope detected or hybrid with "
                                       "--keep-formats"),
    (["--scope", "hybrid", "--detector", "regex", "--phone-format", "keep-shape"],
     "--phone-format applies only to --scope detected or hybrid with --keep-formats"),
    (["--scope", "all", "--detector", "regex"], "--detector applies only to --scope detected or hybrid"),
    (["--detector", "llm"], "--detector applies only to --scope detected or hybrid"),
    (["--llm-url", "http://127.0.0.1:9/v1"], "--llm-url applies only to --scope detected or hybrid"),
    (["--llm-model", "m"], "--llm-model applies only to --scope detected or hybrid"),
    (["--llm-verify"], "--llm-verify applies only to --scope detected or hybrid"),
    (["--detector-option", "model_threshold=0.3"], "--detector-option applies only to --scope detected or hybrid"),
    (["--neutral-formats", "--strategy", "NAME=redact"], "with --scope all, --strategy applies only to PHONE"),
    (["--neutral-formats", "--phone-format", "keep-shape"], "--phone-format applies only to"),
    (["--scope", "hybrid", "--detector", "regex", "--strategy", "NAME=keep", "--strategy", "NAME=redact"],
     "--strategy gives NAME more than one action"),
    (["--scheduler", "tcp://127.0.0.1:8786"], "--scheduler applies only to --engine dask"),
    (["--engine", "processes", "--scheduler", "tcp://127.0.0.1:8786"], "--scheduler applies only to --engine dask"),
    (["--engine", "dask", "--jobs", "1"], "--jobs applies only to --engine processes"),
])
def test_options_that_would_be_ignored_are_refused(tiny: Path, tmp_path: Path, args: list[str],
                                                   message: str) -> None:
    """QA B6: each of these ran and silently ignored the option."""
    result, out = _anonymize(tiny, tmp_path, *args)
    _one_line_exit_2(result, message)
    assert not out.exists()


@pytest.mark.parametrize("args", [
    [], ["--scope", "all"], ["--jobs", "2"], ["--engine", "processes", "--jobs", "1"],
    ["--neutral-formats"], ["--neutral-formats", "--strategy", "PHONE=redact", "--strategy", "DEFAULT=keep"],
    ["--scope", "hybrid", "--detector", "regex", "--strategy", "NAME=keep", "--keep-formats",
     "--phone-format", "keep-shape"], ["--keep-formats"], ["--strategy", "PHONE=redact"],
])
def test_meaningful_combinations_still_run(tiny: Path, tmp_path: Path, args: list[str]) -> None:
    result, out = _anonymize(tiny, tmp_path, *args, text="call 617-555-0134 today\n")
    assert result.exit_code == 0, result.output


def test_strategy_reaches_neutral_format_spans_in_scope_all(tiny: Path, tmp_path: Path) -> None:
    """Why --strategy is allowed in scope all with --neutral-formats: it acts on those spans."""
    result, out = _anonymize(tiny, tmp_path, "--neutral-formats", "--strategy", "PHONE=redact",
                             text="call 617-555-0134 today\n")
    assert result.exit_code == 0, result.output
    assert "[PHONE]" in out.read_text(encoding="utf-8")


# -- detectors, engines, jobs -------------------------------------------------------------------
@pytest.mark.parametrize(("args", "message"), [
    (["--detector", "llm"], "the llm detector needs --llm-url and --llm-model"),
    (["--detector", "llm", "--llm-url", "http://127.0.0.1:9/v1"], "the llm detector needs --llm-model"),
])
def test_llm_detector_without_endpoint(tiny: Path, tmp_path: Path, args: list[str], message: str) -> None:
    """QA B1: a TypeError traceback, exit 1."""
    result, out = _anonymize(tiny, tmp_path, "--scope", "detected", *args)
    _one_line_exit_2(result, message)
    result = runner.invoke(app, ["privacy-report", str(tmp_path / "in.txt"), "--embedding", str(tiny),
                                 "--scope", "hybrid", *args])
    _one_line_exit_2(result, message)
    data = tmp_path / "spans.jsonl"
    data.write_text('{"id": 1, "text": "we met Zorblat", "spans": [{"start": 7, "end": 14, "label": "NAME"}]}\n',
                    encoding="utf-8")
    result = runner.invoke(app, ["evaluate-detection", "--data", str(data), "-d", "llm"])
    _one_line_exit_2(result, "the llm detector needs --llm-url and --llm-model")


_LLM = ["--scope", "detected", "--detector", "llm", "--llm-url", "http://127.0.0.1:9/v1", "--llm-model", "m"]


@pytest.mark.parametrize(("args", "message", "not_said"), [
    # a flag's value: the flag, not the detector option it becomes (was 'llm url must ...')
    (["--scope", "detected", "--detector", "llm", "--llm-url", "ftp://x", "--llm-model", "m"],
     "--llm-url must be an http:// or https:// URL", "llm_url"),
    (["--scope", "detected", "--detector", "llm", "--llm-url", "http://127.0.0.1:9/v1", "--llm-model", " "],
     "--llm-model must be a non-empty string", "llm model"),
    # was "option 'llm_url' is for detector 'llm', which is not selected"
    (["--scope", "detected", "--detector", "regex", "--llm-url", "http://127.0.0.1:9/v1"],
     "--llm-url is for the llm detector, which --detector does not name (add llm to --detector)", "llm_url"),
    # a --detector-option: the option as typed (was 'timeout must ...' and a TypeError traceback)
    ([*_LLM, "--detector-option", "llm_timeout=-1"], "llm_timeout must be a finite number > 0, got -1", "--"),
    ([*_LLM, "--detector-option", "llm_verify=maybe"], "llm_verify must be a bool, got str", "--"),
    (["--scope", "detected", "--detector", "llm", "--detector-option", "llm_url=ftp://x", "--detector-option",
      "llm_model=m"], "llm_url must be an http:// or https:// URL", "--llm-url"),
    ([*_LLM, "--detector-option", "llm_url=http://127.0.0.1:8/v1"],
     "detector option 'llm_url' is also given by --llm-url; give it once", "its own option"),
    (["--scope", "detected", "--detector", "regex", "--detector-option", "regex_flavour=1"],
     "detector 'regex' has no option regex_flavour; valid: regex_labels", "'flavour'"),
    (["--scope", "detected", "--detector-option", "-5"], "got '-5'", "'_5'"),
    (["--min-length", "0"], "--min-length must be an integer >= 1, got 0", "min_length"),
])
def test_messages_name_the_option_the_user_typed(tiny: Path, tmp_path: Path, args: list[str], message: str,
                                                   not_said: str) -> None:
    """Leftover audit defect: messages named internal option names (llm_url, min_length, the
    detector's own 'timeout') instead of the flag or detector option the user typed."""
    result, out = _anonymize(tiny, tmp_path, *args)
    _one_line_exit_2(result, message)
    assert not_said not in result.stderr.replace(message, "")
    assert not out.exists()


@pytest.mark.parametrize(("args", "message"), [
    (["evaluate-detection", "--data", "{spans}", "-d", "regex", "--min-coverage", "1.5"],
     "--min-coverage must be a number in (0.0, 1.0], got 1.5"),
    (["evaluate-detection", "--data", "{spans}", "-d", "regex", "--margin", "1"], "--margin must be in (0, 1)"),
    (["evaluate-detection", "--data", "{spans}", "-d", "llm", "--llm-url", "http://127.0.0.1:9/v1",
      "--llm-model", "m", "--llm-api-key-env", "not a name"],
     "--llm-api-key-env must be the name of an environment variable"),
    (["detect", "{input}", "-o", "{out}", "-d", "llm", "--llm-url", "ftp://x", "--llm-model", "m"],
     "--llm-url must be an http:// or https:// URL"),
    (["embeddings", "info", "{tiny}", "--min-length", "0"], "--min-length must be an integer >= 1, got 0"),
    (["review", "{input}", "-o", "{out}.html", "--embedding", "{tiny}", "--seed", "1", "--max-chars", "-1"],
     "--max-chars must be an integer >= 0 (0: no limit), got -1"),
    # was 'under CandidatePolicy(min_length=2, alphabetic=True, allowlist=<1 words>)'
    (["anonymize", "{input}", "-o", "{out}", "--embedding", "{tiny}", "--seed", "1", "--candidates", "{words}"],
     "has 1 candidate words (of at least 2 letters, letters only, among the 1 words of the candidate list)"),
])
def test_other_commands_name_the_option_the_user_typed(tiny: Path, tmp_path: Path, args: list[str],
                                                        message: str) -> None:
    spans, src, words = tmp_path / "spans.jsonl", tmp_path / "in.txt", tmp_path / "words.txt"
    spans.write_text('{"id": 1, "text": "we met Zorblat", "spans": [{"start": 7, "end": 14, "label": "NAME"}]}\n',
                     encoding="utf-8")
    src.write_text(f"we met {CANARY} today\n", encoding="utf-8")
    words.write_text("garden\n", encoding="utf-8")
    argv = [a.format(spans=spans, input=src, out=tmp_path / "out", tiny=tiny, words=words) for a in args]
    result = runner.invoke(app, argv)
    _one_line_exit_2(result, message)
    assert "_" not in result.stderr.split("error: ")[1].split(" ")[0]  # the subject is no Python name
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["in.txt", "spans.jsonl", "tiny.glove.txt",
                                                                  "words.txt"])


@pytest.mark.parametrize("names", ["", " ", ",", "model,"])
def test_empty_detector_list_is_refused_not_the_default(tiny: Path, tmp_path: Path, names: str) -> None:
    """Audit defect 13: ``--detector ""`` silently meant the default detectors."""
    result, out = _anonymize(tiny, tmp_path, "--scope", "detected", "--detector", names)
    _one_line_exit_2(result, "detector must be a comma-separated list of names")
    assert not out.exists()
    with pytest.raises(ConfigError, match="comma-separated list of names"):
        Anonymizer(str(tiny), scope="detected", detectors=names, seed=1)
    with pytest.raises(ConfigError, match="detectors needs scope"):
        Anonymizer(str(tiny), detectors=names, seed=1)


@pytest.mark.parametrize("address", ["bogus", "tcp://bogus", "tcp://127.0.0.1:0", "tcp://127.0.0.1:99999"])
def test_malformed_dask_scheduler(tiny: Path, tmp_path: Path, address: str) -> None:
    """QA B3: ``ValueError: missing port number`` traceback, exit 1. No connection is tried."""
    pytest.importorskip("distributed")
    result, out = _anonymize(tiny, tmp_path, "--engine", "dask", "--scheduler", address)
    _one_line_exit_2(result, "dask scheduler must be an address like tcp://HOST:PORT")
    assert not out.exists()


def _cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def test_absurd_jobs_are_refused_before_forking(tiny: Path, tmp_path: Path) -> None:
    """QA B4: ``--jobs 100000`` forked until the machine ran out of memory. The limit is
    4 x the CPUs this process may use (its affinity mask)."""
    result, out = _anonymize(tiny, tmp_path, "--jobs", str(4 * _cpus() + 1))
    _one_line_exit_2(result, f"jobs must be at most {4 * _cpus()} (4 x the {_cpus()} CPUs available)")
    result, out = _anonymize(tiny, tmp_path, "--jobs", "100000")
    _one_line_exit_2(result, "jobs must be at most")
    result, out = _anonymize(tiny, tmp_path, "--jobs", "2")  # the suite's largest: fine on 1 CPU
    assert result.exit_code == 0, result.output


# -- stderr closed ------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("extra", [[], ["--progress", "plain", "-v"], ["--progress", "bar"]])
def test_closed_stderr_still_releases(tiny: Path, tmp_path: Path, extra: list[str]) -> None:
    """QA B5: ``2>&-`` gave AttributeError on sys.stderr (None) and no output."""
    src = tmp_path / "in.txt"
    src.write_text("the patient has chest pain\n", encoding="utf-8")
    closed = ["sh", "-c", 'exec "$@" 2>&-', "sh", sys.executable, "-m", "embedanon", "anonymize"]
    proc = subprocess.run([*closed, str(src), "--seed", "1", "--embedding", str(tiny), *extra],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.count("\n") == 1 and len(proc.stdout.split()) == 5, proc.stdout
    bad = subprocess.run([*closed, str(tmp_path / "missing.txt"), "--embedding", str(tiny)],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr == ""


def test_verbose_summary_counts_in_the_singular(tiny: Path, tmp_path: Path) -> None:
    result, _ = _anonymize(tiny, tmp_path, "-v")
    assert result.exit_code == 0, result.output
    assert "anonymized 1 record (1 text, " in result.stderr and " from 1 input in " in result.stderr


@pytest.mark.default_embedding
def test_an_error_line_shows_unprintable_characters_of_a_file_name_as_escapes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """QA pass 6: a missing-field error printed the file name raw, bidi override (U+202E) included,
    which reorders the terminal line."""
    name = tmp_path / "notes\u202etxt.jsonl"
    name.write_text('{"other": "x"}\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["anonymize", str(name), "--seed", "1"])
    assert result.exit_code == 2
    assert "\u202e" not in result.output and "\\u202e" in result.output


@pytest.mark.parametrize(("allow", "deny", "message"), [
    (None, "NAME\tZorblat\nNAME\t\u200b\u00ad\n", "deny file line 2 has only invisible characters"),
    ("Monday\n\n\u200b\n", None, "allow file line 3 has only invisible characters"),
    ("Monday\nzorblat\n", "NAME\tQuexley\nNAME\tZORBLAT\n", "allow file line 2 and deny file line 2 give the same string"),
])
def test_word_list_errors_name_their_lines(tmp_path: Path, allow: str | None, deny: str | None,
                                           message: str) -> None:
    """Detection-commands audit: these said 'deny list entries must not be empty' / 'a string is
    in both the allow and the deny list', naming no line of either file."""
    with pytest.raises(ConfigError, match=message) as info:
        word_lists(None if allow is None else _file(tmp_path, "allow.txt", allow.encode()),
                   None if deny is None else _file(tmp_path, "deny.txt", deny.encode()))
    assert "rblat" not in str(info.value).casefold()
