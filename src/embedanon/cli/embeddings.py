"""``embedanon embeddings list | info | import``."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .._validate import positive_int
from ..mechanisms.knn import DEFAULT_K
from ..vectors import defaults
from ..vectors.index import NeighborIndex
from ..vectors.store import CandidatePolicy, EmbeddingStore
from .common import handle_errors
from .convention import Command, Group, examples

app = typer.Typer(help="List, inspect and import word embeddings.", no_args_is_help=True, cls=Group,
                  epilog=examples("embedanon embeddings list", "embedanon embeddings info minilm-words",
                                  "embedanon embeddings import GoogleNews.bin --name news --limit 500000"))


@app.command("list", cls=Command, epilog=examples("embedanon embeddings list"))
@handle_errors
def list_command() -> None:
    """Names usable with --embedding (besides file paths)."""
    for name in defaults.available():
        suffix = "  (built in, default)" if name == defaults.DEFAULT_EMBEDDING else ""
        typer.echo(f"{name}{suffix}")


@app.command("info", cls=Command, epilog=examples("embedanon embeddings info",
                                                  "embedanon embeddings info news --min-length 3"))
@handle_errors
def info_command(
    name: Annotated[str, typer.Argument(
        help="Embedding name or path.", metavar="NAME|PATH")] = defaults.DEFAULT_EMBEDDING,
    min_length: Annotated[int, typer.Option(help="Shortest candidate word.", metavar="N")] = 2,
) -> None:
    """Size, dimension and candidate vocabulary of an embedding."""
    positive_int("--min-length", min_length)  # before loading, and named as typed
    store = defaults.load_embedding(name)
    policy = CandidatePolicy(min_length=min_length)
    typer.echo(f"name:        {store.name}")
    typer.echo(f"source:      {store.source}")
    typer.echo(f"words:       {len(store)}")
    typer.echo(f"dimension:   {store.dim}")
    typer.echo(f"candidates:  {len(store.candidate_ids(policy))} (alphabetic, >= {min_length} letters)")
    typer.echo(f"wordpieces:  {len(store.pieces)}")
    typer.echo(f"fingerprint: {store.fingerprint}")


@app.command("import", cls=Command, epilog=examples(
    "embedanon embeddings import GoogleNews.bin --name news --limit 500000",
    "anonymize notes.txt --embedding news --key release.key"))
@handle_errors
def import_command(
    path: Annotated[str, typer.Argument(
        help="word2vec (.txt/.bin), GloVe (.txt) or fastText (.vec/.bin).", metavar="PATH")],
    name: Annotated[Optional[str], typer.Option(help="Name to use with --embedding.", metavar="NAME")] = None,
    fmt: Annotated[Optional[str], typer.Option(
        "--format", help="word2vec, word2vec-binary, glove or fasttext-bin (default: detect).",
        metavar="word2vec|word2vec-binary|glove|fasttext-bin")] = None,
    limit: Annotated[Optional[int], typer.Option(help="Keep only the first N words.", metavar="N")] = None,
    overwrite: Annotated[bool, typer.Option(help="Replace an embedding of the same name.")] = False,
    table: Annotated[bool, typer.Option(help="Precompute the neighbor table now.")] = True,
) -> None:
    """Convert an embedding file once into embedanon's fast-loading form."""

    def build_table(store: EmbeddingStore) -> None:
        # before the save: an embedding whose table cannot be built (fewer than 2 candidate
        # words) is refused, not saved under its name by a command that then fails
        index = NeighborIndex(store)
        index.table(min(DEFAULT_K, index.n_candidates - 1))

    store = defaults.import_embedding(path, name=name, fmt=fmt, limit=limit, overwrite=overwrite,
                                      prepare=build_table if table else None)
    typer.echo(f"imported {store.name}: {len(store)} words x {store.dim}")
