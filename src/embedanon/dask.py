"""A ``dask.bag`` of texts or a ``dask.dataframe`` of records, anonymized partition by partition
(optional extra ``embedanon[dask]``).

    >>> from embedanon.dask import anonymize_dataframe
    >>> released = anonymize_dataframe(frame, ["note"], anon.config, "release.key")  # doctest: +SKIP

:func:`anonymize_bag` and :func:`anonymize_dataframe` map over a bag of texts or a dataframe of
records (e.g. read from JSONL, CSV or Parquet with pyarrow), for corpora larger than one machine.
A record's identity is its content, so no global counter crosses partitions, and every
partition's output is byte-identical to a local run under the same key. (``anonymize --engine
dask`` runs the command's chunks on a cluster: :mod:`embedanon.backends.dask`.)

The release key travels to the workers with each task: run the cluster on machines you trust,
with TLS between them.
"""

from __future__ import annotations

import os
from typing import Any

from ._validate import strings
from .config import AnonymizerConfig
from .errors import ConfigError
from .noise import ReleaseKey
from .pipeline.anonymizer import (
    check_column_dtype,
    dictionary_values,
    is_missing,
    is_sparse,
    is_string_view,
    named_columns,
    writable_column,
)
from .pipeline.document import anonymize_records, check_config_key


def _partition(texts: list[Any], config: AnonymizerConfig, key: ReleaseKey) -> list[Any]:
    """``texts`` anonymized, missing values (None, NaN, ``pd.NA``) kept in place, as
    :meth:`~embedanon.Anonymizer.anonymize_many` keeps them (decision record 0400)."""
    released = iter(anonymize_records([t for t in texts if not is_missing(t)], config, key))
    return [t if is_missing(t) else next(released) for t in texts]


def _dask_module(name: str) -> Any:
    """``dask.bag`` or ``dask.dataframe``, or the one-line error naming the optional extra."""
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError:
        raise ConfigError(f"{name} needs the optional extra: pip install 'embedanon[dask]'") from None


def _release_key(key: ReleaseKey | str | os.PathLike[str]) -> ReleaseKey:
    """The release key: a :class:`ReleaseKey`, or the path of a key file (as ``--key FILE``),
    read here, on the client, once."""
    if isinstance(key, (str, os.PathLike)):
        return ReleaseKey.from_file(key)
    return key


def anonymize_bag(bag: Any, config: AnonymizerConfig, key: ReleaseKey | str | os.PathLike[str]) -> Any:
    """A ``dask.bag`` of anonymized texts, partition by partition (lazy).

    Args:
        bag: a ``dask.bag.Bag`` of str.
        config: the release's configuration (``Anonymizer(...).config``).
        key: the release key: a key file path (as ``--key FILE``) or a :class:`ReleaseKey`
            (``Anonymizer(...).key``).

    Missing elements (None, NaN, ``pd.NA``) stay in place, as in
    :meth:`~embedanon.Anonymizer.anonymize_many` and :func:`anonymize_dataframe`. An element is
    a text as it is: ``dask.bag.read_text`` keeps each line's ending, which then addresses the
    noise too; strip it (``bag.map(lambda line: line.rstrip("\\r\\n"))``) to release what
    ``anonymize notes.txt`` releases under the same key (docs/dask.md).

    Raises:
        TypeError: ``bag`` is not a ``dask.bag.Bag`` (a list: ``dask.bag.from_sequence(texts)``).
            An element neither str nor missing fails its partition at compute time.
    """
    key = _release_key(key)
    check_config_key(config, key)  # here, not on a worker at compute time
    if not isinstance(bag, _dask_module("dask.bag").Bag):
        raise TypeError(f"bag must be a dask.bag.Bag, got {_type_name(bag)}; "
                        "make one with dask.bag.from_sequence(texts)")
    return bag.map_partitions(lambda part: _partition(list(part), config, key))


def _type_name(value: object) -> str:
    """The public name of a value's type: ``list``, ``pandas.DataFrame``, ``dask.bag.Bag``."""
    kind = type(value)
    parts = kind.__module__.split(".")
    if parts[0] == "builtins":
        return kind.__name__
    return ".".join([*parts[: 2 if parts[0] == "dask" else 1], kind.__name__])


def _check_frame(frame: Any, columns: object) -> list[str]:
    """The columns to anonymize, each once, after checking ``frame`` and ``columns`` up front."""
    dd = _dask_module("dask.dataframe")  # first: its message names the missing extra
    from pandas.api.types import is_object_dtype, is_string_dtype

    if not isinstance(frame, dd.DataFrame):
        hint = ("wrap it with dask.dataframe.from_pandas(frame, npartitions=N)"
                if type(frame).__module__.startswith("pandas") else
                "turn a Series into a frame with series.to_frame()"
                if isinstance(frame, dd.Series) else "read one with dask.dataframe.read_parquet, "
                "read_csv or from_pandas")
        raise TypeError(f"frame must be a dask.dataframe.DataFrame, got {_type_name(frame)}; {hint}")
    names = list(strings("columns", columns, what="column names", item="a column name (str)", quote=True,
                         item_hint="give the frame string column names (frame.rename(columns=str))"))
    names = named_columns(names)  # a repeated name is one column, anonymized once (as --field)
    present = list(frame.columns)
    for column in names:
        count = present.count(column)
        if count == 0:
            raise ConfigError(f"column {column!r} is not in the dataframe")
        if count > 1:
            raise ConfigError(f"column {column!r} appears {count} times in the dataframe; give "
                              "each column its own name")
        dtype = frame.dtypes[column]
        if is_string_view(dtype):
            # dask's metadata step (make_meta) calls pyarrow's take, which has no string_view
            # kernel: map_partitions, astype and to_parquet all fail inside dask, so the
            # pandas API's remedy (build the column with pyarrow) cannot apply here
            raise TypeError(f"column {column!r} has dtype string_view[pyarrow], which dask cannot yet map "
                            "over; read it as string[pyarrow]: dd.read_parquet(..., arrow_to_pandas="
                            "{'types_mapper': {pa.string_view(): pd.ArrowDtype(pa.string())}.get}), or "
                            "without dtype_backend='pyarrow'")
        check_column_dtype(column, dtype)
        if _categorical(dtype) or is_sparse(dtype):  # a dictionary-encoded Parquet column: text
            continue
        plain = dictionary_values(dtype)  # the same read with dtype_backend="pyarrow"
        if plain is not None and is_string_dtype(plain):
            continue
        if not (is_string_dtype(dtype) or is_object_dtype(dtype)):
            raise TypeError(f"column {column!r} has dtype {dtype}, not text; only text columns "
                            "can be anonymized")
    return names


def _categorical(dtype: Any) -> bool:
    import pandas as pd

    return isinstance(dtype, pd.CategoricalDtype)


def anonymize_dataframe(frame: Any, columns: list[str], config: AnonymizerConfig,
                        key: ReleaseKey | str | os.PathLike[str]) -> Any:
    """A ``dask.dataframe`` with ``columns`` anonymized and every other column kept. Missing
    values (None, NaN, ``pd.NA``) stay missing; a column named twice is anonymized once; a
    categorical column stays categorical, with only released texts as its categories (so does a
    pyarrow dictionary column, ``dtype_backend="pyarrow"``'s reading of the same).
    ``config`` and ``key`` as in :func:`anonymize_bag` (``key``: a key file path or a
    :class:`ReleaseKey`).

    Raises:
        TypeError: ``frame`` is not a ``dask.dataframe.DataFrame`` (a pandas frame, a Series, a
            list); ``columns`` is one string (pass ``[name]``) or holds a name that is not a
            str; a column is not text (its dtype is neither a string, ``object`` nor
            ``category``, the reading of a dictionary-encoded Parquet column): refused
            before any work; so is a ``string_view[pyarrow]`` column, which dask cannot map
            over (the message says how to read it as ``string[pyarrow]``). At compute time, a
            partition fails when an ``object`` column holds
            a value other than a str or a missing value (a number, bytes, a dict): it is not
            converted with ``str()``.
        ConfigError: no column is named, a column is not in the frame, or the frame has two
            columns of that name.
    """
    key = _release_key(key)
    check_config_key(config, key)
    names = _check_frame(frame, columns)

    def part(df: Any) -> Any:
        df = df.copy()
        for column in names:
            # categorical, sparse and pyarrow dictionary columns cannot take the released texts
            # in place: written in a plain form, then typed back, as anonymize_series does
            # (categories of the input's type even when a partition holds only missing values:
            # else computing the frame fails, "dtype of categories must be the same")
            values, restore = writable_column(df[column])
            if restore is not None:
                df[column] = values
            mask = values.notna()
            texts = values[mask].tolist()
            for text in texts:
                if not isinstance(text, str):  # never str(): a number or bytes is not a text
                    raise TypeError(f"column {column!r} holds a value of type {type(text).__name__}; only "
                                    "str and missing values can be anonymized")
            df.loc[mask, column] = _partition(texts, config, key)
            if restore is not None:
                df[column] = restore(df[column])
        return df

    from dask.dataframe.utils import clear_known_categories

    # known categories in the metadata would be the original texts: they become unknown
    cats = [c for c in names if _categorical(frame.dtypes[c])]
    meta = clear_known_categories(frame._meta, cols=cats, index=False) if cats else frame._meta  # type: ignore[no-untyped-call]
    return frame.map_partitions(part, meta=meta)

