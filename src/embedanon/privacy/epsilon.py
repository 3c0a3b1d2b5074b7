"""Epsilon in plain words: the readable ranges of the default embedding and what a value means.

The metric-DP mechanisms (``laplace``, ``mahalanobis``, ``exponential``, ``tem``) promise, for
each word part they replace, P(y | x) <= exp(epsilon * d(x, x')) * P(y | x') for any two
words x, x' at distance d (at most 2 between the default embedding's unit vectors). A record of n
such parts spends n * epsilon by basic composition. :func:`epsilon_sentences` says that for a
given epsilon and record; :data:`READABLE_RANGES` gives, per mechanism, the epsilon at which a
frequent word comes back unchanged one time in ten and one time in two on the default
embedding (N_w = 0.1 and 0.5: below it the text is noise, above it most words survive).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from types import MappingProxyType

#: epsilon at N_w = 0.1 and N_w = 0.5 on the default embedding (``research/calibration/run.py``:
#: 200 frequent words x 50 draws per epsilon; ``tem`` with its default gamma, ``mahalanobis``
#: with lambda = 0.2). Checked by a test that recalibrates both ends.
READABLE_RANGES: Mapping[str, tuple[float, float]] = MappingProxyType({
    "exponential": (11.1, 14.2),
    "tem": (11.1, 14.2),
    "laplace": (53.5, 81.0),
    "mahalanobis": (58.0, 87.0),
})

#: The diameter of the default embedding's unit sphere: the largest distance between two words.
DIAMETER = 2.0
#: The note length the run report speaks of.
NOTE_WORDS = 500


def ranges_help() -> str:
    """One line for ``--help``: the readable range of each mechanism."""
    parts = [f"{name} {low:g}-{high:g}" for name, (low, high) in READABLE_RANGES.items() if name != "tem"]
    return ("readable range on the default embedding (a frequent word kept 10-50 % of the time; "
            f"see 'embedanon calibrate --target'): {', '.join(parts)} (tem as exponential)")


def spent(parts: int, epsilon: float) -> float | None:
    """epsilon spent by ``parts`` word parts (basic composition: ``parts * epsilon``), or None when
    that exceeds the largest float (about 1.8e308; decision 0370): a report writes no infinity,
    which JSON cannot hold."""
    total = parts * epsilon
    return total if math.isfinite(total) else None


def amount(value: float | None) -> str:
    """An epsilon total in words: ``7,000``; beyond the largest float (None or inf) ``more than
    1.8e+308``, never ``inf``."""
    if value is None or not math.isfinite(value):
        return f"more than {sys.float_info.max:.2g}"
    return f"{value:,.6g}"


def _power(exponent: float) -> str:
    """e^x in words: ``e^28 (about 1.4e+12)``; beyond what a float holds, only the exponent."""
    if not math.isfinite(exponent):
        return f"e^({amount(exponent)})"
    if exponent > 700:
        return f"e^{exponent:,.0f}"
    return f"e^{exponent:g} (about {math.exp(exponent):.2g})"


def epsilon_sentences(epsilon: float, *, longest_parts: int | None = None,
                      scope_all: bool = True) -> dict[str, str]:
    """What ``epsilon`` means, per word, per record and for a 500-word note.

    Args:
        epsilon: epsilon per word part.
        longest_parts: word parts the mechanism replaced in the longest record (None: not counted).
        scope_all: every word goes through the mechanism (else only those outside surrogates
            and kept spans spend epsilon).

    Returns:
        ``per_word``, ``per_record`` (when counted) and ``note_500_words``: one sentence each.
    """
    worst = DIAMETER * epsilon
    out = {
        "per_word": (f"each word part the mechanism replaces spends epsilon = {epsilon:g}: seeing its "
                     f"replacement changes an attacker's odds between two candidate words at distance d by "
                     f"at most e^({epsilon:g} d); for two unrelated words (d up to {DIAMETER:g}) that is "
                     f"{_power(worst)}" + (", no meaningful bound" if worst > 10 else "")),
    }
    if longest_parts is not None:
        total = longest_parts * epsilon
        out["per_record"] = (f"the longest record has {longest_parts} such parts and spends "
                             f"{longest_parts} x {epsilon:g} = {amount(total)} (basic composition: a "
                             f"bound of {_power(total)} on the odds about the whole record)")
    note = NOTE_WORDS * epsilon
    out["note_500_words"] = (
        f"a {NOTE_WORDS}-word note{'' if scope_all else ' whose words all go through the mechanism'} "
        f"spends about {NOTE_WORDS} x {epsilon:g} = {amount(note)}: as a formal guarantee that is "
        + ("meaningful (at most e^10)" if note <= 10 else "none at all")
        + "; what such a release protects is what privacy-report's attacks measure")
    return out
