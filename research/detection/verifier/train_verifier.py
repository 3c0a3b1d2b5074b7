"""Train the local verifier (``embedanon.detectors.verify``) and choose its threshold.

    python research/scripts/make_pii_set.py --split train --n 3000 --seed 3101 -o gen-train-3101.jsonl
    python research/detection/verifier/train_verifier.py --generated gen-train-3101.jsonl \\
        --dev-weight 2 4 8 --C 0.5 1 --augment 2 --seed 31 \\
        --out src/embedanon/detectors/data/verifier --report research/detection/verifier/train-report.json

(the shipped verifier, decision 0250: those commands on main e391302, about 15 minutes on a
shared 2-core machine).

Candidates: the spans the detector (``--detector``, default ``model,regex``, with the verifier
off) proposes on

* the real-text **dev** half (``research/evaluation/realtext/dev.jsonl``; never test), and
* generated span-labelled sets (``research/scripts/make_pii_set.py --split train``),

each labelled true when gold covers >= 50 % of its characters (the scorer's precision rule).
Generated candidates labelled LOCATION or ORGANIZATION are left out: the generator does not
annotate places and organizations, so its sets cannot say whether one is PII.

Negatives (``--negatives``, decision 0252): real text with no private PII (PubMed abstracts,
``make_negatives.py``); every candidate the detector proposes there, of any label, is false. Like
the generated data they are in every training fold with weight 1 and are never scored here (the
held-out half of ``make_negatives.py`` measures them).

Augmentation (``--augment K``): the evaluation set's injected names are never among the 20,000
most frequent English words, so on dev alone a common-word name (``David``, ``Grace``) would never
be PII and the verifier would learn to drop it. K copies of each dev record with injected names
are added to training (never scored), each injected name's first word replaced by a popular
English given name that is a common word (Faker's en_* lists shipped in ``embedanon.surrogates``,
less every name of ``probe_common_names.py``, the guard that measures this), in the case of the
original; a copy belongs to its record's source document, so it is held out with it.

Model: scikit-learn's ``LogisticRegression`` (L2, lbfgs) over the hashed binary features and
dense values of :mod:`embedanon.detectors.verify_features`, exported as numpy arrays; the product
only loads and applies them. Dev records weigh ``--dev-weight`` times a generated record's spans.

Threshold: the lower of two. (1) Out-of-fold probabilities on dev (``GroupKFold`` by source
document, ``doc``; the generated data is in every training fold) and the highest threshold at
which the verifier keeps at least ``--target`` of the gold spans the detector found (a gold span
stays found while the kept predictions cover >= 50 % of it). (2) The highest threshold at which
the model fitted on all of dev keeps ``--target`` of the common-word names of
``probe_common_names.py`` that the detector finds (the guard is therefore met by construction).
The setting (dev weight, C) is the one with the best out-of-fold precision. The dev figures
reported are nested: for each source-document fold, the threshold comes from an inner
cross-validation on the other folds and the model fitted on them, so no record is scored under a
threshold fitted on it. The shipped model is fitted on all of dev and the generated data.

Seeded (``--seed``); the sources are named in the manifest it writes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

from embedanon.detectors.base import Span
from embedanon.detectors.registry import build_detectors
from embedanon.detectors.verify import SpanVerifier
from embedanon.detectors.verify_features import DENSE_NAMES, FEATURE_VERSION, featurize

ROOT = Path(__file__).resolve().parents[3]
DEV = ROOT / "research" / "evaluation" / "realtext" / "dev.jsonl"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_common_names import NAMES as PROBE_NAMES  # noqa: E402
from probe_common_names import probe, probe_probabilities  # noqa: E402

ENGLISH_LOCALES = ("en_US", "en_GB", "en_IE", "en_NZ", "en_AU", "en_CA")


def common_given_names() -> list[str]:
    """Faker's English given names that are among the 20,000 most frequent public words, less the
    probe's names (sorted)."""
    from importlib import resources

    from embedanon.detectors.verify_features import COMMON_RANK, public_ranks

    lists = resources.files("embedanon.surrogates").joinpath("data", "names.json")
    data = json.loads(lists.read_text("utf-8"))
    ranks, held = public_ranks(), {n.lower() for n in PROBE_NAMES}
    names = {n for loc in ENGLISH_LOCALES if loc in data["locales"]
             for key in ("female", "male") for n in data["locales"][loc][key]}
    return sorted(n for n in names
                  if ranks.get(n.lower(), COMMON_RANK + 1) <= COMMON_RANK and n.lower() not in held)


def _cased(name: str, like: str) -> str:
    if like.islower():
        return name.lower()
    if like.isupper() and len(like) > 1:
        return name.upper()
    return name


def augmented(records: list[dict[str, Any]], copies: int, seed: int) -> list[dict[str, Any]]:
    """``copies`` rewrites of each record with injected names (see the module docstring)."""
    pool = common_given_names()
    rng = np.random.default_rng(seed)
    out = []
    for rec in records:
        if not any(s["label"] == "NAME" and s.get("origin") == "injected" for s in rec["spans"]):
            continue
        for k in range(copies):
            text, spans, shift = rec["text"], [], 0
            pieces, last = [], 0
            for s in sorted(rec["spans"], key=lambda s: s["start"]):
                a, b = s["start"], s["end"]
                value = text[a:b]
                if s["label"] == "NAME" and s.get("origin") == "injected":
                    first = value.split()[0] if value.split() else value
                    head = value.find(first)
                    value = value[:head] + _cased(str(rng.choice(pool)), first) + value[head + len(first):]
                pieces.append(text[last:a])
                start = a + shift
                pieces.append(value)
                shift += len(value) - (b - a)
                spans.append({**s, "start": start, "end": start + len(value)})
                last = b
            pieces.append(text[last:])
            out.append({**rec, "id": f"{rec['id']}~{k}", "text": "".join(pieces), "spans": spans})
    return out


@dataclass
class Candidates:
    """Candidate spans of a set of records, their features and what they cover of gold."""

    rows: list[np.ndarray] = field(default_factory=list)   # hashed ids per candidate
    dense: list[np.ndarray] = field(default_factory=list)  # (D,) per candidate
    y: list[int] = field(default_factory=list)
    group: list[str] = field(default_factory=list)
    register: list[str] = field(default_factory=list)
    label: list[str] = field(default_factory=list)
    # per gold span: (register, [(candidate index, characters covered)], length)
    gold: list[tuple[str, list[tuple[int, int]], int]] = field(default_factory=list)
    gold_group: list[str] = field(default_factory=list)  # the source document of each gold span


def read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def predictions(records: list[dict[str, Any]], detector: Any, cache: Path | None) -> list[list[Span]]:
    """The detector's spans on each record, read from ``cache`` when it exists (else written there)."""
    if cache is not None and cache.is_file():
        rows = json.loads(cache.read_text(encoding="utf-8"))
        if len(rows) == len(records):
            return [[Span(*s) for s in row] for row in rows]
    out = [detector.detect(rec["text"]) for rec in records]
    if cache is not None:
        rows = [[[s.start, s.end, s.label, s.score, s.source] for s in row] for row in out]
        cache.write_text(json.dumps(rows), encoding="utf-8")
    return out


#: the labels the generator annotates: a generated set says nothing about the others (it leaves
#: hospitals and towns unlabelled, where the guideline makes local ones PII)
GENERATED_LABELS = frozenset({"NAME", "EMAIL", "URL", "PHONE", "ID", "DATE", "ADDRESS", "AGE", "IP"})


def collect(records: list[dict[str, Any]], detector: Any, buckets: int, kind: str,
            cache: Path | None = None) -> Candidates:
    out = Candidates()
    for rec, preds in zip(records, predictions(records, detector, cache), strict=True):
        text = rec["text"]
        if kind == "generated":
            preds = [p for p in preds if p.label in GENERATED_LABELS]
        elif kind == "chat":
            preds = [p for p in preds if p.label == "NAME"]
        gold = [(s["start"], s["end"]) for s in rec["spans"]]
        mask = bytearray(len(text))
        for a, b in gold:
            mask[a:b] = b"\x01" * (b - a)
        ids, dense = featurize(text, preds, buckets)
        base = len(out.y)
        group = rec.get("doc") or f"{kind}:{rec['id']}"
        register = rec.get("register", kind)
        for i, p in enumerate(preds):
            out.rows.append(ids[i])
            out.dense.append(dense[i])
            out.y.append(int(2 * mask.count(1, p.start, p.end) >= p.end - p.start))
            out.group.append(group)
            out.register.append(register)
            out.label.append(p.label)
        for a, b in gold:
            cover = [(base + i, min(b, p.end) - max(a, p.start)) for i, p in enumerate(preds)
                     if p.start < b and a < p.end]
            out.gold.append((register, cover, b - a))
            out.gold_group.append(group)
    return out


def write_errors(path: Path, records: list[dict[str, Any]], detector: Any, cache: Path | None,
                 proba: np.ndarray, c: Candidates) -> None:
    lines, i = [], 0
    for rec, preds in zip(records, predictions(records, detector, cache / "dev.json" if cache else None),
                          strict=True):
        t = rec["text"]
        for p in preds:
            ctx = (t[max(0, p.start - 30):p.start] + "[[" + t[p.start:p.end] + "]]" + t[p.end:p.end + 25])
            lines.append(f"{proba[i]:.4f}\t{c.y[i]}\t{rec['register']}\t{p.label}\t{p.source}\t"
                         + ctx.replace("\n", "|").replace("\t", " "))
            i += 1
    path.write_text("\n".join(sorted(lines)) + "\n", encoding="utf-8")


def matrix(c: Candidates, buckets: int) -> sparse.csr_matrix:
    n = len(c.rows)
    indptr = np.concatenate(([0], np.cumsum([len(r) for r in c.rows])))
    hashed = sparse.csr_matrix((np.ones(int(indptr[-1])), np.concatenate(c.rows), indptr), shape=(n, buckets))
    hashed.sum_duplicates()
    return sparse.hstack([hashed, sparse.csr_matrix(np.vstack(c.dense).astype(np.float64))], format="csr")


def figures(c: Candidates, keep: np.ndarray) -> dict[str, dict[str, Any]]:
    """Overlap P / R per register with the kept candidates, and recall relative to keeping all."""
    out: dict[str, dict[str, Any]] = {}
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])  # gold, found_all, found, pred, right
    for reg, cover, length in c.gold:
        for r in (reg, "all"):
            per[r][0] += 1
            per[r][1] += int(2 * sum(k for _, k in cover) >= length)
            per[r][2] += int(2 * sum(k for i, k in cover if keep[i]) >= length)
    for i, reg in enumerate(c.register):
        for r in (reg, "all"):
            per[r][3] += int(keep[i])
            per[r][4] += int(keep[i] and c.y[i])
    for r, (g, fa, f, p, right) in sorted(per.items()):
        out[r] = {"gold": g, "found_without": fa, "found": f, "predicted": p, "correct": right,
                  "precision": round(right / p, 4) if p else None, "recall": round(f / g, 4) if g else None,
                  "recall_of_found": round(f / fa, 4) if fa else None}
    return out


def restricted(c: Candidates, rows: np.ndarray) -> Candidates:
    """The candidates ``rows`` (indices into ``c``) and the gold spans only they cover, renumbered."""
    index = {int(i): k for k, i in enumerate(rows)}
    out = Candidates(y=[c.y[i] for i in rows], register=[c.register[i] for i in rows],
                     group=[c.group[i] for i in rows], label=[c.label[i] for i in rows])
    groups = {c.group[i] for i in rows}
    for (reg, cover, length), group in zip(c.gold, c.gold_group, strict=True):
        if group in groups:
            out.gold.append((reg, [(index[i], k) for i, k in cover], length))
            out.gold_group.append(group)
    return out


def probe_threshold(detector: Any, model: LogisticRegression, buckets: int, target: float) -> float:
    """The highest threshold at which ``model`` keeps >= target of the probe's names the detector finds."""
    with tempfile.TemporaryDirectory() as tmp:
        header = {"feature_version": FEATURE_VERSION, "dense_names": list(DENSE_NAMES), "threshold": 0.5}
        export(model, Path(tmp), buckets, header)
        proba = np.sort(probe_probabilities(detector, SpanVerifier(path=tmp)))
    drops = int(np.floor((1.0 - target) * len(proba) + 1e-9))  # names it may drop
    return float(np.floor(proba[drops] * 1e4) / 1e4) if len(proba) else 1.0


def threshold_for(c: Candidates, proba: np.ndarray, target: float) -> float:
    """The highest threshold whose kept spans leave >= target of the found gold spans found."""
    best = 0.0
    for t in np.unique(np.round(proba, 4)):
        if figures(c, proba >= t)["all"]["recall_of_found"] >= target:
            best = max(best, float(t))
        else:
            break
    return best


def fit(parts: list[tuple[sparse.csr_matrix, np.ndarray, float]], c_value: float,
        seed: int) -> LogisticRegression:
    """A logistic regression on the stacked (features, labels, weight per row) parts."""
    x = sparse.vstack([p[0] for p in parts], format="csr")
    y = np.concatenate([p[1] for p in parts])
    w = np.concatenate([np.full(len(p[1]), p[2]) for p in parts])
    model = LogisticRegression(C=c_value, max_iter=3000, random_state=seed)
    model.fit(x, y, sample_weight=w)
    return model


def export(model: LogisticRegression, folder: Path, buckets: int, manifest: dict[str, Any]) -> None:
    """weights.npz (float32 hashed, dense, bias) and manifest.json, as SpanVerifier reads them."""
    coef = model.coef_[0]
    folder.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(folder / "weights.npz", hashed=coef[:buckets].astype(np.float32),
                        dense=coef[buckets:].astype(np.float32),
                        bias=np.array([model.intercept_[0]], dtype=np.float32))
    text = json.dumps(manifest | {"buckets": buckets}, indent=2, sort_keys=True) + "\n"
    (folder / "manifest.json").write_text(text, encoding="utf-8")


def _option(text: str) -> tuple[str, Any]:
    key, _, value = text.partition("=")
    try:
        return key, float(value)
    except ValueError:
        return key, value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--detector", default="model,regex")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="a detector option of the first stage, e.g. model_threshold=0.02 (repeatable; "
                         "numbers are read as floats)")
    ap.add_argument("--dev", action="append", type=Path, default=[],
                    help="real-text dev span JSONL (repeatable; default realtext/dev.jsonl): the "
                         "dev2 extension is added with a second --dev")
    ap.add_argument("--generated", action="append", default=[], help="generated span JSONL (repeatable)")
    ap.add_argument("--negatives", action="append", default=[],
                    help="span JSONL of real text with no private PII (repeatable; make_negatives.py)")
    ap.add_argument("--chat", action="append", default=[],
                    help="span JSONL of real conversational text with private names injected "
                         "(repeatable; chat/chat_set.py); only its NAME candidates are used")
    ap.add_argument("--chat-weight", type=float, default=1.0,
                    help="weight of a --chat candidate (a generated one weighs 1)")
    ap.add_argument("--buckets", type=int, default=1 << 15)
    ap.add_argument("--dev-weight", type=float, nargs="+", default=[4.0])
    ap.add_argument("--C", type=float, nargs="+", default=[0.5], dest="c_values")
    ap.add_argument("--target", type=float, default=0.98)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--augment", type=int, default=0, help="common-name copies of each dev record")
    ap.add_argument("--out", help="directory to write weights.npz and manifest.json into")
    ap.add_argument("--report", help="JSON file for the figures")
    ap.add_argument("--cache", help="directory for the detector's spans per input (delete it when "
                                    "the detector changes)")
    ap.add_argument("--errors", help="TSV of dev candidates with their out-of-fold probability "
                                     "(for local reading only)")
    args = ap.parse_args()

    options = dict(_option(o) for o in args.option)
    detector = build_detectors(args.detector, verify=False, **options)
    cache = Path(args.cache) if args.cache else None
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)

    def cached(name: str) -> Path | None:
        return cache / name if cache else None

    dev_paths = args.dev or [DEV]
    dev_names = [str(p.resolve().relative_to(ROOT)) if p.resolve().is_relative_to(ROOT) else str(p)
                 for p in dev_paths]
    # the records of a second dev file report apart: register 'transcript-dev2' (never a feature)
    dev_records = [rec if i == 0 else {**rec, "register": f"{rec['register']}-{path.stem}"}
                   for i, path in enumerate(dev_paths) for rec in read(path)]
    dev = collect(dev_records, detector, args.buckets, "dev", cached("dev.json"))
    aug = Candidates()
    if args.augment:
        aug = collect(augmented(dev_records, args.augment, args.seed), detector, args.buckets, "dev",
                      cached(f"aug{args.augment}-{args.seed}.json"))
    gen = Candidates()
    for kind, paths in (("generated", args.generated), ("negatives", args.negatives)):
        for path in paths:
            part = collect(read(Path(path)), detector, args.buckets, kind, cached(Path(path).stem + ".json"))
            for name in ("rows", "dense", "y", "group", "register", "label"):
                getattr(gen, name).extend(getattr(part, name))
    x_dev, y_dev, dev_group = matrix(dev, args.buckets), np.array(dev.y), np.array(dev.group)
    x_aug = matrix(aug, args.buckets) if aug.y else None
    y_aug, aug_group = np.array(aug.y), np.array(aug.group)
    x_gen, y_gen = (matrix(gen, args.buckets) if gen.y else None), np.array(gen.y)
    chat = Candidates()
    for path in args.chat:
        part = collect(read(Path(path)), detector, args.buckets, "chat", cached(Path(path).stem + ".json"))
        for name in ("rows", "dense", "y", "group", "register", "label"):
            getattr(chat, name).extend(getattr(part, name))
    x_chat, y_chat = (matrix(chat, args.buckets) if chat.y else None), np.array(chat.y)
    print(f"dev: {len(y_dev)} candidates ({int(y_dev.sum())} true), {len(dev.gold)} gold; augmented: "
          f"{len(y_aug)} ({int(y_aug.sum())} true); generated and negatives: {len(y_gen)} "
          f"({int(y_gen.sum())} true); chat: {len(y_chat)} ({int(y_chat.sum())} true)", file=sys.stderr)

    def parts(dev_rows: np.ndarray, dev_weight: float) -> list[tuple[sparse.csr_matrix, np.ndarray, float]]:
        out = [(x_dev[dev_rows], y_dev[dev_rows], dev_weight)]
        if x_aug is not None:
            inside = np.isin(aug_group, dev_group[dev_rows])  # copies travel with their document
            out.append((x_aug[inside], y_aug[inside], dev_weight))
        if x_gen is not None:
            out.append((x_gen, y_gen, 1.0))
        if x_chat is not None:
            out.append((x_chat, y_chat, args.chat_weight))
        return out

    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=False).stdout.strip()
    folds = list(GroupKFold(n_splits=args.folds).split(x_dev, y_dev, groups=dev_group))
    runs = []
    for dev_weight in args.dev_weight:
        for c_value in args.c_values:
            oof = np.zeros(len(y_dev))
            for train, held in folds:
                oof[held] = fit(parts(train, dev_weight), c_value, args.seed).predict_proba(x_dev[held])[:, 1]
            final = fit(parts(np.arange(len(y_dev)), dev_weight), c_value, args.seed)
            # the lower of the two thresholds: dev's (out of fold) and the probe's (fitted model)
            dev_threshold = threshold_for(dev, oof, args.target)
            guard_threshold = probe_threshold(detector, final, args.buckets, args.target)
            threshold = min(dev_threshold, guard_threshold)
            fig = figures(dev, oof >= threshold)
            manifest = {
                "kind": "logistic regression on (span, context) features",
                "feature_version": FEATURE_VERSION, "dense_names": list(DENSE_NAMES),
                "threshold": threshold, "target_recall_of_found": args.target,
                "sources": sorted(set(args.detector.split(","))),
                "trained_on": {"detector": args.detector, "options": options, "commit": commit,
                               "real": " + ".join(dev_names) + " (dev side of the split only)",
                               "generated": [Path(p).name for p in args.generated],
                               "negatives": [Path(p).name for p in args.negatives], "augment": args.augment,
                               "chat": [Path(p).name for p in args.chat], "chat_weight": args.chat_weight,
                               "dev_weight": dev_weight, "C": c_value, "seed": args.seed},
                "recipe": "research/detection/verifier/train_verifier.py",
            }
            with tempfile.TemporaryDirectory() as tmp:
                export(final, Path(tmp), args.buckets, manifest)
                guard = probe(detector, SpanVerifier(path=tmp))
            runs.append({"dev_weight": dev_weight, "C": c_value, "threshold": threshold, "oof": fig,
                         "dev_threshold": dev_threshold, "probe_threshold": guard_threshold,
                         "proba": oof, "probe": guard, "model": final, "manifest": manifest})
            print(f"dev_weight {dev_weight} C {c_value}: threshold {threshold:.4f} (dev {dev_threshold:.4f}, "
                  f"probe {guard_threshold:.4f})  "
                  f"P {fig['all']['precision']}  R {fig['all']['recall']}  "
                  f"of found {fig['all']['recall_of_found']}  probe kept "
                  f"{guard['kept_share']}", file=sys.stderr)
    # the best out-of-fold precision among the settings that keep >= target of the probe's names
    # (none: the setting that keeps the most of them)
    passing = [r for r in runs if (r["probe"]["kept_share"] or 0) >= args.target]
    if passing:
        best = max(passing, key=lambda r: (r["oof"]["all"]["precision"], -r["dev_weight"]))
    else:
        best = max(runs, key=lambda r: (r["probe"]["kept_share"] or 0, r["oof"]["all"]["precision"]))
    # the dev figures to report: nested, so no record is scored under a threshold fitted on it
    # (outer fold k: threshold from an inner cross-validation on the other folds, model fitted on them)
    nested = np.zeros(len(y_dev), dtype=bool)
    outer_thresholds = []
    for train, held in folds:
        inner = np.zeros(len(y_dev))
        sub_groups = dev_group[train]
        for in_train, in_held in GroupKFold(n_splits=args.folds - 1).split(train, groups=sub_groups):
            model = fit(parts(train[in_train], best["dev_weight"]), best["C"], args.seed)
            inner[train[in_held]] = model.predict_proba(x_dev[train[in_held]])[:, 1]
        model = fit(parts(train, best["dev_weight"]), best["C"], args.seed)
        t_k = min(threshold_for(restricted(dev, train), inner[train], args.target),
                  probe_threshold(detector, model, args.buckets, args.target))
        nested[held] = model.predict_proba(x_dev[held])[:, 1] >= t_k
        outer_thresholds.append(t_k)
    if args.errors:
        write_errors(Path(args.errors), dev_records, detector, cache, best["proba"], dev)
    report: dict[str, Any] = {
        "detector": args.detector, "options": options, "commit": commit, "feature_version": FEATURE_VERSION,
        "buckets": args.buckets, "seed": args.seed, "target": args.target, "folds": args.folds,
        "dev_candidates": len(y_dev), "dev_true": int(y_dev.sum()), "augment": args.augment,
        "augmented_candidates": len(y_aug), "augmented_true": int(y_aug.sum()),
        "generated": [Path(p).name for p in args.generated],
        "negatives": [Path(p).name for p in args.negatives],
        "generated_candidates": len(y_gen), "generated_true": int(y_gen.sum()),
        "chat": [Path(p).name for p in args.chat], "chat_weight": args.chat_weight,
        "chat_candidates": len(y_chat), "chat_true": int(y_chat.sum()),
        "grid": [{"dev_weight": r["dev_weight"], "C": r["C"], "threshold": r["threshold"],
                  "dev_threshold": r["dev_threshold"], "probe_threshold": r["probe_threshold"],
                  "oof": r["oof"]["all"], "probe_kept_share": r["probe"]["kept_share"]} for r in runs],
        "chosen": {"dev_weight": best["dev_weight"], "C": best["C"], "threshold": best["threshold"]},
        "dev_without": figures(dev, np.ones(len(y_dev), dtype=bool)), "dev_with_oof": best["oof"],
        "dev_with_nested": figures(dev, nested), "nested_thresholds": outer_thresholds,
        "probe": best["probe"], "manifest": best["manifest"],
    }
    if args.out:
        export(best["model"], Path(args.out), args.buckets, best["manifest"])
    if args.report:
        Path(args.report).write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
