"""Build span-labelled PII sets by injecting generated PII into real text.

Output: JSONL, one record per line, ``{"id", "text", "spans": [{"start", "end", "label", "group"?}],
"meta": {...}}`` (``group`` on NAME spans: the culture group of the Faker locale the name came from).

Real text (../shared/data): MTSamples notes (their ``Dr. XYZ`` / ``Mr. Abc`` placeholders become
names), IMDB reviews (essay-like), biomedical sentences and AG News (held out: test only). Sentences
whose mid-sentence capitalized words are mostly capitalized in the corpus (proper nouns: actors,
companies) are dropped so that real, unlabelled names do not contradict the labels; ages
(``45-year-old``) and dates already in the text are labelled by pattern.

Documents come in several layouts: clinical notes with headers and sign-offs, chat transcripts
(``Dr. Okafor: ...``, ``thanks amina!``), essays (``Name: ...``, ``By ...``), letters, lists and
short requests; some are all lower case or all UPPER case. Unlabelled traps (eponyms, famous people
in a non-PII role, drugs, hospitals) are mixed in.

Held out from training (``--split train``/``dev`` never use them):
* whole locales (``HELDOUT_LOCALES``) and one name in five of every training locale (by a hash of
  the name), used only by ``--split test-names`` / ``test-locales`` / ``test-text``;
* the AG News text source (``test-text``) and one trap phrase in three.

``--split dev-locales`` (development diagnostic): dev text with names only from ``DEV_LOCALES``,
locales that no other split uses, to measure on development data how names of unseen cultures fare.

``--split dev-africa`` (development diagnostic, round 11): like dev-locales, but the African names
are Southern African (``african-south``) and Senegalese (``african-west``) names from faker-js
(``research/scripts/data/SOURCE.md``), shared with no other split: a development stand-in for the held-out
zu_ZA / sw locales.

``--split test-crapii`` (fresh held-out name source, round 4): test-text documents (AG News) whose
every name is one of the 2,747 distinct NAME_STUDENT entity texts of the CRAPII gold spans (Ji et
al. 2025, ../shared/data/privacyai-ji2025), no group labels.

With no option, every split is what the generator of round 3's model (commit dc1342d) made from
the same ``--split --n --seed``, byte for byte. Training-only options (``research/detection/``
``round4.md`` ... ``round10.md``):

* ``--lower-share P``: the share of all-lower-case training documents (default 0.08, as in every
  other split);
* ``--pseudo-names RATE``: that share of training name parts is replaced by a made-up name drawn
  from a character trigram model of the training names (the slot, not the list, must decide);
* ``--group-pseudo GROUP=RATE``: the same for one culture group's names, from a model of that
  group's training names only;
* ``--virtue-names``: virtue / word-like given names (``VIRTUE_NAMES``, one half held out by
  ``heldout_virtue``) in name slots (rounds 4-6, not shipped).

The shipped model (round 8) was trained on ``--lower-share 0.16 --pseudo-names 0.1``.

Example::

    python research/scripts/make_pii_set.py --split train --n 20000 --seed 11 -o train.jsonl
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import lzma
import os
import re
import sys
import zlib
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
from faker import Faker

#: ../shared/data beside the checkout (or inside it), or $EMBEDANON_SHARED_DATA (research/scripts/ is
#: two levels below the checkout; the first existing candidate wins)
_ROOT = Path(__file__).resolve().parents[2]
_CANDIDATES = (Path(os.environ.get("EMBEDANON_SHARED_DATA", "/nonexistent")),
               _ROOT.parent / "shared" / "data", _ROOT / "shared" / "data", Path("/work/shared/data"))
DATA = next((p for p in _CANDIDATES if p.is_dir()),
            _ROOT.parent / "shared" / "data")

#: Faker locale -> culture group. Locales that fall back to en_US names are left out.
GROUPS: dict[str, str] = {
    "yo_NG": "african",
    "ig_NG": "african",
    "ha_NG": "african",
    "en_KE": "african",
    "tw_GH": "african",
    "zu_ZA": "african",
    "sw": "african",
    "zh_CN": "east-asian",
    "ja_JP": "east-asian",
    "zh_TW": "east-asian",
    "en_IN": "south-asian",
    "en_PK": "south-asian",
    "fr_DZ": "arab",
    "es_MX": "hispanic",
    "es_ES": "hispanic",
    "es_AR": "hispanic",
    "es_CO": "hispanic",
    "es_CL": "hispanic",
    "de_DE": "european",
    "fr_FR": "european",
    "it_IT": "european",
    "nl_NL": "european",
    "sv_SE": "european",
    "pl_PL": "european",
    "fi_FI": "european",
    "en_US": "american",
    "id_ID": "southeast-asian",
}
HELDOUT_LOCALES = frozenset({"zu_ZA", "sw", "zh_TW", "en_PK", "es_CO", "es_CL", "pl_PL", "fi_FI", "id_ID"})
ROMANIZED = frozenset({"zh_CN", "ja_JP", "zh_TW"})
#: Faker locales in no other split, for a development diagnostic of unseen cultures (``--split
#: dev-locales``: dev text, names only from these): never in training, never in a test set.
DEV_LOCALES: dict[str, str] = {
    "en_NG": "african",
    "en_TH": "southeast-asian",
    "cs_CZ": "european",
    "hu_HU": "european",
    "tr_TR": "european",
    "pt_BR": "hispanic",
}
#: ``--split dev-africa`` (round 11): name pools from faker-js (scripts/data/SOURCE.md), sharing no name
#: with any Python Faker locale above; the non-African groups come from ``DEV_LOCALES``.
DEV_AFRICA = Path(__file__).resolve().parent / "data" / "fakerjs_african_names.json"
SPLITS = ("train", "dev", "test-names", "test-locales", "test-text", "dev-locales", "test-crapii",
          "dev-africa")
#: the fresh held-out name source of ``--split test-crapii`` (never used for any choice)
CRAPII = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "privacyai-ji2025" / (
    "crapii_pii_true_entities.csv")

#: virtue / word-like given names (Patience, Blessing, ...), common in several African naming
#: traditions and elsewhere; one half (``heldout_virtue``) never enters training
VIRTUE_NAMES = (  # noqa: SIM905
    "Patience Comfort Blessing Joy Peace Precious Gift Favour Mercy Hope Faith Grace Charity Prudence "
    "Wisdom Goodluck Godspower Testimony Praise Glory Victory Justice Chastity Purity Honour Innocent "
    "Lucky Promise Treasure Beauty Happiness Prosper Fortune Loveth Divine Marvellous Success Unique "
    "Miracle Destiny Harmony Serenity Liberty Felicity Constance Verity Temperance"
).split()

TRAPS = [
    "Parkinson's disease",
    "Alzheimer's disease",
    "Crohn's disease",
    "Hodgkin lymphoma",
    "Down syndrome",
    "Cushing's syndrome",
    "Graves' disease",
    "the Heimlich maneuver",
    "the Apgar score",
    "the Glasgow Coma Scale",
    "a positive Babinski sign",
    "Bell's palsy",
    "Huntington's disease",
    "Tourette syndrome",
    "Asperger's",
    "Newton's method",
    "Bayes' theorem",
    "the Pythagorean theorem",
    "a Fourier transform",
    "Euler's formula",
    "Einstein's theory of relativity",
    "a Shakespeare sonnet",
    "Darwin's theory of evolution",
    "Marie Curie's discoveries",
    "Freud's theories",
    "Mozart's symphonies",
    "the Obama administration",
    "Gandhi's nonviolence",
    "Kafka's novels",
    "a Picasso painting",
    "Tylenol",
    "Lipitor",
    "metformin",
    "Xanax",
    "Zoloft",
    "Ativan",
    "Coumadin",
    "Lasix",
    "Keflex",
    "Humira",
    "Norco",
    "Percocet",
    "Advil",
    "Zithromax",
    "Synthroid",
    "the Mayo Clinic",
    "Johns Hopkins Hospital",
    "Massachusetts General Hospital",
    "the Cleveland Clinic",
    "St. Jude Children's Research Hospital",
    "Mount Sinai Hospital",
    "Kaiser Permanente",
    "the Salk vaccine",
    "the Fibonacci sequence",
    "a Kalman filter",
    "Murphy's law",
    "Occam's razor",
]
#: romanized one-syllable given names (Mandarin pinyin, Korean, Vietnamese), public knowledge, to widen
#: the pool of short given names beyond Faker's 23 zh_CN romanized ones; held out by the same hash rule
SYLLABLES = (  # noqa: SIM905 (a word list is easier to read as text)
    "An Bo Bin Chao Chen Cheng Dan Fang Fei Gang Hai Hao Hong Hua Hui Jia Jian Jie Jin Jing Jun Kai "
    "Lan Lei Li Lin Ling Long Mei Min Ming Na Ning Peng Ping Qi Qiang Qing Rong Rui Shan Tao Ting Wei "
    "Wen Xia Xin Yan Yang Yi Ying Yong Yu Yun Zhen Zhi Bao Hyun Ji Seo Soo Woo Hoa Huy Khoa Linh Mai "
    "Nam Phuc Quan Thu Trang Tuan Vu"
).split()

TRAP_TEMPLATES = [
    "The patient has a history of {t}.",
    "We discussed {t} in class today.",
    "She mentioned {t} twice.",
    "I read about {t} last week.",
    "He was referred because of {t}.",
    "They compared it to {t}.",
    "My essay is about {t}.",
    "Follow-up regarding {t} was arranged.",
    "Nothing suggests {t}.",
]


def _key(text: str) -> int:
    return zlib.crc32(text.lower().encode("utf-8"))


def heldout_name(part: str) -> bool:
    """One name string in five (by hash) is reserved for test sets."""
    return _key(part) % 5 == 0


def heldout_trap(trap: str) -> bool:
    return _key(trap) % 3 == 0


def _title_case(word: str) -> bool:
    """``Amina``: upper-case first letter, the rest lower case (the shape of made-up names)."""
    return word[:1].isupper() and word[1:].islower()


class PseudoNames:
    """Character trigram model of name parts; ``sample`` draws a made-up one (never a name of the pool)."""

    def __init__(self, pool: list[str]) -> None:
        self.real = frozenset(pool)
        counts: dict[str, Counter[str]] = {}
        for name in pool:
            padded = "^^" + name + "$"
            for i in range(2, len(padded)):
                counts.setdefault(padded[i - 2 : i], Counter())[padded[i]] += 1
        self.table = {k: (list(c), np.array(list(c.values()), dtype=float) / sum(c.values()))
                      for k, c in counts.items()}

    def sample(self, rng: np.random.Generator) -> str:
        for _ in range(100):
            out = "^^"
            while len(out) < 16:
                chars, p = self.table[out[-2:]]
                ch = chars[int(rng.choice(len(chars), p=p))]
                if ch == "$":
                    break
                out += ch
            name = out[2:]
            if 3 <= len(name) <= 12 and name not in self.real and _title_case(name):
                return name
        raise RuntimeError("no pseudo-name")


def known_name_parts() -> frozenset[str]:
    """Every name part (lower case) the generator could draw from any source: all Faker locales it
    knows (training, held-out and development), the faker-js african pool and CRAPII when present."""
    parts: set[str] = set()

    def add(name: object) -> None:
        parts.update(x.lower() for x in re.split(r"[- ]", str(name)) if x)

    for loc in (*GROUPS, *DEV_LOCALES):
        for provider in Faker(loc).providers:
            if "person" not in type(provider).__module__:
                continue
            for attr in ("first_names", "first_names_female", "first_names_male", "last_names",
                         "last_names_female", "last_names_male", "first_romanized_names",
                         "last_romanized_names"):
                for v in getattr(provider, attr, None) or ():
                    add(v)
    data = json.loads(DEV_AFRICA.read_text(encoding="utf-8"))
    for g in ("african-south", "african-west"):  # {"first": [...], "last": [...]}
        for v in (*data[g]["first"], *data[g]["last"]):
            add(v)
    if CRAPII.is_file():
        for first, last in crapii_names(CRAPII):
            parts.update(x.lower() for x in f"{first} {last}".split())
    return frozenset(parts)


class BlendNames:
    """Made-up name parts spelled like English: the start of one public English word and the end of
    another (``them`` + ``bile``), never a common word and never a name part of any known source."""

    def __init__(self) -> None:
        from embedanon.privacy.prior import word_frequencies

        ranked = [w for w, _ in sorted(word_frequencies().items(), key=lambda kv: -kv[1])]
        self.words = [w for w in ranked[200:20_000] if w.isalpha() and w.isascii() and len(w) >= 4]
        self.common = frozenset(w.lower() for w in ranked[:100_000])
        self.forbidden = known_name_parts()

    def sample(self, rng: np.random.Generator) -> str:
        for _ in range(1000):
            a = self.words[int(rng.integers(len(self.words)))]
            b = self.words[int(rng.integers(len(self.words)))]
            head = a[: int(rng.integers(2, min(5, len(a)) + 1))]
            tail = b[-int(rng.integers(2, min(5, len(b)) + 1)) :]
            blend = (head + tail).lower()
            if 5 <= len(blend) <= 11 and blend not in self.common and blend not in self.forbidden:
                return blend.title()
        raise RuntimeError("no blend name")


def heldout_virtue(name: str) -> bool:
    """One half of ``VIRTUE_NAMES`` (by hash) never enters training (a diagnostic of unseen ones)."""
    return _key(f"virtue:{name}") % 2 == 0


def crapii_names(path: Path) -> list[tuple[str, str]]:
    """Distinct NAME_STUDENT entity texts of the CRAPII gold spans (Ji et al. 2025) as (first, last)."""
    seen: dict[str, tuple[str, str]] = {}
    with open(path, encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            parts = row["entity_text"].split()
            if row["type"] == "NAME_STUDENT" and len(parts) >= 2:
                seen.setdefault(" ".join(parts).lower(), (" ".join(parts[:-1]), parts[-1]))
    return [seen[k] for k in sorted(seen)]


# -- real text ----------------------------------------------------------------------------------
_SENT_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")
_AGE_RE = re.compile(r"\b(\d{1,3})(?=[- ](?:year|yr)s?[- ]old\b|\s*y/o\b)")
_DATE_RE = re.compile(
    r"\b(?:\d{1,2}/\d{1,2}/\d{2,4}|\d{4}-\d{2}-\d{2}|(?:January|February|March|April|June|July|August|"
    r"September|October|November|December) \d{1,2}, \d{4})\b"
)
_HONORIFIC_RE = re.compile(r"\b(Dr|Mr|Mrs|Ms|Miss)\. ([A-Z][A-Za-z]+)")
SAFE_CAPS = {
    "i",
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "english",
    "american",
    "tv",
    "ok",
    "dvd",
}


def _detok(s: str) -> str:
    s = re.sub(r" ([,.;:?!)\]%])", r"\1", s)
    s = re.sub(r"([(\[]) ", r"\1", s)
    return re.sub(r" - ", "-", s)


def _proper_noun_filter(sentences: list[str]) -> list[str]:
    lower, caps = Counter(), Counter()
    tok = re.compile(r"[A-Za-z]+")
    for s in sentences:
        for i, m in enumerate(tok.finditer(s)):
            w = m.group()
            if w.islower():
                lower[w] += 1
            elif i > 0:
                caps[w.lower()] += 1
    keep = []
    for s in sentences:
        words = [m.group() for m in tok.finditer(s)][1:]
        if all(
            w.islower() or w.lower() in SAFE_CAPS or lower[w.lower()] >= 2 * caps[w.lower()] for w in words
        ):
            keep.append(s)
    return keep


def _doc_split(source: str, idx: int) -> str:
    r = zlib.crc32(f"{source}:{idx}".encode()) % 10
    return "train" if r < 7 else "dev" if r == 7 else "test"


def load_sources(pool: str, *, limit: int) -> dict[str, list[list[str]]]:
    """Documents (lists of sentences) of each text source in ``pool`` (train/dev/test/heldout)."""
    out: dict[str, list[list[str]]] = {}
    if pool == "heldout":
        with open(DATA / "ag-news" / "test.csv", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        docs = [_SENT_RE.split(re.sub(r"\\+", " ", r["description"])) for r in rows[:limit]]
        keep = set(_proper_noun_filter([s for d in docs for s in d]))
        out["ag-news"] = [[s for s in d if s in keep] for d in docs]
        out["ag-news"] = [d for d in out["ag-news"] if d]
        return out
    with gzip.open(DATA / "mtsamples" / "mtsamples.csv.gz", "rt", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    notes = []
    for i, r in enumerate(rows):
        t = r["transcription"].strip()
        if not t or _doc_split("mtsamples", i) != pool:
            continue
        t = re.sub(r",\s*([A-Z][A-Z /&]{2,}:)\s*,?", r"\n\1 ", t).lstrip(",\n ")
        notes.append([s for s in _SENT_RE.split(t) if s.strip()])
    out["mtsamples"] = notes[:limit]
    with lzma.open(DATA / "imdb" / "imdb_train.csv.xz", "rt", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        reviews = []
        for i, r in enumerate(reader):
            if i >= 12 * limit:
                break
            if _doc_split("imdb", i) == pool:
                reviews.append(_SENT_RE.split(re.sub(r"<br\s*/?>", " ", r["text"])))
    keep = set(_proper_noun_filter([s for d in reviews for s in d]))
    out["imdb"] = [d2 for d in reviews if (d2 := [s for s in d if s in keep])][:limit]
    sents = []
    with gzip.open(DATA / "biomed-sentences" / "biomed_sentences.txt.gz", "rt", encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i >= 40 * limit:
                break
            if _doc_split("biomed", i // 5) == pool and len(line) > 40 and not line.startswith("UI -"):
                sents.append(_detok(line.strip()))
    sents = _proper_noun_filter(sents)
    out["biomed"] = [sents[i : i + 5] for i in range(0, len(sents), 5)][:limit]
    return out


# -- generated PII --------------------------------------------------------------------------------
class Pii:
    """Generated PII values; names only from the locales and name halves the split allows."""

    def __init__(self, split: str, seed: int, *, pseudo_names: float = 0.0,
                 virtue_names: bool = False, group_pseudo: dict[str, float] | None = None,
                 blend_names: float = 0.0, blend_slots: bool = False) -> None:
        self.rng = np.random.default_rng(seed)
        self.split = split
        if (pseudo_names or virtue_names or group_pseudo or blend_names or blend_slots) and split != "train":
            raise SystemExit("--pseudo-names, --group-pseudo, --virtue-names and --blend-names are for "
                             "--split train only")
        # round 23: blends draw from their own stream, so every other draw is the same as without them
        self.blend_names = blend_names
        # round 24: blends only for the people of a document's frame (headers, speakers, greetings,
        # sign-offs, lists), never for mentions in running text
        self.blend_slots = blend_slots
        self.blend_rng = np.random.default_rng([seed, 23])
        self.blends: BlendNames | None = None
        self.group_pseudo = dict(group_pseudo or {})
        self.virtue_names = virtue_names
        self.pseudo_names = pseudo_names
        self.pseudo: dict[str, PseudoNames] = {}
        if split in ("train", "dev"):
            locales = [loc for loc in GROUPS if loc not in HELDOUT_LOCALES]
        elif split == "test-locales":
            locales = sorted(HELDOUT_LOCALES)
        elif split == "dev-locales":
            locales = sorted(DEV_LOCALES)
        elif split == "dev-africa":
            locales = sorted(loc for loc, g in DEV_LOCALES.items() if g != "african")
        else:
            locales = list(GROUPS)
        self.by_group: dict[str, list[str]] = {}
        for loc in locales:
            self.by_group.setdefault({**GROUPS, **DEV_LOCALES}[loc], []).append(loc)
        self.groups = sorted(self.by_group)
        self.fakers: dict[str, Faker] = {}
        for i, loc in enumerate(GROUPS):
            fk = Faker(loc)
            fk.seed_instance(seed * 1000 + i)
            self.fakers[loc] = fk
        self.pools: dict[str, dict[str, list[str]]] = {}
        if split == "dev-africa":
            data = json.loads(DEV_AFRICA.read_text(encoding="utf-8"))
            self.pools = {g: data[g] for g in ("african-south", "african-west")}
            for g in self.pools:
                self.by_group[g] = [g]
            self.groups = sorted(self.by_group)
        if split in ("dev-locales", "dev-africa"):
            for i, loc in enumerate(DEV_LOCALES):
                self.fakers[loc] = Faker(loc)
                self.fakers[loc].seed_instance(seed * 1000 + 500 + i)
        self.crapii: list[tuple[str, str]] = []
        if split == "test-crapii":  # every distinct name once (seeded order) before any repeats
            names = crapii_names(CRAPII)
            self.crapii = [names[i] for i in self.rng.permutation(len(names))]
        self.n_person = 0
        # the training half of the virtue names, less those reserved for test-names (heldout_name)
        self.virtues = [v for v in dict.fromkeys(VIRTUE_NAMES)
                        if not heldout_virtue(v) and not heldout_name(v)]
        self.us = self.fakers["en_US"]
        if "en_GB" not in self.fakers:
            self.fakers["en_GB"] = Faker("en_GB")
            self.fakers["en_GB"].seed_instance(seed * 1000 + 999)

    def _want_heldout(self, loc: str) -> bool | None:
        if self.split in ("train", "dev"):
            return False
        if self.split == "test-names":
            return None if loc in HELDOUT_LOCALES else True
        return None  # test-locales / test-text: any name of the chosen locale

    def _part(self, loc: str, kind: str, *, short: bool = False, frame: bool = False) -> str:
        if loc in self.pools:  # dev-africa: a faker-js pool (short names where it has any)
            pool = self.pools[loc][kind]
            if short and any(len(v) <= 4 for v in pool):
                pool = [v for v in pool if len(v) <= 4]
            return self.pick(pool)
        fk = self.fakers[loc]
        want = self._want_heldout(loc)
        for attempt in range(400):
            short = short and attempt < 200  # a locale with few short names: any length
            if kind == "first" and loc in ("zh_CN", "zh_TW") and (short or self.chance(0.4)):
                v = self.pick(SYLLABLES)
                if not short and self.chance(0.5):
                    v += self.pick(SYLLABLES).lower()
            elif loc in ROMANIZED:
                v = fk.first_romanized_name() if kind == "first" else fk.last_romanized_name()
                if v.isupper():
                    v = v.title()
            else:
                v = fk.first_name() if kind == "first" else fk.last_name()
            v = " ".join(v.split())
            if short and len(v) > 4:
                continue
            if self.virtue_names and v in VIRTUE_NAMES and heldout_virtue(v):
                continue  # the held-out half of the virtue names (some Faker locales have them)
            # a name with parts (Heinz-Walter, van de Pavert) is held out when any part is
            held = heldout_name(v) or any(heldout_name(x) for x in re.split(r"[- ]", v) if x)
            if v and (want is None or held == want):
                if self.pseudo_names and self.chance(self.pseudo_names):
                    return self._pseudo(kind)
                rate = self.group_pseudo.get(GROUPS.get(loc, ""), 0.0)
                if rate and self.chance(rate):
                    return self._pseudo(kind, GROUPS[loc])
                if (self.blend_names and (frame or not self.blend_slots)
                        and self.blend_rng.random() < self.blend_names):
                    if self.blends is None:
                        self.blends = BlendNames()
                    return self.blends.sample(self.blend_rng)
                return v
        raise RuntimeError(f"no {kind} name for {loc}")

    def _pseudo(self, kind: str, group: str | None = None) -> str:
        """A made-up name part from a trigram model of the split's names (of one group when given)."""
        cache = kind if group is None else f"{kind}:{group}"
        if cache not in self.pseudo:
            pool: list[str] = []
            groups = self.by_group.values() if group is None else [self.by_group[group]]
            for loc in (loc for locs in groups for loc in locs):
                for _ in range(150):
                    v = self.fakers[loc].first_name() if kind == "first" else self.fakers[loc].last_name()
                    if v.isalpha() and _title_case(v) and not heldout_name(v):
                        pool.append(v)
            self.pseudo[cache] = PseudoNames(pool)
        return self.pseudo[cache].sample(self.rng)

    def person(self, *, frame: bool = False) -> tuple[str, str, str]:
        """(first, last, group); ``test-crapii``: a CRAPII name and no group. ``frame``: a person of
        the document's frame (a header, speaker, greeting, sign-off or list entry), the only people
        whose name parts may be blends under ``--blend-slots``."""
        if self.split == "test-crapii":
            self.n_person += 1
            first, last = self.crapii[(self.n_person - 1) % len(self.crapii)]
            return first, last, None
        group = self.groups[self.rng.integers(len(self.groups))]
        locs = self.by_group[group]
        loc = locs[self.rng.integers(len(locs))]
        first = self._part(loc, "first", short=self.chance(0.25 if group == "east-asian" else 0.06),
                           frame=frame)
        if self.chance(0.08):  # compound given names (Jean-Pierre, Mei-Ling, Abdul-Rahman) in every culture
            second = self._part(loc, "first", frame=frame)
            first = f"{first}-{second if self.chance(0.5) else second.lower()}"
        if self.virtue_names and self.chance(0.2 if group == "african" else 0.03):
            first = self.pick(self.virtues)  # training only: word-like given names are names too
        return first, self._part(loc, "last", frame=frame), group

    def pick(self, items):
        return items[self.rng.integers(len(items))]

    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def email(self, first: str, last: str) -> str:
        ascii_ = lambda s: re.sub(r"[^a-z0-9]", "", _fold(s))  # noqa: E731
        user = self.pick(
            [
                f"{ascii_(first)}.{ascii_(last)}",
                f"{ascii_(first)[:1]}{ascii_(last)}",
                f"{ascii_(first)}{self.rng.integers(1, 99)}",
                f"{ascii_(last)}_{ascii_(first)}",
            ]
        )
        return (
            f"{user or 'user'}@{self.us.free_email_domain() if self.chance(0.6) else self.us.domain_name()}"
        )

    def url(self, first: str, last: str) -> str:
        f, l_ = re.sub(r"[^a-z]", "", _fold(first)), re.sub(r"[^a-z]", "", _fold(last))
        return self.pick(
            [
                self.us.url().rstrip("/"),
                f"https://www.linkedin.com/in/{f}-{l_}-{self.rng.integers(100, 999)}",
                f"https://github.com/{f}{l_}",
                f"www.{l_}{f}.com",
                f"https://{self.us.domain_name()}/~{f}",
                f"http://{self.us.domain_name()}/profile?id={self.rng.integers(1000, 99999)}",
            ]
        )

    def phone(self) -> str:
        if self.chance(0.5):
            loc = self.pick(list(GROUPS))
            return self.fakers[loc].phone_number()
        d = lambda n: "".join(str(x) for x in self.rng.integers(0, 10, n))  # noqa: E731
        return self.pick(
            [
                f"({d(3)}) {d(3)}-{d(4)}",
                f"{d(3)}-{d(3)}-{d(4)}",
                f"+1 {d(3)} {d(3)} {d(4)}",
                f"+44 {d(2)} {d(4)} {d(4)}",
                f"+234 {d(3)} {d(3)} {d(4)}",
                f"{d(3)}.{d(3)}.{d(4)}",
                f"+91 {d(5)} {d(5)}",
                f"0{d(2)} {d(3)} {d(4)}",
            ]
        )

    def ident(self) -> tuple[str, str]:
        d = lambda n: "".join(str(x) for x in self.rng.integers(0, 10, n))  # noqa: E731
        up = lambda n: "".join(chr(65 + x) for x in self.rng.integers(0, 26, n))  # noqa: E731
        return self.pick(
            [
                ("MRN", d(7)),
                ("MRN", f"{up(2)}{d(6)}"),
                ("SSN", f"{d(3)}-{d(2)}-{d(4)}"),
                ("student ID", f"S{d(7)}"),
                ("account number", d(10)),
                ("passport", f"{up(1)}{d(8)}"),
                ("member ID", f"{up(3)}{d(9)}"),
                ("medical record number", d(8)),
                ("insurance ID", f"{up(2)}-{d(4)}-{d(4)}"),
                ("case number", f"{d(4)}-{up(2)}-{d(5)}"),
                ("card number", self.us.credit_card_number()),
                ("card", " ".join(d(4) for _ in range(4))),
                ("IBAN", self.fakers[self.pick(["de_DE", "fr_FR", "nl_NL", "es_ES", "it_IT"])].iban()),
                ("driver's license", f"{up(1)}{d(7)}"),
                ("tax ID", f"{d(2)}-{d(7)}"),
            ]
        )

    def date(self) -> str:
        dt = self.us.date_between(start_date="-90y", end_date="+1y")
        return self.pick(
            [
                dt.strftime("%m/%d/%Y"),
                dt.strftime("%Y-%m-%d"),
                dt.strftime("%B %d, %Y"),
                dt.strftime("%d %b %Y"),
                f"{dt.month}/{dt.day}/{dt.strftime('%y')}",
                dt.strftime("%b %d"),
                dt.strftime("%d.%m.%Y"),
                dt.strftime("%A, %B %d"),
            ]
        ) + (self._clock() if self.chance(0.12) else "")

    def _clock(self) -> str:
        """A time of day attached to a date (a timestamp): part of the DATE span."""
        h, m, sec = (int(x) for x in self.rng.integers(0, [24, 60, 60]))
        return self.pick(
            [
                f" {h:02d}:{m:02d}:{sec:02d}",
                f" at {h % 12 + 1}:{m:02d} " + self.pick(["AM", "PM", "am", "pm"]),
                f" {h:02d}:{m:02d}",
            ]
        )

    def address(self) -> str:
        loc = self.pick(
            [
                "en_US",
                "en_US",
                "en_US",
                "en_IN",
                "de_DE",
                "fr_FR",
                "es_MX",
                "en_KE",
                "it_IT",
                "nl_NL",
                "ja_JP" if False else "en_US",
            ]
        )
        fk = self.fakers[loc]
        r = self.rng.random()
        if r < 0.08:
            return f"{fk.street_address()} and {self.us.street_name()}"
        if r < 0.12:
            return f"P.O. Box {self.rng.integers(1, 9999)}"
        if r < 0.16:
            return fk.street_address()
        return fk.address().replace("\n", ", ")

    def address_lines(self, prefix: str = "") -> str:
        """A postal address over several lines (street, unit, city, country + code)."""
        fk = self.fakers[self.pick(["en_US", "de_DE", "fr_FR", "it_IT", "nl_NL", "en_GB", "es_ES"])]
        lines = [fk.street_address()]
        if self.chance(0.5):
            lines.append(self.pick(["Apt. ", "Suite ", "apt. ", "Unit "]) + str(self.rng.integers(1, 999)))
        lines.append(fk.city() if self.chance(0.7) else fk.city().upper())
        lines.append(f"{fk.current_country()} {fk.postcode()}" if self.chance(0.6) else fk.postcode())
        return f"\n{prefix}".join(lines)

    def age(self) -> str:
        return str(int(self.rng.integers(1, 100)))

    def ip(self) -> str:
        return self.us.ipv4() if self.chance(0.8) else self.us.ipv6()


def _fold(s: str) -> str:
    import unicodedata

    return "".join(
        c for c in unicodedata.normalize("NFD", s) if not unicodedata.category(c).startswith("M")
    ).lower()


class Doc:
    """Builds a text from pieces and records the offsets of labelled pieces."""

    def __init__(self, case: Callable[[str], str]) -> None:
        self.parts: list[str] = []
        self.n = 0
        self.spans: list[dict] = []
        self.case = case
        self.traps: list[list[int]] = []
        self.swap: PronounSwap | None = None  # training only: pronouns in real text become names

    def add(self, text: str, label: str | None = None, group: str | None = None, *, case=None) -> Doc:
        text = (case or self.case)(text)
        if label is not None:
            span = {"start": self.n, "end": self.n + len(text), "label": label}
            if group is not None:
                span["group"] = group
            self.spans.append(span)
        self.parts.append(text)
        self.n += len(text)
        return self

    def real(self, sentence: str) -> Doc:
        """A real sentence, with its ages and dates labelled by pattern."""
        sentence = self.case(sentence)
        marks = [(m.start(1), m.end(1), "AGE") for m in _AGE_RE.finditer(sentence)]
        marks += [(m.start(), m.end(), "DATE") for m in _DATE_RE.finditer(sentence)]
        if self.swap is not None:
            marks += self.swap.choose(sentence, marks)
        pos = 0
        for a, b, label in sorted(marks):
            if a < pos:
                continue
            self.add(sentence[pos:a], case=str)
            if label == "SWAP" and self.swap is not None:
                self.swap.emit(self, sentence[a:b])
            else:
                self.add(sentence[a:b], label, case=str)
            pos = b
        return self.add(sentence[pos:], case=str)

    def record(self, ident: str, meta: dict) -> dict:
        return {
            "id": ident,
            "text": "".join(self.parts),
            "spans": self.spans,
            "meta": dict(meta, traps=self.traps),
        }


_PRONOUN_RE = re.compile(r"\b(?:he|she|him|they|them|the patient)\b", re.I)


class PronounSwap:
    """Training-only augmentation: a pronoun of a real sentence becomes a name (``he``, ``she``,
    ``him``, ``the patient`` -> one person; ``they``, ``them`` -> a coordination ``A and B``), so
    names appear in the syntactic positions of real text (subjects, objects, after prepositions),
    not only in the generator's templates. Possessive ``her`` is left alone."""

    def __init__(self, pii: Pii, rate: float = 0.35) -> None:
        self.pii = pii
        self.rate = rate

    def choose(self, sentence: str, marks: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
        found = [m for m in _PRONOUN_RE.finditer(sentence)
                 if not any(a < m.end() and m.start() < b for a, b, _ in marks)]
        if not found or not self.pii.chance(self.rate):
            return []
        m = found[int(self.pii.rng.integers(len(found)))]
        return [(m.start(), m.end(), "SWAP")]

    def emit(self, doc: Doc, word: str) -> None:
        pii = self.pii

        def one() -> None:
            first, last, group = pii.person()
            style = pii.pick(["full", "full", "first", "first", "last", "last_title", "initial"])
            if style == "last":
                doc.add(last, "NAME", group)
            else:
                _name(doc, pii, style, (first, last, group))

        one()
        if word.lower() in ("they", "them"):
            if pii.chance(0.3):
                doc.add(", ")
                one()
            doc.add(" and ")
            one()


def _name(doc: Doc, pii: Pii, style: str | None = None, person=None) -> tuple[str, str]:
    first, last, group = person or pii.person()
    style = style or pii.pick(["full", "full", "full", "first", "last_title", "initial", "comma", "upper"])
    if style == "first":
        doc.add(first, "NAME", group)
    elif style == "last_title":
        doc.add(pii.pick(["Dr. ", "Mr. ", "Mrs. ", "Ms. ", "Prof. "])).add(last, "NAME", group)
    elif style == "initial":
        doc.add(f"{first} {pii.pick('ABCDEFGHJKLMNPRSTW')}. {last}", "NAME", group)
    elif style == "comma":
        doc.add(f"{last}, {first}", "NAME", group)
    elif style == "upper":
        doc.add(f"{first} {last}".upper(), "NAME", group)
    else:
        doc.add(f"{first} {last}", "NAME", group)
    return first, last


#: names mentioned mid-sentence: coordinations, lists, speech verbs, possessives, vocatives, credits
MENTIONS = [
    "{A} and {B} worked on it together.",
    "The founders were {A}, {B} and {C}.",
    "\"We are not ready,\" says {A}.",
    "\"It will pass,\" said {A} to {B}.",
    "It was {A}'s idea from the start.",
    "Everyone liked {A}'s plan.",
    "Please add {A} as a contact.",
    "You left me {A}, and I waited.",
    "A film directed by {A} and starring {B}.",
    "This song by {A} is a favorite.",
    "As {A} points out, it is hard.",
    "Our colleague {A} disagreed.",
    "Her husband {A} called twice.",
    "{A} has been away for years.",
    "Ask {A} or {B} before noon.",
    "I met {A} yesterday.",
    "Nobody asked {A}, so {B} decided.",
    "The debate about {A} went on for years.",
    "Both {A} and {B} were engineers.",
    "Send the file to {A}, {B}, and {C}.",
    "{A} lives in the old part of town.",
    "{A} and {B} were nurses there.",
    "{A}, {B} and {C} started the company.",
    "It was settled between her and {A}'s family.",
    "Have you seen a {A} show before?",
    "Her maiden name is {A}.",
    "My name is {A} but everyone calls me {B}.",
    "We waited, but {A} just wanted to leave.",
    "Did you hear {A} speak yesterday?",
    "{A} thinks so too.",
]


def _mention(doc: Doc, pii: Pii) -> None:
    """A sentence naming one to three people, each as full name, given name or bare surname."""
    tpl = pii.pick(MENTIONS)
    for piece in re.split(r"(\{[ABC]\})", tpl):
        if piece in ("{A}", "{B}", "{C}"):
            first, last, group = pii.person()
            style = pii.pick(["full", "first", "last", "last", "last_title", "initial"])
            if style == "last":
                doc.add(last, "NAME", group)
            else:
                _name(doc, pii, style, (first, last, group))
        elif piece:
            doc.add(piece)


def _pii_sentence(doc: Doc, pii: Pii, first: str, last: str) -> None:
    kind = pii.pick(["email", "phone", "url", "id", "date", "address", "age", "ip", "name", "name"])
    if kind == "email":
        doc.add(pii.pick(["You can email me at ", "Email: ", "Contact ", "Please write to ", "my email is "]))
        doc.add(pii.email(first, last), "EMAIL").add(
            pii.pick([".", "", " if you have questions.", " anytime."])
        )
    elif kind == "phone":
        doc.add(
            pii.pick(
                [
                    "Call me at ",
                    "Phone: ",
                    "Her number is ",
                    "Reach the family at ",
                    "Tel. ",
                    "He can be reached on ",
                ]
            )
        )
        doc.add(pii.phone(), "PHONE").add(pii.pick([".", "", " after 5 pm.", " (mobile)."]))
    elif kind == "url":
        doc.add(pii.pick(["My portfolio: ", "See ", "Profile: ", "More at ", "my blog is "]))
        doc.add(pii.url(first, last), "URL").add(pii.pick(["", ".", " for details."]))
    elif kind == "id":
        what, value = pii.ident()
        doc.add(
            pii.pick(
                [
                    f"{what}: ",
                    f"Her {what} is ",
                    f"{what} # ",
                    f"Please quote {what} ",
                    f"My {what} ",
                    "I paid with ",
                    "The number ",
                    "Use ",
                    "Charge it to ",
                ]
            )
        )
        doc.add(value, "ID").add(pii.pick([".", "", " on all forms.", " was declined.", " is on file."]))
    elif kind == "date":
        doc.add(
            pii.pick(
                [
                    "Date of birth: ",
                    "DOB ",
                    "Seen on ",
                    "Admitted ",
                    "We met on ",
                    "Due date: ",
                    "Surgery is scheduled for ",
                ]
            )
        )
        doc.add(pii.date(), "DATE").add(pii.pick([".", "", " at the clinic."]))
    elif kind == "address" and pii.split == "train" and pii.chance(0.25):
        # training only (other splits draw no extra randomness): street corners and streets of
        # locales that write the number after the name, in running text
        fk = pii.fakers[pii.pick(["en_US", "de_DE", "fr_FR", "it_IT", "nl_NL", "es_ES", "sv_SE", "en_GB"])]
        if pii.chance(0.5):
            other = pii.fakers[pii.pick(["en_US", "de_DE", "nl_NL", "en_GB"])].street_name()
            doc.add(pii.pick(["It is at the corner of ", "Meet me on the corner of ",
                              "Turn right at the corner of ", "The office is at the corner of ",
                              "We live near the corner of "]))
            street = fk.street_address() if pii.chance(0.6) else fk.street_name()
            doc.add(" ".join(f"{street} and {other}".split()), "ADDRESS")
        else:
            doc.add(pii.pick(["The entrance is on ", "Parking is on ", "The shop is on ", "Turn left on ",
                              "Her office moved to "]))
            doc.add(" ".join(fk.street_address().split()), "ADDRESS")
        doc.add(pii.pick([".", "", " next week.", ", near the park."]))
    elif kind == "address" and pii.chance(0.15):
        doc.add(pii.pick(["My zip code is ", "ZIP: ", "Postal code ", "zip "]))
        doc.add(pii.fakers[pii.pick(["en_US", "de_DE", "fr_FR", "en_GB"])].postcode(), "ADDRESS").add(".")
    elif kind == "address" and pii.chance(0.15):
        first_, last_, group_ = pii.person()
        doc.add(first_ if pii.chance(0.6) else last_, "NAME", group_)
        doc.add(pii.pick([" lives on ", " moved to ", " works at "]))
        doc.add(pii.fakers["en_US"].street_address(), "ADDRESS")
        doc.add(".")
    elif kind == "address":
        doc.add(pii.pick(["Address: ", "She lives at ", "Send it to ", "Home address ", "We moved to "]))
        doc.add(pii.address(), "ADDRESS").add(pii.pick([".", "", " last year."]))
    elif kind == "age":
        a = pii.age()
        tpl = pii.pick(
            [
                "This is a {}-year-old patient.",
                "I am {} years old.",
                "Age: {}",
                "aged {},",
                "The {} y/o presented today.",
                "My son is {}.",
                "I'll turn {} next week.",
                "She just turned {}.",
                "He retired at the age of {}.",
                "It was written when she was {}.",
                "When I was {}, we moved.",
            ]
        )
        pre, post = tpl.split("{}")
        doc.add(pre).add(a, "AGE").add(post)
    elif kind == "ip":
        doc.add(pii.pick(["Login from IP ", "The server at ", "Blocked address "]))
        doc.add(pii.ip(), "IP").add(pii.pick([".", "", " was flagged."]))
    elif pii.chance(0.5):
        _mention(doc, pii)
    else:
        doc.add(
            pii.pick(["My friend ", "I talked to ", "According to ", "Thanks to ", "Ask ", "I sat next to "])
        )
        _name(doc, pii)
        doc.add(pii.pick([" about it.", ".", " yesterday.", ", who agreed.", " for help."]))


#: capitalized common nouns (values, subjects): not names, though capitalized mid-sentence (Hope, Grace
#: and Faith are left out; Wisdom, Patience and Freedom stay although VIRTUE_NAMES also uses some of
#: them as given names: in a list of values they are not names, in a name slot they are; round 6)
CAPS_WORDS = (  # noqa: SIM905
    "Wisdom Discipline Courage Honesty Patience Freedom Kindness Loyalty Respect Curiosity Integrity "
    "Chemistry History Biology Mathematics Design Marketing Finance"
).split()


#: head nouns of eponyms (made-up eponyms in training only; the test splits use held-out TRAPS)
EPONYM_HEADS = (  # noqa: SIM905
    "disease syndrome sign law theorem method principle maneuver test scale score procedure equation "
    "effect reflex criteria classification operation algorithm index"
).split()


def _caps(doc: Doc, pii: Pii) -> None:
    a, b = pii.pick(CAPS_WORDS), pii.pick(CAPS_WORDS)
    doc.add(pii.pick(["Words like {a} and {b} are often capitalized.", "We value {a}, {b} and teamwork.",
                      "The course covers {a} and {b}.", "Topics: {a}, {b}."]).format(a=a, b=b))


def _trap(doc: Doc, pii: Pii) -> None:
    if pii.chance(0.2):
        _caps(doc, pii)
        return
    traps = [t for t in TRAPS if heldout_trap(t) == pii.split.startswith("test")]
    pre, post = pii.pick(TRAP_TEMPLATES).split("{t}")
    doc.add(pre)
    if pii.split.startswith("test") or pii.chance(0.5):
        trap = pii.pick(traps)
    else:  # a made-up eponym from a training surname: the head noun, not the name, decides
        last = pii.person()[1]
        trap = pii.pick([f"{last}'s {pii.pick(EPONYM_HEADS)}", f"the {last} {pii.pick(EPONYM_HEADS)}",
                         f"{last} {pii.pick(EPONYM_HEADS)}"])
    doc.traps.append([doc.n, doc.n + len(doc.case(trap))])
    doc.add(trap).add(post)


def _body(doc: Doc, pii: Pii, sents: list[str], first: str, last: str, rate: float = 0.3) -> None:
    for s in sents:
        if s.strip():
            doc.real(s.strip())
            doc.add(" ")
        if pii.chance(rate):
            _pii_sentence(doc, pii, first, last)
            doc.add(" ")
        if pii.chance(0.08):
            _trap(doc, pii)
            doc.add(" ")


def make_clinical(doc: Doc, pii: Pii, sents: list[str]) -> None:
    first, last, group = pii.person(frame=True)
    if pii.chance(0.7):
        doc.add(pii.pick(["PATIENT NAME: ", "Patient: ", "Name: ", "PATIENT: "]))
        _name(doc, pii, pii.pick(["full", "comma", "upper"]), (first, last, group))
        doc.add("\n")
        for _ in range(int(pii.rng.integers(0, 4))):
            k = pii.pick(["DOB", "MRN", "DATE", "PHONE", "AGE"])
            doc.add(f"{k}: ")
            if k in ("DOB", "DATE"):
                doc.add(pii.date(), "DATE")
            elif k == "MRN":
                doc.add(pii.ident()[1], "ID")
            elif k == "PHONE":
                doc.add(pii.phone(), "PHONE")
            else:
                doc.add(pii.age(), "AGE")
            doc.add("\n")
    text = " ".join(sents)
    pos = 0
    for m in _HONORIFIC_RE.finditer(text):
        doc.real(text[pos : m.start(2)])
        if m.group(1) == "Dr":
            f2, l2, g2 = pii.person(frame=True)
            doc.add(l2, "NAME", g2)
        else:
            doc.add(last, "NAME", group)
        pos = m.end(2)
    rest = _SENT_RE.split(text[pos:])
    _body(doc, pii, rest, first, last, rate=0.15)
    if pii.chance(0.6):
        doc.add(pii.pick(["\nDictated by: Dr. ", "\nElectronically signed by ", "\nAttending: ", "\n\n"]))
        f2, l2, g2 = pii.person(frame=True)
        doc.add(f"{f2} {l2}", "NAME", g2)
        doc.add(pii.pick([", MD", ", M.D.", "", ", RN"]))
        if pii.chance(0.5):
            doc.add(" on ").add(pii.date(), "DATE")
        doc.add("\n")


def make_chat(doc: Doc, pii: Pii, sents: list[str]) -> None:
    a = pii.person(frame=True)
    b = pii.person(frame=True)
    role_a = pii.pick(["Dr. " + a[1], a[0], "Teacher", "Tutor", "Agent", a[0] + " " + a[1]])
    role_b = pii.pick(["Patient", b[0], "Student", "Customer", b[0]])
    turns = max(2, min(10, len(sents)))
    for i in range(turns):
        speaker, other = (role_a, b) if i % 2 == 0 else (role_b, a)
        who = a if i % 2 == 0 else b
        if speaker in ("Teacher", "Tutor", "Agent", "Patient", "Student", "Customer"):
            doc.add(speaker)
        elif speaker.startswith("Dr. "):
            doc.add("Dr. ").add(who[1], "NAME", who[2])
        elif " " in speaker:
            doc.add(speaker, "NAME", who[2])
        else:
            doc.add(speaker, "NAME", who[2])
        doc.add(pii.pick([": ", ": ", " - ", "> "]))
        if pii.chance(0.35):
            greet = pii.pick(["Hi ", "Thanks, ", "Thank you ", "Good morning ", "Okay ", "Sorry ", "Hey "])
            doc.add(greet)
            doc.add(other[0] if pii.chance(0.7) else other[0] + " " + other[1], "NAME", other[2])
            doc.add(pii.pick(["! ", ", ", ". ", "! "]))
        if i < len(sents):
            doc.real(sents[i].strip())
        if pii.chance(0.25):
            doc.add(" ")
            _pii_sentence(doc, pii, who[0], who[1])
        if pii.chance(0.05):
            doc.add(" ")
            _trap(doc, pii)
        doc.add("\n")


def make_essay(doc: Doc, pii: Pii, sents: list[str]) -> None:
    first, last, group = pii.person(frame=True)
    head = pii.pick(["name", "by", "block", "none"])
    if head == "name":
        doc.add(pii.pick(["Name: ", "Student: ", "Author: ", "NAME: "]))
        _name(doc, pii, pii.pick(["full", "full", "upper", "comma"]), (first, last, group))
        doc.add("\n")
        if pii.chance(0.5):
            doc.add("Date: ").add(pii.date(), "DATE").add("\n")
    elif head == "by":
        doc.add(pii.pick(["By ", "by ", "Written by ", "Essay by "]))
        _name(doc, pii, "full", (first, last, group))
        doc.add("\n\n")
    elif head == "block":
        _name(doc, pii, "full", (first, last, group))
        doc.add(pii.pick(["\nEnglish 101\n", "\nPeriod 3\n", "\n"]))
        doc.add(pii.date(), "DATE").add("\n\n")
    _body(doc, pii, sents, first, last, rate=0.12)
    if pii.chance(0.4):
        doc.add(pii.pick(["\n- ", "\n\nSincerely,\n", "\nCheers, ", "\n\nThanks,\n", "\n-- "]))
        _name(doc, pii, pii.pick(["full", "first"]), (first, last, group))
        if pii.chance(0.4):
            doc.add("\n").add(pii.email(first, last), "EMAIL")
        doc.add("\n")


def make_letter(doc: Doc, pii: Pii, sents: list[str]) -> None:
    first, last, group = pii.person(frame=True)
    doc.add(pii.pick(["Dear ", "Hello ", "Hi ", "To "]))
    _name(doc, pii, pii.pick(["first", "last_title", "full"]), pii.person(frame=True))
    doc.add(",\n\n")
    _body(doc, pii, sents[:4], first, last, rate=0.2)
    doc.add(pii.pick(["\n\nBest regards,\n", "\n\nKind regards,\n", "\n\nWarmly,\n", "\n\nYours,\n"]))
    _name(doc, pii, "full", (first, last, group))
    for kind in ("phone", "email", "address"):
        if pii.chance(0.4):
            doc.add("\n")
            if kind == "phone":
                doc.add(pii.phone(), "PHONE")
            elif kind == "email":
                doc.add(pii.email(first, last), "EMAIL")
            else:
                doc.add(pii.address_lines() if pii.chance(0.4) else pii.address(), "ADDRESS")
    doc.add("\n")


def make_list(doc: Doc, pii: Pii, sents: list[str]) -> None:
    if sents:
        doc.real(sents[0].strip()).add("\n")
    doc.add(pii.pick(["Attendees: ", "Team: ", "Participants: ", "Contacts:\n", "Group members:\n"]))
    n = int(pii.rng.integers(2, 6))
    bullet = pii.pick(["- ", "* ", "", "1. "])
    inline = bullet == "" and pii.chance(0.6)
    for i in range(n):
        p = pii.person(frame=True)
        if not inline:
            doc.add(bullet if bullet != "1. " else f"{i + 1}. ")
        _name(doc, pii, pii.pick(["full", "full", "first", "initial"]), p)
        if not inline and pii.chance(0.5):
            if pii.chance(0.5):
                doc.add(" (").add(pii.email(p[0], p[1]), "EMAIL").add(")")
            else:
                doc.add(", ").add(pii.phone(), "PHONE")
        doc.add(
            ", "
            if inline and i < n - 2
            else " and "
            if inline and i == n - 2
            else "\n"
            if not inline
            else ".\n"
        )


def make_request(doc: Doc, pii: Pii, sents: list[str]) -> None:
    first, last, group = pii.person(frame=True)
    for _ in range(int(pii.rng.integers(1, 4))):
        _pii_sentence(doc, pii, first, last)
        doc.add(" ")
    if sents and pii.chance(0.5):
        doc.real(sents[0].strip())


def make_form(doc: Doc, pii: Pii, sents: list[str]) -> None:
    """A contact card / form: field headers with values on the same or the next line."""
    first, last, group = pii.person(frame=True)
    prefix = pii.pick(["", "", "", "> ", "| "])
    sep = pii.pick([":\n", ": ", ":  "])
    _name(doc, pii, pii.pick(["full", "full", "upper"]), (first, last, group))
    doc.add("\n")
    if sents and pii.chance(0.5):
        doc.real(sents[0].strip()).add("\n")
    fields = ["Phone", "E-mail", "Website", "Address", "Mobile", "Date of birth", "Fax", "Email"]
    order = [fields[i] for i in pii.rng.permutation(len(fields))[: int(pii.rng.integers(2, 6))]]
    if pii.chance(0.4):
        doc.add(pii.pick(["Personal Info:\n", "Contact details\n", "Contact:\n"]))
    for field in order:
        doc.add(prefix + field + sep)
        if field in ("Phone", "Mobile", "Fax"):
            doc.add(pii.phone(), "PHONE")
        elif field in ("E-mail", "Email"):
            doc.add(pii.email(first, last), "EMAIL")
        elif field == "Website":
            doc.add(pii.url(first, last), "URL")
        elif field == "Date of birth":
            doc.add(pii.date(), "DATE")
        else:
            doc.add(pii.address_lines(prefix) if pii.chance(0.6) else pii.address(), "ADDRESS")
        doc.add(pii.pick(["\n", "\n\n"]))
    if len(sents) > 1:
        doc.real(sents[1].strip())


MAKERS = {
    "clinical": make_clinical,
    "chat": make_chat,
    "essay": make_essay,
    "letter": make_letter,
    "list": make_list,
    "request": make_request,
    "form": make_form,
}


def build(split: str, n: int, seed: int, *, pseudo_names: float = 0.0, virtue_names: bool = False,
          lower_share: float = 0.08, group_pseudo: dict[str, float] | None = None,
          blend_names: float = 0.0, blend_slots: bool = False) -> list[dict]:
    if split not in SPLITS:
        raise SystemExit(f"split must be one of {', '.join(SPLITS)}")
    if lower_share != 0.08 and split != "train":  # before the corpora are read
        raise SystemExit("--lower-share is for --split train only")
    pool = {"train": "train", "dev": "dev", "dev-locales": "dev", "dev-africa": "dev", "test-text": "heldout",
            "test-crapii": "heldout"}.get(split, "test")
    sources = load_sources(pool, limit=max(n, 200))
    pii = Pii(split, seed, pseudo_names=pseudo_names, virtue_names=virtue_names, group_pseudo=group_pseudo,
              blend_names=blend_names, blend_slots=blend_slots)
    names = sorted(sources)
    records = []
    for i in range(n):
        src = names[i % len(names)]
        docs = sources[src]
        sents = docs[int(pii.rng.integers(len(docs)))]
        if len(sents) > 8:
            a = int(pii.rng.integers(0, len(sents) - 8))
            sents = sents[a : a + int(pii.rng.integers(2, 9))]
        fmt = "clinical" if src == "mtsamples" and pii.chance(0.6) else pii.pick(list(MAKERS))
        r = pii.rng.random()
        case_name = "lower" if r < lower_share else "upper" if r < lower_share + 0.04 else "keep"
        case = {"lower": str.lower, "upper": str.upper, "keep": str}[case_name]
        doc = Doc(case)
        if split == "train":
            doc.swap = PronounSwap(pii)
        MAKERS[fmt](doc, pii, sents)
        records.append(doc.record(f"{split}-{seed}-{i}", {"source": src, "format": fmt, "case": case_name}))
    return records


def check(records: list[dict]) -> None:
    for r in records:
        for s in r["spans"]:
            piece = r["text"][s["start"] : s["end"]]
            assert piece and piece == piece.strip(), (r["id"], s)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", required=True, choices=SPLITS)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--pseudo-names", type=float, default=0.0,
                    help="training only: share of name parts replaced by made-up names (round 5)")
    ap.add_argument("--group-pseudo", action="append", default=[], metavar="GROUP=RATE",
                    help="training only: share of one group's name parts replaced by made-up names from "
                    "a trigram model of that group's names (round 10), repeatable")
    ap.add_argument("--virtue-names", action="store_true",
                    help="training only: virtue / word-like given names in name slots (rounds 4-6)")
    ap.add_argument("--lower-share", type=float, default=0.08,
                    help="training only: share of all-lower-case documents")
    ap.add_argument("--blend-names", type=float, default=0.0,
                    help="training only: share of name parts replaced by blends of two English words, "
                    "never a known name (round 23)")
    ap.add_argument("--blend-slots", action="store_true",
                    help="training only: blends only in the frame's name slots (headers, speakers, "
                    "greetings, sign-offs, lists), never in running text (round 24)")
    args = ap.parse_args(argv)
    group_pseudo: dict[str, float] = {}
    for item in args.group_pseudo:
        group, _, rate = item.partition("=")
        if group not in set(GROUPS.values()):
            ap.error(f"--group-pseudo: unknown group {group!r}")
        try:
            group_pseudo[group] = float(rate)
        except ValueError:
            ap.error(f"--group-pseudo: {item!r} is not GROUP=RATE")
    bounds = [("--pseudo-names", args.pseudo_names, 1.0), ("--lower-share", args.lower_share, 0.96),
              ("--blend-names", args.blend_names, 1.0),
              *((f"--group-pseudo {g}", r, 1.0) for g, r in group_pseudo.items())]
    for name, value, top in bounds:
        if not 0.0 <= value <= top:
            ap.error(f"{name} must be in [0, {top}], got {value}")
    if (args.pseudo_names or group_pseudo or args.virtue_names or args.lower_share != 0.08
            or args.blend_names or args.blend_slots) and args.split != "train":
        ap.error("--pseudo-names, --group-pseudo, --virtue-names, --lower-share, --blend-names and "
                 "--blend-slots are for --split train only")
    if args.blend_slots and not args.blend_names:
        ap.error("--blend-slots needs --blend-names RATE")
    records = build(args.split, args.n, args.seed, pseudo_names=args.pseudo_names,
                    virtue_names=args.virtue_names, lower_share=args.lower_share, group_pseudo=group_pseudo,
                    blend_names=args.blend_names, blend_slots=args.blend_slots)
    check(records)
    with open(args.output, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")  # ASCII escapes: no raw U+2028 for line-splitting readers
    labels = Counter(s["label"] for r in records for s in r["spans"])
    print(f"{len(records)} records, spans {dict(sorted(labels.items()))}", file=sys.stderr)
    return 0


def pin_hash_seed() -> None:
    """Re-run this process with ``PYTHONHASHSEED=0`` unless it already has it: Faker builds some of
    its lists from sets (it_IT cities), so without a fixed string hash the same seed gives different
    files from run to run."""
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, *sys.argv])


if __name__ == "__main__":
    pin_hash_seed()
    raise SystemExit(main())
