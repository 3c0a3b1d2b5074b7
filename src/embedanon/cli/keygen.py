"""``embedanon keygen FILE``: write a fresh 256-bit release key (mode 0600)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..keys import KEY_ENV, write_key_file
from .common import handle_errors
from .convention import examples

EXAMPLES = examples("embedanon keygen release.key",
                    "anonymize examples/clinical_note.txt -o released.txt --key release.key")


@handle_errors
def keygen_command(
    path: Annotated[str, typer.Argument(metavar="FILE", help="Where to write the key (never overwritten).")],
) -> None:
    """Write a release key for 'anonymize --key FILE' (or for $EMBEDANON_KEY).

    Keep it secret and keep it: re-running a release with the same key releases the same text;
    anyone holding it can replay the noise. Without --key, releases use your default key
    (~/.config/embedanon/release.key, made on first use); a key file is for sharing one key
    between users or machines."""
    key = write_key_file(path)
    typer.echo(f"wrote release key {key.fingerprint()} to {path} (mode 0600); use it with --key {path} "
               f"or {KEY_ENV}={path}", err=True)
