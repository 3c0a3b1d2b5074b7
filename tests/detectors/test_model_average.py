"""Weight averaging of ``model`` detector runs (round 29): the mean of the weights scores with the
mean of the logits, and only runs that read the same features can be averaged."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from embedanon.detectors.features import spherical_kmeans
from embedanon.detectors.model import ModelDetector
from embedanon.detectors.training import featurize_records, fit
from embedanon.detectors.weights import Weights, average_weights, make_featurizer
from embedanon.errors import ConfigError
from tests.helpers.detector import name_records

pytestmark = pytest.mark.default_embedding

TEXT = "Thanks, Thembekile! Call Dr. Okafor about the 3 results."
ROOT = Path(__file__).resolve().parents[2]


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


def _logits(weights: Weights, path: Path) -> np.ndarray:
    detector = ModelDetector(path=weights.save(path))
    proba = detector.probabilities(TEXT)[2]
    return np.log(proba)  # softmax logits up to a per-token constant


def test_the_mean_of_the_weights_scores_with_the_mean_of_the_logits(tmp_path, clusters):
    runs = [_run(seed, clusters) for seed in (1, 2, 3)]
    # float16 on disk: compare what the saved members and the saved average actually score
    saved = [Weights.load(r.save(tmp_path / f"m{k}")) for k, r in enumerate(runs)]
    member_logits = [_logits(m, tmp_path / f"s{k}") for k, m in enumerate(saved)]
    averaged = average_weights(saved)
    assert averaged.manifest["averaged"] == 3 and "metrics" not in averaged.manifest
    got = _logits(averaged, tmp_path / "avg")
    want = np.mean(member_logits, axis=0)
    centre = lambda a: a - a.mean(axis=1, keepdims=True)  # noqa: E731 (logits up to a constant)
    np.testing.assert_allclose(centre(got), centre(want), atol=2e-2)
    # negative control: the average is not just one member
    assert not np.allclose(centre(got), centre(member_logits[0]), atol=2e-2)


def test_runs_that_read_other_features_are_refused(clusters):
    a, b = _run(1, clusters), _run(2, clusters)
    with pytest.raises(ConfigError, match="at least two"):
        average_weights([a])
    other_clusters = _run(2, [c[::-1].copy() for c in clusters])
    with pytest.raises(ConfigError, match="clusters"):
        average_weights([a, other_clusters])
    with pytest.raises(ConfigError, match="feature flags"):
        average_weights([a, _run(2, clusters, frequency_bands=True)])
    b.sparse = b.sparse[: 2**13]
    with pytest.raises(ConfigError, match="buckets"):
        average_weights([a, b])
