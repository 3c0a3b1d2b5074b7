"""Look-alikes: unchanged stretches that look like personal data, against hand-made releases and a
plain per-token reference, with negative controls (a changed token, a random equal draw, a known
word opening a sentence are never listed)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from embedanon.pipeline import AnonymizedDocument, Item
from embedanon.review.lookalike import KINDS, Lookalike, Vocabulary, _unchanged, find_lookalikes
from embedanon.text import lookup_key, tokenize

KNOWN = {"the", "patient", "saw", "doctor", "mother", "had", "fever", "call", "mail", "at", "in", "i", "jean",
         "met", "and", "today", "from", "york", "new", "she", "was", "born", "on", "mary"}
NAMES = frozenset({"jean", "york", "mary"})
VOCAB = Vocabulary(lambda key: key in KNOWN, NAMES)


def release(text: str, changes: dict[str, str], stage: str = "mechanism") -> AnonymizedDocument:
    """Replace whole tokens of ``text`` (by their text) and record the items."""
    out, items, pos = [], [], 0
    for tok in tokenize(text):
        if tok.text in changes:
            new = changes[tok.text]
            items.append(Item(tok.start, tok.end, pos, pos + len(new), "code" if stage == "codes" else "word",
                              stage))
            out.append(new)
            pos += len(new)
        else:
            out.append(tok.text)
            pos += len(tok.text)
    return AnonymizedDocument("".join(out), tuple(items))


def listed(text: str, doc: AnonymizedDocument) -> list[tuple[str, str]]:
    found = find_lookalikes(text, doc, VOCAB)
    for la in found:  # the same characters, at their own offsets, in both texts
        assert lookup_key(text[la.start:la.end]) == lookup_key(doc.text[la.new_start:la.new_end])
    return [(text[la.start:la.end], la.kind) for la in found]


def test_each_kind_is_found_when_unchanged() -> None:
    text = ("The doctor saw Zebulonius and Jean today, call 555-1234 or mail jo.doe@example.com, see "
            "https://example.org/x?id=7 MRN-88213 A1 3rd 10am.")
    assert listed(text, release(text, {})) == [
        ("Zebulonius", "unknown"), ("Jean", "name"), ("555-1234", "digits"), ("jo.doe@example.com", "email"),
        ("https://example.org/x?id=7", "url"), ("MRN-88213", "code"), ("A1", "code"), ("10am", "code")]
    assert set(KINDS) == {kind for _, kind in listed(text, release(text, {}))}


def test_changed_tokens_and_random_draws_are_not_listed() -> None:
    text = "The doctor saw Zebulonius today, call 555-1234 or mail jo.doe@example.com."
    changed = release(text, {"Zebulonius": "Quentin", "555-1234": "817-0921", "jo": "al"})
    assert listed(text, changed) == []  # the address is listed only when all of it survived
    # digits drawn at random that happen to equal the original leak nothing
    assert listed(text, release(text, {"555-1234": "555-1234"}, stage="codes")) == [
        ("Zebulonius", "unknown"), ("jo.doe@example.com", "email")]
    # a word the mechanism returned as it was (metric DP may) is listed: the reader sees it
    same = release(text, {"Zebulonius": "zebulonius"})
    assert ("Zebulonius", "unknown") in listed(text, same)


def test_names_need_a_capital_inside_a_sentence_and_contractions_are_words() -> None:
    text = "Jean was born in New York. Mother met jean and I'm from York! Mary had fever."
    assert listed(text, release(text, {})) == [("York", "name"), ("York", "name")]  # not Jean, Mary, I'm
    unknown = "She met O'Zebbo and Jean-Qux."
    assert listed(unknown, release(unknown, {})) == [("O'Zebbo", "unknown"), ("Jean-Qux", "unknown")]


def test_lookalike_values_are_validated() -> None:
    with pytest.raises(ValueError, match="kind"):
        Lookalike(0, 1, 0, 1, "nickname")
    with pytest.raises(ValueError, match="ordered"):
        Lookalike(3, 2, 0, 1, "digits")


def _reference(text: str, doc: AnonymizedDocument) -> list[tuple[int, int, int]]:
    """Plain version of _unchanged: each token against every item."""
    out = []
    for tok in tokenize(text):
        if tok.kind not in ("word", "number", "mixed"):
            continue
        hits = [it for it in doc.items if (it.start < tok.end and it.end > tok.start)
                or (it.start == it.end and tok.start <= it.start < tok.end)]
        before = [it for it in doc.items if it.end <= tok.start and it.start < tok.start]
        shift = (before[-1].new_end - before[-1].end) if before else 0
        if not hits:
            out.append((tok.start, tok.end, tok.start + shift))
        elif len(hits) == 1 and (hits[0].start, hits[0].end) == (tok.start, tok.end) \
                and hits[0].stage != "codes" \
                and lookup_key(text[tok.start:tok.end]) == lookup_key(doc.text[hits[0].new_start:hits[0].new_end]):
            out.append((tok.start, tok.end, hits[0].new_start))
    return out


WORDS = st.sampled_from(["Jean", "doctor", "Zebulonius", "555-1234", "10am", "I'm", "the", "x"])
SEPARATORS = st.sampled_from([" ", ", ", ". ", "\n", "-", "@"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(WORDS, SEPARATORS), min_size=1, max_size=12), st.data())
def test_unchanged_tokens_agree_with_the_plain_reference(pieces: list[tuple[str, str]], data: st.DataObject) -> None:
    text = "".join(w + s for w, s in pieces)
    words = sorted({t.text for t in tokenize(text) if t.kind != "space" and t.kind != "punct"})
    changes = {w: data.draw(st.sampled_from([w, w.upper(), "zz", "9"])) for w in words
               if data.draw(st.booleans())}
    doc = release(text, changes, stage=data.draw(st.sampled_from(["mechanism", "codes"])))
    assert _unchanged(text, doc) == _reference(text, doc)
