"""The one name -> entry registry: names, duplicates, lookups, lazy loading."""

from __future__ import annotations

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


def test_loader_runs_once_and_only_when_needed() -> None:
    calls: list[int] = []

    def loader() -> None:
        calls.append(1)
        reg.add("builtin", 0)

    reg: Registry[int] = Registry("widget", loader=loader)
    reg.add("early", 1)  # registering does not load
    assert calls == []
    assert reg.get("builtin") == 0 and calls == [1]
    assert reg.names() == ["builtin", "early"] and "early" in reg and calls == [1]


@pytest.mark.parametrize("first", ["get", "names", "items", "contains"])
def test_every_lookup_triggers_the_loader(first: str) -> None:
    def loader() -> None:
        reg.add("builtin", 0)

    reg: Registry[int] = Registry("widget", loader=loader)
    if first == "get":
        assert reg.get("builtin") == 0
    elif first == "names":
        assert reg.names() == ["builtin"]
    elif first == "items":
        assert dict(reg.items()) == {"builtin": 0}
    else:
        assert "builtin" in reg


def test_a_failing_loader_fails_every_lookup() -> None:
    def loader() -> None:
        raise ImportError("plug-in module missing")

    reg: Registry[int] = Registry("widget", loader=loader)
    with pytest.raises(ImportError):
        reg.names()
    with pytest.raises(ImportError):
        reg.names()


def test_a_lookup_from_another_thread_waits_for_the_loader() -> None:
    """QA pass 5: the first concurrent use of a hybrid Anonymizer failed with ``unknown
    surrogate 'name'``: a second thread looked names up while the first was still loading."""
    entered, finish = threading.Event(), threading.Event()

    def loader() -> None:
        entered.set()
        assert reg.names() == []  # the loader's own lookups see what is registered so far
        finish.wait(10)
        reg.add("builtin", 7)

    reg: Registry[int] = Registry("widget", loader=loader)
    results: dict[str, object] = {}

    def lookup(name: str) -> None:
        try:
            results[name] = reg.get("builtin")
        except ConfigError as exc:
            results[name] = exc

    first = threading.Thread(target=lookup, args=("first",))
    first.start()
    assert entered.wait(10)
    second = threading.Thread(target=lookup, args=("second",))
    second.start()  # arrives while the loader runs
    second.join(0.2)
    finish.set()
    first.join(10)
    second.join(10)
    assert results == {"first": 7, "second": 7}
