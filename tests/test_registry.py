"""The one name -> entry registry: names, duplicates, lookups, lazy loading."""

from __future__ import annotations

import collections
import fractions
import threading

import pytest

from embedanon._registry import Registry
from embedanon.errors import ConfigError


def test_add_get_and_list() -> None:
    reg: Registry[int] = Registry("widget")
    assert reg.add("alpha", 1) == 1
    reg.register("beta-two")(2)
    assert reg.get("alpha") == 1 and reg.get("BETA-TWO") == 2  # lookups fold case
    assert reg.names() == ["alpha", "beta-two"]
    assert list(reg.items()) == [("alpha", 1), ("beta-two", 2)]
    assert "alpha" in reg and "gamma" not in reg


@pytest.mark.parametrize("name", ["Alpha", "two words", "", "9lives", "a/b", 3, None])
def test_names_are_lower_case_identifiers(name: object) -> None:
    reg: Registry[int] = Registry("widget")
    with pytest.raises(ValueError, match="lower-case identifiers"):
        reg.add(name, 1)  # type: ignore[arg-type]
    assert reg.names() == []


def test_duplicates_are_refused_and_keep_the_first() -> None:
    reg: Registry[str] = Registry("widget")
    reg.add("alpha", "first")
    with pytest.raises(ValueError, match="already registered"):
        reg.add("alpha", "second")
    assert reg.get("alpha") == "first"


@pytest.mark.parametrize("name", ["gamma", 7, None])
def test_unknown_names_list_the_valid_ones(name: object) -> None:
    reg: Registry[int] = Registry("widget")
    reg.add("alpha", 1)
    reg.add("beta", 2)
    with pytest.raises(ConfigError) as info:
        reg.get(name)
    message = str(info.value)
    assert message == f"unknown widget {name!r}; choose one of alpha, beta"
    assert isinstance(info.value, ValueError)  # a ConfigError is also a ValueError


#: a name table over real objects: the registry imports the module named by each entry
TABLE = {"ordered": "collections:OrderedDict", "fraction": "fractions:Fraction"}


def test_a_name_table_imports_on_first_lookup_of_the_name() -> None:
    reg: Registry[type] = Registry("widget", {**TABLE, "missing": "embedanon.no_such_module:Thing"})
    assert reg.names() == ["fraction", "missing", "ordered"]  # listing imports nothing
    assert "missing" in reg
    assert reg.get("ORDERED") is collections.OrderedDict
    with pytest.raises(ModuleNotFoundError, match="no_such_module"):  # loudly, on its own lookup
        reg.get("missing")
    with pytest.raises(ModuleNotFoundError):  # and again: never silently left out
        dict(reg.items())


def test_adapt_turns_each_builtin_into_its_entry_once() -> None:
    calls: list[str] = []

    def adapt(name: str, obj: type) -> tuple[str, type]:
        calls.append(name)
        return (name, obj)

    reg: Registry[tuple[str, type]] = Registry("widget", TABLE, adapt=adapt)
    assert reg.get("ordered") == ("ordered", collections.OrderedDict)
    assert reg.get("ordered") is reg.get("ordered") and calls == ["ordered"]
    assert dict(reg.items())["fraction"] == ("fraction", fractions.Fraction)
    assert calls == ["ordered", "fraction"]


@pytest.mark.parametrize("name", ["ordered", "fraction"])
def test_a_builtin_name_cannot_be_taken(name: str) -> None:
    reg: Registry[object] = Registry("widget", TABLE)
    with pytest.raises(ValueError, match="already registered"):
        reg.add(name, object())
    assert reg.get("fraction") is fractions.Fraction


@pytest.mark.parametrize("table, message", [
    ({"Bad": "collections:OrderedDict"}, "lower-case identifiers"),
    ({"ok": "collections.OrderedDict"}, "package.module:attribute"),
])
def test_a_bad_name_table_is_refused(table: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Registry("widget", table)


def test_a_lookup_from_another_thread_waits_for_the_first_import() -> None:
    """QA pass 5: the first concurrent use of a hybrid Anonymizer failed with ``unknown
    surrogate 'name'``: a second thread looked a name up while the first was still loading it.
    Both threads now get the one entry, built once."""
    entered, finish = threading.Event(), threading.Event()
    built: list[object] = []

    def adapt(name: str, obj: type) -> object:
        entered.set()
        finish.wait(10)
        built.append(object())
        return built[-1]

    reg: Registry[object] = Registry("widget", TABLE, adapt=adapt)
    results: dict[str, object] = {}

    def lookup(who: str) -> None:
        results[who] = reg.get("ordered")

    first = threading.Thread(target=lookup, args=("first",))
    first.start()
    assert entered.wait(10)
    second = threading.Thread(target=lookup, args=("second",))
    second.start()  # arrives while the first builds the entry
    second.join(0.2)
    assert second.is_alive()
    finish.set()
    first.join(10)
    second.join(10)
    assert len(built) == 1 and results == {"first": built[0], "second": built[0]}


def test_a_mechanism_without_an_index_is_refused_by_name() -> None:
    """``build_mechanism("knn", None)`` failed deep inside with an AttributeError."""
    from embedanon.mechanisms import build_mechanism

    with pytest.raises(TypeError, match="index must be a NeighborIndex, got NoneType"):
        build_mechanism("knn", None)  # type: ignore[arg-type]
