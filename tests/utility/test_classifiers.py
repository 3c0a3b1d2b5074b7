"""Classifier registry and the bag-of-embeddings features against a plain reference."""

from __future__ import annotations

import numpy as np
import pytest

from embedanon.errors import ConfigError
from embedanon.utility import evaluate_utility
from embedanon.utility.classifiers import CLASSIFIERS, MeanEmbedding, build_classifier


def _topic_corpus(n: int = 120, seed: int = 0) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    topics = {
        "heart": ["heart", "artery", "cardiac", "blood", "pressure", "chest"],
        "bone": ["bone", "fracture", "knee", "joint", "spine", "hip"],
    }
    filler = ["the", "patient", "was", "seen", "today", "and", "reports", "some", "with", "of"]
    docs, labels = [], []
    for i in range(n):
        label = "heart" if i % 2 else "bone"
        words = list(rng.choice(filler, 10)) + list(rng.choice(topics[label], 3))
        rng.shuffle(words)
        docs.append(" ".join(words))
        labels.append(label)
    return docs, labels


def test_registry() -> None:
    assert CLASSIFIERS.names() == ["minilm-logreg", "tfidf-logreg"]
    with pytest.raises(ConfigError, match="unknown classifier 'bert'; choose one of minilm-logreg, tfidf-logreg"):
        build_classifier("bert", seed=0)
    with pytest.raises(ConfigError, match="unknown classifier"):
        evaluate_utility(["a", "b"], None, [0, 1], classifier="bert")


@pytest.mark.default_embedding
def test_mean_embedding_matches_a_plain_reference() -> None:
    from embedanon.text import lookup_key, tokenize
    from embedanon.vectors.defaults import load_embedding

    store = load_embedding("minilm-words")
    texts = ["The patient's hypertension was treated.", "Zzqxv 12 mg", "", "laparoscopic cholecystectomy"]
    got = MeanEmbedding().transform(texts)
    assert got.shape == (4, store.dim) and got.dtype == np.float32
    for text, row in zip(texts, got):
        rows = []
        for token in tokenize(text):
            if token.kind != "word":
                continue
            for part in token.text.replace("'", " ").replace("-", " ").split():
                key = lookup_key(part)
                if key in store.words:
                    rows.append(store.vectors[store.words.index(key)])
                    continue
                for cont, r in store.wordpieces(key) or []:
                    rows.append(store.piece_vectors[r] if cont else store.vectors[r])
        expected = np.mean(rows, axis=0) if rows else np.zeros(store.dim)
        np.testing.assert_allclose(row, expected, atol=1e-5)
    assert np.all(got[2] == 0)


@pytest.mark.default_embedding
def test_minilm_logreg_learns_topics_and_not_noise() -> None:
    docs, labels = _topic_corpus()
    base = evaluate_utility(docs, None, labels, folds=3, classifier="minilm-logreg")[0]
    assert base.macro_f1 > 0.9
    rng = np.random.default_rng(1)
    filler = ["the", "was", "and", "some", "with", "of", "today", "seen"]
    noise = [" ".join(rng.choice(filler, 13)) for _ in docs]  # same filler, no topic words
    assert evaluate_utility(noise, None, labels, folds=3, classifier="minilm-logreg")[0].macro_f1 < 0.7


@pytest.mark.parametrize("name", ["tfidf-logreg", "minilm-logreg"])
@pytest.mark.default_embedding
def test_fixed_seed_gives_the_same_model(name: str) -> None:
    docs, labels = _topic_corpus(60)
    y = np.asarray(labels)
    a = build_classifier(name, seed=3).fit(docs[:40], y[:40]).predict(docs[40:])
    b = build_classifier(name, seed=3).fit(docs[:40], y[:40]).predict(docs[40:])
    assert list(a) == list(b)
