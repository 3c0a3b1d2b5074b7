"""The one-scan search of recurring strings (``scope.recurrences``) gives exactly what the plain
reference (one ``re.finditer`` per string) gives, on texts built to hit its edge cases: strings
that start or end with non-word characters, strings without word characters, strings that
overlap themselves and each other, case variants and letters whose case rules are unusual. And
role ranges less the deny list's spans (``scope._less``) against plain character sets."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from embedanon.detectors.base import Span
from embedanon.pipeline.scope import _less, recurrences, recurrences_plain

PIECES = ["ab", "AB", "Ab", "a", "b", "555", "12", "x.y", "(555)", "-", "--", "@", ".", " ", " ", "\n",
          "é", "É", "ß", "SS", "ss", "Σ", "σ", "ς", "İ", "i", "ı", "K", "\u212a", "ſ", "_", "a_b", "'s"]
TEXTS = st.lists(st.sampled_from(PIECES), min_size=1, max_size=40).map("".join)


@st.composite
def text_and_strings(draw: st.DrawFn) -> tuple[str, dict[str, Span]]:
    """A text and up to six of its substrings as spans, keyed by casefolded string (as
    ``propagate`` builds them: the first span of each string)."""
    text = draw(TEXTS)
    strings: dict[str, Span] = {}
    for _ in range(draw(st.integers(0, 6))):
        a = draw(st.integers(0, len(text) - 1))
        b = draw(st.integers(a + 1, min(len(text), a + 12)))
        piece = text[a:b]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            span = Span(a + lead, a + lead + len(piece.strip()), "ID", 0.9, "regex")
            strings.setdefault(piece.strip().casefold(), span)
    return text, strings


@settings(max_examples=400, deadline=None)
@given(text_and_strings())
@example(("a a a", {"a a": Span(0, 3, "ID", 0.9, "regex")}))  # a string overlapping itself
@example(("(555)(555)(555)", {"(555)(555)": Span(0, 10, "PHONE", 0.9, "regex")}))
@example(("x AB ab x", {"ab": Span(2, 4, "ID", 0.9, "regex"), "ab x": Span(5, 9, "ID", 0.9, "regex")}))
def test_one_scan_finds_what_one_scan_per_string_finds(case: tuple[str, dict[str, Span]]) -> None:
    text, strings = case
    assert recurrences(text, strings) == recurrences_plain(text, strings)


def test_many_distinct_strings_in_one_long_text() -> None:
    """A log-like record: 3,000 distinct IDs, each recurring; every occurrence is found once."""
    ids = [f"AB-{i:05d}" for i in range(3000)]
    text = " ".join(f"ref {x} seen; again {x.lower()}." for x in ids)
    strings = {}
    for x in ids:
        at = text.index(x)
        strings[x.casefold()] = Span(at, at + len(x), "ID", 0.9, "regex")
    found = recurrences(text, strings)
    assert len(found) == 6000
    assert {text[s.start:s.end].casefold() for s in found} == {x.casefold() for x in ids}


def test_distinct_strings_sharing_their_longest_run() -> None:
    """336 distinct dates of one year (each looked up by ``2024``) and a few with accents: the
    one-scan search, which tries an ASCII string only where the text equals it in lower case,
    finds what the plain search finds."""
    dates = [f"{d} {m} 2024" for d in range(1, 29) for m in ("Jan", "Feb", "Mar", "Apr", "May", "June",
                                                                "July", "Aug", "Sept", "Oct", "Nov", "Dec")]
    dates += ["3 Févr 2024", "3 FÉVR 2024", "\u212a 2024"]
    text = " ".join(f"seen {x}; again {x.upper()}, and {x.lower()}." for x in dates)
    strings = {}
    for x in dates:
        at = text.index(x)
        strings.setdefault(x.casefold(), Span(at, at + len(x), "DATE", 0.9, "regex"))
    found = recurrences(text, strings)
    assert found == recurrences_plain(text, strings)
    assert len(found) == 3 * len(dates)


RANGES = st.lists(st.tuples(st.integers(0, 60), st.integers(1, 8)), max_size=8)


def _disjoint(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, disjoint ranges from (start, length) pairs (later overlapping ones dropped)."""
    out: list[tuple[int, int]] = []
    for a, n in sorted(pairs):
        if not out or a >= out[-1][1]:
            out.append((a, a + n))
    return out


@settings(max_examples=300, deadline=None)
@given(RANGES, RANGES)
def test_ranges_less_cuts_are_the_characters_of_one_and_not_the_other(ranges, cuts) -> None:
    """``scope._less`` (role ranges less the deny list's spans) against character sets."""
    ranges, cuts = _disjoint(ranges), _disjoint(cuts)
    got = _less(ranges, cuts)
    chars = {i for a, b in ranges for i in range(a, b)} - {i for c, d in cuts for i in range(c, d)}
    assert {i for a, b in got for i in range(a, b)} == chars
    assert all(a < b for a, b in got) and all(got[i][1] <= got[i + 1][0] for i in range(len(got) - 1))
    assert all(any(a <= c and d <= b for a, b in ranges) for c, d in got)  # never joins two ranges
