"""EmbeddingStore: every supported format through gensim, the fast form, the built-in default."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pytest

from embedanon.errors import ConfigError, EmbeddingError
from embedanon.vectors import defaults
from embedanon.vectors.formats import detect_format, read_vectors
from embedanon.vectors.store import EmbeddingStore

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


def _fasttext_file(path: Path) -> Path:
    from gensim.models import FastText
    from gensim.models.fasttext import save_facebook_model

    sentences = [["patient", "has", "chest", "pain"], ["doctor", "sees", "patient"]] * 20
    model = FastText(vector_size=4, min_count=1, epochs=1, seed=1, workers=1, bucket=64)
    model.build_vocab(corpus_iterable=sentences)
    model.train(corpus_iterable=sentences, total_examples=len(sentences), epochs=1)
    save_facebook_model(model, str(path))
    return path


def test_fasttext_bin_cut_inside_its_vocabulary_is_refused_not_read_forever(tmp_path: Path) -> None:
    """gensim reads a fastText word a byte at a time until its end mark, and at the end of the
    file reads nothing forever: 'embeddings import' of a cut .bin never returned (found by hand in
    the embeddings audit). Run in a subprocess, so that a hang fails the test instead of the run."""
    import subprocess
    import sys

    raw = _fasttext_file(tmp_path / "whole.bin").read_bytes()
    results = []
    # inside the header; inside a word of the vocabulary (a cut between entries was a struct.error)
    for cut in (60, raw.index(b"patient") + 3):
        path = tmp_path / f"cut{cut}.bin"
        path.write_bytes(raw[:cut])
        code = ("from embedanon.vectors.formats import read_vectors\n"
                "from embedanon.errors import EmbeddingError\n"
                f"try:\n    read_vectors({str(path)!r})\nexcept EmbeddingError as e:\n    print(e)")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        results.append(done.stdout.strip())
    assert results[0].endswith("the file ends inside its fastText header (truncated, or not a fastText .bin file)")
    assert "its vocabulary announces 6 words, but the file ends after" in results[1]
    assert len(read_vectors(tmp_path / "whole.bin")) == 6


def test_bad_files(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError, match="not found"):
        read_vectors(tmp_path / "missing.txt")
    bad = tmp_path / "bad.txt"
    bad.write_text("2 3\nfoo 1 2\nbar 1 2 x\n", encoding="utf-8")
    with pytest.raises(EmbeddingError, match="line 2 has 2 values after its word, not 3"):
        read_vectors(bad)
    bad.write_text("2 3\nfoo 1 2 3\nbar 1 2 x\n", encoding="utf-8")  # the right count, not a number
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
    with pytest.raises(ConfigError, match="embedding name"):  # QA pass 6: took the file's stem
        defaults.import_embedding(w2v_files["word2vec"], name="")
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
def test_default_embedding_neighbors_make_sense(default_index) -> None:  # type: ignore[no-untyped-def]
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


# -- validation: garbage is refused with one line that never quotes the file -------------------
CANARY = "zebulonius"


def _w2v(path: Path, rows: list[str], header: str | None = "auto") -> Path:
    if header == "auto":
        header = f"{len(rows)} {len(rows[0].split()) - 1}"
    lines = ([header] if header is not None else []) + rows
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("rows", "header", "message"), [
    ([f"{CANARY} 1 2 3", "nan 1 nan 3"], "auto", "1 vector contains NaN or infinite values (first at line 3)"),
    ([f"{CANARY} 1 2 3", "big inf 1 1"], "auto", "NaN or infinite"),
    ([f"{CANARY} 1 2 3", "zero 0 0 0"], "auto", "1 vector is all zeros (first at line 3)"),
    ([f"{CANARY} 1 2 3", f"{CANARY} 4 5 6", "other 1 1 1"], "auto", "1 word is listed twice"),
    ([f"{CANARY} 1", "other 2"], "auto", "dimension 1"),
    ([f"{CANARY} 1 2 3"], "1000000000000 3", "more than a file of"),
    ([f"{CANARY} 1 2 3"], "0 3", "announces 0 words"),
    ([f"{CANARY} 1 2 3", "other 1 2 x"], None, "cannot read"),
    # notes given by mistake: gensim's own message would quote the first non-number, the canary
    ([f"seen {CANARY} chest pain today", "Mary visited Boston with him"], None, "cannot read"),
    ([f"{CANARY} visited", "Mary visited Boston"], None, "line 2 has 2 values after its word, not 1"),
])
def test_garbage_embeddings_are_refused_without_quoting(tmp_path: Path, rows: list[str],
                                                        header: str | None, message: str) -> None:
    path = _w2v(tmp_path / "vecs.txt", rows, header)
    with pytest.raises(EmbeddingError) as info:
        read_vectors(path)
    text = str(info.value)
    assert message in text and len(text.splitlines()) == 1
    assert CANARY not in text.lower() and "mary" not in text.lower() and "boston" not in text.lower()


def test_empty_and_binary_garbage(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    with pytest.raises(EmbeddingError, match="is empty"):
        read_vectors(empty)
    noise = tmp_path / "noise.bin"
    noise.write_bytes(np.random.default_rng(0).bytes(4096))
    with pytest.raises(EmbeddingError, match="cannot read|header|announces"):
        read_vectors(noise)
    lying = tmp_path / "lying.bin"
    lying.write_bytes(b"1000000000000 300\n" + b"\0" * 64)
    with pytest.raises(EmbeddingError, match="more than a file of"):
        read_vectors(lying)


def test_gensim_warnings_quoting_words_are_silenced(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = _w2v(tmp_path / "dup.txt", [f"{CANARY} 1 2 3", f"{CANARY} 1 2 3"])
    with caplog.at_level("DEBUG"), pytest.raises(EmbeddingError):
        read_vectors(path)
    assert CANARY not in caplog.text


@pytest.mark.parametrize("fmt", [None, "word2vec", "word2vec-binary", "glove"])
def test_gensim_native_file_is_refused_by_name_and_never_unpickled(tmp_path: Path, fmt: str | None) -> None:
    """KeyedVectors.save() writes a pickle; importing it said 'line 1 is not valid UTF-8' or 'has no
    word2vec header line' (found by hand in the embeddings audit). It is named, never loaded."""
    from gensim.models import KeyedVectors

    kv = KeyedVectors(4)
    kv.add_vectors(["alpha", "bravo", "charlie"], np.eye(3, 4, dtype=np.float32) + 0.1)
    kv.save(str(tmp_path / "vectors.kv"))
    with pytest.raises(EmbeddingError, match="is a Python pickle .* never loads"):
        read_vectors(tmp_path / "vectors.kv", fmt=fmt)


def test_value_past_float32_is_one_error_without_a_warning(tmp_path: Path) -> None:
    """1e39 overflows float32: the read printed numpy's RuntimeWarning and a line of gensim's
    source on stderr before the one-line error (found by hand in the embeddings audit)."""
    path = _w2v(tmp_path / "big.txt", ["alpha 1 2 3", "bravo 1e39 1 1"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(EmbeddingError, match="NaN or infinite values"):
            read_vectors(path)
    assert [str(w.message) for w in caught] == []


def test_store_validation_in_memory() -> None:
    vecs = np.ones((3, 4), dtype=np.float32)
    with pytest.raises(EmbeddingError, match="repeated"):
        EmbeddingStore("t", ["a", "b", "a"], vecs)
    with pytest.raises(EmbeddingError, match="empty or contains whitespace"):
        EmbeddingStore("t", ["a", "b c", "d"], vecs)
    bad = vecs.copy()
    bad[1, 2] = np.nan
    with pytest.raises(EmbeddingError, match="row 1"):
        EmbeddingStore("t", ["a", "b", "c"], bad)
    bad = vecs.copy()
    bad[2] = 0
    with pytest.raises(EmbeddingError, match="all zeros"):
        EmbeddingStore("t", ["a", "b", "c"], bad)
    with pytest.raises(EmbeddingError, match="dimension 1"):
        EmbeddingStore("t", ["a", "b", "c"], np.ones((3, 1), dtype=np.float32))
    with pytest.raises(EmbeddingError, match="wordpieces"):
        EmbeddingStore("t", ["a", "b", "c"], vecs, ["x"], np.ones((2, 4), dtype=np.float32))
    # a negative control: the same shapes with valid content are accepted
    assert len(EmbeddingStore("t", ["a", "b", "c"], np.eye(3, 4, dtype=np.float32))) == 3


def test_fingerprint_covers_words_vectors_and_pieces(tiny_store: EmbeddingStore) -> None:
    base = tiny_store.fingerprint
    vecs = tiny_store.vectors.copy()
    assert EmbeddingStore("other name", list(tiny_store.words), vecs).fingerprint == base
    vecs[0, 0] += 0.5
    assert EmbeddingStore("t", list(tiny_store.words), vecs).fingerprint != base
    words = list(tiny_store.words)
    words[0] = "zulu"
    assert EmbeddingStore("t", words, tiny_store.vectors).fingerprint != base
    pieces = np.ones((1, tiny_store.dim), dtype=np.float32)
    assert EmbeddingStore("t", list(tiny_store.words), tiny_store.vectors, ["ing"], pieces).fingerprint != base


def test_damaged_saved_embedding_is_one_line(tmp_path: Path, tiny_store: EmbeddingStore) -> None:
    tiny_store.save(tmp_path / "tiny")
    (tmp_path / "tiny" / "vectors.npy").write_bytes(b"\x93NUMPY garbage")
    with pytest.raises(EmbeddingError, match="damaged or incomplete"):
        EmbeddingStore.load_saved(tmp_path / "tiny")
    tiny_store.save(tmp_path / "tiny2")
    (tmp_path / "tiny2" / "meta.json").write_text("{}", encoding="utf-8")
    with pytest.raises(EmbeddingError, match="damaged or incomplete"):
        EmbeddingStore.load_saved(tmp_path / "tiny2")
    tiny_store.save(tmp_path / "tiny3")
    words = (tmp_path / "tiny3" / "words.txt").read_text(encoding="utf-8").split("\n")
    (tmp_path / "tiny3" / "words.txt").write_text("\n".join(reversed(words)), encoding="utf-8")
    with pytest.raises(EmbeddingError, match="fingerprint"):
        EmbeddingStore.load_saved(tmp_path / "tiny3")


def test_saved_embedding_modes_follow_the_umask(tmp_path: Path, tiny_store: EmbeddingStore) -> None:
    old = os.umask(0o027)
    try:
        tiny_store.save(tmp_path / "tiny")
    finally:
        os.umask(old)
    assert (tmp_path / "tiny").stat().st_mode & 0o777 == 0o750
    assert (tmp_path / "tiny" / "vectors.npy").stat().st_mode & 0o777 == 0o640
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp dir left


def test_damaged_path_cache_is_rebuilt(w2v_files: dict[str, Path], monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("EMBEDANON_CACHE", str(tmp_path / "cache"))
    defaults._load_named.cache_clear()
    store = defaults.load_embedding(str(w2v_files["glove"]))
    (cached,) = list((tmp_path / "cache" / "vectors").iterdir())
    (cached / "vectors.npy").write_bytes(b"")
    defaults._load_named.cache_clear()
    assert defaults.load_embedding(str(w2v_files["glove"])).words == store.words
    defaults._load_named.cache_clear()


def test_unwritable_path_cache_is_skipped_with_one_warning(w2v_files: dict[str, Path], monkeypatch,  # type: ignore[no-untyped-def]
                                                           tmp_path: Path, caplog) -> None:
    from embedanon import _cache

    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("EMBEDANON_CACHE", str(blocker / "cache"))  # under a regular file
    monkeypatch.setattr(_cache, "_disabled", None)
    defaults._load_named.cache_clear()
    with caplog.at_level("WARNING"):
        store = defaults.load_embedding(str(w2v_files["glove"]))
    assert len(store) == 7
    assert [r.levelname for r in caplog.records] == ["WARNING"]
    assert "without the disk cache" in caplog.records[0].getMessage()
    defaults._load_named.cache_clear()


def test_allowlist_reader(tmp_path: Path) -> None:
    from embedanon.errors import ConfigError as _ConfigError
    from embedanon.vectors.store import read_allowlist

    good = tmp_path / "allow.txt"
    good.write_bytes("\ufeffDoctor 12\nnurse\n\n  clinic x y\n".encode())
    assert read_allowlist(good) == frozenset({"doctor", "nurse", "clinic"})
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(f"ok\n{CANARY} caf\xe9\n".encode("latin-1"))
    with pytest.raises(_ConfigError) as info:
        read_allowlist(bad)
    assert "line 2 is not valid UTF-8" in str(info.value) and CANARY not in str(info.value)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n \n", encoding="utf-8")
    with pytest.raises(_ConfigError, match="has no words"):
        read_allowlist(empty)
    with pytest.raises(_ConfigError, match="cannot read allowlist"):
        read_allowlist(tmp_path / "missing.txt")


def test_policy_repr_never_shows_the_allowlist() -> None:
    from embedanon.vectors.store import CandidatePolicy

    policy = CandidatePolicy(allowlist=frozenset({CANARY, "mary"}))
    assert CANARY not in repr(policy) and CANARY not in str(policy) and "2 words" in repr(policy)


def test_table_memory_bound() -> None:
    from embedanon.vectors.index import check_table_memory
    from embedanon.vectors.store import memory_limit_bytes

    assert memory_limit_bytes() > 2**28
    check_table_memory(21_718, 10)  # the default k on the default embedding fits anywhere
    with pytest.raises(ConfigError) as info:
        check_table_memory(21_718, 21_717)  # the issue's --k 21718: over 100 GiB
    assert "choose k <=" in str(info.value) and len(str(info.value).splitlines()) == 1
    with pytest.raises(ConfigError, match="k=60 needs"):
        check_table_memory(1000, 60, limit_bytes=1000 * 59 * 256)
    check_table_memory(1000, 60, limit_bytes=1000 * 60 * 256)  # exactly at the limit: accepted


def test_table_memory_bound_is_applied_by_the_index(tiny_store: EmbeddingStore, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from embedanon.vectors import index as index_module
    from embedanon.vectors.store import CandidatePolicy

    monkeypatch.setattr(index_module, "TABLE_BYTES_PER_CELL", 2**40)
    idx = index_module.NeighborIndex(tiny_store, CandidatePolicy(min_length=1), use_disk_cache=False)
    with pytest.raises(ConfigError, match="needs about"):
        idx.table(3)


def _greedy_wordpieces(store: EmbeddingStore, key: str) -> list[tuple[bool, int]] | None:
    """The plain greedy longest-match segmentation (every end tried, from the word's end)."""
    words = {w: i for i, w in enumerate(store.words)}
    pieces = {p: i for i, p in enumerate(store.pieces)}
    out, start = [], 0
    while start < len(key):
        for end in range(len(key), start, -1):
            found = (words if start == 0 else pieces).get(key[start:end], -1)
            if found >= 0:
                break
        else:
            return None
        out.append((start > 0, found))
        start = end
    return out


class _CountingDict(dict):  # type: ignore[type-arg]
    lookups = 0

    def get(self, key, default=None):  # type: ignore[no-untyped-def]
        _CountingDict.lookups += 1
        return super().get(key, default)


@pytest.mark.default_embedding
def test_wordpieces_match_the_plain_greedy_segmentation_in_linear_lookups(default_store: EmbeddingStore) -> None:
    """Segmentation is the plain greedy one, but tries no piece longer than the longest entry: a
    letter run of thousands of characters (a DNA sequence, a blob) costs lookups in proportion
    to its length, where trying every end cost its square (a 5,000-letter word took seconds)."""
    rng = np.random.default_rng(4)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = ["hypertension", "okafor", "thembisile", "qqqq", "x" * 40, "ACGT" * 30]
    words += ["".join(rng.choice(letters, size=int(rng.integers(1, 30)))) for _ in range(300)]
    for word in words:
        assert default_store.wordpieces(word) == _greedy_wordpieces(default_store, word.lower())
    store = EmbeddingStore("tiny", ["ab", "abc"], np.eye(2, 3, dtype=np.float32)[[0, 1]],
                           ["a", "b", "c"], np.eye(3, 3, dtype=np.float32))
    store._index = _CountingDict(store._index)
    store._piece_index = _CountingDict(store._piece_index)
    assert store.wordpieces("abc" * 100) == _greedy_wordpieces(store, "abc" * 100)
    word = "abc" * 2000
    _CountingDict.lookups = 0
    assert store.wordpieces(word) == [(False, 1)] + [(True, 0), (True, 1), (True, 2)] * 1999
    assert _CountingDict.lookups <= len(word) * 3  # at most the longest entry's length per piece


def test_row_norms_equal_numpy_bit_for_bit() -> None:
    """The blocked norms (no table-sized temporaries) are the whole-table call's, bit for bit:
    an embedding's unit rows, and so its fingerprint and neighbor tables, do not move."""
    from embedanon.vectors.store import _NORM_BLOCK, row_norms

    rng = np.random.default_rng(3)
    for n in (0, 1, _NORM_BLOCK - 1, _NORM_BLOCK, 2 * _NORM_BLOCK + 5):
        for dtype in (np.float32, np.float64):
            vecs = (rng.normal(size=(n, 37)) * rng.pareto(1.0, size=(n, 1))).astype(dtype)
            assert np.array_equal(row_norms(vecs), np.linalg.norm(vecs, axis=1, keepdims=True))
            assert row_norms(vecs).dtype == np.linalg.norm(vecs, axis=1, keepdims=True).dtype


def test_check_vectors_fast_path_keeps_every_verdict() -> None:
    """Rows whose sum overflows are finite and accepted; one NaN or inf anywhere is still found."""
    from embedanon.vectors.store import check_vectors

    big = np.full((4, 8), 3e38, dtype=np.float32)  # every row sums to inf in float32
    check_vectors("e", big)
    for bad in (np.nan, np.inf, -np.inf):
        vecs = big.copy()
        vecs[2, 5] = bad
        with pytest.raises(EmbeddingError, match="1 vector contains NaN or infinite values"):
            check_vectors("e", vecs)
