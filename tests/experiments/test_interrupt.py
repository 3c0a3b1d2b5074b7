"""A run stopped by SIGTERM after its first finished cell says what it kept (found by the experiment
audit: the message said "no output was written" while cells and results.csv had been written)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from .test_run import write_config, write_corpus


@pytest.mark.slow
@pytest.mark.default_embedding
def test_sigterm_after_a_cell_says_the_cells_are_kept(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus.csv", n=150)
    config = write_config(tmp_path, corpus, mechanisms="  - {name: knn, k: [5, 10, 20, 30, 40]}",
                          seeds="[0, 1, 2]", extra="folds: 3")
    proc = subprocess.Popen([sys.executable, "-m", "embedanon", "experiment", "run", str(config)],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.stderr is not None
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if line.startswith("[2/"):  # a cell is on disk
            proc.send_signal(signal.SIGTERM)
            break
    rest = proc.stderr.read()
    assert proc.wait(timeout=60) == 128 + signal.SIGTERM, "".join(lines) + rest
    assert rest.strip().splitlines()[-1] == (
        "error: terminated by SIGTERM; finished cells are kept, run the same command to resume")
    assert list((tmp_path / "out" / "cells").glob("*.json"))


@pytest.mark.slow
@pytest.mark.default_embedding
def test_a_stopped_rerun_leaves_results_md_in_step_with_results_csv(tmp_path: Path) -> None:
    """Found by the experiment audit: results.md was written only at the end, so a re-run stopped
    half-way (another corpus at the same path, another config) left the earlier run's tables
    beside the new rows of results.csv. Now results.md follows results.csv cell by cell."""
    from embedanon.experiments import load_config, run_experiment

    corpus = write_corpus(tmp_path / "corpus.csv", n=30)
    config = load_config(write_config(tmp_path, corpus, mechanisms="  - {name: knn, k: [5, 10]}",
                                      seeds="[0]", extra="folds: 3"))
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.md").write_text("# an earlier run\n\n| knn k=20 | 0.999 |\n", encoding="utf-8")

    def stop_after_two(line: str) -> None:
        if line.startswith("[3/"):  # said before k=10's rows are added: the original and k=5 are in
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_experiment(config, progress=stop_after_two)
    text = (out / "results.md").read_text(encoding="utf-8")
    assert "an earlier run" not in text and "| knn k=5 |" in text and "| knn k=10 |" not in text
    with (out / "results.csv").open(encoding="utf-8") as fh:
        assert len(fh.read().splitlines()) == 1 + 4  # the original's and k=5's two settings
