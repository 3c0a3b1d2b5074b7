"""The llm detector through the CLI (QA 5b D4, D5): a broken server is a per-record full-scope
fallback, not a traceback; a bad setting is one line that never quotes a key pasted into it.
A tiny embedding keeps the runs fast; the endpoint is a stub on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedanon.cli import app
from tests.helpers.embeddings import write_glove
from tests.helpers.llm_stub import Reply, StubLLM

runner = CliRunner()
SECRET = "sk-SECRETKEY123"
_WORDS = ["we", "met", "today", "patient", "doctor", "nurse", "clinic", "river", "table", "green", "house",
          "garden", "paper", "stone", "music", "window", "heart", "chest", "pain", "hospital"]


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return write_glove(tmp_path / "tiny.glove.txt", _WORDS)


def _anonymize(tiny: Path, tmp_path: Path, *args: str):  # type: ignore[no-untyped-def]
    src = tmp_path / "in.txt"
    src.write_text("we met Zorblat today\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    result = runner.invoke(app, ["anonymize", str(src), "-o", str(out), "--embedding", str(tiny), *args])
    return result, out


@pytest.mark.parametrize("raw", [b"GARBAGE sk-LEAK\r\n\r\n", b'HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{"LEAK": '],
                         ids=["BadStatusLine", "IncompleteRead"])
def test_broken_server_is_a_full_scope_fallback(tiny: Path, tmp_path: Path, raw: bytes) -> None:
    """QA 5b D4: http.client's exceptions ended the run with a traceback quoting the server."""
    with StubLLM([Reply(raw=raw)]) as stub:
        result, out = _anonymize(tiny, tmp_path, "--scope", "detected", "--detector", "llm", "--llm-url", stub.url,
                                 "--llm-model", "m", "--detector-option", "llm_retries=0")
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines()  # less the test embedding's own notice
             if not line.startswith("notice: embedding ")]
    assert lines[:-1] == ["notice: detection failed on 1 of 1 records; they were "
                          "released in full scope (every word perturbed)"]
    assert lines[-1].startswith("anonymized 1 record (1 text, ")
    (tmp_path / "full").mkdir()
    full, full_out = _anonymize(tiny, tmp_path / "full", "--scope", "all")
    assert full.exit_code == 0 and out.read_text(encoding="utf-8") == full_out.read_text(encoding="utf-8")


@pytest.mark.parametrize("args", [
    ["--llm-url", "http://127.0.0.1:9/v1", "--detector-option", f"llm_api_key_env={SECRET}"],
    ["--llm-url", f"http://127.0.0.1:{SECRET}/v1"],
    ["--llm-url", f"http://key:{SECRET}@127.0.0.1:9/v1"],
], ids=["api-key-env", "port", "password"])
def test_key_pasted_into_a_setting_is_never_printed(tiny: Path, tmp_path: Path, args: list[str]) -> None:
    """QA 5b D5 (and D4's port): the message quoted the value, which may be the key itself."""
    result, out = _anonymize(tiny, tmp_path, "--scope", "detected", "--detector", "llm", "--llm-model", "m", *args)
    assert result.exit_code == 2, result.output
    # named as typed: the detector option llm_api_key_env, or the flag --llm-url
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith(("error: llm_", "error: --llm-"))
    assert SECRET not in result.output and "Traceback" not in result.output
    assert not out.exists()


def test_evaluate_detection_does_not_print_a_key_given_as_the_env_name(tmp_path: Path) -> None:
    data = tmp_path / "spans.jsonl"
    data.write_text('{"id": 1, "text": "we met Ann", "spans": [{"start": 7, "end": 10, "label": "NAME"}]}\n',
                    encoding="utf-8")
    result = runner.invoke(app, ["evaluate-detection", "--data", str(data), "-d", "llm", "--llm-url",
                                 "http://127.0.0.1:9/v1", "--llm-model", "m", "--llm-api-key-env", SECRET])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: --llm-api-key-env must be the name of an environment variable")
    assert SECRET not in result.output
