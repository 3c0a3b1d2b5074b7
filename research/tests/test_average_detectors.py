"""The lab's weight-averaging script (research/scripts/average_detectors.py) runs and fails in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tests.helpers.detector import name_records

from embedanon.detectors.features import spherical_kmeans
from embedanon.detectors.training import featurize_records, fit
from embedanon.detectors.weights import Weights, make_featurizer

pytestmark = pytest.mark.default_embedding

TEXT = "Thanks, Thembekile! Call Dr. Okafor about the 3 results."
ROOT = Path(__file__).resolve().parents[1]


def _run(seed: int, clusters: list[np.ndarray], *, frequency_bands: bool = False) -> Weights:
    featurizer = make_featurizer(clusters, 2**14, frequency_bands=frequency_bands)
    examples = featurize_records(featurizer, name_records(60, seed=seed), word_dropout=0.3, seed=seed)
    weights = fit(examples, featurizer.dense_table, buckets=2**14, clusters=clusters, epochs=3, seed=seed)
    weights.manifest = {"threshold": 0.5, "frequency_bands": frequency_bands, "train": {"seed": seed}}
    return weights


@pytest.fixture(scope="module")
def clusters() -> list[np.ndarray]:
    from embedanon.vectors.defaults import load_embedding

    vectors = load_embedding("minilm-words").vectors
    return [spherical_kmeans(vectors[:2000], 8, seed=1)]


def test_the_script_averages_and_fails_with_one_line_on_a_mismatch(tmp_path, clusters):
    a, b = _run(1, clusters), _run(2, clusters)
    pa, pb = a.save(tmp_path / "a"), b.save(tmp_path / "b")
    script = str(ROOT / "scripts" / "average_detectors.py")
    done = subprocess.run([sys.executable, script, str(pa), str(pb), "--out", str(tmp_path / "avg")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    avg = Weights.load(tmp_path / "avg")
    assert avg.manifest["averaged"] == 2 and [m["seed"] for m in avg.manifest["members"]] == [1, 2]
    pc = _run(3, clusters, frequency_bands=True).save(tmp_path / "c")
    done = subprocess.run([sys.executable, script, str(pa), str(pc), "--out", str(tmp_path / "bad")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "feature flags" in done.stderr
    assert not (tmp_path / "bad").exists()
