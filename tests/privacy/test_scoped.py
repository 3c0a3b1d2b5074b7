"""What a scoped release exposes: exact counts and views on hand-made documents with items."""

from __future__ import annotations

import pytest

from embedanon.pipeline.document import AnonymizedDocument
from embedanon.pipeline.replace import Item
from embedanon.privacy.metrics import ChangeStats, align_tokens
from embedanon.privacy.scoped import (
    SEPARATOR,
    ReleaseCounts,
    mechanism_tokens,
    mechanism_view,
    release_counts,
)

ORIGINAL = "ab cd, ef gh"
FULL = "xy kl, mn ij"  # the full-scope release: every word through the mechanism
# Scope detected with a surrogate: ab and gh by the mechanism, cd verbatim, ef a surrogate
SCOPED = AnonymizedDocument("xy cd, Qq ij", (
    Item(0, 2, 0, 2, "word", "mechanism"), Item(7, 9, 7, 9, "surrogate", "surrogate", "NAME"),
    Item(10, 12, 10, 12, "word", "mechanism")), full_scope=False)


def test_tokens_are_sorted_by_what_released_them() -> None:
    assert mechanism_tokens(ORIGINAL, SCOPED) == {0, 10}
    counts = release_counts([ORIGINAL], [SCOPED])
    assert counts == ReleaseCounts(ChangeStats(5, 4, 3), verbatim_words=1, mechanism_words=2,
                                  mechanism_parts=2, longest_parts=2)
    assert counts.other_words == 1
    assert ReleaseCounts.full_scope(ChangeStats(5, 4, 4)).mechanism_words == 4


def test_the_view_holds_the_mechanism_tokens_as_released() -> None:
    view = mechanism_view([ORIGINAL], [[SCOPED]], [[FULL]])
    assert view.originals == (f"ab{SEPARATOR}gh",)
    assert view.releases == ((f"xy{SEPARATOR}ij",),)
    assert len(align_tokens(view.originals[0], view.releases[0][0])) == 2 + 3  # two words, " .\n"
    assert view.map_spans([[(10, 12, "g"), (3, 5, "h")]]) == [[(2 + len(SEPARATOR), 4 + len(SEPARATOR), "g")]]


def test_a_token_the_mechanism_released_in_one_release_only_is_left_out() -> None:
    other = AnonymizedDocument("uv cd, Qq Rr", (
        Item(0, 2, 0, 2, "word", "mechanism"), Item(7, 12, 7, 12, "surrogate", "surrogate", "NAME")))
    view = mechanism_view([ORIGINAL], [[SCOPED], [other]], [[FULL], ["uv op, qr st"]])
    assert view.originals == ("ab",) and view.releases == (("xy",), ("uv",))


def test_counts_are_checked() -> None:
    with pytest.raises(ValueError, match="sum <= word_tokens"):
        ReleaseCounts(ChangeStats(5, 4, 3), verbatim_words=3, mechanism_words=2)


def test_mechanism_tokens_read_as_in_full_scope(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The claim the view rests on: under the same key, a token the scoped release gives the
    mechanism's replacement reads exactly as in the full-scope release (hybrid and detected)."""
    from embedanon import Anonymizer
    from embedanon.pipeline import anonymize_records
    from embedanon.pipeline.document import anonymize_documents
    from embedanon.privacy.metrics import scan
    from embedanon.vectors.defaults import home_dir

    from ..conftest import TINY_WORDS, make_store

    target = home_dir() / "embeddings" / "tiny-scoped"
    if not (target / "meta.json").is_file():
        make_store(TINY_WORDS).save(target)
    texts = ["alpha bravo charlie delta, echo foxtrot charlie.", "golf hotel alpha", "charlie"]
    for scope in ("detected", "hybrid"):
        # the mechanism on the detected spans (scope detected gives surrogates by default)
        anonymizer = Anonymizer("tiny-scoped", "knn", k=2, seed=3, scope=scope, detectors="regex",
                                deny={"charlie": "NAME"},
                                strategies={"default": "mechanism"} if scope == "detected" else None)
        full = anonymize_records(texts, Anonymizer("tiny-scoped", "knn", k=2, seed=3).config, anonymizer.key)
        docs = anonymize_documents(texts, anonymizer.config, anonymizer.key)
        view = mechanism_view(texts, [docs], [full])
        seen = 0
        for text, doc, out in zip(texts, docs, full, strict=True):
            keep = mechanism_tokens(text, doc)
            assert keep.isdisjoint(start for start, _ in scan(text, doc)[2])  # never verbatim
            released = {x.start: y.text for x, y in align_tokens(text, out)}
            for item in doc.items:  # one item per word here (plain words of the embedding)
                if item.start in keep:
                    assert doc.text[item.new_start : item.new_end] == released[item.start]
                    seen += 1
        assert seen == len([t for v in view.originals for t in v.split() if t != "."])
        counts = release_counts(texts, docs)
        assert counts.change.word_tokens == 11
        assert (counts.verbatim_words, counts.mechanism_words) == ((0, 8) if scope == "hybrid" else (8, 3))
