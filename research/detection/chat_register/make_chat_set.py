"""Training text in conversational register for the ``model`` detector (decision 0110).

The generator of the shipped model (``research/scripts/make_pii_set.py``) writes clinical notes,
essays, letters and lists around real sentences; its chats are two made-up speakers with short
greetings. Real chats are different: role labels (``Girl #1:``, ``Guy:``), fillers, lower-case
names, a name addressed at the start of a turn, third parties (``my boyfriend tomas``). This
script takes **real** conversational carrier text from ../shared/data and injects generated names
into it, in that register, span-labelled like the generator's records (``{id, text, spans, meta}``).

Carriers (only source documents that are in neither half of the real-text evaluation set;
``research/evaluation/build_set.py`` names them by its ``doc`` key, and this script skips every
``doc`` the set's dev or test records carry):

* NLTK webtext ``overheard.txt``: the paragraphs (``overheard:{offset}``) the set did not sample;
* NLTK webtext ``firefox.txt``: the 400-line blocks (``firefox:{n}``) the set has no chunk of;
* NLTK webtext ``singles.txt``: the ads (``singles:{line}``) the set did not sample;
* IMDB **train** reviews (the set reads ``imdb_test`` only).

The two scripts of NLTK webtext (``pirates``, ``grail``) are not used at all: the set's script
records come from their scenes and the characters recur across scenes. MTSamples is not used
here (the clinical register is the generator's own).

A carrier is dropped when it may hold an unlabelled personal name (a speaker label, or a
capitalized word inside a sentence, that reads as a name by ``embedanon.lexicon.name_like``), so
the real text never contradicts the labels; speaker labels that are roles stay unlabelled (they are
structure, decision 0101).

Names: ``make_pii_set.Pii("train")`` (the training locales of the shipped model and their
training half of the names, with its trigram pseudo-names), never the evaluation set's faker-js
names. Injections, per document: a role label becomes a name on all its turns; a name addressed at
the start or the end of a turn; a third party after a kinship noun or in place of a pronoun;
nicknames; all of a document's names in lower case at ``--lower-share``, and the whole text lower
case in ``--all-lower`` of the documents. Seeded.

    python research/detection/chat_register/make_chat_set.py --n 6000 --seed 4101 -o chat-4101.jsonl
"""

from __future__ import annotations

import argparse
import csv
import json
import lzma
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "research" / "scripts"))
import make_pii_set as mps  # noqa: E402

from embedanon.lexicon import name_like, weighty_name  # noqa: E402

EVAL = ROOT / "research" / "evaluation" / "realtext"

KIN = (r"(?:daughter|son|wife|husband|boyfriend|girlfriend|friend|brother|sister|mom|mother|dad|"
       r"father|boss|cousin|roommate|kid|baby|aunt|uncle|grandma|grandpa|nephew|niece|neighbor|"
       r"buddy|ex|partner|coworker|teacher|sweetheart|fiance|date|homie|bestie)")
KIN_RE = re.compile(rf"\b(?:[Mm]y|[Yy]our|[Hh]is|[Hh]er|[Oo]ur|[Tt]hat|[Tt]his) "
                    rf"(?:little |older |younger |best |new |old |stupid |crazy )?{KIN}s?\b")
PRONOUN_RE = re.compile(r"\b(?:he|she|him)\b")
LABEL_RE = re.compile(r"^([^:\n]{1,40}):[ \t]*", re.M)
WORD_RE = re.compile(r"[^\W\d_][\w'-]*")
#: openings of a turn that address someone (the name follows)
OPENERS = ("", "", "", "hey ", "Hey ", "oh ", "Oh ", "yo ", "Yo ", "dude, ", "Ok ", "okay ", "no, ",
           "Yeah ", "Listen, ", "Thanks ", "thank you ", "Hi ", "Sorry ", "Wait, ", "Shut up, ",
           "Um, ")
FORUM_TAILS = (" (reported by {n})", " - thanks {n}", " (patch by {n})", " [{n}]", ", see {n}'s comment",
               " (from {n})", " -- {n}", " (cc {n})", "; {n} says it works")
ADS_TAILS = (" Call {n} on {p}.", " Ask for {n}.", " Reply to {n}.", " Write to {n}, box {b}.",
             " Text {n} {p}.", " - {n}")


class Builder:
    """A text built piece by piece, with the offsets of the labelled pieces."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.n = 0
        self.spans: list[dict[str, Any]] = []

    def add(self, text: str, label: str | None = None, group: str | None = None) -> Builder:
        if label is not None and text:
            span: dict[str, Any] = {"start": self.n, "end": self.n + len(text), "label": label}
            if group:
                span["group"] = group
            self.spans.append(span)
        self.parts.append(text)
        self.n += len(text)
        return self

    def record(self, ident: str, meta: dict[str, Any], lower: bool) -> dict[str, Any]:
        text = "".join(self.parts)
        return {"id": ident, "text": text.lower() if lower else text, "spans": self.spans, "meta": meta}


def used_docs() -> set[str]:
    """The ``doc`` keys of the evaluation set's dev, dev2 and test records (never carriers here).
    The shipped model (decision 0110) was built before dev2 existed and used 85 of its transcripts
    as carriers (decision 0201); a rebuild skips them."""
    out = set()
    for split in ("dev", "dev2", "test"):
        for line in (EVAL / f"{split}.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.add(json.loads(line)["doc"])
    return out


def _webtext(name: str) -> str:
    with zipfile.ZipFile(mps.DATA / "nltk_data" / "corpora" / "webtext.zip") as z:
        return z.read(f"webtext/{name}").decode("latin-1")


def _strict(word: str) -> bool:
    return name_like(word) or weighty_name(word)


def may_hold_name(text: str, reads_as_name: Any = _strict) -> bool:
    """Whether a carrier may hold an unlabelled personal name: a speaker label with a capitalized
    word that ``reads_as_name``, or such a word inside a sentence (not its first word, not ``I``).
    The default is strict: a word that reads as a name (``lexicon.name_like``: rare words too) or
    a surname that 0.1 % of the US population bears (``Jackson``, ``Smith``); the forum's bug
    titles are read with
    ``weighty_name`` only (their rare capitalized words are products)."""
    for m in LABEL_RE.finditer(text):
        if any(w[:1].isupper() and reads_as_name(w) for w in WORD_RE.findall(m.group(1))):
            return True
    body = LABEL_RE.sub("", text)
    for sentence in re.split(r"(?<=[.!?])\s+|\n", body):
        words = WORD_RE.findall(sentence)
        for w in words[1:]:
            if (w[:1].isupper() and w not in ("I", "I'm", "I'll", "I've", "I'd")
                    and reads_as_name(w.strip("'-"))):
                return True
    return False


def overheard(used: set[str]) -> list[tuple[str, str]]:
    text = _webtext("overheard.txt")
    out = []
    for m in re.finditer(r"(?:[^\n]+\n?)+", text):
        block, doc = m.group(0).strip(), f"overheard:{m.start()}"
        if doc in used or not 8 <= len(block.split()) <= 150 or may_hold_name(block):
            continue
        out.append((doc, block))
    return out


def firefox(used: set[str]) -> list[tuple[str, str]]:
    lines = _webtext("firefox.txt").splitlines()
    out = []
    for s in range(0, len(lines) - 8, 8):
        doc = f"firefox:{s // 400}"
        chunk = "\n".join(lines[s : s + 8])
        if doc not in used and not may_hold_name(chunk, weighty_name):
            out.append((f"{doc}:{s}", chunk))
    return out


def singles(used: set[str]) -> list[tuple[str, str]]:
    out = []
    for i, line in enumerate(_webtext("singles.txt").splitlines()):
        doc = f"singles:{i}"
        if doc not in used and len(line.split()) >= 6 and not may_hold_name(line):
            out.append((doc, line))
    return out


def reviews(limit: int) -> list[tuple[str, str]]:
    """IMDB train reviews that have a kinship noun, cut to the sentences around it."""
    out = []
    with lzma.open(mps.DATA / "imdb" / "imdb_train.csv.xz", "rt", encoding="utf-8") as f:
        for i, row in enumerate(csv.DictReader(f)):
            text = re.sub(r"<br\s*/?>", " ", row["text"])
            m = KIN_RE.search(text)
            if not m:
                continue
            sents = re.split(r"(?<=[.!?])\s+", text)
            at = next(k for k, s in enumerate(sents) if KIN_RE.search(s))
            piece = " ".join(sents[max(0, at - 1) : at + 2])
            if 8 <= len(piece.split()) <= 120 and not may_hold_name(piece):
                out.append((f"imdb-train:{i}", piece))
            if len(out) >= limit:
                break
    return out


class Names:
    """Generated names in chat register (first names, nicknames, full names, surnames)."""

    def __init__(self, seed: int, pseudo: float) -> None:
        self.pii = mps.Pii("train", seed, pseudo_names=pseudo)
        self.rng = self.pii.rng

    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def pick(self, items: Any) -> Any:
        return items[int(self.rng.integers(len(items)))]

    def nickname(self, first: str) -> str:
        """A short form: the first syllable or two, sometimes with a pet ending (``Tomas`` -> ``Tom``,
        ``Tommy``)."""
        letters = re.sub(r"[^\w]", "", first)
        if len(letters) <= 4:
            return letters
        cut = int(self.rng.integers(3, 5))
        stem = letters[:cut]
        return stem + self.pick(("", "", "y", "ie", "i", "o", "s", "a"))

    def name(self, forms: tuple[str, ...] = ("first", "first", "first", "nick", "full")) -> tuple[str, str]:
        first, last, group = self.pii.person()
        form = self.pick(forms)
        value = {"first": first, "nick": self.nickname(first), "full": f"{first} {last}", "last": last}[form]
        return value, group


def chat_doc(names: Names, ident: str, doc: str, block: str, lower_share: float, all_lower: float) -> dict:
    """Turns of a real overheard conversation with names injected."""
    lower = names.chance(lower_share)
    cased = (lambda s: s.lower()) if lower else (lambda s: s)
    lines = block.split("\n")
    labels = [m.group(1) for line in lines if (m := LABEL_RE.match(line))]
    role_to_name: dict[str, tuple[str, str]] = {}
    if labels and names.chance(0.55):
        role = names.pick(sorted(set(labels)))
        value, group = names.name(("first", "first", "first", "nick", "full"))
        role_to_name[role] = (value if not lower else value.lower(), group)
    b = Builder()
    for k, line in enumerate(lines):
        if k:
            b.add("\n")
        m = LABEL_RE.match(line)
        body = line
        if m:
            label = m.group(1)
            if label in role_to_name:
                value, group = role_to_name[label]
                b.add(value, "NAME", group)
            else:
                b.add(label)
            b.add(line[m.end(1) : m.end()])
            body = line[m.end() :]
        if body and names.chance(0.22):  # addressed at the start of the turn
            value, group = names.name(("first", "first", "first", "nick", "nick", "full"))
            opener = names.pick(OPENERS)
            b.add(opener if not lower else opener.lower()).add(cased(value), "NAME", group)
            b.add(names.pick((", ", ", ", "! ", "... ", " - ")))
        tail = None
        if body and names.chance(0.08):  # addressed at the end
            mt = re.search(r"([.!?]+)\s*$", body)
            if mt:
                tail, body = mt.group(1), body[: mt.start()]
        add_body(names, b, body, cased)
        if tail is not None:
            value, group = names.name(("first", "first", "nick"))
            b.add(", ").add(cased(value), "NAME", group).add(tail)
    return b.record(ident, {"source": "overheard", "doc": doc, "format": "chat",
                            "case": "lower" if lower else "keep"},
                    lower=names.chance(all_lower))


def add_body(names: Names, b: Builder, body: str, cased: Any, kin: float = 0.65,
             pronoun: float = 0.12) -> None:
    """``body`` with third parties injected after kinship nouns and in place of some pronouns."""
    marks: list[tuple[int, int, str]] = []
    for m in KIN_RE.finditer(body):
        if names.chance(kin):
            marks.append((m.end(), m.end(), "kin"))
    for m in PRONOUN_RE.finditer(body):
        if names.chance(pronoun) and not any(a <= m.start() < c + 1 for a, c, _ in marks):
            marks.append((m.start(), m.end(), "pronoun"))
    pos = 0
    for a, c, kind in sorted(marks):
        if a < pos:
            continue
        b.add(body[pos:a])
        value, group = names.name(("first", "first", "nick", "full") if kind == "kin" else
                                  ("first", "first", "full", "last"))
        b.add(" " if kind == "kin" else "").add(cased(value), "NAME", group)
        pos = c
    b.add(body[pos:])


def forum_doc(names: Names, ident: str, doc: str, chunk: str, lower_share: float) -> dict:
    b = Builder()
    lower = names.chance(lower_share)
    for k, line in enumerate(chunk.split("\n")):
        if k:
            b.add("\n")
        b.add(line)
        if names.chance(0.12):
            value, group = names.name(("first", "full", "full", "nick"))
            head, _, rest = names.pick(FORUM_TAILS).partition("{n}")
            b.add(head).add(value.lower() if lower else value, "NAME", group).add(rest)
    return b.record(ident, {"source": "firefox", "doc": doc, "format": "forum"}, lower=False)


def ads_doc(names: Names, ident: str, doc: str, line: str) -> dict:
    b = Builder().add(line)
    value, group = names.name(("first", "first", "nick"))
    tail = names.pick(ADS_TAILS)
    for piece in re.split(r"(\{[npb]\})", tail):
        if piece == "{n}":
            b.add(value, "NAME", group)
        elif piece == "{p}":
            b.add(names.pii.phone(), "PHONE")
        elif piece == "{b}":
            b.add(str(int(names.rng.integers(100, 9999))))
        else:
            b.add(piece)
    return b.record(ident, {"source": "singles", "doc": doc, "format": "ads"}, lower=False)


def review_doc(names: Names, ident: str, doc: str, text: str, lower_share: float) -> dict:
    b = Builder()
    lower = names.chance(lower_share)
    add_body(names, b, text, (lambda s: s.lower()) if lower else (lambda s: s), kin=0.8, pronoun=0.0)
    return b.record(ident, {"source": "imdb-train", "doc": doc, "format": "review"}, lower=False)


def build(n: int, seed: int, *, lower_share: float, all_lower: float, pseudo: float) -> list[dict]:
    used = used_docs()
    carriers = {"overheard": overheard(used), "firefox": firefox(used), "singles": singles(used),
                "imdb": reviews(2000)}
    names = Names(seed, pseudo)
    shares = {"overheard": 0.7, "firefox": 0.1, "singles": 0.05, "imdb": 0.15}
    out = []
    for kind, share in shares.items():
        pool = carriers[kind]
        order = names.rng.permutation(len(pool))
        for i in range(int(round(n * share))):
            doc, text = pool[int(order[i % len(pool)])]
            ident = f"chat-{seed}-{kind}-{i}"
            if kind == "overheard":
                rec = chat_doc(names, ident, doc, text, lower_share, all_lower)
            elif kind == "firefox":
                rec = forum_doc(names, ident, doc, text, 0.5)
            elif kind == "singles":
                rec = ads_doc(names, ident, doc, text)
            else:
                rec = review_doc(names, ident, doc, text, 0.2)
            out.append(rec)
    order = names.rng.permutation(len(out))
    records = [out[int(i)] for i in order]
    mps.check(records)
    return records


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=6000)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--lower-share", type=float, default=0.4, help="documents whose names are lower case")
    ap.add_argument("--all-lower", type=float, default=0.1, help="documents lower-cased whole")
    ap.add_argument("--pseudo-names", type=float, default=0.1)
    ap.add_argument("--stats", action="store_true", help="print carrier counts")
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    mps.pin_hash_seed()
    records = build(args.n, args.seed, lower_share=args.lower_share, all_lower=args.all_lower,
                    pseudo=args.pseudo_names)
    with open(args.output, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    labels: dict[str, int] = {}
    for r in records:
        for s in r["spans"]:
            labels[s["label"]] = labels.get(s["label"], 0) + 1
    print(f"{len(records)} records, spans {labels}", file=sys.stderr)


if __name__ == "__main__":
    main()
