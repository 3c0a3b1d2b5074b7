"""What NAME surrogates say about the names they replace (issue 33 item 2): culture group, gender,
and the linkage of records by consistent surrogates.

Data (real text, names injected): MTSamples notes (``--docs`` per split, cut at a sentence end near
1,500 characters) and NLTK webtext ``overheard.txt`` conversations (chat-like turns). Each record
gets two people from one culture group (the five groups of ``attacks.py``, Faker locales, uniform),
each with a given name of a random gender and a surname: ``First Last was seen today. <note>
Dictated by Dr. Last2, reviewed with First2 Last2.`` (chats: the names in a closing turn).

Release: ``Anonymizer(scope="hybrid", key=...)`` with its defaults (detectors ``model,regex``), so
the surrogates are what a user gets; only injected name parts the detector found and replaced by a
NAME surrogate are read (aligned by word position inside the surrogate item).

Attacker (knows the tool, not the key): it injects names into notes of its own (another sample and
seed), releases them under its own keys, and tabulates P(feature | original group) for the feature
"which bundled culture groups list this surrogate part" (Laplace-smoothed naive Bayes over the
record's surrogate parts). It guesses each test record's group; the base rate is the most common
group of its training records. Per-part accuracy is reported too.

Gender: the share of injected given names whose surrogate given name has the original's gender,
among surrogates the lists give one gender (``female``/``male`` only), beside the share expected if
the two were independent (the surrogate genders' mix times the originals').

Linkage: a longitudinal corpus (``--people`` people, each in several records); pairs of records
whose surrogates share a surname, and the share of them whose real surnames are shared
(precision of linking records by surrogate); the share of same-real-surname pairs whose
surrogates share one (recall); and how many of the top-20 surname frequencies carry over.

The script runs on whatever ``embedanon`` is importable, so the same file measures an older commit
(``PYTHONPATH=/tmp/old/src python research/privacy/surrogate_attributes.py --out before.json``).

Usage: ``nice .venv/bin/python research/privacy/surrogate_attributes.py [--docs 300] [--out FILE]``
"""

from __future__ import annotations

import argparse
import csv
import gzip
import hashlib
import itertools
import json
import math
import random
import re
import subprocess
import time
import zipfile
from collections import Counter, defaultdict
from pathlib import Path

from faker import Faker

from embedanon import Anonymizer, ReleaseKey
from embedanon.surrogates.names import lexicon

HERE = Path(__file__).resolve().parent
# ../shared/data beside the checkout (a worktree under wt/ is one level deeper)
SHARED = next((p / "shared" / "data" for p in HERE.parents[2:4] if (p / "shared" / "data").is_dir()),
              HERE.parents[2] / "shared" / "data")
GROUPS = {"american": ["en_US"], "european": ["en_GB", "de_DE", "fr_FR", "it_IT", "pl_PL"],
          "hispanic": ["es_MX", "es_ES", "pt_BR"], "african": ["yo_NG", "zu_ZA", "tw_GH"],
          "south_asian": ["en_IN"]}
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*")


def notes(n: int, seed: int) -> list[str]:
    csv.field_size_limit(1 << 24)
    with gzip.open(SHARED / "mtsamples" / "mtsamples.csv.gz", "rt", encoding="utf-8") as fh:
        rows = [r["transcription"] for r in csv.DictReader(fh) if r["transcription"].strip()]
    random.Random(seed).shuffle(rows)
    out = []
    for note in rows[:n]:
        cut = note[:1500]
        end = max(cut.rfind(". "), cut.rfind(".,"))
        out.append(cut[: end + 1] if end > 0 else cut)
    return out


def chats(n: int, seed: int) -> list[str]:
    with zipfile.ZipFile(SHARED / "nltk_data" / "corpora" / "webtext.zip") as z:
        text = z.read("webtext/overheard.txt").decode("latin-1")
    convs = [c.strip() for c in text.split("\n\n") if c.count("\n") >= 1]
    random.Random(seed).shuffle(convs)
    return convs[:n]


def _ascii(value: str) -> str | None:
    return value if value.isascii() and value.isalpha() else None


class People:
    """Faker names of the five groups (given name with its gender, surname)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.fakers = {loc: Faker(loc) for locs in GROUPS.values() for loc in locs}
        for i, f in enumerate(self.fakers.values()):
            f.seed_instance(seed * 1000 + i)

    def person(self, group: str) -> tuple[str, str, str]:
        while True:
            f = self.fakers[self.rng.choice(GROUPS[group])]
            gender = self.rng.choice("FM")
            first = _ascii(f.first_name_female() if gender == "F" else f.first_name_male())
            last = _ascii(f.last_name())
            if first and last and first != last:
                return first, last, gender


Person = tuple[str, tuple[str, str, str]]


def inject(texts: list[str], kind: str, seed: int, people: list[Person] | None = None,
           ) -> tuple[list[str], list[list[tuple[int, int, str, str, str]]]]:
    """Texts with two injected people each, and their parts: (start, end, group, role, gender)."""
    maker = People(seed)
    rng = random.Random(seed + 7)
    out, spans = [], []
    for text in texts:
        if people is None:
            group = rng.choice(sorted(GROUPS))
            a, b = maker.person(group), maker.person(group)
            ga = gb = group
        else:
            (ga, a), (gb, b) = rng.sample(people, 2)
        if kind == "note":
            head = f"{a[0]} {a[1]} was seen today. "
            tail = f" Dictated by Dr. {b[1]}, reviewed with {b[0]} {b[1]}."
        else:
            head = f"{a[0]} {a[1]}: hi everyone.\n"
            tail = f"\nGuy: Tell {b[0]} {b[1]} I said hi. Dr. {b[1]} knows."
        full = head + text + tail
        parts = []
        for (first, last, gender), group, base, offsets in (
                (a, ga, 0, [(0, "given"), (len(a[0]) + 1, "surname")]),
                (b, gb, len(head) + len(text), None)):
            if offsets is not None:
                for off, role in offsets:
                    word = first if role == "given" else last
                    parts.append((base + off, base + off + len(word), group, role, gender))
                continue
            for m in re.finditer(rf"\b({re.escape(first)}|{re.escape(last)})\b", tail):
                role = "given" if m.group() == first else "surname"
                parts.append((base + m.start(), base + m.end(), group, role, gender))
        out.append(full)
        spans.append(parts)
    return out, spans


def surrogate_parts(anon: Anonymizer, texts: list[str], spans: list[list[tuple[int, int, str, str, str]]],
                    ) -> list[list[tuple[str, str, str, str, str]]]:
    """Per record: (group, role, gender, original part, surrogate part) of each injected part that
    a NAME surrogate replaced, aligned by word position inside the surrogate's span."""
    out = []
    for text, doc_spans, doc in zip(texts, spans, (anon.anonymize_document(t) for t in texts), strict=True):
        rec = []
        for item in doc.items:
            if item.label != "NAME" or item.kind != "surrogate":
                continue
            old = list(_WORD.finditer(text[item.start : item.end]))
            new = _WORD.findall(doc.text[item.new_start : item.new_end])
            if len(old) != len(new):
                continue
            for m, sur in zip(old, new, strict=True):
                start, end = item.start + m.start(), item.start + m.end()
                for s, e, group, role, gender in doc_spans:
                    if (s, e) == (start, end):
                        rec.append((group, role, gender, m.group(), sur))
        out.append(rec)
    return out


def feature(part: str) -> str:
    """The bundled culture groups whose lists hold ``part`` (``-`` for none)."""
    lex = lexicon()
    mask = lex.masks.get(part.lower(), 0)
    groups = sorted(g for g, locs in lex.groups.items() if any(mask >> lex.bits[loc] & 1 for loc in locs))
    return "+".join(groups) or "-"


def culture_attack(train: list[list[tuple]], test: list[list[tuple]]) -> dict:  # type: ignore[type-arg]
    """Naive Bayes of the record's group from its surrogate parts' features."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    prior: Counter[str] = Counter()
    vocab = set()
    for rec in train:
        if not rec:
            continue
        prior[rec[0][0]] += 1
        for group, _role, _g, _o, sur in rec:
            counts[group][feature(sur)] += 1
            vocab.add(feature(sur))
    groups = sorted(prior)
    top = prior.most_common(1)[0][0]

    def logp(group: str, feat: str) -> float:
        return math.log((counts[group][feat] + 1) / (sum(counts[group].values()) + len(vocab) + 1))

    hits = base = n = part_hits = part_n = 0
    for rec in test:
        if not rec:
            continue
        truth = rec[0][0]
        scores = {g: math.log(prior[g] / sum(prior.values())) + sum(logp(g, feature(p[4])) for p in rec)
                  for g in groups}
        hits += max(scores, key=lambda g: (scores[g], g)) == truth
        base += truth == top
        n += 1
        for p in rec:
            one = {g: math.log(prior[g] / sum(prior.values())) + logp(g, feature(p[4])) for g in groups}
            part_hits += max(one, key=lambda g: (one[g], g)) == truth
            part_n += 1
    return {"records": n, "attack": hits / n, "base_rate": base / n, "parts": part_n,
            "part_attack": part_hits / part_n}


def indicators(part: str) -> tuple[bool, ...]:
    """Whether each bundled culture group lists ``part``."""
    lex = lexicon()
    mask = lex.masks.get(part.lower(), 0)
    return tuple(any(mask >> lex.bits[loc] & 1 for loc in locs) for _, locs in sorted(lex.groups.items()))


def bernoulli_attack(train: list[list[tuple]], test: list[list[tuple]]) -> dict:  # type: ignore[type-arg]
    """Bernoulli naive Bayes of the record's group over per-part, per-role group indicators."""
    on: dict[tuple[str, str], list[float]] = {}
    seen: Counter[tuple[str, str]] = Counter()
    prior: Counter[str] = Counter()
    for rec in train:
        if not rec:
            continue
        prior[rec[0][0]] += 1
        for group, role, _g, _o, sur in rec:
            row = on.setdefault((group, role), [0.0] * len(indicators(sur)))
            for i, bit in enumerate(indicators(sur)):
                row[i] += bit
            seen[group, role] += 1
    groups = sorted(prior)
    top = prior.most_common(1)[0][0]

    def logp(group: str, role: str, bits: tuple[bool, ...]) -> float:
        n = seen[group, role]
        row = on.get((group, role), [0.0] * len(bits))
        return sum(math.log((row[i] + 1) / (n + 2) if b else (n - row[i] + 1) / (n + 2))
                   for i, b in enumerate(bits))

    hits = base = n = 0
    for rec in test:
        if not rec:
            continue
        truth = rec[0][0]
        scores = {g: math.log(prior[g] / sum(prior.values()))
                  + sum(logp(g, role, indicators(sur)) for _grp, role, _x, _o, sur in rec) for g in groups}
        hits += max(scores, key=lambda g: (scores[g], g)) == truth
        base += truth == top
        n += 1
    return {"records": n, "attack": hits / n, "base_rate": base / n}


def gender_of(name: str) -> str | None:
    lex = lexicon()
    key = name.lower()
    f, m = lex.female_count.get(key, 0), lex.male_count.get(key, 0)
    return "F" if f and not m else "M" if m and not f else None


def gender_copy(records: list[list[tuple]]) -> dict:  # type: ignore[type-arg]
    pairs = [(gender, gender_of(sur)) for rec in records
             for _grp, role, gender, _o, sur in rec if role == "given"]
    known = [(o, s) for o, s in pairs if s is not None]
    copied = sum(o == s for o, s in known)
    p_o = Counter(o for o, _ in known)
    p_s = Counter(s for _, s in known)
    n = len(known)
    independent = sum(p_o[g] * p_s[g] for g in "FM") / n / n if n else float("nan")
    return {"given_parts": len(pairs), "gendered_surrogates": n, "copy_rate": copied / n if n else None,
            "if_independent": independent}


def linkage(anon: Anonymizer, docs: list[str], n_people: int, seed: int) -> dict:
    """Records sharing a surrogate surname: how often they share the real one."""
    maker = People(seed)
    rng = random.Random(seed)
    people = [(g, maker.person(g)) for g in (rng.choice(sorted(GROUPS)) for _ in range(n_people))]
    texts, spans = inject(docs, "note", seed, people=people)
    records = surrogate_parts(anon, texts, spans)
    real = [{o.lower() for _g, role, _x, o, _s in rec if role == "surname"} for rec in records]
    sur = [{s.lower() for _g, role, _x, _o, s in rec if role == "surname"} for rec in records]
    linked = same = both = found = 0
    for i, j in itertools.combinations(range(len(records)), 2):
        share_real, share_sur = bool(real[i] & real[j]), bool(sur[i] & sur[j])
        linked += share_sur
        same += share_sur and share_real
        both += share_real
        found += share_real and share_sur
    freq_real = [c for _, c in Counter(o.lower() for rec in records for _g, r, _x, o, _s in rec
                                       if r == "surname").most_common(20)]
    freq_sur = [c for _, c in Counter(s.lower() for rec in records for _g, r, _x, _o, s in rec
                                      if r == "surname").most_common(20)]
    carried = sum(a == b for a, b in zip(freq_real, freq_sur, strict=False))
    return {"records": len(records), "people": n_people, "pairs_sharing_a_surrogate_surname": linked,
            "of_which_share_the_real_surname": same / linked if linked else None,
            "pairs_sharing_a_real_surname": both,
            "of_which_share_a_surrogate_surname": found / both if both else None,
            "top20_frequencies_equal_at_rank": carried}


def key(label: str) -> ReleaseKey:
    return ReleaseKey(hashlib.sha256(label.encode()).digest(), "file")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=300)
    parser.add_argument("--people", type=int, default=40)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    t0 = time.time()
    try:
        import embedanon
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=Path(embedanon.__file__).parent, check=False).stdout.strip()
    except OSError:
        commit = "?"
    result: dict[str, object] = {"commit": commit, "docs_per_split": args.docs}
    for corpus, load, kind in (("mtsamples", notes, "note"), ("overheard", chats, "chat")):
        # the attacker's data and keys (seeds 11/12), then the release (seeds 21/22)
        train_texts, train_spans = inject(load(args.docs, seed=11), kind, seed=12)
        test_texts, test_spans = inject(load(args.docs, seed=21)[::-1], kind, seed=22)
        train = []
        for k in range(3):  # three releases of its own, under three keys
            anon = Anonymizer(scope="hybrid", key=key(f"attacker {k}"))
            train += surrogate_parts(anon, train_texts, train_spans)
        test = surrogate_parts(Anonymizer(scope="hybrid", key=key("release")), test_texts, test_spans)
        result[corpus] = {"culture": culture_attack(train, test),
                          "culture_bernoulli": bernoulli_attack(train, test), "gender": gender_copy(test),
                          "parts_read": sum(map(len, test))}
    for consistency in ("corpus", "record"):
        try:
            from embedanon.surrogates import SurrogateConfig
            anon = Anonymizer(scope="hybrid", key=key("release"),
                              surrogates=SurrogateConfig(consistency=consistency))
        except (TypeError, ValueError):  # an option an older commit lacks
            continue
        result[f"linkage {consistency}"] = linkage(anon, notes(args.docs, seed=31), args.people, seed=32)
    result["seconds"] = round(time.time() - t0, 1)
    text = json.dumps(result, indent=1)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
