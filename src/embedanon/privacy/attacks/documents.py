"""What the attacks see of a document: aligned word slots, split into sentences.

Full scope keeps the token structure (see :func:`embedanon.privacy.metrics.align_tokens`), so the
word tokens of an original and of its release pair up one to one. Only alphabetic word tokens
without joiners are slots (the tokens the mechanism replaced whole); ``.``, ``?`` and ``!`` end a
sentence (as in the bigram model's training); everything else is skipped. A slot keeps word ids
and flags, never text beyond the original's lookup key, which is the ground truth the figures
are scored against and never leaves this package.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...text import TITLE, case_code, lookup_key
from ...vectors.store import EmbeddingStore
from ..metrics import align_tokens

SENTENCE_END = frozenset(".?!")
_HEADING_END = frozenset(":;")


@dataclass(frozen=True, slots=True)
class Slot:
    """One aligned word.

    Attributes:
        key: lookup key of the original word (ground truth).
        original_id: its embedding row, or -1 when the embedding lacks it.
        released_id: embedding row of the replacement (-1 if it has none: not a mechanism output).
        name_cue: the replacement is Title case and does not start a sentence or a line (the
            capitalization cue an attacker sees in the release).
        start: character offset of the original word.
    """

    key: str
    original_id: int
    released_id: int
    name_cue: bool
    start: int


def document_slots(original: str, released: str, store: EmbeddingStore) -> list[list[Slot]]:
    """The sentences of aligned word slots of one (original, release) pair."""
    sentences: list[list[Slot]] = [[]]
    at_start = True
    for x, y in align_tokens(original, released):
        if x.kind == "punct":
            if x.text in SENTENCE_END:
                if sentences[-1]:
                    sentences.append([])
                at_start = True
            elif x.text in _HEADING_END:
                at_start = True
            continue
        if x.kind == "space":
            if "\n" in x.text:
                at_start = True
            continue
        if x.kind == "word" and x.text.isalpha() and y.text.isalpha():
            cue = case_code(y.text) == TITLE and not at_start
            sentences[-1].append(Slot(lookup_key(x.text), store.id_of(x.text), store.id_of(y.text),
                                      cue, x.start))
        at_start = False
    return [s for s in sentences if s]


def corpus_slots(originals: Sequence[str], released: Sequence[str],
                 store: EmbeddingStore) -> list[list[list[Slot]]]:
    """:func:`document_slots` of each document (documents, sentences, slots)."""
    if len(originals) != len(released):
        raise ValueError(f"need one release per document, got {len(released)} for {len(originals)}")
    return [document_slots(a, b, store) for a, b in zip(originals, released, strict=True)]
