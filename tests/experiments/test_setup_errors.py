"""Configs the parser accepts but the mechanism, the embedding or the output refuse: the run must
fail before any work, naming the config key, exit 2, and write nothing (found by the experiment
audit: the original-text cell and a results.csv were written first, and the message named no key)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedanon.cli import app

from .test_run import write_config, write_corpus


@pytest.mark.default_embedding
@pytest.mark.parametrize(
    ("mechanisms", "output", "message"),
    [
        ("  - {name: knn, k: [5, 100000000]}", None, "error: mechanisms[0].k = 100000000: k must be at most"),
        ("  - {name: tem, epsilon: [10], gamma: -1}", None, "error: mechanisms[0].epsilon = 10.0: gamma must be"),
        ("  - {name: tem, epsilon: [10], gamma: abc}", None, "error: mechanisms[0].gamma must be a number, got str"),
        ("  - {name: knn, k: [5], embedding: no-such-embedding}", None, "error: mechanisms[0].embedding: unknown"),
        ("  - {name: knn, k: [5], allowlist: absent.txt}", None, "error: mechanisms[0].k = 5: cannot read allowlist"),
        ("  - {name: knn, k: [5], index: bogus}", None, "error: mechanisms[0].k = 5: index must be"),
        ("  - {name: knn, k: [5]}", "a-file", "error: output: output directory"),
    ],
)
def test_a_refused_setup_fails_before_any_work(
    tmp_path: Path, mechanisms: str, output: str | None, message: str
) -> None:
    corpus = write_corpus(tmp_path / "corpus.csv", n=30)
    config = write_config(tmp_path, corpus, mechanisms=mechanisms, seeds="[0]", extra="folds: 3")
    if output is not None:
        (tmp_path / output).write_text("not a directory\n", encoding="utf-8")
        config.write_text(config.read_text(encoding="utf-8").replace(str(tmp_path / "out"), str(tmp_path / output)),
                          encoding="utf-8")
    result = CliRunner().invoke(app, ["experiment", "run", str(config), "-q"])
    assert result.exit_code == 2, result.output
    assert result.output.startswith(message), result.output
    assert result.output.count("\n") == 1
    assert not (tmp_path / "out").exists()  # no cell, no results.csv


@pytest.mark.default_embedding
def test_an_unknown_top_level_embedding_is_named(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus.csv", n=30)
    config = write_config(tmp_path, corpus, mechanisms="  - {name: knn, k: [5]}", seeds="[0]",
                          extra="folds: 3\nembedding: no-such-embedding")
    result = CliRunner().invoke(app, ["experiment", "run", str(config), "-q"])
    assert result.exit_code == 2
    assert result.output.startswith("error: embedding: unknown embedding"), result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.default_embedding
def test_a_mechanism_without_an_attack_says_so_in_its_progress_line(tmp_path: Path) -> None:
    """Found by the experiment audit: a laplace cell's progress line ended 'attack nan'."""
    corpus = write_corpus(tmp_path / "corpus.csv", n=30)
    config = write_config(tmp_path, corpus, mechanisms="  - {name: laplace, epsilon: [60]}", seeds="[0]",
                          extra="folds: 3")
    result = CliRunner().invoke(app, ["experiment", "run", str(config)])
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if x.startswith("[2/2]"))
    assert "nan" not in line and "no attack figure" in line
