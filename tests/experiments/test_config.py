"""The experiment schema: the issue's example parses; every bad key gets one line naming it."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from embedanon.errors import ConfigError
from embedanon.experiments.config import cell_key, load_config, parse_config

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = {
    "name": "my-run",
    "datasets": [
        {"name": "notes", "loader": "csv", "path": "data/notes.csv", "text_column": "text", "label_column": "label"}
    ],
    "mechanisms": [{"name": "knn", "k": [5, 10, 20]}, {"name": "laplace", "epsilon": [50, 80, 110]}],
    "classifiers": ["tfidf-logreg"],
    "seeds": [0, 1, 2],
    "output": "research/results/my-run",
}


def _with(path: str, value: object) -> dict:
    data = copy.deepcopy(EXAMPLE)
    node = data
    keys = path.split(".")
    for key in keys[:-1]:
        node = node[int(key)] if key.isdigit() else node[key]
    last = keys[-1]
    if value is KeyError:
        del node[last]
    else:
        node[int(last) if last.isdigit() else last] = value
    return data


def test_the_issue_example_parses() -> None:
    config = parse_config(EXAMPLE)
    assert [d.name for d in config.datasets] == ["notes"]
    assert dict(config.datasets[0].options) == {"text_column": "text", "label_column": "label"}
    assert [(m.name, m.param, m.values) for m in config.mechanisms] == [
        ("knn", "k", (5, 10, 20)),
        ("laplace", "epsilon", (50.0, 80.0, 110.0)),
    ]
    assert config.seeds == (0, 1, 2) and config.folds == 5


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("colour", "red", r"config: unknown key 'colour'; valid keys: name, datasets, mechanisms"),
        ("name", KeyError, r"name is required"),
        ("datasets", [], r"datasets must not be empty"),
        ("mechanisms", [], r"mechanisms must not be empty: an experiment compares mechanisms"),
        ("datasets.0.loader", "excel", r"datasets\[0\]\.loader: unknown loader 'excel'; choose one of ag-news, csv"),
        ("datasets.0.path", KeyError, r"datasets\[0\]\.path is required"),
        ("datasets.0.sep", ";", r"datasets\[0\]: unknown key 'sep' for loader 'csv'; valid keys: delimiter, label_column"),
        ("datasets.0.limit", 0, r"datasets\[0\]\.limit must be an integer >= 2, got 0"),
        ("datasets.0.limit", True, r"datasets\[0\]\.limit must be an integer >= 2, got True"),
        ("datasets.0.part", "train", r"datasets\[0\]\.part must be one of all, dev, heldout"),
        ("mechanisms.0.name", "knnn", r"mechanisms\[0\]\.name: unknown mechanism 'knnn'; choose one of exponential, knn, laplace"),
        ("mechanisms.0.epsilon", [1.0], r"mechanisms\[0\]: unknown key 'epsilon' for mechanism 'knn'; valid keys: name, k, label"),
        ("mechanisms.0.k", 10, r"mechanisms\[0\]: give exactly one list of values of one of k"),
        ("mechanisms.0.k", [], r"mechanisms\[0\]\.k must not be empty"),
        ("mechanisms.0.k", [0], r"mechanisms\[0\]\.k values must be integers >= 1, got 0"),
        ("mechanisms.1.epsilon", [-1], r"mechanisms\[1\]\.epsilon values must be > 0, got -1"),
        ("mechanisms.1.epsilon", [float("nan")], r"mechanisms\[1\]\.epsilon values must be finite numbers"),
        ("mechanisms.0.oov", "drop", r"mechanisms\[0\]\.oov must be one of composed, keep, uniform, got 'drop'"),
        ("mechanisms.0.consistent", "yes", r"mechanisms\[0\]\.consistent must be true or false"),
        ("mechanisms.0.keep", "stopwords", r"mechanisms\[0\]\.keep must be one of english-stopwords, got 'stopwords'"),
        ("mechanisms.0.allowlist", {"source": "web", "top": 10}, r"mechanisms\[0\]\.allowlist\.source must be public"),
        ("classifiers", ["bert"], r"classifiers\[0\]: unknown classifier 'bert'; choose one of minilm-logreg, tfidf-logreg"),
        ("seeds", [1, 1], r"seeds must be distinct"),
        ("mechanisms.0.k", [5, 5], r"mechanisms\[0\]\.k values must be distinct"),
        ("mechanisms.1.epsilon", [14, 14.0], r"mechanisms\[1\]\.epsilon values must be distinct"),
        ("classifiers", ["tfidf-logreg", "tfidf-logreg"], r"classifiers must be distinct"),
        ("seeds", [-1], r"seeds\[0\] must be an integer >= 0, got -1"),
        # found by the experiment audit: 2**32 passed and ended in scikit-learn's traceback (exit 1)
        ("seeds", [0, 2**32], r"seeds\[1\] must be at most 4294967295, got 4294967296"),
        ("seeds", [10**400], r"seeds\[0\] must be at most 4294967295, got an integer of 1329 bits"),
        ("folds", 1, r"folds must be an integer >= 2, got 1"),
        # found by the experiment audit: output '' ran into the working directory, name '' made
        # rows and a plot named 'plot--tfidf-logreg.png'
        ("output", "", r"output must be a directory path, got an empty string"),
        ("output", "  ", r"output must be a directory path, got an empty string"),
        ("datasets.0.name", "", r"datasets\[0\]\.name must not be empty"),
        ("datasets.0.path", "", r"datasets\[0\]\.path must not be empty"),
        ("privacy", {"attack_docs": 0}, r"privacy\.attack_docs must be an integer >= 1, got 0"),
        ("privacy", {"docs": 3}, r"privacy: unknown key 'docs'; valid keys: attack_docs"),
        ("quick", {"values": "some"}, r"quick\.values must be one of ends, all, got 'some'"),
        # found by the experiment audit: --quick then failed naming datasets[0].limit
        ("quick", {"limit": 1}, r"quick\.limit must be an integer >= 2, got 1"),
    ],
)
def test_bad_config_one_line(path: str, value: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        parse_config(_with(path, value))
    assert "\n" not in str(info.value)


def test_dataset_names_that_share_a_plot_file_are_refused() -> None:
    """Found by the experiment audit: datasets named 'notes 2024' and 'notes-2024' both wrote
    plot-notes-2024-tfidf-logreg.png, the second over the first."""
    data = _with("datasets", [dict(EXAMPLE["datasets"][0], name="notes 2024"),
                              dict(EXAMPLE["datasets"][0], name="notes-2024")])
    with pytest.raises(ConfigError, match=r"^datasets\[0\] and datasets\[1\]: names 'notes 2024' and "
                                          r"'notes-2024' give the same plot file name"):
        parse_config(data)


def test_two_entries_of_one_mechanism_need_labels() -> None:
    data = _with("mechanisms", [{"name": "knn", "k": [5]}, {"name": "knn", "k": [10], "min_length": 3}])
    with pytest.raises(ConfigError, match="same label"):
        parse_config(data)
    data["mechanisms"][1]["label"] = "knn-min3"
    assert [m.variant for m in parse_config(data).mechanisms] == ["knn", "knn-min3"]


@pytest.mark.parametrize(("written", "hint"), [("1e3", "1.0e+3"), ("1.5e3", "1.5e+3"), ("2E-1", "2.0e-1")])
def test_a_number_yaml_reads_as_text_gets_its_number_spelling(tmp_path: Path, written: str, hint: str) -> None:
    """Found by the experiment audit: 'epsilon: [1e3]' was refused with 'values must be finite
    numbers, got '1e3'', which reads as nonsense: PyYAML (YAML 1.1) reads 1e3 as a string."""
    import yaml

    path = tmp_path / "e.yaml"
    data = _with("mechanisms.1.epsilon", ["EPS"])
    path.write_text(yaml.safe_dump(data).replace("EPS", written), encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"got '{written}' \(YAML reads {written} as text; write {re.escape(hint)}\)"):
        load_config(path)
    path.write_text(yaml.safe_dump(data).replace("EPS", hint), encoding="utf-8")
    assert load_config(path).mechanisms[1].values == (float(written),)


def test_yaml_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="is not valid YAML at line"):
        load_config(bad)
    with pytest.raises(ConfigError, match="cannot read experiment config"):
        load_config(tmp_path / "missing.yaml")


def test_quick_shrinks_and_writes_elsewhere() -> None:
    config = parse_config({**EXAMPLE, "quick": {"limit": 50, "values": "ends"}})
    quick = config.quickened()
    assert quick.output == "research/results/my-run-quick"
    assert quick.seeds == (0,) and quick.folds == 3 and quick.datasets[0].limit == 50
    assert [m.values for m in quick.mechanisms] == [(5, 20), (50.0, 110.0)]


def test_cell_key_is_canonical() -> None:
    assert cell_key({"a": 1, "b": [1, 2]}) == cell_key({"b": [1, 2], "a": 1})
    assert cell_key({"a": 1}) != cell_key({"a": 2})


def test_embedding_lever_is_per_entry_and_keeps_old_cell_keys() -> None:
    data = copy.deepcopy(EXAMPLE)
    data["mechanisms"].append({"name": "knn", "k": [10], "label": "w2v", "embedding": "vectors.bin"})
    config = parse_config(data)
    plain, w2v = config.mechanisms[0], config.mechanisms[2]
    assert plain.embedding is None and "embedding" not in plain.levers()  # earlier configs' keys unchanged
    assert w2v.embedding == "vectors.bin" and w2v.levers()["embedding"] == "vectors.bin"
    data["mechanisms"][2]["embedding"] = 3
    with pytest.raises(ConfigError, match=r"mechanisms\[2\]\.embedding must be a string"):
        parse_config(data)


EXAMPLE_YAML = """name: t
datasets:
  - {name: notes, loader: csv, path: data/notes.csv, text_column: text, label_column: label}
mechanisms:
  - {name: knn, k: [5]}
output: out
"""


@pytest.mark.parametrize(
    ("text", "key", "line"),
    [
        (EXAMPLE_YAML + "name: u\n", "name", 7),  # top level, last would win
        (EXAMPLE_YAML.replace("k: [5]}", "k: [5], k: [6]}"), "k", 5),  # inside a flow mapping
        (EXAMPLE_YAML + "privacy:\n  draws: 5\n  draws: 6\n", "draws", 9),  # nested block mapping
    ],
)
def test_duplicate_yaml_keys_are_refused(tmp_path: Path, text: str, key: str, line: int) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message == f"{path}: key {key!r} appears twice in one mapping (line {line})"
    assert "\n" not in message


def test_yaml_merge_keys_may_still_override(tmp_path: Path) -> None:
    path = tmp_path / "merge.yaml"
    path.write_text(EXAMPLE_YAML.replace("mechanisms:\n  - {name: knn, k: [5]}",
                                         "mechanisms:\n  - &m {name: knn, k: [5]}\n  - {<<: *m, label: b, k: [6]}"),
                    encoding="utf-8")
    config = load_config(path)
    assert [m.values for m in config.mechanisms] == [(5,), (6,)]


@pytest.mark.parametrize(("content", "what"), [("", "an empty file"), ("# only a comment\n", "an empty file"),
                                               ("- a\n- b\n", "a list"), ("just words\n", "a string")])
def test_a_config_that_is_no_mapping_is_named_in_words(tmp_path, content: str, what: str) -> None:  # type: ignore[no-untyped-def]
    """An empty YAML file said 'config must be a mapping, got NoneType' (found by running
    experiment run on an empty file)."""
    path = tmp_path / "run.yaml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == (f"{path} must be a YAML mapping of name, datasets, mechanisms, classifiers, "
                               f"seeds and output; it is {what}")


def test_wrong_argument_kinds_are_named() -> None:
    """API audit: ``run_experiment({...})`` failed with ``'dict' object has no attribute
    'output'`` and ``load_config(None)`` with ``expected str, bytes or os.PathLike object``."""
    from embedanon.experiments import run_experiment

    with pytest.raises(TypeError, match="^config must be an ExperimentConfig .*got dict$"):
        run_experiment({"name": "x"})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="^path must be the path of a YAML file, got NoneType$"):
        load_config(None)  # type: ignore[arg-type]
