"""``embedanon anonymize`` (also installed as the ``anonymize`` console script)."""

from __future__ import annotations

import os
import sys
from typing import Annotated, Optional

import typer

from ..backends.base import build_backend
from ..files import anonymize_files
from ..vectors.defaults import DEFAULT_EMBEDDING
from .common import handle_errors, setup_logging
from .options import (
    AllowlistOpt,
    AllowOpt,
    DenyOpt,
    DetectorOpt,
    EmbeddingOpt,
    EncodingErrorsOpt,
    EngineOpt,
    EpsilonOpt,
    FieldOpt,
    FmtOpt,
    GammaOpt,
    IndexOpt,
    JobsOpt,
    KeyOpt,
    KOpt,
    LamOpt,
    LlmModelOpt,
    LlmUrlOpt,
    LlmVerifyOpt,
    MechanismOpt,
    MinLengthOpt,
    PhoneFormatOpt,
    SchedulerOpt,
    ScopeOpt,
    SeedOpt,
    StrategyOpt,
    release_anonymizer,
)


@handle_errors
def anonymize_command(
    inputs: Annotated[list[str], typer.Argument(help="Input files ('-' for standard input).")],
    output: Annotated[Optional[str], typer.Option(
        "--output", "-o", help="Output file, or directory for several inputs ('-': stdout).")] = None,
    mechanism: MechanismOpt = "knn",
    k: KOpt = None,
    epsilon: EpsilonOpt = None,
    gamma: GammaOpt = None,
    lam: LamOpt = None,
    key: KeyOpt = None,
    seed: SeedOpt = None,
    fmt: FmtOpt = None,
    field: FieldOpt = None,
    jobs: JobsOpt = 1,
    engine: EngineOpt = "processes",
    scheduler: SchedulerOpt = None,
    embedding: EmbeddingOpt = DEFAULT_EMBEDDING,
    encoding_errors: EncodingErrorsOpt = "strict",
    min_length: MinLengthOpt = 2,
    allowlist: AllowlistOpt = None,
    index: IndexOpt = "auto",
    scope: ScopeOpt = "all",
    detector: DetectorOpt = None,
    strategy: StrategyOpt = None,
    allow: AllowOpt = None,
    deny: DenyOpt = None,
    llm_url: LlmUrlOpt = None,
    llm_model: LlmModelOpt = None,
    llm_verify: LlmVerifyOpt = False,
    phone_format: PhoneFormatOpt = "neutral",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log counts to stderr.")] = False,
) -> None:
    """Replace every word of INPUTS by a word sampled near it in a word-embedding space."""
    setup_logging(verbose)
    anonymizer = release_anonymizer(**locals())
    backend = build_backend(engine, jobs=jobs) if engine == "processes" else build_backend(
        engine, scheduler=scheduler)
    show = not quiet and sys.stderr.isatty() and "-" not in inputs
    if not show:
        anonymize_files(inputs, output, anonymizer, fmt=fmt, fields=field, backend=backend,
                        encoding_errors=encoding_errors)
        return
    total = sum(os.path.getsize(p) for p in inputs if os.path.isfile(p))
    with typer.progressbar(length=total, label="anonymizing", file=sys.stderr) as bar:
        anonymize_files(inputs, output, anonymizer, fmt=fmt, fields=field, backend=backend,
                        encoding_errors=encoding_errors, progress=bar.update)
