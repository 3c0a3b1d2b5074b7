"""Upstream utility: benchmark scoring against scipy on hand-made vectors; seeded word2vec."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr

from embedanon.errors import ConfigError
from embedanon.utility.upstream import evaluate_word_vectors, tokens, train_word2vec

WORDS = ["king", "queen", "man", "woman", "apple", "pear", "car", "bus"]


def _vectors():  # type: ignore[no-untyped-def]
    from gensim.models import KeyedVectors

    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(len(WORDS), 10)).astype(np.float32)
    # king - man + woman = queen exactly: the one analogy has a right answer
    vecs[1] = vecs[0] - vecs[2] + vecs[3]
    kv = KeyedVectors(10)
    kv.add_vectors(WORDS, vecs)
    return kv


def _testdata(folder: Path) -> Path:
    pairs = [("king", "queen", 8.0), ("apple", "pear", 9.0), ("car", "bus", 7.5), ("man", "apple", 1.0),
             ("woman", "car", 0.5), ("king", "unicorn", 5.0)]
    body = "# comment\n" + "".join(f"{a}\t{b}\t{s}\n" for a, b, s in pairs)
    (folder / "wordsim353.tsv").write_text(body, encoding="utf-8")
    (folder / "simlex999.txt").write_text(body, encoding="utf-8")
    (folder / "questions-words.txt").write_text(": family\nman woman king queen\nman woman unicorn x\n",
                                                encoding="utf-8")
    return folder


def test_scores_match_scipy_on_covered_pairs(tmp_path: Path) -> None:
    kv = _vectors()
    scores = evaluate_word_vectors(kv, _testdata(tmp_path))
    covered = [("king", "queen", 8.0), ("apple", "pear", 9.0), ("car", "bus", 7.5), ("man", "apple", 1.0),
               ("woman", "car", 0.5)]
    expected = spearmanr([s for *_, s in covered], [kv.similarity(a, b) for a, b, _ in covered])[0]
    assert scores.wordsim_spearman == pytest.approx(expected)
    assert scores.wordsim_oov == pytest.approx(1 / 6) and scores.wordsim_pairs == 5
    assert scores.analogy_questions == 1 and scores.analogy_accuracy == 1.0
    assert scores.vocabulary == len(WORDS)


def test_missing_benchmark_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="benchmark file not found"):
        evaluate_word_vectors(_vectors(), tmp_path)


def test_tokens_and_seeded_training() -> None:
    assert tokens("The patient's BP: 120/80, O'Neil-Smith.") == ["the", "patient", "s", "bp", "o", "neil", "smith"]
    rng = np.random.default_rng(0)
    corpus = [" ".join(rng.choice(WORDS, 8)) for _ in range(200)]
    a = train_word2vec(corpus, seed=1, vector_size=8, epochs=2)
    b = train_word2vec(corpus, seed=1, vector_size=8, epochs=2)
    assert sorted(a.index_to_key) == sorted(WORDS)
    np.testing.assert_array_equal(a["king"], b["king"])


def test_vocabulary_restricts_the_items(tmp_path: Path) -> None:
    kv = _vectors()
    (tmp_path / "data").mkdir()
    data = _testdata(tmp_path / "data")
    known = {"apple", "pear", "car", "bus", "man", "woman"}
    scores = evaluate_word_vectors(kv, data, vocabulary=known, workdir=tmp_path / "work")
    covered = [("apple", "pear", 9.0), ("car", "bus", 7.5), ("man", "apple", 1.0), ("woman", "car", 0.5)]
    expected = spearmanr([s for *_, s in covered], [kv.similarity(a, b) for a, b, _ in covered])[0]
    assert scores.wordsim_pairs == 4 and scores.wordsim_oov == 0
    assert scores.wordsim_spearman == pytest.approx(expected)
    assert scores.analogy_questions == 0 and math.isnan(scores.analogy_accuracy)
    with pytest.raises(ConfigError, match="workdir is needed"):
        evaluate_word_vectors(kv, data, vocabulary=known)
