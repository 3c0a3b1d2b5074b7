"""The command-line convention, in one place (docs/cli.md tells it for people).

* Every command is a :class:`Command` (every group a :class:`Group`): usage errors are one line,
  options are shown in the groups of :data:`PANELS`, in that order, whatever order a command
  declares them in; an option's group is :data:`PANEL_OF` its parameter name unless it names
  one itself (``rich_help_panel=``); the usage line reads ``anonymize [OPTIONS] INPUT...``;
  flags and arguments show no type (``<bool>``, ``<list[str]>``) and an option without a
  metavar shows a word (``N``, ``NUMBER``, ``TEXT``), never a type in brackets.
* ``-o/--output`` names what a command writes; an option's old spelling keeps working for one
  release, hidden from ``--help``, with a one-line warning on stderr (:func:`old_spelling`).
* Each command's help ends with examples (``epilog=``).
"""

from __future__ import annotations

from typing import Any, TypeVar

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from ..errors import ConfigError
from .common import given_on_command_line, one_line_usage_errors

T = TypeVar("T")

INPUT_OUTPUT = "Input and output"
MECHANISM = "Mechanism"
KEY_AND_NOISE = "Key and noise"
SCOPE_AND_DETECTION = "Scope and detection"
PERFORMANCE = "Performance"
OTHER = "Other options"
MESSAGES = "Messages and help"

#: The option groups of ``--help``, in the order they are shown.
PANELS: tuple[str, ...] = (INPUT_OUTPUT, MECHANISM, KEY_AND_NOISE, SCOPE_AND_DETECTION, PERFORMANCE, OTHER,
                           MESSAGES)

#: The group of an option, by parameter name, for every command (an option not listed here and
#: naming no group of its own is one of the command's :data:`OTHER` options).
PANEL_OF: dict[str, str] = {
    **dict.fromkeys(("output", "fmt", "field", "encoding_errors", "require_english", "resume", "report",
                     "as_json", "data", "spans", "attacker_text"), INPUT_OUTPUT),
    **dict.fromkeys(("mechanism", "k", "epsilon", "gamma", "lam", "embedding", "min_length", "candidates",
                     "index"), MECHANISM),
    **dict.fromkeys(("key", "seed", "fresh_key", "noise_unit"), KEY_AND_NOISE),
    **dict.fromkeys(("scope", "detector", "strategy", "allow", "deny", "llm_url", "llm_model", "llm_verify",
                     "llm_api_key_env", "detector_option", "phone_format", "neutral_formats",
                     "surrogate_consistency", "name_cultures", "keep_gender", "name_guard"),
                    SCOPE_AND_DETECTION),
    **dict.fromkeys(("jobs", "engine", "scheduler"), PERFORMANCE),
    **dict.fromkeys(("progress", "quiet", "verbose", "version", "help"), MESSAGES),
}

#: What an option without a metavar shows, by the type typer gives it.
_WORDS = {"<int>": "N", "<float>": "NUMBER", "<str>": "TEXT", "<Path>": "PATH", "<path>": "PATH"}


def _no_type(ctx: Any) -> None:
    return None


def _tidy(param: Any, ctx: Any) -> Any:
    """``param`` with its group set and its type column made plain (see the module docstring)."""
    if isinstance(param, TyperOption) and not getattr(param, "rich_help_panel", None):
        param.rich_help_panel = PANEL_OF.get(param.name or "", OTHER)
    if isinstance(param, TyperArgument) or (isinstance(param, TyperOption) and param.is_flag):
        param.display_type_rich = _no_type  # type: ignore[method-assign]
    elif isinstance(param, TyperOption) and param.metavar is None:
        shown = param.display_type(ctx)
        word = _WORDS.get(shown, shown.strip("<>").upper())
        param.metavar = f"{word}..." if param.nargs != 1 else word
    return param


def _arranged(params: list[Any], ctx: Any) -> list[Any]:
    """Arguments in their order, then options by group (:data:`PANELS`), each group in the
    order the command declares its options."""
    params = [_tidy(p, ctx) for p in params]
    arguments = [p for p in params if not isinstance(p, TyperOption)]
    options = [p for p in params if isinstance(p, TyperOption)]
    rank = {panel: i for i, panel in enumerate(PANELS)}
    options.sort(key=lambda p: rank.get(p.rich_help_panel or OTHER, rank[OTHER]))
    return arguments + options


class Command(TyperCommand):
    """A command that follows the convention (see the module docstring)."""

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        with one_line_usage_errors():
            return super().make_context(*args, **kwargs)

    def get_params(self, ctx: Any) -> list[Any]:
        return _arranged(super().get_params(ctx), ctx)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                name = param.metavar or (param.name or "").upper()
                name += "..." if param.nargs != 1 and not name.endswith("...") else ""
                pieces.append(name if param.required else f"[{name}]")
        return pieces


class Group(TyperGroup):
    """A group of commands that follows the convention; usage errors of every command under it
    are one line too."""

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        with one_line_usage_errors():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: Any) -> Any:
        with one_line_usage_errors():  # a subcommand's arguments are parsed in here
            return super().invoke(ctx)

    def get_params(self, ctx: Any) -> list[Any]:
        return _arranged(super().get_params(ctx), ctx)


def old_spelling(old: str, value: T | None, new: str, current: T, *, parameter: str,
                 default: object = None) -> T:
    """The value of an option given by its old spelling ``old`` (a hidden option kept for one
    release), with a one-line warning on stderr; else ``current``, the value of ``new``.

    Args:
        old: the old spelling (``--out``).
        value: what the old spelling was given (None: not given).
        new: the new spelling, for messages (``-o/--output``).
        current: the value of the new spelling.
        parameter: the new spelling's parameter name (``output``), to tell whether it was given.
        default: the new spelling's default (a call outside a command: given when it differs).

    Raises:
        ConfigError: both spellings were given.
    """
    if value is None:
        return current
    if parameter in given_on_command_line({parameter: current}, {parameter: default}):
        raise ConfigError(f"{old} is the old spelling of {new}; give {new} only")
    typer.echo(f"warning: {old} is deprecated and will be removed in the next release; use {new}", err=True)
    return value


def examples(*lines: str) -> str:
    """A command's epilog: ``Examples:`` and one command line a paragraph (each line is shown as
    it is written; no rich markup in them)."""
    return "\n\n".join(("Examples:", *lines))
