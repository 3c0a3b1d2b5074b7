"""calibrate --target: the recommender finds the crossing of a law whose N_w is known exactly."""

from __future__ import annotations

import math

import pytest

from embedanon.errors import ConfigError
from embedanon.mechanisms.knn import KnnMechanism
from embedanon.privacy.recommend import figure_of, parse_target, recommend
from embedanon.vectors.index import NeighborIndex
from tests.helpers.mechanisms import KeepWithProbability


@pytest.mark.parametrize(("target", "limit"), [("n_w", 0.5), ("change_rate", 0.5), ("n_w", 0.2)])
def test_the_recommendation_is_the_crossing_of_an_exact_law(tiny_index: NeighborIndex, target: str,
                                                             limit: float) -> None:
    """epsilon* = -ln(1 - N_w*) (ln 2 for 0.5). 8 words x 2,000 draws estimate N_w with a standard
    error <= 0.004; four of them (0.016) move epsilon by at most 0.016 / exp(-epsilon*) <= 0.02, and
    six bisection steps of the bracket leave a ratio of at most 2**(1/64) (< 1.1 %): 0.05 holds."""
    n_w = limit if target == "n_w" else 1 - limit
    advice = recommend(KeepWithProbability, target, limit, values=[0.05, 0.5, 1.0, 2.0], index=tiny_index,
                       draws=2000, seed=3)
    assert advice.value == pytest.approx(-math.log(1 - n_w), abs=0.05)
    by_value = {r.value: r for r in advice.rows}
    at_most = target == "n_w"
    assert (advice.figure <= limit) if at_most else (advice.figure >= limit)
    above = [v for v in by_value if v > advice.value]
    # the next value measured misses the target: the recommendation is the largest that meets it
    figure = figure_of(by_value[min(above)], target)
    assert (figure > limit) if at_most else (figure < limit)
    assert "--epsilon" in advice.lines()[0]


def test_no_value_meets_an_impossible_target(tiny_index: NeighborIndex) -> None:
    advice = recommend(KeepWithProbability, "n_w", 0.0, values=[1.0, 2.0], index=tiny_index, draws=50)
    assert advice.value is None and "no epsilon measured" in advice.lines()[0]


def test_knn_recommends_the_smallest_k_meeting_an_attack_target(tiny_index: NeighborIndex) -> None:
    advice = recommend(KnnMechanism, "attack_top1", 0.4, values=[1, 2, 4, 7], parameter="k", index=tiny_index,
                       draws=200)
    rows = {r.value: r.attack_top1 for r in advice.rows}
    assert all(0 <= v <= 1 for v in rows.values())
    bad = [k for k, v in rows.items() if v > 0.4]
    assert advice.value == min(k for k in rows if k > max(bad, default=0))
    with pytest.raises(ConfigError, match="attack_top1"):
        recommend(KnnMechanism, "n_w", 0.1, values=[1, 2], parameter="k", index=tiny_index)


@pytest.mark.parametrize("text", ["n_w", "n_w=2", "nw=0.1", "attack_top1=x", "=0.3"])
def test_a_bad_target_is_one_line_naming_the_figures(text: str) -> None:
    with pytest.raises(ConfigError, match="n_w, change_rate, attack_top1"):
        parse_target(text)
    assert parse_target("Attack-Top1=0.25") == ("attack_top1", 0.25)
