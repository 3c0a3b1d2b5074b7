"""A text embedding file is read whole or refused: no line past the header's count is dropped,
no byte that is not UTF-8 is replaced. Errors name line numbers, never a word (QA reproductions)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from embedanon.cli import app
from embedanon.errors import EmbeddingError
from embedanon.vectors.formats import read_vectors

CANARY = "zqsecretword"


def _lines(n: int, dim: int = 5, start: int = 0) -> list[bytes]:
    rng = np.random.default_rng(start)
    return [f"w{start + i} ".encode() + " ".join(f"{x:.4f}" for x in rng.normal(size=dim)).encode()
            for i in range(n)]


def _write(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_header_announcing_fewer_words_than_lines_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "v.txt", [b"15 5", *_lines(20)])
    with pytest.raises(EmbeddingError, match=r"line 17 is past the 15 words its header announces"):
        read_vectors(path)


def test_malformed_extra_line_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "v.txt", [b"3 5", *_lines(3), CANARY.encode() + b" not numbers"])
    with pytest.raises(EmbeddingError, match="line 5 is past the 3 words") as info:
        read_vectors(path)
    assert CANARY not in str(info.value)


def test_header_announcing_more_words_than_lines_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "v.txt", [b"25 5", *_lines(20)])
    with pytest.raises(EmbeddingError, match="announces 25 words but 20 lines follow it"):
        read_vectors(path)


@pytest.mark.parametrize("fmt", ["word2vec", "glove"])
def test_word_that_is_not_utf8_is_refused(tmp_path: Path, fmt: str) -> None:
    bad = CANARY.encode() + b"caf\xe9 " + _lines(1)[0].split(b" ", 1)[1]
    header = [b"3 5"] if fmt == "word2vec" else []
    path = _write(tmp_path / "v.txt", [*header, *_lines(1), bad, *_lines(1, start=5)])
    with pytest.raises(EmbeddingError, match=f"line {len(header) + 2} is not valid UTF-8") as info:
        read_vectors(path, fmt=fmt)
    assert CANARY not in str(info.value)


def test_trailing_blank_lines_and_exact_count_are_fine(tmp_path: Path) -> None:
    path = _write(tmp_path / "v.txt", [b"4 5", *_lines(4), b"", b"  "])
    assert len(read_vectors(path)) == 4


def test_limit_reads_a_prefix_without_checking_the_rest(tmp_path: Path) -> None:
    # Header larger than what --limit reads; bad bytes and extra lines beyond the limit are not read.
    path = _write(tmp_path / "v.txt", [b"6 5", *_lines(6), b"\xff\xfe junk"])
    assert len(read_vectors(path, limit=3)) == 3
    exact = _write(tmp_path / "exact.txt", [b"3 5", *_lines(3)])
    assert len(read_vectors(exact, limit=3)) == 3  # exactly `limit` lines: no "extra lines" error
    # A limit above the header's count still reads the whole file, so an extra line is refused.
    with pytest.raises(EmbeddingError, match="line 8 is past the 6 words"):
        read_vectors(path, limit=10)


def test_import_cli_refuses_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("EMBEDANON_HOME", str(home))
    path = _write(tmp_path / "v.txt", [b"15 5", *_lines(20)])
    result = CliRunner().invoke(app, ["embeddings", "import", str(path), "--name", "x", "--no-table"])
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and "line 17 is past the 15 words" in result.output
    assert not (home / "embeddings" / "x").exists()
    result = CliRunner().invoke(app, ["embeddings", "import", str(path), "--name", "x", "--no-table",
                                      "--limit", "15"])
    assert result.exit_code == 0, result.output
    assert "15 words x 5" in result.output


# -- word2vec binary: the header's count and dimension are checked against the records ---------

def _binary(path: Path, header: bytes, n: int, dim: int, *, newline: bool, tail: bytes = b"") -> Path:
    """``n`` records of ``dim`` float32 values (word2vec.c ends each with a line end, gensim not)."""
    rng = np.random.default_rng(1)
    records = [f"w{i} ".encode() + rng.normal(size=dim).astype(np.float32).tobytes()
               + (b"\n" if newline else b"") for i in range(n)]
    raw = header + b"\n" + b"".join(records) + tail
    if path.suffix == ".gz":
        import gzip

        raw = gzip.compress(raw)
    path.write_bytes(raw)
    return path


@pytest.mark.parametrize("name", ["v.bin", "v.bin.gz"])
@pytest.mark.parametrize("newline", [False, True])
def test_binary_records_as_announced_are_read(tmp_path: Path, name: str, newline: bool) -> None:
    path = _binary(tmp_path / name, b"20 6", 20, 6, newline=newline, tail=b"\n")
    assert len(read_vectors(path, fmt="word2vec-binary")) == 20


@pytest.mark.parametrize("name", ["v.bin", "v.bin.gz"])
@pytest.mark.parametrize(("header", "message"), [
    # gensim read the first 15 records and dropped the other 5 silently
    (b"15 6", "data follows the 15 words of dimension 6 its header announces"),
    # gensim read float bytes as words: garbage imported (the audit's 104 x 8 file: 71 words x 4)
    (b"20 3", "data follows the 20 words of dimension 3"),
    (b"21 6", "announces 21 words of dimension 6, but the file ends after 20 of them"),
    (b"12 9", "announces 12 words of dimension 9, but the file ends after"),
])
def test_binary_header_that_lies_is_refused(tmp_path: Path, name: str, header: bytes, message: str) -> None:
    path = _binary(tmp_path / name, header, 20, 6, newline=False)
    with pytest.raises(EmbeddingError, match=message):
        read_vectors(path, fmt="word2vec-binary")


def test_binary_limit_reads_a_prefix_without_checking_the_rest(tmp_path: Path) -> None:
    path = _binary(tmp_path / "v.bin", b"15 6", 20, 6, newline=True, tail=CANARY.encode())
    assert len(read_vectors(path, limit=15)) == 15
    with pytest.raises(EmbeddingError, match="data follows the 15 words") as info:
        read_vectors(path, limit=16)
    assert CANARY not in str(info.value)


# -- a UTF-8 byte-order mark at the start of a text file ---------------------------------------

def test_glove_file_with_a_byte_order_mark_keeps_its_first_word(tmp_path: Path) -> None:
    """Found by hand in the embeddings audit: the mark became part of the first word (in GloVe
    files the most frequent one, 'the'), which was then neither found nor a candidate."""
    lines = _lines(4)
    path = _write(tmp_path / "v.txt", [b"\xef\xbb\xbf" + lines[0], *lines[1:]])
    store = read_vectors(path, fmt=None)
    assert store.words == ["w0", "w1", "w2", "w3"] and "w0" in store


@pytest.mark.parametrize("name", ["v.txt", "v.txt.gz"])
def test_word2vec_file_with_a_byte_order_mark_is_refused_by_name(tmp_path: Path, name: str) -> None:
    """It was read as GloVe ('\\ufeff4 5' is no header) and refused as 'damaged'."""
    import gzip

    raw = b"\xef\xbb\xbf" + b"\n".join([b"4 5", *_lines(4)]) + b"\n"
    path = tmp_path / name
    path.write_bytes(gzip.compress(raw) if name.endswith(".gz") else raw)
    with pytest.raises(EmbeddingError, match="begins with a UTF-8 byte-order mark"):
        read_vectors(path)


# -- every line: one word and the dimension's values; blank lines only at the end ----------------

@pytest.mark.parametrize(("fmt", "header"), [("word2vec", [b"6 5"]), ("glove", [])])
def test_a_line_with_another_number_of_values_is_named(tmp_path: Path, fmt: str, header: list[bytes]) -> None:
    """It was 'cannot read ... damaged, or not in this format (ValueError)', no line (found by
    hand in the embeddings audit); a word with a space in it is the usual cause in GloVe files."""
    lines = _lines(6)
    lines[3] = CANARY.encode() + b" " + lines[3]  # "<canary> w3 v1 ... v5": a word with a space
    path = _write(tmp_path / "v.txt", [*header, *lines])
    with pytest.raises(EmbeddingError, match=f"line {len(header) + 4} has 6 values after its word, not 5") as info:
        read_vectors(path, fmt=fmt)
    assert CANARY not in str(info.value)


@pytest.mark.parametrize(("fmt", "header"), [("word2vec", [b"4 5"]), ("glove", [])])
def test_blank_lines_may_end_a_file_but_not_stand_between_words(tmp_path: Path, fmt: str,
                                                                header: list[bytes]) -> None:
    """A GloVe file ending in a blank line was refused as 'damaged' (gensim read it as a word)."""
    ending = _write(tmp_path / "end.txt", [*header, *_lines(4), b"", b"  "])
    assert len(read_vectors(ending, fmt=fmt)) == 4
    inside = _write(tmp_path / "inside.txt", [*header, *_lines(2), b"", *_lines(2, start=2)])
    with pytest.raises(EmbeddingError, match=f"line {len(header) + 3} is blank"):
        read_vectors(inside, fmt=fmt)
    assert len(read_vectors(inside, fmt=fmt, limit=2)) == 2  # the blank line is past the limit


def test_a_gensim_that_does_not_import_is_not_a_damaged_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """gensim 4.3.0 on scipy >= 1.14 fails to import (scipy.linalg.triu is gone): every import
    said the file was 'damaged, or not in this format (ImportError)' (packaging audit)."""
    path = _write(tmp_path / "tiny.vec", [b"3 5", *_lines(3)])
    read_vectors(path)  # a good file
    monkeypatch.setitem(__import__("sys").modules, "gensim.models", None)
    with pytest.raises(EmbeddingError, match=r"gensim does not import .*gensim>=4\.4") as info:
        read_vectors(path)
    assert "damaged" not in str(info.value)
