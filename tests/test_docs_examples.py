"""The README's commands and Python examples match the installed package (a guard against drift).

Nothing is run: every ``embedanon``/``anonymize`` line of a ```bash block is parsed by the command's
own click parser (an unknown option, a bad choice or a non-number where a number belongs fails);
every option the prose names in backticks (`--scope hybrid`, `calibrate --target`) is one that
command, or some command, lists in --help; every ```python block compiles, its imports resolve, and
each call of an embedanon name binds to that name's signature (a renamed keyword fails).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from embedanon import Anonymizer
from embedanon.cli import anonymize_app, app
from embedanon.cli.common import UsageError
from embedanon.mechanisms import MECHANISMS

README = Path(__file__).resolve().parents[1] / "README.md"
ROOT = typer.main.get_command(app)
PROGRAMS = {"embedanon": ROOT, "anonymize": typer.main.get_command(anonymize_app)}
#: a fenced block, indented or not (the README nests some under list items)
FENCE = re.compile(r"^[ \t]*```(\w*)[ \t]*\n(.*?)^[ \t]*```[ \t]*$", re.S | re.M)
#: what ends a command, and what is followed by a file name (the command goes on after it)
SEPARATORS = {"|", "||", "&", "&&", ";", "(", ")"}
REDIRECTIONS = {">", ">>", "<", ">&", "<<"}
OPTION = r"--?[a-zA-Z][\w-]*(=.*)?"
#: a metavar that lists an option's values (the CLI convention): all|detected|hybrid
CHOICES = r"[a-z0-9-]+(\|[a-z0-9-]+)+"


def _blocks(text: str, language: str) -> list[tuple[int, str]]:
    """(line number of the block's first line, its text, dedented) of every ```language block."""
    found = []
    for match in FENCE.finditer(text):
        if match.group(1) == language:
            indent = len(match.group(0)) - len(match.group(0).lstrip(" \t"))
            body = "\n".join(line[indent:] for line in match.group(2).splitlines())
            found.append((text.count("\n", 0, match.start(2)) + 1, body))
    return found


def _prose(text: str) -> str:
    return FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def _command_lines(text: str) -> Iterator[tuple[int, list[str]]]:
    """(README line, words) of every embedanon or anonymize command in the ```bash blocks; a line is
    split at the shell's operators, its comments dropped."""
    for first, block in _blocks(text, "bash"):
        for offset, line in enumerate(block.splitlines()):
            lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            words: list[str] = []
            tokens = iter([*lexer, "&&"])
            for token in tokens:
                if token in REDIRECTIONS:
                    next(tokens)
                elif token in SEPARATORS:
                    if words and words[0] in PROGRAMS:
                        yield first + offset, words
                    words = []
                else:
                    words.append(token)


def _resolve(words: list[str]) -> tuple[Any, list[str], str]:
    """The (sub)command a command line names (typer's click objects), the words left for it, and
    its name."""
    command, rest, name = PROGRAMS[words[0]], words[1:], words[0]
    while rest and rest[0] in getattr(command, "commands", {}):
        command, name, rest = command.commands[rest[0]], f"{name} {rest[0]}", rest[1:]
    return command, rest, name


def _options(command: Any) -> set[str]:
    names = {"--help"}
    for param in command.params:
        if param.param_type_name == "option" and not param.hidden:  # --help lists it
            names.update(param.opts, param.secondary_opts)
    return names


def _all_commands(command: Any = ROOT) -> Iterator[Any]:
    yield command
    for sub in getattr(command, "commands", {}).values():
        yield from _all_commands(sub)


def _named_options(text: str) -> Iterator[tuple[int, str, set[str]]]:
    """(README line, an option the prose names, the options it must be one of): `anonymize --help`
    and `calibrate --target` against their command, a bare `--scope hybrid` against every command."""
    every = set().union(*(_options(c) for c in [*_all_commands(), PROGRAMS["anonymize"]]))
    top = getattr(ROOT, "commands", {})
    prose = _prose(text)
    for match in re.finditer(r"`([^`\n]+)`", prose):
        words = match.group(1).split()
        line = prose.count("\n", 0, match.start()) + 1
        if words[0] in PROGRAMS or words[0] in top:
            command, rest, name = _resolve(words if words[0] in PROGRAMS else ["embedanon", *words])
            if hasattr(command, "commands") and rest and not rest[0].startswith("-"):
                yield line, f"{name} {rest[0]}", set()  # `embedanon keygen FILE` with no keygen
            allowed = _options(command)
        elif words[0].startswith("-"):
            rest, allowed = words, every
        else:
            continue  # another program (pip, iconv) or no option
        for word in rest:
            if re.fullmatch(OPTION, word):
                yield line, word.split("=")[0], allowed


TEXT = README.read_text(encoding="utf-8")
ANONYMIZER_KEYWORDS = {*inspect.signature(Anonymizer).parameters,
                       *(p for _, spec in MECHANISMS.items() for p in spec.params)}
COMMANDS = list(_command_lines(TEXT))
PYTHON = _blocks(TEXT, "python")


def test_the_readme_has_what_these_tests_read() -> None:
    """Negative control of the parsing itself: a README whose blocks were missed passes vacuously."""
    assert len(COMMANDS) >= 20 and len(PYTHON) >= 3
    assert {name for *_, name in (_resolve(w) for _, w in COMMANDS)} >= {
        "anonymize", "embedanon keygen", "embedanon review", "embedanon privacy-report",
        "embedanon calibrate", "embedanon detector train", "embedanon experiment run"}
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 500, "the README is a manual (STYLE.md)"


@pytest.mark.parametrize(("line", "words"), COMMANDS, ids=[f"README:{n}" for n, _ in COMMANDS])
def test_every_readme_command_parses(line: int, words: list[str]) -> None:
    """Options, choices and values are ones the command takes (nothing is run; paths need not exist)."""
    command, rest, name = _resolve(words)
    if rest == ["--help"]:
        return
    if hasattr(command, "commands"):  # a group parses a misspelled command name as its argument
        pytest.fail(f"README.md:{line}: {' '.join(words)}: {name} has no command {rest[:1]}")
    try:
        context = command.make_context(name, list(rest))
    except UsageError as error:
        pytest.fail(f"README.md:{line}: {' '.join(words)}: {error.format_message()}")
    hidden = [w for w in rest if re.fullmatch(OPTION, w) and w.split("=")[0] not in _options(command)]
    assert not hidden, f"README.md:{line}: {' '.join(words)}: {hidden} not in --help (an old spelling)"
    for param in command.params:  # a plain str option whose metavar lists its values (--scope)
        if re.fullmatch(CHOICES, param.metavar or "") and isinstance(context.params.get(param.name), str):
            assert context.params[param.name] in param.metavar.split("|"), (
                f"README.md:{line}: {' '.join(words)}: {param.opts[0]} takes {param.metavar}")


def test_every_option_the_prose_names_exists() -> None:
    unknown = [f"README.md:{line}: {option}" for line, option, allowed in _named_options(TEXT)
               if option not in allowed]
    assert not unknown, unknown


def _imported(tree: ast.Module) -> dict[str, Any]:
    """Every name a block imports, resolved; a missing third-party extra skips, a missing embedanon
    module or name fails."""
    names: dict[str, Any] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not alias.name.startswith("embedanon"):
                    pytest.importorskip(alias.name)
                module = importlib.import_module(alias.name)
                names[alias.asname or alias.name.split(".")[0]] = (
                    module if alias.asname else importlib.import_module(alias.name.split(".")[0]))
        elif isinstance(node, ast.ImportFrom) and node.module:
            if not node.module.startswith("embedanon"):
                pytest.importorskip(node.module)
            module = importlib.import_module(node.module)
            for alias in node.names:
                assert hasattr(module, alias.name), f"{node.module} has no {alias.name}"
                names[alias.asname or alias.name] = getattr(module, alias.name)
    return names


@pytest.mark.parametrize(("line", "source"), PYTHON, ids=[f"README:{n}" for n, _ in PYTHON])
def test_every_readme_python_block_compiles_imports_and_binds(line: int, source: str) -> None:
    tree = ast.parse(source, filename=f"README.md:{line}")
    compile(tree, f"README.md:{line}", "exec")
    names = _imported(tree)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        target = names.get(node.func.id)
        if target is None or not getattr(target, "__module__", "").startswith("embedanon"):
            continue
        where = f"README.md:{line + node.lineno - 1}: {node.func.id}(...)"
        keywords = {k.arg: None for k in node.keywords if k.arg}
        try:
            bound = inspect.signature(target).bind(*[None] * len(node.args), **keywords)
        except TypeError as error:
            pytest.fail(f"{where}: {error}")
        # a **options of the API is handed to Anonymizer: its own keywords or a mechanism's
        extra = {k for p in inspect.signature(target).parameters.values() if p.kind is p.VAR_KEYWORD
                 for k in bound.arguments.get(p.name, {})}
        assert extra <= ANONYMIZER_KEYWORDS, f"{where}: no such keyword {sorted(extra - ANONYMIZER_KEYWORDS)}"
