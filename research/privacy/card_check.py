"""An independent check of the card's attacks on other real text (issue 33: card figures within
+-3 points of an independent attack on other real data).

Data: IMDB test reviews (not MTSamples, never used to build or tune an attack), first ~1,500
characters, with a patient-style person and a recurring "reviewer" injected as
``card.py`` injects them; releases under five keys, ``knn`` k = 10 and ``exponential`` epsilon = 14.

For each figure the card prints, the pipeline that makes the card (``run_attacks``,
``layout_membership``) runs on this data, and a plain implementation written here, sharing no
attack code with it, runs on the same releases:

* public-prior Bayes top-1: every word of the embedding scored by P(y | x) * prior(x), the law
  from the knn table or from the exponential formula (its normalizer from the mechanism);
* multi-release Bayes top-1 after 2 and 5 releases: the product of those likelihoods over every
  word (no candidate restriction), and the plain majority vote with ties broken by the prior;
* membership: every note compared with every released record's token shapes, the same scoring;
* name confirmation (knn): the true name's parts against 10 decoys each, by the table;
* contextual: the forward-backward marginals by a scaled probability-space HMM over the same
  lattice (10 best candidates per word).

The difference in points is written to card-check.json; the target is |difference| <= 3 points.

    nice .venv/bin/python research/privacy/card_check.py
"""

from __future__ import annotations

import csv
import json
import lzma
import random
import sys
import time
from pathlib import Path

import numpy as np

from embedanon import Anonymizer, ReleaseKey
from embedanon.privacy.attacks import run_attacks
from embedanon.privacy.attacks.contextual import bundled_bigrams
from embedanon.privacy.attacks.documents import corpus_slots
from embedanon.privacy.attacks.membership import layout_membership
from embedanon.privacy.prior import name_dictionary, public_prior
from embedanon.text import LOWER, TITLE, case_code, tokenize

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from attacks import SHARED  # noqa: E402
from card import RELEASE_SEEDS, inject  # noqa: E402


def reviews(n: int, seed: int) -> list[str]:
    with lzma.open(SHARED / "imdb" / "imdb_test.csv.xz", "rt", encoding="utf-8") as fh:
        rows = sorted({r["text"].replace("<br />", " ") for r in csv.DictReader(fh)})
    random.Random(seed).shuffle(rows)
    out = []
    for text in rows[:n]:
        end = text[:1500].rfind(". ")
        out.append(text[:end + 1] if end > 0 else text[:1500])
    return out


# ------------------------------------------------------------------------------------------------
# plain implementations
# ------------------------------------------------------------------------------------------------
def law_column(mech, store, y: int, epsilon: float | None, cache: dict) -> np.ndarray:
    """P(y | x) for every word x, straight from the mechanism's definition: knn 1/k on the
    table's row; exponential exp(-eps d(x, y) / 2) / Z(x) (Z from the mechanism, d in float64)."""
    n = len(store)
    if epsilon is None:
        if "table" not in cache:
            cache["table"] = np.asarray(mech.table)
        table = cache["table"]
        return (table == y).sum(axis=1) / table.shape[1]
    if "vecs" not in cache:
        vecs = store.vectors.astype(np.float64)
        cache["vecs"] = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
        cache["log_z"] = mech.log_normalizers(np.arange(n, dtype=np.int64))
        candidate = np.zeros(n, dtype=bool)
        candidate[mech.index.candidates] = True
        cache["candidate"] = candidate
    if not cache["candidate"][y]:
        return np.zeros(n)
    vecs = cache["vecs"]
    d = np.sqrt(np.maximum(0.0, 2.0 - 2.0 * vecs @ vecs[y]))
    return np.exp(-epsilon * d / 2 - cache["log_z"])


def top1_credit(score: np.ndarray, truth: int) -> float:
    if score[truth] <= 0:
        return 0.0
    best = score.max()
    tied = np.flatnonzero(score >= best * (1 - 1e-9))
    return float(truth in tied) / len(tied)


def plain_shapes(text: str) -> tuple[str, tuple[int, ...], int]:
    """Token shapes, sentence lengths and word count, written again here."""
    shapes, sentences, current = [], [], 0
    for token in tokenize(text):
        if token.kind == "word":
            code = case_code(token.text)
            shapes.append({LOWER: "a", TITLE: "A"}.get(code, "U"))
            current += 1
        elif token.kind in ("number", "mixed"):
            shape, last = "", ""
            for ch in token.text:
                c = "9" if ch.isdigit() else ("a" if ch.isalpha() else ch)
                if not (c == "a" and last == "a"):
                    shape += c
                last = c
            shapes.append(shape)
            current += 1
        else:
            shapes.append(token.text)
            if any(ch in ".?!\n" for ch in token.text) and current:
                sentences.append(current)
                current = 0
    if current:
        sentences.append(current)
    return "|".join(shapes), tuple(sentences), sum(sentences)


def plain_membership(texts: list[str], released: list[str]) -> float:
    notes = [plain_shapes(t) for t in texts]
    rel = [plain_shapes(t) for t in released]

    def score(note, skip):
        best = 0.0
        for j, r in enumerate(rel):
            if j == skip:
                continue
            if note[0] == r[0]:
                return 3.0
            if note[1] and len(r[1]) == len(note[1]):
                same = sum(a == b for a, b in zip(note[1], r[1], strict=True))
                if same:
                    best = max(best, 1 + same / len(note[1]))
            best = max(best, 1 - abs(note[2] - r[2]) / (note[2] + 1))
        return best

    members = [score(n, None) for n in notes]
    outsiders = [score(n, i) for i, n in enumerate(notes)]
    wins = sum((m > o) + 0.5 * (m == o) for m in members for o in outsiders)
    return wins / (len(members) * len(outsiders))


def plain_forward_backward(emit: list[np.ndarray], states: list[np.ndarray], model) -> list[int]:
    """Scaled forward-backward in probability space (Rabiner's scaling)."""
    def trans(a, b):
        return np.exp(model.log_prob(a[:, None], b[None, :]))

    n = len(states)
    boundary = np.array([0])
    alpha = [trans(boundary, states[0])[0] * emit[0]]
    alpha[0] = alpha[0] / alpha[0].sum()
    for i in range(1, n):
        a = (alpha[-1] @ trans(states[i - 1], states[i])) * emit[i]
        alpha.append(a / a.sum())
    beta = [trans(states[-1], boundary)[:, 0]]
    for i in range(n - 1, 0, -1):
        b = trans(states[i - 1], states[i]) @ (emit[i] * beta[-1])
        beta.append(b / b.sum())
    beta.reverse()
    return [int(np.argmax(a * b)) for a, b in zip(alpha, beta, strict=True)]


# ------------------------------------------------------------------------------------------------
def check(texts, spans, mechanism: str, params: dict, tokens: int) -> dict:
    anonymizers = [Anonymizer(mechanism=mechanism, key=ReleaseKey.from_seed(s), **params)
                   for s in RELEASE_SEEDS]
    releases = [list(a.anonymize_many(texts)) for a in anonymizers]
    anon = anonymizers[0]
    store, index, mech = anon.runtime.store, anon.runtime.index, anon.mechanism
    epsilon = params.get("epsilon")
    figures = run_attacks(texts, releases, mechanism=mech, index=index, name_spans=spans,
                          release_counts=(1, 2, 5), seed=7).as_dict()
    prior = public_prior(store)
    per_release = [corpus_slots(texts, rel, store) for rel in releases]
    flat = [[s for doc in docs for sent in doc for s in sent] for docs in per_release]
    keep = [i for i, s in enumerate(flat[0]) if s.original_id >= 0 and s.released_id >= 0
            and all(f[i].released_id >= 0 for f in flat)]
    rng = np.random.default_rng(3)
    sample = sorted(rng.choice(keep, size=min(tokens, len(keep)), replace=False).tolist())
    cache: dict = {}
    out: dict = {"mechanism": mechanism, "tokens_sampled": len(sample),
                 "tokens": figures["public_prior"]["tokens"]}
    bayes: dict[int, list[float]] = {1: [], 2: [], 5: []}
    for i in sample:
        columns = [law_column(mech, store, flat[r][i].released_id, epsilon, cache) for r in range(5)]
        for n in bayes:
            score = prior.copy()
            for column in columns[:n]:
                score = score * column
            bayes[n].append(top1_credit(score, flat[0][i].original_id))
    se = float(np.sqrt(np.var(bayes[1]) / len(sample)))
    out["public_top1"] = {"card": figures["public_prior"]["top1"], "independent": float(np.mean(bayes[1])),
                          "sample_standard_error": se}
    for n in (2, 5):
        row = next(r for r in figures["releases"] if r["releases"] == n)
        out[f"releases_{n}_top1"] = {"card": row["top1"], "independent": float(np.mean(bayes[n])),
                                     "sample_standard_error": float(np.sqrt(np.var(bayes[n]) / len(sample)))}
        vote = []
        for i in keep:  # every token the card counts: no sampling
            ballots = [flat[r][i].released_id for r in range(n)]
            counts = {y: ballots.count(y) for y in ballots}
            most = [y for y, c in counts.items() if c == max(counts.values())]
            heavy = [y for y in most if prior[y] == max(prior[m] for m in most)]
            vote.append(float(flat[0][i].original_id in heavy) / len(heavy))
        out[f"releases_{n}_majority"] = {"card": row["majority_top1"], "independent": float(np.mean(vote))}
    out["membership_auc"] = {"card": layout_membership(texts, releases[0]).auc,
                             "independent": plain_membership(texts, releases[0])}
    if epsilon is None:  # name confirmation by the knn table
        names = sorted({e.name for e in name_dictionary()})
        pick = random.Random(5)
        table = np.asarray(mech.table)
        wins = games = 0.0
        for d, doc_spans in enumerate(spans):
            for start, end, _ in doc_spans:
                slots = [s for s in flat[0] if start <= s.start < end and s.released_id >= 0]
                slots = [s for s in slots if any(s is t for sent in per_release[0][d] for t in sent)]
                if not slots:
                    continue

                def score(keys, slots=slots):
                    total = 0.0
                    for key, s in zip(keys, slots, strict=True):
                        x = store.id_of(key)
                        p = float((table[x] == s.released_id).sum()) / table.shape[1] if x >= 0 else None
                        if p is None:
                            return None
                        total += np.log(p) if p > 0 else -np.inf
                    return total

                true = score([s.key for s in slots])
                if true is None:
                    continue
                for _ in range(10):
                    other = score([pick.choice(names) for _ in slots])
                    if other is None:
                        continue
                    wins += (true > other) + 0.5 * (true == other)
                    games += 1
        out["name_confirmation_auc"] = {"card": figures["name_confirmation"]["auc"],
                                        "independent": wins / games if games else float("nan"),
                                        "note": "independent: in-embedding names only"}
    # contextual, forward-backward: same lattice, a plain HMM
    from embedanon.privacy.attacks.bayes import PosteriorAttack
    from embedanon.privacy.attacks.likelihood import likelihood_for
    from embedanon.privacy.prior import embedding_vocabulary

    attack = PosteriorAttack(likelihood_for(mech, index), embedding_vocabulary(store, prior), store.words,
                             guarded=not mech.may_return_input)
    model = bundled_bigrams()
    hits = total = 0
    for doc in per_release[0]:
        for sentence in doc:
            slots = [s for s in sentence if s.released_id >= 0]
            if not slots:
                continue
            best = attack.best(np.array([s.released_id for s in slots]), 10)
            emit, states, rows_of = [], [], []
            for rows, score in best:
                if len(rows) == 0:
                    rows, e, lm = np.array([-1]), np.ones(1), np.array([1])
                else:
                    e = score / prior[rows]
                    lm = model.ids([store.words[r] for r in rows.tolist()])
                emit.append(e / e.max())
                states.append(lm)
                rows_of.append(rows)
            picks = plain_forward_backward(emit, states, model)
            for s, rows, pick_ in zip(slots, rows_of, picks, strict=True):
                if s.original_id >= 0:
                    total += 1
                    hits += int(rows[pick_] == s.original_id)
    out["contextual_top1"] = {"card": figures["contextual"]["contextual_top1"], "independent": hits / total}
    for value in out.values():
        if isinstance(value, dict) and "card" in value:
            value["points"] = round(100 * (value["card"] - value["independent"]), 2)
    return out


def main() -> None:
    t0 = time.time()
    texts, spans, _ = inject(reviews(80, seed=4), seed=4)
    result = {"data": {"corpus": "IMDB test reviews", "documents": len(texts)},
              "knn": check(texts, spans, "knn", {"k": 10}, 1000),
              "exponential": check(texts, spans, "exponential", {"epsilon": 14.0}, 1000)}
    worst = max(abs(v["points"]) for c in ("knn", "exponential") for v in result[c].values()
                if isinstance(v, dict) and "points" in v)
    result["worst_points"] = worst
    result["seconds"] = round(time.time() - t0, 1)
    (HERE / "card-check.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
