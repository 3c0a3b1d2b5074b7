"""Train the same classifier on original and on anonymized text and compare (Abdalla et al. 2020).

The classifier is any registered one (:mod:`.classifiers`; default ``tfidf-logreg``, TF-IDF word
1-2 grams + logistic regression), evaluated with stratified k-fold cross-validation (macro-F1 and
accuracy, the same folds for every setting). Two settings:

* ``anonymized -> anonymized``: train and test on anonymized text (the data holder releases the
  whole corpus anonymized; researchers both train and evaluate on it);
* ``anonymized -> original``: train on anonymized text, test on original text (a model built
  from the released data is deployed inside the hospital on real notes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import positive_int
from ..errors import ConfigError
from .classifiers import CLASSIFIERS, build_classifier
from .datasets import check_folds


@dataclass(frozen=True, slots=True)
class UtilityResult:
    """Mean (and standard deviation) over folds of macro-F1 and accuracy."""

    setting: str
    macro_f1: float
    macro_f1_std: float
    accuracy: float
    folds: int


def _fit(classifier: str, seed: int, texts: list[str], labels: np.ndarray, where: str) -> Any:
    """``classifier`` fitted on ``texts``; a training set without a single feature (TF-IDF keeps
    only words of two or more characters found in at least two documents) is one line, not
    scikit-learn's traceback."""
    try:
        return build_classifier(classifier, seed=seed).fit(texts, labels)
    except ValueError as exc:
        if "no terms remain" not in str(exc) and "empty vocabulary" not in str(exc):
            raise
        raise ConfigError(f"{classifier}: the training texts ({where}) have no term it can use (a word of 2+ "
                          "characters found in 2+ documents); use longer or more documents") from None


def evaluate_utility(original: Sequence[str], anonymized: Sequence[str] | None, labels: Sequence[object],
                     *, folds: int = 5, seed: int = 0,
                     classifier: str = "tfidf-logreg") -> list[UtilityResult]:
    """Cross-validated macro-F1/accuracy on original text and, when given, on anonymized text.

    Args:
        original: the original documents.
        anonymized: the same documents anonymized (same order), or None for the baseline only.
        labels: one label per document.
        folds: number of stratified folds (>= 2).
        seed: fold shuffling and model seed.
        classifier: a registered classifier name (see :data:`.classifiers.CLASSIFIERS`).

    Returns:
        ``original -> original`` first, then ``anonymized -> anonymized`` and
        ``anonymized -> original`` when ``anonymized`` is given.
    """
    from sklearn.metrics import accuracy_score, f1_score
    from sklearn.model_selection import StratifiedKFold

    CLASSIFIERS.get(classifier)  # unknown name: ConfigError before any work
    for what, values in (("original", original), ("anonymized", anonymized), ("labels", labels)):
        # one str would be taken as a list of one-letter documents; None failed in len(). A
        # pandas Series or an array is fine: anything sized and indexable.
        if isinstance(values, (str, bytes)) or not (values is None and what == "anonymized" or (
                hasattr(values, "__len__") and hasattr(values, "__getitem__"))):
            raise TypeError(f"{what} must be a list of {'labels' if what == 'labels' else 'str'}"
                            + (f", not one {type(values).__name__}" if isinstance(values, (str, bytes))
                               else f", got {type(values).__name__}"))
    folds = positive_int("folds", folds)
    if folds < 2:
        raise ConfigError(f"folds must be at least 2, got {folds}")
    n = len(original)
    if len(labels) != n or (anonymized is not None and len(anonymized) != n):
        raise ConfigError(
            f"original, anonymized and labels must have the same length, got {n}, "
            f"{None if anonymized is None else len(anonymized)}, {len(labels)}"
        )
    for what, values in (("original", original), ("anonymized", anonymized or ())):
        bad = next((i for i, t in enumerate(values) if not isinstance(t, str)), None)
        if bad is not None:
            raise TypeError(f"{what}[{bad}] must be str, got {type(values[bad]).__name__}")
    bad = next((i for i, label in enumerate(labels) if not isinstance(label, (str, int))
                or isinstance(label, bool)), None)
    if bad is not None:
        raise TypeError(f"labels[{bad}] must be a str or int, got {type(labels[bad]).__name__}")
    check_folds(labels, folds, "labels")
    if not any(t.strip() for t in original):
        raise ConfigError("every original text is empty: nothing to classify")
    y = np.asarray(labels)
    orig = np.asarray(original, dtype=object)
    anon = None if anonymized is None else np.asarray(anonymized, dtype=object)
    settings = [("original -> original", orig, orig)]
    if anon is not None:
        settings += [("anonymized -> anonymized", anon, anon), ("anonymized -> original", anon, orig)]
    scores: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in settings}
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    for fold, (train, test) in enumerate(splitter.split(orig, y), 1):
        fitted: dict[int, object] = {}
        for name, train_x, test_x in settings:
            key = id(train_x)
            if key not in fitted:
                fitted[key] = _fit(classifier, seed, list(train_x[train]), y[train],
                                   f"{name.split(' ->')[0]} text, fold {fold} of {folds}")
            pred = fitted[key].predict(list(test_x[test]))  # type: ignore[attr-defined]
            scores[name].append((f1_score(y[test], pred, average="macro"), accuracy_score(y[test], pred)))
    out = []
    for name, _, _ in settings:
        f1s = np.array([s[0] for s in scores[name]])
        accs = np.array([s[1] for s in scores[name]])
        out.append(UtilityResult(name, float(f1s.mean()), float(f1s.std()), float(accs.mean()), folds))
    return out
