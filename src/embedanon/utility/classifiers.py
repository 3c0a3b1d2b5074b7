"""Downstream text classifiers with fixed seeds, by name (``tfidf-logreg``, ``minilm-logreg``).

Every classifier is a factory ``seed -> TextClassifier`` in :data:`CLASSIFIERS`. Hyperparameters
are fixed here, once, and never tuned on an experiment's data:

* ``tfidf-logreg``: TF-IDF over word 1-2 grams (``min_df=2``, sublinear tf, at most 200k
  features) + L2 logistic regression (``C=10``). The classifier of Abdalla et al. (2020)'s
  utility experiments, and the one the README's tables report.
* ``minilm-logreg``: a **bag of embeddings**, not the transformer. A text is the mean of the
  packaged MiniLM *input-embedding* rows (``load_embedding("minilm-words")``) of its words; a word
  outside the embedding contributes the rows of its greedy WordPiece segmentation, as BERT's
  tokenizer would feed them. No attention layers run, nothing is downloaded and torch is not
  needed. Features are standardized, then L2 logistic regression (``C=1``).

Both solve the (convex) multinomial logistic objective with Newton-CG: the same optimum as
scikit-learn's default L-BFGS, about ten times faster on TF-IDF features on a busy 2-core machine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .._registry import Registry
from ..text import lookup_key, split_joined, split_words


@runtime_checkable
class TextClassifier(Protocol):
    """A classifier of texts: ``fit`` on texts and labels, ``predict`` labels of texts."""

    def fit(self, texts: Sequence[str], labels: np.ndarray) -> Any: ...

    def predict(self, texts: Sequence[str]) -> np.ndarray: ...


ClassifierFactory = Callable[[int], TextClassifier]

CLASSIFIERS: Registry[ClassifierFactory] = Registry("classifier")


def build_classifier(name: str, *, seed: int) -> TextClassifier:
    """A fresh, unfitted classifier ``name`` whose randomness is fixed by ``seed``.

    Raises:
        ConfigError: unknown name (the message lists the registered ones).
    """
    return CLASSIFIERS.get(name)(seed)


@CLASSIFIERS.register("tfidf-logreg")
def tfidf_logreg(seed: int) -> TextClassifier:
    """TF-IDF (word 1-2 grams) + logistic regression."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    model: TextClassifier = make_pipeline(
        TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True, max_features=200_000),
        LogisticRegression(max_iter=2000, C=10.0, solver="newton-cg", random_state=seed),
    )
    return model


class MeanEmbedding:
    """Texts -> float32 (n, d) means of embedding rows (a stateless scikit-learn transformer).

    Args:
        embedding: an embedding name or path for :func:`~embedanon.vectors.defaults.load_embedding`.
    """

    def __init__(self, embedding: str = "minilm-words") -> None:
        self.embedding = embedding

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {"embedding": self.embedding}

    def set_params(self, **params: Any) -> MeanEmbedding:
        self.embedding = params.get("embedding", self.embedding)
        return self

    def fit(self, texts: Sequence[str], labels: object = None) -> MeanEmbedding:
        return self

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        lookup = _word_rows(self.embedding)
        dim = lookup("")[0].shape[0]
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for i, text in enumerate(texts):
            total = np.zeros(dim, dtype=np.float64)
            count = 0
            for token in split_words(text)[1::2]:
                for part in split_joined(token)[::2]:
                    if part.isalpha():
                        rows_sum, n = lookup(lookup_key(part))
                        total += rows_sum
                        count += n
            if count:
                out[i] = total / count
        return out

    def fit_transform(self, texts: Sequence[str], labels: object = None) -> np.ndarray:
        return self.transform(texts)


@lru_cache(maxsize=4)
def _word_rows(embedding: str) -> Callable[[str], tuple[np.ndarray, int]]:
    """``key -> (sum of its input rows, number of rows)`` for one embedding, memoized per key."""
    from ..vectors.defaults import load_embedding

    store = load_embedding(embedding)
    pieces = store.piece_vectors if store.piece_vectors is not None else store.vectors[:0]
    zero = np.zeros(store.dim, dtype=np.float64)

    @lru_cache(maxsize=1 << 18)
    def rows(key: str) -> tuple[np.ndarray, int]:
        i = store.id_of(key) if key else -1
        if i >= 0:
            return store.vectors[i].astype(np.float64), 1
        segments = store.wordpieces(key) if key else None
        if not segments:
            return zero, 0
        stacked = [pieces[r] if cont else store.vectors[r] for cont, r in segments]
        return np.asarray(np.sum(stacked, axis=0, dtype=np.float64)), len(stacked)

    return rows


@CLASSIFIERS.register("minilm-logreg")
def minilm_logreg(seed: int) -> TextClassifier:
    """Mean of MiniLM input-embedding rows (bag of embeddings) + logistic regression."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    model: TextClassifier = make_pipeline(
        MeanEmbedding("minilm-words"),
        StandardScaler(),
        LogisticRegression(max_iter=2000, C=1.0, solver="newton-cg", random_state=seed),
    )
    return model
