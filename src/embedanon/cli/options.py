"""The option set shared by the commands that build a release (``anonymize``, ``review``,
``privacy-report``): one definition of each option, one decorator that gives a command all of
them (:func:`release_options`), and one function from options to an
:class:`~embedanon.Anonymizer`, so every command measures the release as it is configured."""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Callable, Iterator
from typing import Annotated, Any, Optional, TypeVar

import typer

from .._validate import positive_int
from ..config import DEFAULT_DETECTORS, ScopeConfig, parse_strategies
from ..detectors.base import LABELS
from ..detectors.folding import fold_key
from ..errors import ConfigError, ParameterTypeError
from ..keys import default_key
from ..noise import ReleaseKey
from ..pipeline import Anonymizer
from ..privacy.epsilon import ranges_help
from ..surrogates import SurrogateConfig
from ..vectors.defaults import DEFAULT_EMBEDDING
from .common import given_on_command_line
from .convention import old_spelling


def _version(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"embedanon {__version__}")
        raise typer.Exit()


VersionOpt = Annotated[Optional[bool], typer.Option(
    "--version", callback=_version, is_eager=True, help="Print the version and exit.")]

MechanismOpt = Annotated[str, typer.Option(
        "--mechanism", "-m", help="Replacement mechanism (see 'embedanon mechanisms').",
        metavar="knn|laplace|mahalanobis|exponential|tem")]
KOpt = Annotated[Optional[int], typer.Option(help="knn: neighborhood size (default 10).", metavar="K")]
EpsilonOpt = Annotated[Optional[float], typer.Option(
        help="Privacy parameter per word of the metric-DP mechanisms; a text of n words spends "
             f"n*epsilon. The {ranges_help()}.", metavar="EPSILON")]
GammaOpt = Annotated[Optional[float], typer.Option(
        help="tem: distance threshold of the truncated exponential mechanism.", metavar="GAMMA")]
LamOpt = Annotated[Optional[float], typer.Option(
        help="mahalanobis: weight of the covariance in the noise, 0..1 (default 0.2).", metavar="LAMBDA")]
KeyOpt = Annotated[Optional[str], typer.Option(
        "--key", metavar="FILE",
        help="Release key file (see 'embedanon keygen'). Default: your own key, $EMBEDANON_KEY (which "
             "must exist) or ~/.config/embedanon/release.key, created on first use. The same data "
             "under the same key is always released as the same text, so a repeated export reveals "
             "nothing new.")]
SeedOpt = Annotated[Optional[int], typer.Option(
        help="For experiments only: derive the key from this integer. A small seed can be "
             "guessed from the output and the noise replayed; never release with --seed.", metavar="N")]
FreshKeyOpt = Annotated[bool, typer.Option(
        "--fresh-key", help="Draw new noise: a key of this run only, not saved. Releasing the same "
                            "data again then COMPOSES: each release is another draw of every word "
                            "(knn: a Bayes attacker recovers 33 % of words from one release, 68 % "
                            "from two, 92 % from five; see the privacy card).")]
InputArg = Annotated[str, typer.Argument(metavar="INPUT", help="Input file ('-' for standard input).")]
FmtOpt = Annotated[Optional[str], typer.Option(
        "--format", help="txt (a record per line), file (the whole file one record: a note, a "
                         "caption file; the default for .vtt and .srt), jsonl, csv, tsv or parquet "
                         "(default: from the file extension, after any .gz, .bz2, .xz or .zst; tsv: "
                         "tab-separated CSV, e.g. on standard input).",
        metavar="txt|file|jsonl|csv|tsv|parquet")]
_FIELD_HELP = "JSONL/CSV/Parquet field {} (repeatable; default 'text')."
FieldOpt = Annotated[Optional[list[str]], typer.Option(
        help=_FIELD_HELP.format("to anonymize"), metavar="NAME")]
#: ``--field`` of commands that read the field but write no release (``detect``, ``review``)
DetectFieldOpt = Annotated[Optional[list[str]], typer.Option(
        help=_FIELD_HELP.format("to detect in"), metavar="NAME")]
ReviewFieldOpt = Annotated[Optional[list[str]], typer.Option(
        help=_FIELD_HELP.format("to review, its original beside its release"), metavar="NAME")]
JobsOpt = Annotated[int, typer.Option(
        help="Worker processes (processes engine; at most 4 x the CPUs available).", metavar="N")]
EngineOpt = Annotated[str, typer.Option(
        help="Where chunks run: processes (this machine) or dask (a cluster).", metavar="processes|dask")]
SchedulerOpt = Annotated[Optional[str], typer.Option(
        metavar="ADDRESS", help="dask: scheduler address (default: a local cluster).")]
EmbeddingOpt = Annotated[str, typer.Option(help="Embedding name or file path.", metavar="NAME|PATH")]
EncodingErrorsOpt = Annotated[str, typer.Option(
        help="strict: stop on invalid UTF-8; replace: substitute U+FFFD.", metavar="strict|replace")]
MinLengthOpt = Annotated[int, typer.Option(help="Shortest replacement word.", metavar="N")]
CandidatesOpt = Annotated[Optional[str], typer.Option(
        "--candidates", help="Public word list (one word per line) that replacements must come from "
                             "(the candidate vocabulary).", metavar="FILE")]
#: The old spelling of --candidates (until the next release): hidden, with a warning.
OldAllowlistOpt = Annotated[Optional[str], typer.Option("--allowlist", hidden=True, metavar="FILE")]
IndexOpt = Annotated[str, typer.Option(
        "--index", help="Neighbor search: flat (exact), hnsw (approximate), auto (hnsw for very "
                        "large vocabularies).", metavar="flat|hnsw|auto")]
ScopeOpt = Annotated[str, typer.Option(
        help="all: every word changes (default); detected: only detected PII spans change, to "
             "realistic surrogates; hybrid: detected spans get surrogates, every other word the "
             "mechanism.",
        metavar="all|detected|hybrid")]
DetectorOpt = Annotated[Optional[str], typer.Option(
        help="Detectors for --scope detected/hybrid, comma-separated: model, regex, llm, presidio, "
             "transformer (default model,regex).", metavar="NAMES")]
StrategyOpt = Annotated[Optional[list[str]], typer.Option(
        help="Per-label action LABEL=ACTION (repeatable; LABEL may be DEFAULT; ACTION: mechanism, "
             "surrogate, keep, redact).", metavar="LABEL=ACTION")]
AllowOpt = Annotated[Optional[str], typer.Option(
        help="File of strings never treated as PII (one per line).", metavar="FILE")]
DenyOpt = Annotated[Optional[str], typer.Option(
        help="File of strings always treated as PII: 'LABEL<TAB>string' per line.", metavar="FILE")]
LlmUrlOpt = Annotated[Optional[str], typer.Option(
        help="llm detector: OpenAI-compatible chat-completions URL.", metavar="URL")]
LlmModelOpt = Annotated[Optional[str], typer.Option(help="llm detector: model name.", metavar="NAME")]
LlmVerifyOpt = Annotated[bool, typer.Option(help="llm detector: verifier pass.")]
DetectorOptionOpt = Annotated[Optional[list[str]], typer.Option(
        "--detector-option", help="Detector option DETECTOR_OPTION=VALUE (repeatable), e.g. "
                                  "model_path=DIR (an adapted model), transformer_path=DIR, "
                                  "model_threshold=0.4.", metavar="KEY=VALUE")]
NeutralFormatsOpt = Annotated[bool, typer.Option(
        "--neutral-formats/--keep-formats",
        help="Default: phones and IDs get one neutral layout in every scope (in --scope all they "
             "become surrogates), since a national layout tells the source country; a --strategy "
             "that gives them to the mechanism draws fresh digits in their own layout instead. "
             "--keep-formats keeps each one's layout (fresh digits in the original's shape).")]
NoiseUnitOpt = Annotated[str, typer.Option(
        help="What addresses the noise: record (default; a sentence copied into another record is "
             "drawn again) or sentence (a sentence copied anywhere is released the same way).",
        metavar="record|sentence")]
ConsistencyOpt = Annotated[str, typer.Option(
        "--surrogate-consistency",
        help="record (default): a name or value gets the same surrogate within a record and "
             "another in each other record, so surrogates link no records; corpus: the same "
             "surrogate everywhere under the key, which links a person's records (anyone can).",
        metavar="record|corpus")]
NameCulturesOpt = Annotated[Optional[str], typer.Option(
        help="The fixed mix of culture groups surrogate names come from, never the original's: "
             "mixed (default: the eight groups alike), groups/locales (anglo,hispanic) or "
             "weights (anglo=0.6,hispanic=0.3,african=0.1).", metavar="SPEC")]
KeepGenderOpt = Annotated[bool, typer.Option(
        "--keep-gender", help="Surrogate given names of the original's gender (copies it into the "
                              "release); default: any gender.")]
NameGuardOpt = Annotated[bool, typer.Option(
        "--name-guard/--no-name-guard",
        help="--scope hybrid: a word written like a name that the mechanism returned as itself is "
             "redrawn among its nearest other words (default); such words are outside epsilon's "
             "statement. --no-name-guard leaves every word outside the spans to the mechanism.")]
PhoneFormatOpt = Annotated[Optional[str], typer.Option(
        help="With --keep-formats in --scope detected/hybrid: phone surrogates keep-shape (the "
             "default there) or neutral (reveals no country).", metavar="neutral|keep-shape")]


def _lines(path: str | None, what: str) -> list[tuple[int, str]]:
    """The non-blank lines of a word-list file with their 1-based line numbers in the file.

    A leading UTF-8 byte order mark (editors on Windows write one) is not part of the first line.
    """
    if path is None:
        return []
    try:
        with open(path, encoding="utf-8-sig") as fh:
            return [(n, line.rstrip("\r\n")) for n, line in enumerate(fh, 1) if line.strip()]
    except UnicodeDecodeError:
        raise ConfigError(f"{what} file {path} is not valid UTF-8") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {what} file {path}: {exc.strerror}") from None


def _option_value(text: str) -> Any:
    """A typed detector option value: int, float, true/false, else the string."""
    for parse in (int, float):
        try:
            return parse(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def parse_detector_options(specs: list[str] | None) -> dict[str, Any]:
    """``["model_path=DIR"]`` -> ``{"model_path": "DIR"}`` (values typed by :func:`_option_value`)."""
    out: dict[str, Any] = {}
    for spec in specs or []:
        typed, sep, value = spec.partition("=")
        name = typed.strip().lower().replace("-", "_")
        if not sep or not name or not value.strip():
            # the name as typed: '-5' is not '_5'
            raise ConfigError("detector option must look like DETECTOR_OPTION=VALUE, got "
                              f"{typed.strip() or '?'!r}")
        if name in out:
            raise ConfigError(f"detector option {name!r} given twice")
        out[name] = _option_value(value.strip())
    return out


#: Detector options that have a flag of their own -> the flag.
OPTION_FLAGS = {"llm_url": "--llm-url", "llm_model": "--llm-model", "llm_verify": "--llm-verify",
                "llm_api_key_env": "--llm-api-key-env"}


def refuse_detector_options(purpose: str, *, detector: str | None, detector_option: list[str] | None,
                            allow: str | None, deny: str | None, **own: Any) -> None:
    """One line when an option that configures detectors comes beside one whose spans replace
    detection (``purpose``: ``--spans gives the spans to replace``); ``own``: the options that
    have their own flags (:data:`OPTION_FLAGS`), named by the flag typed."""
    given = [("--detector", detector), ("--detector-option", detector_option), ("--allow", allow),
             ("--deny", deny), *((OPTION_FLAGS[name], value) for name, value in own.items())]
    named = [flag for flag, value in given if value]
    if named:
        verb = "configures" if len(named) == 1 else "configure"
        raise ConfigError(f"{purpose}; {', '.join(named)} {verb} detectors it does not run")


#: the release options that configure detectors, which a span file (``--spans``) replaces
_DETECTOR_SETTINGS = ("detector", "detector_option", "allow", "deny", "llm_url", "llm_model", "llm_verify")


def refuse_detectors_beside_spans(release: dict[str, Any]) -> None:
    """:func:`refuse_detector_options` for ``--spans`` (``anonymize``, ``review``): the file's spans
    are the detection, so nothing of ``release`` may configure detectors."""
    refuse_detector_options("--spans gives the spans to replace",
                            **{name: release.get(name) for name in _DETECTOR_SETTINGS})


def detector_options(given: dict[str, Any], specs: list[str] | None) -> dict[str, Any]:
    """``given`` (options that have their own flags, e.g. ``llm_url``; None: not set) plus the
    ``--detector-option`` ``specs``; an option set both ways is refused."""
    options = dict(given)
    for name, value in parse_detector_options(specs).items():
        if options.get(name) is not None:
            flag = OPTION_FLAGS.get(name, "its own option")
            raise ConfigError(f"detector option {name!r} is also given by {flag}; give it once")
        options[name] = value
    return options


@contextlib.contextmanager
def flags_named(given: dict[str, Any]) -> Iterator[None]:
    """Name the flag the user typed in an error about an option it gave (``--llm-url must be an
    http:// or https:// URL``), not the detector option the flag becomes (``llm_url``).

    Args:
        given: the values of the options that have their own flags (:data:`OPTION_FLAGS`; None:
            not given, so a message about it is about a ``--detector-option``).
    """
    try:
        yield
    except (ConfigError, ParameterTypeError) as exc:
        message = str(exc)
        for name, value in given.items():
            flag = OPTION_FLAGS.get(name)
            if value is None or flag is None:
                continue
            if message.startswith(name + " "):
                raise type(exc)(flag + message[len(name):]) from None
            if message.startswith(f"option {name!r} is for detector "):
                owner = name.partition("_")[0]
                raise ConfigError(f"{flag} is for the {owner} detector, which --detector does not name "
                                  f"(add {owner} to --detector)") from None
        raise


def word_lists(allow: str | None, deny: str | None) -> tuple[tuple[str, ...], list[tuple[str, str]]]:
    """The ``--allow`` strings and the ``--deny`` (string, LABEL) pairs of their files (read,
    never echoed: a message names a line, not its text).

    Blank lines are skipped; line numbers in messages count them. A deny line must have exactly
    two TAB-separated columns: a third column would otherwise become part of the string, which
    then never matches, and the name it was meant to cover would be released. Its label must be
    one of the labels (columns swapped put the string there: it is not quoted), and a string
    given twice, compared as the deny list compares it, must have one label. An allow line must
    have no TAB (it is one string; a TAB means a deny-style line in the wrong file), and must
    not give a string of the deny list. A string of invisible characters only (zero-width or
    format) is refused by its line, in either file.
    """
    denied = []
    seen: dict[str, tuple[str, int]] = {}  # folded string -> (label, line number)
    for n, line in _lines(deny, "deny"):
        columns = line.split("\t")
        if len(columns) != 2 or not columns[0].strip() or not columns[1].strip():
            raise ConfigError(f"deny file line {n} must be LABEL<TAB>string")
        term, label = columns[1].strip(), columns[0].strip().upper()
        if label not in LABELS:
            raise ConfigError(f"deny file line {n}: the label must be one of {', '.join(LABELS)} "
                              "(a line is LABEL<TAB>string, the label first)")
        key = fold_key(term)
        if not key:  # else "deny list entries must not be empty", naming no line
            raise ConfigError(f"deny file line {n} has only invisible characters (zero-width or format) "
                              "as its string")
        if key in seen and seen[key][0] != label:
            raise ConfigError(f"deny file lines {seen[key][1]} and {n} give the same string "
                              "(ignoring case, width and accents) two different labels")
        seen.setdefault(key, (label, n))
        denied.append((term, label))
    allowed = []
    for n, line in _lines(allow, "allow"):
        if "\t" in line:
            raise ConfigError(f"allow file line {n} must be one string without a TAB")
        if not fold_key(line):
            raise ConfigError(f"allow file line {n} has only invisible characters (zero-width or format)")
        if fold_key(line) in seen:  # else "a string is in both the allow and the deny list", no lines
            raise ConfigError(f"allow file line {n} and deny file line {seen[fold_key(line)][1]} give the "
                              "same string (ignoring case, width and accents)")
        allowed.append(line.strip())
    return tuple(allowed), denied


def parse_name_cultures(spec: str | None) -> Any:
    """``--name-cultures``: ``mixed``, ``anglo,hispanic`` or ``anglo=0.6,hispanic=0.4`` (checked
    by :class:`~embedanon.surrogates.SurrogateConfig`)."""
    if spec is None or spec.strip() == "mixed":
        return "mixed"
    items = [item.strip() for item in spec.split(",") if item.strip()]
    if not any("=" in item for item in items):
        return tuple(items)
    weights: dict[str, float] = {}
    for item in items:
        name, sep, value = item.partition("=")
        try:
            weights[name.strip()] = float(value) if sep else float("nan")
        except ValueError:
            weights[name.strip()] = float("nan")
    return weights


def scope_config(scope: str, detector: str | None, strategy: list[str] | None, allow: str | None,
                 deny: str | None, llm_url: str | None, llm_model: str | None, llm_verify: bool,
                 phone_format: str | None, detector_option: list[str] | None = None,
                 neutral_formats: bool = True, surrogate_consistency: str = "record",
                 name_cultures_spec: str | None = None, keep_gender: bool = False,
                 name_guard: bool = True) -> ScopeConfig:
    """The :class:`ScopeConfig` of the command-line options (files read, never echoed)."""
    allowed, denied = word_lists(allow, deny)
    strategies = parse_strategies(strategy)
    labels = [label for label, _ in strategies]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:  # the last one would silently win
        raise ConfigError(f"--strategy gives {repeated[0]} more than one action")
    if scope == "all" and strategies and not set(labels) <= _FORMAT_STRATEGY_LABELS:
        raise ConfigError("with --scope all, --strategy applies only to PHONE, ID and DEFAULT "
                          "(the spans of neutral formats)")
    options = detector_options({"llm_url": llm_url, "llm_model": llm_model, "llm_verify": llm_verify or None},
                               detector_option)
    # None: not given. An empty --detector "" is given and refused by the detector registry
    # (it used to mean the default detectors, silently: audit defect 13).
    names = detector if detector is not None else (
        DEFAULT_DETECTORS if llm_url is None else DEFAULT_DETECTORS + ",llm")
    return ScopeConfig(
        scope=scope, detectors=names,
        detector_options=tuple(sorted((k, v) for k, v in options.items() if v is not None)),
        strategies=strategies, allow=allowed, deny=tuple(denied),
        surrogates=SurrogateConfig(  # neutral, or with --keep-formats shapes kept (phones as asked)
            phone_format="neutral" if neutral_formats else phone_format or "keep-shape",
            id_format="neutral" if neutral_formats else "keep-shape",
            consistency=surrogate_consistency, name_cultures=parse_name_cultures(name_cultures_spec),
            name_gender="keep" if keep_gender else "any"),
        neutral_formats=neutral_formats, name_guard=name_guard)


#: Labels a strategy can act on in scope all: the phone and ID spans of neutral formats.
_FORMAT_STRATEGY_LABELS = frozenset({"PHONE", "ID", "DEFAULT"})
_DETECTION = "applies only to --scope detected or hybrid"
#: Options that do nothing in some settings: (parameter, whether it has an effect given every
#: option's value, why not). One the user gives where it would be ignored is refused, so a
#: release is never silently made otherwise than asked (``--detector llm`` in scope all would
#: detect nothing and say nothing). Options left at their defaults are never refused.
CONFLICTS: tuple[tuple[str, Callable[[dict[str, Any]], bool], str], ...] = (
    *((name, lambda v: v["scope"] != "all", _DETECTION) for name in (
        "detector", "llm_url", "llm_model", "llm_verify", "detector_option", "allow", "deny")),
    # scope all: strategies act on the phone and ID spans of --neutral-formats (see
    # pipeline.document: those spans are assembled as hybrid spans under the same strategies)
    ("strategy", lambda v: v["scope"] != "all" or v["neutral_formats"],
     "applies only to --scope detected or hybrid, or to the phones and IDs of neutral formats "
     "(not with --keep-formats)"),
    ("phone_format", lambda v: v["scope"] != "all" and not v["neutral_formats"],
     "applies only to --scope detected or hybrid with --keep-formats (neutral formats, the "
     "default, make phones neutral)"),
    *((name, lambda v: v["scope"] != "all", "applies only to --scope detected or hybrid (names "
       "become surrogates there)") for name in ("name_cultures", "keep_gender")),
    ("name_guard", lambda v: v["scope"] == "hybrid", "applies only to --scope hybrid (the other "
     "scopes leave every word outside the spans as they are or to the mechanism)"),
    ("surrogate_consistency", lambda v: v["scope"] != "all" or v["neutral_formats"],
     "applies only where spans become surrogates: --scope detected or hybrid, or the phones and "
     "IDs of neutral formats"),
    ("scheduler", lambda v: v.get("engine") == "dask", "applies only to --engine dask"),
    ("jobs", lambda v: v.get("engine", "processes") == "processes", "applies only to --engine processes"),
)


def check_conflicts(values: dict[str, Any], given: set[str]) -> None:
    """Refuse an option in ``given`` (set by the user) that ``values`` make meaningless."""
    for name, applies, why in CONFLICTS:
        if name in given and name in values and not applies(values):
            raise ConfigError(f"--{name.replace('_', '-')} {why}")


#: The release options: (parameter name, typer annotation, default), in ``--help`` order.
RELEASE_OPTIONS: tuple[tuple[str, Any, Any], ...] = (
    ("mechanism", MechanismOpt, "knn"), ("k", KOpt, None), ("epsilon", EpsilonOpt, None),
    ("gamma", GammaOpt, None), ("lam", LamOpt, None), ("key", KeyOpt, None), ("seed", SeedOpt, None),
    ("fresh_key", FreshKeyOpt, False),
    ("embedding", EmbeddingOpt, DEFAULT_EMBEDDING), ("min_length", MinLengthOpt, 2),
    ("candidates", CandidatesOpt, None), ("allowlist", OldAllowlistOpt, None), ("index", IndexOpt, "auto"),
    ("scope", ScopeOpt, "all"),
    ("detector", DetectorOpt, None), ("strategy", StrategyOpt, None), ("allow", AllowOpt, None),
    ("deny", DenyOpt, None), ("llm_url", LlmUrlOpt, None), ("llm_model", LlmModelOpt, None),
    ("llm_verify", LlmVerifyOpt, False), ("phone_format", PhoneFormatOpt, None),
    ("detector_option", DetectorOptionOpt, None), ("neutral_formats", NeutralFormatsOpt, True),
    ("noise_unit", NoiseUnitOpt, "record"), ("surrogate_consistency", ConsistencyOpt, "record"),
    ("name_cultures", NameCulturesOpt, None), ("keep_gender", KeepGenderOpt, False),
    ("name_guard", NameGuardOpt, True),
)
_F = TypeVar("_F", bound=Callable[..., Any])


def release_options(command: _F) -> _F:
    """Give a typer command every release option, after its own parameters (``--help`` shows
    them in their groups: see :mod:`.convention`).

    The command declares a keyword parameter ``release`` (not shown to typer) and receives the
    options' values in it as a dict, to pass to :func:`release_anonymizer`. An old spelling
    (``--allowlist``) is folded into its new one here, with its warning.
    """
    signature = inspect.signature(command, eval_str=True)
    own = [p for name, p in signature.parameters.items() if name != "release"]
    taken = {p.name for p in own} & {name for name, _, _ in RELEASE_OPTIONS}
    if taken or "release" not in signature.parameters:
        raise TypeError(f"{command.__name__} must take 'release' and none of the release options "
                        f"({', '.join(sorted(taken))})")
    shared = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hint)
              for name, hint, default in RELEASE_OPTIONS]

    defaults = {name: default for name, _, default in RELEASE_OPTIONS}
    defaults.update({p.name: p.default for p in own})

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        values = {**defaults, **kwargs}
        check_conflicts(values, given_on_command_line(values, defaults))
        release = {name: kwargs.pop(name, default) for name, _, default in RELEASE_OPTIONS}
        release["candidates"] = old_spelling("--allowlist", release.pop("allowlist"), "--candidates",
                                             release["candidates"], parameter="candidates")
        return command(*args, release=release, **kwargs)

    wrapper.__signature__ = signature.replace(parameters=[*own, *shared])  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def release_key(key: str | None = None, seed: int | None = None, fresh_key: bool = False) -> ReleaseKey:
    """The key of ``--key``, ``--seed`` or ``--fresh-key`` (at most one), else the user's default
    key (:func:`embedanon.keys.default_key`), whose creation is announced on stderr."""
    given = [name for name, on in (("--key", key is not None), ("--seed", seed is not None),
                                   ("--fresh-key", fresh_key)) if on]
    if len(given) > 1:
        raise ConfigError(f"give one of --key, --seed and --fresh-key, not {' and '.join(given)}")
    if key is not None:
        return ReleaseKey.from_file(key)
    if seed is not None:
        return ReleaseKey.from_seed(seed)
    if fresh_key:
        return ReleaseKey.fresh()
    return default_key(announce=lambda message: typer.echo(f"embedanon: {message}", err=True))


def key_warning(key: ReleaseKey) -> str | None:
    """The warning line a release under ``key`` prints (``--seed``, ``--fresh-key``), or None."""
    if key.origin == "seed":
        return ("warning: --seed is for experiments only: anyone who guesses the seed (e.g. by "
                "replaying one note they also hold) replays the noise; release with your default "
                "key or --key FILE")
    if key.origin == "fresh":
        return (f"warning: --fresh-key: new noise under a key that is not saved (fingerprint "
                f"{key.fingerprint()}); releasing this data again composes with this release")
    return None


def release_anonymizer(*, embedding: str = DEFAULT_EMBEDDING, mechanism: str = "knn", k: int | None = None,
                       epsilon: float | None = None, gamma: float | None = None, lam: float | None = None,
                       key: str | None = None, seed: int | None = None, fresh_key: bool = False,
                       min_length: int = 2,
                       candidates: str | None = None, index: str = "auto", scope: str = "all",
                       detector: str | None = None, strategy: list[str] | None = None,
                       allow: str | None = None, deny: str | None = None, llm_url: str | None = None,
                       llm_model: str | None = None, llm_verify: bool = False,
                       phone_format: str | None = None, detector_option: list[str] | None = None,
                       neutral_formats: bool = True, noise_unit: str = "record",
                       surrogate_consistency: str = "record", name_cultures: str | None = None,
                       keep_gender: bool = False, name_guard: bool = True, **_: Any) -> Anonymizer:
    """The :class:`Anonymizer` of the shared options (unrelated keyword arguments are ignored)."""
    positive_int("--min-length", min_length)  # else 'min_length must be ...', not what was typed
    with flags_named({"llm_url": llm_url, "llm_model": llm_model, "llm_verify": llm_verify or None}):
        return Anonymizer(
            embedding, mechanism, k=k, epsilon=epsilon, gamma=gamma, lam=lam,
            key=release_key(key, seed, fresh_key),
            min_length=min_length, allowlist=candidates, index=index,
            scope=scope_config(scope, detector, strategy, allow, deny, llm_url, llm_model, llm_verify,
                               phone_format, detector_option, neutral_formats, surrogate_consistency,
                               name_cultures, keep_gender, name_guard),
            noise_unit=noise_unit,
        )
