"""Hybrid scope's name guard (decision 0380): a word written like a name that the mechanism
returned as itself is redrawn among its nearest other candidates; nothing else changes, and the
privacy figures count such words apart from the mechanism's."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from embedanon import Anonymizer
from embedanon.config import ScopeConfig
from embedanon.errors import ConfigError
from embedanon.leakguard import is_variant
from embedanon.pipeline.nameguard import GUARD_KIND, GUARD_STAGE, guarded_shape
from embedanon.privacy.scoped import release_counts
from embedanon.text import opens_sentence
from tests.helpers.noise import fast_key

pytestmark = pytest.mark.default_embedding

# epsilon 2,000: the exponential mechanism returns practically every word as itself, so what
# changes is what the guard changed (the regex detector finds no name here: no span)
TEXT = "yesterday we met Nick and Stuart near the station, said Carter to the nurse."


def hybrid(text: str, *, guard: bool = True, key: int = 3, mechanism: str = "exponential",
           **kw: object) -> object:
    anonymizer = Anonymizer(mechanism=mechanism, key=fast_key(key), scope="hybrid", detectors="regex",
                            **({"epsilon": 2000.0} if mechanism == "exponential" else {}), **kw)
    if not guard:
        anonymizer.config = replace(anonymizer.config,
                                    scope=replace(anonymizer.config.scope, name_guard=False))
    return anonymizer.anonymize_document(text)


def word_at(text: str, word: str) -> tuple[int, int]:
    m = re.search(rf"\b{word}\b", text)
    assert m is not None
    return m.start(), m.end()


@pytest.mark.parametrize(("text", "word", "expected"), [
    ("we met Nick there", "Nick", True),            # title case inside a sentence
    ("Stuart was there", "Stuart", True),           # first word, but it reads as a name
    ("we walked to Manhattan today", "Manhattan", True),
    ("The patient was seen", "The", False),         # the first word of the sentence
    ("It rained. Then we left", "Then", False),
    ("Doctor: Then we left", "Then", False),        # a turn's first word
    ('she said "Yes" twice', "Yes", False),         # a frequent word capitalised for its place
    ("seen by Dr Okafor", "Dr", False),             # a title
    ("seen on Monday morning", "Monday", False),    # a weekday
    ("an American tourist", "American", False),     # the name of a group
    ("HISTORY OF PRESENT ILLNESS", "PRESENT", False),  # capitals that are not a name
    ("tour guide: NYU is great", "NYU", True),      # capitals no public word list holds
    ("and I went", "I", False),                     # one letter
    ("we met nick there", "nick", False),           # lower case: the detectors' business
])
def test_guarded_shape(text: str, word: str, expected: bool) -> None:
    assert guarded_shape(text, *word_at(text, word)) is expected


def test_opens_sentence_skips_quotes_and_brackets() -> None:
    text = 'He left. "(Maybe) not," she said.'
    assert opens_sentence(text, text.index("Maybe"))
    assert not opens_sentence(text, text.index("not"))
    assert opens_sentence("Ann", 0)
    assert opens_sentence("[stab] Come here", 7)  # after a stage direction
    dialogue = "he said.\n\u2014 Then we left \u2014 Ann too"
    assert opens_sentence(dialogue, dialogue.index("Then"))  # a dash opens a line of dialogue
    assert not opens_sentence(dialogue, dialogue.index("Ann"))


def test_guard_changes_names_the_mechanism_kept_and_nothing_else() -> None:
    kept = hybrid(TEXT, guard=False)
    guarded = hybrid(TEXT)
    for name in ("Nick", "Stuart", "Carter"):  # the test's premise: at this epsilon they stay
        assert re.search(rf"\b{name}\b", kept.text)
        assert not re.search(rf"\b{name}\b", guarded.text)
    items = [it for it in guarded.items if it.kind == GUARD_KIND]
    assert sorted(TEXT[it.start:it.end] for it in items) == ["Carter", "Nick", "Stuart"]
    assert all(it.stage == GUARD_STAGE for it in items)
    for it in items:
        new = guarded.text[it.new_start:it.new_end]
        assert not is_variant(TEXT[it.start:it.end], new)
        assert new[0].isupper()  # the case pattern is kept
    # every other item reads exactly as without the guard
    rest = [(it.start, it.end, guarded.text[it.new_start:it.new_end])
            for it in guarded.items if it.kind != GUARD_KIND]
    before = [(it.start, it.end, kept.text[it.new_start:it.new_end])
              for it in kept.items if (it.start, it.end) not in {(g.start, g.end) for g in items}]
    assert rest == before


def test_items_still_cover_the_release() -> None:
    doc = hybrid(TEXT)
    at = written = 0
    out = []
    for it in doc.items:
        out.append(TEXT[at:it.start])
        out.append(doc.text[it.new_start:it.new_end])
        assert it.new_start == written + it.start - at
        written = it.new_end
        at = it.end
    out.append(TEXT[at:])
    assert "".join(out) == doc.text


def test_guard_is_keyed_and_deterministic() -> None:
    assert hybrid(TEXT).text == hybrid(TEXT).text
    picks = {hybrid(TEXT, key=k).text for k in range(8)}
    assert len(picks) > 1  # a uniform pick among ten neighbors, per key


def test_never_a_variant_over_many_keys() -> None:
    text = "we asked Johnson and Johnsons about it"
    for k in range(20):
        doc = hybrid(text, key=k)
        for it in doc.items:
            if it.kind == GUARD_KIND:
                assert not is_variant(text[it.start:it.end], doc.text[it.new_start:it.new_end])


def test_sentence_noise_unit_applies_the_guard_per_unit() -> None:
    text = "We met Nick at noon today. Later we saw Nick at the station again."
    doc = hybrid(text, noise_unit="sentence")
    assert not re.search(r"\bNick\b", doc.text)
    # a unit's release does not depend on the record around it
    alone = hybrid("Later we saw Nick at the station again.", noise_unit="sentence")
    assert doc.text.endswith(alone.text)


@pytest.mark.parametrize("scope", ["all", "detected"])
def test_other_scopes_have_no_guard(scope: str) -> None:
    doc = Anonymizer(mechanism="exponential", epsilon=2000.0, key=fast_key(3), scope=scope,
                     **({"detectors": "regex"} if scope != "all" else {})).anonymize_document(TEXT)
    assert not any(it.kind == GUARD_KIND for it in doc.items)


def test_knn_needs_no_guard() -> None:
    doc = hybrid(TEXT, mechanism="knn")
    assert not any(it.kind == GUARD_KIND for it in doc.items)
    assert not re.search(r"\bNick\b", doc.text)


def test_privacy_counts_put_guarded_words_apart() -> None:
    kept = hybrid(TEXT, guard=False)
    guarded = hybrid(TEXT)
    a, b = release_counts([TEXT], [kept]), release_counts([TEXT], [guarded])
    assert b.mechanism_words == a.mechanism_words - 3
    assert b.other_words == a.other_words + 3
    assert b.mechanism_parts == a.mechanism_parts - 3  # no epsilon is counted for them


def test_name_guard_must_be_a_bool() -> None:
    with pytest.raises(ConfigError, match="name_guard must be true or false"):
        ScopeConfig(scope="hybrid", name_guard="yes")  # type: ignore[arg-type]
