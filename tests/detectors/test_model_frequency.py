"""The ``frequency_bands`` feature option of the ``model`` detector (round 25): a word's band in the
shipped public frequency list as one more own feature, switched by the manifest, carried over by
domain adaptation."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from embedanon.detectors.bio import CLASSES, absent_word_shifts, decode
from embedanon.detectors.features import OWN_SLOTS, SLOTS, frequency_band, public_ranks, tokenize
from embedanon.detectors.model import ModelDetector
from embedanon.detectors.training import featurize_records, fit, train
from embedanon.detectors.weights import Weights, make_featurizer, shipped_path
from embedanon.errors import ConfigError
from embedanon.privacy.prior import word_frequencies
from tests.helpers.detector import fast_path_probabilities, name_records

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
    return name_records(n, seed=5)


def _flag_round_trip(tmp_path, flag: str) -> Path:
    """Train a tiny model with ``flag`` (and the bands it needs); check that the manifest switches
    the features (negative control: the same weights read without the flag score differently)
    and that domain adaptation keeps the flag. Returns the model directory."""
    flags = {"frequency_bands": True, flag: True}
    featurizer = make_featurizer([], 2**14, **flags)
    weights = fit(featurize_records(featurizer, _tiny_records(80)), featurizer.dense_table,
                  buckets=2**14, clusters=[], epochs=4, seed=0)
    weights.manifest = {"threshold": 0.5, **flags}
    path = weights.save(tmp_path / flag)
    flagged = fast_path_probabilities(ModelDetector(path=path), TEXT)  # fast path = reference
    manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    (path / "manifest.json").write_text(json.dumps({**manifest, flag: False}))
    assert not np.allclose(flagged, ModelDetector(path=path).probabilities(TEXT)[2])
    (path / "manifest.json").write_text(json.dumps(manifest))
    adapted = train(_tiny_records(6), base=str(path), epochs=2, seed=1)
    assert adapted.manifest[flag] is True and adapted.manifest["frequency_bands"] is True
    return path


def test_the_manifest_flag_switches_the_features_and_adaptation_keeps_it(tmp_path):
    _flag_round_trip(tmp_path, "frequency_bands")
    plain = make_featurizer([], 2**14)  # a base trained without the feature stays without it
    examples = featurize_records(plain, _tiny_records(80))
    weights = fit(examples, plain.dense_table, buckets=2**14, clusters=[], epochs=2, seed=0)
    weights.manifest = {"threshold": 0.5}
    adapted_plain = train(_tiny_records(6), base=str(weights.save(tmp_path / "plain")), epochs=1, seed=1)
    assert adapted_plain.manifest["frequency_bands"] is False


# -- band_context (round 26) ------------------------------------------------------------------------


def _with_and_without(flag: str):
    """Tokens of TEXT and its (ids, rows) under the bands alone and under the bands plus ``flag``."""
    toks = tokenize(TEXT)
    plain = make_featurizer([], 2**14, frequency_bands=True).featurize(TEXT, toks)
    flagged = make_featurizer([], 2**14, frequency_bands=True, **{flag: True}).featurize(TEXT, toks)
    return toks, plain, flagged


def test_band_context_adds_one_own_id_and_two_context_ids_to_letter_tokens_only():
    toks, (ids_b, rows_b), (ids_c, rows_c) = _with_and_without("band_context")
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


def test_band_context_ids_follow_band_and_neighbor_not_the_word_itself():
    crossed = make_featurizer([], 2**14, frequency_bands=True, band_context=True)

    def ids(text: str, word: str) -> np.ndarray:
        toks = tokenize(text)
        row = crossed.featurize(text, toks)[0][toks.words.index(word)]
        n_ctx = int(np.count_nonzero(make_featurizer([], 2**14, frequency_bands=True)
                                     .featurize(text, toks)[0][0, OWN_SLOTS:]))
        return row[OWN_SLOTS + n_ctx : OWN_SLOTS + n_ctx + 2]

    a = ids("He said Thembekile left.", "Thembekile")
    b = ids("He said Nomathemba left.", "Nomathemba")  # another absent word, same neighbors
    c = ids("He said Patient left.", "Patient")  # a listed word, same neighbors
    d = ids("He told Thembekile off.", "Thembekile")  # the same word, other neighbors
    assert np.array_equal(a, b)
    assert not np.isin(a, c).any()
    assert not np.isin(a, d).any()


def test_band_context_needs_the_bands():
    with pytest.raises(ValueError, match="band_context"):
        make_featurizer([], 2**14, band_context=True)


def test_band_context_flag_switches_the_features_and_adaptation_keeps_it(tmp_path):
    path = _flag_round_trip(tmp_path, "band_context")
    # a manifest asking for the crossing without the bands is refused, not read wrongly
    manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    (path / "manifest.json").write_text(json.dumps({**manifest, "frequency_bands": False}))
    with pytest.raises(ConfigError, match="band_context"):
        ModelDetector(path=path)


# -- absent_spelling (round 27, candidate H) -------------------------------------------------------


def test_absent_spelling_moves_only_the_affixes_and_trigrams_of_absent_words():
    toks, (ids_b, rows_b), (ids_a, rows_a) = _with_and_without("absent_spelling")
    assert np.array_equal(rows_b, rows_a) and np.array_equal(ids_b[:, OWN_SLOTS:], ids_a[:, OWN_SLOTS:])
    ranks = public_ranks()
    moved = []
    for i, word in enumerate(toks.words):
        own_b, own_a = _own(ids_b[i]), _own(ids_a[i])
        assert len(own_b) == len(own_a)
        if word[:1].isalpha() and word.lower() not in ranks:
            moved.append(word)
            n_spell = 6 + min(len(word) + 2 - 2, 10)  # p1..x4 and the trigrams, after w, s, len
            changed = np.flatnonzero(own_b != own_a)
            assert changed.tolist() == list(range(3, 3 + n_spell))
        else:
            assert np.array_equal(ids_b[i], ids_a[i])
    assert moved == ["Thembekile"]  # the one word of TEXT outside the public list


def test_absent_spelling_gives_two_absent_words_the_same_affix_ids_and_a_listed_word_others():
    apart = make_featurizer([], 2**14, frequency_bands=True, absent_spelling=True)

    def own(word: str) -> set[int]:
        text = f"Call {word} today."
        return set(_own(apart.featurize(text, tokenize(text))[0][1]).tolist())

    assert "thembisile" not in public_ranks() and "nomathembile" not in public_ranks()
    assert "mobile" in public_ranks()
    shared_absent = own("Thembisile") & own("Nomathembile")  # -ile, -le, <shape>, len, band ...
    shared_mixed = own("Thembisile") & own("Mobile")
    # the suffix ids (x2=le, x3=ile, g=ile, g=le>) are shared between the absent words only
    assert len(shared_absent) > len(shared_mixed) + 3


def test_absent_spelling_flag_switches_the_features_and_is_refused_without_bands(tmp_path):
    with pytest.raises(ValueError, match="absent_spelling"):
        make_featurizer([], 2**14, absent_spelling=True)
    _flag_round_trip(tmp_path, "absent_spelling")


# -- absent_threshold (round 27, candidate A) -------------------------------------------------------


def _proba(entity: list[float]) -> np.ndarray:
    """Class probabilities with the given B-NAME probability per token (the rest on O)."""
    p = np.zeros((len(entity), len(CLASSES)), dtype=np.float32)
    p[:, CLASSES.index("B-NAME")] = entity
    p[:, 0] = 1.0 - p[:, CLASSES.index("B-NAME")]
    return p


def test_absent_word_shifts_lower_only_absent_letter_words_the_decode_can_reach():
    text = "Ask Thembisile or Jennifer or x 42 Nomathembile today"
    toks = tokenize(text)
    entity = [0.0, 0.06, 0.0, 0.06, 0.0, 0.06, 0.06, 0.001, 0.0]  # Nomathembile: below _ACTIVE
    proba = _proba(entity)
    base = math.log(0.1 / 0.9)
    shifts = absent_word_shifts(text, toks.starts, toks.ends, proba, base, 0.05)
    low = math.log(0.05 / 0.95)
    assert isinstance(shifts, np.ndarray)
    expected = [low if w == "Thembisile" else base for w in toks.words]  # x: one letter; 42: digits
    np.testing.assert_allclose(shifts, expected)
    # not lower than the text's own threshold: no change at all
    assert absent_word_shifts(text, toks.starts, toks.ends, proba, base, 0.2) == base
    # nothing absent within reach: the float back
    known = tokenize("Ask Jennifer")
    assert absent_word_shifts("Ask Jennifer", known.starts, known.ends, _proba([0.0, 0.06]), base, 0.05) == base


def test_decode_with_per_token_shifts():
    text = "Ask Thembisile or Jennifer today"
    toks = tokenize(text)
    proba = _proba([0.0, 0.07, 0.0, 0.07, 0.0])
    base = math.log(0.1 / 0.9)
    # a constant array decodes as the float does
    assert decode(toks.starts, toks.ends, proba, o_shift=np.full(5, base)) == decode(
        toks.starts, toks.ends, proba, o_shift=base)
    assert decode(toks.starts, toks.ends, proba, o_shift=base) == []
    shifts = absent_word_shifts(text, toks.starts, toks.ends, proba, base, 0.05)
    found = decode(toks.starts, toks.ends, proba, o_shift=shifts)
    assert [text[s.start : s.end] for s in found] == ["Thembisile"]


def test_absent_threshold_from_the_manifest(tmp_path):
    shipped = Weights.load(shipped_path())
    text = "Please add Thembisile as a contact."
    shipped.manifest = {**shipped.manifest, "threshold": 0.5}
    plain = ModelDetector(path=shipped.save(tmp_path / "plain"))
    p_name = 1.0 - float(plain.probabilities(text)[2][2, 0])
    assert 0.1 < p_name < 0.5  # the case this test needs (shipped weights)
    assert plain.detect(text) == []  # negative control: under the text's threshold
    shipped.manifest = {**shipped.manifest, "absent_threshold": 0.1}
    flagged = ModelDetector(path=shipped.save(tmp_path / "flagged"))
    assert [text[s.start : s.end] for s in flagged.detect(text)] == ["Thembisile"]
    for bad in (0, 1.5, "0.1", True):
        shipped.manifest = {**shipped.manifest, "absent_threshold": bad}
        with pytest.raises(ConfigError, match="absent_threshold"):
            ModelDetector(path=shipped.save(tmp_path / "bad"))


# -- absent_affixes (round 28, candidate D) --------------------------------------------------------


def test_absent_affixes_add_six_own_ids_to_absent_words_and_widen_the_row():
    copied = make_featurizer([], 2**14, frequency_bands=True, absent_affixes=True)
    assert (copied.own_slots, copied.slots) == (OWN_SLOTS + 6, SLOTS + 6)
    toks, (ids_b, rows_b), (ids_c, rows_c) = _with_and_without("absent_affixes")
    assert ids_c.shape == (len(toks.words), copied.slots) and np.array_equal(rows_b, rows_c)
    # the context block is the same, only moved right
    assert np.array_equal(ids_b[:, OWN_SLOTS:], ids_c[:, copied.own_slots :])
    for i, word in enumerate(toks.words):
        own_b = _own(ids_b[i])
        own_c = ids_c[i, : int(np.flatnonzero(ids_c[i, : copied.own_slots])[-1]) + 1]
        extra = 6 if word == "Thembekile" else 0  # the one word of TEXT outside the public list
        assert len(own_c) == len(own_b) + extra and set(own_b.tolist()) <= set(own_c.tolist())


def test_absent_affix_copies_are_shared_by_absent_words_only():
    copied = make_featurizer([], 2**14, frequency_bands=True, absent_affixes=True)
    banded = make_featurizer([], 2**14, frequency_bands=True)

    def extra(word: str) -> set[int]:
        text = f"Call {word} today."
        toks = tokenize(text)
        return set(copied.featurize(text, toks)[0][1].tolist()) - set(banded.featurize(text, toks)[0][1].tolist())

    assert "thembisile" not in public_ranks() and "thandisile" not in public_ranks()
    assert extra("Mobile") == set()  # a listed word: no copy
    assert len(extra("Thembisile")) == 6
    shared = extra("Thembisile") & extra("Thandisile")  # copies of p1=t, p2=th, x2=le, x3=ile, x4=sile
    assert len(shared) == 5


def test_absent_affixes_flag_switches_the_features_and_spelling_dropout_reaches_the_copies(tmp_path):
    with pytest.raises(ValueError, match="absent_affixes"):
        make_featurizer([], 2**14, absent_affixes=True)
    featurizer = make_featurizer([], 2**14, frequency_bands=True, absent_affixes=True)
    records = _tiny_records(80)
    examples = featurize_records(featurizer, records)
    dropped = featurize_records(featurizer, records, spelling_dropout=0.5, seed=3)
    hit = (dropped.ids[:, 3] == 0) & (examples.ids[:, 3] != 0)  # letter tokens whose spelling was dropped
    copies = np.count_nonzero(examples.ids[:, : featurizer.own_slots], axis=1) > OWN_SLOTS
    assert (hit & copies).any()  # among them absent words with their six copies ...
    assert not dropped.ids[hit, 3 : featurizer.own_slots].any()  # ... which go too
    _flag_round_trip(tmp_path, "absent_affixes")
