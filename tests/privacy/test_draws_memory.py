"""N_w draws are sampled in bounded chunks and capped (found by the experiment audit:
`embedanon calibrate -m laplace --words 10 --draws 100000000` grew to 15 GB of memory in ten
minutes on the shared 2-core machine before it was killed: all draws of a chunk of 64 words were
sampled in one call)."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from embedanon.cli import app
from embedanon.errors import ConfigError
from embedanon.experiments.config import parse_config
from embedanon.privacy.metrics import CHUNK_DRAWS, MAX_DRAWS, word_statistics


class Recording:
    """A mechanism that returns each word's own id and records how many rows each call samples."""

    name = "recording"
    may_return_input = True

    def __init__(self) -> None:
        self.calls: list[int] = []

    def sample(self, ids: np.ndarray, noise: object) -> np.ndarray:
        self.calls.append(len(ids))
        return np.asarray(ids)


def test_the_default_chunks_are_unchanged() -> None:
    mech = Recording()
    stats = word_statistics(mech, np.arange(200), 100, np.random.default_rng(0))  # type: ignore[arg-type]
    assert mech.calls == [6400, 6400, 6400, 800]  # 64 words a call, as before
    assert np.all(stats.n_w == 1.0) and np.all(stats.s_w == 1)


@pytest.mark.parametrize("draws", [1025, 5000, MAX_DRAWS])
def test_many_draws_are_sampled_a_bounded_number_of_rows_at_a_time(draws: int) -> None:
    mech = Recording()
    word_statistics(mech, np.arange(7), draws, np.random.default_rng(0))  # type: ignore[arg-type]
    assert sum(mech.calls) == 7 * draws
    assert max(mech.calls) <= max(CHUNK_DRAWS, draws)  # one word's draws at most


def test_draws_past_the_cap_are_refused_before_sampling() -> None:
    mech = Recording()
    with pytest.raises(ConfigError, match=r"draws must be at most 100,000, got 100,000,000"):
        word_statistics(mech, np.arange(10), 100_000_000, np.random.default_rng(0))  # type: ignore[arg-type]
    assert mech.calls == []


def test_the_cli_and_the_experiment_config_refuse_them_in_one_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    result = CliRunner().invoke(app, ["calibrate", "-m", "laplace", "--epsilon", "50", "--words", "10",
                                      "--draws", "100000000", "--no-plot", "-o", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output.startswith("error: draws must be at most 100,000") and result.output.count("\n") == 1
    assert list(tmp_path.iterdir()) == []
    config = {"name": "x", "output": "o", "datasets": [{"name": "d", "loader": "csv", "path": "d.csv"}],
              "mechanisms": [{"name": "knn", "k": [5]}], "privacy": {"draws": 1_000_000}}
    with pytest.raises(ConfigError, match=r"^privacy\.draws must be at most 100,000"):
        parse_config(config)
