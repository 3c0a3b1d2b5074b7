"""Build the real-text evaluation set: real public text, PII injected in the register of the text,
real PII annotated by hand (``annotations.txt``), split dev / test by source document.

    python research/evaluation/build_set.py            # writes realtext/{dev,test}.jsonl
    python research/evaluation/build_set.py --review   # prints records for hand review (no write)

Records: ``{"id", "text", "spans": [{"start", "end", "label", "group"?, "origin"}], "register",
"source", "doc", "reviewed"}``; ``origin`` is ``injected`` (known by construction) or ``real`` (in
the public text, annotated by hand); ``group`` is the culture group of an injected name.

Everything is a pure function of ``SEED`` and the files in ../shared/data: each record draws from
``random.Random(f"{SEED}:{id}")``.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import lzma
import random
import re
import sys
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import os  # noqa: E402

import inject as inj  # noqa: E402
from inject import Edit, Piece  # noqa: E402

#: ../shared/data beside the checkout (or inside it), or $EMBEDANON_SHARED_DATA
DATA = next((p for p in (Path(os.environ.get("EMBEDANON_SHARED_DATA", "/nonexistent")),
                         HERE.parents[1] / "shared" / "data", HERE.parents[2] / "shared" / "data",
                         Path("/work/shared/data")) if p.is_dir()), HERE.parents[1] / "shared" / "data")
SEED = 20250731
#: dev / test by a hash of the source document (``doc``) and this salt: roughly 50/50
SPLIT_SALT = "evalset-split-1"
OUT = HERE / "realtext"

#: register -> (source, number of records)
PLAN = {
    "transcript": ("nltk-webtext/overheard", 130),
    "script": ("nltk-webtext/pirates+grail", 90),
    "forum": ("nltk-webtext/firefox", 50),
    "ads": ("nltk-webtext/singles", 60),
    "clinical": ("mtsamples", 110),
    "review": ("imdb", 60),
    "news": ("ag-news", 60),
    "abstract": ("pubmed-5term", 40),
    "question": ("nltk-qc", 40),
}
#: registers whose text may not ship outside research/ (licence doubt, see README.md)
NO_SHIP = {"clinical", "review", "news", "abstract", "question", "transcript", "script", "forum", "ads"}

KIN = r"(?:daughter|son|wife|husband|boyfriend|girlfriend|friend|brother|sister|mom|mother|dad|father|" \
      r"boss|cousin|roommate|kid|baby|aunt|uncle|grandma|grandmother|grandpa|nephew|niece|neighbor|" \
      r"buddy|ex|partner|teacher|coworker)"
KIN_RE = re.compile(
    rf"\b(?:[Mm]y|[Yy]our|[Hh]is|[Hh]er|[Oo]ur) (?:little |older |younger |best |new |old )?{KIN}\b")
#: reviews: only the reviewer's own people (``her father`` there is usually a film character)
OWN_KIN_RE = re.compile(rf"\b(?:[Mm]y|[Oo]ur) (?:little |older |younger |best |new |old )?{KIN}\b")
TIME_RE = re.compile(r"\b(?:tomorrow|tonight|yesterday|last night|next week|last week|this weekend|"
                     r"last summer|next month|last month|last year)\b")
LABEL_RE = re.compile(r"^([^:\n/]{1,40}):(?=\s)", re.M)
#: the looser pattern the records were sampled with (kept: the sample must not move)
SAMPLE_LABEL_RE = re.compile(r"^([^:\n]{1,40}):", re.M)


#: a filter on a register's pool before sampling (the dev extension: ``build_dev2.py``); it gets the
#: pool and a function giving an item's source document, and returns the items to sample from
Picker = Callable[[list, Callable[[Any], str]], list] | None


def _rng(rid: str) -> random.Random:
    return random.Random(f"{SEED}:{rid}")


def _webtext(name: str) -> str:
    with zipfile.ZipFile(DATA / "nltk_data" / "corpora" / "webtext.zip") as z:
        return z.read(f"webtext/{name}").decode("latin-1")


def _sample(rng: random.Random, items: list, n: int) -> list:
    return rng.sample(items, min(n, len(items)))


# -- registers ------------------------------------------------------------------------------------
def transcripts(n: int, pick: Picker = None) -> Iterator[dict]:
    text = _webtext("overheard.txt")
    blocks = []
    for m in re.finditer(r"(?:[^\n]+\n?)+", text):
        block = m.group(0).strip()
        words = len(block.split())
        if 12 <= words <= 90 and len(SAMPLE_LABEL_RE.findall(block)) >= 2:
            blocks.append((m.start(), block))
    if pick:
        blocks = pick(blocks, lambda b: f"overheard:{b[0]}")
    for offset, block in sorted(_sample(random.Random(SEED), blocks, n)):
        rid = f"ovh-{offset:06d}"
        yield _record(rid, "transcript", "nltk-webtext/overheard", f"overheard:{offset}", block,
                      _inject_turns(_rng(rid), block, lower_share=0.35))


def _inject_turns(rng: random.Random, text: str, *, lower_share: float, script: bool = False) -> list[Edit]:
    """Chat/transcript injections: a role label becomes a name (all its turns), a name addressed at
    the start of a turn, a third party after a kinship noun, a spoken or written date."""
    edits: list[Edit] = []
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= x or a >= y for x, y in taken)

    def push(a: int, b: int, piece: Piece) -> None:
        edits.append(Edit(a, b, piece))
        taken.append((a, b))

    labels = [(m.start(1), m.end(1), m.group(1)) for m in LABEL_RE.finditer(text)]
    roles = sorted({lab for _, _, lab in labels
                    if (script and re.fullmatch(r"[A-Z #0-9]+", lab)
                        and ("#" in lab or lab.split()[0] in ROLE_WORDS))
                    or (not script and len(lab.split()) <= 3)})
    lower = rng.random() < lower_share
    if roles and rng.random() < (0.5 if not script else 0.6):
        role = rng.choice(roles)
        p = inj.person(rng, inj.pick_group(rng))
        form = rng.choice(("first", "first", "nick", "full"))
        for a, b, lab in labels:
            if lab == role:
                piece = inj.name_piece(rng, p, form=form, lower=lower)
                if script:
                    piece = Piece().add(piece.text.upper(), "NAME", p.group)
                push(a, b, piece)
    turns = [m for m in re.finditer(r"^[^:\n/]{1,40}: (?=\S)", text, re.M)
             if m.group(0).split(":")[0] not in ("From", "To", "Subject", "Scene")]
    if turns and rng.random() < 0.45:
        t = rng.choice(turns)
        if free(t.end(), t.end()):
            p = inj.person(rng, inj.pick_group(rng))
            form = rng.choice(("first", "first", "first", "nick"))
            piece = inj.name_piece(rng, p, form=form, lower=lower)
            push(t.end(), t.end(), piece.add(", "))
    for m in KIN_RE.finditer(text):
        if rng.random() < 0.7 and free(m.end(), m.end()):
            p = inj.person(rng, inj.pick_group(rng))
            form = rng.choice(("first", "first", "first", "nick", "full"))
            push(m.end(), m.end(), Piece().add(" ").add(inj.name_piece(rng, p, form=form, lower=lower).text,
                                                             "NAME", p.group))
    for m in TIME_RE.finditer(text):
        if rng.random() < 0.5 and free(m.start(), m.end()):
            push(m.start(), m.end(), Piece().add("on ").add(inj.date_text(rng, spoken_share=0.5), "DATE"))
    return edits


ROLE_WORDS = {"SOLDIER", "GUARD", "MAN", "WOMAN", "OLD", "KNIGHT", "MONK", "CROWD", "VILLAGER", "WITCH",
              "PIRATE", "SAILOR", "MARINE", "CREWMAN", "FATHER", "MOTHER", "PRISONER", "GUEST", "BROTHER",
              "MINSTREL", "CUSTOMER", "DINGO", "HEAD", "ENCHANTER", "PAGE", "BRIDGEKEEPER", "CHARACTER",
              "CART", "DEAD", "LARGE", "FRENCH", "NARRATOR", "VOICE", "GIRLS", "BOTH", "ALL", "GUARDS"}


def scripts(n: int, pick: Picker = None) -> Iterator[dict]:
    windows = []
    for name in ("pirates.txt", "grail.txt"):
        lines = _webtext(name).splitlines()
        scene = 0
        for i, line in enumerate(lines):
            if re.match(r"(?i)^scene\b", line):
                scene += 1
            if i % 7 == 0 and i:
                chunk = "\n".join(lines[i : i + 7]).strip()
                if len(SAMPLE_LABEL_RE.findall(chunk)) >= 3 and 20 <= len(chunk.split()) <= 140:
                    windows.append((name, scene, i, chunk))
    if pick:
        windows = pick(windows, lambda w: f"{w[0][:-4]}:scene{w[1]}")
    for name, scene, i, chunk in sorted(_sample(random.Random(SEED + 1), windows, n)):
        rid = f"scr-{name[:3]}-{i:05d}"
        yield _record(rid, "script", f"nltk-webtext/{name[:-4]}", f"{name[:-4]}:scene{scene}", chunk,
                      _inject_turns(_rng(rid), chunk, lower_share=0.0, script=True))


def forum(n: int, pick: Picker = None) -> Iterator[dict]:
    lines = _webtext("firefox.txt").splitlines()
    starts = list(range(0, len(lines) - 8, 8))
    if pick:
        starts = pick(starts, lambda s: f"firefox:{s // 400}")
    for s in sorted(_sample(random.Random(SEED + 2), starts, n)):
        chunk = "\n".join(lines[s : s + 8])
        rid = f"ffx-{s:05d}"
        rng, edits = _rng(rid), []
        for m in re.finditer(r"^.*$", chunk, re.M):
            line = m.group(0)
            roll = rng.random()
            if re.search(r"\b(?:site|page|website|link|URL|url)s?\b", line) and roll < 0.35:
                p = inj.person(rng, inj.pick_group(rng))
                edits.append(Edit(m.end(), m.end(),
                                  Piece().add(" (e.g. ").add(inj.url_text(rng, p), "URL").add(")")))
            elif re.search(r"(?i)\bmail\b|e-mail|email", line) and roll < 0.6:
                p = inj.person(rng, inj.pick_group(rng))
                edits.append(Edit(m.end(), m.end(),
                                  Piece().add(" - sent to ").add(inj.email_text(rng, p), "EMAIL")))
            elif roll < 0.08:
                p = inj.person(rng, inj.pick_group(rng))
                who = inj.name_piece(rng, p, form=rng.choice(("first", "full", "nick")),
                                     lower=rng.random() < 0.5)
                edits.append(Edit(m.end(), m.end(),
                                  Piece().add(" (reported by ").add(who.text, "NAME", p.group).add(")")))
        yield _record(rid, "forum", "nltk-webtext/firefox", f"firefox:{s // 400}", chunk, edits)


def ads(n: int) -> Iterator[dict]:
    lines = [(i, line) for i, line in enumerate(_webtext("singles.txt").splitlines())
             if len(line.split()) >= 8]
    for i, line in sorted(_sample(random.Random(SEED + 3), lines, n)):
        rid = f"ads-{i:03d}"
        rng = _rng(rid)
        p = inj.person(rng, inj.pick_group(rng))
        roll, piece = rng.random(), Piece()
        if roll < 0.3:
            piece.add(" Call ").add(inj.name_piece(rng, p, form="first").text, "NAME", p.group).add(" on ") \
                .add(inj.phone_text(rng), "PHONE")
        elif roll < 0.55:
            piece.add(" Email ").add(inj.email_text(rng, p), "EMAIL")
        elif roll < 0.75:
            piece.add(" - ") \
                .add(inj.name_piece(rng, p, form=rng.choice(("first", "nick"))).text, "NAME", p.group) \
                .add(", ").add(rng.choice(inj.CITIES), "LOCATION")
        edits = [Edit(len(line), len(line), piece)] if piece.text else []
        yield _record(rid, "ads", "nltk-webtext/singles", f"singles:{i}", line, edits)


def _mtsamples() -> list[dict[str, str]]:
    with gzip.open(DATA / "mtsamples" / "mtsamples.csv.gz", "rt", encoding="utf-8") as f:
        return [r for r in csv.DictReader(f) if r["transcription"].strip()]


def _clinical_text(raw: str) -> str:
    """MTSamples' flattened headers (``,HEADER:,``) back on lines of their own."""
    text = re.sub(r"\s*,\s*(?=[A-Z][A-Z0-9 /&()\-]{2,}:)", "\n", raw)
    text = re.sub(r":\s*,\s*", ": ", text)
    text = re.sub(r"\.,(?=\S)", ". ", text)
    return re.sub(r"[ \t]{2,}", " ", text).strip()


PLACEHOLDER_RE = re.compile(r"\b(Dr|Mr|Mrs|Ms|Miss)\. (X{1,4}|Y|Z|XYZ|ABC|Abc|Xyz|Abcd|[A-Z])\b(?![\w.])")


def clinical(n: int) -> Iterator[dict]:
    rows = _mtsamples()
    pick = random.Random(SEED + 4)
    with_slots = [r for r in rows if PLACEHOLDER_RE.search(r["transcription"])]
    others = [r for r in rows if not PLACEHOLDER_RE.search(r["transcription"])
              and re.search(r"\b\d+-year-old\b", r["transcription"])]
    chosen = _sample(pick, with_slots, n // 2) + _sample(pick, others, n - n // 2)
    for r in sorted(chosen, key=lambda r: int(r["note_id"])):
        text = _clinical_text(r["transcription"])
        m = PLACEHOLDER_RE.search(text) or re.search(r"\b\d+-year-old\b", text)
        excerpt = _window(text, m.start() if m else 0, 110)
        rid = f"mts-{int(r['note_id']):04d}"
        yield _record(rid, "clinical", "mtsamples", f"mtsamples:{r['note_id']}", excerpt,
                      _inject_clinical(_rng(rid), excerpt))


def _window(text: str, around: int, words: int) -> str:
    """About ``words`` words of ``text`` from the sentence or line before ``around``."""
    start = max(text.rfind("\n", 0, around), max(text.rfind(". ", 0, around), 0))
    start = 0 if start <= 0 else start + 1
    if around - start > 500:
        start = around
    tokens = list(re.finditer(r"\S+", text[start:]))
    if len(tokens) <= words:
        return text[start:].strip()
    end = start + tokens[words - 1].end()
    stop = re.search(r"[.\n]", text[end:])
    end = end + stop.end() if stop and stop.start() < 200 else end
    return text[start:end].strip()


def _inject_clinical(rng: random.Random, text: str) -> list[Edit]:
    edits: list[Edit] = []
    patient = inj.person(rng, inj.pick_group(rng))
    for m in PLACEHOLDER_RE.finditer(text):
        title = m.group(1)
        p = patient if title != "Dr" else inj.person(rng, inj.pick_group(rng))
        value = p.last if rng.random() < 0.8 else f"{p.first} {p.last}"
        edits.append(Edit(m.start(2), m.end(2), Piece().add(value, "NAME", p.group)))
    kin = re.search(r"\b(?:his|her) (?:wife|husband|daughter|son|mother|father|sister|brother)\b", text)
    if kin and rng.random() < 0.8:
        p = inj.person(rng, inj.pick_group(rng))
        same = rng.random() < 0.5
        piece = Piece().add(", ").add(p.first + (f" {patient.last}" if same else ""), "NAME", p.group)
        if rng.random() < 0.3:
            piece.add(" (").add(inj.phone_text(rng), "PHONE").add(")")
        edits.append(Edit(kin.end(), kin.end(), piece.add(",")))
    if not PLACEHOLDER_RE.search(text):
        first = re.search(r"\b(?:The|This) patient\b", text)
        if first and rng.random() < 0.7:
            title = rng.choice(("Mr.", "Ms.", "Mrs."))
            edits.append(Edit(first.start(), first.end(),
                              Piece().add(f"{title} ").add(patient.last, "NAME", patient.group)))
    head = Piece()
    roll = rng.random()
    if roll < 0.35:
        head.add("PATIENT: ").add(f"{patient.last.upper()}, {patient.first.upper()}", "NAME", patient.group) \
            .add("\nMRN: ").add(inj.mrn_text(rng), "ID") \
            .add("\nDATE OF SERVICE: ").add(inj.date_text(rng, spoken_share=0), "DATE").add("\n")
    elif roll < 0.55:
        org = inj.org_text(rng, inj.HOSPITAL_SHAPES, inj.person(rng, inj.pick_group(rng)))
        head.add("Seen at ").add(org, "ORGANIZATION").add(" on ").add(inj.date_text(rng), "DATE").add(".\n")
    if head.text:
        edits.append(Edit(0, 0, head))
    lives = re.search(r"\b(?:lives|resides)\b[^.\n]{0,40}", text)
    if lives and rng.random() < 0.8:
        edits.append(Edit(lives.end(), lives.end(),
                          Piece().add(" in ").add(rng.choice(inj.CITIES), "LOCATION")))
    works = re.search(r"\bworks (?:as|at|for)\b[^.\n,]{0,30}", text)
    if works and rng.random() < 0.8:
        org = inj.org_text(rng, inj.EMPLOYER_SHAPES, inj.person(rng, inj.pick_group(rng)))
        edits.append(Edit(works.end(), works.end(), Piece().add(" at ").add(org, "ORGANIZATION")))
    return _drop_overlaps(edits)


def _drop_overlaps(edits: list[Edit]) -> list[Edit]:
    out: list[Edit] = []
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        if out and e.start < out[-1].end:
            continue
        if out and e.start == out[-1].start == out[-1].end == e.end:
            continue
        out.append(e)
    return out


def reviews(n: int) -> Iterator[dict]:
    rows = []
    with lzma.open(DATA / "imdb" / "imdb_test.csv.xz", "rt", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            t = r["text"].replace("<br /><br />", "\n").replace("<br />", " ")
            if 40 <= len(t.split()) <= 160 and (KIN_RE.search(t) or TIME_RE.search(t)):  # the sample
                rows.append((r["id"], r["label"], t))
    for rid_, label, t in sorted(_sample(random.Random(SEED + 5), rows, n)):
        rid = f"imdb-{label}-{rid_}"
        rng = _rng(rid)
        edits: list[Edit] = []
        for m in OWN_KIN_RE.finditer(t):
            if rng.random() < 0.75:
                p = inj.person(rng, inj.pick_group(rng))
                edits.append(Edit(m.end(), m.end(), Piece().add(" ").add(
                    inj.name_piece(rng, p, form=rng.choice(("first", "first", "nick", "full")),
                                   lower=rng.random() < 0.15).text, "NAME", p.group)))
        for m in TIME_RE.finditer(t):
            if rng.random() < 0.5:
                edits.append(Edit(m.start(), m.end(), Piece().add("on ").add(inj.date_text(rng), "DATE")))
        cinema = re.search(r"\b(?:in|at) the (?:theater|theatre|cinema|movies)\b", t)
        if cinema and rng.random() < 0.8:
            edits.append(Edit(cinema.end(), cinema.end(),
                              Piece().add(" in ").add(rng.choice(inj.CITIES), "LOCATION")))
        yield _record(rid, "review", "imdb", f"imdb:{label}:{rid_}", t, _drop_overlaps(edits))


def news(n: int) -> Iterator[dict]:
    rows = []
    with open(DATA / "ag-news" / "test.csv", encoding="utf-8") as f:
        for i, r in enumerate(csv.DictReader(f)):
            t = f"{r['title']}\n{r['description']}".replace("\\", " ")
            t = re.sub(r" #36;", " $", t)
            rows.append((i, t))
    pick = random.Random(SEED + 6)
    slot = re.compile(r"\b(?:[Aa]|[Oo]ne) (?:man|woman|resident|teenager|student|worker|boy|girl|mother|"
                      r"father|nurse|farmer|shopper|fan|driver|teacher|soldier|employee|customer)\b")
    with_slot = [r for r in rows if slot.search(r[1])]
    chosen = _sample(pick, with_slot, n // 2) + _sample(pick, [r for r in rows if not slot.search(r[1])],
                                                         n - n // 2)
    for i, t in sorted(chosen):
        rid = f"agn-{i:04d}"
        rng = _rng(rid)
        edits = []
        m = slot.search(t)
        if m and rng.random() < 0.9:
            p = inj.person(rng, inj.pick_group(rng))
            piece = Piece().add(", ").add(f"{p.first} {p.last}", "NAME", p.group)
            if rng.random() < 0.6:
                piece.add(", ").add(str(rng.randint(19, 97)), "AGE")
            if rng.random() < 0.5:
                piece.add(", of ").add(rng.choice(inj.CITIES), "LOCATION")
            edits.append(Edit(m.end(), m.end(), piece.add(",")))
        yield _record(rid, "news", "ag-news", f"agnews:{i}", t, edits)


def abstracts(n: int) -> Iterator[dict]:
    with open(DATA / "pubmed-5term" / "pubmed.csv", encoding="utf-8") as f:
        rows = [(i, r["abstract"]) for i, r in enumerate(csv.DictReader(f)) if r["abstract"].strip()]
    for i, t in sorted(_sample(random.Random(SEED + 7), rows, n)):
        sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z])", t)
        excerpt = " ".join(sentences[:4])
        rid = f"pub-{i:04d}"
        rng = _rng(rid)
        edits = []
        case = re.search(r"\b(?:a|an) \d+-year-old (?:man|woman|boy|girl|male|female|patient)\b", excerpt)
        if case and rng.random() < 0.9:
            org = inj.org_text(rng, inj.HOSPITAL_SHAPES, inj.person(rng, inj.pick_group(rng)))
            edits.append(Edit(case.end(), case.end(), Piece().add(" admitted to ").add(org, "ORGANIZATION")
                              .add(" on ").add(inj.date_text(rng, spoken_share=0), "DATE")))
        yield _record(rid, "abstract", "pubmed-5term", f"pubmed:{i}", excerpt, edits)


def questions(n: int) -> Iterator[dict]:
    with zipfile.ZipFile(DATA / "nltk_data" / "corpora" / "qc.zip") as z:
        lines = z.read("qc/train.txt").decode("latin-1").splitlines()
    qs = [line.split(" ", 1)[1] for line in lines if " " in line]
    starts = list(range(0, len(qs) - 5, 5))
    for s in sorted(_sample(random.Random(SEED + 8), starts, n)):
        rid = f"trec-{s:04d}"
        yield _record(rid, "question", "nltk-qc", f"qc:{s}", "\n".join(qs[s : s + 5]), [])


def _record(rid: str, register: str, source: str, doc: str, text: str, edits: list[Edit]) -> dict:
    new, spans = inj.apply_edits(text, edits)
    return {"id": rid, "text": new, "spans": spans, "register": register, "source": source, "doc": doc}


REGISTERS: dict[str, Callable[[int], Iterator[dict]]] = {
    "transcript": transcripts, "script": scripts, "forum": forum, "ads": ads, "clinical": clinical,
    "review": reviews, "news": news, "abstract": abstracts, "question": questions,
}


# -- hand annotations -----------------------------------------------------------------------------
def read_annotations(path: Path) -> dict[str, list[tuple[str, str, int | None]]]:
    """``annotations.txt``: ``ID | LABEL surface[#k]; LABEL surface ...`` (``ID |`` alone: reviewed,
    no real PII). ``#k`` picks the k-th occurrence (1-based); without it every whole-word occurrence.
    ``-LABEL surface`` removes an injected span (none so far). Lines starting with ``#`` are notes."""
    out: dict[str, list[tuple[str, str, int | None]]] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        rid, _, rest = line.partition("|")
        items = []
        for item in filter(None, (x.strip() for x in rest.split(";"))):
            label, _, surface = item.partition(" ")
            k = None
            if re.search(r"#\d+$", surface):
                surface, _, kk = surface.rpartition("#")
                k = int(kk)
            if not surface:
                raise SystemExit(f"annotations.txt line {n}: empty surface in {item!r}")
            items.append((label, surface, k))
        if rid.strip() in out:
            raise SystemExit(f"annotations.txt line {n}: {rid.strip()} twice")
        out[rid.strip()] = items
    return out


def add_real(record: dict, items: list[tuple[str, str, int | None]]) -> None:
    """Hand annotations: every whole occurrence of ``surface`` (or the ``#k``-th); ``X@Y``: the
    first ``X`` inside each occurrence of ``Y`` (``43@43-year-old``). An occurrence that overlaps
    a span already there (an injected one) is skipped: it is annotated once."""
    text = record["text"]
    for label, surface, k in items:
        inner, _, context = surface.partition("@")
        context = context or inner
        # a number is whole when no digit touches it (``57`` in ``57YRS``); a word when no letter does
        edge = (r"(?<![0-9])", r"(?![0-9])") if context.isdigit() else (r"(?<!\w)", r"(?!\w)")
        hits = [m.start() + context.index(inner)
                for m in re.finditer(edge[0] + re.escape(context) + edge[1], text)]
        if not hits:
            raise SystemExit(f"{record['id']}: {context!r} not in the text")
        if k is not None:
            hits = [hits[k - 1]]
        for h in hits:
            span = {"start": h, "end": h + len(inner), "label": label, "origin": "real"}
            if any(span["start"] < s["end"] and s["start"] < span["end"] for s in record["spans"]):
                continue
            record["spans"].append(span)
    record["spans"].sort(key=lambda s: (s["start"], s["end"]))


def add_lexicon(record: dict, items: list[tuple[str, str, int | None]]) -> None:
    """A source's lexicon (``@SOURCE | LABEL surface; ...``: the characters and places of a script,
    decided once by reading all its records): every case-sensitive whole-word occurrence not already
    inside a span, longest surfaces first."""
    text = record["text"]
    for label, surface, _ in sorted(items, key=lambda x: -len(x[1])):
        for m in re.finditer(r"(?<!\w)" + re.escape(surface) + r"(?!\w)", text):
            if any(m.start() < s["end"] and s["start"] < m.end() for s in record["spans"]):
                continue
            record["spans"].append({"start": m.start(), "end": m.end(), "label": label, "origin": "real"})
    record["spans"].sort(key=lambda s: (s["start"], s["end"]))


def print_review(records: list[dict], notes: dict, register: str, ids: str | None,
                 detector: Any = None) -> None:
    """Print the records of ``register`` (only ``ids``, comma-separated, when given) for hand
    review: id, whether ``notes`` has it, the injected spans, the detector's spans when one is
    given (a reading aid), the text."""
    for r in records:
        if r["register"] != register or (ids and r["id"] not in ids.split(",")):
            continue
        marks = ", ".join(f"{r['text'][s['start']:s['end']]}={s['label']}" for s in r["spans"])
        print(f"=== {r['id']} [{'reviewed' if r['id'] in notes else 'open'}] inj: {marks}")
        if detector is not None:
            found = ", ".join(f"{r['text'][s.start:s.end]}={s.label}" for s in detector.detect(r["text"]))
            print(f"--- candidates: {found}")
        print(r["text"])


def split_of(doc: str) -> str:
    return "dev" if zlib.crc32(f"{SPLIT_SALT}:{doc}".encode()) % 2 == 0 else "test"


def build() -> list[dict]:
    records = []
    for register, (_, n) in PLAN.items():
        records.extend(REGISTERS[register](n))
    ids = [r["id"] for r in records]
    assert len(ids) == len(set(ids)), "duplicate ids"
    return records


def fp_records(used: set[str]) -> list[dict]:
    """The false-positive benchmark: about 3,000 words per source of real text with no private PII
    (none of it in dev or test): TREC test questions, AG News and PubMed excerpts (public actors,
    study periods), and MTSamples procedure sections of notes with no title + name, no date and no
    age pattern (names of people cannot occur in them)."""
    pick = random.Random(SEED + 9)
    out: list[dict] = []
    with zipfile.ZipFile(DATA / "nltk_data" / "corpora" / "qc.zip") as z:
        qs = [line.split(" ", 1)[1] for line in z.read("qc/test.txt").decode("latin-1").splitlines()
              if " " in line]
    for i in range(0, len(qs), 10):
        out.append({"id": f"fp-trec-{i:03d}", "source": "trec-test", "text": "\n".join(qs[i : i + 10])})
    with open(DATA / "ag-news" / "test.csv", encoding="utf-8") as f:
        rows = [(i, f"{r['title']}\n{r['description']}".replace("\\", " "))
                for i, r in enumerate(csv.DictReader(f))]
    words = 0
    for i, t in pick.sample(rows, 400):
        if f"agnews:{i}" in used or words >= 3000:
            continue
        out.append({"id": f"fp-agn-{i:04d}", "source": "ag-news", "text": t})
        words += len(t.split())
    with open(DATA / "pubmed-5term" / "pubmed.csv", encoding="utf-8") as f:
        rows = [(i, r["abstract"]) for i, r in enumerate(csv.DictReader(f)) if r["abstract"].strip()]
    words = 0
    for i, t in pick.sample(rows, 200):
        if f"pubmed:{i}" in used or words >= 3000 or re.search(r"\d+-year-old", t):
            continue
        t = " ".join(re.split(r"(?<=[.!?])\s+(?=[A-Z])", t)[:6])
        out.append({"id": f"fp-pub-{i:04d}", "source": "pubmed", "text": t})
        words += len(t.split())
    words = 0
    notes = _mtsamples()
    for r in pick.sample(notes, 600):
        text = _clinical_text(r["transcription"])
        m = re.search(r"^(?:DESCRIPTION OF (?:THE )?PROCEDURE|PROCEDURE IN DETAIL|OPERATIVE PROCEDURE|"
                      r"PROCEDURE DETAILS?|FINDINGS|IMPRESSION)S?: ?(.+)$", text, re.M)
        if not m or f"mtsamples:{r['note_id']}" in used or words >= 3000:
            continue
        body = m.group(1)
        if re.search(r"\b(?:Dr|Mr|Mrs|Ms|Miss)\.? |\d+/\d+|\d+-year-old|January|February|March|April|June|"
                     r"July|August|September|October|November|December", body) or len(body.split()) < 40:
            continue
        body = " ".join(body.split()[:150])
        out.append({"id": f"fp-mts-{int(r['note_id']):04d}", "source": "mtsamples-procedure", "text": body})
        words += len(body.split())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--review", metavar="REGISTER", help="print the records of one register for review")
    ap.add_argument("--ids", help="with --review: only these ids (comma-separated)")
    args = ap.parse_args()
    records = build()
    notes = read_annotations(HERE / "annotations.txt")
    if args.review:
        print_review(records, notes, args.review, args.ids)
        return
    missing = [r["id"] for r in records if r["id"] not in notes]
    for r in records:
        if r["id"] in notes:
            add_real(r, notes[r["id"]])
            add_lexicon(r, notes.get("@" + r["source"], []))
            r["reviewed"] = True
        else:
            r["reviewed"] = False
    OUT.mkdir(exist_ok=True)
    for part in ("dev", "test"):
        rows = [r for r in records if split_of(r["doc"]) == part]
        tmp = OUT / f".{part}.jsonl.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        tmp.replace(OUT / f"{part}.jsonl")
        print(f"{part}: {len(rows)} records, {sum(len(r['spans']) for r in rows)} spans")
    fp = fp_records({r["doc"] for r in records})
    with open(OUT / "fp_benchmark.jsonl", "w", encoding="utf-8") as f:
        for r in fp:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"fp_benchmark: {len(fp)} records, {sum(len(r['text'].split()) for r in fp)} words")
    if missing:
        print(f"NOT REVIEWED: {len(missing)} records ({', '.join(missing[:5])} ...)")


if __name__ == "__main__":
    main()
