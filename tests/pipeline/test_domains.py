"""Top-level domains of e-mail and URL hosts: located exactly, drawn from the public list."""

from __future__ import annotations

from collections import Counter

import pytest

from embedanon import Anonymizer
from embedanon.pipeline.domains import PUBLIC_TLDS, tld_starts
from embedanon.text import tokenize
from tests.helpers.noise import fast_key


@pytest.mark.parametrize(("text", "tlds"), [
    ("mail jo.smith@gmail.com today", ["com"]),
    ("see https://www.example.org/path?q=1.", ["org"]),
    ("bbc.co.uk and linkedin.com/in/x", ["uk", "com"]),
    ("WWW.HOSPITAL.NET", ["NET"]),
    ("ftp://files.example.de:21/x", ["de"]),
    ("two: a@b.io,c@d.edu", ["io", "edu"]),
])
def test_tld_starts_finds_each_host_label(text: str, tlds: list[str]) -> None:
    starts = tld_starts(text)
    assert [text[s : s + len(t)] for s, t in zip(starts, tlds, strict=True)] == tlds
    assert len(starts) == len(tlds)


@pytest.mark.parametrize("text", [
    "the patient.In the morning", "a com org net list", "ratio 3.5 com", "e.g. this", "",
    "no hosts here at all", "version 1.2.3",
])
def test_tld_starts_ignores_non_hosts(text: str) -> None:
    assert tld_starts(text) == []


def _released_tld(out: str) -> str:
    words = [t.text for t in tokenize(out) if t.kind == "word"]
    return words[-1]


@pytest.mark.default_embedding
@pytest.mark.parametrize("mechanism,params", [("knn", {"k": 10}), ("exponential", {"epsilon": 14.0})])
def test_tld_is_a_public_draw_never_the_original(mechanism: str, params: dict) -> None:
    anon = Anonymizer(mechanism=mechanism, key=fast_key(21), **params)
    texts = [f"write to person{i}@clinic.com" for i in range(300)]
    docs = [anon.anonymize_document(t) for t in texts]
    seen = Counter(_released_tld(d.text) for d in docs)
    assert "com" not in seen
    others = {anon.runtime.store.words[i] for i in anon.runtime.tld_ids} - {"com"}
    assert others <= set(PUBLIC_TLDS) and len(others) >= 12
    assert set(seen) <= others
    assert len(seen) == len(others)  # every other public label is drawn (300 draws over 14)
    assert max(seen.values()) < 45  # uniform: expected about 21 each
    for doc in docs:
        assert [i.stage for i in doc.items][-1] == "domain"


@pytest.mark.default_embedding
def test_tld_draw_ignores_the_original_label() -> None:
    """The released label's law is the same for every original (up to the excluded value)."""
    anon = Anonymizer(key=fast_key(22))
    net = Counter(_released_tld(anon.anonymize(f"see www.site{i}.net")) for i in range(300))
    org = Counter(_released_tld(anon.anonymize(f"see www.site{i}.org")) for i in range(300))
    assert "net" not in net and "org" not in org
    assert abs(net["com"] - org["com"]) < 30  # both about 300/14


@pytest.mark.default_embedding
def test_words_outside_hosts_go_through_the_mechanism() -> None:
    anon = Anonymizer(key=fast_key(23))
    doc = anon.anonymize_document("the com org net list; a@b.com")
    stages = [i.stage for i in doc.items]
    assert stages[:5] == ["mechanism"] * 5
    assert stages[-1] == "domain"


@pytest.mark.default_embedding
def test_tld_outside_the_embedding_is_drawn_too() -> None:
    anon = Anonymizer(key=fast_key(24))
    assert anon.runtime.store.id_of("edu") < 0
    released = Counter(_released_tld(anon.anonymize(f"dean{i}@college.edu")) for i in range(100))
    assert set(released) <= {anon.runtime.store.words[i] for i in anon.runtime.tld_ids}
