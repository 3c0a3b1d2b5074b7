"""``embedanon detector train | info``: adapt or inspect the trained ``model`` detector."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from .._english import counted
from .._validate import seed_int
from ..errors import ConfigError
from .common import handle_errors
from .convention import Command, Group, examples, old_spelling
from .progress import ProgressOpt, StageProgress, choose

#: what each stage of ``detector train`` counts
_TRAIN_UNITS = {"featurizing": ("document", "documents"), "training": ("epoch", "epochs"),
                "writing": ("model", "models")}
app = typer.Typer(help="Train (domain-adapt) and inspect the trained PII detector.", no_args_is_help=True,
                  cls=Group, epilog=examples("embedanon detector train --data labelled.jsonl -o adapted/",
                                             "embedanon detector info adapted/"))


@app.command("train", cls=Command, epilog=examples(
    "embedanon detector train --data labelled.jsonl -o adapted/",
    "anonymize notes.txt --scope hybrid --detector-option model_path=adapted/ --key release.key"))
@handle_errors
def train_command(
    data: Annotated[Path, typer.Option(
        "--data", help="Span-labelled JSONL: {id, text, spans: [{start, end, label}]}.", metavar="FILE")],
    output: Annotated[Optional[Path], typer.Option("--output", "-o", metavar="DIR", help=(
        "Required: the directory to write weights.npz and manifest.json to (0700/0600, replaced "
        "as a whole; the model reveals words of the training data: handle it like the data)."))] = None,
    out: Annotated[Optional[Path], typer.Option("--out", hidden=True, metavar="DIR")] = None,
    base: Annotated[str, typer.Option(
        help="'model' (shipped), a trained DIR, or 'none' (from scratch).", metavar="model|DIR|none")
    ] = "model",
    epochs: Annotated[Optional[int], typer.Option(
        help="Passes over the data (default 20 with a base).", metavar="N")] = None,
    seed: Annotated[int, typer.Option(help="Shuffling seed.", metavar="N")] = 0,
    backend: Annotated[str, typer.Option(metavar="model|transformer",
        # the backslash: rich markup would drop "[train]" as an unknown tag
        help="'model' (numpy, shipped) or 'transformer' (MiniLM token classifier; needs "
             "embedanon\\[train]; --base model/none: the packaged MiniLM).")] = "model",
    progress: ProgressOpt = "auto",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress.")] = False,
) -> None:
    """Train (domain-adapt) the detector on labelled documents.

    Use it with --detector-option model_path=DIR (--backend transformer: transformer_path=DIR)."""
    from ..detectors.evaluate import read_span_records
    from ..detectors.model import ModelDetector
    from ..detectors.training import (
        check_model_directory,
        require_disjoint_spans,
        require_known_labels,
        require_tokens,
        save_model,
        train,
    )

    target = old_spelling("--out", out, "-o/--output", output, parameter="output")
    if target is None:
        raise ConfigError("missing option -o/--output DIR (where the trained model is written)")
    if epochs is not None and epochs < 1:
        raise ConfigError(f"epochs must be >= 1, got {epochs}")
    seed_int(seed, maximum=2**64 - 1 if backend == "transformer" else None)  # before any work
    if base not in ("model", "none") and not Path(base).is_dir():
        raise ConfigError(f"base must be 'model', 'none' or a trained directory, got {base!r}")
    if backend not in ("model", "transformer"):
        raise ConfigError(f"backend must be 'model' or 'transformer', got {backend!r}")
    check_model_directory(target)  # before the training, not after it
    if backend == "transformer":
        _train_transformer(data, target, base=None if base in ("model", "none") else base, epochs=epochs or 1,
                           seed=seed)
        return
    records = read_span_records(data, any_label=True)  # unknown labels: one line naming them all
    require_known_labels(records, str(data))
    records = _model_labels_only(records, data)
    require_tokens(records, str(data))
    require_disjoint_spans(records, str(data))  # after LOCATION and ORGANIZATION are left out
    shown = StageProgress(choose(progress, quiet, False), "detector train", _TRAIN_UNITS)
    try:
        weights = train(records, base=None if base == "none" else base, epochs=epochs, seed=seed,
                        progress=shown)
        weights.manifest["train"]["data"] = data.name
        shown("writing", 0, 1)
        # all or nothing, 0700/0600: the model reveals words of the training notes
        save_model(target, weights.save, lambda tmp: ModelDetector(path=tmp))
    finally:
        shown.close()
    typer.echo(f"trained on {counted(len(records), 'document')} "
               f"({counted(weights.manifest['train']['tokens'], 'token')}) -> {target}")


def _model_labels_only(records: list[dict[str, Any]], data: Path) -> list[dict[str, Any]]:
    """``records`` with their LOCATION and ORGANIZATION spans made ignored regions, with one
    warning line (counts only).

    The span format (and ``evaluate-detection``) accepts them, but the trained model tags only
    :data:`~embedanon.detectors.base.MODEL_LABELS`. Their words are left out of training (the
    ``"ignore"`` regions of decision 0611), not taught as ``O``: a steward who labelled a town
    LOCATION, as the guideline says, trained a model that no longer flagged it under any label
    (``Port Ashby``: protected in 100 of 100 records before, 0 after; decision 0240)."""
    from ..detectors.base import MODEL_LABELS

    left_out = Counter(s["label"] for r in records for s in r["spans"] if s["label"] not in MODEL_LABELS)
    if not left_out:
        return records
    typer.echo(f"warning: {data}: {counted(left_out.total(), 'span')} not trained on ("
               + ", ".join(f"{label} {n}" for label, n in sorted(left_out.items()))
               + "): the trained model does not tag these labels, so their words are left out of "
               "training (the regex detector finds listed places and institutions)", err=True)
    return [{**r, "spans": [s for s in r["spans"] if s["label"] in MODEL_LABELS],
             "ignore": [*r.get("ignore", ()), *([s["start"], s["end"]] for s in r["spans"]
                                                if s["label"] not in MODEL_LABELS)]}
            for r in records]


def _train_transformer(data: Path, out: Path, *, base: str | None, epochs: int, seed: int) -> None:
    from ..detectors.evaluate import read_span_records
    from ..detectors.training import require_disjoint_spans, require_known_labels, require_tokens, save_model
    from ..detectors.transformer import TransformerDetector, require_transformers, train_transformer

    require_transformers()  # the one-line error before reading any data
    records = read_span_records(data, any_label=True)
    require_known_labels(records, str(data))
    records = _model_labels_only(records, data)
    require_tokens(records, str(data))
    require_disjoint_spans(records, str(data))  # after LOCATION and ORGANIZATION are left out
    trained = train_transformer(records, base=base, epochs=epochs, seed=seed)
    trained.manifest["train"]["data"] = data.name
    save_model(out, trained.save, lambda tmp: TransformerDetector(path=tmp))
    typer.echo(f"trained on {counted(len(records), 'document')} "
               f"({counted(len(trained.losses), 'step')}) -> {out}; "
               "use it with --detector-option transformer_path=DIR")


@app.command("info", cls=Command,
             epilog=examples("embedanon detector info", "embedanon detector info adapted/"))
@handle_errors
def info_command(
    path: Annotated[Optional[Path], typer.Argument(
        help="Trained directory (default: the shipped model).", metavar="DIR")] = None,
) -> None:
    """Print a trained detector's manifest (data, seeds, held-out metrics)."""
    from ..detectors.transformer import MANIFEST
    from ..detectors.weights import Weights, read_manifest, shipped_path

    if path is not None and (path / MANIFEST).is_file():  # a transformer detector
        manifest = read_manifest(path / MANIFEST, f"transformer model at {str(path)!r}")
        typer.echo(json.dumps(manifest, indent=2))
        return
    weights = Weights.load(path or shipped_path())
    typer.echo(json.dumps(weights.manifest, indent=2))
