"""A corpus that stratified cross-validation cannot split is refused up front: one line, exit 2.

Each case is a QA reproduction that used to end in a 50-line sklearn traceback (one quoting a
label). The message names the dataset, the folds and the smallest class size, never a label, and
nothing is written under the output folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedanon.cli import app
from embedanon.errors import ConfigError
from embedanon.utility.datasets import check_folds

# Labels chosen so that a message quoting one is easy to spot.
POS, NEG = "zqpositive", "zqnegative"


def _corpus(path: Path, pos: int, neg: int) -> Path:
    rows = [f"good film number {i},{POS}" for i in range(pos)] + [f"bad film number {i},{NEG}" for i in range(neg)]
    path.write_text("text,label\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def _config(tmp_path: Path, corpus: Path, folds: int) -> Path:
    config = tmp_path / "folds.yaml"
    config.write_text(
        f"""name: t
datasets:
  - {{name: films, loader: csv, path: {corpus}, text_column: text, label_column: label}}
mechanisms:
  - {{name: knn, k: [10]}}
classifiers: [tfidf-logreg]
seeds: [0]
output: {tmp_path / "out"}
folds: {folds}
""",
        encoding="utf-8",
    )
    return config


@pytest.mark.parametrize(
    ("pos", "neg", "folds", "smallest"),
    [
        (1, 1, 2, 1),  # one document per class
        (10, 1, 2, 1),  # a training fold would hold one class only
        (30, 30, 100, 30),  # more folds than documents
        (4, 4, 6, 4),  # more folds than documents per class
    ],
)
def test_unsplittable_corpus_is_one_line_exit_2(tmp_path: Path, pos: int, neg: int, folds: int, smallest: int) -> None:
    config = _config(tmp_path, _corpus(tmp_path / "d.csv", pos, neg), folds)
    result = CliRunner().invoke(app, ["experiment", "run", str(config)])
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1
    assert result.output.strip() == (
        f"error: datasets[0] (films): folds {folds} needs at least {folds} documents in every class, "
        f"the smallest class has {smallest} (lower folds or add documents)"
    )
    assert POS not in result.output and NEG not in result.output
    assert not (tmp_path / "out").exists()


def test_check_folds_boundaries() -> None:
    check_folds(["a", "a", "b", "b"], 2, "d")  # exactly `folds` per class is enough
    with pytest.raises(ConfigError, match="needs at least 2 classes, got 1"):
        check_folds(["a"] * 5, 2, "d")
    with pytest.raises(ConfigError, match="smallest class has 2"):
        check_folds(["a", "a", "b", "b", "b"], 3, "d")
