"""The privacy card: one script measures every row and writes docs/privacy/card.md (issue 33 item 7).

Data (all public, ../shared/data): 200 MTSamples notes (duplicates removed, seeded sample, each cut
to about 1,500 characters at a sentence end) with injected PII: a patient named at the top (Faker,
one culture group per note, the gender known) and a clinician who dictated it, drawn from a pool
of 30 clinicians (6 per group) so that the same person recurs across notes, as in a clinic's
export. The attacker's text of the same kind: 2,000 other MTSamples transcriptions (none of the
200). Releases: ``knn`` k = 10 (the default) and ``exponential`` epsilon = 14 in scope all, and
``knn`` in scope hybrid (default detectors: detected spans get surrogates). Five releases with
five keys (a careless holder re-running with fresh noise) and five under one key.

Rows (the attacks of ``embedanon.privacy.attacks``, as ``privacy-report`` runs them):
change rate and N_w; public-prior, release-fitted and contextual (forward-backward) word recovery;
the same with the attacker's text; multi-release Bayes top-1 and majority vote after 1 / 2 / 5
releases; membership from layout (AUC); which of two candidate names a record holds (AUC: from
the released words in scope all, from the surrogate's culture group and gender in hybrid);
injected name parts recovered and left verbatim; surrogate attribute leaks (culture-group
inference against its base rate, gender kept) and consistency linkage (pairs of records sharing
a surrogate, or a surrogate surname, that share the real person, and the reverse) under both
``consistency`` settings: ``record`` (the default, the release every other hybrid row reads) and
``corpus`` (a second hybrid release of the same notes under the same key).

    nice .venv/bin/python research/privacy/card.py   # writes card.json here and docs/privacy/card.md
    .venv/bin/python research/privacy/card.py --page-only   # the page again from card.json

Never prints text: counts and rates only.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import Counter
from itertools import combinations
from pathlib import Path

from embedanon import Anonymizer, ReleaseKey
from embedanon.privacy.attacks import run_attacks
from embedanon.privacy.attacks.bayes import PosteriorAttack
from embedanon.privacy.attacks.membership import layout_membership
from embedanon.privacy.attacks.multirelease import multi_release
from embedanon.privacy.metrics import align_tokens, scan
from embedanon.privacy.prior import embedding_vocabulary, public_prior
from embedanon.privacy.report import privacy_report
from embedanon.surrogates.names import lexicon
from embedanon.text import lookup_key

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
from attacks import GROUPS, load_notes  # noqa: E402

RELEASE_SEEDS = (101, 102, 103, 104, 105)


# ------------------------------------------------------------------------------------------------
# data
# ------------------------------------------------------------------------------------------------
def _person(fakers, group: str, rng: random.Random) -> dict:
    """A Faker person of ``group``: first and last name (ASCII letters only) and gender."""
    while True:
        f = fakers[rng.choice(GROUPS[group])]
        gender = rng.choice(("female", "male"))
        first = f.first_name_female() if gender == "female" else f.first_name_male()
        last = f.last_name()
        if all(lookup_key(p).isascii() and lookup_key(p).isalpha() for p in (first, last)):
            return {"first": first, "last": last, "group": group, "gender": gender}


def inject(notes: list[str], seed: int) -> tuple[list[str], list[list[tuple[int, int, str]]], list[dict]]:
    """Notes with a patient and a recurring clinician; name spans (start, end, group) per note and
    the people of each note (never printed)."""
    from faker import Faker

    rng = random.Random(seed)
    fakers = {loc: Faker(loc) for locs in GROUPS.values() for loc in locs}
    for i, f in enumerate(fakers.values()):
        f.seed_instance(seed + i)
    clinicians = [_person(fakers, group, rng) for group in sorted(GROUPS) for _ in range(6)]
    texts, spans, people = [], [], []
    for note in notes:
        patient = _person(fakers, rng.choice(sorted(GROUPS)), rng)
        doctor = rng.choice(clinicians)
        head = f"{patient['first']} {patient['last']} was seen today. "
        tail = f" Dictated by Dr. {doctor['first']} {doctor['last']}."
        text = head + note + tail
        doc_spans = [(0, len(patient["first"]) + 1 + len(patient["last"]), patient["group"])]
        at = len(head) + len(note) + len(" Dictated by Dr. ")
        doc_spans.append((at, at + len(doctor["first"]) + 1 + len(doctor["last"]), doctor["group"]))
        texts.append(text)
        spans.append(doc_spans)
        people.append({"patient": patient, "doctor": doctor, "spans": doc_spans})
    return texts, spans, people


# ------------------------------------------------------------------------------------------------
# measurements
# ------------------------------------------------------------------------------------------------
def name_parts_verbatim(texts, releases, spans) -> dict:
    """Injected name parts released unchanged at their position (scope all: tokens align)."""
    parts = kept = 0
    for text, release, doc_spans in zip(texts, releases, spans, strict=True):
        for x, y in align_tokens(text, release):
            if x.kind == "word" and any(start <= x.start < end for start, end, _ in doc_spans):
                parts += 1
                kept += lookup_key(x.text) == lookup_key(y.text)
    return {"parts": parts, "verbatim": kept / parts if parts else float("nan")}


def scoped_verbatim(texts, docs, spans) -> dict:
    """The same for a scoped release: a part no item touches, or whose surrogate holds it again."""
    parts = kept = 0
    for text, doc, doc_spans in zip(texts, docs, spans, strict=True):
        for start, end, _ in doc_spans:
            for match in re.finditer(r"[^\W\d_]+", text[start:end]):
                a, b = start + match.start(), start + match.end()
                parts += 1
                items = [it for it in doc.items if it.start < b and a < it.end]
                if not items or any(it.kind == "surrogate" and re.search(rf"\b{re.escape(match.group())}\b",
                                                              doc.text[it.new_start:it.new_end], re.I)
                         for it in items):
                    kept += 1
    return {"parts": parts, "verbatim": kept / parts if parts else float("nan")}


def full_scope(texts, spans, attacker, mechanism: str, params: dict) -> dict:
    t0 = time.time()
    anonymizers = [Anonymizer(mechanism=mechanism, key=ReleaseKey.from_seed(s), **params)
                   for s in RELEASE_SEEDS]
    releases = [list(a.anonymize_many(texts)) for a in anonymizers]
    anon = anonymizers[0]
    index, store = anon.runtime.index, anon.runtime.store
    report = privacy_report(texts, releases[0], mechanism=anon.mechanism, index=index, key=anon.key,
                            epsilon=params.get("epsilon"), attack=False)
    figures = run_attacks(texts, releases, mechanism=anon.mechanism, index=index, name_spans=spans,
                          release_counts=(1, 2, 5), attacker_text=attacker, seed=7)
    public = PosteriorAttack(
        figures_law(anon), embedding_vocabulary(store, public_prior(store)), store.words,
        guarded=not anon.mechanism.may_return_input)
    keyed = multi_release(texts, [releases[0]] * 5, public, store, counts=(1, 5))
    return {
        "setup": {"mechanism": mechanism, **params, "documents": len(texts), "release_seeds": RELEASE_SEEDS},
        "change_rate": report.change.change_rate, "n_w": report.n_w_mean,
        "figures": figures.as_dict(),
        "one_key": [r.as_dict() for r in keyed],
        "membership": layout_membership(texts, releases[0]).as_dict(),
        "names_verbatim": name_parts_verbatim(texts, releases[0], spans),
        "seconds": round(time.time() - t0, 1),
    }


def figures_law(anon):
    from embedanon.privacy.attacks.likelihood import likelihood_for

    return likelihood_for(anon.mechanism, anon.runtime.index)


def _surrogate_of(document, start: int, end: int) -> str | None:
    """The released text of the surrogate item covering [start, end) (None: not a surrogate)."""
    for item in document.items:
        if item.start <= start < item.end and item.kind == "surrogate":
            return document.text[item.new_start:item.new_end]
    return None


def _signature(name: str) -> tuple[frozenset[str], str | None]:
    """(culture groups whose lists hold the surname, gender of the first name when unambiguous)."""
    lex = lexicon()
    pieces = [lookup_key(p) for p in re.findall(r"[^\W\d_]+", name)]
    if not pieces:
        return frozenset(), None
    locales = lex.locales_of(pieces[-1])
    groups = frozenset(g for g, locs in lex.groups.items() if locales & set(locs))
    first = pieces[0]
    female, male = lex.female_count.get(first, 0), lex.male_count.get(first, 0)
    gender = "female" if female and not male else "male" if male and not female else None
    return groups, gender


def hybrid_people(texts, people, key_seed: int, consistency: str = "record"):
    """Hybrid releases and, per injected person, (true group, gender, surrogate signature, surrogate)."""
    from embedanon.pipeline.document import anonymize_documents
    from embedanon.surrogates import SurrogateConfig

    anon = Anonymizer(mechanism="knn", scope="hybrid", key=ReleaseKey.from_seed(key_seed),
                      surrogates=SurrogateConfig(consistency=consistency))
    docs = list(anonymize_documents(texts, anon.config, anon.key))
    rows = []
    for doc, who in zip(docs, people, strict=True):
        for role, (start, end, _) in zip(("patient", "doctor"), who["spans"], strict=True):
            person = who[role]
            surrogate = _surrogate_of(doc, start, end)
            rows.append({"role": role, "group": person["group"], "gender": person["gender"],
                         "person": f"{person['first']} {person['last']}",
                         "surrogate": surrogate,
                         "signature": None if surrogate is None else _signature(surrogate)})
    return anon, docs, rows


def culture_inference(train: list[dict], test: list[dict]) -> dict:
    """The attacker tabulates P(signature | group) on its own runs and guesses argmax P(g) P(sig | g)."""
    groups = sorted(GROUPS)
    prior = Counter(r["group"] for r in train)
    table: dict[str, Counter] = {g: Counter() for g in groups}
    for r in train:
        table[r["group"]][r["signature"][0]] += 1
    right = base = n = 0
    top = max(groups, key=lambda g: prior[g])
    for r in test:
        sig = r["signature"][0]
        guess = max(groups, key=lambda g, sig=sig: (prior[g] + 1) * (table[g][sig] + 0.5)
                    / (sum(table[g].values()) + 0.5 * 64))
        right += guess == r["group"]
        base += top == r["group"]
        n += 1
    nan = float("nan")
    return {"names": n, "inference": right / n if n else nan, "base_rate": base / n if n else nan}


def gender_kept(rows: list[dict]) -> dict:
    known = [r for r in rows if r["signature"][1] is not None]
    kept = sum(r["signature"][1] == r["gender"] for r in known)
    return {"names": len(known), "kept": kept / len(known) if known else float("nan")}


def surrogate_confirmation(train: list[dict], test: list[dict], decoys: int, seed: int) -> dict:
    """Which of two people a surrogate stands for, from the surrogate's groups and gender: the
    attacker scores a candidate (group, gender) by the tabulated P(signature | group, gender)."""
    table: Counter = Counter()
    totals: Counter = Counter()
    for r in train:
        table[(r["group"], r["gender"], r["signature"])] += 1
        totals[(r["group"], r["gender"])] += 1

    def score(group: str, gender: str, sig) -> float:
        return (table[(group, gender, sig)] + 0.1) / (totals[(group, gender)] + 1.0)

    rng = random.Random(seed)
    wins = games = 0.0
    for r in test:
        true = score(r["group"], r["gender"], r["signature"])
        for _ in range(decoys):
            other = score(rng.choice(sorted(GROUPS)), rng.choice(("female", "male")), r["signature"])
            wins += (true > other) + 0.5 * (true == other)
            games += 1
    return {"names": len(test), "decoys": decoys, "auc": wins / games if games else float("nan")}


def _surname(surrogate: str) -> str:
    """The last word of a surrogate name (its surname), compared case-blind."""
    pieces = re.findall(r"[^\W\d_]+", surrogate)
    return lookup_key(pieces[-1]) if pieces else ""


def linkage(rows: list[dict]) -> dict:
    """Record pairs sharing a clinician surrogate (the whole name, or its surname) that share the
    real clinician, the reverse, and the chance that any two records share the clinician."""
    doctors = [r for r in rows if r["role"] == "doctor" and r["surrogate"] is not None]
    same_surrogate = same_surname = same_person = both = both_surname = pairs = 0
    for a, b in combinations(doctors, 2):
        s = lookup_key(a["surrogate"]) == lookup_key(b["surrogate"])
        t = _surname(a["surrogate"]) == _surname(b["surrogate"]) != ""
        p = a["person"] == b["person"]
        pairs += 1
        same_surrogate += s
        same_surname += t
        same_person += p
        both += s and p
        both_surname += t and p
    nan = float("nan")
    return {"records": len(doctors), "pairs": pairs, "pairs_same_surrogate": same_surrogate,
            "pairs_same_surname": same_surname, "pairs_same_person": same_person,
            "same_person_given_surrogate": both / same_surrogate if same_surrogate else nan,
            "same_person_given_surname": both_surname / same_surname if same_surname else nan,
            "same_surrogate_given_person": both / same_person if same_person else nan,
            "same_person_any_pair": same_person / pairs if pairs else nan}


def hybrid(texts, spans, people, train_texts, train_people) -> dict:
    t0 = time.time()
    _, docs, rows = hybrid_people(texts, people, RELEASE_SEEDS[0])
    _, _, train_rows = hybrid_people(train_texts, train_people, 999)
    test = [r for r in rows if r["signature"] is not None and r["signature"][0]]
    train = [r for r in train_rows if r["signature"] is not None and r["signature"][0]]
    released = [d.text for d in docs]
    detected = sum(r["surrogate"] is not None for r in rows)
    counted = [scan(t, d) for t, d in zip(texts, docs, strict=True)]
    return {
        "setup": {"mechanism": "knn", "scope": "hybrid", "documents": len(texts),
                  "attacker_runs": len(train_texts)},
        "names_surrogated": detected / len(rows),
        "change_rate": sum(c[1] for c in counted) / max(sum(c[0] for c in counted), 1),
        "membership": layout_membership(texts, released).as_dict(),
        "names_verbatim": scoped_verbatim(texts, docs, spans),
        "culture": culture_inference(train, test),
        "gender": gender_kept(test),
        "confirmation": surrogate_confirmation(train, test, 10, 5),
        "linkage": linkage(rows),
        "linkage_corpus": linkage(hybrid_people(texts, people, RELEASE_SEEDS[0], "corpus")[2]),
        "seconds": round(time.time() - t0, 1),
    }


# ------------------------------------------------------------------------------------------------
# the card
# ------------------------------------------------------------------------------------------------
def pct(x: float | None) -> str:
    return "n/a" if x is None or x != x else f"{100 * x:.1f} %"


def auc(x: float | None) -> str:
    return "n/a" if x is None or x != x else f"{x:.3f}"


def render(card: dict) -> str:
    knn, exp, hyb = card["knn"], card["exponential"], card["hybrid"]

    def f(c, key, k="top1"):
        entry = c["figures"].get(key)
        return pct(entry.get(k)) if entry else "n/a"

    def rel(c, n, key):
        row = next(r for r in c["figures"]["releases"] if r["releases"] == n)
        return pct(row[key])

    def names(c, group="all", k="top1"):
        row = next((r for r in c["figures"]["names"] if r["group"] == group), None)
        return pct(row[k]) if row else "n/a"

    def both(fn):  # the knn and the exponential cell
        return fn(knn), fn(exp)

    def ctx(c, key="contextual"):
        return pct(c["figures"][key]["contextual_top1"])

    def series(c, key):
        return " / ".join(rel(c, n, key) for n in (1, 2, 5))

    def one_key(c):
        last = c["one_key"][-1]
        return f"{pct(last['top1'])} / {pct(last['majority_top1'])} (= 1 release)"

    hyb_confirm = f"{auc(hyb['confirmation']['auc'])} (from the surrogate)"

    def modes(key: str, pairs: str) -> str:  # the record and the corpus cell, with the pair counts
        return " / ".join(f"{pct(c[key])} ({c[pairs]:,} pair{'' if c[pairs] == 1 else 's'})"
                          for c in (hyb["linkage"], hyb["linkage_corpus"]))

    rows = [
        ("change rate of word tokens", *both(lambda c: pct(c["change_rate"])), pct(hyb["change_rate"])),
        ("N_w (a word returned unchanged)", *both(lambda c: pct(c["n_w"])), "—"),
        ("words recovered, public prior: top-1 / top-5",
         *both(lambda c: f"{f(c, 'public_prior')} / {f(c, 'public_prior', 'top5')}"),
         "—"),
        ("words recovered, release-fitted prior", *both(lambda c: f(c, "release_prior")), "—"),
        ("words recovered in context (public bigrams, forward–backward)", *both(ctx), "—"),
        ("… with 2,000 notes of the same kind (prior and bigrams)",
         *both(lambda c: ctx(c, "contextual_domain")), "—"),
        ("rare words recovered, with notes of the same kind (context-free)",
         *both(lambda c: f(c, "oov_domain")), "—"),
        ("… in context, with their bigrams", *both(lambda c: ctx(c, "contextual_oov_domain")), "—"),
        ("1 / 2 / 5 releases, fresh keys: Bayes top-1", *both(lambda c: series(c, "top1")), "—"),
        ("1 / 2 / 5 releases, fresh keys: majority vote", *both(lambda c: series(c, "majority_top1")),
         "—"),
        ("5 releases under one key: Bayes top-1 / majority vote", *both(one_key), "—"),
        ("membership from layout (AUC; 0.5 = chance)", *both(lambda c: auc(c["membership"]["auc"])),
         auc(hyb["membership"]["auc"])),
        ("which of two names a record holds (AUC)",
         *both(lambda c: auc(c["figures"]["name_confirmation"]["auc"])), hyb_confirm),
        ("injected name parts recovered: top-1 / top-10",
         *both(lambda c: f"{names(c)} / {names(c, k='top10')}"), "—"),
        ("injected name parts left verbatim", *both(lambda c: pct(c["names_verbatim"]["verbatim"])),
         pct(hyb["names_verbatim"]["verbatim"])),
        ("culture group inferred from the surrogate (base rate)", "—", "—",
         f"{pct(hyb['culture']['inference'])} ({pct(hyb['culture']['base_rate'])})"),
        ("surrogate keeps the gender", "—", "—", pct(hyb["gender"]["kept"])),
        ("record pairs sharing a surrogate that share the person: consistency record (default) / corpus",
         "—", "—", modes("same_person_given_surrogate", "pairs_same_surrogate")),
        ("… sharing a surrogate surname: record (default) / corpus", "—", "—",
         modes("same_person_given_surname", "pairs_same_surname")),
        ("record pairs sharing the person that share the surrogate: record (default) / corpus", "—", "—",
         modes("same_surrogate_given_person", "pairs_same_person")),
        ("any two records share the person (chance)", "—", "—",
         pct(hyb["linkage"]["same_person_any_pair"])),
    ]
    lines = ["| | knn k = 10 (default) | exponential ε = 14 | knn, scope hybrid |", "|---|---:|---:|---:|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    return "\n".join(lines)


def _finite(value: object) -> object:
    """``value`` with every NaN float (a figure the card does not compute, such as the word
    membership AUC of the layout game) as None, so the JSON is valid (``null``, not ``NaN``)."""
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--attacker-docs", type=int, default=2000)
    parser.add_argument("--out", type=Path, default=HERE / "card.json")
    parser.add_argument("--page", type=Path, default=ROOT / "docs" / "privacy" / "card.md")
    parser.add_argument("--page-only", action="store_true",
                        help="write the page from the figures already in --out; measure nothing")
    args = parser.parse_args()
    if args.page_only:
        write_page(args.page, json.loads(args.out.read_text(encoding="utf-8")))
        return
    notes = load_notes(args.docs + args.attacker_docs + 300, 10**6, seed=9)

    def cut(note: str) -> str:
        end = note[:1500].rfind(". ")
        return note[:end + 1] if end > 0 else note[:1500]

    texts, spans, people = inject([cut(n) for n in notes[: args.docs]], seed=9)
    attacker = notes[args.docs: args.docs + args.attacker_docs]
    # the attacker's own runs of the tool (for the surrogate tables): other notes, other people
    train_texts, _, train_people = inject([cut(n) for n in notes[-300:]], seed=10)
    card = {"data": {"documents": len(texts), "attacker_documents": len(attacker)}}
    card["knn"] = full_scope(texts, spans, attacker, "knn", {"k": 10})
    print("knn done", card["knn"]["seconds"], flush=True)
    card["exponential"] = full_scope(texts, spans, attacker, "exponential", {"epsilon": 14.0})
    print("exponential done", card["exponential"]["seconds"], flush=True)
    card["hybrid"] = hybrid(texts, spans, people, train_texts, train_people)
    print("hybrid done", card["hybrid"]["seconds"], flush=True)
    args.out.write_text(json.dumps(_finite(card), indent=1, default=str, allow_nan=False) + "\n",
                        encoding="utf-8")
    print(write_page(args.page, card))


def write_page(path: Path, card: dict) -> str:
    """Put the card's table between the markers of the page at ``path``; return the table."""
    page = path.read_text(encoding="utf-8") if path.exists() else ""
    table = render(card)
    begin, end = "<!-- card:begin (research/privacy/card.py) -->", "<!-- card:end -->"
    if begin in page and end in page:
        page = page[: page.index(begin) + len(begin)] + "\n" + table + "\n" + page[page.index(end):]
    else:
        page = page + f"\n{begin}\n{table}\n{end}\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return table


if __name__ == "__main__":
    main()
