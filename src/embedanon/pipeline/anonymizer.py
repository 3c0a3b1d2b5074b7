"""The public class: :class:`Anonymizer`."""

from __future__ import annotations

import difflib
import hashlib
import hmac
import inspect
import numbers
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from .._validate import positive_int, strings
from ..backends.base import Backend, build_backend, chunk_texts
from ..config import DEFAULT_DETECTORS, AnonymizerConfig, ScopeConfig
from ..detectors.base import Span
from ..detectors.merge import WordLists
from ..errors import ConfigError
from ..keys import default_key
from ..mechanisms import MECHANISMS, Mechanism
from ..noise import ReleaseKey
from ..surrogates import SurrogateConfig
from ..vectors.defaults import DEFAULT_EMBEDDING
from .document import (
    AnonymizedDocument,
    Task,
    anonymize_document,
    anonymize_documents,
    anonymize_text,
    run_task,
)
from .runtime import Runtime, get_runtime


def resolve_key(key: ReleaseKey | str | os.PathLike[str] | None, seed: int | None) -> ReleaseKey:
    """The release key: a :class:`ReleaseKey`, a key file path, a seed (experiments), or the
    user's default key (:func:`embedanon.keys.default_key`, created on first use)."""
    if key is not None and seed is not None:
        raise ConfigError("give a key or a seed, not both")
    if isinstance(key, ReleaseKey):
        return key
    if key is not None and not isinstance(key, (str, os.PathLike)):
        raise TypeError(f"key must be a ReleaseKey or a key file path, got {type(key).__name__}")
    if key is not None:
        return ReleaseKey.from_file(key)
    if seed is not None:
        return ReleaseKey.from_seed(seed)
    return default_key()


def _mapping(name: str, value: object, example: str) -> Mapping[Any, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping (dict) such as {example}, got {type(value).__name__}")
    return value


def _deny_pairs(deny: object) -> tuple[tuple[str, str], ...]:
    pairs = _mapping("deny", deny, "{'Zorblat': 'NAME'}").items()
    for term, label in pairs:
        # the term itself is not quoted: it is a PII string
        if not isinstance(term, str):
            raise TypeError(f"deny keys must be str (the string always treated as PII), "
                            f"got {type(term).__name__}")
        if not isinstance(label, str):
            raise TypeError(f"deny values must be str labels such as 'NAME', got {type(label).__name__}")
    WordLists.build(deny=pairs)  # labels and conflicts checked now, entries numbered in dict order
    return tuple(sorted(pairs))


def _scope_config(scope: object, detectors: object, strategies: object, allow: object,
                  deny: object, detector_options: object, surrogates: object,
                  neutral_formats: bool | None) -> ScopeConfig:
    """The :class:`ScopeConfig` of the constructor's scope arguments, their types checked."""
    if isinstance(scope, ScopeConfig):
        given = [name for name, value in (
            ("detectors", detectors), ("strategies", strategies), ("detector_options", detector_options),
            ("surrogates", surrogates)) if value is not None]
        given += [name for name, value in (("allow", allow), ("deny", deny)) if value]
        given += ["neutral_formats"] if neutral_formats is not None else []
        if given:  # they would be ignored: the ScopeConfig already says all of it
            raise TypeError(f"give {given[0]!r} inside the ScopeConfig, not beside it "
                            "(scope=ScopeConfig(...) holds every scope setting)")
        return scope
    if not isinstance(scope, str):
        raise TypeError(f"scope must be 'all', 'detected', 'hybrid' or a ScopeConfig, "
                        f"got {type(scope).__name__}")
    if detectors is not None and not isinstance(detectors, str):
        raise TypeError(f"detectors must be a comma-separated str such as 'model,regex', "
                        f"got {type(detectors).__name__}")
    if surrogates is not None and not isinstance(surrogates, SurrogateConfig):
        raise TypeError(f"surrogates must be a SurrogateConfig, got {type(surrogates).__name__}")
    for label, action in _mapping("strategies", strategies, "{'NAME': 'keep'}").items():
        if not isinstance(label, str) or not isinstance(action, str):  # else str(None) -> 'none'
            raise TypeError("strategies must map str labels to str actions such as {'NAME': 'keep'}, "
                            f"got {type(label).__name__}: {type(action).__name__}")
    if neutral_formats is not None and not isinstance(neutral_formats, bool):
        raise TypeError(f"neutral_formats must be True, False or None, got {type(neutral_formats).__name__}")
    options = _mapping("detector_options", detector_options, "{'llm_url': ...}")
    if neutral_formats is None:
        neutral_formats = True
    if scope == "all":  # as on the command line: a setting scope 'all' would ignore is refused
        unused = ["detectors"] if detectors is not None else []  # "" too: it is given
        unused += [name for name, value in (("detector_options", options), ("allow", allow),
                                            ("deny", deny)) if value]
        if not neutral_formats:
            unused += [name for name, value in (("strategies", strategies), ("surrogates", surrogates))
                       if value]
        elif strategies and not {str(label).upper() for label in
                                 _mapping("strategies", strategies, "{'PHONE': 'redact'}")} <= {
                                     "PHONE", "ID", "DEFAULT"}:
            unused.append("strategies")  # scope all acts only on the phone and ID spans
        if unused:
            raise ConfigError(f"{unused[0]} needs scope 'detected' or 'hybrid'"
                              + ("" if unused[0] in ("detectors", "detector_options", "allow", "deny")
                                 else " (in scope 'all', strategies act only on PHONE and ID, the "
                                       "spans of neutral formats)" if unused[0] == "strategies"
                                 else " (or neutral formats, the default)")
                              + "; scope 'all' would ignore it")
    return ScopeConfig(
        scope=scope, detectors=DEFAULT_DETECTORS if detectors is None else detectors,
        detector_options=tuple(sorted((n, v) for n, v in options.items() if v is not None)),
        strategies=tuple((str(lab).upper(), str(act).lower())
                         for lab, act in _mapping("strategies", strategies, "{'NAME': 'keep'}").items()),
        allow=strings("allow", allow), deny=_deny_pairs(deny),
        # neutral_formats=False keeps the layouts in every scope, as --keep-formats does: in the
        # scoped modes the surrogates then keep each phone's and ID's shape (unless given)
        surrogates=surrogates or (SurrogateConfig() if neutral_formats
                                  else SurrogateConfig(phone_format="keep-shape", id_format="keep-shape")),
        neutral_formats=neutral_formats)


def _check_params(params: Mapping[str, Any]) -> None:
    """Refuse a keyword that no registered mechanism takes, like Python does for a function.

    A parameter of some other mechanism is left to :func:`~embedanon.mechanisms.build_mechanism`,
    whose message names the mechanisms that take it.
    """
    known = {p for _, spec in MECHANISMS.items() for p in spec.params}
    for name in sorted(set(params) - known):
        own = [p for p in inspect.signature(Anonymizer.__init__).parameters if p not in ("self", "params")]
        close = difflib.get_close_matches(name, [*own, *sorted(known)], n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise TypeError(f"Anonymizer got an unexpected keyword {name!r}{hint}")


def _plain(mechanism: str, name: str, value: Any) -> Any:
    """A number parameter as the type the mechanism declares (``epsilon: float``, ``k: int``), so
    that ``epsilon=13``, ``13.0`` and ``numpy.float64(13)`` (equal configurations, one release)
    give one configuration and one digest. Anything else is left to the mechanism's own checks."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or mechanism not in MECHANISMS.names():
        return value
    try:
        declared = inspect.signature(MECHANISMS.get(mechanism).factory).parameters.get(name)
    except (TypeError, ValueError):
        return value
    kind = str(declared.annotation) if declared is not None else ""
    try:
        if kind.startswith("float"):
            number = float(value)
            return number if number == value else value  # an integer beyond float range: refused later
        if kind.startswith("int") and isinstance(value, numbers.Integral):
            return int(value)
    except (OverflowError, ValueError):
        pass
    return value


class Anonymizer:
    """Replace every word of a text by a word drawn near it in an embedding.

    Args:
        embedding: embedding name (``minilm-words``, an imported name) or file path.
        mechanism: ``knn`` (default) or another registered mechanism.
        k: neighborhood size for ``knn`` (default 10).
        key: the release key (a :class:`~embedanon.noise.ReleaseKey` or the path of a key file
            written by ``embedanon keygen``). The same data under the same key always gives the
            same release, so exporting it again reveals nothing new. Neither key nor seed: the
            user's default key (``$EMBEDANON_KEY``, which must exist, or
            ``~/.config/embedanon/release.key``, created on first use; see :mod:`embedanon.keys`),
            so a script run twice releases the same
            text. ``key=ReleaseKey.fresh()`` draws new noise, and releasing the same data again
            under another key composes.
        seed: for reproducible experiments only: the key is derived from it (scrypt), and anyone
            who guesses the seed can replay the noise.
        min_length: shortest replacement word.
        allowlist: optional path of a public word list restricting replacements.
        index: neighbor search, ``None``/``"flat"`` (exact), ``"hnsw"`` or ``"auto"``.
        scope: ``"all"`` (default: every word), ``"detected"`` (only detected spans change) or
            ``"hybrid"`` (detected spans get surrogates, every other word the mechanism), or a
            full :class:`~embedanon.config.ScopeConfig`.
        detectors: detector names for the scoped modes (default ``"model,regex"``).
        strategies: per-label actions, e.g. ``{"DATE": "keep", "DEFAULT": "surrogate"}``.
        allow, deny: strings never / always treated as PII (deny: ``{string: label}``).
        detector_options: e.g. ``{"llm_url": ..., "llm_model": ...}``.
        surrogates: a :class:`~embedanon.surrogates.SurrogateConfig`.
        neutral_formats: phones and IDs get one neutral layout in every scope (default True; see
            :attr:`~embedanon.config.ScopeConfig.neutral_formats`); False keeps their layout in
            every scope, as ``--keep-formats`` does (in scope detected or hybrid the surrogates
            keep each phone's and ID's shape, unless ``surrogates`` says otherwise).
        noise_unit: ``"record"`` (default: a record's text addresses its noise) or ``"sentence"``
            (each sentence's text does, so a sentence copied into other records is released the
            same way everywhere; see :attr:`~embedanon.config.AnonymizerConfig.noise_unit`).
        **params: other mechanism parameters (``epsilon`` ...).

    An Anonymizer pickles (for ``multiprocessing`` or a ``ProcessPoolExecutor`` with any start
    method) as its configuration and its release key; the embedding, index and detectors are
    loaded again, once per process, on first use, and the output is the same. **A pickled
    Anonymizer holds the release key's secret**: treat the pickle like the key file (no logs, no
    shared caches, not next to the release). ``repr`` of the key never shows the secret.
    """

    def __init__(self, embedding: str = DEFAULT_EMBEDDING, mechanism: str = "knn", *,
                 k: int | None = None, key: ReleaseKey | str | os.PathLike[str] | None = None,
                 seed: int | None = None, min_length: int = 2, allowlist: str | None = None,
                 index: str | None = None, scope: str | ScopeConfig = "all",
                 detectors: str | None = None, strategies: dict[str, str] | None = None,
                 allow: Iterable[str] = (), deny: dict[str, str] | None = None,
                 detector_options: dict[str, Any] | None = None,
                 surrogates: SurrogateConfig | None = None, neutral_formats: bool | None = None,
                 noise_unit: str = "record", **params: Any) -> None:
        _check_params(params)
        if k is not None:
            params["k"] = k
        scope = _scope_config(scope, detectors, strategies, allow, deny, detector_options,
                              surrogates, neutral_formats)
        release_key = resolve_key(key, seed)
        if not isinstance(mechanism, str):
            raise TypeError(f"mechanism must be a name, got {type(mechanism).__name__}")
        if not isinstance(embedding, (str, os.PathLike)):  # else "unknown embedding 'None'"
            raise TypeError("embedding must be an embedding name or a file path, "
                            f"got {type(embedding).__name__}")
        clean = tuple(sorted((n, _plain(mechanism.lower(), n, v)) for n, v in params.items()
                             if v is not None))
        self.config = AnonymizerConfig(
            embedding=str(embedding), mechanism=mechanism.lower(), params=clean,
            min_length=positive_int("min_length", min_length),
            allowlist=None if allowlist is None else str(allowlist), index=index, scope=scope,
            noise_unit=noise_unit,
        )
        self.key = release_key
        self._runtime: Runtime | None = None
        if scope.scope != "all":
            self.runtime.detector  # noqa: B018 (builds and validates the detectors now)
        else:
            self.runtime  # noqa: B018 (fail fast on a bad configuration)

    def __getstate__(self) -> dict[str, Any]:
        # The defining state only: the runtime (embedding, index, locks) is per process.
        # This carries the key's secret (see the class docstring).
        return {"config": self.config, "key": self.key}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.config = state["config"]
        self.key = state["key"]
        self._runtime = None

    @property
    def runtime(self) -> Runtime:
        """This process's resources of the config (loaded on first use)."""
        if self._runtime is None:
            self._runtime = get_runtime(self.config)
        return self._runtime

    @property
    def mechanism(self) -> Mechanism:
        return self.runtime.mechanism

    def anonymize(self, text: str) -> str:
        """Anonymize one text (its content is its identity: the same text, the same output)."""
        return anonymize_text(text, self.config, self.key)

    def anonymize_document(self, text: str, *, spans: Sequence[Span] | None = None) -> AnonymizedDocument:
        """Anonymize one text and report every replaced span with its offsets.

        ``spans``: the spans to replace instead of the detectors' (in scope ``detected`` or
        ``hybrid``; a record of a span file corrected by hand, see
        :func:`~embedanon.detectors.evaluate.record_spans`)."""
        if spans is None:
            return anonymize_document(text, self.config, self.key)
        return anonymize_documents([text], self.config, self.key, spans=[spans])[0]

    def anonymize_many(self, texts: Iterable[str | None], *, jobs: int = 1,
                       backend: Backend | None = None) -> Iterator[Any]:
        """Anonymize texts lazily, in order, in ``jobs`` worker processes or on ``backend``.

        The output does not depend on ``jobs``, the backend or how texts are chunked. A missing
        value (None, NaN, ``pd.NA``: an empty cell of a DataFrame column) is yielded back as it
        is, in its place; an empty string is a text (its output is empty). The arguments' types
        are checked at the call; each text's as it is reached.
        """
        if isinstance(texts, (str, bytes)):
            raise TypeError(f"texts must be a list/sequence of str, not one {type(texts).__name__}")
        if not isinstance(texts, Iterable):
            raise TypeError(f"texts must be a list/sequence of str, got {type(texts).__name__}")
        if isinstance(texts, Mapping) or (type(texts).__name__ == "DataFrame"
                                          and type(texts).__module__.startswith("pandas")):
            # iterating either yields its keys or column names: those were anonymized
            raise TypeError(f"texts must be a list/sequence of str, got {type(texts).__name__} "
                            "(its keys or column names would be taken; give .values() or a column)")
        jobs = positive_int("jobs", jobs)
        if backend is not None:
            if not callable(getattr(backend, "map", None)):  # a name such as "dask" is not an engine
                raise TypeError("backend must be an engine object such as "
                                "embedanon.backends.dask.DaskBackend(), got "
                                f"{type(backend).__name__}")
            if jobs != 1:  # the backend decides its workers: jobs would be ignored
                raise ConfigError("jobs needs the default engine; give jobs or backend, not both "
                                  "(ProcessBackend(jobs=N) is the processes engine)")
        return self._anonymize_many(texts, jobs, backend)

    def _anonymize_many(self, texts: Iterable[str | None], jobs: int,
                        backend: Backend | None) -> Iterator[Any]:
        engine = backend or build_backend("processes", jobs=jobs)
        # What was read, in order: a missing value itself, or _TEXT for a text sent to a chunk.
        order: deque[object] = deque()

        def present() -> Iterator[str]:
            for i, text in enumerate(texts):
                if is_missing(text):
                    order.append(text)
                    continue
                order.append(_TEXT)
                yield _text_at(i, text)

        tasks = (Task(tuple(chunk), self.config, self.key) for chunk in chunk_texts(present()))
        for outputs in engine.map(run_task, tasks):
            for output in outputs:
                while order[0] is not _TEXT:  # missing values read before this text
                    yield order.popleft()
                order.popleft()
                yield output
        yield from order  # missing values after the last text

    def digest(self) -> str:
        """Short keyed hash of the configuration, for provenance records (run reports, the review
        page): equal for two runs with the same configuration and release key.

        Keyed (HMAC under a subkey of the release key) because the configuration holds the
        ``deny`` and ``allow`` lists: an unkeyed hash let anyone holding a report confirm a
        guessed deny list offline (audit defect 3). Under ``seed`` the key, and so this digest,
        can be guessed: seeds are for experiments only. Outside scope ``detected`` it covers the
        content of the embedding and of the allow list, which the config names only by path: a
        file rewritten between a run and its resume, or between two reports, gives another digest.
        """
        scope = self.config.scope
        described = repr((self.config, scope.allow, scope.deny))  # the config's repr leaves them out
        if scope.scope != "detected":  # the embedding and allow list are read: by content
            described += f"|{self.runtime.store.fingerprint}|{self.runtime.index.policy.key()}"
        mac = hmac.new(self.key.subkey("config-digest"), described.encode("utf-8", "surrogatepass"),
                       hashlib.sha256)
        return mac.hexdigest()[:12]


_TEXT = object()


def is_missing(value: object) -> bool:
    """Whether ``value`` is a missing cell: None, a NaN of any float type, ``pd.NA`` or
    ``pd.NaT`` (recognised without importing pandas)."""
    if value is None:
        return True
    if isinstance(value, numbers.Number) and not isinstance(value, numbers.Integral):
        return bool(value != value)  # NaN is the one value unequal to itself
    return type(value).__name__ in ("NAType", "NaTType") and type(value).__module__.startswith("pandas")


def dictionary_values(dtype: object) -> Any:
    """The pandas dtype of the values of a pyarrow dictionary dtype (``pd.ArrowDtype`` of
    ``pa.dictionary(...)``: ``pd.read_parquet(..., dtype_backend="pyarrow")`` of a
    dictionary-encoded column), or None for any other dtype (recognised without importing
    pandas). Such a column is released in its value type and encoded again: written in place,
    its missing cells took original texts and its dictionary kept them all."""
    kind: Any = type(dtype)
    if kind.__name__ != "ArrowDtype" or not kind.__module__.startswith("pandas"):
        return None
    value_type = getattr(getattr(dtype, "pyarrow_dtype", None), "value_type", None)  # dictionaries only
    return None if value_type is None else kind(value_type)


def is_string_view(dtype: object) -> bool:
    """Whether ``dtype`` is pandas' ``string_view[pyarrow]``, whose values pandas cannot yet
    filter, take or write (with a missing value it cannot even print the column)."""
    return type(dtype).__name__ == "ArrowDtype" and str(getattr(dtype, "pyarrow_dtype", "")) == "string_view"


def check_column_dtype(column: object, dtype: object, *, string_view: bool = False) -> None:
    """Refuse, in one line and before any work, a pandas column whose dtype a release cannot keep
    (recognised without importing pandas; used by :mod:`embedanon.pandas` and
    :mod:`embedanon.dask`).

    Raises:
        TypeError: an ordered categorical (its order is the order of the original texts, which a
            release would give away: it came back unordered); a pyarrow ``string_view`` column
            unless ``string_view`` says the caller builds it with pyarrow (pandas cannot yet
            filter or write its values: it failed deep inside pandas); a sparse column whose
            fill value is a non-empty text (the dtype would keep that original text).
    """
    kind = type(dtype).__name__
    if kind == "CategoricalDtype" and getattr(dtype, "ordered", False):
        raise TypeError(f"column {column!r} is an ordered categorical, whose order is that of the "
                        "original texts and would give them away; release it unordered "
                        "(series.cat.as_unordered())")
    if is_string_view(dtype) and not string_view:
        raise TypeError(f"column {column!r} has dtype string_view[pyarrow], whose values pandas cannot "
                        "yet filter or write; read it as string[pyarrow] (cast the Arrow table to "
                        "pa.string() before to_pandas)")
    fill = getattr(dtype, "fill_value", None)
    if kind == "SparseDtype" and isinstance(fill, str) and fill:
        raise TypeError(f"column {column!r} is sparse with a text as its fill value, which its dtype "
                        "would keep; make it dense first (series.sparse.to_dense())")


def is_sparse(dtype: object) -> bool:
    """Whether ``dtype`` is a pandas sparse dtype: such a column cannot take values in place; it
    is released as a dense one and made sparse again (its fill value missing or empty, see
    :func:`check_column_dtype`, which a release keeps)."""
    return type(dtype).__name__ == "SparseDtype"


def named_columns(columns: Iterable[Any]) -> list[Any]:
    """The columns to anonymize, each once; none is refused (decision record 0640): the
    frame would come back as it was, every text in it, as if it had been released (the pandas
    functions, :class:`embedanon.pandas.ColumnAnonymizer` and
    :func:`embedanon.dask.anonymize_dataframe`)."""
    names = list(dict.fromkeys(columns))
    if not names:
        raise ConfigError("columns is empty: no column would be anonymized and every text would come "
                          "back as it was; name the text columns")
    return names


def released_categories(values: Any, kind: Any) -> Any:
    """The categorical dtype of released ``values`` (a Series): their distinct texts, sorted, as
    categories of type ``kind`` (the input's categories' type), so a column of only missing values
    keeps it and every Dask partition has the same type."""
    import pandas as pd

    return pd.CategoricalDtype(pd.Index(sorted(set(values.dropna())), dtype=kind))


def writable_column(series: Any) -> tuple[Any, Callable[[Any], Any] | None]:
    """``series`` (a pandas Series) in a form that takes released texts in place, and the function
    that gives the released column the input's dtype back, or ``(series, None)`` when the column
    takes them as it is (not copied): :func:`embedanon.pandas.anonymize_series` and the Dask
    partitions of :func:`embedanon.dask.anonymize_dataframe` both release through it.

    A categorical column (a dictionary-encoded Parquet column read by pandas) cannot take new
    values, and its categories are the original texts: it becomes object and is rebuilt from the
    released values (:func:`released_categories`, categories of the input's type). A sparse one
    (:func:`is_sparse`) becomes object and sparse again; a pyarrow dictionary column
    (:func:`dictionary_values`), which would keep the originals in its dictionary, becomes its
    value type and is encoded again."""
    dtype = series.dtype
    if getattr(dtype, "name", None) == "category":  # pandas' CategoricalDtype, without importing it
        kind = series.cat.categories.dtype
        return series.astype(object), lambda out: out.astype(released_categories(out, kind))
    if is_sparse(dtype):
        return series.astype(object), lambda out: out.astype(dtype)
    plain = dictionary_values(dtype)
    if plain is not None:
        return series.astype(plain), lambda out: out.astype(dtype)
    return series, None


def _text_at(i: int, text: object) -> str:
    if not isinstance(text, str):
        raise TypeError(f"texts[{i}] must be str, got {type(text).__name__}")
    return text
