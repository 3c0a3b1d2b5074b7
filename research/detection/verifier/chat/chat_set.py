"""Private persons' names injected into real conversational text, for the verifier (decision 0233).

Real text: the blocks of NLTK webtext ``overheard.txt`` (12-90 words, 2+ speaker labels) whose
source document falls on the dev side of the evaluation set's split (``build_set.split_of``) and
that neither dev nor dev2 holds; the test half is never read. Into each block, one or two names
of private persons (the evaluation set's pools, ``inject.person`` / ``inject.nickname``, culture
groups as there) go into real positions, in the register of chat: a speaker label, an addressee
at a turn's start or end, a vocative, a title (``Dr. <surname>``), a bare turn (``Kemi?``), in
place of a pronoun as subject or object, a possessive (``Kemi's``), after a kin word, after
``with``; in a third of the blocks the names are lower case, in a sixth the whole block is.

The real private persons the blocks name (read by hand in the audit of 0225, ``real_names.py``)
are gold too; public figures, characters and every other candidate are not. Written by a helper
for the chat audit of 0225 and moved here unchanged but for its paths.

    python research/detection/verifier/chat/chat_set.py -o chat.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
EVAL = ROOT / "research" / "evaluation"
sys.path.insert(0, str(EVAL))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import build_set as bs  # noqa: E402
import inject as inj  # noqa: E402
from build_set import KIN_RE  # noqa: E402
from real_names import PRIVATE, PUBLIC  # noqa: E402

SEED = 20260301
FORM_W = (("first", 0.6), ("nick", 0.15), ("full", 0.15), ("last", 0.10))
VOC = r"dude|man|honey|sweetie|baby|bro|girl|buddy|babe|sweetheart|kid|son|mom|dad|lady|guys"
TITLE_VOC = r"sir|ma'am|miss|doc|doctor|officer"
INTERJ = r"what|yeah|yes|no|hey|huh|ok|okay|oh|wait|really|hello|hi|um|uh|sorry|what\?!"
SHAPES = ("label", "addr_start", "addr_end", "vocative", "title", "bare_turn", "pron_subj",
          "pron_obj", "possessive", "kin", "with_x")


def pick_form(rng, allowed=("first", "nick", "full", "last")):
    fs = [(f, w) for f, w in FORM_W if f in allowed]
    x, acc = rng.random() * sum(w for _, w in fs), 0.0
    for f, w in fs:
        acc += w
        if x <= acc:
            return f
    return fs[-1][0]


def name_str(p, form):
    return {"full": f"{p.first} {p.last}", "first": p.first, "last": p.last,
            "nick": inj.nickname(p.first)}[form]


def candidates(text):
    """shape -> list of (start, end, kind-info) positions in the original text."""
    c = {s: [] for s in SHAPES}
    labels = [(m.start(1), m.end(1), m.group(1)) for m in re.finditer(r"^([^:\n/]{1,40}):(?=\s)", text, re.M)]
    roles = sorted({lab for _, _, lab in labels if len(lab.split()) <= 3})
    for r in roles:
        c["label"].append((None, None, r))
    for m in re.finditer(r"^[^:\n/]{1,40}: (?=\S)", text, re.M):
        c["addr_start"].append((m.end(), m.end(), None))
    # sentence-final ? or ! (or .) at end of a turn / sentence, word char before it
    for m in re.finditer(r"(?<=[a-z])([?!.])(?=\s*(?:\n|$)|\s+[A-Z])", text):
        c["addr_end"].append((m.start(), m.start(), m.group(1)))
    after = (r"(?:(?<=, )|(?<=^)|(?<=: )|(?<=\bhey )|(?<=\byo )|(?<=\boh )|(?<=\bthanks )"
             r"|(?<=\bbye )|(?<=\bhi ))")
    for m in re.finditer(rf"{after}({VOC})\b(?=\s*[,.!?])", text, re.M | re.I):
        c["vocative"].append((m.start(1), m.end(1), m.group(1).lower()))
    for m in re.finditer(rf"(?:(?<=, )|(?<=: )|(?<=^))({TITLE_VOC})\b(?=\s*[,.!?])", text, re.M | re.I):
        c["title"].append((m.start(1), m.end(1), m.group(1).lower()))
    for m in re.finditer(r"\bthe (doctor|teacher|nurse)\b", text, re.I):
        c["title"].append((m.start(), m.end(), m.group(1).lower()))
    for m in re.finditer(rf"^[^:\n/]{{1,40}}: ((?:{INTERJ})[?!.]*)\s*$", text, re.M | re.I):
        c["bare_turn"].append((m.start(1), m.end(1), m.group(1)))
    for m in re.finditer(r"\b([Hh]e|[Ss]he)\b(?!')", text):
        c["pron_subj"].append((m.start(), m.end(), m.group(1)))
    for m in re.finditer(r"\b(?:(with|to|for|at|about|and|like|from) )?(him|her)\b(?=\s*(?:[.,!?;]|$|\n|"
                         r"(?:that|to|about|if|and|so|in|on|at|for|out|up|back|again|too|anymore|yet)\b))",
                         text):
        c["with_x" if m.group(1) else "pron_obj"].append((m.start(2), m.end(2), m.group(1) or "verb"))
    for m in re.finditer(r"\b([Hh]is)\b(?= [a-z])", text):
        c["possessive"].append((m.start(), m.end(), "his"))
    for m in KIN_RE.finditer(text):
        c["kin"].append((m.end(), m.end(), m.group(0).split()[-1]))
    return c


def inject_block(rng, rec, shape_weight):
    text = rec["text"]
    mode = rng.choices(("mixed", "lower_names", "all_lower"), (0.55, 0.30, 0.15))[0]
    cands = {s: v for s, v in candidates(text).items() if v}
    edits, taken = [], []

    def free(a, b):
        return all(b <= x or a >= y for x, y in taken) and not any(x <= a < y for x, y in taken)

    n_inj = rng.choice((1, 2, 2))
    avail = list(cands)
    for _ in range(n_inj):
        avail = [s for s in avail if cands.get(s)]
        if not avail:
            break
        shape = rng.choices(avail, [shape_weight[s] for s in avail])[0]
        avail.remove(shape)
        p = inj.person(rng, inj.pick_group(rng))
        lower = mode == "lower_names"
        a, b, info = rng.choice(cands[shape])
        meta = {"shape": shape, "group": p.group}
        if shape == "label":
            form = pick_form(rng, ("first", "nick", "full"))
            occ = [(m.start(1), m.end(1)) for m in re.finditer(r"^([^:\n/]{1,40}):(?=\s)", text, re.M)
                   if m.group(1) == info]
            if not all(free(x, y) for x, y in occ):
                continue
            nm = name_str(p, form)
            for x, y in occ:
                edits.append((x, y, "", nm.lower() if lower else nm, "", dict(meta, form=form, info=info)))
                taken.append((x, y))
            continue
        if not free(a, b) or (a == b and any(x < a < y or a == x for x, y in taken)):
            continue
        if shape == "title":
            t = {"doctor": "Dr. ", "doc": "Dr. ", "nurse": "Nurse ", "officer": "Officer ", "sir": "Mr. ",
                 "ma'am": "Mrs. ", "miss": "Ms. "}.get(info, rng.choice(("Mr. ", "Ms. ", "Mrs. ")))
            nm = p.last
            pre, post, form = t, "", "title"
        else:
            form = pick_form(rng, ("first", "nick") if shape in ("vocative", "addr_start", "addr_end",
                                                                 "bare_turn") else
                             ("first", "nick", "full", "last"))
            nm = name_str(p, form)
            pre = post = ""
            if shape == "addr_start":
                post = ", "
            elif shape == "addr_end":
                pre = ", "
            elif shape == "kin":
                pre = " "
            elif shape == "possessive":
                post = "'s"
            elif shape == "bare_turn":
                post = re.sub(r"^[A-Za-z']+", "", info) or rng.choice(("!", "?", "."))
        if lower:
            nm = nm.lower()
        if shape == "addr_start" and rng.random() < 0.6:  # lower the next word as a chat writer would
            nxt = re.match(r"[A-Z][a-z]+\b", text[a:])
            if nxt and nxt.group(0) not in ("I", "Im"):
                edits.append((a, a + 1, "", text[a].lower(), "", None))
                taken.append((a, a + 1))
        meta.update(form=form, info=info)
        edits.append((a, b, pre, nm, post, meta))
        taken.append((a, b) if b > a else (a, a + 1e-9))
    if not edits:
        return None
    # apply
    edits.sort(key=lambda e: (e[0], e[1], e[5] is None))
    out, spans, pos, length = [], [], 0, 0
    for a, b, pre, nm, post, meta in edits:
        out.append(text[pos:a])
        length += a - pos
        if meta is not None:
            s = length + len(pre)
            spans.append(dict(start=s, end=s + len(nm), label="NAME", **meta))
        piece = pre + nm + post
        out.append(piece)
        length += len(piece)
        pos = b
    out.append(text[pos:])
    new = "".join(out)
    if mode == "all_lower":
        if len(new.lower()) != len(new):
            mode = "lower_names"
        else:
            new = new.lower()
    for s in spans:
        s["mode"] = mode
        s["name"] = new[s["start"]:s["end"]]
        s["accented"] = any(ord(ch) > 127 for ch in s["name"])
    return {"id": rec["doc"], "doc": rec["doc"], "text": new, "spans": spans, "mode": mode}


def blocks() -> list[dict[str, str]]:
    """The dev-side overheard blocks neither dev nor dev2 holds (never reads the test half)."""
    used = {json.loads(line)["doc"] for name in ("dev.jsonl", "dev2.jsonl")
            for line in (EVAL / "realtext" / name).read_text(encoding="utf-8").splitlines() if line.strip()}
    text, out = bs._webtext("overheard.txt"), []
    for m in re.finditer(r"(?:[^\n]+\n?)+", text):
        block = m.group(0).strip()
        if 12 <= len(block.split()) <= 90 and len(bs.SAMPLE_LABEL_RE.findall(block)) >= 2:
            doc = f"overheard:{m.start()}"
            if bs.split_of(doc) == "dev" and doc not in used:
                out.append({"doc": doc, "text": block})
    return out


def _word_re(names: set[str], flags: int = 0) -> re.Pattern[str]:
    alternation = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![\w'-])(?:{alternation})(?![\w-])", flags)


def real_spans(rec: dict) -> list[dict]:
    """Gold spans of the real private persons the block names (outside public names and injections)."""
    flags = re.IGNORECASE if rec["mode"] == "all_lower" else 0
    text, taken = rec["text"], [(s["start"], s["end"]) for s in rec["spans"]]
    taken += [m.span() for m in _word_re(PUBLIC, flags).finditer(text)]
    out = []
    for m in _word_re(PRIVATE, flags).finditer(text):
        a, b = m.span()
        if all(b <= x or a >= y for x, y in taken):
            out.append({"start": a, "end": b, "label": "NAME", "origin": "real"})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--out", type=Path, required=True, help="span JSONL to write")
    args = ap.parse_args()
    chosen = blocks()
    total = {s: 0 for s in SHAPES}
    for r in chosen:
        for s, v in candidates(r["text"]).items():
            total[s] += bool(v)
    # shapes weighted inversely to how many blocks offer them (balance), capped
    shape_weight = {s: 1.0 / max(total[s], 15) for s in SHAPES}
    records = []
    for r in chosen:
        rec = inject_block(random.Random(f"{SEED}:{r['doc']}"), r, shape_weight)
        if rec is None:
            continue
        for s in rec["spans"]:
            assert rec["text"][s["start"]:s["end"]] == s["name"]
            s["origin"] = "injected"
        spans = sorted(rec["spans"] + real_spans(rec), key=lambda s: s["start"])
        records.append({"id": rec["id"], "doc": rec["doc"], "text": rec["text"], "spans": spans,
                        "register": "chat-injected", "source": "nltk-webtext/overheard", "mode": rec["mode"]})
    with args.out.open("w", encoding="utf-8") as f:
        for rec in records:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    origin = Counter(s["origin"] for rec in records for s in rec["spans"])
    shapes = Counter(s.get("shape", "real") for rec in records for s in rec["spans"])
    print(f"{len(chosen)} blocks, {len(records)} records, gold {dict(origin)}; shapes {dict(shapes)}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
