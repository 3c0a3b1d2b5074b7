"""``dask``: run chunks on a Dask cluster (optional extra ``embedanon[dask]``).

``anonymize --engine dask --scheduler tcp://host:8786`` sends chunks to an existing cluster;
without ``--scheduler`` a local cluster is started. :func:`anonymize_bag` and
:func:`anonymize_dataframe` map over a ``dask.bag`` of texts or a ``dask.dataframe`` of records
(e.g. read from JSONL, CSV or Parquet with pyarrow), for corpora larger than one machine.
A record's identity is its content, so no global counter crosses partitions, and every
partition's output is byte-identical to a local run under the same key.

The release key travels to the workers with each task: run the cluster on machines you trust,
with TLS between them. The local cluster does (mutual TLS, a certificate made for the run); a
cluster given with ``--scheduler`` or a client is the user's to secure.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..config import AnonymizerConfig
from ..errors import ConfigError
from ..noise import ReleaseKey
from .base import BACKENDS


def _client(scheduler: str | None) -> Any:
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ConfigError("the dask engine needs the optional extra: pip install 'embedanon[dask]'") from None
    quiet = logging.getLogger().getEffectiveLevel() > logging.INFO  # not --verbose
    if quiet:  # one line on stderr per problem: distributed's INFO and WARNING chatter stays out
        logging.getLogger("distributed").setLevel(logging.ERROR)
        warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
    if scheduler is None:
        # The scheduler and workers of a local cluster listen on 127.0.0.1, where any process of
        # any user of the machine could connect, run code on the workers and read the queued
        # tasks (texts and the release key). Mutual TLS with a certificate made for this run,
        # held in memory (distributed writes it for a moment to a private temporary directory to
        # load it) lets in only this process and the cluster's own workers.
        from distributed.security import Security

        security = Security.temporary()  # type: ignore[no-untyped-call]
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,  # type: ignore[no-untyped-call]
                               host="127.0.0.1", dashboard_address=":0",  # None still serves :8787
                               protocol="tls", security=security,
                               silence_logs=logging.ERROR if quiet else logging.WARNING)
        return Client(cluster, security=security)  # type: ignore[no-untyped-call]
    try:
        return Client(scheduler, timeout=10)  # type: ignore[no-untyped-call]
    except ValueError:  # an address distributed cannot parse (checked in DaskBackend too)
        raise _bad_address(scheduler) from None
    except OSError as exc:
        raise ConfigError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None


def check_scheduler(scheduler: str) -> str:
    """``scheduler`` if distributed can parse it as ``[PROTOCOL://]HOST:PORT``; no connection is
    made, so a typo fails before any input is read. Without distributed installed it is left to
    :func:`_client`, which reports the missing extra first."""
    if not isinstance(scheduler, str):
        raise TypeError(f"scheduler must be a string, got {type(scheduler).__name__}")
    try:
        from distributed.comm.addressing import get_address_host_port
    except ImportError:
        return scheduler
    try:
        host, port = get_address_host_port(scheduler)
    except ValueError:
        host, port = "", 0
    if not host or not 0 < port < 65536:
        raise _bad_address(scheduler)
    return scheduler


def _bad_address(scheduler: str) -> ConfigError:
    return ConfigError(f"dask scheduler must be an address like tcp://HOST:PORT, got {scheduler!r}")


class DaskBackend:
    """Ordered, lazy map on a Dask cluster, at most ``inflight`` tasks submitted at once.

    Args:
        scheduler: address of a running scheduler; None starts a local 2-process cluster.
        client: an existing ``distributed.Client`` (tests and the API pass one).
        inflight: tasks in flight (memory bound).
    """

    name = "dask"

    def __init__(self, *, scheduler: str | None = None, client: Any = None, inflight: int = 16) -> None:
        self.scheduler = scheduler if scheduler is None else check_scheduler(scheduler)
        self._client = client
        self.inflight = inflight

    def map(self, func: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        own = self._client is None
        scratch = None
        if own and self.scheduler is None:  # a local cluster's scratch space, removed at the end
            import dask

            scratch = tempfile.mkdtemp(prefix="embedanon-dask-")
            with dask.config.set({"temporary-directory": scratch}):
                client = _client(None)
        else:
            client = _client(self.scheduler) if own else self._client
        try:
            futures: deque[Any] = deque()
            for item in items:
                futures.append(client.submit(func, item, pure=False))
                if len(futures) >= self.inflight:
                    yield futures.popleft().result()
            while futures:
                yield futures.popleft().result()
        finally:
            if own:
                cluster = getattr(client, "cluster", None)
                client.close()
                if cluster is not None:
                    cluster.close()
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)


def _partition(texts: list[str], config: AnonymizerConfig, key: ReleaseKey) -> list[str]:
    from ..pipeline.document import anonymize_records

    return anonymize_records(texts, config, key)


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

    Raises:
        TypeError: ``bag`` is not a ``dask.bag.Bag`` (a list: ``dask.bag.from_sequence(texts)``).
            An element that is not a str fails its partition at compute time.
    """
    from ..pipeline.document import check_config_key

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
    if isinstance(columns, str):  # iterating it would name one column per character
        raise TypeError(f"columns must be a list of column names, not one str; use [{columns!r}]")
    if not isinstance(columns, Iterable):
        raise TypeError(f"columns must be a list of column names, got {type(columns).__name__}")
    names = list(columns)
    for i, column in enumerate(names):
        if not isinstance(column, str):
            raise TypeError(f"columns[{i}] must be a column name (str), got {type(column).__name__}; "
                            "give the frame string column names (frame.rename(columns=str))")
    names = list(dict.fromkeys(names))  # a repeated name is one column, anonymized once (as --field)
    present = list(frame.columns)
    for column in names:
        count = present.count(column)
        if count == 0:
            raise ConfigError(f"column {column!r} is not in the dataframe")
        if count > 1:
            raise ConfigError(f"column {column!r} appears {count} times in the dataframe; give "
                              "each column its own name")
        dtype = frame.dtypes[column]
        if not (is_string_dtype(dtype) or is_object_dtype(dtype)):
            raise TypeError(f"column {column!r} has dtype {dtype}, not text; only text columns "
                            "can be anonymized")
    return names


def anonymize_dataframe(frame: Any, columns: list[str], config: AnonymizerConfig,
                        key: ReleaseKey | str | os.PathLike[str]) -> Any:
    """A ``dask.dataframe`` with ``columns`` anonymized and every other column kept. Missing
    values (None, NaN, ``pd.NA``) stay missing; a column named twice is anonymized once.
    ``config`` and ``key`` as in :func:`anonymize_bag` (``key``: a key file path or a
    :class:`ReleaseKey`).

    Raises:
        TypeError: ``frame`` is not a ``dask.dataframe.DataFrame`` (a pandas frame, a Series, a
            list); ``columns`` is one string (pass ``[name]``) or holds a name that is not a
            str; a column is not text (its dtype is neither a string nor ``object``): refused
            before any work. At compute time, a partition fails when an ``object`` column holds
            a value other than a str or a missing value (a number, bytes, a dict): it is not
            converted with ``str()``.
        ConfigError: a column is not in the frame, or the frame has two columns of that name.
    """
    from ..pipeline.document import check_config_key

    key = _release_key(key)
    check_config_key(config, key)
    names = _check_frame(frame, columns)

    def part(df: Any) -> Any:
        df = df.copy()
        for column in names:
            values = df[column]
            mask = values.notna()
            texts = values[mask].tolist()
            for text in texts:
                if not isinstance(text, str):  # never str(): a number or bytes is not a text
                    raise TypeError(f"column {column!r} holds a {type(text).__name__} value; only "
                                    "str and missing values can be anonymized")
            df.loc[mask, column] = _partition(texts, config, key)
        return df

    return frame.map_partitions(part, meta=frame._meta)


BACKENDS.add("dask", DaskBackend)
