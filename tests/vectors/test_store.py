"""EmbeddingStore: every supported format through gensim, the fast form, the built-in default."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from embedanon.errors import ConfigError, EmbeddingError
from embedanon.vectors import defaults
from embedanon.vectors.store import EmbeddingStore, detect_format, read_vectors

WORDS = ["the", "Patient", "patient", "doctor", "nurse", "hospital", "pain", "New_York"]


def _keyed_vectors():  # type: ignore[no-untyped-def]
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=5)
    vecs = np.random.default_rng(0).normal(size=(len(WORDS), 5)).astype(np.float32)
    kv.add_vectors(WORDS, vecs)
    return kv, vecs


@pytest.fixture
def w2v_files(tmp_path: Path) -> dict[str, Path]:
    kv, _ = _keyed_vectors()
    paths = {
        "word2vec": tmp_path / "vecs.txt",
        "word2vec-binary": tmp_path / "vecs.bin",
        "glove": tmp_path / "glove.6B.txt",
        "fasttext-vec": tmp_path / "wiki.vec",
    }
    kv.save_word2vec_format(str(paths["word2vec"]), binary=False)
    kv.save_word2vec_format(str(paths["word2vec-binary"]), binary=True)
    kv.save_word2vec_format(str(paths["glove"]), binary=False, write_header=False)
    kv.save_word2vec_format(str(paths["fasttext-vec"]), binary=False)
    return paths


@pytest.mark.parametrize("kind", ["word2vec", "word2vec-binary", "glove", "fasttext-vec"])
def test_read_formats(w2v_files: dict[str, Path], kind: str) -> None:
    store = read_vectors(w2v_files[kind])
    _, vecs = _keyed_vectors()
    # 'Patient' and 'patient' collide after case folding: the first one is kept
    assert store.words == ["the", "patient", "doctor", "nurse", "hospital", "pain", "new_york"]
    expected = vecs[[0, 1, 3, 4, 5, 6, 7]]
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(store.vectors, expected, rtol=1e-5, atol=1e-6)
    assert store.vectors.dtype == np.float32 and store.vectors.flags.c_contiguous


def test_detect_format(w2v_files: dict[str, Path]) -> None:
    assert detect_format(w2v_files["word2vec"]) == "word2vec"
    assert detect_format(w2v_files["word2vec-binary"]) == "word2vec-binary"
    assert detect_format(w2v_files["glove"]) == "glove"


def test_fasttext_bin(tmp_path: Path) -> None:
    from gensim.models import FastText
    from gensim.models.fasttext import save_facebook_model

    sentences = [["patient", "has", "chest", "pain"], ["doctor", "sees", "patient"]] * 20
    model = FastText(vector_size=8, min_count=1, epochs=2, seed=1, workers=1)
    model.build_vocab(corpus_iterable=sentences)
    model.train(corpus_iterable=sentences, total_examples=len(sentences), epochs=2)
    path = tmp_path / "model.bin"
    save_facebook_model(model, str(path))
    assert detect_format(path) == "fasttext-bin"
    store = read_vectors(path)
    assert set(store.words) == {"patient", "has", "chest", "pain", "doctor", "sees"}
    assert store.dim == 8


def test_bad_files(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError, match="not found"):
        read_vectors(tmp_path / "missing.txt")
    bad = tmp_path / "bad.txt"
    bad.write_text("2 3\nfoo 1 2\n", encoding="utf-8")
    with pytest.raises(EmbeddingError, match="cannot read"):
        read_vectors(bad)
    with pytest.raises(ConfigError, match="format must be one of"):
        read_vectors(bad, fmt="pickle")


def test_save_and_load_round_trip(tmp_path: Path, tiny_store: EmbeddingStore) -> None:
    tiny_store.save(tmp_path / "tiny")
    again = EmbeddingStore.load_saved(tmp_path / "tiny")
    assert again.words == tiny_store.words
    np.testing.assert_array_equal(again.vectors, tiny_store.vectors)
    assert again.fingerprint == tiny_store.fingerprint


def test_import_list_and_load_by_name(w2v_files: dict[str, Path], monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("EMBEDANON_HOME", str(tmp_path / "home"))
    defaults._load_named.cache_clear()
    defaults.import_embedding(w2v_files["word2vec"], name="clinic-w2v")
    assert defaults.available() == ["minilm-words", "clinic-w2v"]
    store = defaults.load_embedding("clinic-w2v")
    assert "doctor" in store and len(store) == 7
    with pytest.raises(ConfigError, match="already exists"):
        defaults.import_embedding(w2v_files["word2vec"], name="clinic-w2v")
    with pytest.raises(ConfigError, match="embedding name"):
        defaults.import_embedding(w2v_files["word2vec"], name="Bad Name")
    with pytest.raises(EmbeddingError, match="unknown embedding"):
        defaults.load_embedding("nope")
    defaults._load_named.cache_clear()


def test_path_is_cached_in_fast_form(w2v_files: dict[str, Path], monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("EMBEDANON_CACHE", str(tmp_path / "cache"))
    defaults._load_named.cache_clear()
    store = defaults.load_embedding(str(w2v_files["glove"]))
    assert list((tmp_path / "cache" / "vectors").iterdir())
    defaults._load_named.cache_clear()
    again = defaults.load_embedding(str(w2v_files["glove"]))
    assert again.words == store.words
    defaults._load_named.cache_clear()


@pytest.mark.default_embedding
def test_default_embedding(default_store: EmbeddingStore) -> None:
    assert 21_000 <= len(default_store) <= 22_500
    assert default_store.dim == 384
    assert all(w.isalpha() and w.islower() and w.isascii() for w in default_store.words)
    norms = np.linalg.norm(default_store.vectors, axis=1)
    np.testing.assert_allclose(norms, 1.0, atol=1e-5)
    assert default_store.pieces and "tension" in default_store.pieces
    assert default_store.wordpieces("hypertension") is not None


@pytest.mark.default_embedding
def test_default_embedding_neighbours_make_sense(default_index) -> None:  # type: ignore[no-untyped-def]
    store = default_index.store
    table = default_index.table(10)
    near_pain = {store.words[j] for j in table[store.id_of("pain")]}
    assert near_pain & {"discomfort", "ache", "agony", "sore"}
    near_john = {store.words[j] for j in table[store.id_of("john")]}
    assert near_john & {"james", "william", "george", "david"}


def test_packaged_file_is_small() -> None:
    from importlib import resources

    ref = resources.files("embedanon.vectors") / "data" / "minilm-words.npz"
    with resources.as_file(ref) as path:
        assert path.stat().st_size <= 10 * 1024 * 1024
