"""The optional hidden layer of the ``model`` detector (``fit(hidden=H)``, ``--hidden``): folded ids,
exact gradients, a conjunction a linear model cannot learn, weights round-trip, the fast detection
path equals the reference, and adaptation keeps the layer."""

from __future__ import annotations

import json

import numpy as np
import pytest

from embedanon.detectors.bio import CLASSES
from embedanon.detectors.features import SLOTS
from embedanon.detectors.model import ModelDetector
from embedanon.detectors.training import Examples, _sparse_grad, fit
from embedanon.detectors.weights import Hidden, Weights, _forward, fold_ids, predict_proba, softmax
from embedanon.errors import ConfigError
from tests.helpers.detector import PII_TEXT, fast_path_probabilities

C = len(CLASSES)


def _random_weights(rng: np.random.Generator, buckets: int = 50, d: int = 4, units: int = 5) -> Weights:
    hidden = Hidden(
        rng.normal(size=(13, units)).astype(np.float32) * 0.3,
        rng.normal(size=(3 * d, units)).astype(np.float32) * 0.3,
        np.full(units, 0.1, np.float32),
        rng.normal(size=(units, C)).astype(np.float32) * 0.3,
    )
    hidden.sparse[0] = 0.0
    return Weights(
        rng.normal(size=(buckets, C)).astype(np.float32) * 0.1,
        rng.normal(size=(3 * d, C)).astype(np.float32) * 0.1,
        np.zeros(C, np.float32),
        [],
        hidden=hidden,
    )


def test_fold_ids_keeps_padding_and_stays_in_range():
    ids = np.array([[0, 1, 2, 14, 15, 262143, 0]])
    folded = fold_ids(ids, 16)
    assert folded[0, 0] == 0 and folded[0, -1] == 0
    assert ((folded[0, 1:-1] >= 1) & (folded[0, 1:-1] < 16)).all()
    assert folded[0, 1] != folded[0, 2]


def test_hidden_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    d, n = 4, 6
    table = rng.normal(size=(7, d)).astype(np.float32)
    table[0] = 0.0
    ids = rng.integers(0, 50, (n, 5))
    rows = rng.integers(0, 7, (n, 3))
    y = rng.integers(0, C, n)
    w = _random_weights(rng)
    assert w.hidden is not None

    def loss() -> float:
        logits = _forward(w, table, ids, rows)[0].astype(np.float64)
        return float(-np.log(softmax(logits)[np.arange(n), y]).mean())

    logits, pre, folded = _forward(w, table, ids, rows)
    assert pre is not None and folded is not None
    delta = (softmax(logits) - np.eye(C, dtype=np.float32)[y]) / n
    da = (delta @ w.hidden.out.T) * (pre > 0)
    uniq, g_sparse = _sparse_grad(folded, da)
    analytic = {
        "out": np.maximum(pre, 0.0).T @ delta,
        "dense": table[rows].reshape(n, -1).T @ da,
    }

    def numeric(arr: np.ndarray, idx: tuple[int, int]) -> float:
        old = arr[idx]
        arr[idx] = old + 1e-3
        up = loss()
        arr[idx] = old - 1e-3
        down = loss()
        arr[idx] = old
        return (up - down) / 2e-3

    for name in ("out", "dense"):
        arr = getattr(w.hidden, name)
        for idx in [(0, 0), (2, 3), (1, 4)]:
            assert analytic[name][idx] == pytest.approx(numeric(arr, idx), abs=2e-4)
    for k in range(len(uniq)):
        assert g_sparse[k, 1] == pytest.approx(numeric(w.hidden.sparse, (int(uniq[k]), 1)), abs=2e-4)


def _xor_examples(n: int = 400) -> tuple[Examples, np.ndarray]:
    # Exactly one of two facts (ids 11, 12; their absence: 21, 22) means B-NAME, both or neither
    # mean O (a XOR b). A linear model scores a token as f(a) + g(b) and cannot separate XOR.
    rng = np.random.default_rng(5)
    a = rng.random(n) < 0.5
    b = rng.random(n) < 0.5
    ids = np.zeros((n, SLOTS), np.int32)
    ids[:, 0] = np.where(a, 11, 21)
    ids[:, 1] = np.where(b, 12, 22)
    y = np.where(a ^ b, CLASSES.index("B-NAME"), 0).astype(np.int64)
    table = np.zeros((1, 2), np.float32)
    return Examples(ids, np.zeros((n, 3), np.int32), y), table


def _accuracy(weights: Weights, examples: Examples, table: np.ndarray) -> float:
    p = predict_proba(weights, table, examples.ids, examples.rows)
    return float((p.argmax(axis=1) == examples.y).mean())


def test_hidden_layer_learns_an_interaction_the_linear_model_cannot():
    examples, table = _xor_examples()
    kw = dict(buckets=64, clusters=[], epochs=60, lr=1.0, batch=64, seed=1)
    linear = fit(examples, table, **kw)
    hidden = fit(examples, table, hidden=8, hidden_buckets=16, **kw)
    assert linear.hidden is None and hidden.hidden is not None and hidden.hidden.units == 8
    assert _accuracy(hidden, examples, table) == 1.0
    assert _accuracy(linear, examples, table) < 0.8  # three of the four cells at best


def test_fit_refuses_bad_hidden_settings():
    examples, table = _xor_examples(20)
    with pytest.raises(ConfigError, match="hidden"):
        fit(examples, table, buckets=64, clusters=[], hidden=-1)
    with pytest.raises(ConfigError, match="hidden"):
        fit(examples, table, buckets=64, clusters=[], hidden=4, hidden_buckets=1)


def test_hidden_weights_round_trip_and_missing_arrays_refused(tmp_path):
    w = _random_weights(np.random.default_rng(2))
    loaded = Weights.load(w.save(tmp_path / "w"))
    assert loaded.hidden is not None and w.hidden is not None
    assert loaded.manifest["hidden"] == {"units": 5, "buckets": 13}
    for name in ("sparse", "dense"):
        np.testing.assert_array_equal(
            getattr(loaded.hidden, name), getattr(w.hidden, name).astype(np.float16).astype(np.float32)
        )
    np.testing.assert_array_equal(loaded.hidden.out, w.hidden.out)
    # a linear model saved into the same directory drops the hidden entry of the manifest
    linear = Weights(w.sparse, w.dense, w.bias, [], dict(loaded.manifest))
    assert "hidden" not in Weights.load(linear.save(tmp_path / "w")).manifest
    # a manifest that names a hidden layer whose arrays are missing is refused
    manifest = json.loads((tmp_path / "w" / "manifest.json").read_text())
    manifest["hidden"] = {"units": 5, "buckets": 13}
    (tmp_path / "w" / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ConfigError, match="hidden"):
        Weights.load(tmp_path / "w")


@pytest.mark.default_embedding
def test_hidden_model_detects_and_fast_path_matches_reference(tmp_path):
    shipped = ModelDetector()
    rng = np.random.default_rng(7)
    units = 6
    d3 = shipped.weights.dense.shape[0]
    hidden = Hidden(
        rng.normal(0, 0.05, (256, units)).astype(np.float32),
        rng.normal(0, 0.05, (d3, units)).astype(np.float32),
        np.full(units, 0.1, np.float32),
        rng.normal(0, 0.5, (units, C)).astype(np.float32),
    )
    hidden.sparse[0] = 0.0
    w = shipped.weights
    Weights(w.sparse, w.dense, w.bias, w.clusters, dict(w.manifest), hidden).save(tmp_path / "h")
    det = ModelDetector(path=tmp_path / "h")
    fast = fast_path_probabilities(det)
    _, _, linear = shipped.probabilities(PII_TEXT)
    assert not np.allclose(fast, linear, atol=1e-3)  # the layer is used
    assert all(0 <= s.start < s.end <= len(PII_TEXT) for s in det.detect(PII_TEXT))


def test_adaptation_from_a_hidden_prior_keeps_and_moves_the_layer():
    examples, table = _xor_examples(200)
    base = fit(examples, table, buckets=64, clusters=[], epochs=5, lr=0.3, batch=64, seed=1, hidden=4,
               hidden_buckets=16)
    adapted = fit(examples, table, buckets=64, clusters=[], epochs=2, lr=0.05, l2=1e-3, batch=32, seed=2,
                  prior=base, hidden=0)
    assert adapted.hidden is not None and base.hidden is not None
    assert adapted.hidden.units == 4
    assert not np.array_equal(adapted.hidden.out, base.hidden.out)
    # the prior itself is not modified in place
    again = fit(examples, table, buckets=64, clusters=[], epochs=2, lr=0.05, l2=1e-3, batch=32, seed=2,
                prior=base)
    assert again.hidden is not None
    np.testing.assert_array_equal(again.hidden.out, adapted.hidden.out)
