"""The typer application: ``embedanon COMMAND`` and the ``anonymize`` console script.

Every command is registered here with the convention's classes (:mod:`.convention`) and its
examples; a command module holds the function and its ``EXAMPLES``.
"""

from __future__ import annotations

import typer

from ..mechanisms import available
from . import anonymize, calibrate, detection, embeddings, keygen, privacy, review
from .convention import Command, Group, examples
from .detector import app as detector_app
from .experiment import app as experiment_app
from .options import VersionOpt

SUMMARY = ("Release free text without the people in it: words replaced by embedding neighbors, "
           "personal information by surrogates.")

app = typer.Typer(
    name="embedanon",
    help=SUMMARY,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=Group,  # usage errors in one line, for every command
    epilog=examples("embedanon keygen release.key",
                    "embedanon anonymize examples/clinical_note.txt -o released.txt --key release.key",
                    "embedanon review examples/visits.csv --field note -o review.html --key release.key",
                    "embedanon COMMAND --help"),
)


@app.callback()
def _main(version: VersionOpt = None) -> None:
    """Release free text without the people in it: words replaced by embedding neighbors,
    personal information by surrogates."""


app.command("anonymize", cls=Command, epilog=anonymize.EXAMPLES)(anonymize.anonymize_command)
app.add_typer(embeddings.app, name="embeddings")
app.command("calibrate", cls=Command, epilog=calibrate.EXAMPLES)(calibrate.calibrate_command)
app.command("privacy-report", cls=Command, epilog=privacy.EXAMPLES)(privacy.privacy_report_command)
app.command("detect", cls=Command, epilog=detection.DETECT_EXAMPLES)(detection.detect_command)
app.command("evaluate-detection", cls=Command,
            epilog=detection.EXAMPLES)(detection.evaluate_detection_command)
app.command("keygen", cls=Command, epilog=keygen.EXAMPLES)(keygen.keygen_command)
app.command("review", cls=Command, epilog=review.EXAMPLES)(review.review_command)
app.add_typer(detector_app, name="detector")  # embedanon detector train | info
app.add_typer(experiment_app, name="experiment")  # embedanon experiment run


@app.command("mechanisms", cls=Command, epilog=examples("embedanon mechanisms"))
def mechanisms_command() -> None:
    """List the replacement mechanisms and their parameters."""
    for name, spec in sorted(available().items()):
        typer.echo(f"{name:12s} {spec.summary}  [{', '.join(spec.params)}]")


anonymize_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
anonymize_app.command(cls=Command, epilog=anonymize.EXAMPLES)(anonymize.anonymize_command)


def main() -> None:
    app()


def anonymize_main() -> None:
    anonymize_app()
