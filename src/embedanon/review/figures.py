"""Privacy figures for a review page, behind one small interface.

A :class:`FigureSource` turns the sampled originals and their release into
:class:`~embedanon.review.model.Figure` rates (counts and rates only). Two sources exist:

* :class:`MechanismFigures`: N_w (how often a word is returned unchanged), with S_w (distinct
  outputs per word) in its note, from :func:`embedanon.privacy.report.privacy_report`;
* :class:`AttackFigures`: the re-identification attacks of
  :func:`~embedanon.privacy.attacks.run_attacks`, as the verdict names them.

A source that fails or is unavailable gives a one-line note instead of figures, so a page is
always written; the note never quotes text.

Outside plain full scope the page hands the sources the mechanism's view of the release
(:func:`embedanon.privacy.scoped.scoped_release`, as privacy-report does): ``originals`` and
``released`` then hold only the tokens the mechanism released, and a figure over none of them
is n/a rather than missing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from ..errors import EmbedanonError
from ..pipeline import Anonymizer
from ..privacy.attacks import run_attacks
from ..privacy.attacks.likelihood import likelihood_for
from ..privacy.attacks.membership import layout_membership, membership_games
from ..privacy.report import privacy_report, report_seed
from ..privacy.scoped import is_plain
from ..privacy.verdict import (
    DEFAULT_THRESHOLDS,
    RELEASE_FIGURES,
    Threshold,
    Verdict,
    figure_samples,
    figure_values,
    for_scope,
    judge,
    with_overrides,
)
from .model import Figure, Review


class FigureSource(Protocol):
    """Measures privacy figures of a release of ``originals``."""

    name: str

    def measure(self, originals: Sequence[str], released: Sequence[str],
                anonymizer: Anonymizer) -> tuple[Figure, ...]:
        """Figures of ``released[i]``, the release of ``originals[i]`` under ``anonymizer``.

        Raises:
            FigureUnavailable: the figures cannot be measured here (the reason is the message).
        """
        ...


class FigureUnavailable(EmbedanonError):
    """A source cannot measure its figures (missing capability, nothing to measure)."""


def _rate(value: Any) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return float("nan")
    return x if math.isnan(x) or 0.0 <= x <= 1.0 else min(max(x, 0.0), 1.0)


class MechanismFigures:
    """N_w and S_w of the mechanism over the sample's in-embedding word types (Feyisetan et al.)."""

    name = "mechanism"

    def __init__(self, *, draws: int = 100, max_words: int = 200) -> None:
        self.draws = draws
        self.max_words = max_words

    def measure(self, originals: Sequence[str], released: Sequence[str],
                anonymizer: Anonymizer) -> tuple[Figure, ...]:
        plain = is_plain(anonymizer.config.scope)
        if plain and not any(originals):
            raise FigureUnavailable("no text in the sample")
        # ``released`` is the release (plain full scope) or the mechanism's view of it
        epsilon = dict(anonymizer.config.params).get("epsilon")
        report = privacy_report(list(originals), list(released), mechanism=anonymizer.mechanism,
                                index=anonymizer.runtime.index, key=anonymizer.key,
                                epsilon=None if epsilon is None else float(epsilon), draws=self.draws,
                                max_words=self.max_words, attack=False)
        if report.stats_words == 0:
            if plain:
                raise FigureUnavailable("no sampled word is in the embedding")
            return (Figure("mechanism", "N_w: draws returning the word itself", float("nan"), 0,
                           "no word the mechanism released in the sample is in the embedding", key="n_w"),)
        return (
            Figure("mechanism", "N_w: draws returning the word itself", _rate(report.n_w_mean),
                   report.stats_words, f"mean over {report.stats_words} word types, {report.draws} draws "
                   "each (1: no privacy)", key="n_w"),
            Figure("mechanism", "S_w: distinct outputs per word", float(report.s_w_mean), report.stats_words,
                   f"distinct outputs in {report.draws} draws, mean over the word types", key="s_w",
                   rate=False),
        )


class AttackFigures:
    """Top-1 recovery of the original word by the attacks of ``run_attacks`` on the sample."""

    name = "attacks"

    def __init__(self, *, contextual: bool = True) -> None:
        self.contextual = contextual

    def measure(self, originals: Sequence[str], released: Sequence[str],
                anonymizer: Anonymizer) -> tuple[Figure, ...]:
        if is_plain(anonymizer.config.scope) and not any(originals):
            raise FigureUnavailable("no text in the sample")
        figs = run_attacks(list(originals), [list(released)], mechanism=anonymizer.mechanism,
                           index=anonymizer.runtime.index, release_counts=(), contextual=self.contextual,
                           seed=report_seed(anonymizer.key, 3))  # privacy-report's draws
        return attack_figures(figs.as_dict())




def attack_figures(data: dict[str, Any]) -> tuple[Figure, ...]:
    """The verdict's attack figures (:func:`~embedanon.privacy.verdict.figure_values`) of
    ``PrivacyFigures.as_dict()``, named by their thresholds' labels, with their token counts."""
    lower = "" if data.get("exact", True) else " (lower bound)"
    out = []
    samples = figure_samples(attacks=data)  # the count each figure was measured on, as the verdict reads it
    for key, value in figure_values(attacks=data).items():
        if key in RELEASE_FIGURES:  # measured here by other sources (or by the page itself)
            continue
        base, _, group = key.partition(":")
        threshold = DEFAULT_THRESHOLDS[base]
        tokens = samples.get(key, 0)
        name = threshold.label + (f" ({group})" if group else "") + lower
        out.append(Figure("attack", name, _rate(value), tokens, key=key))
    return tuple(out)


def membership_figure(originals: Sequence[str], published: Sequence[str],
                      anonymizer: Anonymizer | None = None) -> Figure:
    """Whether a held note is in the release, from its layout or its words: the stronger of
    :func:`~embedanon.privacy.attacks.membership.layout_membership` and (``anonymizer`` given)
    :func:`~embedanon.privacy.attacks.membership.word_membership` by the mechanism's law, or
    without one by the words returned as themselves (n/a below two records)."""
    words = "not played"
    if anonymizer is None:
        figure = layout_membership(list(originals), list(published))
    else:
        store = anonymizer.runtime.index.store
        law = (likelihood_for(anonymizer.mechanism, anonymizer.runtime.index).pairs
               if hasattr(anonymizer.mechanism, "distribution") else None)
        figure = membership_games(list(originals), [list(published)], law=law, words=store.words,
                                  id_of=store.id_of, kept=not is_plain(anonymizer.config.scope),
                                  seed=report_seed(anonymizer.key, 5))
        words = _auc_text(figure.word_auc)
    threshold = DEFAULT_THRESHOLDS["membership_auc"]
    return Figure("attack", threshold.label, _rate(figure.strongest_auc), figure.records,
                  f"AUC over {figure.records} records (0.5: chance): layout {_auc_text(figure.auc)}, words "
                  f"{words}; the word count and sentence structure stay in every mode", key="membership_auc")


def _auc_text(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.3f}"


def default_sources(*, attacks: bool = True) -> tuple[FigureSource, ...]:
    """The sources a page uses: mechanism statistics, and the attacks unless ``attacks=False``."""
    sources: list[FigureSource] = [MechanismFigures()]
    if attacks:
        sources.append(AttackFigures())
    return tuple(sources)


def collect_figures(sources: Sequence[FigureSource], originals: Sequence[str], released: Sequence[str],
                    anonymizer: Anonymizer, *, progress: Callable[[int, int], None] | None = None
                    ) -> tuple[tuple[Figure, ...], tuple[str, ...]]:
    """Every source's figures, and a note for each source that could not measure.

    ``progress(done, total)`` is called before the first source and after each one.
    """
    figures: list[Figure] = []
    notes: list[str] = []
    if progress is not None:
        progress(0, len(sources))
    for done, source in enumerate(sources, 1):
        try:
            figures.extend(source.measure(originals, released, anonymizer))
        except (FigureUnavailable, EmbedanonError) as exc:
            why = str(exc).splitlines()[0] if str(exc) else "unavailable"
            notes.append(f"{source.name}: not measured ({why})")
        if progress is not None:
            progress(done, len(sources))
    return tuple(figures), tuple(notes)


def threshold_table(overrides: Mapping[str, float] | None = None) -> Mapping[str, Threshold]:
    """The verdict's default thresholds (:data:`~embedanon.privacy.verdict.DEFAULT_THRESHOLDS`)
    with ``overrides`` (figure -> limit) applied, as ``privacy-report --threshold`` does.

    Raises:
        ConfigError: an override names no figure of the verdict.
    """
    return with_overrides(dict(overrides or {}))


def judge_review(review: Review, thresholds: Mapping[str, Threshold] = DEFAULT_THRESHOLDS) -> Verdict:
    """The privacy verdict of what the page measured, as ``privacy-report`` gives it: the change
    rate, N_w and S_w, the epsilon spent by the longest record and the attack figures."""
    by_key = {f.key: f.value for f in review.figures if f.key}
    values = figure_values(change_rate=review.stats.change_rate, n_w=by_key.pop("n_w", None),
                           s_w=by_key.pop("s_w", None), epsilon_record=review.epsilon_spent)
    values.update(by_key)
    # a figure over sampled outcomes (word or name tokens, records) carries their count: a pass
    # whose 95 % interval reaches past the limit is unsure (decision 0372)
    samples = {f.key: f.tokens for f in review.figures if f.key and f.tokens > 0}
    return judge(values, for_scope(thresholds, review.scope or "all"), samples)
