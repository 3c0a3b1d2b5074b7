"""The leak-guard redraw of the fast path: one noise call per chunk, the same numbers as one call
per unit, and the same output as the plain reference."""

from __future__ import annotations

import numpy as np
import pytest

from embedanon import Anonymizer
from embedanon.leakguard import oov_variants
from embedanon.noise import Stage, integers
from embedanon.pipeline import anonymize_documents
from embedanon.pipeline.plan import Word
from embedanon.pipeline.reference import reference_document
from embedanon.pipeline.replace import _guard
from embedanon.text import lookup_key
from tests.helpers.noise import fast_key

pytestmark = pytest.mark.default_embedding

# Words outside the embedding whose proxies' neighborhoods hold variants of them, so the guard
# redraws several of them in one chunk (checked below: the test fails if none is redrawn).
OOV = ("johnsons hypertensives echocardiograms laparoscopically okonkwo zyxqv smithson patientss "
       "cardiomyopathies bronchoscopies appendectomies kowalczyk dlamini").split()


def test_chunk_of_guard_redraws_equals_reference() -> None:
    anon = Anonymizer(key=fast_key(7))
    texts = [" ".join(OOV * 8), " ".join(reversed(OOV * 5)) + " and " + " ".join(OOV)]
    docs = [anon.anonymize_document(t) for t in texts]
    together = anonymize_documents(texts, anon.config, anon.key)  # one chunk
    redrawn = 0
    for text, doc, joint in zip(texts, docs, together, strict=True):
        ref = reference_document(text, anon.config, anon.key)
        assert doc.text == joint.text == ref.text
        assert doc.items == joint.items == ref.items
        redrawn += sum(item.stage == "guard" for item in doc.items)
        for item in doc.items:  # no output is a variant of its original
            assert not oov_variants(lookup_key(text[item.start : item.end]),
                                    lookup_key(doc.text[item.new_start : item.new_end]))
    assert redrawn >= 5, "the fixture no longer exercises batched redraws"


def test_redraws_without_guarded_candidates_match_one_call_per_unit() -> None:
    """Words with no guarded candidates (``safe`` empty) redraw uniformly until the pick is not a
    variant, attempt ``a`` in stream ``a``: compared with the per-unit loop written out here."""
    anon = Anonymizer(key=fast_key(8))
    rt = anon.runtime
    source = rt.source(anon.key)
    words = rt.store.words
    # Outputs that are variants of their originals, so every unit is redrawn.
    pairs = [("johnsonx", "johnson"), ("patientz", "patient"), ("hearts", "heart"), ("pains", "pain")]
    ids = [rt.store.id_of(w) for _, w in pairs]
    assert min(ids) >= 0
    oov = [(2 * i + 1, Word(-1, 0, key)) for i, (key, _) in enumerate(pairs)]  # odd units only
    n_units = 2 * len(pairs) + 1
    out = np.zeros(n_units, dtype=np.int64)
    out[[u for u, _ in oov]] = ids
    stages = np.full(n_units, int(Stage.FALLBACK), dtype=np.int64)
    tags = np.repeat(source.tags([b"record"]), n_units, axis=0)
    ordinals = np.arange(n_units, dtype=np.int64) + 100

    expected = out.copy()
    for unit, word in oov:
        noise = source.noise(tags[unit : unit + 1], Stage.GUARD, ordinals[unit : unit + 1])
        for attempt in range(1000):
            pick = int(rt.index.candidates[integers(noise, rt.index.n_candidates, attempt)[0]])
            if not oov_variants(word.guard or "", words[pick]):
                expected[unit] = pick
                break

    _guard(rt, source, oov, out, stages, tags, ordinals)
    assert out.tolist() == expected.tolist()
    assert stages[[u for u, _ in oov]].tolist() == [int(Stage.GUARD)] * len(oov)
    assert stages[0] == int(Stage.FALLBACK)  # units outside the list are left alone
