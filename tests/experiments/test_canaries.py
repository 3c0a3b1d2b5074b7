"""Canary names: injected into copies, counted in releases; the utility corpus is never touched."""

from __future__ import annotations

from pathlib import Path

import pytest

from embedanon.errors import ConfigError
from embedanon.experiments.canaries import LOCALES, inject_canaries, leaked_parts
from embedanon.experiments.config import MechanismSpec
from embedanon.utility.upstream import tokens

DOC = (
    "The patient was admitted with chest pain. An echocardiogram showed a normal ejection fraction. "
    "She was discharged home on aspirin. Follow up in two weeks with the cardiology clinic."
)


def test_injected_copy_carries_every_part_absent_from_the_original() -> None:
    injected = inject_canaries(DOC, seed=0, index=3)
    words = set(tokens(injected.text))
    assert len(injected.parts) >= 6  # three full names, first + last
    assert all(p in words for p in injected.parts)
    assert not set(tokens(DOC)) & set(injected.parts)
    # every original sentence is still there, in order
    assert all(s.strip(". ") in injected.text for s in DOC.split(". "))


def test_injection_is_seeded_and_varies_with_seed_and_index() -> None:
    a = inject_canaries(DOC, seed=0, index=3)
    assert inject_canaries(DOC, seed=0, index=3) == a
    assert inject_canaries(DOC, seed=1, index=3).parts != a.parts
    assert inject_canaries(DOC, seed=0, index=4).parts != a.parts


def test_names_come_from_several_cultures() -> None:
    parts = {p for i in range(40) for p in inject_canaries(DOC, seed=0, index=i).parts}
    assert len(LOCALES) >= 8 and len(parts) > 100


def test_leak_count_negative_and_positive_controls() -> None:
    injected = inject_canaries(DOC, seed=0, index=0)
    assert leaked_parts(injected.text, injected.parts) == len(injected.parts)  # released as is
    assert leaked_parts(DOC, injected.parts) == 0  # names removed
    one = injected.parts[0]
    assert leaked_parts(f"only {one.upper()} survived", injected.parts) == injected.parts.count(one)


def test_bad_name_count_is_one_line() -> None:
    with pytest.raises(ConfigError, match="names must be"):
        inject_canaries(DOC, seed=0, index=0, names=0)


@pytest.mark.default_embedding
def test_cell_canary_figure_counts_kept_names(tmp_path: Path) -> None:
    from embedanon.experiments.runner import canary_figures, make_anonymizer

    texts = [DOC] * 6
    docs = list(range(6))
    figures = {}
    for oov in ("composed", "keep"):
        mech = MechanismSpec("knn", "k", (10,), oov=oov)
        anon = make_anonymizer(mech, 10, 0, embedding="minilm-words", output=tmp_path)
        figures[oov] = canary_figures(texts, docs, anon, mech, 0)
    assert figures["keep"]["canary_parts"] == figures["composed"]["canary_parts"] >= 36
    # knn never releases a word as itself; keeping out-of-vocabulary words keeps most names
    assert figures["composed"]["canary_leak"] < 0.05
    assert figures["keep"]["canary_leak"] > 0.3
