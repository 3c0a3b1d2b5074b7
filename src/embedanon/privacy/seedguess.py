"""Seed guessing: was a release made with a small ``--seed``?

A seed is for experiments: whoever knows it can replay the noise. A small integer seed can be
found by trying them all. Two attackers, one interface:

* **known plaintext** (``originals`` given, e.g. a template line or a public document that is
  also in the release): anonymize the originals under each seed and compare; a seed that
  reproduces the release exactly is the seed.
* **output only** (``originals`` is ``None``): anonymize the attacker's best reconstruction of
  the release (``reconstruct(released)``, e.g. the public-prior attack's top-1 guesses) under each
  seed and count the word tokens that come out exactly as released. Under a wrong seed a correct
  guess reproduces its replacement only by chance; under the right seed every correct guess does
  (when the noise of a token does not depend on the other words of the record). The best seed
  is reported when its match count is significant against the null rate (the median over the
  seeds tried), by a one-sided binomial tail bound below ``alpha / len(seeds)`` (Bonferroni).

Trying a seed costs one anonymization of the texts; with a slow key derivation per seed the
caller should keep ``seeds`` small (``range(S)``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

from ..errors import ConfigError
from ..text import tokenize

AnonymizeFn = Callable[[int, Sequence[str]], Sequence[str]]


def _words(texts: Sequence[str]) -> list[str]:
    return [t.text for text in texts for t in tokenize(text) if t.kind == "word"]


def binomial_tail(successes: int, trials: int, p: float) -> float:
    """P(Binomial(trials, p) >= successes), exact (log-space sum)."""
    if successes <= 0:
        return 1.0
    if p <= 0:
        return 0.0
    if p >= 1:
        return 1.0
    terms = [math.lgamma(trials + 1) - math.lgamma(i + 1) - math.lgamma(trials - i + 1)
             + i * math.log(p) + (trials - i) * math.log1p(-p) for i in range(successes, trials + 1)]
    top = max(terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms))


def guess_seed(originals: Sequence[str] | None, released: Sequence[str], anonymize_fn: AnonymizeFn,
               seeds: Iterable[int], *, reconstruct: Callable[[Sequence[str]], Sequence[str]] | None = None,
               alpha: float = 1e-6) -> int | None:
    """The seed that made ``released``, or ``None`` when none of ``seeds`` did (detectably).

    Args:
        originals: the documents, when the attacker knows them; ``None`` for output only.
        released: the released documents.
        anonymize_fn: ``anonymize_fn(seed, texts) -> released texts`` (the documents numbered from
            0 as in the release).
        seeds: seeds to try, in order.
        reconstruct: output-only attack: ``released -> guessed originals`` (token-aligned).
        alpha: family-wise false-alarm bound of the output-only test.
    """
    seeds = list(seeds)
    released = list(released)
    if originals is not None:
        originals = list(originals)
        if len(originals) != len(released):
            raise ConfigError(f"need one original per released document, got {len(originals)}")
        for seed in seeds:
            if list(anonymize_fn(seed, originals)) == released:
                return seed
        return None
    if reconstruct is None:
        raise ConfigError("guess_seed without originals needs a reconstruct function")
    guesses = list(reconstruct(released))
    target = _words(released)
    if not target or not seeds:
        return None
    matches = []
    for seed in seeds:
        got = _words(list(anonymize_fn(seed, guesses)))
        if len(got) != len(target):
            raise ConfigError("the reconstruction does not align with the release")
        matches.append(sum(a == b for a, b in zip(got, target, strict=True)))
    best = max(range(len(seeds)), key=lambda i: matches[i])
    null = sorted(matches)[len(matches) // 2] / len(target)
    null = min(max(null, 1.0 / len(target)), 1.0 - 1e-12)
    if binomial_tail(matches[best], len(target), null) < alpha / len(seeds):
        return seeds[best]
    return None
