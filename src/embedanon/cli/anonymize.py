"""``embedanon anonymize`` (also installed as the ``anonymize`` console script)."""

from __future__ import annotations

import os
import sys
from typing import Annotated, Optional

import typer

from ..backends.base import build_backend
from ..config import DEFAULT_DETECTORS, ScopeConfig, parse_strategies
from ..errors import ConfigError
from ..files import anonymize_files
from ..pipeline import Anonymizer
from ..surrogates import SurrogateConfig
from ..vectors.defaults import DEFAULT_EMBEDDING
from .common import handle_errors, setup_logging


def _lines(path: str | None, what: str) -> list[str]:
    if path is None:
        return []
    try:
        with open(path, encoding="utf-8") as fh:
            return [line.rstrip("\r\n") for line in fh if line.strip()]
    except UnicodeDecodeError:
        raise ConfigError(f"{what} file {path} is not valid UTF-8") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {what} file {path}: {exc.strerror}") from None


def scope_config(scope: str, detector: str | None, strategy: list[str] | None, allow: str | None,
                 deny: str | None, llm_url: str | None, llm_model: str | None, llm_verify: bool,
                 phone_format: str) -> ScopeConfig:
    """The :class:`ScopeConfig` of the command-line options (files read, never echoed)."""
    denied = []
    for n, line in enumerate(_lines(deny, "deny"), 1):
        label, sep, term = line.partition("\t")
        if not sep or not term.strip():
            raise ConfigError(f"deny file line {n} must be LABEL<TAB>string")
        denied.append((term.strip(), label.strip().upper()))
    options = {"llm_url": llm_url, "llm_model": llm_model, "llm_verify": llm_verify or None}
    names = detector or (DEFAULT_DETECTORS if llm_url is None else DEFAULT_DETECTORS + ",llm")
    return ScopeConfig(
        scope=scope, detectors=names,
        detector_options=tuple(sorted((k, v) for k, v in options.items() if v is not None)),
        strategies=parse_strategies(strategy), allow=tuple(a.strip() for a in _lines(allow, "allow")),
        deny=tuple(denied), surrogates=SurrogateConfig(phone_format=phone_format))


@handle_errors
def anonymize_command(
    inputs: Annotated[list[str], typer.Argument(help="Input files ('-' for standard input).")],
    output: Annotated[Optional[str], typer.Option(
        "--output", "-o", help="Output file, or directory for several inputs ('-': stdout).")] = None,
    mechanism: Annotated[str, typer.Option(
        "--mechanism", "-m", help="Replacement mechanism (see 'embedanon mechanisms').")] = "knn",
    k: Annotated[Optional[int], typer.Option(help="knn: neighbourhood size (default 10).")] = None,
    epsilon: Annotated[Optional[float], typer.Option(
        help="Privacy parameter per word of the metric-DP mechanisms; a text of n words spends "
             "n*epsilon.")] = None,
    gamma: Annotated[Optional[float], typer.Option(
        help="tem: distance threshold of the truncated exponential mechanism.")] = None,
    lam: Annotated[Optional[float], typer.Option(
        help="mahalanobis: weight of the covariance in the noise, 0..1 (default 0.2).")] = None,
    key: Annotated[Optional[str], typer.Option(
        "--key", metavar="FILE",
        help="Release key file (see 'embedanon keygen'): the same data under the same key is "
             "always released as the same text, so a repeated export reveals nothing new.")] = None,
    seed: Annotated[Optional[int], typer.Option(
        help="For experiments only: derive the key from this integer. A small seed can be "
             "guessed from the output and the noise replayed; never release with --seed.")] = None,
    fmt: Annotated[Optional[str], typer.Option(
        "--format", help="txt, jsonl or csv (default: from the file extension).")] = None,
    field: Annotated[Optional[list[str]], typer.Option(
        help="JSONL/CSV field to anonymize (repeatable; default 'text').")] = None,
    jobs: Annotated[int, typer.Option(help="Worker processes (processes engine).")] = 1,
    engine: Annotated[str, typer.Option(
        help="Where chunks run: processes (this machine) or dask (a cluster).")] = "processes",
    scheduler: Annotated[Optional[str], typer.Option(
        metavar="ADDRESS", help="dask: scheduler address (default: a local cluster).")] = None,
    embedding: Annotated[str, typer.Option(help="Embedding name or file path.")] = DEFAULT_EMBEDDING,
    encoding_errors: Annotated[str, typer.Option(
        help="strict: stop on invalid UTF-8; replace: substitute U+FFFD.")] = "strict",
    min_length: Annotated[int, typer.Option(help="Shortest replacement word.")] = 2,
    allowlist: Annotated[Optional[str], typer.Option(
        help="Public word list (one word per line) that replacements must come from.")] = None,
    index: Annotated[str, typer.Option(
        "--index", help="Neighbour search: flat (exact), hnsw (approximate), auto (hnsw for very "
                        "large vocabularies).")] = "auto",
    scope: Annotated[str, typer.Option(
        help="all: every word changes (default); detected: only detected PII spans change; "
             "hybrid: detected spans get realistic surrogates, every other word the mechanism.",
        metavar="all|detected|hybrid")] = "all",
    detector: Annotated[Optional[str], typer.Option(
        help="Detectors for --scope detected/hybrid, comma-separated: model, regex, llm, presidio "
             "(default model,regex).", metavar="NAMES")] = None,
    strategy: Annotated[Optional[list[str]], typer.Option(
        help="Per-label action LABEL=ACTION (repeatable; LABEL may be DEFAULT; ACTION: mechanism, "
             "surrogate, keep, redact).", metavar="LABEL=ACTION")] = None,
    allow: Annotated[Optional[str], typer.Option(
        help="File of strings never treated as PII (one per line).", metavar="FILE")] = None,
    deny: Annotated[Optional[str], typer.Option(
        help="File of strings always treated as PII: 'LABEL<TAB>string' per line.", metavar="FILE")] = None,
    llm_url: Annotated[Optional[str], typer.Option(
        help="llm detector: OpenAI-compatible chat-completions URL.", metavar="URL")] = None,
    llm_model: Annotated[Optional[str], typer.Option(help="llm detector: model name.")] = None,
    llm_verify: Annotated[bool, typer.Option(help="llm detector: verifier pass.")] = False,
    phone_format: Annotated[str, typer.Option(
        help="Phone surrogates: neutral (reveals no country) or keep-shape.")] = "neutral",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log counts to stderr.")] = False,
) -> None:
    """Replace every word of INPUTS by a word sampled near it in a word-embedding space."""
    setup_logging(verbose)
    anonymizer = Anonymizer(
        embedding, mechanism, k=k, epsilon=epsilon, gamma=gamma, lam=lam, key=key, seed=seed,
        min_length=min_length, allowlist=allowlist, index=index,
        scope=scope_config(scope, detector, strategy, allow, deny, llm_url, llm_model, llm_verify,
                           phone_format),
    )
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
