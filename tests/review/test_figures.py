"""Figure sources: the run_attacks adapter, notes instead of figures, rates validated."""

from __future__ import annotations

import math

import pytest

from embedanon import Anonymizer
from embedanon.errors import InputError
from embedanon.review import (
    AttackFigures,
    Figure,
    FigureUnavailable,
    MechanismFigures,
    attack_figures,
    collect_figures,
    find_run_attacks,
)


def test_attack_figures_from_as_dict() -> None:
    data = {"exact": False, "public_prior": {"tokens": 10, "top1": 0.3, "top5": 0.6},
            "uniform_prior": {"tokens": 10, "top1": 0.1}, "oov": {"tokens": 0, "top1": float("nan")},
            "contextual": {"tokens": 10, "contextual_top1": 0.4},
            "names": [{"group": "x", "tokens": 2, "top1": 1.0}, {"group": "all", "tokens": 4, "top1": 0.25}]}
    figs = {f.name: f for f in attack_figures(data)}
    assert figs["public-prior attack, top-1 (lower bound)"].value == 0.3
    assert figs["public-prior attack, top-5 (lower bound)"].tokens == 10
    assert math.isnan(figs["out-of-vocabulary attack, top-1 (lower bound)"].value)
    assert figs["contextual attack (Viterbi), top-1 (lower bound)"].value == 0.4
    assert figs["name-dictionary attack, top-1"].value == 0.25 and len(figs) == 6  # no oracle entry
    assert attack_figures({}) == ()


def test_rates_are_validated() -> None:
    with pytest.raises(ValueError, match="rate"):
        Figure("attack", "x", 1.5)
    assert math.isnan(Figure("attack", "x", float("nan")).value)


class _Failing:
    name = "broken"

    def measure(self, originals, released, anonymizer):  # type: ignore[no-untyped-def]
        raise InputError("cannot align at token 3")


class _Missing:
    name = "missing"

    def measure(self, originals, released, anonymizer):  # type: ignore[no-untyped-def]
        raise FigureUnavailable("no capability")


def test_sources_that_cannot_measure_give_notes(anonymizer: Anonymizer) -> None:
    figures, notes = collect_figures([_Failing(), _Missing()], ["a"], ["b"], anonymizer)
    assert figures == () and notes == ("broken: not measured (cannot align at token 3)",
                                       "missing: not measured (no capability)")


def test_real_sources_on_the_tiny_embedding(anonymizer: Anonymizer) -> None:
    texts = ["the patient has chest pain", "mother had fever and cough today"]
    released = [anonymizer.anonymize(t) for t in texts]
    (n_w,) = MechanismFigures(draws=20).measure(texts, released, anonymizer)
    assert n_w.value == 0.0 and n_w.tokens == 11  # knn never returns its input; 11 word types
    assert "S_w = 3.0" in n_w.note  # k = 3: every neighbor shows up in 20 draws
    assert find_run_attacks() is not None
    attacks = {f.name: f for f in AttackFigures(contextual=False).measure(texts, released, anonymizer)}
    assert 0.0 <= attacks["public-prior attack, top-1"].value <= 1.0
    assert attacks["public-prior attack, top-1"].tokens == 11  # in-embedding word tokens


def test_the_page_says_its_release_fitted_figure_is_fitted_on_the_sample_only() -> None:
    """QA pass 6: fitted on the 5 records shown it read 42.9 % where an attacker holding the whole
    release of 40 notes recovered 47.5 % of the same tokens; and the oracle is no ceiling once the
    attacker has context."""
    from embedanon.review.figures import attack_figures

    top = {"top1": 0.4, "top5": 0.8, "tokens": 10}
    figures = {f.name: f.note for f in attack_figures({"release_prior": top, "oracle_prior": top})}
    assert "lower bound" in figures["release-fitted-prior attack, top-1"]
    assert "goes further" in figures["oracle-prior attack, top-1"]
