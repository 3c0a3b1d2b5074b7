"""The ``frequency_bands`` feature option of the ``model`` detector (round 25): a word's band in the
shipped public frequency list as one more own feature, switched by the manifest, carried over by
domain adaptation."""

from __future__ import annotations

import json

import numpy as np
import pytest

from embedanon.detectors.features import OWN_SLOTS, frequency_band, tokenize
from embedanon.detectors.model import (
    ModelDetector,
    featurize_records,
    fit,
    make_featurizer,
    public_ranks,
    train,
)
from embedanon.errors import ConfigError
from embedanon.privacy.prior import word_frequencies
from tests.helpers.detector import fast_path_probabilities

pytestmark = pytest.mark.default_embedding

TEXT = "Thanks, Thembekile! The 3 results are in: call Dr. Okafor about the hypertension."


@pytest.mark.parametrize(("rank", "band"), [(-1, "absent"), (0, "<1000"), (999, "<1000"),
                                            (1000, "<10000"), (9999, "<10000"), (10000, "<30000"),
                                            (29999, "<30000"), (30000, "listed"), (99999, "listed")])
def test_frequency_band_edges(rank, band):
    assert frequency_band(rank) == band


def test_public_ranks_follow_the_shipped_list():
    ranks = public_ranks()
    freqs = word_frequencies()
    assert len(ranks) <= len(freqs) and len(ranks) > 90_000
    assert ranks["the"] < 5 and "thembekile" not in ranks
    # rank order is frequency order (independent check on a few listed words)
    listed = [w for w in ("the", "patient", "hypertension", "pneumothorax") if w in freqs]
    by_freq = sorted(listed, key=lambda w: -freqs[w])
    assert sorted(listed, key=ranks.__getitem__) == by_freq


def _own(row: np.ndarray) -> np.ndarray:
    return row[: int(np.flatnonzero(row[:OWN_SLOTS])[-1]) + 1]


def test_the_option_adds_one_own_feature_to_letter_tokens_and_nothing_else():
    plain = make_featurizer([], 2**14)
    banded = make_featurizer([], 2**14, frequency_bands=True)
    toks = tokenize(TEXT)
    ids_p, rows_p = plain.featurize(TEXT, toks)
    ids_b, rows_b = banded.featurize(TEXT, toks)
    assert np.array_equal(rows_p, rows_b)
    assert np.array_equal(ids_p[:, OWN_SLOTS:], ids_b[:, OWN_SLOTS:])  # context block unchanged
    band_ids = {}
    for i, word in enumerate(toks.words):
        own_p, own_b = _own(ids_p[i]), _own(ids_b[i])
        if word[:1].isalpha():  # the plain ids in order, with one id inserted (before iv)
            extra = [j for j in range(len(own_b))
                     if np.array_equal(np.delete(own_b, j), own_p)]
            assert len(own_b) == len(own_p) + 1 and extra
            band = frequency_band(public_ranks().get(word.lower(), -1))
            band_ids.setdefault(band, set()).add(int(own_b[extra[0]]))
        else:
            assert np.array_equal(ids_p[i], ids_b[i])
    # one id per band: `absent` (Thembekile, Okafor) differs from the frequent words' band
    assert all(len(v) == 1 for v in band_ids.values())
    assert band_ids["absent"] != band_ids["<1000"]


def _tiny_records(n: int) -> list[dict]:
    rng = np.random.default_rng(5)
    names = ["Thembekile Dube", "Amina Okafor", "Wei Zhang", "Carlos Ruiz", "Sipho Nkosi"]
    out = []
    for _ in range(n):
        name = names[int(rng.integers(len(names)))]
        text = f"Thanks, {name}! See you at the clinic."
        out.append({"text": text, "spans": [{"start": 8, "end": 8 + len(name), "label": "NAME"}]})
    return out


def test_the_manifest_flag_switches_the_features_and_adaptation_keeps_it(tmp_path):
    featurizer = make_featurizer([], 2**14, frequency_bands=True)
    examples = featurize_records(featurizer, _tiny_records(80))
    weights = fit(examples, featurizer.dense_table, buckets=2**14, clusters=[], epochs=4, seed=0)
    weights.manifest = {"threshold": 0.5, "frequency_bands": True}
    path = weights.save(tmp_path / "banded")
    detector = ModelDetector(path=path)
    banded = fast_path_probabilities(detector, TEXT)  # fast path = reference, banded features
    # negative control: the same weights read without the flag score differently
    manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    (path / "manifest.json").write_text(json.dumps({**manifest, "frequency_bands": False}))
    unflagged = ModelDetector(path=path).probabilities(TEXT)[2]
    assert not np.allclose(banded, unflagged)
    (path / "manifest.json").write_text(json.dumps(manifest))
    # domain adaptation from this base keeps the flag (and so the base's features)
    adapted = train(_tiny_records(6), base=str(path), epochs=2, seed=1)
    assert adapted.manifest["frequency_bands"] is True
    plain = make_featurizer([], 2**14)  # a base trained without the feature stays without it
    examples = featurize_records(plain, _tiny_records(80))
    weights = fit(examples, plain.dense_table, buckets=2**14, clusters=[], epochs=2, seed=0)
    weights.manifest = {"threshold": 0.5}
    adapted_plain = train(_tiny_records(6), base=str(weights.save(tmp_path / "plain")), epochs=1, seed=1)
    assert adapted_plain.manifest["frequency_bands"] is False


# -- band_context (round 26) ------------------------------------------------------------------------


def test_band_context_adds_one_own_id_and_two_context_ids_to_letter_tokens_only():
    banded = make_featurizer([], 2**14, frequency_bands=True)
    crossed = make_featurizer([], 2**14, frequency_bands=True, band_context=True)
    toks = tokenize(TEXT)
    ids_b, rows_b = banded.featurize(TEXT, toks)
    ids_c, rows_c = crossed.featurize(TEXT, toks)
    assert np.array_equal(rows_b, rows_c)
    n_ctx = int(np.count_nonzero(ids_b[0, OWN_SLOTS:]))  # context + layout columns, all set
    # every earlier context column is unchanged; two new ones follow them
    assert np.array_equal(ids_b[:, OWN_SLOTS : OWN_SLOTS + n_ctx], ids_c[:, OWN_SLOTS : OWN_SLOTS + n_ctx])
    new = ids_c[:, OWN_SLOTS + n_ctx : OWN_SLOTS + n_ctx + 2]
    assert not ids_c[:, OWN_SLOTS + n_ctx + 2 :].any()
    for i, word in enumerate(toks.words):
        own_b, own_c = _own(ids_b[i]), _own(ids_c[i])
        if word[:1].isalpha():
            assert len(own_c) == len(own_b) + 1 and new[i].all()
        else:  # digits and punctuation: no band, so no crossed ids (padding)
            assert np.array_equal(own_b, own_c) and not new[i].any()


def test_band_context_ids_follow_band_and_neighbour_not_the_word_itself():
    crossed = make_featurizer([], 2**14, frequency_bands=True, band_context=True)

    def ids(text: str, word: str) -> np.ndarray:
        toks = tokenize(text)
        row = crossed.featurize(text, toks)[0][toks.words.index(word)]
        n_ctx = int(np.count_nonzero(make_featurizer([], 2**14, frequency_bands=True)
                                     .featurize(text, toks)[0][0, OWN_SLOTS:]))
        return row[OWN_SLOTS + n_ctx : OWN_SLOTS + n_ctx + 2]

    a = ids("He said Thembekile left.", "Thembekile")
    b = ids("He said Nomathemba left.", "Nomathemba")  # another absent word, same neighbours
    c = ids("He said Patient left.", "Patient")  # a listed word, same neighbours
    d = ids("He told Thembekile off.", "Thembekile")  # the same word, other neighbours
    assert np.array_equal(a, b)
    assert not np.isin(a, c).any()
    assert not np.isin(a, d).any()


def test_band_context_needs_the_bands():
    with pytest.raises(ValueError, match="band_context"):
        make_featurizer([], 2**14, band_context=True)


def test_band_context_flag_switches_the_features_and_adaptation_keeps_it(tmp_path):
    featurizer = make_featurizer([], 2**14, frequency_bands=True, band_context=True)
    examples = featurize_records(featurizer, _tiny_records(80))
    weights = fit(examples, featurizer.dense_table, buckets=2**14, clusters=[], epochs=4, seed=0)
    weights.manifest = {"threshold": 0.5, "frequency_bands": True, "band_context": True}
    path = weights.save(tmp_path / "crossed")
    crossed = fast_path_probabilities(ModelDetector(path=path), TEXT)
    manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    # negative control: without the flag the same weights score differently
    (path / "manifest.json").write_text(json.dumps({**manifest, "band_context": False}))
    assert not np.allclose(crossed, ModelDetector(path=path).probabilities(TEXT)[2])
    # a manifest asking for the crossing without the bands is refused, not read wrongly
    (path / "manifest.json").write_text(json.dumps({**manifest, "frequency_bands": False}))
    with pytest.raises(ConfigError, match="band_context"):
        ModelDetector(path=path)
    (path / "manifest.json").write_text(json.dumps(manifest))
    adapted = train(_tiny_records(6), base=str(path), epochs=2, seed=1)
    assert adapted.manifest["band_context"] is True and adapted.manifest["frequency_bands"] is True
