"""``embedanon experiment run --quick`` end to end on a generated CSV corpus (a user's own file).

Sanity, not numbers: the original text is classified far above chance, anonymized text below the
original, knn changes every word; a second run redoes nothing, a lost cell is redone alone and
gives the same numbers.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from embedanon.cli import app
from embedanon.experiments.runner import COLUMNS

TOPICS = {
    "sports": ["game", "team", "player", "coach", "season", "score", "league", "match", "goal", "stadium"],
    "finance": ["market", "stock", "bank", "price", "investor", "profit", "trade", "loan", "dollar", "budget"],
    "health": ["doctor", "patient", "hospital", "disease", "nurse", "treatment", "clinic", "medicine", "fever", "surgery"],
}
FILLER = ["the", "a", "was", "and", "with", "of", "in", "after", "today", "said", "new", "they", "for", "on", "very"]


def write_corpus(path: Path, n: int = 150, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    labels = sorted(TOPICS)
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "body", "topic"])
        for i in range(n):
            label = labels[i % 3]
            words = list(rng.choice(FILLER, 12)) + list(rng.choice(TOPICS[label], 4))
            rng.shuffle(words)
            writer.writerow([i, " ".join(words).capitalize() + ".", label])
    return path


QUICK_MECHANISMS = """  - {name: knn, k: [5, 10, 20]}
  - {name: exponential, epsilon: [14]}"""


def write_config(tmp_path: Path, corpus: Path, *, name: str = "quick-test", mechanisms: str = QUICK_MECHANISMS,
                 seeds: str = "[0, 1]", privacy: str = "{attack_docs: 3, draws: 10, stats_words: 50}",
                 extra: str = "quick: {limit: 120, folds: 3, attack_docs: 3}") -> Path:
    """A config over the generated corpus; the defaults are the quick end-to-end run's."""
    config = tmp_path / f"{name}.yaml"
    config.write_text(
        f"""name: {name}
datasets:
  - {{name: topics, loader: csv, path: {corpus}, text_column: body, label_column: topic}}
mechanisms:
{mechanisms}
classifiers: [tfidf-logreg]
seeds: {seeds}
output: {tmp_path / "out"}
privacy: {privacy}
{extra}
""",
        encoding="utf-8",
    )
    return config


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.slow
@pytest.mark.default_embedding
def test_quick_run_end_to_end_and_resume(tmp_path: Path) -> None:
    config = write_config(tmp_path, write_corpus(tmp_path / "topics.csv"))
    runner = CliRunner()
    first = runner.invoke(app, ["experiment", "run", str(config), "--quick"])
    assert first.exit_code == 0, first.output
    out = tmp_path / "out-quick"
    rows = _rows(out / "results.csv")
    assert list(rows[0]) == list(COLUMNS)
    # quick: one seed, the ends of each grid: original + knn k=5, k=20 + exponential 14, two settings each
    assert len(rows) == 8 and {r["seed"] for r in rows} == {"0"}
    by = {(r["mechanism"], r["value"], r["setting"]): r for r in rows}
    original = float(by[("none", "", "perturbed-both")]["macro_f1"])
    assert original > 0.9  # chance is 1/3
    for key in [("knn", "5", "perturbed-both"), ("knn", "20", "perturbed-both"), ("exponential", "14", "perturbed-both")]:
        assert float(by[key]["macro_f1"]) < original
    assert float(by[("knn", "5", "perturbed-both")]["macro_f1"]) > 0.4  # neighbors keep the topic
    assert float(by[("knn", "5", "perturbed-both")]["change_rate"]) == 1.0
    assert 0 < float(by[("exponential", "14", "perturbed-both")]["change_rate"]) < 1
    assert 0 <= float(by[("knn", "5", "perturbed-both")]["attack_public_top1"]) <= 1
    assert 0 <= float(by[("exponential", "14", "perturbed-both")]["attack_public_top1"]) <= 1  # batched law
    assert float(by[("none", "", "perturbed-both")]["canary_leak"]) == 1.0
    assert float(by[("knn", "5", "perturbed-both")]["canary_leak"]) < 0.2
    assert int(by[("knn", "5", "perturbed-both")]["canary_parts"]) >= 18  # 3 documents x 3 names x 2 parts
    assert (out / "results.md").read_text(encoding="utf-8").count("| knn k=") == 2
    assert (out / "plot-topics-tfidf-logreg.png").read_bytes()[:4] == b"\x89PNG"

    cells = sorted((out / "cells").glob("*.json"))
    assert len(cells) == 4
    stamps = {p: p.stat().st_mtime_ns for p in cells}
    again = runner.invoke(app, ["experiment", "run", str(config), "--quick"])
    assert again.exit_code == 0 and again.output.count("done before") == 4
    assert {p: p.stat().st_mtime_ns for p in cells} == stamps
    assert _rows(out / "results.csv") == rows

    lost = next(p for p in cells if '"exponential"' in p.read_text(encoding="utf-8"))
    lost.unlink()
    (out / "results.csv").unlink()
    third = runner.invoke(app, ["experiment", "run", str(config), "--quick"])
    assert third.exit_code == 0 and third.output.count("done before") == 3
    redone = {(r["mechanism"], r["value"], r["setting"]): r for r in _rows(out / "results.csv")}
    for key, row in by.items():  # the same numbers (wall time aside)
        assert {k: v for k, v in redone[key].items() if "seconds" not in k} == \
            {k: v for k, v in row.items() if "seconds" not in k}

    # a cell of an earlier version (no canary, no exponential attack) gains them; utility untouched
    new = ("canary_leak", "canary_parts", "attack_public_top1")
    for path in cells:
        data = json.loads(path.read_text(encoding="utf-8"))
        data["rows"] = [{k: v for k, v in row.items() if k not in new} for row in data["rows"]]
        path.write_text(json.dumps(data), encoding="utf-8")
    fourth = runner.invoke(app, ["experiment", "run", str(config), "--quick"])
    assert fourth.exit_code == 0 and fourth.output.count("to a cell of an earlier version") == 3
    upgraded = {(r["mechanism"], r["value"], r["setting"]): r for r in _rows(out / "results.csv")}
    for key, row in by.items():
        assert upgraded[key]["macro_f1"] == row["macro_f1"]
        assert upgraded[key]["canary_leak"] != ""
    assert upgraded[("knn", "5", "perturbed-both")]["canary_leak"] == by[("knn", "5", "perturbed-both")]["canary_leak"]
    assert 0 <= float(upgraded[("exponential", "14", "perturbed-both")]["attack_public_top1"]) <= 1


@pytest.mark.default_embedding
def test_a_replaced_corpus_is_never_answered_from_the_old_cells(tmp_path: Path) -> None:
    """QA pass 6: cells were keyed by the configuration alone, so a corpus edited or replaced at
    the same path was answered 'done before' with the old corpus's figures."""
    corpus = write_corpus(tmp_path / "topics.csv")
    config = write_config(tmp_path, corpus, mechanisms="  - {name: knn, k: [5]}", seeds="[0]")
    runner = CliRunner()
    assert runner.invoke(app, ["experiment", "run", str(config), "--quick"]).exit_code == 0
    again = runner.invoke(app, ["experiment", "run", str(config), "--quick"])
    assert again.output.count("done before") == 2  # the same data: nothing to redo
    write_corpus(corpus, n=90, seed=5)  # other documents at the same path
    third = runner.invoke(app, ["experiment", "run", str(config), "--quick"])
    assert third.exit_code == 0, third.output
    assert "done before" not in third.output
    assert {r["documents"] for r in _rows(tmp_path / "out-quick" / "results.csv")} == {"90"}


def test_bad_config_is_one_line_and_exit_2(tmp_path: Path) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text("name: x\ndatasets: []\nmechanisms: []\noutput: o\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["experiment", "run", str(config)])
    assert result.exit_code == 2
    assert result.output.strip() == "error: datasets must not be empty"
    missing = write_config(tmp_path, tmp_path / "absent.csv")
    result = CliRunner().invoke(app, ["experiment", "run", str(missing)])
    assert result.exit_code == 2 and "datasets[0].path: no such file" in result.output
    assert result.output.count("\n") == 1


@pytest.mark.default_embedding
def test_keep_lever_counts_kept_words_as_released_and_recovered(tmp_path: Path) -> None:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    corpus = write_corpus(tmp_path / "topics.csv", n=60)
    config = write_config(tmp_path, corpus, name="keep-test",
                          mechanisms="  - {name: knn, k: [10], label: knn-keep, keep: english-stopwords}",
                          seeds="[0]", privacy="{attack_docs: 60, draws: 5, stats_words: 20}", extra="folds: 3")
    result = CliRunner().invoke(app, ["experiment", "run", str(config)])
    assert result.exit_code == 0, result.output
    row = next(r for r in _rows(tmp_path / "out" / "results.csv")
               if r["mechanism"] == "knn" and r["setting"] == "perturbed-both")
    with corpus.open(encoding="utf-8") as fh:
        words = [w.strip(".").lower() for r in csv.DictReader(fh) for w in r["body"].split()]
    kept = sum(w in ENGLISH_STOP_WORDS for w in words) / len(words)
    assert 0.3 < kept < 0.9  # the generated filler is mostly stop words
    assert float(row["change_rate"]) == pytest.approx(1 - kept, abs=1e-5)  # every other word changes (csv: 6 digits)
    # the attack ran on the replaced words only; the kept ones count as recovered overall
    public, overall = float(row["attack_public_top1"]), float(row["attack_overall_top1"])
    assert 0 <= public < 1 and overall >= kept
    assert overall == pytest.approx(kept + (1 - kept) * public, abs=0.02)
