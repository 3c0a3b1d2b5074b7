"""The Anonymizer end to end on the real default embedding (knn mode)."""

from __future__ import annotations

import multiprocessing
import pickle
import re
import unicodedata
from concurrent.futures import ProcessPoolExecutor

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from embedanon import Anonymizer, ConfigError, ReleaseKey
from embedanon.config import AnonymizerConfig
from embedanon.leakguard import is_variant
from embedanon.pipeline import anonymize_records, anonymize_text
from embedanon.surrogates import SurrogateConfig
from embedanon.text import CLITICS, HIDDEN_LETTERS, JOINERS, WORD_SPLIT_RE, split_joined, tokenize

pytestmark = pytest.mark.default_embedding

NOTE = (
    "Patient John Smith (MRN A12B-4471) is a 54-year-old male seen on 2023-01-15 at Boston "
    "General for chest pain and hypertension. Echocardiogram normal. Mr. O'Neil's e-mail: "
    "jsmith@example.com, phone (617) 555-0134."
)


@pytest.fixture(scope="module")
def anon() -> Anonymizer:
    """Every token through the mechanism, layouts kept (the properties below are the mechanism's;
    the default's neutral phone and ID layouts are tested in ``test_formats.py``)."""
    return Anonymizer(seed=11, neutral_formats=False)


def _split_parts(token: str) -> list[str]:
    return [p for p in split_joined(token) if p]


def _is_word_part(part: str) -> bool:
    # letters written as symbols (circled letters, tag characters) are letters too
    return all(ch.isalpha() or ch in HIDDEN_LETTERS or unicodedata.category(ch).startswith("M")
               for ch in part)


def assert_nothing_survives(src: str, out: str) -> None:
    """Every word part changed at its position and is not a variant of itself; every number or
    code keeps its shape (each character drawn afresh from its class, so it may repeat);
    whitespace and punctuation unchanged."""
    a, b = WORD_SPLIT_RE.split(src), WORD_SPLIT_RE.split(out)
    assert len(a) == len(b), "token alignment lost"
    assert a[0::2] == b[0::2], "whitespace or punctuation changed"
    for tok_in, tok_out in zip(a[1::2], b[1::2]):
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
            else:  # number or code: same shape
                chars = [c for c in x if not unicodedata.category(c).startswith("M")]
                assert len(chars) == len(y)
                for c, d in zip(chars, y):
                    assert d.isascii() and d.isalnum()
                    assert c.isalpha() == d.isalpha()
                    if c.isalpha():
                        assert c.isupper() == d.isupper()


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
    assert out1[0] == out1[2], "the same record under the same key is released the same"
    assert a1.anonymize(NOTE + " ") != out1[0], "another text is another record: fresh noise"


def test_output_independent_of_jobs_and_chunking() -> None:
    docs = [f"{NOTE} number {i}" for i in range(40)]
    anon = Anonymizer(seed=9)
    serial = list(anon.anonymize_many(docs))
    assert serial == list(Anonymizer(seed=9).anonymize_many(docs, jobs=2))
    for cut in (1, 3, 17):  # any chunking of the records
        chunked = [out for start in range(0, len(docs), cut)
                   for out in anonymize_records(docs[start : start + cut], anon.config, anon.key)]
        assert chunked == serial
    # a pure function of (text, config, key)
    assert anonymize_text(docs[7], anon.config, anon.key) == serial[7]


def test_no_key_uses_the_default_key_and_fresh_noise_is_asked_for_by_name() -> None:
    """Issue 33: without a key every run drew a fresh one, so re-running composed."""
    first, again = Anonymizer(), Anonymizer()
    assert first.key.secret == again.key.secret and first.key.origin == "default"
    assert first.anonymize(NOTE) == again.anonymize(NOTE)
    fresh = Anonymizer(key=ReleaseKey.fresh())
    assert fresh.key.secret != first.key.secret and fresh.key.origin == "fresh"


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
    outs = {anon.anonymize(f"hypertension {i}").split()[0] for i in range(40)}  # 40 records
    assert len(outs) > 1
    # replacements come from the neighborhood of the composed vector, not uniformly at random
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


def test_a_clitic_after_a_number_is_kept(anon: Anonymizer) -> None:
    """The property test above drew ``0'S``: the ``S`` became a word (``2'The``), and ``in the
    1990's`` came out ``in the 7043'be`` (decision 0632)."""
    out = anon.anonymize("in the 1990's and the 80's, 0'S")
    words = out.replace(",", "").split()
    assert [w[-2:] for w in (words[2], words[5], words[6])] == ["'s", "'s", "'S"]


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
    import embedanon.pipeline.plan as plan

    docs = [f"{NOTE} extra words number {i} zqxw{i}" for i in range(12)]
    anon = Anonymizer(seed=21, k=10)
    reference = [anonymize_records(docs[i : i + 4], anon.config, anon.key) for i in range(0, 12, 4)]
    anon.runtime.lexicon._plans.clear()
    monkeypatch.setattr(plan, "_CACHE_LIMIT", 40)  # forces clears inside every chunk
    again = [anonymize_records(docs[i : i + 4], anon.config, anon.key) for i in range(0, 12, 4)]
    assert again == reference
    assert len(anon.runtime.lexicon._plans) <= 80


@pytest.mark.parametrize("mechanism", ["knn", "exponential"])
def test_letters_written_as_symbols_never_survive(mechanism: str) -> None:
    """Circled, parenthesized and squared letters and invisible tag characters were read as
    punctuation and released verbatim in scope all; now they are words like any other."""
    hidden = ["Ⓙⓞⓗⓝ", "Ⓢⓜⓘⓣⓗ", "⒥⒪⒣⒩", "🄹🄾🄷🄽", "🅙🅞🅗🅝",
              "".join(chr(0xE0000 + ord(c)) for c in "JohnSmith")]
    text = "Patient " + " and ".join(hidden) + " seen 🇫🇷 🙂."
    params = {"epsilon": 14.0} if mechanism == "exponential" else {}
    out = Anonymizer(mechanism=mechanism, seed=5, **params).anonymize(text)
    assert not set("".join(hidden)).intersection(out)
    for word in hidden:
        assert word not in out
    assert "🇫🇷" in out and "🙂" in out  # flags and emoji are still punctuation


HYBRID = {"scope": "hybrid", "detectors": "regex", "allow": ["Boston"], "deny": {"Zorblat": "NAME"},
          "strategies": {"DATE": "keep"}}


@pytest.mark.parametrize("kwargs", [{}, HYBRID], ids=["all", "hybrid"])
def test_pickle_round_trip_gives_the_same_output(kwargs: dict) -> None:
    anon = Anonymizer(seed=1, **kwargs)
    texts = [NOTE + " Zorblat", "second note about pain"]
    copy = pickle.loads(pickle.dumps(anon))
    assert (copy.config, copy.key) == (anon.config, anon.key)
    assert [copy.anonymize(t) for t in texts] == [anon.anonymize(t) for t in texts]
    assert copy.anonymize_document(texts[0]) == anon.anonymize_document(texts[0])
    assert list(copy.anonymize_many(texts)) == list(anon.anonymize_many(texts))


def test_spawned_workers_give_the_same_output() -> None:
    """A fresh interpreter per worker (spawn): the runtime is rebuilt there from config and key."""
    anon, hybrid = Anonymizer(seed=1), Anonymizer(seed=1, **HYBRID)
    texts = [f"{NOTE} Zorblat number {i}" for i in range(4)]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        plain = list(pool.map(anon.anonymize, texts))
        scoped = list(pool.map(hybrid.anonymize_document, texts))
    assert plain == [anon.anonymize(t) for t in texts]
    assert scoped == [hybrid.anonymize_document(t) for t in texts]


def test_pickle_holds_only_config_and_key() -> None:
    anon = Anonymizer(seed=1)
    assert anon.__getstate__() == {"config": anon.config, "key": anon.key}
    assert anon.key.secret.hex() not in repr(anon.key)


@pytest.mark.parametrize(
    ("call", "message"),
    [(lambda a: list(a.anonymize_many("hello")), "texts must be a list/sequence of str, not one str"),
     (lambda a: a.anonymize_many(b"hello"), "not one bytes"),
     (lambda a: a.anonymize_many(5), "texts must be a list/sequence of str, got int"),
     # API audit: a dict's keys were anonymized in place of its texts
     (lambda a: a.anonymize_many({"r1": "John Smith"}), r"got dict \(its keys or column names"),
     # None is a missing cell, yielded back (tests/test_pandas.py); a number is no text
     (lambda a: list(a.anonymize_many(["hi", 12])), r"texts\[1\] must be str, got int"),
     (lambda a: a.anonymize(None), "text must be str, got NoneType")],
)
def test_wrong_argument_types_are_named(anon: Anonymizer, call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TypeError, match=message):
        call(anon)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"scope": "hybrid", "allow": "Parkinson"}, "allow must be a list of strings, not one str"),
     ({"scope": "hybrid", "allow": ["ok", 5]}, r"allow\[1\] must be str, got int"),
     ({"scope": "hybrid", "strategies": ["NAME=keep"]}, r"strategies must be a mapping .*'NAME': 'keep'.*got list"),
     ({"scope": "hybrid", "deny": ["Zorblat"]}, r"deny must be a mapping .*got list"),
     # API audit: these were str()-converted into ConfigErrors ("got 'none'", "got '1'")
     ({"scope": "hybrid", "strategies": {"NAME": None}}, "strategies must map str labels to str actions.*got str: NoneType"),
     ({"scope": "hybrid", "strategies": {1: "keep"}}, "strategies must map str labels.*got int: str"),
     ({"neutral_formats": "no"}, "neutral_formats must be True, False or None, got str"),
     ({"scope": "hybrid", "deny": {"Zorblat": 5}}, "deny values must be str labels.*got int"),
     ({"scope": "hybrid", "deny": {5: "NAME"}}, "deny keys must be str.*got int"),
     ({"scope": "hybrid", "detector_options": ["x"]}, "detector_options must be a mapping"),
     ({"scope": "hybrid", "detectors": ["regex"]}, "detectors must be a comma-separated str"),
     ({"scope": "hybrid", "surrogates": "x"}, "surrogates must be a SurrogateConfig, got str"),
     ({"scope": 1}, "scope must be 'all', 'detected', 'hybrid' or a ScopeConfig, got int"),
     ({"key": b"0" * 32}, "key must be a ReleaseKey or a key file path, got bytes"),
     ({"key": 5}, "key must be a ReleaseKey or a key file path, got int"),
     # API audit: these said "unknown embedding 'None'" / "unknown embedding \"b'minilm-words'\""
     ({"embedding": None}, "^embedding must be an embedding name or a file path, got NoneType$"),
     ({"embedding": b"minilm-words"}, "^embedding must be an embedding name or a file path, got bytes$"),
     ({"detector": "regex"}, "unexpected keyword 'detector' \\(did you mean 'detectors'\\?\\)"),
     ({"zzqq": 1}, "unexpected keyword 'zzqq'$")],
)
def test_wrong_constructor_types_are_named(kwargs: dict, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        Anonymizer(**kwargs)


def test_messages_never_quote_pii_strings() -> None:
    with pytest.raises(TypeError) as err:
        Anonymizer(scope="hybrid", deny={"Zorblat": 5})
    assert "Zorblat" not in str(err.value)
    with pytest.raises(TypeError) as err:
        list(Anonymizer(seed=1).anonymize_many(["John Smith", b"x"]))
    assert "John" not in str(err.value)


def test_parameter_of_another_mechanism_keeps_its_hint() -> None:
    with pytest.raises(ConfigError, match="mechanism 'knn' does not take 'gamma'.*mechanisms that take it: tem"):
        Anonymizer(gamma=1.0)


@pytest.mark.parametrize("scope", ["detected", "hybrid"])
def test_kept_formats_keep_the_layout_in_the_scoped_modes_as_on_the_command_line(scope: str) -> None:
    """neutral_formats=False alone keeps a phone's and an ID's layout in every scope, as the CLI's
    --keep-formats does (it used to keep them only in scope all: the scoped modes still gave the
    neutral layout unless a SurrogateConfig said keep-shape)."""
    anon = Anonymizer(seed=1, scope=scope, detectors="regex", neutral_formats=False)
    assert (anon.config.scope.surrogates.phone_format, anon.config.scope.surrogates.id_format) == (
        "keep-shape", "keep-shape")
    out = anon.anonymize("Call 617-555-0134 today, MRN 12345678.")
    assert re.search(r"(?<![\d-])\d{3}-\d{3}-\d{4}(?![\d-])", out) and re.search(r"(?<!\d)\d{8}(?!\d)", out)
    assert "617-555-0134" not in out and "12345678" not in out
    neutral = Anonymizer(seed=1, scope=scope, detectors="regex").config.scope.surrogates
    assert (neutral.phone_format, neutral.id_format) == ("neutral", "neutral")


def test_valid_surrogates_still_accepted() -> None:
    anon = Anonymizer(seed=1, scope="hybrid", detectors="regex", neutral_formats=False,
                      surrogates=SurrogateConfig(phone_format="keep-shape"))
    assert anon.config.scope.surrogates.phone_format == "keep-shape"


@pytest.mark.parametrize("shaped", [{"phone_format": "keep-shape"}, {"id_format": "keep-shape"}])
def test_a_kept_shape_under_the_default_neutral_formats_is_refused_not_dropped(shaped: dict) -> None:
    with pytest.raises(ConfigError, match="keep-shape.*neutral_formats=False"):
        Anonymizer(seed=1, scope="hybrid", detectors="regex", surrogates=SurrogateConfig(**shaped))
    pattern = SurrogateConfig(phone_format="(555) ###-####")  # a fixed layout is a neutral one
    assert Anonymizer(seed=1, surrogates=pattern).config.scope.surrogates == pattern


def test_the_texts_content_alone_is_its_identity(anon: Anonymizer) -> None:
    """The identity of a record is its text, as a ``.txt`` line's always was: the identity of older
    versions for field ``""`` (so every ``.txt`` release is unchanged), and no field name in it."""
    texts = ["Patient reports chest pain.", "Seen by the nurse at night."]
    tags = anon.runtime.source(anon.key).tags([b"\x00" + t.encode() for t in texts])
    from embedanon.pipeline.replace import replace_texts

    expected, _ = replace_texts(anon.runtime, anon.runtime.source(anon.key), texts, tags)
    assert anonymize_records(texts, anon.config, anon.key) == expected


def test_scope_settings_beside_a_scope_config_are_refused_not_ignored() -> None:
    from embedanon.config import ScopeConfig

    scope = ScopeConfig(scope="hybrid", detectors="regex")
    assert Anonymizer(seed=1, scope=scope).config.scope == scope
    for extra in ({"detectors": "model"}, {"strategies": {"NAME": "keep"}}, {"allow": ["Parkinson"]},
                  {"deny": {"Zorblat": "NAME"}}, {"neutral_formats": True}):
        with pytest.raises(TypeError, match="inside the ScopeConfig"):
            Anonymizer(seed=1, scope=scope, **extra)


@pytest.mark.parametrize("kwargs", [{"detectors": "regex"}, {"strategies": {"NAME": "keep"}},
                                    {"allow": ["Parkinson"]}, {"deny": {"Zorblat": "NAME"}},
                                    {"detector_options": {"model_threshold": 0.5}}])
def test_detection_settings_in_scope_all_are_refused_not_ignored(kwargs: dict) -> None:
    """QA pass 3: the command line refused them, the API accepted and ignored them."""
    with pytest.raises(ConfigError, match="needs scope 'detected' or 'hybrid'"):
        Anonymizer(seed=1, **kwargs)
    Anonymizer(seed=1, scope="detected", **kwargs)  # where they mean something


def test_strategies_in_scope_all_with_neutral_formats_are_kept() -> None:
    Anonymizer(seed=1, strategies={"PHONE": "redact"}, neutral_formats=True)


@pytest.mark.parametrize(
    ("config", "key", "message"),
    [("ok", None, "key must be a ReleaseKey .*got NoneType"),
     ("ok", "release.key", "key must be a ReleaseKey .*got str"),
     (None, "ok", "config must be an AnonymizerConfig, got NoneType"),
     ({}, "ok", "config must be an AnonymizerConfig, got dict")],
)
def test_record_functions_name_a_wrong_config_or_key(anon: Anonymizer, config, key, message: str) -> None:  # type: ignore[no-untyped-def]
    from embedanon import anonymize_document, anonymize_text

    config = anon.config if config == "ok" else config
    key = anon.key if key == "ok" else key
    for call in (anonymize_document, anonymize_text):
        with pytest.raises(TypeError, match=message):
            call("John Smith", config, key)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"mechanism": "laplace", "epsilon": 10**400}, "epsilon"),
     ({"mechanism": "exponential", "epsilon": 10**400}, "epsilon"),
     ({"mechanism": "tem", "epsilon": 10, "gamma": 10**400}, "gamma"),
     ({"mechanism": "mahalanobis", "epsilon": 10, "lam": 10**400}, "lam")],
)
def test_an_integer_beyond_the_float_range_is_a_config_error(kwargs: dict, name: str) -> None:
    with pytest.raises(ConfigError, match=f"{name} must be .*got an integer too large for a float") as info:
        Anonymizer(seed=1, **kwargs)
    assert "0000" not in str(info.value)


@pytest.mark.parametrize("text", [
    "The well-known follow-up of a left-sided non-small-cell mass was re-evaluated in the x-ray.",
    "John's dog didn't bark; we'll see O'Neil at 10:30, COVID19 x-ray2 e-mail.",
    "Visit https://www.example.org/a-b today", "Ⓙⓞⓗⓝ café naïve résumé", "", "42 17:30 A1B2"])
def test_mechanism_draws_count_the_word_parts_the_mechanism_replaces(anon: Anonymizer, text: str) -> None:
    """Epsilon spent counted word tokens: 'non-small-cell' was one word, for three draws (QA 4)."""
    from embedanon.text import mechanism_draws

    doc = anon.anonymize_document(text)
    assert mechanism_draws(text) == sum(1 for item in doc.items if item.kind == "word")


@pytest.mark.parametrize(("make", "error", "message"), [
    (lambda: Anonymizer(mechanism="exponential", epsilon=[5]), TypeError, "params: epsilon must be a number"),
    (lambda: Anonymizer(seed=1, scope="hybrid", detectors="regex", detector_options={"llm_url": ["x"]}),
     TypeError, "detector_options: llm_url must be a number"),
    (lambda: AnonymizerConfig(params=[("k", 5)]), TypeError, "params must be a tuple of"),
    (lambda: AnonymizerConfig(params={"k": 5}), TypeError, "params must be a tuple of"),
    (lambda: AnonymizerConfig(scope="hybrid"), TypeError, "scope must be a ScopeConfig"),
    (lambda: AnonymizerConfig(mechanism=None), TypeError, "mechanism must be str"),
    (lambda: AnonymizerConfig(min_length=True), TypeError, "min_length must be int"),
    (lambda: Anonymizer(seed=10**5000), ConfigError, r"seed must be at most 2\*\*256 - 1, got an integer of"),
    (lambda: Anonymizer(seed=-(10**5000)), ConfigError, "got an integer of 16610 bits"),
])
def test_config_values_are_checked_where_they_are_given(make, error, message: str) -> None:  # type: ignore[no-untyped-def]
    """QA pass 5: these raised ``unhashable type: 'list'``, an AttributeError from deep inside, or
    Python's own digit-limit ValueError."""
    with pytest.raises(error, match=message):
        make()


def test_a_k_beyond_a_small_embedding_says_how_many_candidates_it_has(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """QA pass 6: a two-word embedding gave 'k must be at most 1, got 10' without saying why."""
    vectors = tmp_path / "two.txt"
    vectors.write_text("2 3\napple 1 0 0\nbread 0 1 0\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="at most 1: the embedding has only 2 candidate words"):
        Anonymizer(str(vectors), "knn", seed=1).anonymize("apple")


def test_a_bad_index_is_named_as_the_anonymizer_calls_it() -> None:
    """API audit: ``Anonymizer(index="annoy")`` said ``approximate must be ...``, the name of a
    parameter the Anonymizer does not have."""
    with pytest.raises(ConfigError, match="^index must be one of flat, hnsw, auto, got 'annoy'$"):
        Anonymizer(seed=1, index="annoy")
    # second API audit: the exported AnonymizerConfig itself still said 'approximate'
    with pytest.raises(ConfigError, match="^index must be one of flat, hnsw, auto, got 'annoy'$"):
        AnonymizerConfig(index="annoy")


def test_anonymize_many_names_a_backend_that_is_not_an_engine(anon: Anonymizer) -> None:
    """API audit: ``backend="dask"`` failed with ``'str' object has no attribute 'map'``."""
    with pytest.raises(TypeError, match="^backend must be an engine object .*got str$"):
        anon.anonymize_many(["hello"], backend="dask")  # type: ignore[arg-type]


def test_anonymize_many_refuses_jobs_beside_a_backend(anon: Anonymizer) -> None:
    """API audit: ``jobs=4`` beside a backend was ignored without a word (the CLI refuses
    ``--jobs`` with ``--engine dask``); one worker count with a backend is the default."""
    from embedanon.backends.processes import ProcessBackend

    with pytest.raises(ConfigError, match="give jobs or backend, not both"):
        anon.anonymize_many(["hello"], jobs=2, backend=ProcessBackend(jobs=1))
    assert list(anon.anonymize_many(["hello"], backend=ProcessBackend(jobs=1))) == [anon.anonymize("hello")]


def test_equal_parameters_of_other_number_types_give_one_digest() -> None:
    """API audit: ``epsilon=13``, ``13.0`` and ``numpy.float64(13)`` made equal configurations
    and the same release but three ``digest()`` values (the digest hashed ``repr``), though the
    digest is documented as equal for the same configuration and key."""
    np = pytest.importorskip("numpy")
    made = [Anonymizer(seed=7, mechanism="exponential", epsilon=e) for e in (13, 13.0, np.float64(13))]
    assert len({a.digest() for a in made}) == 1
    assert made[0].config.params == (("epsilon", 13.0),) and type(made[0].config.params[0][1]) is float
    assert Anonymizer(seed=7, k=np.int64(5)).digest() == Anonymizer(seed=7, k=5).digest()


@pytest.mark.parametrize(("texts", "message"), [
    ("John Smith", "^texts must be a list of str, not one str$"),
    (b"John Smith", "^texts must be a list of str, not one bytes$"),
    (None, "^texts must be a list of str, got NoneType$"),
    ((t for t in ["John Smith"]), "^texts must be a list of str, got generator$"),
])
def test_batch_record_functions_refuse_what_is_not_a_list_of_texts(anon: Anonymizer, texts: object,
                                                                   message: str) -> None:
    """API audit: ``anonymize_records("John", ...)`` released four one-letter texts, and a
    generator was used up by the type check, so ``[]`` came back with nothing anonymized."""
    from embedanon.pipeline import anonymize_documents

    for call in (anonymize_records, anonymize_documents):
        with pytest.raises(TypeError, match=message):
            call(texts, anon.config, anon.key)  # type: ignore[arg-type]
    assert anonymize_records(("John Smith",), anon.config, anon.key) == [anon.anonymize("John Smith")]
