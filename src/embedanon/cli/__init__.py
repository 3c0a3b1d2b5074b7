"""The typer application: ``embedanon COMMAND`` and the ``anonymize`` console script."""

from __future__ import annotations

import typer

from ..mechanisms import available
from . import embeddings
from .anonymize import anonymize_command
from .calibrate import calibrate_command
from .common import OneLineCommand, OneLineGroup
from .detection import evaluate_detection_command
from .detector import app as detector_app
from .experiment import app as experiment_app
from .keygen import keygen_command
from .options import VersionOpt
from .privacy import privacy_report_command
from .review import review_command

app = typer.Typer(
    name="embedanon",
    help="Release free text without the people in it: replace every word by an embedding neighbor.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=OneLineGroup,  # usage errors in one line, for every command
)


@app.callback()
def _main(version: VersionOpt = None) -> None:
    """Release free text without the people in it: replace every word by an embedding neighbor."""


app.command("anonymize")(anonymize_command)
app.add_typer(embeddings.app, name="embeddings")
app.command("calibrate")(calibrate_command)
app.command("privacy-report")(privacy_report_command)
app.command("evaluate-detection")(evaluate_detection_command)
app.command("keygen")(keygen_command)
app.command("review")(review_command)
app.add_typer(detector_app, name="detector")  # embedanon detector train | info
app.add_typer(experiment_app, name="experiment")  # embedanon experiment run


@app.command("mechanisms")
def mechanisms_command() -> None:
    """List the replacement mechanisms and their parameters."""
    for name, spec in sorted(available().items()):
        typer.echo(f"{name:12s} {spec.summary}  [{', '.join(spec.params)}]")


anonymize_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
anonymize_app.command(cls=OneLineCommand)(anonymize_command)


def main() -> None:
    app()


def anonymize_main() -> None:
    anonymize_app()
