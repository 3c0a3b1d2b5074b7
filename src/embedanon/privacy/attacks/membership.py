"""Membership from layout: can someone who holds a note tell whether it is in the release?

Every scope keeps a text's layout: its whitespace and line breaks, its punctuation, the case
pattern of each word, the shape of each number (digits are redrawn, their count is kept) and
so its word count and the length of each sentence. An attacker who holds a note compares its
layout with every released record's (:func:`layout_levels`, computed the same way on both; the
attacker knows the tool, so with a layout-normalising mode it normalises the note first) and
scores the note by the closest record:

* 3: some record has the same full layout (every token's kind, case, digit count and
  punctuation, whitespace as it is);
* else 1 + s, s the largest share of sentences with the same word count at the same position
  in a record with as many sentences (sentences end at ``.``, ``?``, ``!`` and line breaks;
  2 when the whole sentence structure matches; a surrogate of another length changes one
  sentence, not the score's level);
* or, when larger, 1 - |w - w'| / (w + 1) for the closest word count w' of a record (1 when
  some record has the same word count).

**The game** (the usual membership game, played on the input itself): for each record i the
attacker scores its note once against the release (i is a member) and once against the release
without record i's text (i is not: every other record of the same kind stays). The figure is
the AUC of the member scores against the non-member scores (Mann-Whitney, ties counted one
half): 0.5 is chance, 1.0 tells every member apart. Records identical as texts count as one
another's copies, as they would for a real attacker.

**The word game** (:func:`word_membership`, played the same way): the attacker who knows the
mechanism also reads the words. It scores its note against each released record of the same
word count by the mechanism's law, the mean over aligned word positions of log P(y | x) (x the
note's word, y the record's; outside plain full scope a word returned as itself counts as
certain where the law gives it no mass, as the words a scope keeps), and takes the best
record. Records of one layout (short, templated notes) tie in the layout game; the words tell
them apart: under ``knn`` a released word is one of the k neighbors of the note's word, so
another note's record rarely fits at every position. The report's membership figure is the
stronger of the two games (decision 0371). A mechanism without an exact law (``laplace``,
``mahalanobis``) is read by its words returned as themselves (:func:`verbatim_evidence`): each
such position scores -log of the word's public frequency, as a rare word that survives says
more than ``the``.

Only scores and counts leave this module, never text.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ...lexicon import word_frequencies
from ...text import LOWER, TITLE, case_code, lookup_key, tokenize

#: Word pairs the word game scores per note at most: a note is compared with a keyed sample of
#: the records of its word count beyond that.
WORD_PAIRS_PER_NOTE = 20_000
#: Cells (notes x records x words) :func:`word_membership` scores at once (float64: 32 MB).
BLOCK_CELLS = 1 << 22
#: The score of a position the law gives no mass, and of a note no record of its length fits.
_FLOOR = math.log(1e-12)

#: The levels of :func:`layout_levels`, finest first.
LEVELS = ("layout", "sentences", "words")
_SENTENCE_END = re.compile(r"[.?!]|\n")
_DIGIT = re.compile(r"\d")
_LETTERS = re.compile(r"[^\W\d_]+")


def layout_levels(text: str) -> tuple[str, tuple[int, ...], int]:
    """The layout of ``text`` at each level of :data:`LEVELS` (no word of it, only shapes).

    Returns:
        ``(layout, sentences, words)``: the full layout as a string of token shapes (a word is
        its case code, a number its digits as ``9`` and each letter run as one
        letter, punctuation and whitespace themselves),
        the word count of each sentence, and the word count.
    """
    shapes: list[str] = []
    sentences: list[int] = []
    current = words = 0
    for token in tokenize(text):
        if token.kind == "word":
            code = case_code(token.text)
            shapes.append("a" if code == LOWER else "A" if code == TITLE else "U")
            current += 1
            words += 1
        elif token.kind in ("number", "mixed"):
            # digits keep their count (the mechanisms redraw each digit); a letter run is one
            # letter, as the mechanism replaces it by a word of another length
            shapes.append(_LETTERS.sub("a", _DIGIT.sub("9", token.text)))
            current += 1
            words += 1
        else:
            shapes.append(token.text)
            if _SENTENCE_END.search(token.text) and current:
                sentences.append(current)
                current = 0
    if current:
        sentences.append(current)
    return "\x1f".join(shapes), tuple(sentences), words


@dataclass(frozen=True, slots=True)
class MembershipFigure:
    """The layout membership attack on one release.

    Attributes:
        records: records played (each once in and once out).
        auc: AUC of member against non-member scores (nan with fewer than 2 records).
        unique_layout: share of records whose full layout no other released record has.
        unique_sentences: the same for the sentence structure.
        unique_words: the same for the word count.
        word_auc: the AUC of the word game (:func:`word_membership`; nan when not played).
    """

    records: int
    auc: float
    unique_layout: float
    unique_sentences: float
    unique_words: float
    word_auc: float = float("nan")

    @property
    def strongest_auc(self) -> float:
        """The AUC of the stronger game (the figure a verdict judges; nan when none was played)."""
        played = [a for a in (self.auc, self.word_auc) if not math.isnan(a)]
        return max(played) if played else float("nan")

    def as_dict(self) -> dict[str, float | int]:
        return {"records": self.records, "auc": self.strongest_auc, "layout_auc": self.auc,
                "word_auc": self.word_auc, "unique_layout": self.unique_layout,
                "unique_sentences": self.unique_sentences, "unique_words": self.unique_words}


def mann_whitney_auc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """P(positive > negative) + P(tie) / 2 over all pairs, exactly (nan when a side is empty)."""
    pos = np.asarray(positives, dtype=np.float64)
    neg = np.sort(np.asarray(negatives, dtype=np.float64))
    if not len(pos) or not len(neg):
        return float("nan")
    below = np.searchsorted(neg, pos, "left")
    at_or_below = np.searchsorted(neg, pos, "right")
    return float((below + 0.5 * (at_or_below - below)).sum() / (len(pos) * len(neg)))


class _Release:
    """The released records' layouts, indexed for the closest-record score."""

    def __init__(self, released: Sequence[str], use: Sequence[str]) -> None:
        unknown = set(use) - set(LEVELS)
        if unknown or "words" not in use:
            raise ValueError(f"levels must include 'words' and be among {LEVELS}, got {tuple(use)}")
        self.use = frozenset(use)
        self.levels = [layout_levels(t) for t in released]
        self.counts: list[Counter[object]] = [Counter(lv[i] for lv in self.levels) for i in range(3)]
        self.word_counts = sorted(lv[2] for lv in self.levels)
        # (sentences, position, words in it) -> records: the sentence level's posting lists
        self.postings: dict[tuple[int, int, int], list[int]] = {}
        for record, lv in enumerate(self.levels):
            for position, words in enumerate(lv[1]):
                self.postings.setdefault((len(lv[1]), position, words), []).append(record)

    def score(self, note: tuple[str, tuple[int, ...], int], without: int | None) -> float:
        """The closest-record score of a note (module docstring), with record ``without`` removed
        from the release (None: the whole release)."""
        own = self.levels[without] if without is not None else None
        if "layout" in self.use and self.counts[0][note[0]] - (own is not None and own[0] == note[0]) > 0:
            return 3.0
        best = self._closeness(note[2], own)
        sentences = note[1]
        if "sentences" in self.use and sentences:
            if self.counts[1][sentences] - (own is not None and own[1] == sentences) > 0:
                return 2.0
            tally: Counter[int] = Counter()
            for position, words in enumerate(sentences):
                tally.update(self.postings.get((len(sentences), position, words), ()))
            tally.pop(without, None)  # type: ignore[arg-type]
            if tally:
                best = max(best, 1.0 + max(tally.values()) / len(sentences))
        return best

    def _closeness(self, words: int, own: tuple[str, tuple[int, ...], int] | None) -> float:
        """1 - |w - w'| / (w + 1) for the closest word count w' of another record (0: none)."""
        pool = self.word_counts
        at = bisect.bisect_left(pool, words)
        gaps = []
        for step, first in ((-1, at - 1), (1, at)):
            j = first
            # the removed record is skipped when it alone has its word count
            if own is not None and 0 <= j < len(pool) and pool[j] == own[2] and self.counts[2][pool[j]] == 1:
                j += step
            if 0 <= j < len(pool):
                gaps.append(abs(pool[j] - words))
        return 1.0 - min(gaps) / (words + 1) if gaps else 0.0


def layout_membership(originals: Sequence[str], released: Sequence[str], *,
                      normalize: Callable[[str], str] | None = None,
                      levels: Sequence[str] = LEVELS) -> MembershipFigure:
    """Play the membership game of the module docstring on a release.

    Args:
        originals: the records' texts (the notes an attacker may hold).
        released: their releases as published, in the same order.
        normalize: the release's public layout normalisation, applied to each note by the attacker
            (None: none).
        levels: the levels the attacker reads (default all; ``("sentences", "words")`` is an
            attacker who ignores the layout itself, to measure what stays without it).

    Returns:
        The AUC and the share of records each level singles out.
    """
    if len(originals) != len(released):
        raise ValueError(f"need one release per record, got {len(released)} for {len(originals)}")
    release = _Release(released, levels)
    members, outsiders = [], []
    for record, original in enumerate(originals):
        note = layout_levels(normalize(original) if normalize is not None else original)
        members.append(release.score(note, None))
        outsiders.append(release.score(note, record))
    n = len(originals)
    unique = [sum(release.counts[i][lv[i]] == 1 for lv in release.levels) / n if n else float("nan")
              for i in range(3)]
    return MembershipFigure(n, mann_whitney_auc(members, outsiders) if n >= 2 else float("nan"), *unique)


def _word_ids(text: str, id_of: Callable[[str], int]) -> np.ndarray:
    """int64 embedding ids of the word tokens of ``text``, -1 for one outside the embedding or
    with a joiner (as :func:`~embedanon.privacy.metrics.word_id_pairs` keeps them)."""
    return np.array([id_of(t.text) if t.text.isalpha() else -1 for t in tokenize(text) if t.kind == "word"],
                    dtype=np.int64)


_WordGame = tuple[list[np.ndarray], list[np.ndarray], list[list[np.ndarray]], dict[int, list[int]]]


def _word_game(originals: Sequence[str], released: Sequence[str], more: Sequence[Sequence[str]],
               id_of: Callable[[str], int]) -> _WordGame | None:
    """The word game's inputs, checked: each note's and each release's word ids, and the records of
    each word count (their indices); None when fewer than two records leave no game."""
    if len(originals) != len(released):
        raise ValueError(f"need one release per record, got {len(released)} for {len(originals)}")
    if len(originals) < 2:
        return None
    for other in more:
        if len(other) != len(originals):
            raise ValueError(f"need one release per record, got {len(other)} for {len(originals)}")
    notes = [_word_ids(t, id_of) for t in originals]
    records = [_word_ids(t, id_of) for t in released]
    extra = [[_word_ids(t, id_of) for t in other] for other in more]
    by_length: dict[int, list[int]] = {}
    for j, ids in enumerate(records):
        by_length.setdefault(len(ids), []).append(j)
    return notes, records, extra, by_length


def word_membership(originals: Sequence[str], released: Sequence[str], *,
                    pairs: Callable[[np.ndarray, np.ndarray], np.ndarray], id_of: Callable[[str], int],
                    kept: bool = False, seed: int = 0, more: Sequence[Sequence[str]] = ()) -> float:
    """Play the word game of the module docstring: the AUC (nan with fewer than 2 records).

    The same game as :func:`word_membership_reference`, score for score (a test compares them), in
    whole blocks: the notes of one word count are scored against the records of that count at
    once, the law evaluated once per distinct (note word, record word) pair of a position. A note
    whose records are sampled (more than :data:`WORD_PAIRS_PER_NOTE` word pairs) is scored alone,
    as in the reference, with the same keyed sample.

    Args:
        originals, released, pairs, id_of, kept, seed, more: as
            :func:`word_membership_reference`.
    """
    game = _word_game(originals, released, more, id_of)
    if game is None:
        return float("nan")
    notes, records, extra, by_length = game
    buckets = {length: np.array(rows, dtype=np.int64) for length, rows in by_length.items()}
    rng = np.random.default_rng(seed)
    members = np.full(len(notes), _FLOOR)
    outsiders = np.full(len(notes), _FLOOR)
    whole: dict[int, list[int]] = {}  # word count -> notes scored against every record of it
    for i, note in enumerate(notes):  # in order: the sampled notes draw as the reference does
        bucket = buckets.get(len(note), np.zeros(0, dtype=np.int64))
        others = bucket[bucket != i]
        cap = max(1, WORD_PAIRS_PER_NOTE // max(1, len(note)))
        if not len(note) or not len(bucket):
            continue  # no word, or no record of its length: the floor, in and out
        if len(others) <= cap:
            whole.setdefault(len(note), []).append(i)
            continue
        others = np.sort(rng.choice(others, size=cap, replace=False))
        fits_own = len(records[i]) == len(note)
        chosen = [i, *others.tolist()] if fits_own else others.tolist()
        scores = _word_scores(note, [records[j] for j in chosen], pairs, kept)
        read = 1
        for release in extra:
            if all(len(release[j]) == len(note) for j in chosen):
                scores = scores + _word_scores(note, [release[j] for j in chosen], pairs, kept)
                read += 1
        scores = scores / read  # the mean over the releases read: one scale for every note
        rest = scores[1:] if fits_own else scores
        outsiders[i] = float(rest.max()) if len(rest) else _FLOOR
        members[i] = max(float(scores[0]) if fits_own else _FLOOR, outsiders[i])
    for length, rows in whole.items():
        bucket = buckets[length]
        matrices = [np.stack([records[j] for j in bucket])]
        matrices += [np.stack([release[j] for j in bucket]) for release in extra
                     if all(len(release[j]) == length for j in bucket)]
        column = {int(j): c for c, j in enumerate(bucket.tolist())}
        # a block costs a few array calls per word position, a note alone a few in all: blocks
        # pay when they hold more notes than words (short notes), not for long unique notes
        block = max(1, BLOCK_CELLS // (len(bucket) * length)) if len(rows) >= length else 1
        for start in range(0, len(rows), block):
            part = rows[start:start + block]
            xs = np.stack([notes[i] for i in part])
            if len(part) == 1:
                scores = _word_scores(xs[0], matrices[0], pairs, kept)[None, :]
                for ys in matrices[1:]:
                    scores = scores + _word_scores(xs[0], ys, pairs, kept)[None, :]
            else:
                scores = _block_scores(xs, matrices[0], pairs, kept)
                for ys in matrices[1:]:
                    scores = scores + _block_scores(xs, ys, pairs, kept)
            scores = scores / len(matrices)
            for r, i in enumerate(part):
                own = column.get(i)
                rest = scores[r] if own is None else np.delete(scores[r], own)
                outsiders[i] = float(rest.max()) if len(rest) else _FLOOR
                members[i] = max(_FLOOR if own is None else float(scores[r, own]), outsiders[i])
    return mann_whitney_auc(members.tolist(), outsiders.tolist())


def word_membership_reference(originals: Sequence[str], released: Sequence[str], *,
                              pairs: Callable[[np.ndarray, np.ndarray], np.ndarray],
                              id_of: Callable[[str], int], kept: bool = False, seed: int = 0,
                              more: Sequence[Sequence[str]] = ()) -> float:
    """Play the word game of the module docstring, note by note: the AUC (nan with fewer than 2
    records). The plain reference of :func:`word_membership`.

    Args:
        originals: the records' texts (the notes an attacker may hold).
        released: their releases as published, in the same order.
        pairs: the mechanism's law, float64 P(y_i | x_i) for aligned int64 word-id arrays
            (:meth:`~embedanon.privacy.attacks.likelihood.Likelihood.pairs`), or another score
            whose log is the evidence of a position (:func:`verbatim_evidence`).
        id_of: word -> embedding id (-1 when absent).
        kept: words outside the mechanism may come back as themselves (a scope other than plain
            ``all``): a word returned as itself is then certain where the law gives it no mass.
            False in plain full scope, where the law is the whole truth (``knn`` never returns
            its input, so a record that does is not the note's).
        seed: picks the records a note is compared with when its word count has more than
            :data:`WORD_PAIRS_PER_NOTE` word pairs of them (the same sample in and out).
        more: further releases of the same records, in the same order, under fresh keys
            (``privacy-report --releases N --fresh-key``). The attacker links a record across
            releases (same place, same layout) and adds its evidence: a record's score is the mean
            over the releases read (those where every compared record kept the note's word count)
            of its mean log-likelihood, so every fresh release sharpens the game and all notes'
            scores stay on one scale for the pooled AUC (decision 0379).
    """
    game = _word_game(originals, released, more, id_of)
    if game is None:
        return float("nan")
    notes, records, extra, by_length = game
    rng = np.random.default_rng(seed)
    members, outsiders = [], []
    for i, note in enumerate(notes):
        others = [j for j in by_length.get(len(note), ()) if j != i]
        cap = max(1, WORD_PAIRS_PER_NOTE // max(1, len(note)))
        if len(others) > cap:
            others = sorted(rng.choice(others, size=cap, replace=False).tolist())
        # the note's own record is a candidate only at its word count: a surrogate of another
        # length (scope detected or hybrid) leaves it to the records of the note's word count
        fits_own = len(records[i]) == len(note)
        chosen = [i, *others] if fits_own else others
        scores = None
        if len(note) and chosen:
            scores = _word_scores(note, [records[j] for j in chosen], pairs, kept)
            read = 1
            for release in extra:  # the same records, linked by place; their words must fit too
                fits = [j for j in chosen if len(release[j]) == len(note)]
                if len(fits) == len(chosen):
                    scores = scores + _word_scores(note, [release[j] for j in chosen], pairs, kept)
                    read += 1
            # the mean over the releases read: the sum ranks a note's records alike, but the
            # AUC pools notes, and a sum of 5 releases beside one of 1 (a record that changed
            # word count in some) or beside the floor (no record) compared two scales
            scores = scores / read
        rest = None if scores is None else scores[1:] if fits_own else scores
        own = _FLOOR if scores is None or not fits_own else float(scores[0])
        best_other = _FLOOR if rest is None or not len(rest) else float(rest.max())
        members.append(max(own, best_other))
        outsiders.append(best_other)
    return mann_whitney_auc(members, outsiders)


def membership_games(originals: Sequence[str], releases: Sequence[Sequence[str]], *,
                     law: Callable[[np.ndarray, np.ndarray], np.ndarray] | None, words: Sequence[str],
                     id_of: Callable[[str], int], kept: bool = False, seed: int = 0) -> MembershipFigure:
    """Both games on a release (what ``privacy-report`` and the review page judge): the layout
    game on the first release (every release keeps the layout) and the word game on all of them,
    by the mechanism's law, or without one (None) by the words returned as themselves
    (:func:`verbatim_evidence`).

    A text given twice is played once: its copy stood in the world "without" it, so a corpus
    with its records twice scored AUC 0.500 and passed while every note was in the release
    (verdict audit, stop 58); a blank text, which no game can tell, is not played.

    Args:
        originals: the records' texts.
        releases: one or more releases of them, each in the same order (more than one: fresh keys).
        law: float64 P(y | x) for aligned word-id arrays (``Likelihood.pairs``), or None.
        words: the embedding's words, by id (for :func:`verbatim_evidence`).
        id_of, kept, seed: as :func:`word_membership`.
    """
    keep = distinct_records(originals)
    if len(keep) < len(originals):
        originals = [originals[i] for i in keep]
        releases = [[release[i] for i in keep] for release in releases]
    figure = layout_membership(originals, releases[0])
    pairs = law if law is not None else verbatim_evidence(words)
    auc = word_membership(originals, releases[0], pairs=pairs, id_of=id_of, kept=kept, seed=seed,
                          more=releases[1:])
    return replace(figure, word_auc=auc)


def distinct_records(originals: Sequence[str]) -> list[int]:
    """The places of the first copy of each distinct text of ``originals`` that is not blank."""
    seen: set[str] = set()
    keep = []
    for i, text in enumerate(originals):
        if text.strip() and text not in seen:
            seen.add(text)
            keep.append(i)
    return keep


def verbatim_evidence(words: Sequence[str]) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """A score for :func:`word_membership` where no exact law is known: 1 / f(x) where the
    released word is the note's word x (f its public frequency, at most 1e-7 for a word outside
    the list), 1 elsewhere (no evidence either way).

    Args:
        words: the embedding's words, by id.
    """
    frequencies = word_frequencies()
    weight = np.array([1.0 / max(frequencies.get(lookup_key(w), 0.0), 1e-7) for w in words], dtype=np.float64)

    def pairs(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        return np.where(xs == ys, weight[xs], 1.0)

    return pairs


def _block_scores(xs: np.ndarray, ys: np.ndarray, pairs: Callable[[np.ndarray, np.ndarray], np.ndarray],
                  kept: bool) -> np.ndarray:
    """float64 (b, c): :func:`_word_scores` of each of b notes against each of c records, all of
    one word count w (``xs`` int64 (b, w), ``ys`` int64 (c, w)), with the same arithmetic: the law
    is evaluated once per distinct (note word, record word) pair of a position and gathered."""
    logs = np.zeros((len(xs), len(ys), xs.shape[1]))
    counted = np.zeros((len(xs), len(ys)), dtype=np.int64)
    for t in range(xs.shape[1]):
        ux, ix = np.unique(xs[:, t], return_inverse=True)
        uy, iy = np.unique(ys[:, t], return_inverse=True)
        ux_in, uy_in = ux[ux >= 0], uy[uy >= 0]
        table = np.zeros((len(ux), len(uy)))  # log P(uy | ux); 0 where a word is outside (not counted)
        if len(ux_in) and len(uy_in):
            grid_x = np.repeat(ux_in, len(uy_in))
            grid_y = np.tile(uy_in, len(ux_in))
            p = pairs(grid_x, grid_y)
            if kept:
                p = np.where((p <= 0) & (grid_x == grid_y), 1.0, p)
            values = np.maximum(np.log(np.maximum(p, 1e-300)), _FLOOR)
            table[np.ix_(ux >= 0, uy >= 0)] = values.reshape(len(ux_in), len(uy_in))
        logs[:, :, t] = table[ix.reshape(-1)[:, None], iy.reshape(-1)[None, :]]
        counted += (xs[:, t] >= 0)[:, None] & (ys[:, t] >= 0)[None, :]
    return np.where(counted > 0, logs.sum(axis=2) / np.maximum(counted, 1), _FLOOR)


def _word_scores(note: np.ndarray, candidates: list[np.ndarray] | np.ndarray,
                 pairs: Callable[[np.ndarray, np.ndarray], np.ndarray], kept: bool) -> np.ndarray:
    """float64 (len(candidates),): mean log P(candidate's word | note's word) over the positions
    where both words are in the embedding (with ``kept``, a word returned as itself is certain
    where the law gives it no mass; a position of no mass scores :data:`_FLOOR`; no such
    position: the floor)."""
    ys = np.stack(candidates) if isinstance(candidates, list) else candidates  # (c, w): the note's count
    xs = np.broadcast_to(note, ys.shape)
    both = (xs >= 0) & (ys >= 0)
    logs = np.full(ys.shape, _FLOOR)
    if both.any():
        p = pairs(xs[both], ys[both])
        if kept:
            p = np.where((p <= 0) & (xs[both] == ys[both]), 1.0, p)
        logs[both] = np.maximum(np.log(np.maximum(p, 1e-300)), _FLOOR)
    counted = both.sum(axis=1)
    return np.where(counted > 0, (logs * both).sum(axis=1) / np.maximum(counted, 1), _FLOOR)
