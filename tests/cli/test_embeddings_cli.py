"""embedanon embeddings list | info | import, mechanisms, and --allowlist hygiene."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedanon import Anonymizer
from embedanon.cli import app
from embedanon.vectors import defaults
from tests.helpers.embeddings import write_glove

runner = CliRunner()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EMBEDANON_HOME", str(tmp_path / "home"))
    defaults._load_named.cache_clear()
    yield tmp_path
    defaults._load_named.cache_clear()


def _glove(path: Path) -> Path:
    return write_glove(path, ["patient", "doctor", "nurse", "hospital", "clinic", "pain", "ache", "heart"])


def test_list_info_import(home: Path) -> None:
    listed = runner.invoke(app, ["embeddings", "list"])
    assert listed.exit_code == 0 and listed.stdout.strip() == "minilm-words  (built in, default)"
    src = _glove(home / "tiny.glove.txt")
    imported = runner.invoke(app, ["embeddings", "import", str(src), "--name", "tiny", "--no-table"])
    assert imported.exit_code == 0, imported.output
    assert "imported tiny: 8 words x 6" in imported.stdout
    assert "tiny" in runner.invoke(app, ["embeddings", "list"]).stdout
    info = runner.invoke(app, ["embeddings", "info", "tiny"])
    assert info.exit_code == 0 and "words:       8" in info.stdout and "dimension:   6" in info.stdout
    again = runner.invoke(app, ["embeddings", "import", str(src), "--name", "tiny"])
    assert again.exit_code == 2 and "already exists" in again.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [(["embeddings", "import", "/nonexistent/vecs.txt"], "embedding file not found"),
     (["embeddings", "info", "nope"], "unknown embedding 'nope'"),
     (["embeddings", "import", "x.txt", "--format", "pickle"], "format must be one of")],
)
def test_embedding_errors(home: Path, args: list[str], message: str) -> None:
    if args[-1] == "pickle":
        args = ["embeddings", "import", str(_glove(home / "x.txt")), "--format", "pickle"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and message in result.stderr and len(result.stderr.splitlines()) == 1


def test_anonymize_with_imported_embedding(home: Path) -> None:
    src = _glove(home / "tiny.glove.txt")
    assert runner.invoke(app, ["embeddings", "import", str(src), "--name", "tiny"]).exit_code == 0
    anon = Anonymizer("tiny", k=2, seed=0)
    out = anon.anonymize("Patient in pain")
    assert out.split()[0] != "Patient" and out.split()[2] != "pain"


def test_mechanisms_command() -> None:
    result = runner.invoke(app, ["mechanisms"])
    names = [line.split()[0] for line in result.stdout.splitlines()]
    assert names == ["exponential", "knn", "laplace", "mahalanobis", "tem"]


@pytest.mark.default_embedding
def test_allowlist_restricts_replacements(tmp_path: Path) -> None:
    allow = tmp_path / "allow.txt"
    words = ["doctor", "nurse", "clinic", "hospital", "ache", "sore", "james", "william", "mary",
             "house", "table", "river", "green", "music", "window"]
    allow.write_text("\n".join(words) + "\n", encoding="utf-8")
    anon = Anonymizer(seed=1, k=3, allowlist=str(allow))
    assert anon.runtime.index.n_candidates == len(words)
    out = anon.anonymize("John the patient has pain and a headache near Boston " * 5)
    assert {w.lower() for w in out.split()} <= set(words)
    with pytest.raises(Exception, match="cannot read allowlist"):
        Anonymizer(allowlist=str(tmp_path / "missing.txt"))


@pytest.mark.parametrize("overwrite", [False, True])
def test_failed_import_leaves_no_embedding(home: Path, overwrite: bool) -> None:
    """An import whose neighbor table cannot be built (one candidate word) exits 2 and saves
    nothing: it was saved first and then failed, so 'embeddings list' showed an embedding the
    error said was not imported, and a second import of a fixed file was refused as a duplicate.
    With --overwrite the embedding already there is left as it was."""
    if overwrite:
        good = _glove(home / "good.txt")
        assert runner.invoke(app, ["embeddings", "import", str(good), "--name", "tiny"]).exit_code == 0
    one = write_glove(home / "one.txt", ["patient"])
    args = ["embeddings", "import", str(one), "--name", "tiny"] + (["--overwrite"] if overwrite else [])
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "1 candidate words" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    listed = runner.invoke(app, ["embeddings", "list"]).stdout
    assert ("tiny" in listed) == overwrite
    if overwrite:
        assert len(defaults.load_embedding("tiny")) == 8
