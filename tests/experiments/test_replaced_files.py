"""A mechanism entry's own embedding or allowlist file replaced at the same path is never answered
from the old cells (found by the experiment audit: `embedding: emb.txt` in a mechanism entry,
the file rewritten with other vectors, and the re-run said 'done before'; the top-level embedding
file was already stamped)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from embedanon.cli import app

from .test_run import FILLER, TOPICS, write_config, write_corpus

WORDS = sorted({*FILLER, *(w for words in TOPICS.values() for w in words)})


def _embedding(path: Path, seed: int) -> None:
    rng = np.random.default_rng(seed)
    lines = [f"{len(WORDS)} 8"] + [w + " " + " ".join(f"{x:.4f}" for x in rng.normal(size=8)) for w in WORDS]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _bump(path: Path) -> None:
    """A later modification time, as a rewrite a second later would have."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


@pytest.mark.parametrize("lever", ["embedding", "allowlist"])
def test_a_replaced_entry_file_makes_new_cells(tmp_path: Path, lever: str) -> None:
    corpus = write_corpus(tmp_path / "corpus.csv", n=30)
    vectors = tmp_path / "emb.txt"
    _embedding(vectors, 0)
    allow = tmp_path / "allow.txt"
    allow.write_text("".join(f"{w}\n" for w in WORDS[:30]), encoding="utf-8")
    entry = f"  - {{name: knn, k: [3], embedding: {vectors}" + (f", allowlist: {allow}}}" if lever == "allowlist"
                                                                  else "}")
    config = write_config(tmp_path, corpus, mechanisms=entry, seeds="[0]", extra="folds: 3",
                          privacy="{attack_docs: 2, draws: 5, stats_words: 10}")
    runner = CliRunner()
    first = runner.invoke(app, ["experiment", "run", str(config)])
    assert first.exit_code == 0, first.output
    assert first.output.count("done before") == 0
    if lever == "embedding":
        _embedding(vectors, 1)
        _bump(vectors)
    else:
        allow.write_text("".join(f"{w}\n" for w in WORDS[10:]), encoding="utf-8")
        _bump(allow)
    again = runner.invoke(app, ["experiment", "run", str(config)])
    assert again.exit_code == 0, again.output
    assert again.output.count("done before") == 1, again.output  # the original text's cell only


def test_an_embedding_imported_again_under_its_name_makes_new_cells(tmp_path: Path) -> None:
    """Train audit: a top-level ``embedding: pub`` (an imported name, not a path) imported again
    with --overwrite from other vectors was answered 'done before' from the old cells: a name had
    no stamp (decision 0237). Its meta.json now stamps it."""
    from embedanon.vectors import defaults

    corpus = write_corpus(tmp_path / "corpus.csv", n=30)
    vectors = tmp_path / "emb.txt"
    _embedding(vectors, 0)
    defaults.import_embedding(vectors, name="pub-0237")
    config = write_config(tmp_path, corpus, mechanisms="  - {name: knn, k: [3]}", seeds="[0]",
                          extra="folds: 3\nembedding: pub-0237",
                          privacy="{attack_docs: 2, draws: 5, stats_words: 10}")
    runner = CliRunner()
    first = runner.invoke(app, ["experiment", "run", str(config)])
    assert first.exit_code == 0, first.output
    same = runner.invoke(app, ["experiment", "run", str(config)])
    assert same.exit_code == 0 and same.output.count("done before") == 2, same.output
    _embedding(vectors, 1)
    defaults.import_embedding(vectors, name="pub-0237", overwrite=True)
    meta = defaults.embedding_source("pub-0237") / "meta.json"
    _bump(meta)
    again = runner.invoke(app, ["experiment", "run", str(config)])
    assert again.exit_code == 0, again.output
    assert again.output.count("done before") == 0, again.output
