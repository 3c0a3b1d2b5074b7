"""Hybrid scope's name guard: a word written like a name never comes back as itself.

In hybrid scope the detectors' spans get surrogates and every other word goes through the
mechanism. A metric-DP mechanism at a readable epsilon returns many words unchanged (exponential,
epsilon 14: 41 % of the words of the real-text dev half), and so most of the names the detectors
miss go out verbatim. The guard (decision 0380): a word part that

* starts with a capital letter and has two letters or more,
* is not a title (``Dr``, ``Sir``), a weekday or month, or the name of a group
  (:func:`embedanon.lexicon.group_names`: countries, US states, nationals), and
* reads as a name (:func:`embedanon.lexicon.name_like`), or is written in title case inside a
  sentence (not its first word, :func:`embedanon.text.opens_sentence`) and is not among the
  :data:`FREQUENT_RANK` most frequent public English words;

and whose mechanism output is the word itself or a variant of it (:mod:`embedanon.leakguard`),
is replaced by a uniform pick among its :data:`~.plan.SAFE_K` nearest candidates that are not
variants of it: the ``knn`` mechanism's law (Abdalla et al. 2020), drawn with the noise of stage
``SHAPE`` at the word part's position (the position its ``MECHANISM`` noise has). A word outside
the embedding takes the guarded candidates of its placement; one that cannot be placed, uniform
candidates that are not variants of it (stream = attempt).

Law. For a guarded word x and mechanism M: P(y | x) = P_M(y | x) for every y that is not a
variant of x, plus P_M(variants of x | x) / k for each of x's k guarded neighbors; never a
variant of x. Which words are guarded depends on the original word (its case, its place in the
sentence, whether it is a listed name), so these words are **not** covered by the mechanism's
epsilon statement: their items are of kind ``guard`` (stage ``name-guard``), not a mechanism
kind, so ``privacy-report`` counts them apart from the mechanism's words, as it counts
surrogates, and the attacks on the mechanism do not see them. A mechanism that never returns its
input (``knn``) needs no guard: nothing changes there.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .._english import TITLES
from ..lexicon import group_names, name_like, word_ranks
from ..noise import NoiseSource, Stage
from ..text import apply_case, case_code, lookup_key, opens_sentence
from .plan import SAFE_K
from .replace import Item
from .runtime import Runtime

#: The kind and stage of a guarded word's item (not a mechanism kind: see the module doc).
GUARD_KIND = "guard"
GUARD_STAGE = "name-guard"
#: Words among this many most frequent public English words are capitalised for their place
#: (``The``, ``What`` after a dash or a heading), unless they read as names.
FREQUENT_RANK = 1_000
#: Calendar words: a capital is their spelling, and a weekday or month alone tells no one apart.
CALENDAR = frozenset((
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january",
    "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december",
))  # fmt: skip


def guarded_shape(text: str, start: int, end: int) -> bool:
    """Whether the word part ``text[start:end]`` is written like a name (see the module doc)."""
    word = text[start:end]
    if len(word) < 2 or not word[0].isupper():
        return False
    kind = _word_class(word)
    return kind == _ALWAYS or kind == _INSIDE and not opens_sentence(text, start)


_NEVER, _ALWAYS, _INSIDE = 0, 1, 2


@lru_cache(maxsize=1 << 16)
def _word_class(word: str) -> int:
    """What the guard makes of a capitalised word wherever it stands: never guarded, always, or
    only inside a sentence (the word alone decides; the cache saves the list lookups)."""
    key = word.lower()
    if key in TITLES or key in CALENDAR or key in group_names():
        return _NEVER
    if name_like(word):
        return _ALWAYS
    if word.isupper() or word_ranks().get(key, FREQUENT_RANK) < FREQUENT_RANK:
        return _NEVER
    return _INSIDE


def guard_names(rt: Runtime, source: NoiseSource, tags: np.ndarray, texts: list[str],
                outs: list[str], items: list[list[Item]]) -> tuple[list[str], list[list[Item]]]:
    """Apply the guard to full-scope replacements: ``texts[i]`` released as ``outs[i]`` with
    ``items[i]``, its noise addressed by record tag ``tags[i]`` (uint8 (n, 9)).

    Returns the new texts and items (the inputs are not changed). Only word items are looked at;
    the n-th word item of a text is its n-th word part, the position of its noise.
    """
    if not rt.mechanism.may_return_input:
        return outs, items
    table = rt.index.table(SAFE_K)
    new_outs: list[str] = []
    new_items: list[list[Item]] = []
    for tag, text, out, its in zip(tags, texts, outs, items, strict=True):
        # the word parts to redraw: (item index, ordinal among the word items, key)
        targets: list[tuple[int, int, str]] = []
        ordinal = -1
        for i, item in enumerate(its):
            if item.kind != "word":
                continue
            ordinal += 1
            if not text[item.start].isupper() or not guarded_shape(text, item.start, item.end):
                continue
            key = lookup_key(text[item.start:item.end])
            if _is_variant(rt, key, lookup_key(out[item.new_start:item.new_end])):
                targets.append((i, ordinal, key))
        if not targets:
            new_outs.append(out)
            new_items.append(its)
            continue
        redrawn = {i: apply_case(rt.store.words[_redraw(rt, table, source, tag, n, key)],
                                 case_code(text[its[i].start:its[i].end]))
                   for i, n, key in targets}
        # rebuild from the first redrawn item on, shifting the offsets after each redraw
        first = targets[0][0]
        pieces: list[str] = []
        at = shift = 0
        moved = list(its[:first])
        for i in range(first, len(its)):
            item = its[i]
            new = redrawn.get(i)
            if new is None:
                moved.append(item if not shift else Item(item.start, item.end, item.new_start + shift,
                                                         item.new_end + shift, item.kind, item.stage,
                                                         item.label))
                continue
            pieces += [out[at:item.new_start], new]
            at = item.new_end
            begin = item.new_start + shift
            moved.append(Item(item.start, item.end, begin, begin + len(new), GUARD_KIND, GUARD_STAGE,
                              item.label))
            shift += len(new) - (item.new_end - item.new_start)
        pieces.append(out[at:])
        new_outs.append("".join(pieces))
        new_items.append(moved)
    return new_outs, new_items


def _is_variant(rt: Runtime, key: str, released: str) -> bool:
    word_id = rt.store.id_of(released)
    if word_id >= 0:
        return rt.is_variant(key, word_id)
    return released == key


def _redraw(rt: Runtime, table: np.ndarray, source: NoiseSource, tag: np.ndarray, ordinal: int,
            key: str) -> int:
    """A uniform pick among the guarded neighbors of word ``key`` (``table``: the leak-guarded
    neighbor table, see the module doc)."""
    noise = source.noise(tag[None, :], Stage.SHAPE, np.array([ordinal]))
    word_id = rt.store.id_of(key)
    if word_id >= 0:
        return rt.guarded_pick(noise, key, table[word_id])
    placed = rt.lexicon.place([key]).get(key)
    return rt.guarded_pick(noise, key, placed[1] if placed is not None else ())
