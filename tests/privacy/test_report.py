"""The report of one release (embedanon.privacy.report): exact values on hand-made inputs."""

from __future__ import annotations

import numpy as np
import pytest

from embedanon.pipeline import Anonymizer
from embedanon.privacy.report import privacy_report
from embedanon.text import tokenize
from embedanon.vectors.defaults import home_dir

from ..conftest import TINY_WORDS, make_store


@pytest.fixture(scope="module")
def tiny_saved() -> str:
    """The 8-word tiny embedding saved under $EMBEDANON_HOME, usable by name."""
    name = "tiny-privacy"
    target = home_dir() / "embeddings" / name
    if not (target / "meta.json").is_file():
        make_store(TINY_WORDS).save(target)
    return name


def report_of(texts: list[str], anonymizer: Anonymizer, **options: object):  # type: ignore[no-untyped-def]
    """The report of ``anonymizer``'s release of ``texts``."""
    return privacy_report(texts, list(anonymizer.anonymize_many(texts)), mechanism=anonymizer.mechanism,
                          index=anonymizer.runtime.index, key=anonymizer.key, **options)


# ------------------------------------------------------------------------------------------------
# the report
# ------------------------------------------------------------------------------------------------
TEXT = ["Alpha bravo, charlie delta! echo 42 foxtrot.", "golf hotel alpha; Alpha-bravo"]


def _reverse_sets(table: np.ndarray) -> dict[int, set[int]]:
    reverse: dict[int, set[int]] = {}
    for x, row in enumerate(table.tolist()):
        for y in row:
            reverse.setdefault(y, set()).add(x)
    return reverse


def test_report_on_knn_matches_hand_counts_and_a_brute_force_attack(tiny_saved: str) -> None:
    anonymizer = Anonymizer(tiny_saved, "knn", k=2, seed=5)
    report = report_of(TEXT, anonymizer, draws=200)
    # non-space tokens: line 1 has 6 words, 42 and 3 punctuation marks; line 2 has 4 words
    # (Alpha-bravo is one) and ';'
    assert (report.change.tokens, report.change.word_tokens) == (10 + 5, 6 + 4)
    assert report.change.changed_words == 10  # knn never returns the word
    assert report.documents == 2 and report.longest_document_words == 6
    assert report.n_w_mean == 0.0 and report.s_w_mean == 2.0
    assert report.stats_words == 8 and report.epsilon is None

    # Reference attack from the same outputs: single-part words, uniform prior -> 1/|R(y)|.
    replay = Anonymizer(tiny_saved, "knn", k=2, seed=5)
    store = replay.runtime.store
    reverse = _reverse_sets(replay.mechanism.table)  # type: ignore[attr-defined]
    expected = []
    for doc in TEXT:
        out = replay.anonymize(doc)
        for a, b in zip(tokenize(doc), tokenize(out), strict=True):
            if a.kind == "word" and a.text.isalpha():
                x, y = store.id_of(a.text), store.id_of(b.text)
                expected.append(1 / len(reverse[y]) if x in reverse[y] else 0.0)
    assert report.attack_uniform.tokens == len(expected) == 9
    assert report.attack_uniform.rate(1) == pytest.approx(np.mean(expected))
    assert report.attack_corpus.rate(1) >= report.attack_uniform.rate(1)
    assert report.attack_method == "exact"
    without = report_of(TEXT, Anonymizer(tiny_saved, "knn", k=2, seed=5), draws=200, attack=False)
    assert without.attack_uniform is None and without.n_w_mean == report.n_w_mean


def test_report_of_a_text_without_words(tiny_saved: str) -> None:
    report = report_of(["123 -- 456", ""], Anonymizer(tiny_saved, "knn", k=2, seed=1))
    assert report.change.word_tokens == 0 and report.attack_uniform.tokens == 0
    assert np.isnan(report.n_w_mean) and np.isnan(report.attack_uniform.rate(1))


def test_outputs_must_match_the_texts(tiny_saved: str) -> None:
    anonymizer = Anonymizer(tiny_saved, "knn", k=2, seed=1)
    with pytest.raises(ValueError, match="one output per text"):
        privacy_report(TEXT, [], mechanism=anonymizer.mechanism, index=anonymizer.runtime.index,
                       key=anonymizer.key)
