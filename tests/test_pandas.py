"""DataFrames, Series and Dataset.map batches with missing cells (issue 34)."""

from __future__ import annotations

import math
import pickle
from pathlib import Path

import pytest

from embedanon import Anonymizer
from embedanon.errors import ConfigError
from embedanon.keys import write_key_file
from embedanon.pandas import ColumnAnonymizer, anonymize_frame, anonymize_series
from tests.helpers.embeddings import write_glove

pd = pytest.importorskip("pandas")

_WORDS = ["patient", "doctor", "nurse", "hospital", "clinic", "pain", "ache", "heart", "chest",
          "river", "table", "window", "music", "green", "house", "garden", "paper", "stone"]
NOTES = ["the patient has chest pain", None, "", float("nan"), "river stone", pd.NA, "green house"]


@pytest.fixture
def setup(tmp_path: Path) -> tuple[str, str]:
    glove = write_glove(tmp_path / "tiny.glove.txt", _WORDS)
    key = tmp_path / "release.key"
    write_key_file(key)
    return str(glove), str(key)


def _expected(glove: str, key: str) -> list[str]:
    anon = Anonymizer(glove, key=key)
    return [anon.anonymize(n) for n in NOTES if isinstance(n, str)]


def test_anonymize_many_passes_missing_values_through(setup: tuple[str, str]) -> None:
    """Issue 34: anonymize_many raised on the first empty cell (5 of 500 MTSamples notes)."""
    glove, key = setup
    anon = Anonymizer(glove, key=key)
    out = list(anon.anonymize_many(NOTES))
    assert len(out) == len(NOTES) and out[1] is None and math.isnan(out[3]) and out[5] is pd.NA
    assert out[2] == "" and [o for o in out if isinstance(o, str) and o] == [t for t in _expected(glove, key) if t]
    assert list(anon.anonymize_many([None, None])) == [None, None]
    assert list(anon.anonymize_many([])) == []
    with pytest.raises(TypeError, match=r"texts\[1\] must be str, got int"):  # a number is no text
        list(anon.anonymize_many(["a", 12]))


def test_anonymize_frame_changes_only_its_columns(setup: tuple[str, str]) -> None:
    glove, key = setup
    frame = pd.DataFrame({"id": range(len(NOTES)), "note": NOTES, "other": NOTES},
                         index=[f"r{i}" for i in range(len(NOTES))])
    out = anonymize_frame(frame, ["note"], key=key, embedding=glove)
    assert list(out.columns) == ["id", "note", "other"] and list(out.index) == list(frame.index)
    assert out["id"].equals(frame["id"]) and out["other"].equals(frame["other"])
    assert out["note"].isna().tolist() == frame["note"].isna().tolist()
    assert [v for v in out["note"] if isinstance(v, str)] == _expected(glove, key)
    assert frame["note"].tolist()[0] == NOTES[0]  # the input frame is not changed
    # the same key gives the same release through the Series function and the string dtype
    typed = frame["note"].astype("string")
    series = anonymize_series(typed, key=key, embedding=glove)
    assert series.dtype == typed.dtype and series.isna().tolist() == typed.isna().tolist()
    assert [v for v in series if isinstance(v, str)] == _expected(glove, key)


def test_a_categorical_column_is_anonymized_and_keeps_no_original_category(setup: tuple[str, str]) -> None:
    """Found by hand: a categorical text column (what pandas makes of a dictionary-encoded Parquet
    column) failed inside pandas ("Cannot setitem on a Categorical with a new category"), naming
    no column. It stays categorical, and its categories are the released texts only: keeping the
    old categories would ship every original text in the column's metadata."""
    glove, key = setup
    notes = pd.Series(["the patient has chest pain", None, "river stone", "the patient has chest pain"],
                      dtype="category", name="note")
    out = anonymize_series(notes, key=key, embedding=glove)
    anon = Anonymizer(glove, key=key)
    assert isinstance(out.dtype, pd.CategoricalDtype) and out.name == "note"
    assert out.isna().tolist() == [False, True, False, False]
    assert out.dropna().tolist() == [anon.anonymize(t) for t in notes.dropna()]
    assert set(out.cat.categories) == set(out.dropna())  # no original text left among them
    frame = anonymize_frame(pd.DataFrame({"note": notes}), ["note"], key=key, embedding=glove)
    assert frame["note"].equals(out)
    # second API audit: with no text left, the categories became object (a Dask partition of
    # only missing values then failed to concatenate with the others)
    empty = anonymize_series(notes.iloc[[1]], key=key, embedding=glove)
    assert empty.cat.categories.dtype == notes.cat.categories.dtype and empty.isna().all()


def test_a_pyarrow_dictionary_column_keeps_its_missing_cells_and_no_original(setup: tuple[str, str]) -> None:
    """Second API audit: ``pd.read_parquet(path, dtype_backend="pyarrow")`` reads a
    dictionary-encoded column as ``ArrowDtype(dictionary<...>)``. Written in place, its missing
    cells came back holding an original text ('river stone' where None was) and its dictionary
    kept every original text. It is released like a categorical column: only released texts."""
    pa = pytest.importorskip("pyarrow")
    glove, key = setup
    notes = ["the patient has chest pain", None, "river stone", "the patient has chest pain", None]
    kind = pd.ArrowDtype(pa.dictionary(pa.int32(), pa.string()))
    column = pd.Series(notes, name="note").astype(kind)
    out = anonymize_series(column, key=key, embedding=glove)
    anon = Anonymizer(glove, key=key)
    assert out.dtype == kind and out.name == "note"
    assert out.isna().tolist() == [n is None for n in notes]
    assert out.dropna().tolist() == [anon.anonymize(n) for n in notes if n is not None]
    kept = {word for chunk in out.array.__arrow_array__().chunks for word in chunk.dictionary.to_pylist()}
    assert kept == set(out.dropna())  # no original text left in the dictionary


def test_an_ordered_categorical_is_refused_in_one_line(setup: tuple[str, str]) -> None:
    """Left by the audits: an ordered categorical came back unordered, silently. Its order is
    that of the original texts (pandas sorts the categories of ``ordered=True`` by them), which
    the released categories would give away: refused before any work, naming the fix."""
    glove, key = setup
    notes = pd.Series(pd.Categorical(["river stone", "the patient has chest pain", None], ordered=True),
                      name="note")
    for call in (lambda: anonymize_series(notes, key=key, embedding=glove),
                 lambda: anonymize_frame(pd.DataFrame({"note": notes}), ["note"], key=key, embedding=glove)):
        with pytest.raises(TypeError, match=r"^column 'note' is an ordered categorical, .*as_unordered\(\)\)$"):
            call()
    out = anonymize_series(notes.cat.as_unordered(), key=key, embedding=glove)  # the fix works
    assert not out.cat.ordered and out.isna().tolist() == [False, False, True]


def test_sparse_and_string_view_columns_are_released(setup: tuple[str, str]) -> None:
    """Left by the audits: a sparse column failed inside pandas ("SparseArray does not support
    item assignment via setitem"), a ``string_view[pyarrow]`` one inside pyarrow ("Function
    'array_take' has no kernel ..."). Both are released, their dtype, index and missing cells
    kept; a sparse column whose fill value is a text is refused (its dtype would keep it)."""
    pa = pytest.importorskip("pyarrow")
    glove, key = setup
    anon = Anonymizer(glove, key=key)
    notes = ["the patient has chest pain", None, "river stone", None]
    for fill in (float("nan"), ""):
        values = ["" if n is None and fill == "" else n for n in notes]
        column = pd.Series(pd.arrays.SparseArray(values, fill_value=fill), name="note", index=[4, 3, 2, 1])
        out = anonymize_series(column, key=key, embedding=glove)
        assert out.dtype == column.dtype and out.index.tolist() == [4, 3, 2, 1]
        assert [v if isinstance(v, str) else None for v in out] == [
            anon.anonymize(v) if isinstance(v, str) else None for v in values]
    with pytest.raises(TypeError, match="^column 'note' is sparse with a text as its fill value"):
        anonymize_series(pd.Series(pd.arrays.SparseArray(["river stone", "x", "x"], fill_value="x"),
                                   name="note"), key=key, embedding=glove)
    view = pd.Series(pd.arrays.ArrowExtensionArray(pa.array(notes, type=pa.string_view())), name="note",
                     index=[7, 8, 9, 10])
    out = anonymize_series(view, key=key, embedding=glove)
    assert out.dtype == view.dtype and out.name == "note" and out.index.tolist() == [7, 8, 9, 10]
    assert out.tolist()[1] is pd.NA and out.tolist()[3] is pd.NA
    assert [out.tolist()[0], out.tolist()[2]] == [anon.anonymize(notes[0]), anon.anonymize(notes[2])]
    frame = anonymize_frame(pd.DataFrame({"note": view, "id": [1, 2, 3, 4]}, index=view.index), ["note"],
                            key=key, embedding=glove)
    assert frame["note"].tolist()[::2] == out.tolist()[::2] and frame["id"].tolist() == [1, 2, 3, 4]


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda f, k, g: anonymize_frame(f, "note", key=k, embedding=g), TypeError, "not one str"),
    (lambda f, k, g: anonymize_frame(f, ["nope"], key=k, embedding=g), ConfigError, "'nope' is not in the frame"),
    (lambda f, k, g: anonymize_frame(f, ["note"], embedding=g), ConfigError, "give key="),
    (lambda f, k, g: anonymize_frame(f, ["id"], key=k, embedding=g), TypeError, "holds a value of type int"),
    (lambda f, k, g: anonymize_frame(f["note"], ["note"], key=k), TypeError, "must be a pandas.DataFrame"),
    (lambda f, k, g: ColumnAnonymizer(["note"], key=Anonymizer(g, seed=1).key), TypeError, "path of a key file"),
    # API audit: None gave "'NoneType' object is not iterable", naming no argument
    (lambda f, k, g: anonymize_frame(f, None, key=k, embedding=g), TypeError,
     "^columns must be a list of column names, got NoneType$"),
    (lambda f, k, g: ColumnAnonymizer(None, key=k, embedding=g), TypeError,
     "^columns must be a list of column names, got NoneType$"),
    # second API audit: no column released the frame as it was, every text in it (decision 0640)
    (lambda f, k, g: anonymize_frame(f, [], key=k, embedding=g), ConfigError, "^columns is empty: "),
    (lambda f, k, g: ColumnAnonymizer(iter(()), key=k, embedding=g), ConfigError, "^columns is empty: "),
])
def test_bad_calls_are_refused(setup: tuple[str, str], call, error: type, message: str) -> None:  # type: ignore[no-untyped-def]
    glove, key = setup
    frame = pd.DataFrame({"id": [1, 2], "note": ["the patient", None]})
    with pytest.raises(error, match=message):
        call(frame, key, glove)


def test_column_anonymizer_pickles_without_the_key(setup: tuple[str, str]) -> None:
    glove, key = setup
    batches = ColumnAnonymizer(["note"], key=key, embedding=glove)
    secret = Anonymizer(glove, key=key).key.secret
    blob = pickle.dumps(batches)
    assert secret not in blob and secret.hex().encode() not in blob
    again = pickle.loads(blob)
    out = again({"note": [n if isinstance(n, str) else None for n in NOTES], "id": list(range(len(NOTES)))})
    assert list(out) == ["note"] and [v for v in out["note"] if v is not None] == _expected(glove, key)


def test_column_anonymizer_pickles_no_deny_term_and_changes_with_the_key(setup: tuple[str, str]) -> None:
    """Decision 0360: ``datasets`` persists an unkeyed hash of this pickle (its cache fingerprint),
    so a deny term in it could be confirmed by guessing; and the same key path holding a new key
    must pickle differently, or ``datasets`` hands back the old key's cached release."""
    glove, key = setup
    deny = {"Zorblatovic": "NAME"}
    blob = pickle.dumps(ColumnAnonymizer(["note"], key=key, embedding=glove, scope="hybrid", deny=deny))
    assert b"Zorblatovic" not in blob and "Zorblatovic".encode("utf-16-le") not in blob
    assert blob == pickle.dumps(ColumnAnonymizer(["note"], key=key, embedding=glove, scope="hybrid", deny=deny))
    Path(key).unlink()
    write_key_file(key)  # a new key at the same path
    rotated = ColumnAnonymizer(["note"], key=key, embedding=glove, scope="hybrid", deny=deny)
    assert pickle.dumps(rotated) != blob
    with pytest.raises(ConfigError, match="is not the key this ColumnAnonymizer was made with"):
        pickle.loads(blob)({"note": ["Zorblatovic came"]})  # a worker reading the new key file
    out = pickle.loads(pickle.dumps(rotated))({"note": ["Zorblatovic came"]})
    assert out["note"] == [Anonymizer(glove, key=key, scope="hybrid", deny=deny).anonymize("Zorblatovic came")]
    assert "Zorblatovic" not in out["note"][0]


def test_dataset_map_with_two_processes_is_the_same_release(setup: tuple[str, str]) -> None:
    """The README's Dataset.map recipe: batched, num_proc=2, the same key, the same output."""
    datasets = pytest.importorskip("datasets")
    glove, key = setup
    notes = [n if isinstance(n, str) else None for n in NOTES] * 3
    ds = datasets.Dataset.from_dict({"id": list(range(len(notes))), "note": notes})
    out = ds.map(ColumnAnonymizer(["note"], key=key, embedding=glove), batched=True, batch_size=4, num_proc=2,
                 load_from_cache_file=False)
    assert out["id"] == list(range(len(notes)))
    frame = anonymize_frame(pd.DataFrame({"note": notes}), ["note"], key=key, embedding=glove)
    assert out["note"] == [None if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) else v
                           for v in frame["note"]]


def test_dataset_map_without_batched_is_the_same_release(setup: tuple[str, str]) -> None:
    """``Dataset.map``'s default is one example at a time: ``list()`` of its str anonymized each
    character alone and made the column a list column; None raised a bare TypeError (found by
    the data audit)."""
    datasets = pytest.importorskip("datasets")
    glove, key = setup
    notes = [n if isinstance(n, str) else None for n in NOTES]
    ds = datasets.Dataset.from_dict({"id": list(range(len(notes))), "note": notes})
    out = ds.map(ColumnAnonymizer(["note"], key=key, embedding=glove), load_from_cache_file=False)
    assert out.features["note"] == ds.features["note"] and out["id"] == list(range(len(notes)))
    batched = ds.map(ColumnAnonymizer(["note"], key=key, embedding=glove), batched=True, load_from_cache_file=False)
    assert out["note"] == batched["note"] and [v for v in out["note"] if v] == [e for e in _expected(glove, key) if e]
    with pytest.raises(TypeError, match="holds a value of type int"):
        ColumnAnonymizer(["id"], key=key, embedding=glove)({"id": 3})


def test_a_list_column_is_released_alike_one_example_or_a_batch_at_a_time(setup: tuple[str, str]) -> None:
    """Left by the audits: one example of a list-of-strings column (``map`` without ``batched``)
    was released, text by text, while the same column in a batch was refused ('holds a list
    value'). Both release each text of each list, the same way; a list inside one is refused."""
    glove, key = setup
    column = ColumnAnonymizer(["note"], key=key, embedding=glove)
    anon = Anonymizer(glove, key=key)
    lists = [["the patient has chest pain", None, "river stone"], [], ["green house"]]
    one_by_one = [column({"note": value})["note"] for value in lists]
    assert one_by_one == [[None if t is None else anon.anonymize(t) for t in value] for value in lists]
    assert column({"note": lists})["note"] == one_by_one
    with pytest.raises(TypeError, match="^column 'note' holds a value of type list"):
        column({"note": [[["river stone"]]]})
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_dict({"note": lists})
    out = ds.map(column, load_from_cache_file=False)
    batched = ds.map(column, batched=True, load_from_cache_file=False)
    assert out["note"] == batched["note"] == one_by_one and out.features == ds.features


def test_dataset_map_in_the_pandas_format_keeps_missing_cells(setup: tuple[str, str]) -> None:
    """Second API audit: ``Dataset.with_format("pandas")`` hands ``map`` a DataFrame, whose
    missing cells read as NaN; they came back as NaN and Arrow refused them in the string column
    ("Expected bytes, got a 'float' object", naming no column). They come back as None."""
    datasets = pytest.importorskip("datasets")
    glove, key = setup
    notes = [n if isinstance(n, str) else None for n in NOTES]
    ds = datasets.Dataset.from_dict({"id": list(range(len(notes))), "note": notes})
    batches = ColumnAnonymizer(["note"], key=key, embedding=glove)
    plain = ds.map(batches, batched=True, load_from_cache_file=False)
    framed = ds.with_format("pandas").map(batches, batched=True, load_from_cache_file=False)
    assert framed.features["note"] == ds.features["note"] and framed.with_format(None)["note"] == plain["note"]
    assert batches({"note": [float("nan"), pd.NA, "river stone"]})["note"][:2] == [None, None]


def test_anonymize_many_refuses_a_whole_frame(setup: tuple[str, str]) -> None:
    """API audit: ``anon.anonymize_many(df)`` anonymized the frame's column names."""
    glove, key = setup
    frame = pd.DataFrame({"note": ["the patient"]})
    with pytest.raises(TypeError, match=r"got DataFrame \(its keys or column names would be taken"):
        Anonymizer(glove, key=key).anonymize_many(frame)
