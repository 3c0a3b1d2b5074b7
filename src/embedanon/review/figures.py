"""Privacy figures for a review page, behind one small interface.

A :class:`FigureSource` turns the sampled originals and their release into
:class:`~embedanon.review.model.Figure` rates (counts and rates only). Two sources exist:

* :class:`MechanismFigures`: N_w (how often a word is returned unchanged), with S_w (distinct
  outputs per word) in its note, from :func:`embedanon.privacy.metrics.privacy_report`;
* :class:`AttackFigures`: the re-identification attacks of ``run_attacks``
  (:mod:`embedanon.privacy.attacks`), used only when that function exists.

A source that fails or is unavailable gives a one-line note instead of figures, so a page is
always written; the note never quotes text.

Outside plain full scope the page hands the sources the mechanism's view of the release
(:func:`embedanon.privacy.scoped.scoped_release`, as privacy-report does): ``originals`` and
``released`` then hold only the tokens the mechanism released, and a figure over none of them
is n/a rather than missing.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from ..errors import ConfigError, EmbedanonError
from ..pipeline import Anonymizer
from ..privacy.scoped import is_plain
from .model import Figure, Review, VerdictLike


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
        from ..privacy.metrics import privacy_report

        plain = is_plain(anonymizer.config.scope)
        if plain and not any(originals):
            raise FigureUnavailable("no text in the sample")
        # Plain full scope: privacy_report makes the release itself, as it always has. Otherwise
        # ``released`` is the mechanism's view, which the anonymizer's scope would not reproduce.
        report = privacy_report(originals, anonymizer, draws=self.draws, max_words=self.max_words,
                                outputs=None if plain else list(released))
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


def find_run_attacks() -> Callable[..., Any] | None:
    """``run_attacks`` from :mod:`embedanon.privacy` or :mod:`embedanon.privacy.attacks`, if any."""
    for module in ("embedanon.privacy", "embedanon.privacy.attacks"):
        try:
            found = getattr(importlib.import_module(module), "run_attacks", None)
        except ImportError:
            continue
        if callable(found):
            return found  # type: ignore[no-any-return]
    return None


class AttackFigures:
    """Top-1 recovery of the original word by the attacks of ``run_attacks`` on the sample."""

    name = "attacks"

    def __init__(self, *, contextual: bool = True) -> None:
        self.contextual = contextual

    def measure(self, originals: Sequence[str], released: Sequence[str],
                anonymizer: Anonymizer) -> tuple[Figure, ...]:
        run = find_run_attacks()
        if run is None:
            raise FigureUnavailable("this embedanon has no run_attacks")
        if is_plain(anonymizer.config.scope) and not any(originals):
            raise FigureUnavailable("no text in the sample")
        figs = run(list(originals), [list(released)], mechanism=anonymizer.mechanism,
                   index=anonymizer.runtime.index, release_counts=(1,), contextual=self.contextual)
        return attack_figures(figs.as_dict())


#: The attack figures a page shows, from ``PrivacyFigures.as_dict()``: (entry, rate, verdict key,
#: name, how to read it).
ATTACK_ROWS = (
    ("public_prior", "top1", "attack_public_top1", "public-prior attack, top-1",
     "attacker knows public word frequencies"),
    ("public_prior", "top5", "attack_public_top5", "public-prior attack, top-5",
     "the original is among 5 guesses"),
    ("uniform_prior", "top1", "attack_uniform_top1", "uniform-prior attack, top-1",
     "attacker knows only the embedding"),
    ("release_prior", "top1", "attack_release_prior_top1", "release-fitted-prior attack, top-1",
     "attacker learns the word frequencies from the released words (here the sample's only)"),
    ("oracle_prior", "top1", "attack_oracle_top1", "oracle-prior attack, top-1",
     "attacker knows the sample's own word frequencies: the best guess without context"),
    ("oov", "top1", "attack_oov_top1", "out-of-vocabulary attack, top-1",
     "rare words (outside the embedding), through proxies"),
    ("record_pooled", "top1", "attack_record_pooled_top1", "record-pooled attack, top-1",
     "each record's released words read together"),
)


def attack_figures(data: dict[str, Any]) -> tuple[Figure, ...]:
    """Figures from ``PrivacyFigures.as_dict()`` (missing entries are skipped)."""
    lower = "" if data.get("exact", True) else " (lower bound)"
    out = []
    for entry_name, k, key, name, note in ATTACK_ROWS:
        entry = data.get(entry_name)
        if isinstance(entry, dict) and k in entry:
            out.append(Figure("attack", name + lower, _rate(entry[k]), int(entry.get("tokens", 0)), note,
                              key=key))
    ctx = data.get("contextual")
    if isinstance(ctx, dict) and "contextual_top1" in ctx:
        out.append(Figure("attack", "contextual attack (Viterbi), top-1" + lower,
                          _rate(ctx["contextual_top1"]), int(ctx.get("tokens", 0)),
                          "uses public word bigrams around each word", key="attack_contextual_top1"))
    for name in data.get("names", ()) or ():
        if isinstance(name, dict) and name.get("group") == "all" and "top1" in name:
            out.append(Figure("attack", "name-dictionary attack, top-1", _rate(name["top1"]),
                              int(name.get("tokens", 0)), "person names, public name lists", key="names_top1"))
    return tuple(out)


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


def _verdict_module() -> Any:
    try:
        return importlib.import_module("embedanon.privacy.verdict")
    except ImportError:
        return None


def threshold_table(overrides: Mapping[str, float] | None = None) -> Mapping[str, Any] | None:
    """The verdict's thresholds (:mod:`embedanon.privacy.verdict`) with ``overrides`` (figure ->
    limit) applied; None when this embedanon has no verdict module.

    Raises:
        ConfigError: an override names no figure the verdict knows.
    """
    module = _verdict_module()
    if module is None:
        if overrides:
            raise ConfigError("this embedanon has no privacy verdict to take thresholds")
        return None
    return module.with_overrides(dict(overrides or {}))  # type: ignore[no-any-return]


def judge_review(review: Review, thresholds: Mapping[str, Any] | None) -> VerdictLike | None:
    """The privacy verdict of what the page measured: its change rate, the epsilon spent by the
    longest record and every figure with a verdict key, held to ``thresholds``."""
    module = _verdict_module()
    if module is None or thresholds is None:
        return None
    values: dict[str, float | None] = {"change_rate": review.stats.change_rate}
    if review.epsilon_spent is not None:
        values["epsilon_record"] = review.epsilon_spent
    for figure in review.figures:
        if figure.key and figure.key in thresholds:
            values[figure.key] = None if math.isnan(figure.value) else figure.value
    return module.judge(values, thresholds)  # type: ignore[no-any-return]
