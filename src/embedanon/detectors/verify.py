"""The local verifier: a second stage that drops detected spans which look like false positives.

The seed paper's two-stage design: a detector with high recall proposes spans, and a classifier
on (span, context) rejects those that are not personal information (``Doctor:`` as a speaker
label, ``Ooh!``, ``Ni!``, a drug after ``Dr.``). Here the classifier is a logistic regression over
the features of :mod:`.verify_features` (hashed binary features and a few dense values), fitted
in ``research/detection/verifier/`` on the real-text development half and generated data, and
shipped as ``data/verifier/`` (``weights.npz`` + ``manifest.json``): numpy at run time, no
download, no scikit-learn.

A span is kept when its probability of being PII is at least the manifest's ``threshold``, which
was chosen on development data (cross-validated by source document) so that the verifier keeps
at least 98 % of the true spans the detector finds. Only spans found by the detectors the
verifier was trained on (the manifest's ``sources``: ``model``, ``regex``) are judged; a span
any other detector (or the deny list) contributed is kept as it is, and so is a ``NAME`` span right
after a relation noun (``his daughter Emily``, ``my friend dave``, ``her sons, Tom``:
:data:`~embedanon._english.RELATION_NOUNS`, :func:`after_relation_noun`): such a name is a third
party, the very case the detector must not miss, and the logistic features describe it only
through the previous word, which the development data shows too rarely to outweigh a low model
score (decision 0111); and so
is a capitalized ``NAME`` span right before a verb of saying (``Artie said``, ``Kwame told him``:
:data:`SPEECH_VERBS`, :func:`before_speech_verb`; decision 0138), and a ``NAME`` span that is a
chat handle that a speaker label of the text names (``<tom_h>``: decision 0182).

:meth:`SpanVerifier.probabilities` is the vectorised path; :meth:`SpanVerifier.probabilities_reference`
the plain per-feature loop the tests compare it with.
"""

from __future__ import annotations

import json
import math
import re
import zlib
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from .._english import CLAUSE_END, GREETING_ALTERNATION, RELATION_ALTERNATION, SPEECH_VERBS, opens_clause
from .._validate import fraction
from ..errors import ConfigError
from ..lexicon import folded, name_like, name_parts, place_names
from ..structure import VOICE_OPEN, handle, mention_ranges, speaker_labels
from .base import Span
from .verify_features import DENSE_NAMES, FEATURE_VERSION, TextView, featurize, span_features

WEIGHTS_FILE = "weights.npz"
MANIFEST_FILE = "manifest.json"

_RELATION_BEFORE = re.compile(
    r"(?<![\w'\u2019-])" + RELATION_ALTERNATION + r"(?:s|es)?(?:-in-law)?[ \t]*,?[ \t]*\Z", re.IGNORECASE)
#: how far back :func:`after_relation_noun` looks (the longest noun and its affixes, and spaces)
_RELATION_WINDOW = 40


def after_relation_noun(text: str, start: int) -> bool:
    """Whether a relation noun (:data:`~embedanon._english.RELATION_NOUNS`) comes right before
    ``text[start]``: only spaces or tabs and at most one comma between them, on the same line
    (``his daughter Emily``, ``her sons, Tom``, ``my sister-in-law Ana``; not ``Mason Emily`` nor
    ``daughter.\nEmily``)."""
    return _RELATION_BEFORE.search(text, max(0, start - _RELATION_WINDOW), start) is not None


_SPEECH_AFTER = re.compile(r"[ \t]*,?[ \t]*(?:" + "|".join(SPEECH_VERBS) + r")(?![\w'\u2019-])")


def before_speech_verb(text: str, span: Span) -> bool:
    """Whether ``span`` opens with a capital and a verb of saying (:data:`SPEECH_VERBS`) follows it:
    only spaces or tabs and at most one comma between them (``Artie said``, ``, Andrus said .``,
    ``Kwame told him``; not ``a popup asks``, ``Artie, who said``)."""
    return text[span.start : span.start + 1].isupper() and _SPEECH_AFTER.match(text, span.end) is not None


#: a greeting, a thanks or a farewell right before a name (``Bye Tomasz!``, ``Thanks, Aiko``)
_GREETING_BEFORE = re.compile(r"(?<![^\W_])(?:" + GREETING_ALTERNATION + r"),?[ \t]+\Z", re.IGNORECASE)
_NAME_WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")


#: a capitalized word and a comma right before a span, on the same line (``Brennecke, ``)
_SURNAME_COMMA_BEFORE = re.compile(r"(?<![\w'\u2019-])([A-Z][^\W\d_]+(?:['\u2019-][^\W\d_]+)*),[ \t]+\Z")


def after_surname(text: str, span: Span) -> bool:
    """Whether ``span`` is the given name of a name written surname first (decision 0218:
    ``Referral for Brennecke, Ingrid from Dr. Asante``): one word, a listed given name, right
    after a capitalized word that reads as a name (:func:`~embedanon.lexicon.name_like`) and a
    comma (not ``Thanks, Ingrid``, ``Yesterday, Ingrid``, ``Brown, Ingrid``, nor a region after a
    town, ``Richmond, Virginia``)."""
    word = text[span.start : span.end]
    if not word.isalpha() or folded(word) not in name_parts("first"):
        return False
    before = _SURNAME_COMMA_BEFORE.search(text, max(0, span.start - 40), span.start)
    if before is None or not name_like(before.group(1)):
        return False
    return not (word.lower() in _REGIONS_NAMED_LIKE_PEOPLE and before.group(1).lower() in place_names())


#: countries, states and continents that are listed given names, which follow a town's name and a
#: comma as its region (``Richmond, Virginia``, ``Amman, Jordan``), lower case
_REGIONS_NAMED_LIKE_PEOPLE = frozenset((
    "africa", "america", "chad", "georgia", "israel", "jordan", "virginia",
))  # fmt: skip


def after_greeting(text: str, span: Span) -> bool:
    """Whether ``span`` is a name addressed after a greeting (decision 0187): a greeting, a thanks
    or a farewell (:data:`~embedanon._english.GREETINGS`) opens a line, a speaker's turn or a
    sentence and comes right before it (``Bye Tomasz!``, ``teacher: Welcome Kwame.``), the span
    ends its clause or its line, and a word of it reads as a name
    (:func:`~embedanon.lexicon.name_like`; not ``Thanks everyone!``, ``Welcome back.``)."""
    greeting = _GREETING_BEFORE.search(text, max(0, span.start - 40), span.start)
    if greeting is None or not opens_clause(text, greeting.start()):
        return False
    if CLAUSE_END.match(text, span.end) is None:
        return False
    return any(name_like(w) for w in _NAME_WORD.findall(text[span.start : span.end]))


def _speaker_handle(text: str, piece: str) -> bool:
    """Whether ``piece`` is a chat handle (:func:`~embedanon.structure.handle`) that a speaker
    label of ``text`` names."""
    return handle(piece) and any(text[a:b] == piece for label in speaker_labels(text) for a, b in label.names)


#: a WebVTT voice tag's opening, right before its speaker (``<v ``, ``<v.loud ``)
_VOICE_OPEN = re.compile(VOICE_OPEN + r"\Z")


def _voice_speaker(text: str, span: Span) -> bool:
    """Whether ``span`` is a name part of a caption's voice tag (``<v Amara Okafor>``, decision
    0194): the name a meeting tool wrote for the participant, read as a name by the structure pass
    (not ``<v Doctor>``)."""
    if _VOICE_OPEN.search(text, max(0, span.start - 40), span.start) is None:
        return False
    return any(a <= span.start and span.end <= b for label in speaker_labels(text) for a, b in label.names)


def shipped_verifier_path() -> Path:
    """The directory of the verifier shipped in the package (``detectors/data/verifier``)."""
    return Path(str(resources.files(__package__).joinpath("data", "verifier")))


class SpanVerifier:
    """Keeps the spans a logistic regression on (span, context) judges to be PII.

    Args:
        path: a directory with ``weights.npz`` and ``manifest.json`` (default: the shipped one).
        threshold: the probability a span needs to be kept, in [0, 1]; default: the manifest's,
            chosen on development data for a recall of at least 0.98 of the detector's true spans.

    Attributes:
        hashed: float64 (buckets,) weights of the hashed features.
        dense: float64 (len(DENSE_NAMES),) weights of the dense features.
        bias: the intercept.
        sources: the detectors whose spans are judged; spans with another source are kept.
    """

    name = "local"

    def __init__(self, *, path: str | Path | None = None, threshold: float | None = None) -> None:
        folder = Path(path) if path is not None else shipped_verifier_path()
        try:
            manifest: dict[str, Any] = json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
            with np.load(folder / WEIGHTS_FILE) as arrays:
                hashed, dense, bias = arrays["hashed"], arrays["dense"], arrays["bias"]
        except (OSError, KeyError, ValueError) as exc:
            raise ConfigError(f"cannot load the verifier from {folder}: {exc}") from None
        if manifest.get("feature_version") != FEATURE_VERSION:
            raise ConfigError(f"verifier in {folder} was fitted on feature version "
                              f"{manifest.get('feature_version')!r}; this embedanon computes "
                              f"{FEATURE_VERSION}")
        if tuple(manifest.get("dense_names", ())) != DENSE_NAMES or dense.shape != (len(DENSE_NAMES),):
            raise ConfigError(f"verifier in {folder} has dense features {manifest.get('dense_names')!r}, "
                              f"expected {list(DENSE_NAMES)}")
        if hashed.ndim != 1 or len(hashed) != int(manifest.get("buckets", -1)) or bias.shape != (1,):
            raise ConfigError(f"verifier in {folder} has weights of the wrong shape")
        self.manifest = manifest
        self.hashed = hashed.astype(np.float64)
        self.dense = dense.astype(np.float64)
        self.bias = float(bias[0])
        self.buckets = len(hashed)
        self.sources = frozenset(manifest.get("sources", ()))
        self.threshold = fraction("threshold", manifest["threshold"] if threshold is None else threshold)

    def judged(self, span: Span) -> bool:
        """Whether ``span`` comes only from detectors the verifier was trained on."""
        parts = span.source.split("+") if span.source else []
        return bool(parts) and all(p in self.sources for p in parts)

    def exempt(self, text: str, span: Span) -> bool:
        """Whether ``span`` is kept whatever its probability: a NAME right after a relation noun, a
        capitalized NAME right before a verb of saying, a NAME addressed after a greeting
        (:func:`after_greeting`: ``Bye Tomasz!``), a given name after a surname and a comma
        (:func:`after_surname`: ``Brennecke, Ingrid``), or a NAME that is a chat handle a speaker
        label of the text names (``<tom_h>``, ``maria_99:``: an account's identifier, decision
        0182; not a program's ``libjavaplugin_oji``), a NAME inside the speaker of a caption's
        voice tag (:func:`_voice_speaker`, decision 0194), or a handle named with ``@``
        (``@jenny_b``, decision 0197)."""
        if span.label != "NAME":
            return False
        return (after_relation_noun(text, span.start) or before_speech_verb(text, span)
                or after_greeting(text, span) or after_surname(text, span)
                or _speaker_handle(text, text[span.start:span.end])
                or _voice_speaker(text, span)
                or (span.start > 0 and text[span.start - 1] == "@"
                    and (span.start, span.end) in mention_ranges(text)))

    def probabilities(self, text: str, spans: Sequence[Span]) -> np.ndarray:
        """float64 (S,): each span's probability of being PII (spans of any source)."""
        if not spans:
            return np.zeros(0, dtype=np.float64)
        ids, dense = featurize(text, spans, self.buckets)
        lengths = np.fromiter((len(i) for i in ids), dtype=np.int64, count=len(ids))
        flat = np.concatenate(ids)
        offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        logits: np.ndarray = np.add.reduceat(self.hashed[flat], offsets)
        logits += dense.astype(np.float64) @ self.dense + self.bias
        return 0.5 * (1.0 + np.tanh(0.5 * logits))  # the logistic function, without overflow

    def probabilities_reference(self, text: str, spans: Sequence[Span]) -> list[float]:
        """The same probabilities by a plain loop over each span's named features."""
        view = TextView(text)
        out = []
        for span in spans:
            names, values = span_features(view, span)
            logit = self.bias
            for name in names:
                logit += float(self.hashed[zlib.crc32(name.encode("utf-8", "surrogatepass")) % self.buckets])
            for weight, value in zip(self.dense.tolist(), values, strict=True):
                logit += weight * float(np.float32(value))
            out.append(1.0 / (1.0 + math.exp(-logit)) if logit > -700 else 0.0)
        return out

    def verify(self, text: str, spans: Sequence[Span]) -> list[Span]:
        """The spans kept: those not judged (other sources), NAME spans right after a relation noun
        (:meth:`exempt`) and those with probability >= threshold."""
        spans = list(spans)
        judged = [i for i, s in enumerate(spans) if self.judged(s) and not self.exempt(text, s)]
        if not judged:
            return spans
        proba = self.probabilities(text, [spans[i] for i in judged])
        dropped = {i for i, p in zip(judged, proba.tolist(), strict=True) if p < self.threshold}
        return [s for i, s in enumerate(spans) if i not in dropped]
