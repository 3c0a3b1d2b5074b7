"""Writing a trained detector (QA D3): all or nothing, private (0700 directory, 0600 files),
and loadable by ``ModelDetector(path=...)``. A model adapted on private notes reveals which words
were in them, so it is written like anonymized output."""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedanon.cli import app
from embedanon.detectors import weights as weights_module
from embedanon.detectors.model import ModelDetector
from embedanon.errors import ConfigError
from tests.helpers.detector import name_records

runner = CliRunner()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "spans.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in name_records(6, seed=2)), encoding="utf-8")
    return path


@pytest.fixture
def umask_022():  # type: ignore[no-untyped-def]
    old = os.umask(0o022)
    yield
    os.umask(old)


def _train(data: Path, out: Path):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["detector", "train", "--data", str(data), "-o", str(out), "--epochs", "1"])


def _modes(root: Path) -> dict[str, int]:
    return {p.relative_to(root.parent).as_posix(): stat.S_IMODE(p.stat().st_mode)
            for p in [root, *root.rglob("*")]}


@pytest.mark.default_embedding
def test_trained_directory_is_private_and_loads(tmp_path: Path, data: Path, umask_022: None) -> None:
    out = tmp_path / "adapted"
    result = _train(data, out)
    assert result.exit_code == 0, result.output
    assert _modes(out) == {"adapted": 0o700, "adapted/weights.npz": 0o600, "adapted/manifest.json": 0o600}
    text = "Thanks, Amina Okafor! See you at the clinic."
    assert any(text[s.start:s.end] == "Amina Okafor" for s in ModelDetector(path=out).detect(text))
    again = _train(data, out)  # a trained directory is replaced as a whole
    assert again.exit_code == 0, again.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adapted", "spans.jsonl"]


@pytest.mark.slow
def test_full_disk_leaves_nothing_and_keeps_the_previous_model(tmp_path: Path, data: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "adapted"
    assert _train(data, out).exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def full(file: object, **arrays: object) -> None:  # a truncated file, then the error
        Path(file).write_bytes(b"PK\x03\x04 truncated")  # type: ignore[arg-type]
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(weights_module.np, "savez_compressed", full)
    for target in (out, tmp_path / "fresh"):
        result = _train(data, target)
        assert result.exit_code == 2
        assert result.output == f"error: cannot write {target}: No space left on device\n"
    assert not (tmp_path / "fresh").exists()
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adapted", "spans.jsonl"]  # no temp dir


@pytest.mark.default_embedding
def test_a_model_that_does_not_load_is_not_written(tmp_path: Path, data: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(weights_module.Weights, "save", lambda self, directory: Path(directory))
    result = _train(data, tmp_path / "adapted")
    assert result.exit_code == 2 and "has no weights.npz and manifest.json" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spans.jsonl"]


@pytest.mark.parametrize(("make", "message"), [
    (lambda d: (d.mkdir(), (d / "notes.txt").write_text("x", encoding="utf-8")), "holding other files"),
    (lambda d: d.write_text("x", encoding="utf-8"), "is not a directory"),
])
def test_out_that_is_not_a_model_directory_is_refused_before_training(
        tmp_path: Path, data: Path, make, message: str) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "out"
    make(out)
    before = _modes(out)
    result = _train(tmp_path / "missing.jsonl", out)  # refused before the data is even read
    assert result.exit_code == 2 and message in result.output and len(result.output.splitlines()) == 1
    assert _modes(out) == before


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"seed": -1}, "seed must be a non-negative integer, got -1"),
    ({"seed": 1.5}, "seed must be a non-negative integer, got float"),
    ({"epochs": 0}, "epochs must be an integer >= 1, got 0"),
])
def test_train_refuses_bad_numbers_before_any_work(kwargs: dict, message: str) -> None:
    from embedanon.detectors.training import train

    with pytest.raises(ConfigError, match=message):
        train([], **kwargs)  # no data read, no embedding loaded


@pytest.mark.parametrize("texts", [[""], ["", "  \t ", "\n"]])
def test_data_without_tokens_is_refused_and_writes_nothing(tmp_path: Path, texts: list[str]) -> None:
    """QA 5B: records whose texts are all empty or blank "trained" a model that learned nothing."""
    data = tmp_path / "blank.jsonl"
    data.write_text("".join(json.dumps({"text": t, "spans": []}) + "\n" for t in texts), encoding="utf-8")
    out = tmp_path / "adapted"
    for backend in ("model", "transformer"):
        result = runner.invoke(app, ["detector", "train", "--data", str(data), "-o", str(out),
                                     "--backend", backend])
        assert result.exit_code == 2 and len(result.output.splitlines()) == 1
        if backend == "model":  # the transformer backend first asks for torch where it is missing
            assert result.output == f"error: {data}: no tokens to train on (every text is empty or blank)\n"
    assert not out.exists()


def test_the_training_functions_refuse_data_without_tokens_before_any_work() -> None:
    from embedanon.detectors.training import train
    from embedanon.detectors.transformer import train_transformer
    from embedanon.errors import InputError

    for trainer in (train, train_transformer):
        for records in ([], [{"text": " \n", "spans": []}]):
            with pytest.raises(InputError, match="^training records: no tokens to train on"):
                trainer(records)  # type: ignore[operator]


@pytest.mark.default_embedding
def test_the_manifest_records_the_epochs_actually_run(tmp_path: Path, data: Path) -> None:
    """QA 5B: without --epochs the manifest said ``"epochs": null``; the default (20 with a
    base) is what ran."""
    from embedanon.detectors.training import ADAPT_EPOCHS

    out = tmp_path / "adapted"
    result = runner.invoke(app, ["detector", "train", "--data", str(data), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "manifest.json").read_text())["train"]["epochs"] == ADAPT_EPOCHS == 20
    assert _train(data, out).exit_code == 0  # --epochs 1
    assert json.loads((out / "manifest.json").read_text())["train"]["epochs"] == 1


# -- ignored regions (decision 0611) --------------------------------------------------------------

def test_token_labels_leave_ignored_tokens_unlabelled_but_keep_spans() -> None:
    import numpy as np

    from embedanon.detectors.features import tokenize
    from embedanon.detectors.training import UNLABELLED, token_labels

    text = "Seen at Mercy Hospital by Ana Lima."
    toks = tokenize(text)
    spans = [{"start": 26, "end": 34, "label": "NAME"}]
    plain = token_labels(toks.starts, toks.ends, spans)
    assert plain.tolist() == [0, 0, 0, 0, 0, 1, 2, 0]  # negative control: the old labels
    ignored = token_labels(toks.starts, toks.ends, spans, [[8, 22]])
    assert ignored.tolist() == [0, 0, UNLABELLED, UNLABELLED, 0, 1, 2, 0]
    # a region reaching into a span: the span's tokens keep their labels
    reaching = token_labels(toks.starts, toks.ends, spans, [[20, 30]])
    assert reaching.tolist() == [0, 0, 0, UNLABELLED, UNLABELLED, 1, 2, 0]
    assert np.array_equal(token_labels(toks.starts, toks.ends, spans, []), plain)


@pytest.mark.default_embedding
def test_ignored_regions_are_left_out_of_training_not_trained_as_not_personal() -> None:
    """The span format's ignore regions are 'neither gold nor wrong to flag'; training taught
    them as O, not personal (found reading the trainer in the detector audit)."""
    from embedanon.detectors.training import featurize_records
    from embedanon.detectors.weights import Weights, make_featurizer, shipped_path
    from embedanon.errors import InputError

    weights = Weights.load(shipped_path())
    featurizer = make_featurizer(weights.clusters, int(weights.sparse.shape[0]))
    text = "Seen at Mercy Hospital by Ana Lima."
    record = {"text": text, "spans": [{"start": 26, "end": 34, "label": "NAME"}]}
    plain = featurize_records(featurizer, [record])
    ignored = featurize_records(featurizer, [{**record, "ignore": [[8, 22]]}])
    assert len(plain.y) == 8 and ignored.y.tolist() == [0, 0, 0, 1, 2, 0]
    # the kept tokens keep the features they had in context (Mercy and Hospital stay neighbors)
    keep = [0, 1, 4, 5, 6, 7]
    assert (ignored.ids == plain.ids[keep]).all() and (ignored.rows == plain.rows[keep]).all()
    with pytest.raises(InputError, match="every token is in an ignored region"):
        featurize_records(featurizer, [{**record, "spans": [], "ignore": [[0, len(text)]]}])
