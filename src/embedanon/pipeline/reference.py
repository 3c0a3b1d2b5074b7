"""The plain reference: one record, one token at a time, written for clarity, not speed.

:func:`reference_document` must give exactly what the fast path (:mod:`.replace`) gives for the
same (text, config, key); a property test holds the two equal. It shares with the fast
path only what has tests of its own: the tokenizer, the mechanism, the out-of-vocabulary
placement (:meth:`.plan.Lexicon.place`, tested against exact search), the leak guard and the
noise. The order of operations is spelled out here:

1. tokenize; whitespace and punctuation are kept;
2. cut each alphanumeric token at its joiners (``'`` ``’`` ``-``), keeping them;
3. a piece of letters is a word part, unless it is an English clitic after an apostrophe; the
   n-th word part of the record is replaced with the noise at position n of each stage;
4. any other piece is a code: its m-th drawn character (counted over the record) gets the
   uniform at position m of the ``CODES`` stage;
5. a token that is the top-level domain of an e-mail or URL host (:func:`.domains.tld_starts`)
   and a word of the embedding is the n-th word part too, but gets a uniform choice among the
   public top-level domains other than itself at position n of the ``DOMAIN`` stage;
6. with ``neutral_formats`` (the default), the phones and IDs the ``regex`` rules find
   (:func:`.scope.format_spans`) are then replaced as hybrid-scope surrogates over that
   token-by-token release (:func:`.scope.assemble`, which has tests of its own); role labels
   are not kept there, every word stays the mechanism's.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..config import AnonymizerConfig
from ..noise import NoiseSource, ReleaseKey, Stage, integers, uniform
from ..text import JOINERS, apply_case, case_code, is_clitic, is_word_part, lookup_key, split_joined, tokenize
from .codes import code_chars, replace_code
from .document import AnonymizedDocument, record_identity
from .domains import tld_starts
from .replace import STAGE_NAMES, Item
from .runtime import Runtime, get_runtime
from .scope import assemble, format_spans


def reference_document(text: str, config: AnonymizerConfig, key: ReleaseKey) -> AnonymizedDocument:
    """Anonymize ``text`` token by token (see the module docstring)."""
    rt = get_runtime(config)
    source = rt.source(key)
    tag = source.tags([record_identity(text)])
    out: list[str] = []
    items: list[Item] = []
    word_no = char_no = 0
    new_at = 0
    domains = set(tld_starts(text))
    for token in tokenize(text):
        if token.kind in ("space", "punct"):
            out.append(token.text)
            new_at += len(token.text)
            continue
        pieces = [p for p in split_joined(token.text) if p]
        at = token.start
        for i, piece in enumerate(pieces):
            if len(piece) == 1 and piece in JOINERS:
                new = piece
            elif is_word_part(piece) and not is_clitic(pieces, i):
                domain = token.start in domains and len(pieces) == 1
                new, stage = (_replace_domain(rt, source, tag, word_no, piece) if domain
                              else _replace_word(rt, source, tag, word_no, piece))
                items.append(Item(at, at + len(piece), new_at, new_at + len(new), "word", stage))
                word_no += 1
            elif is_word_part(piece):
                new = piece  # a clitic
            else:
                chars = code_chars(piece)
                noise = source.noise(np.repeat(tag, len(chars), axis=0), Stage.CODES,
                                     np.arange(char_no, char_no + len(chars)))
                new = replace_code(chars, uniform(noise, 1)[:, 0].tolist())
                items.append(Item(at, at + len(piece), new_at, new_at + len(new), "code", "codes"))
                char_no += len(chars)
            out.append(new)
            at += len(piece)
            new_at += len(new)
    released = "".join(out)
    found = format_spans(text) if config.scope.scope == "all" and config.scope.neutral_formats else []
    if not found:
        return AnonymizedDocument(released, tuple(items))
    hybrid = replace(config.scope, scope="hybrid")
    new_text, new_items = assemble(text, released, tuple(items), found, hybrid, key,
                                   key.record_prf("surrogate-record", record_identity(text)),
                                   keep_roles=False)
    return AnonymizedDocument(new_text, new_items)




def _replace_domain(rt: Runtime, source: NoiseSource, tag: np.ndarray, n: int,
                    piece: str) -> tuple[str, str]:
    word_id = rt.store.id_of(lookup_key(piece))
    others = [t for t in rt.tld_ids if t != word_id]
    if not others:
        return _replace_word(rt, source, tag, n, piece)
    pick = int(integers(source.noise(tag, Stage.DOMAIN, np.array([n])), len(others))[0])
    return apply_case(rt.store.words[others[pick]], case_code(piece)), STAGE_NAMES[Stage.DOMAIN]


def _replace_word(rt: Runtime, source: NoiseSource, tag: np.ndarray, n: int,
                  piece: str) -> tuple[str, str]:
    key = lookup_key(piece)
    word_id = rt.store.id_of(key)
    guard: str | None = None
    safe: tuple[int, ...] = ()
    if word_id < 0:  # outside the embedding: its proxy, if it can be placed
        guard = key
        placed = rt.lexicon.place([key])
        word_id, safe = placed.get(key, (-1, ()))
    position = np.array([n])
    if word_id >= 0:
        out = int(rt.mechanism.sample(np.array([word_id]), source.noise(tag, Stage.MECHANISM, position))[0])
        stage = Stage.MECHANISM
    else:
        noise = source.noise(tag, Stage.FALLBACK, position)
        out = int(rt.index.candidates[integers(noise, rt.index.n_candidates)[0]])
        stage = Stage.FALLBACK
    if rt.guard and guard is not None and rt.is_variant(guard, out):
        stage = Stage.GUARD
        out = rt.guarded_pick(source.noise(tag, Stage.GUARD, position), guard, safe)
    return apply_case(rt.store.words[out], case_code(piece)), STAGE_NAMES[stage]
