"""Levers rebuild a release from items; counts agree with a token-by-token reference."""

from __future__ import annotations

import numpy as np
import pytest

from embedanon.experiments.levers import Released, apply_levers, word_counts
from embedanon.pipeline import AnonymizedDocument, Item
from embedanon.vectors.store import EmbeddingStore

WORDS = ["pain", "chest", "ache", "torso", "was", "is", "severe", "mild"]


def _store() -> EmbeddingStore:
    vecs = np.random.default_rng(0).normal(size=(len(WORDS), 4)).astype(np.float32)
    return EmbeddingStore("tiny", list(WORDS), vecs)


def _doc(original: str, replacements: list[tuple[str, str]]) -> AnonymizedDocument:
    """Items for each (original word, replacement) in order, as the pipeline would give them."""
    items, out, at, new_at = [], [], 0, 0
    for source, new in replacements:
        start = original.index(source, at)
        out.append(original[at:start])
        new_at += start - at
        items.append(Item(start, start + len(source), new_at, new_at + len(new), "word", "mechanism"))
        out.append(new)
        new_at += len(new)
        at = start + len(source)
    out.append(original[at:])
    return AnonymizedDocument("".join(out), tuple(items))


TEXT = "Chest pain, Smithers: chest PAIN was severe; chest."
PAIRS = [("Chest", "Torso"), ("pain", "ache"), ("Smithers", "Jones"), ("chest", "pain"), ("PAIN", "ACHE"),
         ("was", "is"), ("severe", "mild"), ("chest", "torso")]


def test_composed_is_the_pipeline_output_unchanged() -> None:
    doc = _doc(TEXT, PAIRS)
    released = apply_levers(TEXT, doc, _store())
    assert released.text == doc.text == "Torso ache, Jones: pain ACHE is mild; torso."
    assert [w[2] for w in released.words] == [True, True, False, True, True, True, True, True]


def test_keep_and_uniform_touch_only_out_of_vocabulary_words() -> None:
    store = _store()
    doc = _doc(TEXT, PAIRS)
    kept = apply_levers(TEXT, doc, store, oov="keep")
    assert kept.text == "Torso ache, Smithers: pain ACHE is mild; torso."
    rng = np.random.default_rng(0)
    uniform = apply_levers(TEXT, doc, store, oov="uniform", candidates=np.array([6, 7]), rng=rng)
    assert uniform.text.split(", ")[1].split(":")[0] in ("Severe", "Mild")  # case transferred
    assert uniform.text.replace("Severe", "Mild").startswith("Torso ache, Mild: pain ACHE")


def test_consistent_gives_each_word_type_its_first_replacement() -> None:
    released = apply_levers(TEXT, _doc(TEXT, PAIRS), _store(), consistent=True)
    assert released.text == "Torso ache, Jones: torso ACHE is mild; torso."


def _reference_counts(records: list[tuple[str, str]]) -> tuple[int, int, int, int]:
    """Token-by-token: (words, changed, repeats, linked) from whitespace-aligned plain texts."""
    words = changed = repeats = linked = 0
    for original, released in records:
        first: dict[str, str] = {}
        for x, y in zip(original.lower().split(), released.lower().split()):
            words += 1
            changed += x != y
            if x in first:
                repeats += 1
                linked += first[x] == y
            else:
                first[x] = y
    return words, changed, repeats, linked


@pytest.mark.parametrize("seed", range(5))
def test_word_counts_match_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    records, released = [], []
    for _ in range(4):
        original = list(rng.choice(WORDS, 12))
        new = [w if rng.random() < 0.3 else str(rng.choice(WORDS)) for w in original]
        records.append((" ".join(original), " ".join(new)))
        released.append(Released(" ".join(new), tuple((x, y, True) for x, y in zip(original, new))))
    counts = word_counts(released)
    assert (counts.words, counts.changed, counts.repeats, counts.linked) == _reference_counts(records)
    assert counts.change_rate == pytest.approx(counts.changed / counts.words)


def test_unchanged_out_of_vocabulary_words_are_counted() -> None:
    store = _store()
    counts = word_counts([apply_levers(TEXT, _doc(TEXT, PAIRS), store, oov="keep")])
    assert (counts.oov, counts.unchanged_oov, counts.changed) == (1, 1, 7)
    counts = word_counts([apply_levers(TEXT, _doc(TEXT, PAIRS), store)])
    assert (counts.oov, counts.unchanged_oov, counts.changed) == (1, 0, 8)


def test_keep_list_releases_listed_words_and_blanks_them_for_the_attack() -> None:
    from embedanon.privacy.metrics import align_tokens

    doc = _doc(TEXT, PAIRS)
    released = apply_levers(TEXT, doc, _store(), keep=frozenset({"was", "chest"}))
    # every 'chest' (any case) and 'was' stay; the other words keep the pipeline's replacement
    assert released.text == "Chest ache, Jones: chest ACHE was mild; chest."
    assert released.kept == 4
    assert [w[0] for w in released.words] == ["pain", "smithers", "pain", "severe"]
    assert released.attack_pair is not None
    original, release = released.attack_pair
    assert original == "  pain, Smithers:   PAIN   severe;  ."
    assert release == "  ache, Jones:   ACHE   mild;  ."
    assert len(align_tokens(original, release)) > 0  # the blanked pair still aligns token by token
    counts = word_counts([released])
    assert counts.words == 8 and counts.changed == 4 and counts.change_rate == 0.5 and counts.kept == 4


def test_empty_keep_list_changes_nothing() -> None:
    doc = _doc(TEXT, PAIRS)
    released = apply_levers(TEXT, doc, _store(), keep=frozenset())
    assert released.text == doc.text and released.kept == 0 and released.attack_pair is None


def test_public_keep_list_has_question_words_and_negations() -> None:
    from embedanon.experiments.config import KEEP_LISTS
    from embedanon.experiments.levers import keep_list

    assert all(keep_list(name) for name in KEEP_LISTS)  # every name the config accepts loads
    words = keep_list("english-stopwords")
    assert {"who", "where", "how", "not", "was"} <= words
    assert "chest" not in words and keep_list(None) == frozenset()



def test_a_surrogate_is_blanked_for_the_attack_so_the_pair_aligns() -> None:
    """Neutral formats (the default) put a surrogate of another token count on a phone; the
    attack pair must leave it out, else the runner stopped with 'does not align' (found by an
    `experiment run` on a corpus with a phone number)."""
    from embedanon.privacy.metrics import align_tokens

    text = "Chest pain, call (312) 555-0143 now."
    new = "Torso ache, call +00 475 940 1774 now."
    phone = text.index("(312)"), text.index(" now")
    new_phone = new.index("+00"), new.index(" now")
    words = [("Chest", "Torso"), ("pain", "ache"), ("call", "call"), ("now", "now")]
    items = []
    for source, replacement in words:
        start, new_start = text.index(source), new.index(replacement)
        items.append(Item(start, start + len(source), new_start, new_start + len(replacement), "word", "mechanism"))
    items.append(Item(*phone, *new_phone, "surrogate", "surrogate", "PHONE"))
    doc = AnonymizedDocument(new, tuple(sorted(items, key=lambda i: i.start)))
    released = apply_levers(text, doc, _store())
    assert released.text == new and released.kept == 0
    assert released.attack_pair == ("Chest pain, call   now.", "Torso ache, call   now.")
    assert len(align_tokens(*released.attack_pair)) == 9
    assert word_counts([released]).words == 4  # the phone is no word span
