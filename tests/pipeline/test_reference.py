"""The fast chunk path against the plain reference: identical text and items for the same key."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from embedanon import Anonymizer
from embedanon.pipeline import anonymize_documents, anonymize_records
from embedanon.pipeline.reference import reference_document
from tests.helpers.noise import fast_key

pytestmark = pytest.mark.default_embedding

PIECES = st.sampled_from([
    "john", "Johns", "PATIENT", "patients", "echocardiogram", "hypertension", "laparoscopic",
    "o'neil", "don't", "patient's", "e-mail", "covid19", "A12B", "MRN-88213", "2024-01-15", "7",
    "555-0134", "naïve", "Zyxqv", "qwrtpz", "日本", "x", "I", "émile", "Müller", "½", "ǅ",
    "jo.smith@gmail.com", "www.example.org", "https://bbc.co.uk/path", "mail.net", "ORG", "A@B.CO",
    "Ⓙⓞⓗⓝ", "🅙3", "\U000e004a\U000e006f", "㈱",  # letters written as symbols (text.HIDDEN_LETTERS)
])
SEPARATORS = st.sampled_from([" ", ", ", "\n", " - ", "'", "", "\t(", ") "])


@st.composite
def texts(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.tuples(PIECES, SEPARATORS), max_size=25))
    return "".join(p + s for p, s in parts)


@pytest.fixture(scope="module", params=[("knn", {"k": 10}), ("exponential", {"epsilon": 12.0}),
                                        pytest.param(("laplace", {"epsilon": 70.0}), marks=pytest.mark.slow)],
                ids=["knn", "exponential", "laplace"])
def anon(request: pytest.FixtureRequest) -> Anonymizer:
    mechanism, params = request.param
    return Anonymizer(mechanism=mechanism, key=fast_key(3), **params)


def _check(anon: Anonymizer, batch: list[str]) -> None:
    fast = anonymize_documents(batch, anon.config, anon.key)
    plain = anonymize_records(batch, anon.config, anon.key)
    for text, doc, out in zip(batch, fast, plain):
        ref = reference_document(text, anon.config, anon.key)
        assert doc.text == ref.text == out
        assert doc.items == ref.items


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(texts(), min_size=1, max_size=4))
def test_fast_path_equals_reference(anon: Anonymizer, batch: list[str]) -> None:
    _check(anon, batch)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.text(max_size=40), min_size=1, max_size=3))
def test_fast_path_equals_reference_on_any_text(anon: Anonymizer, batch: list[str]) -> None:
    _check(anon, batch)


def test_simple_fast_path_equals_reference() -> None:
    """Text whose every token is one in-vocabulary word takes the fully vectorised branch."""
    anon = Anonymizer(key=fast_key(4))
    batch = ["the patient was seen today", "pain in the chest", ""]
    for text, out in zip(batch, anonymize_records(batch, anon.config, anon.key)):
        assert out == reference_document(text, anon.config, anon.key).text


def test_items_locate_every_replacement() -> None:
    anon = Anonymizer(key=fast_key(5))
    text = "Mr. O'Neil's MRN-88213, seen 2024-01-15 for hypertension."
    doc = anon.anonymize_document(text)
    kept = 0
    prev_end = prev_new_end = 0
    for item in doc.items:  # outside the items, the text is the original's
        assert text[prev_end : item.start] == doc.text[prev_new_end : item.new_start]
        kept += item.start - prev_end
        prev_end, prev_new_end = item.end, item.new_end
    assert text[prev_end:] == doc.text[prev_new_end:]
    words = [text[i.start : i.end] for i in doc.items if i.kind == "word"]
    codes = [text[i.start : i.end] for i in doc.items if i.kind == "code"]
    assert words == ["Mr", "O", "Neil", "MRN", "seen", "for", "hypertension"]  # the clitic 's is kept
    assert codes == ["88213", "2024", "01", "15"]
