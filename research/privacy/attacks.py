"""Measure the attacks of ``embedanon.privacy.attacks`` on MTSamples notes with injected names.

Data: ``--docs`` MTSamples transcriptions (seeded sample, each cut to about ``--chars`` characters
at a sentence end), each given two injected person names (patient and clinician) drawn with Faker
from one culture group (see ``scripts/build_attack_data.py`` for the groups). The attacker's
public data (frequency list, bigram model, name dictionary) never saw MTSamples; its name
dictionary is Faker's, so every injected name is in it: the name figures are for an attacker with
a complete name list.

Releases: ``Anonymizer(seed=...)`` with 5 fresh seeds (a careless holder re-running without a key).

Independent check: the public-prior top-1/top-5 is recomputed by brute force over *every* word
of the embedding for a sample of tokens (``distribution(x)`` for all x, plain ranking), and the
difference to :func:`run_attacks` on the same tokens is reported.

Usage: ``nice .venv/bin/python research/privacy/attacks.py [--docs 200] [--mechanism knn]``
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import re
import sys
import time
from pathlib import Path

import numpy as np

from embedanon import Anonymizer
from embedanon.mechanisms.base import BatchLaw
from embedanon.privacy.attacks import corpus_slots, run_attacks
from embedanon.privacy.attacks.bayes import PosteriorAttack
from embedanon.privacy.attacks.likelihood import likelihood_for
from embedanon.privacy.prior import embedding_vocabulary, public_prior
from embedanon.privacy.seedguess import guess_seed
from embedanon.text import apply_case, case_code, tokenize

HERE = Path(__file__).resolve().parent
# ../shared/data next to the checkout (a worktree of /work/main sits one level deeper)
SHARED = next((p / "shared" / "data" for p in HERE.parents if (p / "shared" / "data").is_dir()),
              HERE.parents[2] / "shared" / "data")
GROUPS = {"american": ["en_US"], "european": ["en_GB", "de_DE", "fr_FR", "it_IT", "pl_PL"],
          "hispanic": ["es_MX", "es_ES", "pt_BR"], "african": ["yo_NG", "zu_ZA", "tw_GH"],
          "south_asian": ["en_IN"]}


def load_notes(n: int, chars: int, seed: int) -> list[str]:
    csv.field_size_limit(1 << 24)
    with gzip.open(SHARED / "mtsamples" / "mtsamples.csv.gz", "rt", encoding="utf-8") as fh:
        # MTSamples lists many notes under two specialties: each text once (sorted, so the
        # sample does not depend on the file's row order)
        notes = sorted({row["transcription"] for row in csv.DictReader(fh) if row["transcription"].strip()})
    random.Random(seed).shuffle(notes)
    out = []
    for note in notes[:n]:
        cut = note[:chars]
        end = max(cut.rfind(". "), cut.rfind(".,"))
        out.append(cut[:end + 1] if end > 0 else cut)
    return out


def _ascii_name(value: str) -> str | None:
    from embedanon.text import lookup_key

    key = lookup_key(value)
    return value if key.isascii() and key.isalpha() else None


def inject_names(notes: list[str], seed: int) -> tuple[list[str], list[list[tuple[int, int, str]]]]:
    from faker import Faker

    rng = random.Random(seed)
    fakers = {loc: Faker(loc) for locs in GROUPS.values() for loc in locs}
    for i, f in enumerate(fakers.values()):
        f.seed_instance(seed + i)
    texts, spans = [], []
    for note in notes:
        group = rng.choice(sorted(GROUPS))
        names = []
        while len(names) < 2:
            f = fakers[rng.choice(GROUPS[group])]
            first, last = _ascii_name(f.first_name()), _ascii_name(f.last_name())
            if first and last:
                names.append((first, last))
        head = f"{names[0][0]} {names[0][1]} was seen today. "
        tail = f" Dictated by Dr. {names[1][1]}, reviewed with {names[1][0]} {names[1][1]}."
        text = head + note + tail
        doc_spans = []
        for match in re.finditer("|".join(re.escape(p) for n in names for p in n), text):
            doc_spans.append((match.start(), match.end(), group))
        texts.append(text)
        spans.append(doc_spans)
    return texts, spans


def _full_law_columns(mech, index, ys: list[int], spot: int, seed: int) -> tuple[np.ndarray, float]:
    """P(y | x) for every word x (rows) and each of ``ys`` (columns), and the spot-check error.

    A mechanism with the batched exact law (``likelihood``, tested against ``distribution()`` to
    1e-12) gets every column from it; ``spot`` random words' full ``distribution()`` rows are
    compared with it here too (max relative difference returned). Others: ``distribution(x)``
    for every x.
    """
    n = len(index.store)
    cand_pos = {int(c): j for j, c in enumerate(index.candidates.tolist())}
    y_pos = np.array([cand_pos[y] for y in ys])
    if not isinstance(mech, BatchLaw):
        like = np.zeros((n, len(ys)))
        for x in range(n):  # P(y | x) for every word x, straight from the law
            law = mech.distribution(x)
            like[x] = [law.get(y, 0.0) for y in ys] if isinstance(law, dict) else np.asarray(law)[y_pos]
        return like, 0.0
    xs = np.repeat(np.arange(n, dtype=np.int64), len(ys))
    like = mech.likelihood(xs, np.tile(np.array(ys, dtype=np.int64), n)).reshape(n, len(ys))
    worst = 0.0
    for x in np.random.default_rng(seed).choice(n, size=min(spot, n), replace=False).tolist():
        law = np.asarray(mech.distribution(x))[y_pos]
        worst = max(worst, float(np.max(np.abs(like[x] - law) / law)))
    return like, worst


def brute_force_check(texts, release, anon, sample: int, seed: int) -> dict:
    """Public-prior top-1/top-5 over all V words for a token sample, by plain loops (independent)."""
    store, index, mech = anon.runtime.store, anon.runtime.index, anon.mechanism
    slots = [s for doc in corpus_slots(texts, release, store) for sent in doc for s in sent
             if s.original_id >= 0 and s.released_id >= 0]
    rng = np.random.default_rng(seed)
    pick = rng.choice(len(slots), size=min(sample, len(slots)), replace=False)
    chosen = [slots[i] for i in sorted(pick.tolist())]
    ys = sorted({s.released_id for s in chosen})
    like, spot_error = _full_law_columns(mech, index, ys, spot=20, seed=seed)
    prior = public_prior(store)
    col = {y: j for j, y in enumerate(ys)}
    brute = np.zeros(2)
    for s in chosen:
        score = like[:, col[s.released_id]] * prior
        truth = score[s.original_id]
        if truth <= 0:
            continue
        higher = np.sum(score > truth * (1 + 1e-9))
        tied = np.sum(np.abs(score - truth) <= truth * 1e-9)
        brute += [min(max((k - higher) / tied, 0), 1) for k in (1, 5)]
    attack = PosteriorAttack(likelihood_for(mech, index), embedding_vocabulary(store, prior), store.words,
                             guarded=not mech.may_return_input)
    fast = attack.run([s.original_id for s in chosen], np.array([s.released_id for s in chosen]))
    n = len(chosen)
    return {"tokens": n, "brute_top1": brute[0] / n, "brute_top5": brute[1] / n,
            "attack_top1": fast.rate(1), "attack_top5": fast.rate(5),
            "diff_top1": fast.rate(1) - brute[0] / n, "diff_top5": fast.rate(5) - brute[1] / n,
            "batched_law_vs_distribution_max_rel": spot_error}


def reconstruct_fn(anon):
    store, index, mech = anon.runtime.store, anon.runtime.index, anon.mechanism
    attack = PosteriorAttack(likelihood_for(mech, index), embedding_vocabulary(store, public_prior(store)),
                             store.words, guarded=not mech.may_return_input)

    def reconstruct(texts):
        out = []
        for text in texts:
            toks = tokenize(text)
            ids = [store.id_of(t.text) if t.kind == "word" and t.text.isalpha() else -1 for t in toks]
            known = [y for y in ids if y >= 0]
            best = iter(attack.best(np.array(known, dtype=np.int64), 1)) if known else iter(())
            parts = []
            for tok, y in zip(toks, ids, strict=True):
                if y >= 0:
                    rows, _ = next(best)
                    guess = store.words[int(rows[0])] if len(rows) else store.words[y]
                    parts.append(apply_case(guess, case_code(tok.text)))
                else:
                    parts.append(tok.text)
            out.append("".join(parts))
        return out

    return reconstruct


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--chars", type=int, default=1500)
    parser.add_argument("--mechanism", default="knn")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--epsilon", type=float, default=14.0)
    parser.add_argument("--check-sample", type=int, default=500)
    parser.add_argument("--seed-docs", type=int, default=10)
    parser.add_argument("--seeds", type=int, default=50)
    parser.add_argument("--empirical-draws", type=int, default=30,
                        help="runs per candidate input for mechanisms without an exact law (lower bound)")
    parser.add_argument("--empirical-smoothing", type=float, default=0.5,
                        help="pseudo-count per (input, candidate) pair of the empirical law")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    t0 = time.time()
    texts, spans = inject_names(load_notes(args.docs, args.chars, seed=9), seed=9)
    params = {"k": args.k} if args.mechanism == "knn" else {"epsilon": args.epsilon}

    def anonymizer(seed):
        return Anonymizer(mechanism=args.mechanism, seed=seed, **params)

    releases = [list(anonymizer(1000 + r).anonymize_many(texts)) for r in range(5)]
    anon = anonymizer(0)
    store = anon.runtime.store
    aligned = [s for doc in corpus_slots(texts, releases[0], store) for sent in doc for s in sent]
    same = sum(s.original_id >= 0 and s.released_id == s.original_id for s in aligned)
    invocab = sum(s.original_id >= 0 for s in aligned)
    release_stats = {"word_tokens": len(aligned), "change_rate": 1 - same / max(len(aligned), 1),
                     "invocab_unchanged": same / max(invocab, 1)}
    t1 = time.time()
    has_law = hasattr(anon.mechanism, "distribution")
    figures = run_attacks(texts, releases, mechanism=anon.mechanism, index=anon.runtime.index,
                          name_spans=spans, empirical_draws=0 if has_law else args.empirical_draws,
                          empirical_smoothing=args.empirical_smoothing)
    t2 = time.time()
    keyed, check = None, None
    if has_law:  # without a law: identical releases count once by construction (tested); no brute force
        keyed = run_attacks(texts, [releases[0]] * 5, mechanism=anon.mechanism, index=anon.runtime.index,
                            contextual=False)
        check = brute_force_check(texts, releases[0], anon, args.check_sample, seed=3)
    t3 = time.time()
    few = texts[:args.seed_docs]
    secret = 37 % args.seeds

    def anonymize_fn(seed, docs):
        return list(anonymizer(seed).anonymize_many(docs))

    small_seed_release = anonymize_fn(secret, few)
    found = fresh = "not run (no exact law)"
    if has_law:
        found = guess_seed(None, small_seed_release, anonymize_fn, range(args.seeds),
                           reconstruct=reconstruct_fn(anon))
        fresh = guess_seed(None, releases[0][:args.seed_docs], anonymize_fn, range(args.seeds),
                           reconstruct=reconstruct_fn(anon))
    known = guess_seed(few, small_seed_release, anonymize_fn, range(args.seeds))
    t4 = time.time()
    result = {
        "setup": {"docs": args.docs, "chars": args.chars, "mechanism": args.mechanism, **params,
                  "release_seeds": [1000 + r for r in range(5)], "python": sys.version.split()[0],
                  **({} if has_law else {"empirical_draws": args.empirical_draws,
                                           "empirical_smoothing": args.empirical_smoothing})},
        "release_stats": release_stats,
        "figures": figures.as_dict(),
        "identical_releases": None if keyed is None else [r.as_dict() for r in keyed.releases],
        "independent_check": check,
        "seed_guess": {"docs": args.seed_docs, "seeds_tried": args.seeds, "secret_seed": secret,
                       "output_only_found": found, "known_plaintext_found": known,
                       "fresh_entropy_release_found": fresh},
        "seconds": {"release": t1 - t0, "attacks": t2 - t1, "check": t3 - t2, "seed_guess": t4 - t3},
    }
    out = args.out or HERE / f"attacks-{args.mechanism}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
