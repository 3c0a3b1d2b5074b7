"""Utility evaluation on generated data where the answer is known."""

from __future__ import annotations

import numpy as np
import pytest

from embedanon.errors import ConfigError
from embedanon.utility import evaluate_utility


def _corpus(n: int = 200, seed: int = 0) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    topics = {"cardio": ["heart", "chest", "pressure", "artery"], "ortho": ["bone", "knee", "fracture", "joint"]}
    filler = ["the", "patient", "was", "seen", "today", "and", "reports", "some"]
    docs, labels = [], []
    for i in range(n):
        label = "cardio" if i % 2 else "ortho"
        words = list(rng.choice(filler, 12)) + list(rng.choice(topics[label], 3))
        rng.shuffle(words)
        docs.append(" ".join(words))
        labels.append(label)
    return docs, labels


def test_separable_topics_are_learned_and_destroyed_text_is_not() -> None:
    docs, labels = _corpus()
    # "anonymization" that keeps topic words vs one that replaces every word by noise
    rng = np.random.default_rng(1)
    noise = [" ".join(f"w{rng.integers(0, 1000)}" for _ in d.split()) for d in docs]
    base, noisy_aa, noisy_ao = evaluate_utility(docs, noise, labels, folds=4)
    assert base.setting == "original -> original" and base.macro_f1 > 0.95
    assert noisy_aa.macro_f1 < 0.75 and noisy_ao.macro_f1 < 0.75
    same = evaluate_utility(docs, docs, labels, folds=4)
    assert same[1].macro_f1 == pytest.approx(base.macro_f1)


def test_validation() -> None:
    with pytest.raises(ConfigError, match="same length"):
        evaluate_utility(["a", "b"], ["a"], [0, 1])
    with pytest.raises(ConfigError, match="folds must be at least 2"):
        evaluate_utility(["a", "b"], None, [0, 1], folds=1)


@pytest.mark.parametrize(("args", "message"), [
    (("abcd", None, [0, 1, 0, 1]), "^original must be a list of str, not one str$"),
    ((["a", "b"], "ab", [0, 1]), "^anonymized must be a list of str, not one str$"),
    ((None, None, [0, 1]), "^original must be a list of str, got NoneType$"),
    ((["a", "b"], None, None), "^labels must be a list of labels, got NoneType$"),
    (((t for t in ["a", "b"]), None, [0, 1]), "^original must be a list of str, got generator$"),
])
def test_wrong_argument_kinds_are_named(args: tuple, message: str) -> None:  # type: ignore[type-arg]
    """API audit: one str was classified as a corpus of one-letter documents, None failed in
    ``len()`` and a generator with ``object of type 'generator' has no len()``."""
    with pytest.raises(TypeError, match=message):
        evaluate_utility(*args, folds=2)


@pytest.mark.parametrize(("texts", "labels", "error", "message"), [
    ([], [], ConfigError, "needs at least 2 classes, got 0"),
    (["a b", "c d", "e f"], ["p", "p", "p"], ConfigError, "needs at least 2 classes, got 1"),
    (["a b", "c d", "e f", "g h"], ["p", "p", "p", "q"], ConfigError, "the smallest class has 1"),
    (["a b", "c d"], ["p", None], TypeError, r"labels\[1\] must be a str or int, got NoneType"),
    (["a b", None], ["p", "q"], TypeError, r"original\[1\] must be str, got NoneType"),
    (["", " ", "", " "], ["p", "p", "q", "q"], ConfigError, "every original text is empty"),
])
def test_corpora_cross_validation_cannot_use_are_refused_in_one_line(texts, labels, error, message) -> None:  # type: ignore[no-untyped-def]
    """QA pass 6: these reached scikit-learn's own errors (one quoted a label) or a TypeError."""
    with pytest.raises(error, match=message) as err:
        evaluate_utility(texts, None, labels, folds=2)
    assert "\n" not in str(err.value) and "'p'" not in str(err.value)


def test_a_pandas_series_of_texts_is_still_taken() -> None:
    pd = pytest.importorskip("pandas")
    docs = pd.Series(["cat dog", "dog cat", "car bus", "bus car"] * 2)
    labels = pd.Series(["a", "a", "b", "b"] * 2)
    assert evaluate_utility(docs, None, labels, folds=2)[0].folds == 2


@pytest.mark.parametrize(
    "texts",
    [
        ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"],  # no word in 2 documents
        ["! 1", "!! 2", "? 3", "?? 4", ". 5", ".. 6", ", 7", ",, 8"],  # no word of 2 characters
    ],
)
def test_training_texts_without_a_term_are_one_line(texts: list[str]) -> None:
    """Found by the experiment audit: such a corpus ended `experiment run` in scikit-learn's
    'After pruning, no terms remain' / 'empty vocabulary' traceback, exit 1."""
    labels = ["a", "b"] * 4
    with pytest.raises(ConfigError, match=r"^tfidf-logreg: the training texts \(original text, fold 1 of 2\) "
                                          r"have no term it can use") as info:
        evaluate_utility(texts, None, labels, folds=2)
    assert "alpha" not in str(info.value)
    with pytest.raises(ConfigError, match=r"\(anonymized text, fold 1 of 2\)"):
        evaluate_utility(["the fever and the cough"] * 8, texts, labels, folds=2)
