"""The dask bag and dataframe APIs: what they refuse before any work (never quoting a value),
missing values kept missing, a key file path taken as --key takes it."""

from __future__ import annotations

import pytest

from embedanon import Anonymizer
from embedanon.dask import anonymize_dataframe
from embedanon.errors import ConfigError
from embedanon.pandas import anonymize_series
from tests.helpers.noise import fast_key

pytestmark = pytest.mark.default_embedding


@pytest.fixture(scope="module")
def anon() -> Anonymizer:
    return Anonymizer(key=fast_key(8))


def _frame(kind: str):  # type: ignore[no-untyped-def]
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    if kind == "int-name":
        return dd.from_pandas(pd.DataFrame({0: ["a", "b"]}), npartitions=1)
    if kind == "same-names":
        return dd.from_pandas(pd.DataFrame([["a", "b"]], columns=["text", "text"]), npartitions=1)
    if kind == "ordered":
        return dd.from_pandas(pd.DataFrame({"text": pd.Categorical(["a", "b"], ordered=True)}), npartitions=1)
    return dd.from_pandas(pd.DataFrame({"id": [1, 2], "text": ["a", "b"]}), npartitions=1)


@pytest.mark.parametrize(
    ("kind", "columns", "error", "message"),
    [("plain", "text", TypeError, r"columns must be a list of column names, not one str; use \['text'\]"),
     ("plain", None, TypeError, "columns must be a list of column names, got NoneType"),
     ("plain", ["id"], TypeError, "column 'id' has dtype int64, not text"),
     ("plain", ["nope"], ConfigError, "column 'nope' is not in the dataframe"),
     # second API audit: no column gave the frame back as it was (decision 0640)
     ("plain", [], ConfigError, "columns is empty: no column would be anonymized"),
     ("int-name", [0], TypeError, r"columns\[0\] must be a column name \(str\), got int"),
     ("same-names", ["text"], ConfigError, "column 'text' appears 2 times in the dataframe"),
     # left by the audits: released unordered, silently, as anonymize_series did
     ("ordered", ["text"], TypeError, "column 'text' is an ordered categorical, whose order is that of")],
)
def test_dask_dataframe_refuses_bad_columns_before_any_work(anon: Anonymizer, kind, columns, error, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error, match=f"^{message}"):
        anonymize_dataframe(_frame(kind), columns, anon.config, anon.key)  # lazy: no .compute() needed


@pytest.mark.parametrize(
    ("make", "message"),
    [(lambda pd, dd, db: pd.DataFrame({"text": ["a"]}),
      r"frame must be a dask.dataframe.DataFrame, got pandas.DataFrame; wrap it with "
      r"dask.dataframe.from_pandas\(frame, npartitions=N\)$"),
     (lambda pd, dd, db: ["a"], "frame must be a dask.dataframe.DataFrame, got list; "),
     (lambda pd, dd, db: dd.from_pandas(pd.DataFrame({"text": ["a"]}), npartitions=1)["text"],
      r"frame must be a dask.dataframe.DataFrame, got dask.dataframe.Series; .*series.to_frame\(\)$"),
     (lambda pd, dd, db: db.from_sequence(["a"]), "frame must be a dask.dataframe.DataFrame, got dask.bag.Bag; ")],
    ids=["pandas", "list", "series", "bag"],
)
def test_dask_dataframe_refuses_what_is_not_a_dask_frame(anon: Anonymizer, make, message: str) -> None:  # type: ignore[no-untyped-def]
    dd = pytest.importorskip("dask.dataframe")
    import dask.bag as db
    import pandas as pd

    with pytest.raises(TypeError, match=f"^{message}"):
        anonymize_dataframe(make(pd, dd, db), ["text"], anon.config, anon.key)


@pytest.mark.parametrize("bag", [["a"], ("a",), None], ids=["list", "tuple", "none"])
def test_dask_bag_refuses_what_is_not_a_bag(anon: Anonymizer, bag: object) -> None:
    pytest.importorskip("dask.bag")
    from embedanon.dask import anonymize_bag

    with pytest.raises(TypeError, match=rf"^bag must be a dask.bag.Bag, got {type(bag).__name__}; make one "
                                        r"with dask.bag.from_sequence\(texts\)$"):
        anonymize_bag(bag, anon.config, anon.key)


def test_dask_dataframe_anonymizes_a_repeated_column_once(anon: Anonymizer) -> None:
    """QA pass 5: ``["text", "text"]`` anonymized the column twice; it is one column, as a
    repeated ``--field`` is on the command line."""
    dask = pytest.importorskip("dask")
    frame = _frame("plain")
    with dask.config.set(scheduler="synchronous"):
        twice = anonymize_dataframe(frame, ["text", "text"], anon.config, anon.key).compute()
        once = anonymize_dataframe(frame, ["text"], anon.config, anon.key).compute()
    assert twice["text"].tolist() == once["text"].tolist() == [anon.anonymize(t) for t in ["a", "b"]]


@pytest.mark.parametrize("value", [5, 3.5, True, b"SECRET bytes", {"k": "SECRET"}, ["SECRET"]],
                         ids=["int", "float", "bool", "bytes", "dict", "list"])
def test_dask_dataframe_refuses_a_value_that_is_not_a_string(anon: Anonymizer, value: object) -> None:
    """QA pass 5: an ``object`` column's numbers, bytes or dicts were anonymized as ``str(value)``;
    they are refused like a non-string JSONL field, naming the column and the type (never the
    value). Missing values stay missing."""
    dask = pytest.importorskip("dask")
    import dask.dataframe as dd
    import pandas as pd

    texts = pd.Series(["John Smith", None, float("nan"), pd.NA, "Mary Jones"], dtype=object)
    with dask.config.set({"dataframe.convert-string": False, "scheduler": "synchronous"}):
        clean = dd.from_pandas(pd.DataFrame({"text": texts}), npartitions=2)
        assert str(clean.dtypes["text"]) == "object"
        out = anonymize_dataframe(clean, ["text"], anon.config, anon.key).compute()["text"].tolist()
        assert out[0] == anon.anonymize("John Smith") and out[4] == anon.anonymize("Mary Jones")
        assert out[1] is None and out[2] != out[2] and out[3] is pd.NA
        bad = dd.from_pandas(pd.DataFrame({"text": pd.Series(["John Smith", value], dtype=object)}),
                             npartitions=1)
        with pytest.raises(TypeError) as info:
            anonymize_dataframe(bad, ["text"], anon.config, anon.key).compute()
    assert str(info.value) == (f"column 'text' holds a value of type {type(value).__name__}; only str and "
                               "missing values can be anonymized")
    assert "SECRET" not in str(info.value)


def test_dask_apis_refuse_a_wrong_key_up_front(anon: Anonymizer) -> None:
    db = pytest.importorskip("dask.bag")
    from embedanon.dask import anonymize_bag

    with pytest.raises(TypeError, match="key must be a ReleaseKey"):
        anonymize_bag(db.from_sequence(["a"]), anon.config, None)  # type: ignore[arg-type]


def test_dask_apis_take_a_key_file_path_like_the_cli(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue 34: the Dask API took only a ReleaseKey; it reads a key file path as --key does."""
    dask = pytest.importorskip("dask")
    import dask.bag as db

    from embedanon.dask import anonymize_bag
    from embedanon.keys import write_key_file

    path = tmp_path / "release.key"
    write_key_file(path)
    anon = Anonymizer(key=str(path))
    with dask.config.set(scheduler="synchronous"):
        by_path = anonymize_dataframe(_frame("plain"), ["text"], anon.config, str(path)).compute()
        by_key = anonymize_dataframe(_frame("plain"), ["text"], anon.config, anon.key).compute()
        bag = anonymize_bag(db.from_sequence(["John Smith", "Mary"]), anon.config, path).compute()
    assert by_path.equals(by_key) and bag == [anon.anonymize("John Smith"), anon.anonymize("Mary")]
    with pytest.raises(ConfigError, match="cannot read key file"):
        anonymize_bag(db.from_sequence(["a"]), anon.config, str(tmp_path / "missing.key"))


def test_dask_dataframe_releases_a_categorical_column_without_its_original_categories(anon: Anonymizer) -> None:
    """API audit: a dictionary-encoded Parquet column, which ``dd.read_parquet`` reads as
    ``category``, was refused ('has dtype category, not text') where the CLI and
    ``anonymize_series`` release it; the metadata must not keep the original categories."""
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    notes = ["the patient", None, "the patient", "chest pain"]
    frame = dd.from_pandas(pd.DataFrame({"id": [1, 2, 3, 4], "text": pd.Categorical(notes)}), npartitions=2)
    released = anonymize_dataframe(frame, ["text"], anon.config, anon.key)
    assert "the patient" not in list(getattr(released._meta["text"].cat, "categories", []))
    with dask.config.set(scheduler="synchronous"):
        out = released.compute()
    assert isinstance(out["text"].dtype, pd.CategoricalDtype)
    assert out["text"].isna().tolist() == [False, True, False, False]
    assert out["text"].dropna().tolist() == [anon.anonymize(t) for t in notes if t is not None]
    assert set(out["text"].cat.categories) <= set(out["text"].dropna())  # no original left
    assert out["id"].tolist() == [1, 2, 3, 4]


def test_dask_dataframe_releases_a_sparse_column_as_anonymize_series_does(anon: Anonymizer) -> None:
    """Left by the audits: a sparse text column failed inside pandas in every partition."""
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    notes = pd.Series(pd.arrays.SparseArray(["the patient", None, "chest pain", None]), name="text")
    released = anonymize_dataframe(dd.from_pandas(notes.to_frame(), npartitions=2), ["text"], anon.config,
                                   anon.key)
    with dask.config.set(scheduler="synchronous"):
        out = released.compute()
    expected = anonymize_series(notes, anonymizer=anon)
    assert out["text"].dtype == notes.dtype and out["text"].tolist()[::2] == expected.tolist()[::2]
    assert out["text"].isna().tolist() == [False, True, False, True]


def test_dask_bag_keeps_missing_elements_in_place(anon: Anonymizer) -> None:
    """A bag plucked from JSON lines holds None: anonymize_bag failed the partition ("text must
    be str, got float" for a NaN) where anonymize_many, anonymize_frame and anonymize_dataframe
    keep missing values in place (found by the data audit)."""
    dask = pytest.importorskip("dask")
    import dask.bag as db
    import pandas as pd

    from embedanon.dask import anonymize_bag

    texts = ["John Smith came", None, "", float("nan"), pd.NA, "Mary Jones left"]
    with dask.config.set(scheduler="synchronous"):
        out = anonymize_bag(db.from_sequence(texts, npartitions=2), anon.config, anon.key).compute()
        assert out[0] == anon.anonymize("John Smith came") and out[5] == anon.anonymize("Mary Jones left")
        assert out[1] is None and out[2] == "" and out[3] != out[3] and out[4] is pd.NA
        with pytest.raises(TypeError, match="must be str, got int"):
            anonymize_bag(db.from_sequence(["a text", 5], npartitions=1), anon.config, anon.key).compute()


def test_dask_dataframe_categorical_column_with_a_partition_of_missing_values(anon: Anonymizer) -> None:
    """Second API audit: a dictionary-encoded column whose first row group is all null (two
    partitions) computed as input but not as output: the empty partition's rebuilt categories
    were of type object, the other's str, and compute() failed with "dtype of categories must be
    the same"."""
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    notes = pd.Categorical([None, None, "the patient", "chest pain"])
    frame = dd.from_pandas(pd.DataFrame({"id": [1, 2, 3, 4], "text": notes}), npartitions=2)
    with dask.config.set(scheduler="synchronous"):
        assert frame.compute()["text"].isna().sum() == 2  # the input computes
        out = anonymize_dataframe(frame, ["text"], anon.config, anon.key).compute()
    assert out["text"].cat.categories.dtype == notes.categories.dtype
    assert out["text"].dropna().tolist() == [anon.anonymize("the patient"), anon.anonymize("chest pain")]


def test_dask_bag_of_text_lines_is_the_cli_release_once_their_endings_are_stripped(anon: Anonymizer,
                                                                                   tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Second API audit: ``dask.bag.read_text`` keeps each line's ending, which is part of the
    text and so of its noise: the bag released every line differently from ``anonymize
    notes.txt`` under the same key (two releases that compose). docs/dask.md gives the recipe
    that agrees; this checks it, and that without it the releases differ."""
    dask = pytest.importorskip("dask")
    db = pytest.importorskip("dask.bag")
    from embedanon import files
    from embedanon.dask import anonymize_bag

    notes = tmp_path / "notes.txt"
    notes.write_text("John Smith has chest pain\nMary Jones was seen today\r\n", encoding="utf-8")
    files.anonymize_files([str(notes)], str(tmp_path / "out.txt"), anon)
    cli = (tmp_path / "out.txt").read_text(encoding="utf-8").splitlines()
    with dask.config.set(scheduler="synchronous"):
        lines = db.read_text(str(notes), blocksize=None)
        raw = anonymize_bag(lines, anon.config, anon.key).compute()
        stripped = anonymize_bag(lines.map(lambda line: line.rstrip("\r\n")), anon.config, anon.key).compute()
    assert stripped == cli and [line.rstrip("\r\n") for line in raw] != cli


def test_dask_dataframe_releases_a_pyarrow_dictionary_column_like_a_categorical_one(anon: Anonymizer) -> None:
    """Second API audit: ``dd.read_parquet(..., dtype_backend="pyarrow")`` reads a
    dictionary-encoded column as ``ArrowDtype(dictionary<...>)``, which was refused ('not
    text') where ``anonymize_series`` releases it; released, its dictionary must hold no
    original text and its missing cells stay missing."""
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    pa = pytest.importorskip("pyarrow")
    import pandas as pd

    notes = ["the patient", None, "chest pain", "the patient"]
    kind = pd.ArrowDtype(pa.dictionary(pa.int32(), pa.string()))
    frame = dd.from_pandas(pd.DataFrame({"id": [1, 2, 3, 4], "text": pd.Series(notes).astype(kind)}),
                           npartitions=2)
    with dask.config.set(scheduler="synchronous"):
        out = anonymize_dataframe(frame, ["text"], anon.config, anon.key).compute()
    assert out["text"].dtype == kind and out["text"].isna().tolist() == [n is None for n in notes]
    assert out["text"].dropna().tolist() == [anon.anonymize(n) for n in notes if n is not None]
    kept = {w for chunk in out["text"].array.__arrow_array__().chunks for w in chunk.dictionary.to_pylist()}
    assert kept <= set(out["text"].dropna())


def test_dask_dataframe_string_view_column_is_refused_with_a_remedy_that_works(anon: Anonymizer,
                                                                              tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Left by the audits, untested: ``dd.read_parquet(..., dtype_backend="pyarrow")`` reads a
    column written as Arrow ``string_view`` as ``string_view[pyarrow]``, which dask cannot map
    over (its metadata step calls pyarrow's ``take``, which has no kernel for it; ``astype``
    fails too). It was refused with the pandas advice ("cast the Arrow table to pa.string()
    before to_pandas"), which a dask frame has no way to follow. Refused before any work with a
    remedy for dask, and the remedy releases what ``anonymize_series`` releases."""
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    import pandas as pd

    if not hasattr(pa, "string_view"):
        pytest.skip("this pyarrow has no string_view type")
    notes = ["the patient has chest pain", None, "river stone", None]
    path = tmp_path / "notes.parquet"
    pq.write_table(pa.table({"id": [1, 2, 3, 4], "text": pa.array(notes, type=pa.string_view())}), path,
                   row_group_size=2)
    frame = dd.read_parquet(path, dtype_backend="pyarrow")
    if str(frame.dtypes["text"]) != "string_view[pyarrow]":
        pytest.skip(f"this dask/pandas reads string_view as {frame.dtypes['text']}")
    with pytest.raises(TypeError, match=r"^column 'text' has dtype string_view\[pyarrow\], which dask cannot "
                                        r"yet map over; read it as string\[pyarrow\]: .*types_mapper"):
        anonymize_dataframe(frame, ["text"], anon.config, anon.key)  # lazy: no .compute() needed
    mapper = {pa.string_view(): pd.ArrowDtype(pa.string())}.get
    readable = dd.read_parquet(path, dtype_backend="pyarrow", arrow_to_pandas={"types_mapper": mapper})
    with dask.config.set(scheduler="synchronous"):
        out = anonymize_dataframe(readable, ["text"], anon.config, anon.key).compute()
    expected = anonymize_series(pd.Series(notes, dtype=pd.ArrowDtype(pa.string()), name="text"), anonymizer=anon)
    assert out["text"].dtype == pd.ArrowDtype(pa.string()) and out["id"].tolist() == [1, 2, 3, 4]
    assert out["text"].isna().tolist() == [False, True, False, True]
    assert out["text"].tolist()[::2] == expected.tolist()[::2] == [anon.anonymize(notes[0]), anon.anonymize(notes[2])]
