"""Release levers applied to a pipeline output through its items (experiments only).

The pipeline's :class:`~embedanon.pipeline.AnonymizedDocument` lists every replaced span; a
lever rewrites some replacements and the text is rebuilt from the original's gaps and the
replacements. These emulate choices the core does not offer (yet), so their utility *and*
privacy can be measured before anyone changes the core:

* ``oov="keep"``: words outside the embedding stay as they are (an upper bound on what better
  out-of-vocabulary handling can give; it releases those words verbatim);
* ``oov="uniform"``: they get a uniformly random candidate word (the rule before proxies);
* ``consistent=True``: within one record every occurrence of a word type (lookup key) gets the
  replacement of its first occurrence, case transferred;
* ``keep=keep_list(name)``: words of a fixed public list (``english-stopwords``: scikit-learn's 318
  English stop words, question words and negations included) are released as they are. The list
  does not depend on the corpus; an attacker who knows the tool recovers those words with
  certainty, so they count as recovered, and the attack on the other words runs on the record with
  the kept words blanked on both sides (:attr:`Released.attack_pair`).

A span the mechanism did not release (a surrogate: under the default neutral formats every phone
and ID) is blanked in the attack pair as well: the word attacks model the mechanism, and a
surrogate of another token count would leave the pair unaligned.

Nothing here logs or returns text other than the released documents themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..pipeline import AnonymizedDocument
from ..privacy.scoped import MECHANISM_KINDS
from ..text import lookup_key, transfer_case
from ..vectors.store import EmbeddingStore


@dataclass(frozen=True, slots=True)
class Released:
    """One released record, with what the figures need (counts only leave this object).

    Attributes:
        text: the released text.
        words: word spans replaced, as (original key, replacement key, in embedding) per span.
        kept: word spans released as they are by the ``keep`` lever (not in ``words``).
        attack_pair: with ``kept`` or a surrogate, the original and the release with each kept
            word and each surrogate blanked (one space) on both sides, what the attack on the
            replaced words runs on; else ``None``.
    """

    text: str
    words: tuple[tuple[str, str, bool], ...]
    kept: int = 0
    attack_pair: tuple[str, str] | None = None


def _english_stopwords() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


#: Loaders of the public word lists the ``keep`` lever accepts (``config.KEEP_LISTS``), by name.
_KEEP_LOADERS: Mapping[str, Callable[[], frozenset[str]]] = {"english-stopwords": _english_stopwords}


def keep_list(name: str | None) -> frozenset[str]:
    """The words of the named public keep list (``None``: no list)."""
    if name is None:
        return frozenset()
    return _KEEP_LOADERS[name]()


def apply_levers(
    original: str,
    doc: AnonymizedDocument,
    store: EmbeddingStore,
    *,
    oov: str = "composed",
    consistent: bool = False,
    candidates: np.ndarray | None = None,
    rng: np.random.Generator | None = None,
    keep: frozenset[str] = frozenset(),
) -> Released:
    """Rebuild ``doc`` with the levers applied.

    Args:
        original: the input text of ``doc``.
        doc: the pipeline's output for it.
        store: the embedding (decides which words are out of vocabulary).
        oov: ``composed`` (unchanged), ``keep`` or ``uniform``.
        consistent: one replacement per word type within the record.
        candidates: int64 candidate word ids, for ``oov="uniform"``.
        rng: randomness of ``oov="uniform"``.
        keep: lookup keys released as they are (see :func:`keep_list`).
    """
    pieces: list[str] = []
    words: list[tuple[str, str, bool]] = []
    first: dict[str, str] = {}
    blank_original: list[str] = []
    blank_release: list[str] = []
    kept = 0
    blanked = False
    at = 0
    for item in doc.items:
        gap = original[at : item.start]
        pieces.append(gap)
        blank_original.append(gap)
        blank_release.append(gap)
        source = original[item.start : item.end]
        new = doc.text[item.new_start : item.new_end]
        at = item.end
        if item.kind not in MECHANISM_KINDS:  # a surrogate or a redaction: not attacked
            blanked = True
            pieces.append(new)
            blank_original.append(" ")
            blank_release.append(" ")
            continue
        if item.kind == "word":
            key = lookup_key(source)
            if key in keep:
                kept += 1
                pieces.append(source)
                blank_original.append(" ")
                blank_release.append(" ")
                continue
            known = store.id_of(key) >= 0
            if not known and oov == "keep":
                new = source
            elif not known and oov == "uniform":
                assert candidates is not None and rng is not None
                new = transfer_case(source, store.words[int(candidates[rng.integers(len(candidates))])])
            if consistent:
                if key in first:
                    new = transfer_case(source, first[key])
                else:
                    first[key] = lookup_key(new)
            words.append((key, lookup_key(new), known))
        pieces.append(new)
        blank_original.append(source)
        blank_release.append(new)
    pieces.append(original[at:])
    if not kept and not blanked:
        return Released("".join(pieces), tuple(words))
    blank_original.append(original[at:])
    blank_release.append(original[at:])
    pair = ("".join(blank_original), "".join(blank_release))
    return Released("".join(pieces), tuple(words), kept, pair)


@dataclass(frozen=True, slots=True)
class WordCounts:
    """Word-span counts of a set of released records.

    Attributes:
        words: word spans (word parts), those the ``keep`` lever released as they are included.
        changed: of them, whose replacement differs from the original (ignoring case).
        oov: of them, outside the embedding.
        unchanged_oov: out-of-vocabulary spans released as they are (not attacked by the
            in-embedding attacks: their recovery is certain).
        repeats: occurrences of a word type after its first one within a record.
        linked: of them, released as the same word as the first occurrence (linkability).
        kept: word spans the ``keep`` lever released as they are (in ``words``, not attacked:
            their recovery is certain).
    """

    words: int
    changed: int
    oov: int
    unchanged_oov: int
    repeats: int
    linked: int
    kept: int = 0

    @property
    def change_rate(self) -> float:
        return self.changed / self.words if self.words else float("nan")

    @property
    def repeat_link(self) -> float:
        return self.linked / self.repeats if self.repeats else float("nan")


def word_counts(released: Sequence[Released]) -> WordCounts:
    """Count changed, out-of-vocabulary and linked word spans (see :class:`WordCounts`)."""
    words = changed = oov = unchanged_oov = repeats = linked = kept = 0
    for record in released:
        words += record.kept
        kept += record.kept
        first: dict[str, str] = {}
        for key, new, known in record.words:
            words += 1
            changed += key != new
            oov += not known
            unchanged_oov += (not known) and key == new
            if key in first:
                repeats += 1
                linked += first[key] == new
            else:
                first[key] = new
    return WordCounts(words, changed, oov, unchanged_oov, repeats, linked, kept)
