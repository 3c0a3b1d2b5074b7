"""The experiment schema: a YAML file in, a frozen, validated :class:`ExperimentConfig` out.

::

    name: my-run
    datasets:
      - {name: notes, loader: csv, path: data/notes.csv, text_column: text, label_column: label}
    mechanisms:
      - {name: knn, k: [5, 10, 20]}
      - {name: laplace, epsilon: [50, 80, 110]}
    classifiers: [tfidf-logreg]
    seeds: [0, 1, 2]
    output: research/results/my-run

Optional top-level keys: ``folds`` (CV folds, default 5), ``embedding`` (default
``minilm-words``), ``privacy`` (``attack_docs`` 50, ``draws`` 50, ``stats_words`` 200,
``contextual`` false, ``attack_dense`` false: the attack on mechanisms whose law covers every
candidate, ``exponential`` and ``tem``, costs minutes per document, so it is off unless asked)
and ``quick`` (what ``--quick`` shrinks to: ``limit`` 300, ``seeds`` 1, ``folds`` 3,
``attack_docs`` 10, ``values`` ``ends``/``all``).

A dataset entry: ``name``, ``loader``, ``path`` (relative paths are relative to the working
directory), ``limit``, ``seed`` (of the sample), ``part`` (``all``/``dev``/``heldout``) and the
loader's own options. A mechanism entry: ``name`` (a registered mechanism), exactly one list of
values of one of its parameters (the swept one), scalars for its other parameters, and the
release levers ``label`` (the row's ``variant``), ``min_length``, ``allowlist`` (a path, or
``{source: public, top: N}`` for the N most frequent words of the bundled public frequency
list), ``oov`` (``composed``: the pipeline's rule; ``keep``: out-of-vocabulary words left as they
are, an upper bound that changes fewer than 100 % of words; ``uniform``: a uniform candidate)
``consistent`` (one replacement per word type within a record), ``keep`` (``english-stopwords``: the
words of that public list released as they are) and ``embedding`` (this entry's
embedding instead of the top-level one: a name or a vector file path, e.g. the public word2vec of
``research/scripts/train_public_embedding.py``).

Every error is one line naming the key (``mechanisms[1].epsilon``) and the valid values.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .._validate import seed_int
from ..errors import ConfigError

OOV_MODES = ("composed", "keep", "uniform")
#: Public word lists of the ``keep`` lever (loaded by :func:`.levers.keep_list`).
KEEP_LISTS = ("english-stopwords",)
VALUE_MODES = ("ends", "all")
#: The largest experiment seed (scikit-learn's ``random_state`` is a 32-bit seed).
MAX_SEED = 2**32 - 1
_TOP = (
    "name",
    "datasets",
    "mechanisms",
    "classifiers",
    "seeds",
    "output",
    "folds",
    "embedding",
    "privacy",
    "quick",
)
_DATASET_KEYS = ("name", "loader", "path", "limit", "seed", "part")
_LEVERS = ("label", "min_length", "allowlist", "oov", "consistent", "keep", "index", "embedding")
_PRIVACY = {"attack_docs": 50, "draws": 50, "stats_words": 200, "contextual": False, "attack_dense": False}
_QUICK = {"limit": 300, "seeds": 1, "folds": 3, "attack_docs": 10, "values": "ends"}


@dataclass(frozen=True, slots=True)
class DatasetSpec:
    """One corpus: loader name, path and options (validated against the loader on load)."""

    name: str
    loader: str
    path: str
    limit: int | None = None
    seed: int = 0
    part: str = "all"
    options: tuple[tuple[str, Any], ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "loader": self.loader,
            "path": self.path,
            "limit": self.limit,
            "seed": self.seed,
            "part": self.part,
            **dict(self.options),
        }


@dataclass(frozen=True, slots=True)
class MechanismSpec:
    """One mechanism entry: the swept parameter and its values, fixed parameters and levers."""

    name: str
    param: str
    values: tuple[float | int, ...]
    fixed: tuple[tuple[str, Any], ...] = ()
    label: str = ""
    min_length: int = 2
    allowlist: Any = None
    oov: str = "composed"
    consistent: bool = False
    index: str | None = None
    embedding: str | None = None
    keep: str | None = None

    @property
    def variant(self) -> str:
        return self.label or self.name

    def levers(self) -> dict[str, Any]:
        out = {
            "min_length": self.min_length,
            "allowlist": self.allowlist,
            "oov": self.oov,
            "consistent": self.consistent,
            "index": self.index,
        }
        if self.embedding is not None:  # only when set: cells of earlier configs keep their keys
            out["embedding"] = self.embedding
        if self.keep is not None:
            out["keep"] = self.keep
        return out


@dataclass(frozen=True, slots=True)
class PrivacySettings:
    """How each cell's privacy figures are measured (see :mod:`.runner`)."""

    attack_docs: int = 50
    draws: int = 50
    stats_words: int = 200
    contextual: bool = False
    attack_dense: bool = False


@dataclass(frozen=True, slots=True)
class QuickSettings:
    """What ``--quick`` shrinks the experiment to."""

    limit: int = 300
    seeds: int = 1
    folds: int = 3
    attack_docs: int = 10
    values: str = "ends"


@dataclass(frozen=True, slots=True)
class ExperimentConfig:
    """A validated experiment (see the module docstring for the YAML schema)."""

    name: str
    datasets: tuple[DatasetSpec, ...]
    mechanisms: tuple[MechanismSpec, ...]
    classifiers: tuple[str, ...]
    seeds: tuple[int, ...]
    output: str
    folds: int = 5
    embedding: str = "minilm-words"
    privacy: PrivacySettings = field(default_factory=PrivacySettings)
    quick: QuickSettings = field(default_factory=QuickSettings)

    def quickened(self) -> ExperimentConfig:
        """The ``--quick`` version: smaller corpora, fewer seeds, folds and values; own output."""
        q = self.quick
        datasets = tuple(
            replace(d, limit=q.limit if d.limit is None else min(d.limit, q.limit)) for d in self.datasets
        )
        mechanisms = tuple(
            replace(
                m, values=m.values if q.values == "all" or len(m.values) <= 2 else (m.values[0], m.values[-1])
            )
            for m in self.mechanisms
        )
        return replace(
            self,
            datasets=datasets,
            mechanisms=mechanisms,
            seeds=self.seeds[: q.seeds],
            folds=min(self.folds, q.folds),
            output=self.output.rstrip("/") + "-quick",
            privacy=replace(self.privacy, attack_docs=min(self.privacy.attack_docs, q.attack_docs)),
        )


def file_name(name: str) -> str:
    """``name`` as part of a file name: letters, digits, ``-`` and ``_`` kept, anything else ``-``."""
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in name)


def cell_key(payload: dict[str, Any]) -> str:
    """Stable 16-hex-digit hash of a cell's configuration (canonical JSON)."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# ------------------------------------------------------------------------------------------------
# Parsing
# ------------------------------------------------------------------------------------------------
def load_config(path: str | Path) -> ExperimentConfig:
    """Read and validate a YAML experiment file.

    Raises:
        ConfigError: unreadable file, invalid YAML, or any invalid key (one line).
    """
    import yaml

    if not isinstance(path, (str, os.PathLike)):  # else "expected str, bytes or os.PathLike object"
        raise TypeError(f"path must be the path of a YAML file, got {type(path).__name__}")
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read experiment config {file} ({type(exc).__name__})") from None
    try:
        data = yaml.load(text, Loader=_unique_keys_loader())  # noqa: S506 - a SafeLoader subclass
    except DuplicateKeyError as exc:
        raise ConfigError(f"{file}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{file} is not valid YAML{where}") from None
    if not isinstance(data, dict):
        what = ("an empty file" if data is None else "a list" if isinstance(data, list)
                else "a string" if isinstance(data, str) else "a single value")
        raise ConfigError(f"{file} must be a YAML mapping of name, datasets, mechanisms, classifiers, seeds "
                          f"and output; it is {what}")
    return parse_config(data)


class DuplicateKeyError(Exception):
    """A mapping of the YAML file repeats a key (its message names the key and the line)."""


def _unique_keys_loader() -> type:
    """A ``SafeLoader`` that refuses a repeated mapping key instead of keeping the last value
    (JSON configs are refused the same way)."""
    import yaml

    class UniqueKeyLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no type stubs
        def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":  # `<<: *base`: overriding is its point
                    continue
                key = self.construct_object(key_node, deep=deep)
                try:
                    repeated = key in seen
                    seen.add(key)
                except TypeError:  # an unhashable key: let SafeLoader refuse it as before
                    continue
                if repeated:
                    raise DuplicateKeyError(
                        f"key {key!r} appears twice in one mapping (line {key_node.start_mark.line + 1})")
            return super().construct_mapping(node, deep=deep)

    return UniqueKeyLoader


def _need(value: Any, kind: type | tuple[type, ...], key: str, what: str) -> Any:
    if (
        isinstance(value, bool)
        and kind is not bool
        and bool not in (kind if isinstance(kind, tuple) else (kind,))
    ):
        raise ConfigError(f"{key} must be {what}, got {value!r}")
    if not isinstance(value, kind):
        raise ConfigError(f"{key} must be {what}, got {type(value).__name__}")
    return value


def _int(value: Any, key: str, minimum: int) -> int:
    _need(value, int, key, f"an integer >= {minimum}")
    if value < minimum:
        raise ConfigError(f"{key} must be an integer >= {minimum}, got {value}")
    return int(value)


def _mapping(value: Any, key: str, allowed: tuple[str, ...] | None = None) -> dict[str, Any]:
    _need(value, dict, key, "a mapping")
    for name in value:
        if not isinstance(name, str):
            raise ConfigError(f"{key} has a non-string key")
        if allowed is not None and name not in allowed:
            raise ConfigError(f"{key}: unknown key {name!r}; valid keys: {', '.join(allowed)}")
    return value


def _dataset(entry: Any, where: str) -> DatasetSpec:
    from ..utility.datasets import LOADERS, PARTS

    entry = _mapping(entry, where)
    for key in ("name", "loader", "path"):
        if key not in entry:
            raise ConfigError(f"{where}.{key} is required")
        _need(entry[key], str, f"{where}.{key}", "a string")
        if not entry[key].strip():  # an empty name labels rows and plot files with nothing
            raise ConfigError(f"{where}.{key} must not be empty")
    if entry["loader"] not in LOADERS:
        raise ConfigError(
            f"{where}.loader: unknown loader {entry['loader']!r}; choose one of {', '.join(LOADERS.names())}"
        )
    spec = LOADERS.get(entry["loader"])
    options = {k: v for k, v in entry.items() if k not in _DATASET_KEYS}
    options = {k: v for k, v in spec.check(options, where).items() if k in options}
    limit = entry.get("limit")
    if limit is not None:
        limit = _int(limit, f"{where}.limit", 2)
    seed = _int(entry.get("seed", 0), f"{where}.seed", 0)
    part = entry.get("part", "all")
    if part not in PARTS:
        raise ConfigError(f"{where}.part must be one of {', '.join(PARTS)}, got {part!r}")
    for key, value in options.items():
        if isinstance(value, list):
            options[key] = tuple(value)
    return DatasetSpec(
        entry["name"], entry["loader"], entry["path"], limit, seed, part, tuple(sorted(options.items()))
    )


def _yaml_number_hint(value: Any) -> str:
    """Why a number-looking string is text: YAML 1.1 (PyYAML) reads ``1e3`` (no dot) and ``1.0e3``
    (no exponent sign) as strings; the hint gives the spelling it reads as a number."""
    import yaml

    if not isinstance(value, str) or len(value) > 40:
        return ""
    mantissa, e, exponent = value.strip().lower().partition("e")
    if not e:
        return ""
    if "." not in mantissa:
        mantissa += ".0"
    if exponent[:1] not in ("+", "-"):
        exponent = "+" + exponent
    spelling = f"{mantissa}e{exponent}"
    try:
        number = yaml.safe_load(spelling)
    except yaml.YAMLError:
        return ""
    if not isinstance(number, float) or not math.isfinite(number):
        return ""
    return f" (YAML reads {value} as text; write {spelling})"


def _number(value: Any, key: str, param: str) -> float | int:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigError(f"{key} values must be finite numbers, got {value!r}{_yaml_number_hint(value)}")
    if param == "k":
        if not isinstance(value, int) or value < 1:
            raise ConfigError(f"{key} values must be integers >= 1, got {value!r}")
        return int(value)
    if value <= 0:
        raise ConfigError(f"{key} values must be > 0, got {value!r}")
    return float(value)


def _allowlist(value: Any, key: str) -> Any:
    if value is None or isinstance(value, str):
        return value
    entry = _mapping(value, key, ("source", "top"))
    if entry.get("source") != "public":
        raise ConfigError(f"{key}.source must be public, got {entry.get('source')!r}")
    return (("source", "public"), ("top", _int(entry.get("top"), f"{key}.top", 100)))


def _mechanism(entry: Any, where: str) -> MechanismSpec:
    from ..mechanisms import available

    entry = _mapping(entry, where)
    specs = available()
    name = entry.get("name")
    if name not in specs:
        raise ConfigError(
            f"{where}.name: unknown mechanism {name!r}; choose one of {', '.join(sorted(specs))}"
        )
    params = specs[name].params
    swept = [k for k, v in entry.items() if isinstance(v, list)]
    unknown = [k for k in entry if k not in ("name", *params, *_LEVERS)]
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {unknown[0]!r} for mechanism {name!r}; valid keys: "
            f"{', '.join(('name', *params, *_LEVERS))}"
        )
    if len(swept) != 1 or swept[0] not in params:
        raise ConfigError(
            f"{where}: give exactly one list of values of one of {', '.join(params)} "
            f"(e.g. {params[0]}: [1, 2]), got {len(swept)} lists"
        )
    param = swept[0]
    values = entry[param]
    if not values:
        raise ConfigError(f"{where}.{param} must not be empty")
    nums = tuple(_number(v, f"{where}.{param}", param) for v in values)
    if len(set(nums)) != len(nums):  # a repeated value would repeat its rows and fake a spread
        raise ConfigError(f"{where}.{param} values must be distinct")
    for k in params:  # every mechanism parameter is a number; its range is the mechanism's to check
        given = entry.get(k, 0.0)
        if k != param and (isinstance(given, bool) or not isinstance(given, int | float)):
            raise ConfigError(f"{where}.{k} must be a number, got {type(entry[k]).__name__}")
    fixed = tuple(sorted((k, entry[k]) for k in params if k in entry and k != param))
    oov = entry.get("oov", "composed")
    if oov not in OOV_MODES:
        raise ConfigError(f"{where}.oov must be one of {', '.join(OOV_MODES)}, got {oov!r}")
    consistent = _need(entry.get("consistent", False), bool, f"{where}.consistent", "true or false")
    label = _need(entry.get("label", ""), str, f"{where}.label", "a string")
    index = entry.get("index")
    if index is not None:
        _need(index, str, f"{where}.index", "a string")
    embedding = entry.get("embedding")
    if embedding is not None:
        _need(embedding, str, f"{where}.embedding", "a string (an embedding name or a vector file path)")
    keep = entry.get("keep")
    if keep is not None and keep not in KEEP_LISTS:
        raise ConfigError(f"{where}.keep must be one of {', '.join(KEEP_LISTS)}, got {keep!r}")
    return MechanismSpec(
        name,
        param,
        nums,
        fixed,
        label,
        _int(entry.get("min_length", 2), f"{where}.min_length", 1),
        _allowlist(entry.get("allowlist"), f"{where}.allowlist"),
        oov,
        consistent,
        index,
        embedding,
        keep,
    )


def _settings(value: Any, key: str, defaults: dict[str, Any]) -> dict[str, Any]:
    entry = _mapping(value or {}, key, tuple(defaults))
    out = dict(defaults)
    for name, default in defaults.items():
        if name not in entry:
            continue
        if isinstance(default, bool):
            out[name] = _need(entry[name], bool, f"{key}.{name}", "true or false")
        elif isinstance(default, int):
            out[name] = _int(entry[name], f"{key}.{name}", 1)
        else:
            if entry[name] not in VALUE_MODES:
                raise ConfigError(
                    f"{key}.{name} must be one of {', '.join(VALUE_MODES)}, got {entry[name]!r}"
                )
            out[name] = entry[name]
    return out


def parse_config(data: Any) -> ExperimentConfig:
    """Validate a parsed YAML document (see the module docstring)."""
    from ..utility.classifiers import CLASSIFIERS

    data = _mapping(data, "config", _TOP)
    for key in ("name", "datasets", "mechanisms", "output"):
        if key not in data:
            raise ConfigError(f"{key} is required (keys: {', '.join(_TOP)})")
    name = _need(data["name"], str, "name", "a string")
    output = _need(data["output"], str, "output", "a path string")
    if not output.strip():  # "" would be the working directory: cells/ and results.* among the user's files
        raise ConfigError("output must be a directory path, got an empty string "
                          "(use '.' for the working directory)")
    datasets = _need(data["datasets"], list, "datasets", "a list")
    mechanisms = _need(data["mechanisms"], list, "mechanisms", "a list")
    if not datasets:
        raise ConfigError("datasets must not be empty")
    if not mechanisms:  # it ran the original text's baseline alone, exit 0 (train audit)
        raise ConfigError("mechanisms must not be empty: an experiment compares mechanisms with the "
                          "original text")
    specs = tuple(_dataset(d, f"datasets[{i}]") for i, d in enumerate(datasets))
    names = [d.name for d in specs]
    if len(set(names)) != len(names):
        raise ConfigError("datasets: names must be unique")
    files: dict[str, int] = {}
    for i, d in enumerate(specs):  # one plot file per dataset: plot-<file name>-<classifier>.png
        j = files.setdefault(file_name(d.name), i)
        if j != i:
            raise ConfigError(f"datasets[{j}] and datasets[{i}]: names {specs[j].name!r} and {d.name!r} "
                              "give the same plot file name; rename one (letters, digits, - and _ are kept)")
    mechs = tuple(_mechanism(m, f"mechanisms[{i}]") for i, m in enumerate(mechanisms))
    variants = [m.variant for m in mechs]
    if len(set(variants)) != len(variants):
        raise ConfigError("mechanisms: two entries have the same label; give each a unique 'label'")
    classifiers = _need(data.get("classifiers", ["tfidf-logreg"]), list, "classifiers", "a list")
    for i, c in enumerate(classifiers):
        if c not in CLASSIFIERS:
            raise ConfigError(
                f"classifiers[{i}]: unknown classifier {c!r}; choose one of {', '.join(CLASSIFIERS.names())}"
            )
    if not classifiers:
        raise ConfigError("classifiers must not be empty")
    if len(set(classifiers)) != len(classifiers):
        raise ConfigError("classifiers must be distinct")
    seeds = _need(data.get("seeds", [0]), list, "seeds", "a list")
    if not seeds:
        raise ConfigError("seeds must not be empty")
    # a seed also seeds scikit-learn's folds and models, which take 0 .. 2**32 - 1
    seeds = [seed_int(_int(s, f"seeds[{i}]", 0), name=f"seeds[{i}]", maximum=MAX_SEED)
             for i, s in enumerate(seeds)]
    if len(set(seeds)) != len(seeds):
        raise ConfigError("seeds must be distinct")
    folds = _int(data.get("folds", 5), "folds", 2)
    embedding = _need(data.get("embedding", "minilm-words"), str, "embedding", "a string")
    privacy = PrivacySettings(**_settings(data.get("privacy"), "privacy", _PRIVACY))
    from ..privacy.metrics import check_draws

    check_draws(privacy.draws, "privacy.draws")  # else the N_w draws of a cell can take all memory
    quick = QuickSettings(**_settings(data.get("quick"), "quick", _QUICK))
    if quick.folds < 2:
        raise ConfigError(f"quick.folds must be an integer >= 2, got {quick.folds}")
    if quick.limit < 2:  # else --quick failed with "datasets[0].limit must be ...", a key not in the file
        raise ConfigError(f"quick.limit must be an integer >= 2, got {quick.limit}")
    return ExperimentConfig(
        name, specs, mechs, tuple(classifiers), tuple(seeds), output, folds, embedding, privacy, quick
    )
