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
