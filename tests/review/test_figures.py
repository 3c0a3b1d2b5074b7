"""Figure sources: the run_attacks adapter (the verdict's figure names), notes instead of figures,
rates validated, and the page's verdict against privacy-report's."""

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
    judge_review,
    threshold_table,
)


def test_attack_figures_from_as_dict() -> None:
    data = {"exact": False, "public_prior": {"tokens": 10, "top1": 0.3, "top5": 0.6},
            "uniform_prior": {"tokens": 10, "top1": 0.1}, "oov": {"tokens": 0, "top1": float("nan")},
            "contextual": {"tokens": 10, "contextual_top1": 0.4},
            "names": [{"group": "x", "tokens": 2, "top1": 1.0}, {"group": "all", "tokens": 4, "top1": 0.25,
                                                               "top10": 0.5}]}
    figs = {f.key: f for f in attack_figures(data)}
    assert figs["attack_public_top1"].value == 0.3 and figs["attack_public_top1"].name.endswith("(lower bound)")
    assert figs["attack_public_top5"].tokens == 10
    assert math.isnan(figs["attack_oov_top1"].value)
    assert figs["attack_contextual_top1"].value == 0.4
    assert figs["names_top1"].value == 0.25 and figs["names_top1:x"].value == 1.0
    assert figs["names_top10"].value == 0.5
    # the same set privacy-report judges (figure_values), less what other sources measure
    from embedanon.privacy.verdict import figure_values

    assert set(figs) == set(figure_values(attacks=data)) - {"change_rate", "n_w", "s_w"}
    assert attack_figures({}) == ()


def test_the_verdict_holds_what_the_page_measured(anonymizer: Anonymizer, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from embedanon.review import build_review

    src = tmp_path / "notes.txt"
    src.write_text("the patient has chest pain\nmother had fever and cough today\n", encoding="utf-8")
    review = build_review(str(src), anonymizer, sources=(MechanismFigures(draws=20), AttackFigures()))
    verdict = review.verdict
    assert verdict is not None
    assert verdict.check("change_rate").value == review.stats.change_rate == 1.0
    assert verdict.check("n_w").value == 0.0 and verdict.check("s_w").value == 3.0
    keys = {f.key for f in review.figures}
    assert {c.figure for c in verdict.checks} == {"change_rate"} | keys
    attack = verdict.check("attack_public_top1")
    assert attack.value == next(f.value for f in review.figures if f.key == "attack_public_top1")
    # an override moves one threshold, as privacy-report --threshold does
    strict = judge_review(review, threshold_table({"attack_public_top1": -1.0}))
    assert strict.check("attack_public_top1").status == "fail"
    assert strict.check("attack_public_top1").value == attack.value


def test_an_unknown_threshold_is_refused_before_any_work(anonymizer: Anonymizer) -> None:
    from embedanon.errors import ConfigError
    from embedanon.review import build_review

    with pytest.raises(ConfigError, match="unknown figure 'nothing'"):
        build_review("/nonexistent/input.txt", anonymizer, thresholds={"nothing": 0.5})


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
    n_w, s_w = MechanismFigures(draws=20).measure(texts, released, anonymizer)
    assert n_w.value == 0.0 and n_w.tokens == 11 and n_w.key == "n_w"  # knn never returns its input
    assert s_w.value == 3.0 and not s_w.rate  # k = 3: every neighbor shows up in 20 draws
    attacks = {f.key: f for f in AttackFigures(contextual=False).measure(texts, released, anonymizer)}
    assert 0.0 <= attacks["attack_public_top1"].value <= 1.0
    assert attacks["attack_public_top1"].tokens == 11  # in-embedding word tokens
    assert "attack_contextual_top1" not in attacks


def test_the_page_draws_the_attacks_and_games_with_privacy_reports_seeds(
        anonymizer: Anonymizer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Verdict audit (stop 58): the page played the attacks and membership games with seed 0 and
    privacy-report with seeds from the key, so one figure had two values (0.788 and 0.803)."""
    from embedanon.privacy.report import report_seed
    from embedanon.review import figures

    seeds: dict[str, int] = {}
    real_attacks, real_games = figures.run_attacks, figures.membership_games

    def attacks(*args, **kwargs):  # type: ignore[no-untyped-def]
        seeds["attacks"] = kwargs["seed"]
        return real_attacks(*args, **kwargs)

    def games(*args, **kwargs):  # type: ignore[no-untyped-def]
        seeds["membership"] = kwargs["seed"]
        return real_games(*args, **kwargs)

    monkeypatch.setattr(figures, "run_attacks", attacks)
    monkeypatch.setattr(figures, "membership_games", games)
    notes = ["the patient has a fever today", "the nurse saw a cough at night"]
    released = [anonymizer.anonymize(t) for t in notes]
    figures.AttackFigures().measure(notes, released, anonymizer)
    figures.membership_figure(notes, released, anonymizer)
    assert seeds == {"attacks": report_seed(anonymizer.key, 3), "membership": report_seed(anonymizer.key, 5)}
