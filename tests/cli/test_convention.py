"""The command-line convention holds for every command (docs/cli.md): option groups in order,
real metavars, a one-line description, examples that parse, -o/--output, old spellings that
still work with a warning."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from embedanon.cli import anonymize_app, app
from embedanon.cli.convention import PANELS, Command, Group
from tests.helpers.embeddings import write_glove

runner = CliRunner()
ROOT = typer.main.get_command(app)


def _commands(group: object = ROOT, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], object]]:
    yield path, group
    for name, command in getattr(group, "commands", {}).items():
        yield from _commands(command, (*path, name))


COMMANDS = {" ".join(path) or "embedanon": (path, command) for path, command in _commands()}


def _help(path: tuple[str, ...]) -> str:
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_follows_the_convention(name: str) -> None:
    path, command = COMMANDS[name]
    assert isinstance(command, Group if hasattr(command, "commands") else Command)
    text = _help(path)
    usage = next(line for line in text.splitlines() if "Usage:" in line)
    assert "{" not in usage and "<" not in usage, usage
    assert not re.search(r"<(bool|str|int|float|list|path|Path|tuple)\b", text), "a type where a metavar belongs"
    summary = (command.help or "").split("\n\n")[0]  # type: ignore[attr-defined]
    assert summary and "\n" not in summary.strip(), "the description's first paragraph is one line"
    assert (command.epilog or "").startswith("Examples:"), "the help ends with examples"  # type: ignore[attr-defined]
    british = re.findall(BRITISH, text, flags=re.IGNORECASE)
    assert not british, f"US spelling in help text (STYLE.md): {british}"


#: British spellings seen in embedanon's prose (the help said "neighbour table" until the audit)
BRITISH = r"\b\w*(?:neighbour|behaviour|colour|favour|anonymis|organis|optimis|normalis|licence)\w*"


def _example_commands() -> Iterator[tuple[str, str]]:
    for name, (_, command) in COMMANDS.items():
        for line in (command.epilog or "").split("\n\n")[1:]:  # type: ignore[attr-defined]
            for part in line.split("|"):
                words = shlex.split(part.split(">")[0])
                if words and words[0] in ("embedanon", "anonymize"):
                    yield name, " ".join(words)


@pytest.mark.parametrize(("name", "example"), sorted(set(_example_commands())))
def test_every_example_parses(name: str, example: str) -> None:
    """Each example of a --help is a command line the parser takes (options and values valid);
    nothing is run."""
    words = shlex.split(example)
    root = ROOT if words[0] == "embedanon" else typer.main.get_command(anonymize_app)
    words = words[1:]
    command = root
    while hasattr(command, "commands") and words and words[0] in command.commands:
        command, words = command.commands[words[0]], words[1:]
    if words == ["COMMAND", "--help"]:
        return
    command.make_context(example.split()[0], list(words))  # type: ignore[attr-defined]


def test_groups_come_in_their_order() -> None:
    text = _help(("anonymize",))
    shown = [panel for panel in PANELS if f"─ {panel} " in text]
    assert shown == [p for p in PANELS if p != "Other options"]  # anonymize has nothing else
    assert sorted(shown, key=text.index) == shown


def test_a_bad_convention_is_caught() -> None:
    """Negative control: a command declared without the convention shows typer's types."""
    bare = typer.Typer()

    @bare.command()
    def plain(count: int = 1, flag: bool = False) -> None:
        """Two\nlines."""

    text = runner.invoke(bare, ["--help"], env={"COLUMNS": "200"}).stdout
    assert re.search(r"<(bool|int)>", text)


# -- old spellings -----------------------------------------------------------------------------
def test_old_out_still_works_with_a_warning(tmp_path: Path) -> None:
    base = ["detector", "train", "--data", str(tmp_path / "missing.jsonl"), "--epochs", "1"]
    old = runner.invoke(app, [*base, "--out", str(tmp_path / "model")])
    assert old.stderr.splitlines()[0] == ("warning: --out is deprecated and will be removed in the next "
                                         "release; use -o/--output")
    new = runner.invoke(app, [*base, "-o", str(tmp_path / "model")])
    assert "warning" not in new.stderr
    assert old.exit_code == new.exit_code == 2 and old.stderr.splitlines()[1:] == new.stderr.splitlines()
    both = runner.invoke(app, [*base, "-o", "a", "--out", "b"])
    assert both.exit_code == 2
    assert both.stderr.strip() == "error: --out is the old spelling of -o/--output; give -o/--output only"
    neither = runner.invoke(app, base)
    assert neither.exit_code == 2 and "missing option -o/--output" in neither.stderr


def test_old_allowlist_still_works_with_a_warning(tmp_path: Path) -> None:
    words = tmp_path / "words.txt"
    words.write_text("doctor\nnurse\n", encoding="utf-8")
    source = tmp_path / "notes.txt"
    source.write_text("the nurse saw the doctor\n", encoding="utf-8")
    tiny = write_glove(tmp_path / "tiny.txt", ["the", "nurse", "doctor", "saw", "patient", "clinic", "ward"])
    base = ["anonymize", str(source), "--embedding", str(tiny), "--min-length", "1", "--k", "1", "--seed", "1"]
    old = runner.invoke(app, [*base, "--allowlist", str(words), "-o", str(tmp_path / "old.txt")])
    new = runner.invoke(app, [*base, "--candidates", str(words), "-o", str(tmp_path / "new.txt")])
    assert old.exit_code == new.exit_code == 0, old.stderr
    assert (tmp_path / "old.txt").read_text() == (tmp_path / "new.txt").read_text(), "the same release"
    assert old.stderr.splitlines()[0].startswith("warning: --allowlist is deprecated")
    assert old.stderr.splitlines()[0].endswith("use --candidates")
    both = runner.invoke(app, [*base, "--allowlist", str(words), "--candidates", str(words)])
    assert both.exit_code == 2 and "--allowlist is the old spelling of --candidates" in both.stderr
    assert "--allowlist" not in _help(("anonymize",)) and "--candidates" in _help(("anonymize",))
