"""DataFrames and batches of columns: pandas, and Hugging Face ``datasets.Dataset.map``.

    >>> from embedanon.pandas import anonymize_frame
    >>> released = anonymize_frame(df, ["transcription"], key="release.key")  # doctest: +SKIP

:func:`anonymize_frame` returns a copy of a pandas DataFrame with its text columns anonymized
and every other column untouched; :func:`anonymize_series` does one Series. A missing cell
(None, NaN, ``pd.NA``) stays missing and an empty string stays empty: 33 of MTSamples' 4,999
notes are empty. :class:`ColumnAnonymizer` is the same for a batch of columns (a dict of lists),
the function ``datasets.Dataset.map(..., batched=True, num_proc=N)`` calls: it pickles as its key
file path and options, never the key, and builds its :class:`~embedanon.Anonymizer` once per
process.

Every text's output is a pure function of (text, configuration, key), so the same key gives the
same release through the CLI, :meth:`~embedanon.Anonymizer.anonymize_many`, these functions,
Dask and ``datasets`` with any ``num_proc``.

These are plain functions rather than a ``df.embedanon`` accessor: an accessor is registered on
every DataFrame as a side effect of an import, cannot take the key as a typed argument where it
is seen, and would be a second way to say what ``anonymize_frame(df, columns, key=...)`` says
(decision record 0400).
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .errors import ConfigError
from .noise import ReleaseKey
from .pipeline import Anonymizer
from .pipeline.anonymizer import (
    check_column_dtype,
    is_missing,
    is_string_view,
    named_columns,
    writable_column,
)

KeyArg = ReleaseKey | str | os.PathLike[str] | None
_SEALED = "ColumnAnonymizer options"


def _anonymizer(anonymizer: Anonymizer | None, key: KeyArg, options: Mapping[str, Any]) -> Anonymizer:
    """``anonymizer``, or one built from ``key`` and ``options``; a release needs a key."""
    if anonymizer is not None:
        if not isinstance(anonymizer, Anonymizer):
            raise TypeError(f"anonymizer must be an Anonymizer, got {type(anonymizer).__name__}")
        if key is not None or options:
            raise TypeError("give either anonymizer= or key= and the Anonymizer options, not both")
        return anonymizer
    if key is None and options.get("seed") is None:
        raise ConfigError("give key= (a key file from 'embedanon keygen', or a ReleaseKey): without "
                          "one every call would release the same data differently")
    return Anonymizer(key=key, **options)


def _check_values(column: object, values: Sequence[Any]) -> None:
    for value in values:
        if not isinstance(value, str) and not is_missing(value):  # never str(): 12 is no text
            raise TypeError(f"column {column!r} holds a value of type {type(value).__name__}; only str and "
                            "missing values (None, NaN, pd.NA) can be anonymized")


def _check_columns(columns: object) -> None:
    # else None gave "'NoneType' object is not iterable", naming no argument
    if not isinstance(columns, Iterable):
        raise TypeError(f"columns must be a list of column names, got {type(columns).__name__}")


def anonymize_series(series: Any, *, key: KeyArg = None, anonymizer: Anonymizer | None = None,
                     jobs: int = 1, **options: Any) -> Any:
    """A copy of the pandas Series ``series`` with every text anonymized and every missing
    value kept missing; its index, name and dtype are kept (a categorical one, or a pyarrow
    dictionary one, gets the released texts as its categories, none of the original ones).

    Args:
        series: a ``pandas.Series`` of str and missing values.
        key: the release key: a key file path (as ``--key FILE``) or a :class:`ReleaseKey`.
        anonymizer: an :class:`~embedanon.Anonymizer` to use instead of ``key`` and ``options``.
        jobs: worker processes (as ``--jobs``).
        **options: :class:`~embedanon.Anonymizer` options (``scope="hybrid"``, ``epsilon=``...).

    Raises:
        TypeError: not a Series, or a value that is neither str nor missing (a number is not
            converted with ``str()``), or a dtype a release cannot keep: an ordered categorical,
            sparse with a text as its fill value
            (:func:`~embedanon.pipeline.anonymizer.check_column_dtype`).
        ConfigError: no key (and no ``seed`` for an experiment), or a bad option.
    """
    import pandas as pd

    if not isinstance(series, pd.Series):
        raise TypeError(f"series must be a pandas.Series, got {type(series).__name__}")
    check_column_dtype(series.name, series.dtype, string_view=True)
    anon = _anonymizer(anonymizer, key, options)
    values = series.tolist()
    _check_values(series.name, values)
    if is_string_view(series.dtype):  # pandas cannot write into it: built by pyarrow (see there)
        return _string_view(series, values, anon.anonymize_many(values, jobs=jobs))
    # categorical, sparse and pyarrow dictionary columns cannot take the released texts in place
    # (and the first and last hold the originals): written in a plain form, then typed back
    out, restore = writable_column(series)
    if restore is None:
        out = series.copy()
    present = [i for i, value in enumerate(values) if not is_missing(value)]
    texts = anon.anonymize_many([values[i] for i in present], jobs=jobs)
    if present:
        out.iloc[present] = list(texts)
    return out if restore is None else restore(out)


def _string_view(series: Any, values: list[Any], released: Iterable[Any]) -> Any:
    """``series`` (of dtype ``string_view[pyarrow]``) with ``released`` as its values, a missing
    value of ``values`` kept missing: built by pyarrow, as pandas can neither filter nor write
    such a column."""
    import pandas as pd
    import pyarrow as pa

    texts = [None if is_missing(value) else text for value, text in zip(values, released, strict=True)]
    array = pa.array(texts, type=series.dtype.pyarrow_dtype)
    return pd.Series(pd.arrays.ArrowExtensionArray(array), index=series.index, name=series.name)


def anonymize_frame(frame: Any, columns: Iterable[str], *, key: KeyArg = None,
                    anonymizer: Anonymizer | None = None, jobs: int = 1, **options: Any) -> Any:
    """A copy of the pandas DataFrame ``frame`` with ``columns`` anonymized (missing cells kept
    missing) and every other column, the index and the column order unchanged.

    Args:
        frame: a ``pandas.DataFrame``.
        columns: the text columns to anonymize (a list of names; one name alone is refused).
        key, anonymizer, jobs, options: as in :func:`anonymize_series`.

    Raises:
        TypeError: not a DataFrame, ``columns`` one str, or a value neither str nor missing.
        ConfigError: no column, a column missing or present twice; no key.
    """
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas.DataFrame, got {type(frame).__name__}")
    if isinstance(columns, str):
        raise TypeError(f"columns must be a list of column names, not one str; use [{columns!r}]")
    _check_columns(columns)
    names = named_columns(columns)
    present = list(frame.columns)
    for name in names:
        if present.count(name) != 1:
            raise ConfigError(f"column {name!r} is not in the frame" if name not in present else
                              f"column {name!r} appears {present.count(name)} times in the frame")
    for name in names:  # before any column is released
        check_column_dtype(name, frame[name].dtype, string_view=True)
    anon = _anonymizer(anonymizer, key, options)
    out = frame.copy()
    for name in names:
        out[name] = anonymize_series(frame[name], anonymizer=anon, jobs=jobs)
    return out


class ColumnAnonymizer:
    """The function of ``datasets.Dataset.map``: a batch (a dict of column -> list) with
    ``columns`` anonymized, a missing value (None; NaN or ``pd.NA`` in the pandas format) given
    back as None; called on one example (``map`` without ``batched=True``: a dict of column ->
    value), the same for that one value. A list-of-strings column has each text of each list
    released, the same way one example or a batch at a time.

        >>> from embedanon.pandas import ColumnAnonymizer
        >>> ds = ds.map(ColumnAnonymizer(["text"], key="release.key"),  # doctest: +SKIP
        ...             batched=True, num_proc=4)

    It pickles (to ``num_proc`` workers, and into ``datasets``' cache fingerprint) as the key
    file path and the options sealed under the release key (:meth:`ReleaseKey.seal`), never as
    the key's secret, and builds the Anonymizer once per process on the first batch. Only a key
    file path is accepted, for that reason. Sealed, because ``datasets`` persists an unkeyed hash
    of the pickle in its cache file names and the options hold the ``deny`` list: plain, a guessed
    deny list could be confirmed against that hash offline (decision record 0360). The seal also
    binds the fingerprint to the key: a new key at the same path is a new fingerprint, never the
    cached release of the old key, and a worker whose key file differs refuses to run.

    Args:
        columns: the text columns.
        key: the release key file (as ``--key FILE``).
        **options: :class:`~embedanon.Anonymizer` options.
    """

    def __init__(self, columns: Iterable[str], *, key: str | os.PathLike[str], **options: Any) -> None:
        if isinstance(columns, str):
            raise TypeError(f"columns must be a list of column names, not one str; use [{columns!r}]")
        _check_columns(columns)
        if not isinstance(key, (str, os.PathLike)):
            raise TypeError("key must be the path of a key file (it is pickled to the workers; a "
                            f"ReleaseKey would carry its secret), got {type(key).__name__}")
        self.columns = named_columns(columns)
        self.key = os.path.abspath(os.fspath(key))  # a worker in another directory reads the same file
        self._anonymizer: Anonymizer | None = Anonymizer(key=self.key, **options)  # fail fast
        self._sealed = self._anonymizer.key.seal(_SEALED, pickle.dumps(dict(options), protocol=4))

    def __getstate__(self) -> dict[str, Any]:
        return {"columns": self.columns, "key": self.key, "sealed": self._sealed}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.columns, self.key, self._sealed = state["columns"], state["key"], state["sealed"]
        self._anonymizer = None

    def _build(self) -> Anonymizer:
        key = ReleaseKey.from_file(self.key)
        try:
            # only bytes sealed under this very key are unpickled (AES-SIV authenticates them)
            options = pickle.loads(key.unseal(_SEALED, self._sealed))  # noqa: S301
        except ConfigError:
            raise ConfigError(f"the key file {self.key} is not the key this ColumnAnonymizer was made "
                              "with (it changed, or this worker reads another file)") from None
        return Anonymizer(key=key, **options)

    def __call__(self, batch: Mapping[str, Any]) -> dict[str, Any]:
        if self._anonymizer is None:
            self._anonymizer = self._build()
        out: dict[str, Any] = {}
        for name in self.columns:
            if name not in batch:
                raise ConfigError(f"column {name!r} is not in the batch")
            value = batch[name]
            # One example (Dataset.map without batched=True, its default): a str, a missing
            # value or any other single value, not a list. list() of a str anonymized each
            # character on its own and made the column a list column; None raised
            # "'NoneType' object is not iterable".
            one = isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable)
            released = _release(self._anonymizer, name, [value] if one else list(value))
            out[name] = released[0] if one else released
        return out


def _release(anonymizer: Anonymizer, column: object, values: list[Any]) -> list[Any]:
    """``values`` released, each a text, a missing value (given back as None) or a list of them
    (a ``Sequence(Value("string"))`` feature: each text of it released, the list kept).

    A list must be released in a batch as it is in one example: called on one example of a list
    column, the list looks like a batch of texts and each text was released, while the same
    column in a batch (a list of lists) was refused. Each text's release is a pure function of
    the text, so both readings now give the same lists."""
    flat: list[Any] = []
    sizes: list[int | None] = []  # None: a value of its own, else the length of a list
    for value in values:
        if isinstance(value, (list, tuple)):
            _check_values(column, value)  # a list inside a list is refused
            sizes.append(len(value))
            flat.extend(value)
        else:
            _check_values(column, [value])
            sizes.append(None)
            flat.append(value)
    # a missing value goes back as None, the one Arrow takes in a string column: a batch in the
    # pandas format (Dataset.with_format("pandas")) holds NaN there, and map() failed with
    # Arrow's "Expected bytes, got a 'float' object", naming no column
    released = [None if is_missing(text) else text for text in anonymizer.anonymize_many(flat)]
    out: list[Any] = []
    start = 0
    for size in sizes:
        out.append(released[start] if size is None else released[start:start + size])
        start += 1 if size is None else size
    return out
