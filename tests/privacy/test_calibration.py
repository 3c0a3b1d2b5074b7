"""Calibration: grid parsing, exact statistics of hand-made mechanisms, outputs."""

from __future__ import annotations

import csv
import sys

import numpy as np
import pytest

from embedanon.errors import ConfigError
from embedanon.mechanisms import available
from embedanon.mechanisms.knn import KnnMechanism
from embedanon.privacy import calibration
from embedanon.privacy.calibration import calibrate, parse_grid, sweep_for
from embedanon.vectors.index import NeighborIndex
from tests.helpers.mechanisms import KeepWithProbability


class Identity:
    name = "identity"
    may_return_input = True

    def __init__(self, *, index: NeighborIndex, epsilon: float) -> None:
        self.epsilon = epsilon

    def sample(self, ids: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return np.asarray(ids, dtype=np.int64).copy()


# ------------------------------------------------------------------------------------------------
# parsing
# ------------------------------------------------------------------------------------------------
def test_parse_grid_of_epsilons() -> None:
    assert parse_grid("10, 1,5,1e2,5", float, name="epsilon") == (1.0, 5.0, 10.0, 100.0)


@pytest.mark.parametrize("text", ["0", "1,-5", "nan", "1,inf", "1e400", "abc", "", "1,,2", " , ", "true"])
def test_parse_grid_rejects_epsilons(text: str) -> None:
    with pytest.raises(ConfigError, match="epsilon") as err:
        parse_grid(text, float, name="epsilon")
    assert "\n" not in str(err.value)


def test_parse_grid_of_integers() -> None:
    assert parse_grid("20,5,10", int, name="k") == (5, 10, 20)
    for bad in ("0", "2.5", "x", "-1"):
        with pytest.raises(ConfigError, match="k must"):
            parse_grid(bad, int, name="k")


def test_sweep_for_knn_and_epsilon_mechanisms() -> None:
    assert sweep_for("knn", None, "10,5") == ("k", (5.0, 10.0), {})
    with pytest.raises(ConfigError, match="takes no epsilon"):
        sweep_for("knn", "1,2", None)
    with pytest.raises(ConfigError, match="needs --k"):
        sweep_for("KNN", None, None)
    with pytest.raises(ConfigError, match="unknown mechanism"):
        sweep_for("nope", "1", None)
    takers = sorted(n for n, s in available().items() if "epsilon" in s.params)
    assert takers == ["exponential", "laplace", "mahalanobis", "tem"]
    assert sweep_for(takers[0], "5,1", None) == ("epsilon", (1.0, 5.0), {})
    with pytest.raises(ConfigError, match="needs --epsilon"):
        sweep_for(takers[0], None, None)


# ------------------------------------------------------------------------------------------------
# statistics
# ------------------------------------------------------------------------------------------------
def test_identity_calibrates_to_no_privacy(tiny_index: NeighborIndex) -> None:
    rows = calibrate(Identity, [1.0, 10.0], index=tiny_index, words=8, draws=5)
    for row in rows:
        assert (row.n_w_mean, row.n_w_p10, row.n_w_p90) == (1.0, 1.0, 1.0)
        assert (row.s_w_mean, row.s_w_p50) == (1.0, 1.0)
        assert row.cosine_mean == pytest.approx(1.0, abs=1e-6)
        assert row.words == 8 and row.draws == 5 and row.mechanism == "identity"


def test_knn_sweep_over_k(tiny_index: NeighborIndex) -> None:
    # P(any of 8 words shows fewer than k <= 4 outputs in 300 draws) <= 8 * 4 * (3/4)**300 < 1e-35.
    rows = calibrate(KnnMechanism, [2, 4], parameter="k", index=tiny_index, words=8, draws=300)
    assert [(r.value, r.n_w_mean, r.s_w_mean, r.s_w_p10) for r in rows] == [(2, 0, 2, 2), (4, 0, 4, 4)]


def test_n_w_follows_the_keep_probability(tiny_index: NeighborIndex) -> None:
    # 8 words x 500 draws = 4000 Bernoulli(p) draws; Hoeffding: P(|mean - p| >= 0.043)
    # <= 2 exp(-2 * 4000 * 0.043**2) < 1e-6.  S_w is exactly 2 (both outputs appear w.p. ~1).
    epsilons = [0.1, 0.7, 3.0]
    rows = calibrate(KeepWithProbability, epsilons, index=tiny_index, words=8, draws=500, seed=3)
    for eps, row in zip(epsilons, rows, strict=True):
        assert row.n_w_mean == pytest.approx(1 - np.exp(-eps), abs=0.043)
        assert row.s_w_mean == 2.0


def test_rows_depend_on_seed_and_value_not_on_the_grid(tiny_index: NeighborIndex) -> None:
    a = calibrate(KeepWithProbability, [0.5, 1.0], index=tiny_index, words=8, draws=50, seed=1)
    b = calibrate(KeepWithProbability, [1.0, 2.0], index=tiny_index, words=8, draws=50, seed=1)
    c = calibrate(KeepWithProbability, [1.0], index=tiny_index, words=8, draws=50, seed=2)
    assert a[1].n_w_mean == b[0].n_w_mean
    assert c[0].n_w_mean != a[1].n_w_mean  # the seed matters (p = 0.63, 400 draws)


def test_word_sample_is_seeded_and_from_the_pool(tiny_index: NeighborIndex) -> None:
    rng = lambda: np.random.default_rng(7)  # noqa: E731
    a = calibration.sample_words(tiny_index, 3, rng(), pool=5)
    assert a.tolist() == calibration.sample_words(tiny_index, 3, rng(), pool=5).tolist()
    assert len(set(a.tolist())) == 3 and set(a.tolist()) <= set(tiny_index.candidates[:5].tolist())
    assert calibration.sample_words(tiny_index, 50, rng()).tolist() == list(range(8))


def test_bad_parameters(tiny_index: NeighborIndex) -> None:
    with pytest.raises(ConfigError, match="seed"):
        calibrate(Identity, [1.0], index=tiny_index, seed=-1)
    with pytest.raises(ConfigError, match="draws"):
        calibrate(Identity, [1.0], index=tiny_index, draws=0)
    with pytest.raises(ConfigError, match="grid is empty"):
        calibrate(Identity, [], index=tiny_index)


# ------------------------------------------------------------------------------------------------
# outputs
# ------------------------------------------------------------------------------------------------
def test_write_outputs_csv_and_png(tiny_index: NeighborIndex, tmp_path) -> None:  # type: ignore[no-untyped-def]
    rows = calibrate(KeepWithProbability, [0.5, 2.0], index=tiny_index, words=8, draws=20)
    paths = calibration.write_outputs(rows, tmp_path / "out")
    assert [p.name for p in paths] == ["calibration-keep.csv", "calibration-keep.png"]
    with open(paths[0], encoding="utf-8") as fh:
        table = list(csv.DictReader(fh))
    assert [float(r["value"]) for r in table] == [0.5, 2.0]
    assert [float(r["n_w_mean"]) for r in table] == pytest.approx([r.n_w_mean for r in rows], rel=1e-5)
    assert paths[1].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(p.name for p in paths)


def test_missing_matplotlib_is_one_line_and_writes_nothing(tiny_index: NeighborIndex, tmp_path,  # type: ignore[no-untyped-def]
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    rows = calibrate(Identity, [1.0], index=tiny_index, words=8, draws=2)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` fail
    with pytest.raises(ConfigError, match=r"pip install embedanon\[plot\]"):
        calibration.write_outputs(rows, tmp_path)
    assert list(tmp_path.iterdir()) == []
    paths = calibration.write_outputs(rows, tmp_path, plot=False)
    assert [p.name for p in paths] == ["calibration-identity.csv"]


@pytest.mark.default_embedding
def test_laplace_on_the_default_embedding_goes_from_noise_to_identity(default_index: NeighborIndex) -> None:
    rows = calibrate("laplace", [10.0, 1000.0], index=default_index, words=20, draws=10, seed=0)
    assert rows[0].n_w_mean < 0.05 and rows[0].s_w_mean > 8 and rows[0].cosine_mean < 0.3
    assert rows[1].n_w_mean > 0.95 and rows[1].cosine_mean > 0.95
