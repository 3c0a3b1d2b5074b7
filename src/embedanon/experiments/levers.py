"""Release levers applied to a pipeline output through its items (experiments only).

The pipeline's :class:`~embedanon.pipeline.AnonymizedDocument` lists every replaced span; a
lever rewrites some replacements and the text is rebuilt from the original's gaps and the
replacements. These emulate choices the core does not offer (yet), so their utility *and*
privacy can be measured before anyone changes the core:

* ``oov="keep"``: words outside the embedding stay as they are (an upper bound on what better
  out-of-vocabulary handling can give; it releases those words verbatim);
* ``oov="uniform"``: they get a uniformly random candidate word (the rule before proxies);
* ``consistent=True``: within one record every occurrence of a word type (lookup key) gets the
  replacement of its first occurrence, case transferred.

Nothing here logs or returns text other than the released documents themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..pipeline import AnonymizedDocument
from ..text import lookup_key, transfer_case
from ..vectors.store import EmbeddingStore


@dataclass(frozen=True, slots=True)
class Released:
    """One released record, with what the figures need (counts only leave this object).

    Attributes:
        text: the released text.
        words: word spans replaced, as (original key, replacement key, in embedding) per span.
    """

    text: str
    words: tuple[tuple[str, str, bool], ...]


def apply_levers(
    original: str,
    doc: AnonymizedDocument,
    store: EmbeddingStore,
    *,
    oov: str = "composed",
    consistent: bool = False,
    candidates: np.ndarray | None = None,
    rng: np.random.Generator | None = None,
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
    """
    pieces: list[str] = []
    words: list[tuple[str, str, bool]] = []
    first: dict[str, str] = {}
    at = 0
    for item in doc.items:
        pieces.append(original[at : item.start])
        source = original[item.start : item.end]
        new = doc.text[item.new_start : item.new_end]
        if item.kind == "word":
            key = lookup_key(source)
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
        at = item.end
    pieces.append(original[at:])
    return Released("".join(pieces), tuple(words))


@dataclass(frozen=True, slots=True)
class WordCounts:
    """Word-span counts of a set of released records.

    Attributes:
        words: word spans (word parts) replaced.
        changed: of them, whose replacement differs from the original (ignoring case).
        oov: of them, outside the embedding.
        unchanged_oov: out-of-vocabulary spans released as they are (not attacked by the
            in-embedding attacks: their recovery is certain).
        repeats: occurrences of a word type after its first one within a record.
        linked: of them, released as the same word as the first occurrence (linkability).
    """

    words: int
    changed: int
    oov: int
    unchanged_oov: int
    repeats: int
    linked: int

    @property
    def change_rate(self) -> float:
        return self.changed / self.words if self.words else float("nan")

    @property
    def repeat_link(self) -> float:
        return self.linked / self.repeats if self.repeats else float("nan")


def word_counts(released: Sequence[Released]) -> WordCounts:
    """Count changed, out-of-vocabulary and linked word spans (see :class:`WordCounts`)."""
    words = changed = oov = unchanged_oov = repeats = linked = 0
    for record in released:
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
    return WordCounts(words, changed, oov, unchanged_oov, repeats, linked)
