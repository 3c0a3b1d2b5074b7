"""AvoidNames: the record's other names, as pieces or through a shared index, with one answer."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from embedanon.leakguard import VariantIndex, keys_are_variants
from embedanon.surrogates import AvoidNames, SurrogateConfig, Surrogates, prf_from_key
from embedanon.surrogates import avoid as avoid_module
from embedanon.surrogates.avoid import NO_NAMES, name_keys, pieces_of

POOL = ["Ana Lima", "Ana", "LIMA, Ana", "Bo Chen", "Mr. Chen", "J. R. Okafor", "Okafor", "x", "Ana-Lima",
        "\ufdfa Ali"]  # a symbol that is no letter run: no key


def avoided(value: AvoidNames) -> frozenset[str]:
    """The pieces ``value`` stands for, whichever form it has."""
    held = value.index.keys - value.removed if value.index is not None else frozenset()
    return value.pieces | held


def plain_blocks(piece: str, pieces: frozenset[str]) -> bool:
    return any(keys_are_variants(piece, other) for other in pieces)


@pytest.mark.parametrize("index_from", [avoid_module.INDEX_FROM, 1])
def test_for_record_avoids_the_keys_of_every_other_name(monkeypatch, index_from):
    """The one-pass avoidance of a record's other names agrees with its plain definition (the
    pieces of the keys of every name whose text differs), for names that repeat, share words or
    are not names of the record at all, in the scan form and in the shared-index form."""
    monkeypatch.setattr(avoid_module, "INDEX_FROM", index_from)
    rng = random.Random(6)
    for _ in range(300):
        names = [rng.choice(POOL) for _ in range(rng.randint(0, 6))]
        others = AvoidNames.for_record(names)
        every = pieces_of(frozenset().union(*map(name_keys, names)))
        if index_from == 1 and every:
            assert others(None).index is not None
        assert avoided(others(None)) == every == avoided(AvoidNames.of(names))
        for original in [*names, "Zed", ""]:
            plain = pieces_of(frozenset().union(*(name_keys(n) for n in names if n != original)))
            value = others(original)
            assert value is others(original)  # cached per distinct text
            if value.index is None:
                assert value.pieces == plain and not value.removed
            else:
                assert not value.pieces and value.index.keys - value.removed == plain


_KEYS = st.text(alphabet="abcdeo", min_size=1, max_size=7)


@settings(max_examples=300, deadline=None)
@given(pieces=st.frozensets(_KEYS, max_size=12), removed_share=st.integers(0, 3),
       more=st.frozensets(_KEYS, max_size=3), queries=st.lists(_KEYS, min_size=1, max_size=8))
def test_the_index_form_blocks_what_testing_every_piece_blocks(pieces, removed_share, more, queries):
    """``blocks`` through a shared index (less its removed pieces, plus more pieces) gives the
    same answer as the obvious scan over the pieces it stands for."""
    removed = frozenset(sorted(pieces)[: len(pieces) * removed_share // 4])
    indexed = AvoidNames(index=VariantIndex(pieces), removed=removed).plus(more)
    scanned = AvoidNames(pieces - removed).plus(more)
    reference = (pieces - removed) | more
    for query in queries:
        assert indexed.blocks(query) == scanned.blocks(query) == plain_blocks(query, reference)


def test_replace_takes_texts_or_the_value_built_from_them(monkeypatch):
    """``avoid=`` texts (the public form) and ``AvoidNames.of(texts)`` give the same surrogates,
    in both forms; the record is long enough to be indexed by default."""
    surrogates = Surrogates(SurrogateConfig())
    rng = random.Random(4)
    record = [f"{rng.choice(['Ana', 'Bo', 'Wei', 'Amara', 'John'])} {family}" for family in
              ("Okafor Lima Chen Smith Jones Tanaka Rossi Nguyen Kowalczyk Moreau Silva Haddad Kim Park Singh "
               "Patel Mensah Osei Ivanova Novak Horvat Nagy Kovacs Jensen Larsen Berg Lund Virtanen Korhonen "
               "Murphy Kelly Walsh Byrne Ryan Costa Santos Pereira Alves Gomez Diaz Ruiz Torres Flores "
               "Rivera Cruz Reyes Morales Ortiz Ramos Romero Herrera Medina Castro Vargas Mendoza Rojas "
               "Navarro Guerrero Molina Delgado Ortega Aguilar Sandoval").split()]
    assert len(frozenset().union(*map(name_keys, record))) >= avoid_module.INDEX_FROM
    outs = []
    default = avoid_module.INDEX_FROM
    for index_from in (default, 10**9):
        monkeypatch.setattr(avoid_module, "INDEX_FROM", index_from)
        value = AvoidNames.of(record)
        assert (value.index is not None) == (index_from == default)
        for r in range(10):
            prf, record_prf = prf_from_key(bytes([r])), prf_from_key(bytes([r, 0]))
            for label, text in (("NAME", record[r]), ("NAME", "Dr. Ana Lima"), ("EMAIL", "bo.chen@x.org")):
                out = surrogates.replace(label, text, prf=prf, record_prf=record_prf, avoid=value)
                assert out == surrogates.replace(label, text, prf=prf, record_prf=record_prf, avoid=record)
                outs.append(out)
    half = len(outs) // 2
    assert outs[:half] == outs[half:]  # index and scan agree


def test_bad_values_are_refused():
    with pytest.raises(TypeError, match="not one str"):
        AvoidNames.of("John Smith")
    with pytest.raises(TypeError, match="not one str"):
        Surrogates(SurrogateConfig()).replace("NAME", "Ana", prf=prf_from_key(b"k"), record_prf=prf_from_key(b"r"),
                                              avoid="John Smith")
    with pytest.raises(TypeError, match="frozensets"):
        AvoidNames({"john"})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="need an index"):
        AvoidNames(frozenset(), None, frozenset({"john"}))
    assert AvoidNames.of([]) == NO_NAMES and not NO_NAMES.blocks("john")


def agrees(value: AvoidNames, reference: frozenset[str], queries) -> bool:  # type: ignore[no-untyped-def]
    """Whether ``value.blocks`` is the plain scan over ``reference`` for every query."""
    return all(value.blocks(q) == plain_blocks(q, reference) for q in queries)


class IgnoresAdded(AvoidNames):
    """A mutant (the negative control): forgets the pieces a span added through its index."""

    __slots__ = ()

    def blocks(self, piece: str) -> bool:
        return AvoidNames(self.pieces, self.index, self.removed).blocks(piece)


@settings(max_examples=300, deadline=None)
@given(pieces=st.frozensets(_KEYS, max_size=12), indexed=st.booleans(), removed_share=st.integers(0, 3),
       span=st.frozensets(_KEYS, max_size=12), part=st.frozensets(_KEYS, max_size=2),
       index_from=st.integers(1, 8), queries=st.lists(_KEYS, min_size=1, max_size=8))
def test_a_span_of_many_parts_blocks_what_testing_every_piece_blocks(
    pieces, indexed, removed_share, span, part, index_from, queries
):
    """A span's own pieces (``plus``, indexed from ``INDEX_FROM`` of them), then a part's own on
    top, over a record in either form: ``blocks`` is the scan over every piece they stand for."""
    removed = frozenset(sorted(pieces)[: len(pieces) * removed_share // 4]) if indexed else frozenset()
    record = AvoidNames(index=VariantIndex(pieces), removed=removed) if indexed else AvoidNames(pieces)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(avoid_module, "INDEX_FROM", index_from)
        value = record.plus(span).plus(part)
        twice = record.plus(span).plus(span).plus(part)  # an index plus an index: the union
    new = (span - pieces) if indexed else span  # those the record's index holds are restored
    if len(part) < index_from:  # (a part of as many pieces is indexed the same way)
        assert (value.added is not None) == (len(new) >= index_from)
    reference = (pieces - removed) | span | part
    assert agrees(value, reference, [*queries, *reference])
    assert agrees(twice, reference, [*queries, *reference])


def _name_pieces(rng: random.Random, n: int) -> list[str]:
    """Name-like pieces (the QA repro's alphabet): many share prefixes, stems and substrings."""
    return [rng.choice("abcdefghijklmnopqrstuvwxyz") + "".join(rng.choice("aeioulmnrstkvzh")
            for _ in range(rng.randint(2, 8))) for _ in range(n)]


def test_the_span_index_agrees_with_the_scan_and_a_mutant_that_ignores_it_does_not():
    """Seeded name-like pieces, at the default threshold: the indexed span gives the scan's
    answer for every piece and for fresh queries; the negative control (the same value that
    forgets the indexed span pieces) gives a different answer, so the comparison can fail."""
    rng = random.Random(11)
    for _ in range(5):
        record_pieces = frozenset(_name_pieces(rng, rng.randint(0, 100)))
        span = frozenset(_name_pieces(rng, rng.randint(avoid_module.INDEX_FROM, 300)))
        queries = [*_name_pieces(rng, 300), *span]
        removed = frozenset(rng.sample(sorted(record_pieces), len(record_pieces) // 2))
        for record in (AvoidNames(record_pieces - removed),
                       AvoidNames(index=VariantIndex(record_pieces), removed=removed)):
            value = record.plus(span).plus(["zzq"])
            assert value.added is not None
            assert value.added.keys == (span if record.index is None else span - record_pieces)
            reference = (record_pieces - removed) | span | {"zzq"}
            assert agrees(value, reference, queries)
            mutant = IgnoresAdded(value.pieces, value.index, value.removed, value.added)
            assert not agrees(mutant, reference, queries)


def test_a_name_of_many_parts_costs_lookups_per_part_not_a_scan(monkeypatch):
    """One NAME span of 1,500 hyphenated parts (the QA denial of service was quadratic in
    them): the pieces scanned one by one stay a few per candidate, not one per other part."""
    calls = 0
    plain = avoid_module.keys_are_variants

    def counted(a: str, b: str) -> bool:
        nonlocal calls
        calls += 1
        return plain(a, b)

    monkeypatch.setattr(avoid_module, "keys_are_variants", counted)
    rng = random.Random(1)
    text = "-".join(p.title() for p in _name_pieces(rng, 1500))
    out = Surrogates(SurrogateConfig()).replace("NAME", text, prf=prf_from_key(b"k"),
                                                record_prf=prf_from_key(b"r"), avoid=[text])
    assert out.count("-") >= text.count("-")  # a surrogate may itself be hyphenated
    assert calls < 20 * 1500, calls  # the scan form made about 1,500 per candidate
