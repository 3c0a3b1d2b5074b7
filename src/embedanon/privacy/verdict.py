"""The privacy verdict: every figure of a release held to a threshold, with what moves it.

``privacy-report`` and the review page measure a release (change rate, N_w, the attacks) and
show the same verdict from this module: :func:`figure_values` turns what they measured into one
flat mapping ``figure -> rate``, and :func:`judge` holds each figure to its
:class:`Threshold` (the documented defaults are :data:`DEFAULT_THRESHOLDS`; a caller overrides
any of them with :func:`with_overrides`), giving a :class:`Verdict` of :class:`Check` rows:
pass, fail, n/a (nothing to measure) or unsure, and the option that moves the figure.

A figure measured on a sample (an attack's word tokens, the membership game's records) carries
its sample size, and with it a 95 % Wilson interval: a value that meets its limit while the
interval reaches past it is **unsure**, not a pass (decision 0372): 0 of 3 name parts recovered
says little about a limit of 5 %. For an AUC over n records (each played once in and once out)
the interval treats n as the sample size, as the Birnbaum–Klose bound on the variance of the
Mann–Whitney statistic, A (1 - A) / min(m, n), allows.

A figure may be qualified by a group after a colon (``names_top1:american``,
``releases_top1:5``): it is held to the threshold of its base name. A figure without a threshold
is refused (:func:`judge` raises), so nothing the report prints goes unjudged.

The defaults are a policy, not a law of nature; ``docs/privacy/report.md`` gives the reason for
each. Word recovery is held loosely (an attacker reading back most words of a text is the
line between "text with noise" and "pseudonymised text"), what links a person more strictly:
names, rare words, membership and the re-use of a release.

Only figures (rates, AUCs, counts) pass through here, never text.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Literal

from ..errors import ConfigError

Status = Literal["pass", "fail", "n/a", "unsure"]

#: z of a two-sided 95 % interval.
_Z = 1.959963984540054
#: The figures that describe the release or the mechanism's draws in full, not a sample of attack
#: outcomes (never unsure): :func:`figure_values` always returns them, the rest are attacks'.
RELEASE_FIGURES = ("change_rate", "n_w", "s_w", "epsilon_record")


def wilson_interval(rate: float, samples: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of a share ``rate`` measured on ``samples`` outcomes."""
    if samples <= 0:
        return (0.0, 1.0)
    z2 = _Z * _Z
    center = (rate + z2 / (2 * samples)) / (1 + z2 / samples)
    spread = max(rate * (1 - rate), 0.0) / samples + z2 / (4 * samples * samples)
    half = _Z * math.sqrt(spread) / (1 + z2 / samples)
    return (max(0.0, center - half), min(1.0, center + half))


@dataclass(frozen=True, slots=True)
class Threshold:
    """The limit one figure is held to.

    Attributes:
        figure: the figure's name (``membership_auc``); qualified figures use the base name.
        label: what the figure measures, in a few words.
        limit: the limit.
        at_most: True when the figure must be <= limit (an attack's success), False when it must
            be >= limit (the change rate).
        remedy: the option (or action) that moves the figure toward the limit.
    """

    figure: str
    label: str
    limit: float
    at_most: bool
    remedy: str

    def __post_init__(self) -> None:
        if not self.figure or ":" in self.figure:
            raise ValueError(f"a threshold's figure is a plain name, got {self.figure!r}")
        if isinstance(self.limit, bool) or not math.isfinite(self.limit):
            raise ValueError(f"the limit of {self.figure} must be a finite number, got {self.limit!r}")

    def holds(self, value: float) -> bool:
        """Whether ``value`` (a finite number) meets the limit."""
        return value <= self.limit if self.at_most else value >= self.limit

    def describe(self) -> str:
        """``<= 0.5`` or ``>= 0.9``."""
        return f"{'<=' if self.at_most else '>='} {self.limit:g}"

    def as_dict(self) -> dict[str, Any]:
        return {"figure": self.figure, "label": self.label, "limit": self.limit,
                "at_most": self.at_most, "remedy": self.remedy}


def shown(value: float, threshold: Threshold, *, scale: float = 1.0, digits: int = 3, unit: str = "") -> str:
    """``value`` (times ``scale``) with ``digits`` decimals, or more where rounding would hide the
    verdict ('0.800 <= 0.8' for a failing 0.8004 reads as a pass): the shown number always
    passes or fails as the value does. A value past the largest float (an epsilon total at a
    huge epsilon) is ``> 1.8e+308``, as the report's sentences say it, never ``inf``."""
    if math.isinf(value) and value > 0:
        return f"> {sys.float_info.max:.2g}{unit}"
    text = f"{scale * value:.{digits}f}"
    for more in range(digits, digits + 6):
        text = f"{scale * value:.{more}f}"
        if threshold.holds(float(text) / scale) == threshold.holds(value):
            break
    return text + unit


@dataclass(frozen=True, slots=True)
class Check:
    """One figure against its threshold.

    Attributes:
        figure: the figure's name, possibly qualified (``names_top1:american``).
        value: its value, or None when there was nothing to measure.
        threshold: the threshold it is held to.
        samples: the outcomes a sampled share was measured on (word or name tokens, records,
            names); None for a figure that is not a sample (the change rate, N_w, S_w, epsilon).
    """

    figure: str
    value: float | None
    threshold: Threshold
    samples: int | None = None

    def __post_init__(self) -> None:
        if self.figure.split(":", 1)[0] != self.threshold.figure:
            raise ValueError(f"figure {self.figure!r} is held to the threshold of {self.threshold.figure!r}")
        if self.value is not None and (isinstance(self.value, bool) or math.isnan(self.value)):
            raise ValueError("a check's value is a number or None, never nan or a bool")

    @property
    def interval(self) -> tuple[float, float] | None:
        """The 95 % Wilson interval of the value (None: not a sampled share, or not measured)."""
        if self.value is None or self.samples is None or not 0.0 <= self.value <= 1.0:
            return None
        return wilson_interval(self.value, self.samples)

    @property
    def status(self) -> Status:
        if self.value is None:
            return "n/a"
        if not self.threshold.holds(self.value):
            return "fail"
        interval = self.interval
        if interval is not None:
            far = interval[1] if self.threshold.at_most else interval[0]
            if not self.threshold.holds(far):
                return "unsure"
        return "pass"

    @property
    def label(self) -> str:
        """The threshold's label, with the qualifier (``name parts recovered, top-1 (american)``)."""
        _, _, group = self.figure.partition(":")
        return f"{self.threshold.label} ({group})" if group else self.threshold.label

    def as_dict(self) -> dict[str, Any]:
        interval = self.interval
        return {"figure": self.figure, "label": self.label, "value": self.value,
                "threshold": self.threshold.describe(), "limit": self.threshold.limit,
                "at_most": self.threshold.at_most, "status": self.status, "remedy": self.threshold.remedy,
                "samples": self.samples, "interval": None if interval is None else list(interval)}


@dataclass(frozen=True, slots=True)
class Verdict:
    """Every check of a release, in the order of the threshold table.

    Attributes:
        checks: one per figure measured.
    """

    checks: tuple[Check, ...]

    @property
    def failed(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if c.status == "fail")

    @property
    def unsure(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if c.status == "unsure")

    @property
    def status(self) -> Status:
        """``fail`` if any check fails; else ``unsure`` if any meets its limit on too few samples
        to be sure; ``pass`` if at least one passes; else n/a."""
        if self.failed:
            return "fail"
        if self.unsure:
            return "unsure"
        return "pass" if any(c.status == "pass" for c in self.checks) else "n/a"

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def check(self, figure: str) -> Check:
        """The check of ``figure``.

        Raises:
            KeyError: no such figure was judged.
        """
        for c in self.checks:
            if c.figure == figure:
                return c
        raise KeyError(figure)

    def summary(self) -> str:
        """One line: ``FAIL: 3 of 14 figures miss their thresholds (names, ...)``."""
        judged = [c for c in self.checks if c.status != "n/a"]
        if self.status == "n/a":
            return "n/a: nothing measured"
        unsure = (f"{len(self.unsure)} of {len(judged)} figures meet their thresholds on too few samples "
                  "to be sure (95 % interval past the limit)")
        if self.failed:
            return (f"FAIL: {len(self.failed)} of {len(judged)} figures miss their thresholds"
                    + (f"; {unsure}" if self.unsure else ""))
        if self.unsure:
            return f"UNSURE: {unsure}; none misses its threshold; measure more text"
        return f"PASS: all {len(judged)} figures meet their thresholds"

    def as_dict(self) -> dict[str, Any]:
        return {"status": self.status, "summary": self.summary(),
                "checks": [c.as_dict() for c in self.checks]}

    def lines(self) -> list[str]:
        """The verdict block as text lines (figures only)."""
        out = [f"verdict:              {self.summary()}"]
        width = max((len(c.label) for c in self.checks), default=0)
        for c in self.checks:
            value = "n/a" if c.value is None else shown(c.value, c.threshold)
            line = f"  {c.status.upper():6s}  {c.label:<{width}s}  {value:>7s}  {c.threshold.describe():>8s}"
            if c.status == "fail":
                line += f"  -> {c.threshold.remedy}"
            elif c.status == "unsure" and c.interval is not None:
                low, high = c.interval
                line += (f"  -> measured on {c.samples}: 95 % interval {low:.3f}-{high:.3f} reaches past the "
                         "limit; measure more text")
            out.append(line)
        return out


_WORDS = ("a larger --k (knn) or a smaller --epsilon; the words that identify people are "
          "protected by --scope hybrid (detected spans get surrogates)")
_NAMES = "--scope hybrid (detected names get surrogates, whose originals no attack on the noise recovers)"
_RELEASES = "one --key for every release of the same data (a re-run then adds nothing)"
_RARE = ("--scope hybrid (detected spans get surrogates); a larger --k or a smaller --epsilon "
         "blurs rare words less than it costs")
_CHANGES = "--scope all or hybrid (scope detected keeps every other word), or a smaller --epsilon"


#: The same advice once --scope hybrid is on: what is left are the spans the detectors missed.
_IN_HYBRID = {
    _WORDS: "a larger --k (knn) or a smaller --epsilon",
    _NAMES: ("names the detectors missed: list them with --deny FILE, or adapt the detector to your "
             "text (embedanon detector train)"),
    _RARE: ("rare words the detectors missed: --deny FILE or an adapted detector (embedanon detector "
            "train); a larger --k or a smaller --epsilon blurs rare words less than it costs"),
}


#: In scope all or hybrid every word already goes through the mechanism: only ε moves the change rate.
_IN_FULL_SCOPE = {_CHANGES: "a smaller --epsilon (the mechanism returns words unchanged at this one)"}


def for_scope(thresholds: Mapping[str, Threshold], scope: str) -> Mapping[str, Threshold]:
    """``thresholds`` with what moves each figure as it reads in ``scope``: in ``hybrid`` the
    advice to use --scope hybrid is moot and names the detectors' misses instead; in ``all`` and
    ``hybrid`` the advice to use either scope is (limits unchanged)."""
    if scope == "hybrid":
        advice = {**_IN_HYBRID, **_IN_FULL_SCOPE}
    elif scope == "all":
        advice = _IN_FULL_SCOPE
    else:
        return thresholds
    return MappingProxyType({name: replace(t, remedy=advice.get(t.remedy, t.remedy))
                             for name, t in thresholds.items()})


def _table(*rows: Threshold) -> Mapping[str, Threshold]:
    table = {t.figure: t for t in rows}
    if len(table) != len(rows):
        raise ValueError("a figure has two thresholds")
    return MappingProxyType(table)


#: The documented default thresholds (docs/privacy/report.md), in the order a verdict lists them.
DEFAULT_THRESHOLDS: Mapping[str, Threshold] = _table(
    Threshold("change_rate", "word tokens changed", 0.9, False, _CHANGES),
    Threshold("n_w", "N_w: draws returning the word itself", 0.2, True,
              "a smaller --epsilon (embedanon calibrate --target n_w=0.2 finds it)"),
    Threshold("s_w", "S_w: distinct outputs per word (of the draws)", 5.0, False,
              "a smaller --epsilon, or a larger --k"),
    Threshold("epsilon_record", "epsilon spent by the longest record", 10.0, True,
              "none at a readable epsilon: the formal bound says nothing here; read the attack figures"),
    Threshold("attack_public_top1", "words recovered, public prior, top-1", 0.5, True, _WORDS),
    Threshold("attack_public_top5", "words recovered, public prior, top-5", 0.8, True, _WORDS),
    Threshold("attack_top5", "words recovered among five guesses", 0.8, True, _WORDS),
    Threshold("attack_uniform_top1", "words recovered, uniform prior, top-1", 0.5, True, _WORDS),
    Threshold("attack_oracle_top1", "words recovered, the corpus's own frequencies, top-1", 0.5, True,
              _WORDS),
    Threshold("attack_release_prior_top1", "words recovered, release-fitted prior, top-1", 0.5, True, _WORDS),
    Threshold("attack_record_pooled_top1", "words recovered, record-pooled, top-1", 0.5, True, _WORDS),
    Threshold("attack_contextual_top1", "words recovered in context (public bigrams), top-1", 0.5, True,
              _WORDS),
    Threshold("attack_domain_top1", "words recovered, attacker's text as prior, top-1", 0.5, True, _WORDS),
    Threshold("attack_contextual_domain_top1", "words recovered in context of the attacker's text, top-1",
              0.5, True, _WORDS),
    Threshold("attack_oov_top1", "rare (out-of-vocabulary) words recovered, top-1", 0.05, True, _RARE),
    Threshold("attack_oov_domain_top1", "rare words recovered with the attacker's text, top-1", 0.05, True,
              _RARE),
    Threshold("attack_contextual_oov_domain_top1",
              "rare words recovered in context of the attacker's text, top-1", 0.05, True, _RARE),
    Threshold("names_top1", "name parts recovered, top-1", 0.05, True, _NAMES),
    Threshold("names_top10", "name parts recovered, top-10", 0.2, True, _NAMES),
    Threshold("name_confirmation_auc", "which of two names a record holds (AUC, 0.5: chance)", 0.6, True,
              _NAMES),
    Threshold("membership_auc", "whether a held note is in the release, from its layout or words (AUC)",
              0.6, True,
              "the layout: none in any mode (word count and sentence structure stay, decision 0350); "
              "the words: a smaller --epsilon; share the release only with recipients who may learn "
              "who is in it"),
    Threshold("releases_top1", "words recovered after N releases (Bayes), top-1", 0.5, True,
              _RELEASES),
    Threshold("releases_majority_top1", "words recovered after N releases (majority vote)", 0.5, True,
              _RELEASES),
    Threshold("releases_gain", "top-1 gained by re-releasing (N releases minus 1)", 0.02, True,
              _RELEASES),
)


#: Figures that are not shares (rates, AUCs) in [0, 1]: distinct outputs per word, epsilon.
_UNBOUNDED = frozenset({"s_w", "epsilon_record"})


def parse_overrides(specs: Iterable[str] | None) -> dict[str, float]:
    """``["membership_auc=0.7"]`` -> ``{"membership_auc": 0.7}``.

    Raises:
        ConfigError: a spec is not NAME=NUMBER, names no known figure, holds a share (every
            figure but ``s_w`` and ``epsilon_record``) to a number outside [0, 1] or the other
            two to a negative one, or gives a figure twice.
    """
    out: dict[str, float] = {}
    for spec in specs or ():
        name, sep, value = spec.partition("=")
        name = name.strip().lower().replace("-", "_")
        if not sep or not name:
            raise ConfigError(f"a threshold must look like FIGURE=NUMBER, got {spec!r}")
        if name not in DEFAULT_THRESHOLDS:
            raise ConfigError(f"unknown figure {name!r} in --threshold; figures: "
                              f"{', '.join(DEFAULT_THRESHOLDS)}")
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not math.isfinite(number):
            raise ConfigError(f"threshold {name} must be a finite number, got {value.strip()!r}")
        if name in _UNBOUNDED:
            if number < 0:
                raise ConfigError(f"threshold {name} must be >= 0, got {value.strip()!r}")
        elif not 0 <= number <= 1:
            raise ConfigError(f"threshold {name} is a share: give a number from 0 to 1 "
                              f"(40 % is 0.4), got {value.strip()!r}")
        if name in out:
            raise ConfigError(f"threshold {name} is given twice")
        out[name] = number
    return out


def with_overrides(overrides: Mapping[str, float] | None = None,
                   base: Mapping[str, Threshold] = DEFAULT_THRESHOLDS) -> Mapping[str, Threshold]:
    """``base`` with the limits of ``overrides`` (figure -> limit) replaced."""
    table = dict(base)
    for name, limit in (overrides or {}).items():
        if name not in table:
            raise ConfigError(f"unknown figure {name!r}; figures: {', '.join(table)}")
        table[name] = replace(table[name], limit=float(limit))
    return MappingProxyType(table)


def _number(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    number = float(value)
    return None if math.isnan(number) else number


def judge(values: Mapping[str, float | None],
          thresholds: Mapping[str, Threshold] = DEFAULT_THRESHOLDS,
          samples: Mapping[str, int] | None = None) -> Verdict:
    """Hold every figure of ``values`` to its threshold.

    Args:
        values: figure -> value (None or nan: not measured, judged n/a).
        thresholds: figure -> threshold (default: :data:`DEFAULT_THRESHOLDS`).
        samples: figure -> the outcomes it was measured on (:func:`figure_samples`); a figure
            left out, or one that describes the release in full (change rate, N_w, S_w,
            epsilon), is judged on its value alone.

    Raises:
        ValueError: a figure has no threshold.
    """
    order = {name: i for i, name in enumerate(thresholds)}
    checks = []
    for figure, value in values.items():
        base = figure.split(":", 1)[0]
        if base not in thresholds:
            raise ValueError(f"figure {figure!r} has no threshold")
        n = None if samples is None or base in RELEASE_FIGURES else samples.get(figure)
        checks.append((order[base], figure, Check(figure, _number(value), thresholds[base],
                                                  None if n is None else int(n))))
    checks.sort(key=lambda row: (row[0], _qualifier_key(row[1])))
    return Verdict(tuple(c for _, _, c in checks))


def _qualifier_key(figure: str) -> tuple[int, float, str]:
    _, _, group = figure.partition(":")
    if not group:
        return (0, 0.0, "")
    try:
        return (1, float(group), "")
    except ValueError:
        return (2, 0.0, group)


def _rate(entry: Any, key: str) -> float | None:
    if isinstance(entry, Mapping):
        return _number(entry.get(key))
    return None


#: figure -> the entry of ``PrivacyFigures.as_dict()`` holding its top-1 (and top-5) rate.
_TOP_K_ENTRIES = (("attack_public_top1", "public_prior"), ("attack_uniform_top1", "uniform_prior"),
                  ("attack_oracle_top1", "oracle_prior"), ("attack_release_prior_top1", "release_prior"),
                  ("attack_record_pooled_top1", "record_pooled"),
                  ("attack_record_pooled_top1:release-fitted", "release_record_pooled"),
                  ("attack_record_pooled_top1:domain", "domain_record_pooled"),
                  ("attack_domain_top1", "domain_prior"), ("attack_oov_top1", "oov"),
                  ("attack_oov_top1:record-pooled", "oov_record_pooled"),
                  ("attack_oov_domain_top1", "oov_domain"),
                  ("attack_oov_domain_top1:record-pooled", "oov_domain_record_pooled"))
#: figure -> the entry of ``PrivacyFigures.as_dict()`` holding a contextual attack's top-1 rate.
_CONTEXTUAL_ENTRIES = (("attack_contextual_top1", "contextual"),
                       ("attack_contextual_domain_top1", "contextual_domain"),
                       ("attack_contextual_oov_domain_top1", "contextual_oov_domain"))


def figure_samples(*, attacks: Mapping[str, Any] | None = None,
                   membership_records: int | None = None) -> dict[str, int]:
    """How many outcomes each sampled figure of :func:`figure_values` was measured on: word or
    name tokens for the attacks, names for name confirmation, records for membership (the
    ``samples`` of :func:`judge`)."""
    out: dict[str, int] = {}

    def tokens(entry: Any, key: str = "tokens") -> int | None:
        value = entry.get(key) if isinstance(entry, Mapping) else None
        return int(value) if isinstance(value, int) and not isinstance(value, bool) else None

    if attacks:
        counted: list[tuple[str, int | None]] = []
        for key, entry in _TOP_K_ENTRIES:
            n = tokens(attacks.get(entry))
            counted.append((key, n))
            if entry == "public_prior":
                counted.append(("attack_public_top5", n))
            else:
                counted.append((f"attack_top5:{entry.replace('_', ' ')}", n))
        for key, entry in _CONTEXTUAL_ENTRIES:
            counted.append((key, tokens(attacks.get(entry))))
        for name in attacks.get("names") or ():
            group = str(name.get("group", "all"))
            counted.append((f"names_top1{'' if group == 'all' else ':' + group}", tokens(name)))
            if group == "all":
                counted.append(("names_top10", tokens(name)))
        counted.append(("name_confirmation_auc", tokens(attacks.get("name_confirmation"), "names")))
        releases = [r for r in attacks.get("releases") or () if int(r.get("releases", 1)) > 1]
        for r in releases:
            n = int(r["releases"])
            counted += [(f"releases_top1:{n}", tokens(r)), (f"releases_majority_top1:{n}", tokens(r))]
        out.update({key: n for key, n in counted if n is not None})
    if membership_records is not None:
        out["membership_auc"] = int(membership_records)
    return out


def figure_values(*, change_rate: float | None = None, n_w: float | None = None, s_w: float | None = None,
                  epsilon_record: float | None = None, attacks: Mapping[str, Any] | None = None,
                  membership_auc: float | None = None,
                  name_confirmation_auc: float | None = None) -> dict[str, float | None]:
    """The flat figure mapping :func:`judge` takes, from what a report or a review page measured.

    Args:
        change_rate: share of the release's word tokens changed.
        n_w, s_w: the mechanism's N_w and S_w.
        epsilon_record: epsilon spent by the longest record (None: no epsilon).
        attacks: ``PrivacyFigures.as_dict()`` of :func:`~embedanon.privacy.attacks.run_attacks`
            (None: the attacks did not run).
        membership_auc: the membership attack's AUC (the stronger of the layout and word games).
        name_confirmation_auc: the candidate-name confirmation AUC.

    Returns:
        figure -> value; figures not measured are left out (a report shows only what it ran),
        except the release figures given explicitly, which are kept as None when not measured.
    """
    out: dict[str, float | None] = {}
    for name, value in zip(RELEASE_FIGURES, (change_rate, n_w, s_w, epsilon_record), strict=True):
        if name != "epsilon_record" or value is not None:
            out[name] = _number(value)
    if attacks:
        for key, entry in _TOP_K_ENTRIES:
            if attacks.get(entry) is not None:
                out[key] = _rate(attacks[entry], "top1")
                if entry == "public_prior":
                    out["attack_public_top5"] = _rate(attacks[entry], "top5")
                elif "top5" in attacks[entry]:
                    out[f"attack_top5:{entry.replace('_', ' ')}"] = _rate(attacks[entry], "top5")
        for key, entry in _CONTEXTUAL_ENTRIES:
            if attacks.get(entry) is not None:
                out[key] = _rate(attacks[entry], "contextual_top1")
        for name in attacks.get("names") or ():
            group = str(name.get("group", "all"))
            suffix = "" if group == "all" else f":{group}"
            out[f"names_top1{suffix}"] = _rate(name, "top1")
            if group == "all":
                out["names_top10"] = _rate(name, "top10")
        if attacks.get("name_confirmation") is not None:
            out["name_confirmation_auc"] = _rate(attacks["name_confirmation"], "auc")
        releases = [r for r in attacks.get("releases") or () if int(r.get("releases", 1)) > 1]
        for r in releases:
            n = int(r["releases"])
            out[f"releases_top1:{n}"] = _rate(r, "top1")
            if r.get("majority_top1") is not None:
                out[f"releases_majority_top1:{n}"] = _rate(r, "majority_top1")
        if releases:
            first = next((r for r in attacks["releases"] if int(r.get("releases", 0)) == 1), None)
            last = max(releases, key=lambda r: int(r["releases"]))
            gains = [(_rate(last, key), _rate(first, key)) for key in ("top1", "majority_top1")
                     if first is not None]
            known = [a - b for a, b in gains if a is not None and b is not None]
            out["releases_gain"] = max(known) if known else None
    if membership_auc is not None:
        out["membership_auc"] = _number(membership_auc)
    if name_confirmation_auc is not None:
        out["name_confirmation_auc"] = _number(name_confirmation_auc)
    return out

