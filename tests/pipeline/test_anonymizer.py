"""The Anonymizer end to end on the real default embedding (knn mode)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from embedanon import Anonymizer, ConfigError
from embedanon.leakguard import is_variant
from embedanon.pipeline import anonymize_text
from embedanon.runtime import CLITICS, _split_parts
from embedanon.text import JOINERS, WORD_SPLIT_RE, tokenize

pytestmark = pytest.mark.default_embedding

NOTE = (
    "Patient John Smith (MRN A12B-4471) is a 54-year-old male seen on 2023-01-15 at Boston "
    "General for chest pain and hypertension. Echocardiogram normal. Mr. O'Neil's e-mail: "
    "jsmith@example.com, phone (617) 555-0134."
)


@pytest.fixture(scope="module")
def anon() -> Anonymizer:
    return Anonymizer(seed=11)


def _is_word_part(part: str) -> bool:
    return all(ch.isalpha() or unicodedata.category(ch).startswith("M") for ch in part)


def assert_nothing_survives(src: str, out: str) -> None:
    """Every word/number token changed at its position; no word part became a variant of itself;
    every character of a number or code changed; whitespace and punctuation unchanged."""
    a, b = WORD_SPLIT_RE.split(src), WORD_SPLIT_RE.split(out)
    assert len(a) == len(b), "token alignment lost"
    assert a[0::2] == b[0::2], "whitespace or punctuation changed"
    for tok_in, tok_out in zip(a[1::2], b[1::2]):
        assert tok_in != tok_out
        pin, pout = _split_parts(tok_in), _split_parts(tok_out)
        assert len(pin) == len(pout)
        for i, (x, y) in enumerate(zip(pin, pout)):
            if x in JOINERS:
                assert x == y
            elif _is_word_part(x):
                kept_clitic = i >= 2 and pin[i - 1] in "'’" and x.lower() in CLITICS
                if kept_clitic:
                    assert x == y
                else:
                    assert not is_variant(x, y), "a word was replaced by a variant of itself"
            else:  # number or code: every character differs at its position
                chars = [c for c in x if not unicodedata.category(c).startswith("M")]
                assert len(chars) == len(y)
                assert all(c != d for c, d in zip(chars, y))


def test_note_every_word_replaced(anon: Anonymizer) -> None:
    out = anon.anonymize(NOTE)
    assert_nothing_survives(NOTE, out)
    for name in ("John", "Smith", "Boston", "O'Neil", "4471", "555", "0134", "jsmith"):
        assert name not in out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=80))
def test_property_no_token_survives_any_text(anon: Anonymizer, text: str) -> None:
    assert_nothing_survives(text, anon.anonymize(text))


WORDS = st.sampled_from(["john", "johns", "patient", "patients", "echocardiogram", "echo", "pain",
                         "Mary", "SMITH", "hypertension", "o'neil", "don't", "covid19", "A12B",
                         "2024", "7", "naïve", "日本", "x"])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(WORDS, min_size=1, max_size=30), st.sampled_from([" ", ", ", "\n", " - "]))
def test_property_no_token_survives_wordy_text(anon: Anonymizer, words: list[str], sep: str) -> None:
    text = sep.join(words)
    assert_nothing_survives(text, anon.anonymize(text))


def test_known_variants_impossible_with_default_embedding(default_index) -> None:  # type: ignore[no-untyped-def]
    store = default_index.store
    table = default_index.table(50)
    for word, variant in [("john", "johns"), ("patient", "patients"), ("echocardiogram", "echo")]:
        wid = store.id_of(word)
        if wid >= 0:
            assert store.id_of(variant) not in set(table[wid].tolist())
        else:  # outside the vocabulary: the guarded proxy list must exclude the variant
            vec = store.compose(word)
            assert vec is not None
            assert store.id_of(variant) not in set(default_index.guarded_neighbors(vec, word, 50))
    # and over 2000 draws the pipeline never produces them
    anon = Anonymizer(seed=3)
    outs = {o.lower() for o in anon.anonymize(" ".join(["john patient echocardiogram"] * 700)).split()}
    assert not outs & {"john", "johns", "johnny", "patient", "patients", "echo", "echocardiogram"}


def test_same_seed_same_output_different_seed_different_output() -> None:
    a1, a2, b = Anonymizer(seed=5), Anonymizer(seed=5), Anonymizer(seed=6)
    docs = [NOTE, "second note about pain", NOTE]
    out1 = [a1.anonymize(d) for d in docs]
    assert out1 == list(a2.anonymize_many(docs))
    assert out1 != [b.anonymize(d) for d in docs]
    assert out1[0] != out1[2], "documents get independent streams"


def test_output_independent_of_jobs_and_chunking() -> None:
    docs = [f"{NOTE} number {i}" for i in range(40)]
    serial = list(Anonymizer(seed=9).anonymize_many(docs))
    parallel = list(Anonymizer(seed=9).anonymize_many(docs, jobs=2, chunksize=3))
    assert serial == parallel
    # a pure function of (text, config, per-document seed)
    anon = Anonymizer(seed=9)
    assert anonymize_text(docs[7], anon.config, (9, (7,))) == serial[7]


def test_no_seed_uses_os_entropy() -> None:
    assert Anonymizer().entropy != Anonymizer().entropy


def test_case_pattern_transferred(anon: Anonymizer) -> None:
    out = anon.anonymize("John JOHN john")
    w = out.split()
    assert w[0][0].isupper() and w[0][1:].islower()
    assert w[1].isupper()
    assert w[2].islower()


def test_out_of_vocabulary_words_get_related_replacements() -> None:
    anon = Anonymizer(seed=0, k=5)
    store = anon.runtime.store
    assert store.id_of("hypertension") < 0, "test premise: word outside the vocabulary"
    outs = {anon.anonymize("hypertension") for _ in range(40)}
    assert len(outs) > 1
    # replacements come from the neighbourhood of the composed vector, not uniformly at random
    near = set(anon.runtime.index.search(store.compose("hypertension"), 60)[1][0].tolist())
    assert sum(store.id_of(o) in near for o in outs) >= len(outs) * 0.6


def test_numbers_keep_shape(anon: Anonymizer) -> None:
    out = anon.anonymize("2023-01-15 (617) 555-0134 A12B 0.5")
    assert len(out) == len("2023-01-15 (617) 555-0134 A12B 0.5")
    for a, b in zip("2023-01-15 (617) 555-0134 A12B 0.5", out):
        assert a.isdigit() == b.isdigit() and a.isupper() == b.isupper()
    assert out[0] != "0" and out[11] != "0"  # leading digits of multi-digit runs stay non-zero


def test_clitics_kept(anon: Anonymizer) -> None:
    out = anon.anonymize("patient's don't")
    assert out.split()[0].endswith("'s") and out.split()[1].endswith("'t")


def test_whitespace_and_punctuation_only_text_unchanged(anon: Anonymizer) -> None:
    text = " \t... !?\r\n🙂 — "
    assert anon.anonymize(text) == text


def test_all_replacements_are_candidates(anon: Anonymizer) -> None:
    cands = {anon.runtime.store.words[i] for i in anon.runtime.index.candidates}
    out = anon.anonymize(NOTE + " Zyxqv Qwrtp")
    for tok in tokenize(out):
        if tok.kind == "word":
            for part in _split_parts(tok.text):
                if _is_word_part(part) and part.lower() not in CLITICS:
                    assert part.lower() in cands


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"k": 0}, "k must be"), ({"k": 10**7}, "k must be at most"), ({"mechanism": "nope"}, "unknown mechanism"),
     ({"embedding": "no-such-embedding"}, "unknown embedding"), ({"epsilon": 1.0}, "does not take 'epsilon'"),
     ({"seed": -1}, "seed must be"), ({"min_length": 0}, "min_length")],
)
def test_bad_configuration_fails_fast(kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message) if "embedding" not in kwargs else pytest.raises(Exception, match=message):
        Anonymizer(**kwargs)


def test_bounded_plan_cache_gives_the_same_output(monkeypatch: pytest.MonkeyPatch) -> None:
    import embedanon.runtime as runtime

    docs = [f"{NOTE} extra words number {i} zqxw{i}" for i in range(12)]
    reference = list(Anonymizer(seed=21).anonymize_many(docs, chunksize=4))
    anon = Anonymizer(seed=21, k=10)
    anon.runtime.plans.clear()
    monkeypatch.setattr(runtime, "_PLAN_CACHE_LIMIT", 40)  # forces clears inside every chunk
    assert list(anon.anonymize_many(docs, chunksize=4)) == reference
    assert len(anon.runtime.plans) <= 80
