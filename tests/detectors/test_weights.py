"""Loading a trained detector directory: a damaged one is one line naming the directory and what
is wrong (QA 5B D7: garbage weights, a cut manifest and a manifest that is a JSON list each gave a
traceback), both from the API and from ``detector info`` / ``--detector-option model_path=``."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from embedanon.cli import app
from embedanon.detectors.bio import CLASSES
from embedanon.detectors.weights import MODEL_FORMAT, Weights, check_format, shipped_path
from embedanon.errors import ConfigError

runner = CliRunner()
SECRET = "SECRETNAME"


def _saved(directory: Path, *, hidden: bool = False) -> Path:
    """A tiny saved model (8 buckets, a 2-wide embedding, one cluster level)."""
    from embedanon.detectors.weights import Hidden

    rng = np.random.default_rng(0)
    c = len(CLASSES)
    layer = Hidden(rng.normal(size=(4, 3)).astype(np.float32), rng.normal(size=(6, 3)).astype(np.float32),
                   np.zeros(3, np.float32), rng.normal(size=(3, c)).astype(np.float32)) if hidden else None
    weights = Weights(rng.normal(size=(8, c)).astype(np.float32), rng.normal(size=(6, c)).astype(np.float32),
                      np.zeros(c, np.float32), [rng.normal(size=(3, 2)).astype(np.float32)],
                      {"note": SECRET}, layer)
    return weights.save(directory)


def _npz(path: Path, **arrays: np.ndarray) -> None:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    path.write_bytes(buffer.getvalue())


def _arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def _flip_compressed_bytes(directory: Path) -> None:
    path = directory / "weights.npz"
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("sparse.npy")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for i in range(start + 10, start + 40):
        raw[i] ^= 0xFF
    path.write_bytes(bytes(raw))


DAMAGE: dict[str, tuple[Callable[[Path], object], str]] = {
    "garbage weights (c1)": (lambda d: (d / "weights.npz").write_bytes(SECRET.encode() + b"\n"),
                             "weights.npz is damaged or not a saved model"),
    "cut weights": (lambda d: (d / "weights.npz").write_bytes((d / "weights.npz").read_bytes()[:200]),
                    "weights.npz is damaged or not a saved model"),
    "flipped compressed bytes": (_flip_compressed_bytes, "weights.npz is damaged"),
    "a single .npy": (lambda d: np.save(d / "weights.npz.npy", np.zeros(3))
                      or (d / "weights.npz.npy").rename(d / "weights.npz"),
                      "weights.npz is a single array, not a saved model"),
    "missing array": (lambda d: _npz(d / "weights.npz", **{k: v for k, v in _arrays(d / "weights.npz").items()
                                                          if k != "bias"}),
                      "weights.npz has no array 'bias'"),
    "wrong shapes": (lambda d: _npz(d / "weights.npz", **{**_arrays(d / "weights.npz"),
                                                         "bias": np.zeros(3, np.float32)}),
                     "weights.npz holds arrays of the wrong shapes"),
    "cut manifest (c2)": (lambda d: (d / "manifest.json").write_text('{"x": "' + SECRET + '"\n'),
                          "manifest.json is not valid JSON"),
    "manifest is a list (c3)": (lambda d: (d / "manifest.json").write_text(json.dumps([SECRET])),
                                "manifest.json is an array, not a JSON object"),
    "manifest is a string": (lambda d: (d / "manifest.json").write_text(json.dumps(SECRET)),
                             "manifest.json is a string, not a JSON object"),
    "manifest not UTF-8": (lambda d: (d / "manifest.json").write_bytes(b'{"x": "\xff' + SECRET.encode() + b'"}'),
                           "manifest.json is not valid UTF-8"),
    "manifest without clusters": (lambda d: (d / "manifest.json").write_text(json.dumps(
        {k: v for k, v in json.loads((d / "manifest.json").read_text()).items() if k != "clusters"})),
        "manifest.json lacks its list of cluster sizes"),
    # found in the embeddings/detector audit: each was a ValueError or TypeError traceback, exit 1
    "threshold not a number": (lambda d: _edit_manifest(d, threshold=SECRET),
                               "manifest.json's threshold must be a number in (0, 1)"),
    "threshold a list": (lambda d: _edit_manifest(d, threshold=[0.5]),
                         "manifest.json's threshold must be a number in (0, 1)"),
    "lower_threshold not a number": (lambda d: _edit_manifest(d, lower_threshold=SECRET),
                                     "manifest.json's lower_threshold must be a number in (0, 1)"),
    "threshold 1": (lambda d: _edit_manifest(d, threshold=1),
                    "manifest.json's threshold must be a number in (0, 1)"),
    "clusters of another dimension": (lambda d: _npz(d / "weights.npz", **{
        **_arrays(d / "weights.npz"), "clusters0": np.ones((3, 5), np.float16)}),
        "weights.npz holds arrays of the wrong shapes"),
    "cluster sizes not the manifest's": (lambda d: _edit_manifest(d, clusters=[4]),
                                         "weights.npz holds arrays of the wrong shapes"),
    # left by the audits: a manifest had no format version, so a model of a future format
    # would be read into the wrong places; an unknown one is refused
    "a future format": (lambda d: _edit_manifest(d, format_version=2),
                        "is a model of format 2, and this embedanon reads format 1 and older"),
    "format not an integer": (lambda d: _edit_manifest(d, format_version="1"),
                              "manifest.json's format_version must be a positive integer"),
    "format 0": (lambda d: _edit_manifest(d, format_version=0),
                 "manifest.json's format_version must be a positive integer"),
    "one sparse row": (lambda d: _npz(d / "weights.npz", **{
        **_arrays(d / "weights.npz"), "sparse": np.ones((1, len(CLASSES)), np.float16)}),
        "weights.npz holds arrays of the wrong shapes"),
}


def _edit_manifest(directory: Path, **entries: object) -> None:
    path = directory / "manifest.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **entries}))


def test_a_saved_model_loads(tmp_path: Path) -> None:
    for hidden in (False, True):
        loaded = Weights.load(_saved(tmp_path / f"m{hidden}", hidden=hidden))
        assert loaded.sparse.shape == (8, len(CLASSES)) and (loaded.hidden is not None) == hidden
        assert loaded.manifest["format_version"] == MODEL_FORMAT
    _edit_manifest(tmp_path / "mFalse", format_version=MODEL_FORMAT)
    path = tmp_path / "mFalse" / "manifest.json"  # saved before the field: format 1
    path.write_text(json.dumps({k: v for k, v in json.loads(path.read_text()).items() if k != "format_version"}))
    assert Weights.load(tmp_path / "mFalse").sparse.shape == (8, len(CLASSES))
    assert json.loads((shipped_path() / "manifest.json").read_text())["format_version"] == MODEL_FORMAT
    check_format(Weights.load(shipped_path()).manifest, "the shipped model")


@pytest.mark.parametrize("case", DAMAGE)
def test_a_damaged_model_directory_is_one_config_error(tmp_path: Path, case: str) -> None:
    damage, message = DAMAGE[case]
    directory = _saved(tmp_path / "m")
    damage(directory)
    with pytest.raises(ConfigError) as info:
        Weights.load(directory)
    text = str(info.value)
    assert text.startswith(f"model at {str(directory)!r}") and message in text
    assert SECRET not in text and "\n" not in text


def test_hidden_layer_of_the_wrong_shape_is_refused(tmp_path: Path) -> None:
    directory = _saved(tmp_path / "m", hidden=True)
    _npz(directory / "weights.npz", **{**_arrays(directory / "weights.npz"),
                                       "hidden_out": np.zeros((2, len(CLASSES)), np.float32)})
    with pytest.raises(ConfigError, match="wrong shapes"):
        Weights.load(directory)


@pytest.mark.default_embedding
@pytest.mark.parametrize("case", ["garbage weights (c1)", "cut manifest (c2)", "manifest is a list (c3)",
                                  "threshold not a number"])
def test_detector_info_and_model_path_give_one_line_and_exit_2(tmp_path: Path, case: str) -> None:
    damage, message = DAMAGE[case]
    directory = _saved(tmp_path / "m")
    damage(directory)
    info = runner.invoke(app, ["detector", "info", str(directory)])
    assert info.exit_code == 2, info.output
    assert info.output.splitlines() == [info.output.strip()] and message in info.output
    assert str(directory) in info.output and SECRET not in info.output
    source = tmp_path / "in.txt"
    source.write_text("Call Ana Lima.\n")
    result = runner.invoke(app, ["anonymize", str(source), "--seed", "1", "--scope", "detected",
                                 "--detector-option", f"model_path={directory}"])
    assert result.exit_code == 2 and message in result.output and SECRET not in result.output


def test_hidden_layer_of_one_bucket_is_refused(tmp_path: Path) -> None:
    """fold_ids takes ids modulo buckets - 1: one bucket was an IndexError at the first text."""
    directory = _saved(tmp_path / "m", hidden=True)
    arrays = _arrays(directory / "weights.npz")
    _npz(directory / "weights.npz", **{**arrays, "hidden_sparse": arrays["hidden_sparse"][:1]})
    with pytest.raises(ConfigError, match="wrong shapes"):
        Weights.load(directory)


@pytest.mark.default_embedding
def test_a_model_for_another_embedding_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """A consistent model whose clusters and dense weights have another dimension than the
    shipped embedding's (384) was a matmul ValueError traceback, exit 1, from model_path= and
    from detector train --base."""
    directory = _saved(tmp_path / "m")  # 2-wide: loads, but cannot run on minilm-words
    source = tmp_path / "in.txt"
    source.write_text("Call Ana Lima.\n")
    data = tmp_path / "spans.jsonl"
    data.write_text(json.dumps({"id": 1, "text": "Call Ana Lima.", "spans": [
        {"start": 5, "end": 13, "label": "NAME"}]}) + "\n")
    for args in (["anonymize", str(source), "--seed", "1", "--scope", "detected",
                  "--detector-option", f"model_path={directory}"],
                 ["detector", "train", "--data", str(data), "-o", str(tmp_path / "out"),
                  "--base", str(directory)]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert "clusters have dimension 2" in result.output and len(result.output.splitlines()) == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.default_embedding
def test_a_model_of_too_few_buckets_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """Right dimension (384) but 8 sparse rows: the featurizer's ValueError was a traceback."""
    rng = np.random.default_rng(1)
    c = len(CLASSES)
    directory = Weights(np.zeros((8, c), np.float32), rng.normal(size=(3 * 384, c)).astype(np.float32),
                        np.zeros(c, np.float32), [rng.normal(size=(3, 384)).astype(np.float32)]).save(tmp_path / "m")
    source = tmp_path / "in.txt"
    source.write_text("Call Ana Lima.\n")
    result = runner.invoke(app, ["anonymize", str(source), "--seed", "1", "--scope", "detected",
                                 "--detector-option", f"model_path={directory}"])
    assert result.exit_code == 2 and "buckets must be a power of two" in result.output
    assert len(result.output.splitlines()) == 1


def test_a_damaged_transformer_manifest_is_one_line_in_detector_info(tmp_path: Path) -> None:
    from embedanon.detectors.transformer import MANIFEST

    (tmp_path / MANIFEST).write_text('{"classes": ["' + SECRET)
    info = runner.invoke(app, ["detector", "info", str(tmp_path)])
    assert info.exit_code == 2 and f"transformer model at {str(tmp_path)!r}: {MANIFEST} is not valid JSON" \
        in info.output and SECRET not in info.output
