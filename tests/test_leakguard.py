"""Leak guard: variants are recognised, unrelated words are not."""

from __future__ import annotations

import pytest

from embedanon.leakguard import is_variant, stem, within_one_edit

VARIANTS = [
    ("john", "johns"), ("John", "JOHN"), ("patient", "patients"), ("patient", "patient's"),
    ("echocardiogram", "echo"), ("johnson", "john"), ("biopsy", "biopsies"),
    ("diagnose", "diagnosis"), ("studied", "studies"), ("color", "colour"), ("jon", "john"),
    ("café", "cafe"), ("anemia", "anemic"), ("outpatient", "patient"), ("ran", "run"),
]
NOT_VARIANTS = [
    ("john", "james"), ("patient", "doctor"), ("pain", "ache"), ("heart", "lung"),
    ("echo", "sound"), ("boston", "chicago"), ("mary", "marie2"), ("cat", "dog"),
    ("the", "an"), ("hypertension", "pressure"),
]


@pytest.mark.parametrize(("a", "b"), VARIANTS)
def test_variants_are_detected_both_ways(a: str, b: str) -> None:
    assert is_variant(a, b)
    assert is_variant(b, a)


@pytest.mark.parametrize(("a", "b"), NOT_VARIANTS)
def test_unrelated_words_are_not_variants(a: str, b: str) -> None:
    assert not is_variant(a, b)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [("abc", "abc", True), ("abc", "abd", True), ("abc", "ab", True), ("abc", "xabc", True),
     ("abc", "acb", False), ("abc", "a", False), ("", "a", True), ("", "ab", False)],
)
def test_within_one_edit_matches_levenshtein(a: str, b: str, expected: bool) -> None:
    assert within_one_edit(a, b) is expected
    assert within_one_edit(b, a) is expected


def _levenshtein(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def test_within_one_edit_against_reference() -> None:
    import itertools

    words = ["", "a", "b", "ab", "ba", "abc", "abd", "acb", "aabc", "abcc", "xyz", "abcd"]
    for a, b in itertools.product(words, repeat=2):
        assert within_one_edit(a, b) == (_levenshtein(a, b) <= 1), (a, b)


def test_stem_keeps_three_letters() -> None:
    assert stem("biopsies") == stem("biopsy")
    assert stem("is") == "is"


def _reference_is_variant(a: str, b: str) -> bool:
    """The rules of the module docstring, written out plainly (no fast paths)."""
    from embedanon.leakguard import _common_prefix

    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    if len(short) >= 3 and short in long_:
        return True
    if _levenshtein(a, b) <= 1:
        return True
    if len(short) >= 4 and _common_prefix(a, b) >= max(4, len(short) - 2):
        return True
    return len(short) >= 3 and stem(a) == stem(b)


def test_fast_paths_agree_with_plain_rules() -> None:
    import itertools

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from embedanon.leakguard import keys_are_variants

    words = ["john", "johns", "ohn", "bohn", "jon", "patient", "outpatient", "apatient", "ab", "ba",
             "a", "b", "diagnose", "diagnosis", "xdiagnose", "anemia", "anemic", "studies", "studied"]
    for a, b in itertools.product(words, repeat=2):
        assert keys_are_variants(a, b) == _reference_is_variant(a, b), (a, b)

    @settings(max_examples=500, deadline=None)
    @given(st.text(alphabet="abcde", min_size=1, max_size=7), st.text(alphabet="abcde", min_size=1, max_size=7))
    def check(a: str, b: str) -> None:
        assert keys_are_variants(a, b) == _reference_is_variant(a, b)

    check()


def test_variant_index_finds_exactly_the_variants_a_scan_finds():
    """Random key sets built from words and their one-edit, prefixed, inflected and cut variants
    (and keys too long to index): the index answers every query as testing every key does."""
    import random

    from embedanon.leakguard import VariantIndex, keys_are_variants

    rng = random.Random(1)
    base = ["smith", "smyth", "johnson", "john", "jon", "ana", "anna", "hanna", "okafor", "chen", "cheng",
            "li", "lim", "lin", "diagnosis", "diagnose", "studies", "mariana", "maria", "anemia", "anemic",
            "surgical", "surgically", "abc", "xabc", "bc", "a", "é"]

    def mutate(w: str) -> str:
        op = rng.randrange(6)
        if op == 0 and w:
            i = rng.randrange(len(w))
            return w[:i] + w[i + 1 :]
        if op == 1:
            i = rng.randrange(len(w) + 1)
            return w[:i] + rng.choice("abcmnos") + w[i:]
        if op == 2 and w:
            i = rng.randrange(len(w))
            return w[:i] + rng.choice("abcmnos") + w[i + 1 :]
        if op == 3:
            return rng.choice("xyz") + w
        if op == 4:
            return w + rng.choice(["s", "es", "ing", "ly", "ation", "ic"])
        return w[rng.randrange(max(1, len(w))) :] or w

    def word(edits: int) -> str:
        w = rng.choice(base)
        for _ in range(rng.randint(0, edits)):
            w = mutate(w)
        return w

    found = 0
    for _ in range(300):
        keys = {w for w in (word(2) for _ in range(rng.randint(0, 25))) if w}
        if rng.random() < 0.1:
            keys.add("a" * 50 + "b")
        index = VariantIndex(keys)
        for _ in range(30):
            query = "a" * 45 if rng.random() < 0.03 else word(3)
            if query:
                plain = sorted(k for k in keys if keys_are_variants(query, k))
                assert index.variants(query) == plain
                found += bool(plain)
    assert found > 1000  # the queries do hit variants
