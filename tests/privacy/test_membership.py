"""The layout and word membership attacks: exact on hand-made releases, the layout index against a
plain reference."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

import numpy as np
import pytest

from embedanon.privacy.attacks.membership import (
    LEVELS,
    _Release,
    layout_levels,
    layout_membership,
    mann_whitney_auc,
    word_membership,
    word_membership_reference,
)


def test_layout_levels_keep_shapes_only() -> None:
    layout, sentences, words = layout_levels("Mr. Smith, 45, said: ok!\nBP 120/80 x2")
    assert (sentences, words) == ((1, 4, 4), 9)
    again = layout_levels("Pm. Bruce, 81, told: ab!\nPT 657/86 q7")
    assert again[0] == layout  # same case codes, digit counts and punctuation, other words
    assert layout_levels("Mr. Smith, 45, said: ok!\nBP 120/80 x2 ")[0] != layout  # whitespace counts


def test_mann_whitney_auc_counts_pairs_with_ties_half() -> None:
    rng = np.random.default_rng(0)
    pos, neg = rng.integers(0, 4, 30).tolist(), rng.integers(0, 4, 20).tolist()
    pairs = [(p > n) + 0.5 * (p == n) for p, n in itertools.product(pos, neg)]
    assert mann_whitney_auc(pos, neg) == pytest.approx(sum(pairs) / len(pairs), abs=1e-12)
    assert np.isnan(mann_whitney_auc([], [1.0]))


def test_a_release_that_keeps_layout_tells_every_member() -> None:
    notes = ["Seen today. Pain is better.", "No fever.\nCough at night, mild.", "BP 120/80. Stable!"]
    released = ["Heard soon. Ache was nicer.", "Any cold.\nCold to day, wild.", "PT 657/86. Able!"]
    figure = layout_membership(notes, released)
    assert figure.auc == 1.0 and figure.unique_layout == 1.0


def test_negative_control_identical_layouts_are_chance() -> None:
    """Every record has the same layout: with or without its own release, the note finds its
    twin, so member and non-member scores tie and the AUC is exactly 0.5."""
    notes = ["Alpha beta gamma.", "Delta epsilon zeta.", "Eta theta iota."]
    released = ["Kappa lambda mu.", "Nu xi omicron.", "Pi rho sigma."]
    figure = layout_membership(notes, released)
    assert figure.auc == 0.5 and figure.unique_layout == 0.0


def _reference_score(note, levels, use, without):
    """Plain reference of the closest-record score: every record compared in turn."""
    best = 0.0
    for j, lv in enumerate(levels):
        if j == without:
            continue
        if "layout" in use and lv[0] == note[0]:
            best = max(best, 3.0)
        if "sentences" in use and note[1] and len(lv[1]) == len(note[1]):
            same = sum(a == b for a, b in zip(lv[1], note[1]))
            if same:
                best = max(best, 1.0 + same / len(note[1]))
        best = max(best, 1.0 - abs(lv[2] - note[2]) / (note[2] + 1))
    return best


@pytest.mark.parametrize("use", [LEVELS, ("sentences", "words"), ("words",)])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_indexed_score_equals_the_plain_reference(use: tuple[str, ...], seed: int) -> None:
    rng = random.Random(seed)

    def text() -> str:
        sentences = [" ".join(rng.choice(["ab", "Cd", "EF", "12"]) for _ in range(rng.randint(1, 3)))
                     for _ in range(rng.randint(1, 3))]
        return rng.choice([". ", ".\n"]).join(sentences) + "."

    released = [text() for _ in range(40)]
    release = _Release(released, use)
    for _ in range(60):
        note = layout_levels(text())
        for without in (None, rng.randrange(40)):
            assert release.score(note, without) == pytest.approx(
                _reference_score(note, release.levels, use, without), abs=1e-12)


def test_levels_must_include_the_word_count() -> None:
    with pytest.raises(ValueError, match="words"):
        layout_membership(["a"], ["b"], levels=("layout",))


# A toy knn law over eight words: each word's two neighbors, 1/2 each (never itself).
_WORDS = ["red", "blue", "cat", "dog", "hot", "cold", "sun", "moon"]
_NEIGHBORS = {0: (1, 2), 1: (0, 3), 2: (3, 0), 3: (2, 1), 4: (5, 6), 5: (4, 7), 6: (7, 4), 7: (6, 5)}


def _toy_law(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    return np.array([0.5 if y in _NEIGHBORS[x] else 0.0 for x, y in zip(xs.tolist(), ys.tolist(), strict=True)])


def _toy_id(word: str) -> int:
    return _WORDS.index(word.lower()) if word.lower() in _WORDS else -1


def _toy_release(note: str, pick: int) -> str:
    words = note.rstrip(".").split()
    return " ".join(_WORDS[_NEIGHBORS[_toy_id(w)][pick]] for w in words).capitalize() + "."


def test_the_word_game_tells_members_that_share_one_layout() -> None:
    """Privacy audit: records of one layout (short templated notes) tie in the layout game (AUC
    0.5, a verdict PASS), but under a knn law a released word is a neighbor of the note's own
    word, so only the note's own record fits every position: the word game's AUC is 1."""
    notes = ["Red hot sun.", "Cat cold moon.", "Dog hot red.", "Blue sun cat."]
    released = [_toy_release(n, i % 2) for i, n in enumerate(notes)]
    figure = layout_membership(notes, released)
    assert figure.auc == 0.5 and figure.unique_layout == 0.0
    words = word_membership(notes, released, pairs=_toy_law, id_of=_toy_id)
    assert words == 1.0
    assert replace(figure, word_auc=words).strongest_auc == 1.0
    assert replace(figure, word_auc=words).as_dict()["auc"] == 1.0


def test_negative_control_a_release_unrelated_to_the_notes_is_chance_in_the_word_game() -> None:
    """The same notes against a release drawn from other notes' words: no note fits its own
    record better than the others, so the member and non-member scores tie (AUC exactly 0.5);
    a wrong game that credits the own record for its position alone would fail here."""
    notes = ["Red hot sun.", "Cat cold moon.", "Dog hot red.", "Blue sun cat."]
    released = ["Moon moon moon."] * 4  # every record the same: nothing of any note in it
    assert word_membership(notes, released, pairs=_toy_law, id_of=_toy_id) == 0.5
    assert np.isnan(word_membership(notes[:1], released[:1], pairs=_toy_law, id_of=_toy_id))


def test_the_word_game_compares_a_note_with_records_of_its_word_count_only() -> None:
    """A note whose word count no other record has is told apart by that alone, as in the layout
    game (its non-member score is the floor); within a word count the law decides."""
    notes = ["Red hot.", "Cat cold moon.", "Dog hot red."]
    released = [_toy_release(n, 0) for n in notes]
    assert word_membership(notes, released, pairs=_toy_law, id_of=_toy_id) == 1.0


def test_without_a_law_the_word_game_reads_rare_words_returned_as_themselves() -> None:
    """Privacy audit: laplace and mahalanobis have no exact law, so only the layout game was
    played and templated notes passed membership (0.500) while a rare word the mechanism returns
    unchanged points at its note. verbatim_evidence scores such a word by its public rarity
    (1 / frequency), more than a surviving 'the'; a release that keeps none is chance."""
    from embedanon.privacy.attacks.membership import verbatim_evidence

    words = ["the", "of", "ankle", "knee", "wrist", "elbow", "red", "blue"]
    pairs = verbatim_evidence(words)
    the, ankle = pairs(np.array([0, 2]), np.array([0, 2]))
    assert ankle > the > 1.0 and pairs(np.array([2]), np.array([3]))[0] == 1.0

    def id_of(word: str) -> int:
        return words.index(word.lower()) if word.lower() in words else -1

    notes = ["The ankle of red.", "The knee of blue.", "The wrist of red.", "The elbow of blue."]
    # each release keeps 'the' and 'of' and its own body part; the colour is redrawn
    kept = ["The ankle of blue.", "The knee of red.", "The wrist of blue.", "The elbow of red."]
    assert layout_membership(notes, kept).auc == 0.5
    assert word_membership(notes, kept, pairs=pairs, id_of=id_of) == 1.0
    common = ["The red of blue.", "The blue of red.", "The red of blue.", "The blue of red."]
    assert word_membership(notes, common, pairs=pairs, id_of=id_of) == 0.5  # only 'the', 'of' kept


def test_fresh_releases_add_their_evidence_to_the_word_game() -> None:
    """The game read only the first of N fresh-key releases (left by the privacy audit), so
    `--releases 5 --fresh-key` measured the membership of one release. Under a noisy toy law (the
    word kept with probability 0.3, else any of the 8 words), one release of 30 eight-word notes
    leaves members and outsiders hard to tell apart (AUC 0.68); adding the evidence of four more
    releases of the same records tells most of them apart (0.92). Negative control: the same
    release again (one key releases the same text every time) adds no evidence and changes
    nothing."""
    rng = np.random.default_rng(5)
    keep = 0.3

    def law(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        return np.where(xs == ys, keep + (1 - keep) / len(_WORDS), (1 - keep) / len(_WORDS))

    def release(note_ids: list[int]) -> str:
        out = [w if rng.random() < keep else int(rng.integers(len(_WORDS))) for w in note_ids]
        return " ".join(_WORDS[w] for w in out).capitalize() + "."

    ids = [rng.integers(len(_WORDS), size=8).tolist() for _ in range(30)]
    notes = [" ".join(_WORDS[w] for w in n).capitalize() + "." for n in ids]
    releases = [[release(n) for n in ids] for _ in range(5)]
    one = word_membership(notes, releases[0], pairs=law, id_of=_toy_id)
    five = word_membership(notes, releases[0], pairs=law, id_of=_toy_id, more=releases[1:])
    assert one < 0.75 and five > 0.85
    same = word_membership(notes, releases[0], pairs=law, id_of=_toy_id, more=[releases[0]] * 4)
    assert same == pytest.approx(one)
    with pytest.raises(ValueError, match="one release per record"):
        word_membership(notes, releases[0], pairs=law, id_of=_toy_id, more=[releases[1][:3]])


def test_a_note_whose_own_record_changed_word_count_is_scored_by_the_others() -> None:
    """Review audit: `privacy-report` and `review` crashed (numpy broadcast error) in scope
    detected on MTSamples notes, where the surrogate of 'Eastchester, New' has three words: the
    word game stacked the note's own record with the records of the note's word count. The
    attacker compares a note with records of its word count only, so a member whose record
    changed length scores as an outsider would (a tie), whatever the other length is."""
    notes = ["Red hot sun.", "Cat cold moon.", "Dog hot red."]
    released = [_toy_release(n, 0) for n in notes]
    longer = ["Blue dog cat moon.", *released[1:]]
    auc = word_membership(notes, longer, pairs=_toy_law, id_of=_toy_id)
    assert auc == word_membership(notes, ["Blue dog cat moon sun.", *released[1:]], pairs=_toy_law,
                                  id_of=_toy_id)
    # note 0's member score is its outsider score (the one tie of the 9 pairs); notes 1 and 2
    # fit their own records only, so every other pair is won
    assert auc == pytest.approx(8.5 / 9)
    # with fresh-key releases too, and when no record shares the note's word count
    assert word_membership(notes, longer, pairs=_toy_law, id_of=_toy_id, more=[longer]) == auc
    assert word_membership(notes[:2], ["Blue dog cat moon.", released[1]], pairs=_toy_law,
                           id_of=_toy_id) >= 0.5


def _random_game(seed: int, records: int) -> tuple[list[str], list[list[str]], object]:
    """Notes of 1-6 words over the toy words and one outside word, three releases of them (some
    records with another word count, some words outside), and a law with zeros (kept matters)."""
    rng = np.random.default_rng(seed)
    vocabulary = [*_WORDS, "zork"]  # 'zork' has no id: a position not counted
    table = rng.random((len(_WORDS), len(_WORDS))) * (rng.random((len(_WORDS), len(_WORDS))) < 0.6)
    table += 4 * np.eye(len(_WORDS)) * (rng.random(len(_WORDS)) < 0.7)[:, None]  # most words kept often

    def law(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        return table[xs, ys]

    def text(words: list[int]) -> str:
        return " ".join(vocabulary[w] for w in words).capitalize() + "."

    ids = [rng.integers(len(vocabulary), size=int(rng.integers(1, 7))).tolist() for _ in range(records)]
    notes = [text(n) for n in ids]
    releases = []
    for _ in range(3):
        out = []
        for n in ids:
            words = [w if rng.random() < 0.6 else int(rng.integers(len(vocabulary))) for w in n]
            if rng.random() < 0.05:  # a surrogate of another length
                words = words + [0] if rng.random() < 0.5 or len(words) == 1 else words[:-1]
            out.append(text(words))
        releases.append(out)
    return notes, releases, law


@pytest.mark.parametrize("kept", [False, True])
@pytest.mark.parametrize(("pairs_per_note", "cells"), [(20_000, 1 << 22), (12, 40), (5, 7)])
def test_the_block_word_game_agrees_with_the_note_by_note_reference(
        kept: bool, pairs_per_note: int, cells: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """word_membership scores the notes of one word count in blocks (8 s for 16,000 IMDB
    sentences, where the reference, one call per note, took 31 s; decision 0377). Every score is the same number, so the AUC is equal, not approximately: in
    one block, in blocks of a few notes, and with the records sampled for some notes (the same
    keyed sample), with and without fresh releases, and words returned as themselves kept."""
    import embedanon.privacy.attacks.membership as membership

    monkeypatch.setattr(membership, "WORD_PAIRS_PER_NOTE", pairs_per_note)
    monkeypatch.setattr(membership, "BLOCK_CELLS", cells)
    for seed in range(4):
        notes, releases, law = _random_game(seed, 60)
        for more in ([], releases[1:]):
            args = {"pairs": law, "id_of": _toy_id, "kept": kept, "seed": seed, "more": more}
            fast = word_membership(notes, releases[0], **args)  # type: ignore[arg-type]
            assert fast == word_membership_reference(notes, releases[0], **args)  # type: ignore[arg-type]
            assert 0.5 < fast <= 1.0


def test_block_scores_are_the_reference_scores_bit_for_bit() -> None:
    from embedanon.privacy.attacks.membership import _block_scores, _word_scores

    rng = np.random.default_rng(11)
    table = rng.random((8, 8)) * (rng.random((8, 8)) < 0.5)

    def law(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        return table[xs, ys]

    for width in (1, 3, 9, 17):  # numpy sums rows of 8 and more pairwise: the same order is needed
        xs = rng.integers(-1, 8, size=(5, width))
        ys = rng.integers(-1, 8, size=(7, width))
        for kept in (False, True):
            block = _block_scores(xs, ys, law, kept)
            for r in range(len(xs)):
                assert block[r].tolist() == _word_scores(xs[r], list(ys), law, kept).tolist()


@pytest.mark.parametrize("game", [word_membership, word_membership_reference])
def test_the_same_release_again_changes_no_note_on_the_pooled_scale(game) -> None:  # type: ignore[no-untyped-def]
    """Left by an audit of the membership AUC, which pools notes: with fresh releases a record's
    score was the sum over the releases, while a note with no record to compare (a word count of
    its own) kept the one-release floor. Under a law of small probabilities (log P about -6.5 per
    word) five releases put every member near -33, below the floor of -27.6, so the outsider
    score of the lone 2-word note outranked the members of other notes: the same release five
    times gave another AUC than once. The mean over releases keeps one scale."""
    def law(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        return np.where(xs == ys, 2e-3, 1e-3)

    notes = ["Red hot sun.", "Cat cold moon.", "Dog hot red.", "Blue sun cat.", "Moon red dog.",
             "Sun cat cold.", "Red hot.", "Dog blue cold."]
    released = ["Red cold sun.", "Cat cold dog.", "Sun hot red.", "Blue moon cat.", "Moon red hot.",
                "Sun dog cold.", "Red sun.", "Dog blue cold hot."]  # the last changed word count
    one = game(notes, released, pairs=law, id_of=_toy_id)
    assert one > 0.5
    assert game(notes, released, pairs=law, id_of=_toy_id, more=[released] * 4) == one


def test_a_text_given_twice_is_played_once_and_a_blank_one_not_at_all() -> None:
    """Verdict audit (stop 58): the copy of a duplicated note stood in the world without it, so a
    corpus given twice scored 0.500 and passed membership while every note was released; blank
    texts scored a layout game of their own. Both games now play each distinct text once."""
    from embedanon.privacy.attacks.membership import distinct_records, membership_games, verbatim_evidence

    words = ["the", "of", "ankle", "knee", "wrist", "elbow", "red", "blue"]

    def id_of(word: str) -> int:
        return words.index(word.lower()) if word.lower() in words else -1

    notes = ["Seen today. Pain is better.", "No fever.\nCough at night, mild.", "BP 120/80. Stable!",
             "The ankle of red."]
    released = ["Heard soon. Ache was nicer.", "Any cold.\nCold to day, wild.", "PT 657/86. Able!",
                "The ankle of blue."]
    once = membership_games(notes, [released], law=None, words=words, id_of=id_of)
    twice = membership_games(notes + notes + ["", "  "], [released + released + ["", "  "]], law=None,
                             words=words, id_of=id_of)
    assert once.auc == 1.0 and twice == once
    assert layout_membership(notes + notes, released + released).auc < 1.0  # the game played on copies
    assert distinct_records(["a", " ", "b", "a", ""]) == [0, 2]
    assert verbatim_evidence(words)(np.array([2]), np.array([2]))[0] > 1.0
