"""Category surrogates: realistic fake values for detected spans, "hidden in plain sight".

``Surrogates(config).replace(label, text, prf=..., record_prf=...)`` returns a fake value of the
same kind and shape as ``text`` (a span labelled ``label``, one of
:data:`embedanon.detectors.base.LABELS`). Choices are pure functions of the PRFs (see
:mod:`.base`): the same entity gets the same surrogate within a record (``consistency="record"``,
the default) or everywhere under one key (``"corpus"``), dates move by one offset per record, and
no mapping is stored. A surrogate's culture and gender do not depend on the original's (see
:mod:`.names`). A surrogate is never the original nor a variant of it
(:mod:`embedanon.leakguard`), except where a coarse value is meant to survive (ages in the
``age_top`` bucket, month/year-only dates shifted by less than their resolution); a span that its
maker gives back unchanged and that reads as a person's name (``Summer`` or ``June`` labelled
DATE) becomes a NAME surrogate, or ``[LABEL]`` when only part of it is capitalized. With
``avoid=`` (:class:`~.avoid.AvoidNames`), no name part of it is a variant of the record's other
names either. Labels: NAME (:mod:`.names`), DATE (:mod:`.dates`), PHONE, ID, IP (:mod:`.shape`),
EMAIL, URL, ADDRESS, AGE (:mod:`.fakes`), LOCATION (:mod:`.locations`), ORGANIZATION
(:mod:`.organizations`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from functools import lru_cache

from ..detectors.base import LABELS, VALUE_LABELS
from ..errors import ConfigError
from ..text import TITLE, UPPER, case_code, without_format
from .avoid import NO_NAMES, AvoidNames
from .base import PRF, Context, Maker, Stream, prf_from_key
from .config import NEUTRAL_ID, NEUTRAL_PHONE, SurrogateConfig
from .dates import MONTHS, date_style, is_duration
from .keys import entity_key
from .names import lexicon, record_roles
from .registry import MAKERS


class Surrogates:
    """Per-label surrogate makers, built once per process from a :class:`SurrogateConfig`.

    Args:
        config: the frozen configuration.
    """

    def __init__(self, config: SurrogateConfig) -> None:
        if not isinstance(config, SurrogateConfig):
            raise TypeError(f"config must be a SurrogateConfig, got {type(config).__name__}")
        self.config = config
        self._makers: dict[str, Maker] = {label: MAKERS.get(label.lower())(config) for label in LABELS}
        self._record_scope = config.consistency == "record"

    def __reduce__(self) -> tuple[object, tuple[SurrogateConfig]]:
        # Pickle the small config, not the name index or Faker instances: a worker process
        # rebuilds (once, through surrogates_for) what it needs.
        return surrogates_for, (self.config,)

    def replace(
        self,
        label: str,
        text: str,
        *,
        prf: PRF,
        record_prf: PRF,
        avoid: AvoidNames | Iterable[str] = NO_NAMES,
        roles: Mapping[str, str] | None = None,
        taken: dict[str, str] | None = None,
        date_style: str = "",
    ) -> str:
        """A surrogate for the span ``text`` labelled ``label``.

        Args:
            label: one of :data:`~embedanon.detectors.base.LABELS`.
            text: the span's text.
            prf: ``prf(context) -> bytes`` keyed by the release key (entity-consistent choices).
            record_prf: the same, keyed by the record too (date shift, age jitter; and every
                choice when ``consistency="record"``).
            avoid: other names of the record (e.g. every NAME span): no name part of the
                surrogate equals or is a variant of a word of these (issue 9's cross-name rule).
                An :class:`AvoidNames` built once per record (``AvoidNames.of(texts)``), or the
                texts themselves (then read again on every call).
            roles: the roles name keys play in the record's names of several parts
                (:func:`~.names.record_roles` of the record's NAME spans, built once per record):
                a lone part takes its role there, so ``Wei`` after ``Wei Zhang`` is the same
                given name. None: the lists decide a lone part's role.
            taken: a dict the caller makes empty for each record and passes to every call of
                the record (in the record's order): name surrogates already given to another
                part there are drawn again, so two people of one record never share one. Only
                with ``consistency="record"`` (under ``corpus`` a name must get the same
                surrogate in every record, whatever else the record holds).
            date_style: how the record writes its numeric dates (:func:`~.dates.date_style` of
                the record's text, computed once per record): a DATE surrogate writes a month or
                day of two digits in it, so its padding does not tell the original's digits.

        Returns:
            The surrogate text. Text of white space and format characters only is returned as it is.

        Raises:
            ConfigError: unknown label. TypeError: ``text`` is not a string, or ``avoid`` is one.
        """
        maker = self._makers.get(label)
        if maker is None:
            raise ConfigError(f"surrogate label must be one of {', '.join(LABELS)}, got {label!r}"[:200])
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        if not isinstance(avoid, AvoidNames):
            avoid = AvoidNames.of(avoid)
        if not text.isascii():  # a name in decomposed form or with a zero-width space is the same
            composed = unicodedata.normalize("NFC", without_format(text))  # name (decision 0217)
            if not composed.strip():
                return text
            text = composed
        if not text.strip():
            return text
        entity_prf = record_prf if self._record_scope else prf
        context = Context(
            entity=lambda purpose: Stream(entity_prf, purpose),
            record=lambda purpose: Stream(record_prf, purpose),
            avoid=avoid,
            roles=roles or {},
            taken=taken if self._record_scope else None,
            date_style=date_style,
        )
        end = _SENTENCE_END.search(text) if label in VALUE_LABELS else None
        if end is not None:  # ``john@x.org.``: the sentence's punctuation is no part of the value
            out = maker.make(text[: end.start()], context) + end.group()
        else:
            out = maker.make(text, context)
        duration = label == "DATE" and is_duration(text)  # ``10 Weeks Ago``: kept, no name
        if out == text and label != "NAME" and not duration and _names_a_person(text):
            # A span its maker gave back unchanged (a "date" of public date words only) that
            # reads as a name (``Summer``, ``June`` a detector called a DATE): never the original.
            # A month name is far more often a month: it is redacted rather than made a name.
            as_name = _capitalized(text) and not (label == "DATE" and _has_month(text))
            out = self._makers["NAME"].make(text, context) if as_name else f"[{label}]"
        return out


_LETTER_RUNS = re.compile(r"[^\W\d_]+")
#: sentence punctuation at the end of a span of a VALUE_LABELS label: no part of the value
_SENTENCE_END = re.compile(r"(?<=\w)[.,;:!?]+\s*$")


def _names_a_person(text: str) -> bool:
    """A capitalized word of ``text`` that the bundled name lists hold (``June``, ``Summer``)."""
    masks = lexicon().masks
    return any(case_code(w) in (TITLE, UPPER) and entity_key(w) in masks for w in _LETTER_RUNS.findall(text))


_MONTH_WORDS = frozenset((*MONTHS, *(m[:3] for m in MONTHS), "sept"))


def _has_month(text: str) -> bool:
    return any(w.lower() in _MONTH_WORDS for w in _LETTER_RUNS.findall(text))


def _capitalized(text: str) -> bool:
    """Every word capitalized (``June``, ``Summer Day``): a name's shape, not ``in June``."""
    return all(case_code(w) in (TITLE, UPPER) for w in _LETTER_RUNS.findall(text))


@lru_cache(maxsize=8)
def surrogates_for(config: SurrogateConfig) -> Surrogates:
    """The process's :class:`Surrogates` for ``config`` (built on first use, then shared)."""
    return Surrogates(config)


__all__ = [
    "NEUTRAL_ID",
    "NEUTRAL_PHONE",
    "PRF",
    "AvoidNames",
    "Stream",
    "SurrogateConfig",
    "Surrogates",
    "date_style",
    "prf_from_key",
    "record_roles",
    "surrogates_for",
]
