"""Keyed draws: exact uniformity of Stream.below, determinism of prf_from_key."""

from __future__ import annotations

from collections import Counter

import pytest

from embedanon.surrogates.base import Stream, prf_from_key
from embedanon.surrogates.keys import entity_key


def _enumerating_prf(words: list[int], bits: int):
    """A fake PRF whose blocks, concatenated, are ``words`` (each ``bits`` wide), then zeros."""
    step = bits // 8

    def prf(context: str) -> bytes:
        block = 0 if "\x00" not in context else int(context.rsplit("\x00", 1)[1])
        chunk = words[block * 4 : block * 4 + 4] + [0] * 4
        return b"".join(w.to_bytes(step, "big") for w in chunk[:4]) * (8 // step)

    return prf


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 10, 26, 100, 255])
def test_below_is_exactly_uniform_over_all_8_bit_words(n):
    """Brute force: feed every 8-bit word once; each accepted value is hit floor(256/n) times."""
    hits: Counter[int] = Counter()
    for word in range(256):
        stream = Stream(_enumerating_prf([word] * 4, 8), "ctx", bits=8)
        first = stream.word()
        assert first == word
        product = word * n
        low = product & 0xFF
        if low < (256 - n) % n:  # rejected: the reference is Lemire's rule written out
            continue
        hits[product >> 8] += 1
        again = Stream(_enumerating_prf([word] * 4, 8), "ctx", bits=8)
        assert again.below(n) == product >> 8
    assert set(hits) == set(range(n))
    assert set(hits.values()) == {256 // n}


def test_a_biased_modulo_draw_fails_the_same_count():
    """Negative control: ``word % n`` over all 8-bit words is not uniform for n = 100."""
    hits = Counter(word % 100 for word in range(256))
    assert len(set(hits.values())) > 1


def test_below_handles_n_beyond_one_word():
    prf = prf_from_key(b"k")
    stream = Stream(prf, "big")
    values = [stream.below(1 << 96) for _ in range(200)]
    assert all(0 <= v < 1 << 96 for v in values)
    assert max(values) > 1 << 90  # not confined to one 64-bit word


def test_signed_offset_covers_both_sides_and_never_zero():
    stream = Stream(prf_from_key(b"k"), "offsets")
    values = Counter(stream.signed_offset(3) for _ in range(3000))
    assert set(values) == {-3, -2, -1, 1, 2, 3}
    # each of 6 values ~ 500; Hoeffding, 3000 draws: |freq - 1/6| > 0.05 has probability < 2e-6
    assert all(abs(count / 3000 - 1 / 6) < 0.05 for count in values.values())


def test_prf_from_key_is_deterministic_and_keyed():
    assert prf_from_key(b"a")("x") == prf_from_key(b"a")("x")
    assert prf_from_key(b"a")("x") != prf_from_key(b"b")("x")
    assert prf_from_key(b"a")("x") != prf_from_key(b"a")("y")
    assert len(prf_from_key(b"a")("\udc80 lone surrogate")) == 32
    with pytest.raises(TypeError):
        prf_from_key("not bytes")  # type: ignore[arg-type]


def test_blocks_are_distinct_contexts():
    seen = []
    stream = Stream(lambda c: seen.append(c) or bytes(32), "ctx")
    for _ in range(9):
        stream.word()
    assert seen == ["ctx", "ctx\x001", "ctx\x002"]


def test_bad_prf_output_is_a_type_error_without_text():
    stream = Stream(lambda c: b"short", "secret context")
    with pytest.raises(TypeError) as err:
        stream.word()
    assert "secret" not in str(err.value)


def test_entity_key_normalizes_case_accents_spaces_and_nul():
    assert entity_key("  José \x00 GARCÍA ") == "jose garcia"
