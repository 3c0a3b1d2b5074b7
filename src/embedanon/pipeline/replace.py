"""The fast path: replace every word part and code of a chunk of texts at once.

All texts of a chunk are split, planned (:mod:`.plan`) and replaced with one vectorised mechanism
call; each word part's noise is addressed by (record tag, stage, its ordinal among the word parts
of its text), each code character's by its ordinal among the code characters of its text
(:mod:`embedanon.noise`), so a text's output is the same whatever else is in the chunk.
:mod:`.reference` does the same one token at a time; a property test holds the two equal.

Stages (each its own counter space):

* ``MECHANISM``: words of the embedding and proxies of placed out-of-vocabulary words;
* ``FALLBACK``: out-of-vocabulary words that could not be placed get a uniform candidate;
* ``GUARD``: when the mechanism never returns its input (``knn``), an output that is a variant of
  an out-of-vocabulary original is redrawn from the word's guarded candidates (stream = attempt);
* ``CODES``: one uniform per digit/letter of numbers and codes;
* ``DOMAIN``: the top-level domain of an e-mail or URL host (a word of the embedding) is drawn
  from a public list instead of by the mechanism (:mod:`.domains`), at its word part's position.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from ..noise import NoiseSource, Stage, integers, uniform
from ..text import split_joined, split_words
from .codes import replace_code
from .domains import tld_starts
from .plan import Composite, Plan, Word
from .runtime import GUARD_ATTEMPTS, Runtime

STAGE_NAMES = {Stage.MECHANISM: "mechanism", Stage.FALLBACK: "fallback", Stage.GUARD: "guard",
               Stage.CODES: "codes", Stage.DOMAIN: "domain"}


@dataclass(frozen=True, slots=True)
class Item:
    """One span the pipeline replaced.

    Attributes:
        start, end: offsets of the original span in the input text.
        new_start, new_end: offsets of its replacement in the output text.
        kind: ``word`` (a word part), ``code`` (digits/letters of a number or code),
            ``surrogate`` or ``redact`` (a detected span, see :mod:`.scope`), ``guard`` (a word
            part hybrid scope's name guard redrew, see :mod:`.nameguard`).
        stage: which stage chose the replacement: ``mechanism``, ``fallback``, ``guard``,
            ``codes``, ``domain``, ``surrogate``, ``redact``, ``name-guard``. Under a metric-DP
            mechanism the new text may equal the old one.
        label: the label of the detected span the item replaces or lies in (a surrogate, a
            redaction, or a word the mechanism replaced inside a detected span); None outside
            detected spans.
    """

    start: int
    end: int
    new_start: int
    new_end: int
    kind: str
    stage: str
    label: str | None = None


def replace_texts(rt: Runtime, source: NoiseSource, texts: list[str], tags: np.ndarray, *,
                  with_items: bool = False) -> tuple[list[str], list[list[Item]] | None]:
    """Anonymize ``texts`` (record tags ``tags``, uint8 (n, 9)) in full scope.

    Returns:
        The new texts, and per text its items when ``with_items`` (else None).
    """
    splits = [split_words(text) for text in texts]
    counts = [len(pieces) >> 1 for pieces in splits]
    tokens = [tok for pieces in splits for tok in pieces[1::2]]
    plans = rt.lexicon.plans(tokens)
    codes = rt.lexicon.codes(tokens)
    n_words = rt.lexicon.n_words
    domains = _domain_tokens(rt, texts, splits, plans)
    if not with_items and (not len(codes) or codes.min() >= 0):
        # every token is one word of the embedding: fully vectorised
        new = _replace_simple(rt, source, codes, counts, tags, n_words, domains)
        pos = 0
        for pieces, n in zip(splits, counts, strict=True):
            if n:
                pieces[1::2] = new[pos : pos + n]
                pos += n
        return ["".join(pieces) for pieces in splits], None
    return _replace_general(rt, source, splits, counts, plans, codes, tags, with_items, domains)


def _domain_tokens(rt: Runtime, texts: list[str], splits: list[list[str]], plans: list[Plan]) -> np.ndarray:
    """Indices (over all tokens of the chunk) of the top-level domains of hosts (one word each)."""
    if not rt.tld_ids:
        return np.zeros(0, dtype=np.int64)
    out: list[int] = []
    first = 0  # index of the text's first token in the chunk
    for text, pieces in zip(texts, splits, strict=True):
        starts = tld_starts(text)
        if starts:
            wanted = set(starts)
            at = 0
            for j, piece in enumerate(pieces):
                if j % 2 and at in wanted and _one_word(plans[first + j // 2]):
                    out.append(first + j // 2)
                at += len(piece)
        first += len(pieces) >> 1
    return np.array(out, dtype=np.int64)


def _one_word(plan: Plan) -> bool:
    return type(plan) is int or (len(plan.parts) == 1 and type(plan.parts[0]) is Word)  # type: ignore[union-attr]


def _draw_domains(rt: Runtime, source: NoiseSource, unit_tags: np.ndarray, ordinals: np.ndarray,
                  originals: np.ndarray, current: np.ndarray) -> np.ndarray:
    """Word ids of public top-level domains for the given units, never the unit's own word
    (``current``, the mechanism's output, where the list has no other candidate)."""
    tlds = np.array(rt.tld_ids, dtype=np.int64)
    own = np.full(len(originals), len(tlds), dtype=np.int64)
    hit = originals[:, None] == tlds[None, :]
    own[hit.any(axis=1)] = hit.argmax(axis=1)[hit.any(axis=1)]
    size = np.where(own < len(tlds), len(tlds) - 1, len(tlds))
    pick = integers(source.noise(unit_tags, Stage.DOMAIN, ordinals), np.maximum(size, 1))
    pick = pick + (pick >= own)
    return np.where(size > 0, tlds[np.minimum(pick, len(tlds) - 1)], current)


def _replace_simple(rt: Runtime, source: NoiseSource, codes: np.ndarray, counts: list[int],
                    tags: np.ndarray, n_words: int, domains: np.ndarray) -> list[str]:
    ids = codes % n_words
    rows, ordinals = _addresses(counts)
    out = rt.mechanism.sample(ids, source.noise(tags[rows], Stage.MECHANISM, ordinals))
    if len(domains):
        out[domains] = _draw_domains(rt, source, tags[rows[domains]], ordinals[domains], ids[domains],
                                     out[domains])
    return list(map(rt.forms.__getitem__, (codes - ids + out).tolist()))


def _addresses(counts: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """For items grouped by text (``counts[t]`` for text t): text row and ordinal in the text."""
    n = np.asarray(counts, dtype=np.int64)
    rows = np.repeat(np.arange(len(n)), n)
    starts = np.cumsum(n) - n
    return rows, np.arange(int(n.sum())) - np.repeat(starts, n)


def _replace_general(rt: Runtime, source: NoiseSource, splits: list[list[str]], counts: list[int],
                     plans: list[Plan], codes: np.ndarray, tags: np.ndarray, with_items: bool,
                     domains: np.ndarray) -> tuple[list[str], list[list[Item]] | None]:
    n_words = rt.lexicon.n_words
    n_tok = len(plans)
    # Word units in token order: one per int plan, len(words) per composite plan.
    is_int = codes >= 0
    composite = np.flatnonzero(~is_int).tolist()
    units_per_token = np.ones(n_tok, dtype=np.int64)
    chars_per_token = np.zeros(n_tok, dtype=np.int64)
    comps: list[Composite] = [plans[j] for j in composite]  # type: ignore[misc]
    words_per_comp = np.fromiter(map(len, (c.words for c in comps)), dtype=np.int64, count=len(comps))
    units_per_token[composite] = words_per_comp
    chars_per_token[composite] = [c.n_chars for c in comps]
    unit_start = np.cumsum(units_per_token) - units_per_token
    ids = np.empty(int(units_per_token.sum()), dtype=np.int64)
    cases = np.empty_like(ids)
    simple = codes[is_int]
    at_simple = unit_start[is_int]
    ids[at_simple] = simple % n_words
    cases[at_simple] = simple // n_words
    # the word units of composite tokens: each token's run starts at its unit_start
    comp_words = [word for comp in comps for word in comp.words]
    n_comp = len(comp_words)
    first = np.cumsum(words_per_comp) - words_per_comp
    comp_units = (np.repeat(unit_start[composite] - first, words_per_comp)
                  + np.arange(n_comp, dtype=np.int64))
    ids[comp_units] = np.fromiter((w.word_id for w in comp_words), dtype=np.int64, count=n_comp)
    cases[comp_units] = np.fromiter((w.case for w in comp_words), dtype=np.int64, count=n_comp)
    # out-of-vocabulary word parts: their outputs are checked against the original
    oov = [(u, w) for u, w in zip(comp_units.tolist(), comp_words, strict=True) if w.guard is not None]
    starts = unit_start[composite].tolist()
    unit_counts = _per_text(units_per_token, counts)

    stages = np.full(len(ids), int(Stage.MECHANISM), dtype=np.int64)
    out = np.empty(len(ids), dtype=np.int64)
    rows, ordinals = _addresses(unit_counts)
    placed = ids >= 0
    if placed.any():
        at = np.flatnonzero(placed)
        out[at] = rt.mechanism.sample(ids[at], source.noise(tags[rows[at]], Stage.MECHANISM,
                                                            ordinals[at]))
    if not placed.all():
        at = np.flatnonzero(~placed)
        noise = source.noise(tags[rows[at]], Stage.FALLBACK, ordinals[at])
        out[at] = rt.index.candidates[integers(noise, rt.index.n_candidates)]
        stages[at] = int(Stage.FALLBACK)
    if rt.guard and oov:
        _guard(rt, source, oov, out, stages, tags[rows], ordinals)
    if len(domains):
        units = unit_start[domains]
        own = np.where(is_int[domains], ids[units], -1)  # a word outside the embedding is in no list
        out[units] = _draw_domains(rt, source, tags[rows[units]], ordinals[units], own, out[units])
        stages[units] = int(Stage.DOMAIN)
    unit_forms = list(map(rt.forms.__getitem__, (cases * n_words + out).tolist()))

    code_chars = [chars for comp in comps for chars in comp.chars]
    code_rows, code_ordinals = _addresses(_per_text(chars_per_token, counts))
    draws = uniform(source.noise(tags[code_rows], Stage.CODES, code_ordinals), 1)[:, 0].tolist()
    code_outs = []
    at_char = 0
    for chars in code_chars:
        code_outs.append(replace_code(chars, draws[at_char : at_char + len(chars)]))
        at_char += len(chars)
    if with_items:
        stage_names = [STAGE_NAMES[Stage(s)] for s in stages.tolist()]
        return _rebuild(splits, counts, plans, unit_forms, code_outs, stage_names, True)

    # Text only: every token's new text, composite tokens joined from their parts.
    unit_forms.append("")  # a token without word parts at the very end points past the last unit
    new_tokens = list(map(unit_forms.__getitem__, unit_start.tolist()))
    ci = 0
    for j, comp, u in zip(composite, comps, starts, strict=True):
        if len(comp.parts) == 1 and type(comp.parts[0]) is Word:
            continue  # one word part (an out-of-vocabulary word): its unit's form, set above
        buf = []
        for part in comp.parts:
            if type(part) is str:
                buf.append(part)
            elif type(part) is Word:
                buf.append(unit_forms[u])
                u += 1
            else:
                buf.append(code_outs[ci])
                ci += 1
        new_tokens[j] = "".join(buf)
    texts = []
    pos = 0
    for pieces, n in zip(splits, counts, strict=True):
        if n:
            pieces[1::2] = new_tokens[pos : pos + n]
            pos += n
        texts.append("".join(pieces))
    return texts, None


def _per_text(per_token: np.ndarray, counts: list[int]) -> list[int]:
    """Sums of ``per_token`` over each text's tokens (``counts[t]`` tokens for text t)."""
    total = np.concatenate([[0], np.cumsum(per_token)])
    bounds = np.concatenate([[0], np.cumsum(np.asarray(counts, dtype=np.int64))])
    return (total[bounds[1:]] - total[bounds[:-1]]).tolist()


def _guard(rt: Runtime, source: NoiseSource, oov: list[tuple[int, Word]], out: np.ndarray,
           stages: np.ndarray, unit_tags: np.ndarray, ordinals: np.ndarray) -> None:
    """Redraw outputs that are variants of their out-of-vocabulary original (see module doc).

    A unit's redraws use the ``GUARD`` stage at its own position, attempt ``a`` in stream ``a``;
    the first attempt of every unit of the chunk is drawn in one call (the same numbers as one
    call per unit: noise is addressed, not streamed).
    """
    is_variant = rt.is_variant  # cached: a word's outputs repeat (at most k under knn)
    outs = out.tolist()
    hits = [(unit, word) for unit, word in oov
            if is_variant(word.guard, outs[unit])]  # type: ignore[arg-type]  # guard is set
    if not hits:
        return
    units = np.array([unit for unit, _ in hits], dtype=np.int64)
    stages[units] = int(Stage.GUARD)
    noise = source.noise(unit_tags[units], Stage.GUARD, ordinals[units])
    n_candidates = rt.index.n_candidates
    sizes = np.array([len(word.safe) or n_candidates for _, word in hits], dtype=np.int64)
    first = integers(noise, sizes).tolist()
    for j, (unit, word) in enumerate(hits):
        if word.safe:  # guarded candidates: none is a variant
            out[unit] = word.safe[first[j]]
            continue
        assert word.guard is not None
        pick = int(rt.index.candidates[first[j]])
        attempt = 1
        while is_variant(word.guard, pick):
            if attempt == GUARD_ATTEMPTS:
                raise ConfigError("the candidate vocabulary has no word that is not a variant of the input")
            one = noise.take(np.array([j]))
            pick = int(rt.index.candidates[integers(one, n_candidates, attempt)[0]])
            attempt += 1
        out[unit] = pick


def _rebuild(splits: list[list[str]], counts: list[int], plans: list[Plan], unit_forms: list[str],
             code_outs: list[str], stage_names: list[str],
             with_items: bool) -> tuple[list[str], list[list[Item]] | None]:
    texts: list[str] = []
    all_items: list[list[Item]] | None = [] if with_items else None
    ui = ci = pos = 0
    for pieces, n in zip(splits, counts, strict=True):
        items: list[Item] = []
        old_at = new_at = 0
        for j in range(n):
            gap = len(pieces[2 * j])
            old_at += gap
            new_at += gap
            token = pieces[2 * j + 1]
            plan = plans[pos + j]
            if type(plan) is int:
                new = unit_forms[ui]
                if with_items:
                    items.append(Item(old_at, old_at + len(token), new_at, new_at + len(new), "word",
                                      stage_names[ui]))
                ui += 1
            else:
                buf = []
                # One plan part per non-empty joiner-split piece of the token (see plan._parts).
                originals = [p for p in split_joined(token) if p] if with_items else []
                o, w = old_at, new_at
                for k, part in enumerate(plan.parts):  # type: ignore[union-attr]
                    if type(part) is str:
                        piece = part
                    elif type(part) is Word:
                        piece = unit_forms[ui]
                        if with_items:
                            items.append(Item(o, o + len(originals[k]), w, w + len(piece), "word",
                                              stage_names[ui]))
                        ui += 1
                    else:
                        piece = code_outs[ci]
                        if with_items:
                            items.append(Item(o, o + len(originals[k]), w, w + len(piece), "code",
                                              "codes"))
                        ci += 1
                    buf.append(piece)
                    if with_items:
                        o += len(originals[k])
                        w += len(piece)
                new = "".join(buf)
            pieces[2 * j + 1] = new
            old_at += len(token)
            new_at += len(new)
        pos += n
        texts.append("".join(pieces))
        if all_items is not None:
            all_items.append(items)
    return texts, all_items
