"""PHONE, ID and IP surrogates: neutral formats, kept shapes, documentation ranges."""

from __future__ import annotations

import ipaddress
import re
from collections import Counter, defaultdict

import pytest

from embedanon.surrogates import NEUTRAL_PHONE, SurrogateConfig, Surrogates, prf_from_key
from embedanon.surrogates.shape import _symbols

# One number per source country, each in its national layout.
PHONES = {
    "us": "(415) 555-0132",
    "uk": "+44 20 7946 0958",
    "de": "030 12345678",
    "fr": "01 23 45 67 89",
    "in": "+91 98765 43210",
}


def replace(surrogates: Surrogates, label: str, text: str, key: bytes) -> str:
    return surrogates.replace(label, text, prf=prf_from_key(key), record_prf=prf_from_key(key + b"/r"))


def layout(text: str) -> str:
    return re.sub(r"\d", "#", text)


def format_attack_accuracy(phone_format: str, keys: int = 60) -> float:
    """Predict the source country from the surrogate's layout (majority vote per layout)."""
    surrogates = Surrogates(SurrogateConfig(phone_format=phone_format))
    by_layout: dict[str, Counter[str]] = defaultdict(Counter)
    for country, phone in PHONES.items():
        for k in range(keys):
            by_layout[layout(replace(surrogates, "PHONE", phone, k.to_bytes(2, "big")))][country] += 1
    correct = sum(counts.most_common(1)[0][1] for counts in by_layout.values())
    return correct / (keys * len(PHONES))


def test_neutral_phone_format_does_not_reveal_the_source():
    assert format_attack_accuracy("neutral") == pytest.approx(1 / len(PHONES))  # chance exactly


def test_keep_shape_phone_format_does_reveal_the_source():
    """Negative control: the same attack recovers every source country from kept layouts."""
    assert format_attack_accuracy("keep-shape") == 1.0


def test_neutral_phone_pattern_and_consistency():
    surrogates = Surrogates(SurrogateConfig())
    out = replace(surrogates, "PHONE", "(415) 555-0132", b"k")
    assert re.fullmatch(NEUTRAL_PHONE.replace("+", r"\+").replace("#", r"\d"), out)
    assert out == replace(surrogates, "PHONE", "415.555.0132", b"k")  # same digits, same entity
    assert out != replace(surrogates, "PHONE", "(415) 555-0132", b"other key")


def test_custom_phone_pattern():
    out = replace(Surrogates(SurrogateConfig(phone_format="(555) ###-####")), "PHONE", "0301234567", b"k")
    assert re.fullmatch(r"\(555\) \d{3}-\d{4}", out)


@pytest.mark.parametrize("original", ["123-45-6789", "MRN 0012345", "AB12cd-9", "X"])
def test_id_keeps_shape(original):
    out = replace(Surrogates(SurrogateConfig(id_format="keep-shape")), "ID", original, b"k")
    shape = re.sub(r"[A-Z]", "A", re.sub(r"[a-z]", "a", re.sub(r"\d", "9", original)))
    assert re.sub(r"[A-Z]", "A", re.sub(r"[a-z]", "a", re.sub(r"\d", "9", out))) == shape
    assert out != original


def test_id_neutral_is_one_pattern():
    surrogates = Surrogates(SurrogateConfig())  # the default (issue 33 item 6)
    outs = {
        re.sub(r"\d", "#", re.sub(r"[A-Z]", "@", replace(surrogates, "ID", i, b"k")))
        for i in ("123-45-6789", "A1234567", "MRN-99")
    }
    assert outs == {"@@-######"}


def test_ids_never_differ_by_one_character_from_the_original():
    surrogates = Surrogates(SurrogateConfig())
    for k in range(300):
        out = replace(surrogates, "ID", "4417", k.to_bytes(2, "big"))
        assert sum(a != b for a, b in zip(out, "4417")) >= 2


@pytest.mark.parametrize(
    ("original", "network", "tail"),
    [
        ("10.0.0.1", None, ""),
        ("192.168.1.1:8080", None, r":\d{4}"),
        ("10.0.0.0/8", None, "/8"),
        ("fe80::1", "2001:db8::/32", ""),
        ("[2001:4860::8888]:443", "2001:db8::/32", r":\d{3}"),
    ],
)
def test_ip_goes_to_a_documentation_range(original, network, tail):
    out = replace(Surrogates(SurrogateConfig()), "IP", original, b"k")
    match = re.fullmatch(rf"\[?([0-9a-f:.]+)\]?({tail})", out)
    assert match, out
    address = ipaddress.ip_address(match.group(1))
    if network:
        assert address in ipaddress.ip_network(network)
    else:
        assert any(
            address in ipaddress.ip_network(n) for n in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24")
        )
    assert str(address) not in original


class _Fixed:
    """A stand-in stream whose one draw is a given value."""

    def __init__(self, value: int) -> None:
        self.value = value

    def below(self, n: int) -> int:
        assert 0 <= self.value < n
        return self.value


def test_one_draw_gives_independent_uniform_symbols():
    """Brute force: the values 0..3**4-1 map one-to-one onto all 3**4 symbol strings, so a uniform
    draw gives uniform, independent symbols."""
    strings = {"".join(_symbols(_Fixed(v), "abc", 4)) for v in range(3**4)}  # type: ignore[arg-type]
    assert len(strings) == 3**4


_HASH_SEED_SCRIPT = """
from embedanon.surrogates import SurrogateConfig, Surrogates, prf_from_key
s = Surrogates(SurrogateConfig())
prf, record = prf_from_key(b"release key"), prf_from_key(b"release key/record 1")
for original in ("G12937593", "AB-1234-xy", "L39720077", "mrn 4471-QZ", "Apt 5B"):
    print(s.replace("ID", original, prf=prf, record_prf=record))
"""


@pytest.mark.slow
def test_surrogates_do_not_depend_on_the_hash_seed():
    """A letters-and-digits ID drew its digit and letter symbols in the order of a set of strings,
    which follows PYTHONHASHSEED: two runs (or two worker processes) gave two surrogates."""
    import os
    import subprocess
    import sys

    outs = set()
    for seed in ("0", "1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        run = subprocess.run([sys.executable, "-c", _HASH_SEED_SCRIPT], env=env, capture_output=True,
                             text=True, check=True)
        outs.add(run.stdout)
    assert len(outs) == 1


class _Recording:
    """A stream that answers below(n) with n // 3 and records each n."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    def below(self, n: int) -> int:
        self.asked.append(n)
        return n // 3


def test_symbols_of_a_long_span_come_in_bounded_draws():
    """Up to 64 symbols are one draw (what every real ID gets, as before); a span of thousands
    of digits is drawn 64 at a time, so no integer grows with the span (one draw of 10**96000,
    taken apart digit by digit, took seconds)."""
    short = _Recording()
    assert len(_symbols(short, "0123456789", 20)) == 20  # type: ignore[arg-type]
    assert short.asked == [10**20]
    long_ = _Recording()
    assert len(_symbols(long_, "0123456789", 1000)) == 1000  # type: ignore[arg-type]
    assert long_.asked == [10**64] * 15 + [10**40]
    assert _symbols(_Recording(), "01", 0) == []  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("original", "lead", "trail"),
    [
        ("(10.0.0.254)", "(", ")"),  # a span that took in the brackets around it
        ("10.1.2.3]:8080", "", "]:"),  # a span that cut the opening bracket off
        ("<172.16.254.1>,", "<", ">,"),
        ("(2001:db8:85a3::8a2e:370:7334)", "(", ")"),
    ],
)
def test_ip_with_the_punctuation_around_it_still_goes_to_a_documentation_range(original, lead, trail):
    """Found by hand: ``(10.0.0.254)`` came back as ``(32.8.9.404)``, an invalid address of no
    documentation range (the maker failed to parse it and randomized its digits)."""
    ranges = ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "2001:db8::/32")
    for key in (b"a", b"b", b"c"):
        out = replace(Surrogates(SurrogateConfig()), "IP", original, key)
        assert out.startswith(lead), out
        match = re.fullmatch(rf"{re.escape(lead)}([0-9a-f:.]+?){re.escape(trail)}(\d*)[>,)]*", out)
        assert match, out
        address = ipaddress.ip_address(match.group(1))
        assert any(address in ipaddress.ip_network(n) for n in ranges), out


@pytest.mark.parametrize(("original", "words"), [
    ("(617) 555-0100 ext. 23", ["ext"]),
    ("Tel: +44 20 7946 0958", ["Tel"]),
    ("617.555.0100 x23", ["x"]),
])
def test_keep_shape_phone_keeps_its_words(original, words):
    """Found by hand: with ``--keep-formats --phone-format keep-shape`` the phone ``(617) 555-0100
    ext. 23`` came back as ``(273) 557-9908 bdy. 03``: the word ``ext`` was randomized like the
    letters of a vanity number."""
    surrogates = Surrogates(SurrogateConfig(phone_format="keep-shape"))
    for key in (b"a", b"b", b"c"):
        out = replace(surrogates, "PHONE", original, key)
        assert re.findall(r"[A-Za-z]+", out) == words, out
        assert layout(re.sub(r"[A-Za-z]", "", out)) == layout(re.sub(r"[A-Za-z]", "", original))
    vanity = replace(surrogates, "PHONE", "1-800-FLOWERS", b"a")  # a vanity number's letters are digits
    assert re.fullmatch(r"\d-\d{3}-[A-Z]{7}", vanity) and "FLOWERS" not in vanity


@pytest.mark.parametrize("phone_format", ["neutral", "keep-shape", "###-####"])
def test_a_number_said_digit_by_digit_is_said_again(phone_format):
    """A spoken number gets spoken digits (decision 0183): here, a number of ten digits said three,
    three and four, one digit word for one, each in its word's case, the separators kept, the
    digits never a variant of the original's (at most one digit differs), the same surrogate for
    the same number under the same key, whatever the phone format."""
    words = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
    surrogates = Surrogates(SurrogateConfig(phone_format=phone_format))
    original = "Five five five, two oh one, three three four four"
    digits = "5552013344"
    outs = set()
    for k in range(40):
        out = replace(surrogates, "PHONE", original, b"key-%d" % k)
        said = re.findall(r"[A-Za-z]+", out)
        assert re.sub(r"[A-Za-z]+", "w", out) == re.sub(r"[A-Za-z]+", "w", original)
        assert said[0][0].isupper() and all(w.islower() for w in said[1:])
        new = "".join(str(words.index(w.lower())) for w in said)
        assert sum(a != b for a, b in zip(new, digits, strict=True)) >= 2
        assert replace(surrogates, "PHONE", original, b"key-%d" % k) == out
        outs.add(new)
    assert len(outs) == 40


def test_a_number_said_digit_by_digit_hides_its_length_and_grouping_unless_shapes_are_kept():
    """Decision 0222: a spoken number kept its count of digits and its grouping (a local number of
    seven digits against one of ten or eleven), which the neutral written layout hides. Under
    the neutral format (and a pattern of one's own) it is said as ten digits, three, three and
    four; under ``keep-shape`` it keeps its shape."""
    original = "five five five, oh one three two"
    for k in range(20):
        neutral = replace(Surrogates(SurrogateConfig()), "PHONE", original, b"key-%d" % k)
        assert re.fullmatch(r"(?:[a-z]+ ){2}[a-z]+, (?:[a-z]+ ){2}[a-z]+, (?:[a-z]+ ){3}[a-z]+", neutral), neutral
        kept = replace(Surrogates(SurrogateConfig(phone_format="keep-shape")), "PHONE", original, b"key-%d" % k)
        assert re.sub(r"[a-z]+", "w", kept) == "w w w, w w w w"
    said = replace(Surrogates(SurrogateConfig()), "PHONE", "call Six one seven", b"k")  # the words around stay
    assert re.fullmatch(r"call [A-Z][a-z]+ [a-z]+ [a-z]+, (?:[a-z]+ ){2}[a-z]+, (?:[a-z]+ ){3}[a-z]+", said), said


@pytest.mark.parametrize(("span", "joiner"), [
    ("415-555-0132 or 415-555-0133", " or "), ("415-555-0132 / 415-555-0133", " / "),
    ("(415) 555-0132, (415) 555-0133", ", "), ("415.555.0132 and 415.555.0133", " and "),
])
def test_two_phone_numbers_in_one_span_get_two_surrogates(span: str, joiner: str) -> None:
    """Surrogate audit: the model took ``415-555-0132 or 415-555-0132`` as one PHONE span and the
    neutral pattern was filled once for all of it: one number and the ``or`` were lost. Each
    number now gets its own surrogate (one number written twice, one surrogate) and the words
    between stay."""
    from embedanon.surrogates import SurrogateConfig, Surrogates, prf_from_key

    makers, prf = Surrogates(SurrogateConfig()), prf_from_key(b"k")
    out = makers.replace("PHONE", span, prf=prf, record_prf=prf)
    first, second = out.split(joiner)
    assert re.fullmatch(r"\+00 \d{3} \d{3} \d{4}", first) and re.fullmatch(r"\+00 \d{3} \d{3} \d{4}", second)
    assert first != second
    same = makers.replace("PHONE", "415-555-0132 or 415-555-0132", prf=prf, record_prf=prf)
    assert same.split(" or ")[0] == same.split(" or ")[1] == makers.replace("PHONE", "415-555-0132", prf=prf,
                                                                              record_prf=prf)
    assert makers.replace("PHONE", "555-1234 or more", prf=prf, record_prf=prf).count("+00") == 1
