"""The trained ``model`` detector: training learns, a shuffled-label control does not, weights
round-trip, the shipped model runs without torch and finds obvious PII, spans are valid."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import numpy as np
import pytest

from embedanon.detectors.base import LABELS, Span
from embedanon.detectors.features import OWN_SLOTS, spherical_kmeans, tokenize
from embedanon.detectors.model import (
    _START,
    _TRANS,
    CLASSES,
    ModelDetector,
    Weights,
    best_path,
    featurize_records,
    fit,
    make_featurizer,
    read_span_records,
    shipped_path,
    token_labels,
    viterbi,
)
from embedanon.errors import ConfigError, InputError
from tests.helpers.detector import fast_path_probabilities

pytestmark = pytest.mark.default_embedding

TRAIN_NAMES = [
    "Amina Okafor",
    "Wei Zhang",
    "Carlos Ruiz",
    "Priya Nair",
    "Jonas Berg",
    "Fatima Haddad",
    "Kwame Mensah",
    "Yuki Tanaka",
    "Lucia Rossi",
    "Omar Farouk",
    "Emily Clark",
    "Ivan Petrov",
]
TEST_NAMES = ["Ngozi Adeyemi", "Hiroshi Sato", "Mateo Alvarez", "Anjali Rao", "Sven Lund", "Layla Nasser"]
TEMPLATES = [
    "Please call {} tomorrow about the results.",
    "Thanks, {}! See you at the clinic.",
    "The report was signed by {} this morning.",
    "Name: {}\nReason for visit: cough.",
    "I spoke with {} about the essay.",
    "{}: I think the dose is fine.",
]


def _records(names: list[str], rng: np.random.Generator, n: int) -> list[dict]:
    out = []
    for i in range(n):
        name = names[int(rng.integers(len(names)))]
        tpl = TEMPLATES[int(rng.integers(len(TEMPLATES)))]
        a = tpl.index("{}")
        text = tpl.format(name)
        out.append(
            {"id": str(i), "text": text, "spans": [{"start": a, "end": a + len(name), "label": "NAME"}]}
        )
    return out


def _name_recall(detector: ModelDetector, records: list[dict]) -> tuple[float, float]:
    found = right = total = 0
    for r in records:
        spans = detector.detect(r["text"])
        g = r["spans"][0]
        found += any(s.start < g["end"] and g["start"] < s.end and s.label == "NAME" for s in spans)
        right += sum(s.start < g["end"] and g["start"] < s.end for s in spans)
        total += len(spans)
    return found / len(records), (right / total if total else 0.0)


def _train_tiny(records: list[dict], tmp_path, name: str) -> ModelDetector:
    featurizer = make_featurizer([], 2**14)
    examples = featurize_records(featurizer, records)
    weights = fit(examples, featurizer.dense_table, buckets=2**14, clusters=[], epochs=8, seed=0)
    weights.manifest = {"threshold": 0.5}
    return ModelDetector(path=weights.save(tmp_path / name))


@pytest.fixture(scope="module")
def shipped() -> ModelDetector:
    return ModelDetector()


def test_tiny_training_learns_unseen_names_and_shuffled_labels_do_not(tmp_path):
    rng = np.random.default_rng(7)
    train = _records(TRAIN_NAMES, rng, 240)
    test = _records(TEST_NAMES, rng, 60)
    recall, precision = _name_recall(_train_tiny(train, tmp_path, "real"), test)
    assert recall >= 0.9 and precision >= 0.8
    # Negative control: the same texts with each label moved to a random place of its text.
    shuffled = []
    for r in train:
        toks = tokenize(r["text"])
        k = int(rng.integers(len(toks.words)))
        shuffled.append(
            dict(r, spans=[{"start": int(toks.starts[k]), "end": int(toks.ends[k]), "label": "NAME"}])
        )
    recall_c, precision_c = _name_recall(_train_tiny(shuffled, tmp_path, "shuffled"), test)
    assert recall_c < 0.6 or precision_c < 0.5


def test_word_dropout_removes_only_word_features_of_letter_tokens():
    featurizer = make_featurizer([], 2**14)
    records = _records(TRAIN_NAMES, np.random.default_rng(3), 40)
    plain = featurize_records(featurizer, records)
    dropped = featurize_records(featurizer, records, word_dropout=0.5, seed=1)
    assert np.array_equal(plain.y, dropped.y) and np.array_equal(plain.ids[:, 1:], dropped.ids[:, 1:])
    gone = (plain.ids[:, 0] != dropped.ids[:, 0])
    assert 0.3 < gone.mean() < 0.6 and (dropped.ids[gone, 0] == 0).all()
    words = [w for r in records for w in tokenize(r["text"]).words]
    assert all(words[i][:1].isalpha() for i in np.flatnonzero(gone))
    again = featurize_records(featurizer, records, word_dropout=0.5, seed=1)
    assert np.array_equal(again.ids, dropped.ids)  # seeded
    with pytest.raises(ConfigError):
        featurize_records(featurizer, records, word_dropout=1.0)


def test_spelling_dropout_removes_a_letter_tokens_own_features_and_keeps_shape_and_context():
    featurizer = make_featurizer(spherical_kmeans_clusters(), 2**14)
    records = _records(TRAIN_NAMES, np.random.default_rng(3), 40)
    plain = featurize_records(featurizer, records, word_dropout=0.25, seed=1)
    again = featurize_records(featurizer, records, word_dropout=0.25, spelling_dropout=0.0, seed=1)
    assert np.array_equal(plain.ids, again.ids) and np.array_equal(plain.rows, again.rows)  # p = 0: as before
    dropped = featurize_records(featurizer, records, word_dropout=0.25, spelling_dropout=0.5, seed=1)
    assert np.array_equal(plain.y, dropped.y)
    words = [w for r in records for w in tokenize(r["text"]).words]
    gone = dropped.rows[:, 1] != plain.rows[:, 1]
    assert 0.2 < gone.mean() < 0.6
    assert all(words[i][:1].isalpha() for i in np.flatnonzero(gone))
    for i in np.flatnonzero(gone):
        own = np.flatnonzero(plain.ids[i, :OWN_SLOTS])
        assert dropped.rows[i, 1] == 0 and dropped.ids[i, 0] == 0
        assert (dropped.ids[i, 3 : own[-1] + 1] == 0).all()  # affixes, trigrams, clusters
        assert np.array_equal(dropped.ids[i, 1:3], plain.ids[i, 1:3])  # shape and length stay
    kept = ~gone
    assert np.array_equal(dropped.ids[kept, 1:], plain.ids[kept, 1:])
    # the context block and the neighbours' rows are never touched
    assert np.array_equal(dropped.ids[:, OWN_SLOTS:], plain.ids[:, OWN_SLOTS:])
    assert np.array_equal(dropped.rows[:, [0, 2]], plain.rows[:, [0, 2]])
    with pytest.raises(ConfigError):
        featurize_records(featurizer, records, spelling_dropout=1.0)


def test_keep_words_never_lose_their_id_and_leave_the_other_draws_alone():
    featurizer = make_featurizer([], 2**14)
    records = _records(TRAIN_NAMES, np.random.default_rng(3), 40)
    plain = featurize_records(featurizer, records, word_dropout=0.5, seed=1)
    kept = featurize_records(featurizer, records, word_dropout=0.5, keep_words={"the", "thanks"}, seed=1)
    words = [w.lower() for r in records for w in tokenize(r["text"]).words]
    protected = np.array([w in {"the", "thanks"} for w in words])
    assert protected.any() and (plain.ids[protected, 0] == 0).any()  # dropout did hit them without the set
    assert (kept.ids[protected, 0] != 0).all()
    assert np.array_equal(kept.ids[~protected], plain.ids[~protected])  # the same draws elsewhere


def spherical_kmeans_clusters() -> list[np.ndarray]:
    """Two small cluster levels over random unit vectors of the embedding's width (cluster ids appear)."""
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(200, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return [spherical_kmeans(vecs, 8, seed=1), spherical_kmeans(vecs, 16, seed=2)]


def _spans(text: str, names, *, label: str = "NAME", score: float = 0.8) -> list[Span]:
    """Sorted spans over the first occurrence of each string in text."""
    return sorted((Span(text.index(n), text.index(n) + len(n), label, score, "model") for n in names),
                  key=lambda s: s.start)


def _coord(text: str, names: list[str]) -> list[str]:
    from embedanon.detectors.model import extend_coordinations

    toks = tokenize(text)
    spans = _spans(text, names, score=0.9)
    return [text[s.start : s.end] for s in extend_coordinations(text, toks.starts, toks.ends, spans)]


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        ("Usamov and Bowers were engineers.", ["Usamov"], ["Usamov", "Bowers"]),
        ("Torpy and Salinas were engineers.", ["Salinas"], ["Torpy", "Salinas"]),
        ("Our founders: Monjeau, Graves and Reed.", ["Monjeau", "Reed"], ["Monjeau", "Graves", "Reed"]),
        ("Ask Ana Ruiz or Mei Lin today.", ["Ana Ruiz"], ["Ana Ruiz", "Mei Lin"]),
        ("Ask Ana, and Bo Chen too.", ["Ana"], ["Ana", "Bo Chen"]),
        # negative controls: a bare comma, lower case, longer capitalized phrases, function words
        ("Yesterday, Amina came.", ["Amina"], ["Amina"]),
        ("Amina, Thanks for that.", ["Amina"], ["Amina"]),
        ("usamov and bowers were engineers.", ["usamov"], ["usamov"]),
        ("Okafor and Reed Elsevier Group agreed.", ["Okafor"], ["Okafor"]),
        ("Okafor and The Beatles played.", ["Okafor"], ["Okafor"]),
        ("Okafor and her sister came.", ["Okafor"], ["Okafor"]),
    ],
)
def test_coordinations_extend_names_only_where_they_should(text, names, expected):
    assert _coord(text, names) == expected


def test_coordination_rule_runs_only_when_the_manifest_asks():
    from embedanon.detectors.model import extend_coordinations

    detector = ModelDetector(path=shipped_path())
    text = "Thanks to Amina Okafor and Bowers, the report was done."
    detector.weights.manifest = {**detector.weights.manifest, "coordination": False, "propagation": False}
    plain = detector.detect(text)
    detector.weights.manifest = {**detector.weights.manifest, "coordination": True}
    toks = tokenize(text)
    assert detector.detect(text) == extend_coordinations(text, toks.starts, toks.ends, plain)


def _prop(text: str, names: list[str], others: tuple[tuple[str, str], ...] = ()) -> list[tuple[str, int]]:
    from embedanon.detectors.model import propagate_names

    toks = tokenize(text)
    spans = _spans(text, names)
    for value, label in others:
        spans += _spans(text, [value], label=label, score=0.9)
    spans.sort(key=lambda s: s.start)
    out = propagate_names(text, toks.starts, toks.ends, spans)
    assert all(a.end <= b.start for a, b in zip(out, out[1:], strict=False))  # sorted, disjoint
    return [(text[s.start : s.end], s.start) for s in out if s.label == "NAME"]


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        ("Blessing: hi\nTeacher: ok\nBlessing: thanks", ["Blessing"], ["Blessing", "Blessing"]),
        ("Ask Ana Ruiz. RUIZ agreed; later Ruiz left.", ["Ana Ruiz"], ["Ana Ruiz", "RUIZ", "Ruiz"]),
        ("thanks amina! amina said hi", ["amina"], ["amina", "amina"]),
        ("Chukwu, Blessing was seen. blessing is ok.", ["Chukwu, Blessing"], ["Chukwu, Blessing"]),
        # negative controls: a lower-case occurrence of a capitalized name, function words and
        # particles, one-letter initials, no name at all
        ("Will Smith came. He will return.", ["Will Smith"], ["Will Smith"]),
        ("Send it to Mark. We mark the exams.", ["Mark"], ["Mark"]),
        ("Maria de Souza wrote de novo.", ["Maria de Souza"], ["Maria de Souza"]),
        ("J. Okafor and J. Reed came.", ["J. Okafor"], ["J. Okafor"]),
        ("Nothing here, Okafor.", [], []),
    ],
)
def test_propagation_marks_other_occurrences_of_the_same_shape(text, names, expected):
    assert [w for w, _ in _prop(text, names)] == expected


def test_propagation_leaves_words_inside_other_spans_alone():
    text = "Amina wrote from amina.okafor@example.org; Amina again."
    got = _prop(text, ["Amina"], (("amina.okafor@example.org", "EMAIL"),))
    assert got == [("Amina", 0), ("Amina", text.rindex("Amina"))]


def test_propagation_rule_runs_only_when_the_manifest_asks():
    from embedanon.detectors.model import propagate_names

    detector = ModelDetector(path=shipped_path())
    assert detector.weights.manifest.get("propagation") is True  # the shipped rule (round 11)
    text = "Blessing: I finished.\nTutor: Good.\nBlessing: Thanks!\nTutor: Bye Blessing."
    detector.weights.manifest = {**detector.weights.manifest, "propagation": False}
    plain = detector.detect(text)
    detector.weights.manifest = {**detector.weights.manifest, "propagation": True}
    toks = tokenize(text)
    full = detector.detect(text)
    assert full == propagate_names(text, toks.starts, toks.ends, plain) and len(full) > len(plain)


def _inv(text: str, names: list[str]) -> list[str]:
    from embedanon.detectors.model import join_inverted_names

    out = join_inverted_names(text, _spans(text, names))
    return [text[s.start : s.end] for s in out]


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        ("NAME: Okafor, Patience\nResults", ["Okafor"], ["Okafor, Patience"]),
        ("NAME: Okafor, Patience\nResults", ["Okafor,"], ["Okafor, Patience"]),  # span ends on the comma
        ("Patient: Okafor, Patience", ["Patience"], ["Okafor, Patience"]),
        ("PATIENT NAME: NNAMANI, PATIENCE", ["NNAMANI"], ["NNAMANI, PATIENCE"]),
        ("x\n  student name: chukwu, blessing\ny", ["chukwu,"], ["chukwu, blessing"]),
        ("Student Name: O'Neil, Mary-Jane", ["O'Neil"], ["O'Neil, Mary-Jane"]),
        # negative controls: no label, label mid-line, more words, other case shape, function word,
        # both sides or neither found, a span that is not the whole word
        ("Okafor, Patience", ["Okafor"], ["Okafor"]),
        ("Send it to: Okafor, Patience", ["Okafor"], ["Okafor"]),
        ("Name: Okafor, Patience Ada", ["Okafor"], ["Okafor"]),
        ("Name: Okafor, patience", ["Okafor"], ["Okafor"]),
        ("Name: Okafor, And", ["Okafor"], ["Okafor"]),
        ("Name: Okafor, Patience", ["Okafor", "Patience"], ["Okafor", "Patience"]),
        ("Name: Okafor, Patience", [], []),
        ("Name: Okafor, Patience", ["Okaf"], ["Okaf"]),
    ],
)
def test_inverted_header_names_join_only_where_they_should(text, names, expected):
    assert _inv(text, names) == expected


def test_inverted_names_rule_runs_only_when_the_manifest_asks():
    detector = ModelDetector(path=shipped_path())
    assert detector.weights.manifest.get("inverted_names") is True  # the shipped rule (round 12)
    text = "PATIENT NAME: Nnamani, Patience\nNEEDLE EMG: normal study."
    joined = [s for s in detector.detect(text) if s.label == "NAME"]
    detector.weights.manifest = {**detector.weights.manifest, "inverted_names": False}
    plain = [s for s in detector.detect(text) if s.label == "NAME"]
    assert [text[s.start : s.end] for s in joined] == ["Nnamani, Patience"]
    assert [text[s.start : s.end].rstrip(",") for s in plain] == ["Nnamani"]


def _hon(text: str, names: list[str] = ()) -> list[str]:
    from embedanon.detectors.model import name_after_honorifics

    spans = _spans(text, names)
    out = name_after_honorifics(text, spans, score=0.1, source="model")
    assert all(s.score == 0.1 for s in out if s not in spans)
    return [text[s.start : s.end] for s in out]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Everyone calls me Mrs. He. Login now.", ["He"]),
        ("subjective: mr. fu returns today", ["fu"]),
        ("Dr Okafor came.", ["Okafor"]),
        ("Prof. O'Neil-Smith spoke.", ["O'Neil-Smith"]),
        ("SEEN BY DR. OKAFOR TODAY", ["OKAFOR"]),
        ("Mr. and Mrs. Smith", ["Smith"]),
        # negative controls: lower case after a capitalized title, upper-case title before a
        # title-case word, stop words, initials, a title inside a word
        ("the Dr. said so", []),
        ("the dr. said so", []),
        ("history of MS. Patient denies pain", []),
        ("mr. and mrs. he", []),
        ("Dr. J came", []),
        ("the drums. Ma came", []),
        ("A 10 ms delay was seen.", []),
    ],
)
def test_word_after_an_honorific_is_a_name_where_it_should_be(text, expected):
    assert _hon(text) == expected


def test_honorific_rule_keeps_existing_spans_and_runs_only_when_the_manifest_asks():
    assert _hon("Mrs. He came", ["Mrs. He"]) == ["Mrs. He"]
    detector = ModelDetector(path=shipped_path())
    assert detector.weights.manifest.get("honorifics") is True  # the shipped rule (round 13)
    text = "Everyone calls me Mrs. He. Login from IP 10.0.0.1 failed."
    with_rule = [text[s.start : s.end] for s in detector.detect(text) if s.label == "NAME"]
    detector.weights.manifest = {**detector.weights.manifest, "honorifics": False}
    without = [text[s.start : s.end] for s in detector.detect(text) if s.label == "NAME"]
    assert "He" not in without and "He" in with_rule


def _widen(text: str, names: list[str], others: tuple[tuple[str, str], ...] = ()) -> list[str]:
    from embedanon.detectors.model import widen_to_whole_words

    spans = sorted(_spans(text, names) + [Span(text.index(w), text.index(w) + len(w), lab, 0.9, "regex")
                                          for w, lab in others], key=lambda s: s.start)
    return [text[s.start : s.end] for s in widen_to_whole_words(text, spans)]


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        ("Thanks, Bao-Li-Hsiang, see you.", ["Bao-"], ["Bao-Li-Hsiang"]),
        ("Thanks, Bao-Li-Hsiang, see you.", ["Hsiang"], ["Bao-Li-Hsiang"]),
        ("Koivula and Chin-Lung.", ["Koivula", "Chin"], ["Koivula", "Chin-Lung"]),
        ("Hi S'fiso, welcome", ["fiso"], ["S'fiso"]),
        ("PATIENT: Ntanzi, S'fiso-sibongile", ["Ntanzi, S"], ["Ntanzi, S'fiso-sibongile"]),
        # negative controls: a possessive, a spaced dash, a whole word, a trailing comma
        ("It was Boutin's family.", ["Boutin"], ["Boutin"]),
        ("Ana - Ben came", ["Ana"], ["Ana"]),
        ("Ana-Maria came", ["Ana-Maria"], ["Ana-Maria"]),
        ("Ask Adu, then go", ["Adu,"], ["Adu,"]),
    ],
)
def test_name_spans_are_widened_to_whole_words(text, names, expected):
    assert _widen(text, names) == expected


def test_widening_stops_at_neighbouring_spans_and_leaves_other_labels():
    text = "mail Ana-ana@x.org now"
    assert _widen(text, ["Ana"], (("ana@x.org", "EMAIL"),)) == ["Ana", "ana@x.org"]
    text = "call Jean-Luc"
    assert _widen(text, [], (("Jean", "ID"),)) == ["Jean"]  # only NAME spans are widened


def _turns(text: str, names: list[str] = ()) -> list[str]:
    from embedanon.detectors.model import name_speaker_turns

    spans = _spans(text, names)
    out = name_speaker_turns(text, spans, score=0.1, source="model")
    assert all(s.score == 0.1 and s.label == "NAME" for s in out if s not in spans)
    return [text[s.start : s.end] for s in out]


_CHAT = "Dr. Yaman - Good morning.\nThembisile: Sorry, I was late.\nDr. Yaman: Fine.\nThembisile> Thanks.\n"


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        (_CHAT, ["Yaman"], ["Yaman", "Thembisile", "Thembisile"]),
        ("Tutor: hi\nVu-an - hello\nTutor: so?\nVu-an: yes\n", [], ["Vu-an", "Vu-an"]),
        ("tutor: hi\nzanele: hello\ntutor: so?\nzanele: yes\n", [], ["zanele", "zanele"]),
        # negative controls: no known speaker, a speaker with one turn, section headers,
        # upper-case headers in mixed-case text, too few turns
        ("Kofi: hi\nAma: hello\nKofi: so?\nAma: yes\n", [], []),
        ("Tutor: hi\nAma: hello\nTutor: so?\n", [], []),
        ("Tutor: hi\nPlan: rest\nTutor: so?\nPlan: more rest\n", [], []),
        ("Patient: Ana Ruiz\nHPI: cough\nPatient: fine\nHPI: none\n", ["Ana Ruiz"], ["Ana Ruiz"]),
        ("Tutor: hi\nAma: hello\n", [], []),
    ],
)
def test_speaker_turns_become_names_where_they_should(text, names, expected):
    assert _turns(text, names) == expected


def test_case_aware_coordination_takes_lower_case_list_ends_only():
    from embedanon.detectors.model import extend_coordinations

    def coord(text: str, names: list[str], case_aware: bool = True) -> list[str]:
        toks = tokenize(text)
        out = extend_coordinations(text, toks.starts, toks.ends, _spans(text, names), case_aware=case_aware)
        return [text[s.start : s.end] for s in out]

    assert coord("tymoteusz czermak and nomthandazo.", ["tymoteusz czermak"]) == [
        "tymoteusz czermak", "nomthandazo"]
    assert coord("sent to jaremko, and nowanqa. then", ["jaremko"]) == ["jaremko", "nowanqa"]
    assert coord("tymoteusz czermak and nomthandazo.", ["tymoteusz czermak"], False) == ["tymoteusz czermak"]
    # negative controls: the list goes on, a stop word, a quantifier, upper-case text, mixed case
    assert coord("kimura and shibase started it", ["kimura"]) == ["kimura"]
    assert coord("ana and the rest.", ["ana"]) == ["ana"]
    assert coord("both oñate and shu.", ["shu"]) == ["oñate", "shu"]
    assert coord("SAPTONO AND HEIDRUN.", ["SAPTONO"]) == ["SAPTONO"]
    assert coord("Ana and bob.", ["Ana"]) == ["Ana"]


def test_case_aware_propagation_and_inverted_names():
    from embedanon.detectors.model import join_inverted_names, propagate_names

    text = "Good morning COmfort!\nCOmfort: thanks. Comfort is key."
    toks = tokenize(text)
    spans = _spans(text, ["COmfort"])
    plain = propagate_names(text, toks.starts, toks.ends, spans)
    aware = propagate_names(text, toks.starts, toks.ends, spans, case_aware=True)
    assert [text[s.start : s.end] for s in plain] == ["COmfort"]
    assert [(s.start, text[s.start : s.end]) for s in aware] == [(13, "COmfort"), (22, "COmfort")]
    text = "PATIENT NAME: Adu, COmfort\nDOB: 1970"
    spans = _spans(text, ["Adu,"])
    assert [text[s.start : s.end] for s in join_inverted_names(text, spans)] == ["Adu,"]
    assert [text[s.start : s.end] for s in join_inverted_names(text, spans, case_aware=True)] == ["Adu, COmfort"]
    text = "Name: Adu, comfort\n"
    spans = _spans(text, ["Adu,"])
    assert [text[s.start : s.end] for s in join_inverted_names(text, spans, case_aware=True)] == ["Adu,"]


def _list(text: str, names: list[str]) -> list[str]:
    from embedanon.detectors.model import name_list_items

    spans = _spans(text, names)
    return [text[s.start : s.end] for s in name_list_items(text, spans)]


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        ("Attendees: Qiang Peng, Oba, Noor, Myriam P. Derouiche and Jeff.",
         ["Qiang Peng", "Oba", "Myriam P. Derouiche"], ["Qiang Peng", "Oba", "Noor", "Myriam P. Derouiche", "Jeff"]),
        ("Blocked 10.0.0.1 Afolarin, Sani B. Jibril and Jeff Bezos went.", ["Sani B. Jibril", "Jeff Bezos"],
         ["Afolarin", "Sani B. Jibril", "Jeff Bezos"]),
        ("attendees: linet, bairbel baasim, radit, folu and william m. dawson.",
         ["linet", "bairbel baasim", "william m. dawson"],
         ["linet", "bairbel baasim", "radit", "folu", "william m. dawson"]),
        ("the founders were benchapatranon, kučerová and eze.", ["kučerová", "eze"],
         ["benchapatranon", "kučerová", "eze"]),
        ("Team:\n1. Borys W. Tarasek\n2. I-Chun Chen\n3. Thembisile\n4. Linnea Eriksson\n",
         ["Borys W. Tarasek", "I-Chun Chen", "Linnea Eriksson"],
         ["Borys W. Tarasek", "I-Chun Chen", "Thembisile", "Linnea Eriksson"]),
        # negative controls: half the items named, no connector, a drug list, a lower-case word that
        # is not a list end, upper-case text, a numbered list that is mostly not names
        ("We saw Ana, Bo, Paris and London.", ["Ana", "Bo"], ["Ana", "Bo"]),
        ("It was fun. Basically, Richie, Eddie and Bo ran.", ["Richie", "Eddie"], ["Richie", "Eddie", "Bo"]),
        ("Dressings of Owen silk, Kling, Kerlix, and Coban.", ["Kerlix", "Coban"], ["Kerlix", "Coban"]),
        ("Ana, Bo, Cy, Di went home.", ["Ana", "Bo", "Cy"], ["Ana", "Bo", "Cy"]),
        ("MEDICATIONS: Lisinopril, Aspirin, Zocor, and Prilosec.", ["Lisinopril", "Zocor", "Prilosec"],
         ["Lisinopril", "Zocor", "Prilosec"]),
        ("Yesterday, Ana, Bo and the rest went.", ["Ana", "Bo"], ["Ana", "Bo"]),
        ("SEEN: ANA, BO, CY AND DI.", ["ANA", "BO", "DI"], ["ANA", "BO", "DI"]),
        ("Plan:\n1. Borys Tarasek\n2. Aspirin\n3. Rest\n4. Linnea Eriksson\n",
         ["Borys Tarasek", "Linnea Eriksson"], ["Borys Tarasek", "Linnea Eriksson"]),
    ],
)
def test_list_items_become_names_where_they_should(text, names, expected):
    assert _list(text, names) == expected


def _particles(text: str, names: list[str]) -> list[str]:
    from embedanon.detectors.model import join_name_particles

    return [text[s.start : s.end] for s in join_name_particles(text, _spans(text, names))]


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        ("Good morning Ella-Yfke 's Gravensande. Instead", ["Ella-Yfke"], ["Ella-Yfke 's Gravensande"]),
        ("attendees: sani and robin e. 's gravensande.", ["sani", "robin e"], ["sani", "robin e. 's gravensande"]),
        ("Student: Jake d' Heripon\nPatients", ["Jake d'"], ["Jake d' Heripon"]),
        ("we waited, but johannes g. d' heripon just", ["johannes g"], ["johannes g. d' heripon"]),
        # negative controls: a sentence end before the particle, a lower-case word after it in
        # mixed case, a tokenized possessive, a word taken by another span
        ("It was Ana. 's Gravensande is a town", ["Ana"], ["Ana"]),
        ("Ask Ana 's mother", ["Ana"], ["Ana"]),
        ("John 's car was red", ["John"], ["John"]),
        ("Jake d' Heripon", ["Jake d'", "Heripon"], ["Jake d'", "Heripon"]),
    ],
)
def test_name_particles_join_the_surname_where_they_should(text, names, expected):
    assert _particles(text, names) == expected


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        ("GROUP MEMBERS:\nSONIA FRUKACZ, UPIK SIREGAR AND ALBERTO", ["UPIK"], ["UPIK SIREGAR"]),
        ("ask hsiu-hsia or younes taibi before noon.", ["taibi"], ["younes taibi"]),
        ("We met Quan Siregar's family.", ["Quan"], ["Quan Siregar"]),
        ("Thanks, Amina Okafor-Adeyemi!", ["Amina"], ["Amina Okafor-Adeyemi"]),
        # negative controls: a common word either side, the text's case not kept, a doubtful span,
        # a line break, a word in another span, a span of two words already, a word that goes on
        ("She saw Smith Hospital today.", ["Smith"], ["Smith"]),
        ("Ask Ryan now.", ["Ryan"], ["Ryan"]),
        ("We met Ryan okafor.", ["Ryan"], ["Ryan"]),
        ("ANTEGRADE cardioplegia was given.", [("ANTEGRADE", 0.27)], ["ANTEGRADE"]),
        ("Siregar\nOkafor", ["Siregar"], ["Siregar"]),
        ("Ana Okafor", ["Ana", "Okafor"], ["Ana", "Okafor"]),
        ("Ana Okafor Siregar", ["Ana Okafor"], ["Ana Okafor"]),
        ("Ana Okafor2 came", ["Ana"], ["Ana"]),
    ],
)
def test_a_confident_one_word_name_takes_in_its_other_part(text, names, expected):
    from embedanon.detectors.model import complete_name_pairs

    spans = sorted((Span(text.index(n), text.index(n) + len(n), "NAME", p, "model")
                    for n, p in ((x, 0.8) if isinstance(x, str) else x for x in names)),
                   key=lambda s: s.start)
    assert [text[s.start : s.end] for s in complete_name_pairs(text, spans)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Daniel Bahri\nWage (wage94@yahoo.com)\n", ["Wage"]),
        ("Lungile (nyazitla_lungile@hotmail.com)", ["Lungile"]),
        ("write to okafor <a.okafor@example.org>", ["okafor"]),
        # negative controls: a mailbox word, a word that is not in the address, no brackets
        ("Support (support@example.com)", []),
        ("Contact Wage (info@example.com)", []),
        ("Wage wage94@yahoo.com", []),
    ],
)
def test_a_word_before_its_own_email_is_a_name(text, expected):
    from embedanon.detectors.model import name_before_own_email

    out = name_before_own_email(text, [], score=0.1, source="model")
    assert [text[s.start : s.end] for s in out] == expected and all(s.score == 0.1 for s in out)


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        ("Contacts:\nNomagugu Godide\nKai\nThembile\n", ["Nomagugu Godide", "Kai"],
         ["Nomagugu Godide", "Kai", "Thembile"]),
        ("- ana maria\n- thembile ndlandla\n- majd umar\n", ["ana maria", "ndlandla", "majd umar"],
         ["ana maria", "thembile ndlandla", "majd umar"]),
        ("Wei Kuo, +91 80454 05036\nThandiwe, +1 089 349 6100\nDan Li, +1 555 0100\n", ["Wei Kuo", "Dan Li"],
         ["Wei Kuo", "Thandiwe", "Dan Li"]),
        # negative controls: half the lines named, chat turns, the option off
        ("Findings:\nNormal heart\nClear lungs\nAna Ruiz\nBo Chen\n", ["Ana Ruiz", "Bo Chen"], ["Ana Ruiz", "Bo Chen"]),
        ("Ana Ruiz - hi\nCustomer - hello\nBo Chen - bye\n", ["Ana Ruiz", "Bo Chen"], ["Ana Ruiz", "Bo Chen"]),
    ],
)
def test_unmarked_line_lists_where_they_should(text, names, expected):
    from embedanon.detectors.model import name_list_items

    spans = _spans(text, names)
    assert [text[s.start : s.end] for s in name_list_items(text, spans, line_lists=True)] == expected
    assert name_list_items(text, spans) == spans  # off by default: round 16's behaviour


def test_two_word_speakers_vouch_for_a_transcript():
    from embedanon.detectors.model import name_speaker_turns

    text = "RAAKIN TALHA: HI\nTHEMBILE: IT IS\nRAAKIN TALHA: GOOD\nTHEMBILE> SKIP IT.\n"
    spans = _spans(text, ["RAAKIN TALHA"])
    out = name_speaker_turns(text, spans, score=0.1, source="model", two_word_speakers=True)
    assert [text[s.start : s.end] for s in out] == ["RAAKIN TALHA", "THEMBILE", "THEMBILE"]
    assert name_speaker_turns(text, spans, score=0.1, source="model") == spans


def test_round15_rules_run_only_when_the_manifest_asks():
    from embedanon.detectors.model import (
        DECODE_RULES,
        complete_name_pairs,
        join_name_particles,
        name_before_own_email,
        name_joined_words,
        name_list_items,
        name_speaker_turns,
        propagate_names,
        widen_to_whole_words,
    )

    detector = ModelDetector(path=shipped_path())
    base = {**detector.weights.manifest, **{k: False for k in DECODE_RULES}}
    texts = ["Tutor: Hello there, how are you.\nCOmfort: I am fine.\nTutor: Good.\nCOmfort: Thanks a lot.\n",
             "Good morning COmfort!\nCOmfort: thanks, Mr. Adu.\nTutor: Bao-Li-Hsiang, come in.\n",
             "Please thank Mrs. Chin-Lung Wu and Dr. S'fiso Ntanzi.",
             "Attendees: Qiang Peng, Oba, Noor, Myriam P. Derouiche and Jeff Okafor.",
             "Good morning Ella-Yfke 's Gravensande.\nDaniel Bahri\nWage (wage94@yahoo.com)\n",
             "GROUP MEMBERS: SONIA FRUKACZ, WAYAN SIREGAR AND ALBERTO MORENO.",
             "nd fibril architecture in fibrotic skin.\n\ncheers, i-hsuan\n"]
    changed = set()
    for text in texts:
        detector.weights.manifest = base
        plain = detector.detect(text)
        toks = tokenize(text)
        proba = detector.probabilities(text)[2]
        for flags, expect in (
            ({"whole_words": True}, widen_to_whole_words(text, plain)),
            ({"speaker_turns": True}, name_speaker_turns(text, plain, score=detector.threshold, source="model")),
            ({"propagation": True, "case_aware": True},
             propagate_names(text, toks.starts, toks.ends, plain, case_aware=True)),
            ({"lists": True}, name_list_items(text, plain)),
            ({"particles": True}, join_name_particles(text, plain)),
            ({"email_names": True}, name_before_own_email(text, plain, score=detector.threshold, source="model")),
            ({"name_pairs": True}, complete_name_pairs(text, plain)),
            ({"joined_names": True}, name_joined_words(text, toks.starts, toks.ends, proba, plain)),
        ):
            detector.weights.manifest = {**base, **flags}
            assert detector.detect(text) == expect
            if expect != plain:
                changed.add(next(iter(flags)))
    assert changed == {"whole_words", "speaker_turns", "propagation", "lists", "particles",
                       "email_names", "name_pairs", "joined_names"}  # each rule fired on some text


def test_weights_round_trip(tmp_path):
    rng = np.random.default_rng(3)
    c = len(CLASSES)
    weights = Weights(
        rng.normal(size=(1024, c)).astype(np.float32),
        rng.normal(size=(3 * 4, c)).astype(np.float32),
        rng.normal(size=c).astype(np.float32),
        [spherical_kmeans(rng.normal(size=(50, 4)).astype(np.float32) / 2, 5, seed=1)],
        {"threshold": 0.3},
    )
    loaded = Weights.load(weights.save(tmp_path / "w"))
    np.testing.assert_array_equal(loaded.sparse, weights.sparse.astype(np.float16).astype(np.float32))
    np.testing.assert_array_equal(loaded.dense, weights.dense.astype(np.float16).astype(np.float32))
    np.testing.assert_array_equal(loaded.bias, weights.bias)
    np.testing.assert_array_equal(
        loaded.clusters[0], weights.clusters[0].astype(np.float16).astype(np.float32)
    )
    assert loaded.manifest["threshold"] == 0.3 and loaded.manifest["classes"] == list(CLASSES)
    again = Weights.load(loaded.save(tmp_path / "w2"))
    np.testing.assert_array_equal(again.sparse, loaded.sparse)


def test_load_refuses_missing_or_foreign_weights(tmp_path):
    with pytest.raises(ConfigError, match="no weights.npz"):
        Weights.load(tmp_path)
    (tmp_path / "weights.npz").write_bytes(b"")
    (tmp_path / "manifest.json").write_text(json.dumps({"classes": ["O", "B-X"]}))
    with pytest.raises(ConfigError, match="other labels"):
        Weights.load(tmp_path)


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, True, "0.5"])
def test_threshold_validated(bad):
    with pytest.raises(ConfigError, match="threshold"):
        ModelDetector(threshold=bad)


@pytest.mark.parametrize("bad", [0, 1, 1.5, True, "0.05"])
def test_lower_threshold_validated(bad):
    with pytest.raises(ConfigError, match="lower_threshold"):
        ModelDetector(lower_threshold=bad)


def test_lower_threshold_applies_only_to_text_without_upper_case(tmp_path):
    shipped = ModelDetector()
    assert shipped.lower_threshold == shipped.threshold  # the shipped manifest has no lower_threshold
    lower = "ask kwame mensah and thandiwe dube about the visit."
    mixed = "Ask kwame mensah and thandiwe dube about the visit."
    near = ModelDetector(threshold=0.999, lower_threshold=1e-6)  # everything scored as an entity
    far = ModelDetector(threshold=0.999)  # the same strict threshold for both cases
    assert len(near.detect(lower)) > len(far.detect(lower))  # only the caseless text is affected
    assert near.detect(mixed) == far.detect(mixed)
    # the manifest value is the default only when the threshold is the manifest's too
    src = shipped_path()
    (tmp_path / "weights.npz").write_bytes((src / "weights.npz").read_bytes())
    manifest = json.loads((src / "manifest.json").read_text(encoding="utf-8"))
    (tmp_path / "manifest.json").write_text(json.dumps({**manifest, "lower_threshold": 0.05}))
    assert ModelDetector(path=tmp_path).lower_threshold == 0.05
    assert ModelDetector(path=tmp_path, threshold=0.3).lower_threshold == 0.3
    assert ModelDetector(path=tmp_path, threshold=0.3, lower_threshold=0.2).lower_threshold == 0.2


def test_shipped_model_loads_without_torch_and_finds_obvious_pii():
    code = """
import sys
sys.modules["torch"] = None  # any attempt to import torch now raises ImportError
from embedanon.detectors.model import ModelDetector
d = ModelDetector()
text = "Please contact John Smith at john.smith@example.com or (555) 123-4567 before 03/14/2022."
found = {(text[s.start:s.end], s.label) for s in d.detect(text)}
assert ("John Smith", "NAME") in found, found
assert ("john.smith@example.com", "EMAIL") in found, found
assert any(label == "PHONE" and "555" in piece for piece, label in found), found
assert any(label == "DATE" and "2022" in piece for piece, label in found), found
print("ok", "torch" in sys.modules and sys.modules["torch"] is not None)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["ok", "False"]


FIXTURES = [
    ("Dr. Okonkwo saw the patient today.", "Okonkwo", "NAME"),
    ("Thanks, Mei-Ling! I will send the essay tonight.", "Mei-Ling", "NAME"),
    ("Name: Rafael Domínguez\nGrade 9", "Rafael Domínguez", "NAME"),
    ("Her MRN: 48291735 was added to the chart.", "48291735", "ID"),
    (
        "Visit https://www.example.org/profile/jdoe for details.",
        "https://www.example.org/profile/jdoe",
        "URL",
    ),
    ("The patient is a 67-year-old man with chest pain.", "67", "AGE"),
]


@pytest.mark.parametrize(("text", "piece", "label"), FIXTURES)
def test_shipped_model_finds_fixture_pii(shipped, text, piece, label):
    a = text.index(piece)
    spans = shipped.detect(text)
    assert any(s.start < a + len(piece) and a < s.end and s.label == label for s in spans), spans


#: well-known eponyms, each in four sentences: a regression guard on the flag rate (one fixed
#: phrase is not one: round 3 flagged 19 % of these 160 sentences, round 8 18 %, with different phrases)
EPONYMS = (
    "Parkinson's disease", "Newton's method", "Alzheimer's disease", "Hodgkin's lymphoma", "Crohn's disease",
    "Bell's palsy", "Down syndrome", "Tourette syndrome", "Asperger's syndrome", "Huntington's disease",
    "the Heimlich maneuver", "Gram stain", "Apgar score", "Glasgow coma scale", "Cushing's syndrome",
    "Addison's disease", "Graves' disease", "Hashimoto's thyroiditis", "Raynaud's phenomenon",
    "Kaposi's sarcoma", "Ohm's law", "Pythagoras' theorem", "Bayes' theorem", "Fourier transform",
    "Euler's formula", "Murphy's sign", "Babinski sign", "Lou Gehrig's disease", "Wilson's disease",
    "Meniere's disease", "Guillain-Barre syndrome", "Bernoulli's principle", "Hooke's law", "Boyle's law",
    "Occam's razor", "Newton's laws", "Pavlov's dog", "Freud's theory", "Darwin's theory",
    "Einstein's relativity",
)
EPONYM_SENTENCES = ("We discussed {} in class today.", "The patient has a history of {} and takes medication daily.",
                    "He used {} to solve the problem.", "She read about {} last week.")


def test_shipped_model_leaves_plain_text_and_most_eponyms_alone(shipped):
    for text in ["The patient has a history of Parkinson's disease and takes metformin daily.",
                 "the weather was cold and wet all week.", "The results were compared to a control group."]:
        assert not [s for s in shipped.detect(text) if s.label == "NAME"], text
    texts = [t.format(e) for e in EPONYMS for t in EPONYM_SENTENCES]
    flagged = sum(any(s.label == "NAME" for s in shipped.detect(t)) for t in texts)
    assert flagged / len(texts) <= 0.25  # the README states the measured rate; this guards a regression
    # negative control: the same sentences with a person's name in the eponym's place are found
    people = [t.format(n) for n in ("Amina Okafor", "Wei Zhang", "Carlos Ruiz") for t in EPONYM_SENTENCES]
    assert all(any(s.label == "NAME" for s in shipped.detect(t)) for t in people)


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "\n\n",
        "!!!",
        "名前は田中です。",
        "a" * 3000,
        "x@y\u200b.z 12-12",
        "JOHN SMITH CALLED 555-0101",
        "émile zola, né le 2 avril 1840",
    ],
)
def test_spans_valid(shipped, text):
    spans = shipped.detect(text)
    assert all(isinstance(s, Span) and s.label in LABELS and s.source == "model" for s in spans)
    for s in spans:
        s.check(text)
        assert text[s.start : s.end].strip() == text[s.start : s.end]
    assert spans == sorted(spans, key=lambda s: (s.start, s.end))
    assert all(a.end <= b.start for a, b in itertools.pairwise(spans))


def test_detect_rejects_non_text(shipped):
    with pytest.raises(InputError):
        shipped.detect(b"bytes")  # type: ignore[arg-type]


def test_viterbi_matches_brute_force():
    rng = np.random.default_rng(5)
    c = len(CLASSES)
    for _ in range(5):
        logp = np.log(rng.dirichlet(np.ones(c) * 0.3, size=3))
        best, best_path = -np.inf, None
        for path in itertools.product(range(c), repeat=3):
            score = (
                _START[path[0]]
                + logp[0, path[0]]
                + sum(_TRANS[path[t - 1], path[t]] + logp[t, path[t]] for t in range(1, 3))
            )
            if score > best:
                best, best_path = score, path
        assert tuple(viterbi(logp)) == best_path


def test_fast_probabilities_match_reference(shipped):
    fast_path_probabilities(shipped)


def test_token_labels_bio():
    text = "Call Ana Lima now"
    toks = tokenize(text)
    y = token_labels(toks.starts, toks.ends, [{"start": 5, "end": 13, "label": "NAME"}])
    assert [CLASSES[k] for k in y] == ["O", "B-NAME", "I-NAME", "O"]


def test_read_span_records_errors_name_the_line(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"text": "Ana", "spans": [{"start": 0, "end": 3, "label": "NAME"}]}\n{not json}\n')
    with pytest.raises(InputError, match="line 2 is not valid JSON"):
        read_span_records(path)
    path.write_text('{"text": "secret Ana", "spans": [{"start": 0, "end": 30, "label": "NAME"}]}\n')
    with pytest.raises(InputError, match=r"line 1: span 0 \[0, 30\) is not inside the text") as info:
        read_span_records(path)
    assert "secret" not in str(info.value)
    path.write_text('{"text": "Ana", "spans": [{"start": 0, "end": 3, "label": "PERSON"}]}\n')
    with pytest.raises(InputError, match="line 1: span 0 label must be one of"):
        read_span_records(path)


def test_shipped_manifest_records_data_and_held_out_sets():
    manifest = json.loads((shipped_path() / "manifest.json").read_text())
    assert manifest["classes"] == list(CLASSES)
    assert manifest["train"]["docs"] > 1000 and manifest["held_out"]
    assert 0 < manifest["threshold"] < 1


def test_read_span_records_keeps_unicode_line_separators_inside_strings(tmp_path):
    text = "Ana\u2028Lima\x85ok"
    path = tmp_path / "s.jsonl"
    record = {"id": "1", "text": text, "spans": [{"start": 0, "end": 3, "label": "NAME"}]}
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    assert read_span_records(path)[0]["text"] == text


def _write_records(path, n: int = 6) -> None:
    rng = np.random.default_rng(11)
    with open(path, "w", encoding="utf-8") as f:
        for r in _records(TRAIN_NAMES, rng, n):
            f.write(json.dumps(r) + "\n")


def test_cli_detector_train_adapts_the_shipped_model_and_info_reads_it(tmp_path):
    from typer.testing import CliRunner

    from embedanon.cli import app

    data, out = tmp_path / "spans.jsonl", tmp_path / "adapted"
    _write_records(data)
    result = CliRunner().invoke(
        app, ["detector", "train", "--data", str(data), "--out", str(out), "--epochs", "2"]
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert (
        manifest["base"] == "model"
        and manifest["train"]["docs"] == 6
        and manifest["train"]["data"] == "spans.jsonl"
    )
    from embedanon.detectors.model import DECODE_RULES

    shipped = ModelDetector(path=shipped_path()).weights.manifest
    assert {k: manifest[k] for k in DECODE_RULES} == {k: bool(shipped.get(k)) for k in DECODE_RULES}
    assert all(manifest[k] for k in DECODE_RULES)  # the shipped model has every rule on
    adapted = ModelDetector(path=out)
    text = "Thanks, Amina Okafor! See you at the clinic."
    assert any(text[s.start : s.end] == "Amina Okafor" for s in adapted.detect(text))
    info = CliRunner().invoke(app, ["detector", "info", str(out)])
    assert info.exit_code == 0 and json.loads(info.output)["base"] == "model"


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        ('{"text": "Ana", "spans": []}\n{oops\n', [], "line 2 is not valid JSON"),
        ('{"text": "Ana", "spans": []}\n', ["--base", "/no/such/dir"], "base must be"),
        ('{"text": "Ana", "spans": []}\n', ["--epochs", "0"], "epochs must be >= 1"),
        ("", [], "no records"),
    ],
)
def test_cli_detector_train_bad_input_exits_2(tmp_path, content, args, message):
    from typer.testing import CliRunner

    from embedanon.cli import app

    data = tmp_path / "spans.jsonl"
    data.write_text(content)
    result = CliRunner().invoke(
        app, ["detector", "train", "--data", str(data), "--out", str(tmp_path / "o"), *args]
    )
    assert result.exit_code == 2 and message in result.output
    assert not (tmp_path / "o").exists()


def test_registry_builds_model_with_path_option(tmp_path):
    from embedanon.detectors.registry import build_detectors

    union = build_detectors("model", model_path=str(shipped_path()), model_threshold=0.5)
    text = "Please call Wei Zhang tomorrow about the results."
    assert any(text[s.start : s.end] == "Wei Zhang" for s in union.detect(text))


def test_best_path_agrees_with_viterbi():
    rng = np.random.default_rng(8)
    c = len(CLASSES)
    invalid_argmax = 0
    for _ in range(300):
        logp = np.log(rng.dirichlet(np.ones(c) * 0.2, size=int(rng.integers(1, 12))))
        logp[:, 0] += rng.normal() * 2  # sometimes mostly O, sometimes mostly entities
        arg = np.argmax(logp, axis=1)
        score = lambda p: _START[p[0]] + sum(_TRANS[p[t - 1], p[t]] for t in range(1, len(p)))  # noqa: E731
        invalid_argmax += not np.isfinite(score(arg))
        np.testing.assert_array_equal(best_path(logp), viterbi(logp))
    assert invalid_argmax > 30  # the slow branch is exercised too


_PIECES = ["Name: ", "PATIENT NAME: ", "Mr. ", "mrs. ", "Dr ", "Okafor", "okafor", "OKAFOR", "He", ", ",
           "Patience", "patience", " and ", "Blessing", ":", "\n", " ", "will", "Will", "-", "'", "Ana",
           "amina.okafor@example.org", "+234 803 555 0199", "3 May 2021", "é", "İ", "Mx.\t", "prof. ",
           "Tutor: ", "Bao-Li", "S'fiso", "'s", " and ", "COmfort", "nomthandazo", "1. ", "Noor",
           " 's ", "d' ", "Wage (wage94@yahoo.com)"]


def test_decode_rules_keep_spans_sorted_disjoint_and_inside_the_text():
    """Random texts built from the pieces the decode rules react to: every span is non-empty,
    inside the text, and the spans are sorted and disjoint (what the merge and the anonymizer
    rely on), with the rules on and off."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    detector = ModelDetector(path=shipped_path())
    plain = ModelDetector(path=shipped_path())
    from embedanon.detectors.model import DECODE_RULES

    for det in (detector, plain):  # every rule on (the round-15 ones too), and all but coordination
        det.weights.manifest = {**det.weights.manifest, **{k: det is detector or k == "coordination"
                                                           for k in DECODE_RULES}}

    changed = []

    @settings(max_examples=150, deadline=None, derandomize=True)
    @given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=30))
    def check(parts):
        text = "".join(parts)
        for det in (detector, plain):
            spans = det.detect(text)
            assert all(0 <= s.start < s.end <= len(text) for s in spans)
            assert all(a.end <= b.start for a, b in zip(spans, spans[1:], strict=False))
        # the rules only add or widen NAME spans: every span without them is inside one with them
        full, without = detector.detect(text), plain.detect(text)
        assert all(any(f.start <= p.start and p.end <= f.end for f in full) for p in without)
        changed.append(full != without)

    check()
    assert any(changed)  # the rules did fire on some of the texts


def _joined(text: str, probs: dict[str, tuple[float, float]], spans: list[str] = ()) -> list[str]:
    from embedanon.detectors.model import _B, name_joined_words

    toks = tokenize(text)
    proba = np.zeros((len(toks.words), len(CLASSES)), np.float32)
    proba[:, 0] = 1.0
    for i, w in enumerate(toks.words):
        if w in probs:  # (B-NAME, I-NAME)
            proba[i, _B["NAME"]], proba[i, _B["NAME"] + 1] = probs[w]
            proba[i, 0] = 1.0 - sum(probs[w])
    out = name_joined_words(text, toks.starts, toks.ends, proba, _spans(text, list(spans)))
    return [text[s.start : s.end] for s in out]


@pytest.mark.parametrize(
    ("text", "probs", "spans", "expected"),
    [
        ("hi s'fiso,\nthanks", {"fiso": (0.02, 0.6)}, [], ["s'fiso"]),
        ("cheers, i-hsuan\n", {"hsuan": (0.0, 0.95)}, [], ["i-hsuan"]),
        ("said Siciarz to I\u2019Fei.", {"Fei": (0.1, 0.8)}, ["Siciarz"], ["Siciarz", "I\u2019Fei"]),
        ("We met S'fiso's mother.", {"fiso": (0.0, 0.7)}, [], ["S'fiso"]),  # possessive outside
        # negative controls: a doubtful piece, a common piece, no joiner, a word already in a
        # span, a word that goes on into digits
        ("hi s'fiso,", {"fiso": (0.0, 0.3)}, [], []),
        ("a follow-up visit", {"up": (0.0, 0.9)}, [], []),
        ("ask Siregar's family", {"Siregar": (0.0, 0.9)}, [], []),
        ("to s'fiso today", {"fiso": (0.0, 0.9)}, ["s'fiso"], ["s'fiso"]),
        ("code ab-cd9 here", {"cd9": (0.0, 0.9), "cd": (0.0, 0.9)}, [], []),
        # in mixed-case text the word needs a name's case (round 22's real-text check)
        ("Then elevated D-dimer.", {"dimer": (0.0, 0.9)}, [], []),
        ("He resumed G-CSF today.", {"CSF": (0.0, 0.9)}, [], []),
        ("A real tear-jerker!", {"jerker": (0.0, 0.9)}, [], []),
        ("A real Tear-jerker!", {"jerker": (0.0, 0.9)}, [], []),
        ("scenes with Una O'Conner", {"Conner": (0.0, 0.9)}, [], ["O'Conner"]),
        ("THE V-ABL ONCOGENE", {"ABL": (0.0, 0.9)}, [], ["V-ABL"]),  # upper text: case says nothing
    ],
)
def test_joined_words_whose_rare_piece_is_a_name_continuation(text, probs, spans, expected):
    assert _joined(text, probs, spans) == expected
