"""research/scripts/make_pii_set.py: offsets match the text, names carry their group, held-out names and
locales never reach the training splits (no ../shared data: the layouts get sentences written here)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from embedanon.detectors.base import LABELS

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "make_pii_set.py"
SENTENCES = [
    "The patient was seen in clinic for a cough.",
    "A 45-year-old woman reported pain on 03/04/2020.",
    "This movie was long but the music was lovely.",
    "Results were compared to a control group.",
    "We discussed the plan and she agreed.",
    "No fever was noted.",
    "He will return in two weeks.",
]


@pytest.fixture(scope="module")
def mps():
    spec = importlib.util.spec_from_file_location("make_pii_set", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _docs(mps, split: str, n: int = 150, seed: int = 1) -> list[dict]:
    pii = mps.Pii(split, seed)
    out = []
    for i in range(n):
        fmt = list(mps.MAKERS)[i % len(mps.MAKERS)]
        case = [str, str.lower, str.upper][i % 3]
        doc = mps.Doc(case)
        mps.MAKERS[fmt](doc, pii, SENTENCES[: 2 + i % 5])
        out.append(doc.record(f"{split}-{i}", {"format": fmt}))
    return out


@pytest.mark.parametrize("split", ["train", "test-names", "test-locales"])
def test_spans_match_text_and_names_carry_groups(mps, split):
    docs = _docs(mps, split)
    mps.check(docs)
    labels = set()
    for r in docs:
        for s in r["spans"]:
            assert 0 <= s["start"] < s["end"] <= len(r["text"]) and s["label"] in LABELS
            labels.add(s["label"])
            if s["label"] == "NAME":
                assert s["group"] in set(mps.GROUPS.values())
        for a, b in r["meta"]["traps"]:
            assert not any(s["start"] < b and a < s["end"] for s in r["spans"])
    assert {"NAME", "EMAIL", "PHONE", "DATE", "AGE"} <= labels
    # a pattern-labelled age and date inside a real sentence
    assert any(
        r["text"][s["start"] : s["end"]] == "45" and s["label"] == "AGE" for r in docs for s in r["spans"]
    )


def test_training_split_never_sees_held_out_names_or_locales(mps):
    pii = mps.Pii("train", 3)
    for locs in pii.by_group.values():
        assert not set(locs) & mps.HELDOUT_LOCALES
    for _ in range(300):
        first, last, _group = pii.person()
        parts = [*first.split("-"), last]  # a compound given name joins two training names
        assert not any(mps.heldout_name(p) for p in parts)
    test = mps.Pii("test-names", 3)
    held = sum(mps.heldout_name(test.person()[0]) for _ in range(300))
    assert held > 150  # seen locales give only held-out names there; held-out locales give any
    only = mps.Pii("test-locales", 3)
    assert set(loc for locs in only.by_group.values() for loc in locs) == set(mps.HELDOUT_LOCALES)
    # the development diagnostic of unseen cultures shares no locale with training or the test sets
    diag = mps.Pii("dev-locales", 3)
    used = set(loc for locs in diag.by_group.values() for loc in locs)
    assert used == set(mps.DEV_LOCALES) and not used & set(mps.GROUPS)
    assert not set(mps.DEV_LOCALES) & set(loc for locs in pii.by_group.values() for loc in locs)


def test_dev_africa_names_come_from_its_own_pools_and_no_faker_locale(mps):
    import json

    pools = json.loads(mps.DEV_AFRICA.read_text(encoding="utf-8"))
    pii = mps.Pii("dev-africa", 4)
    assert {"african-south", "african-west"} <= set(pii.groups) and "african" not in pii.groups
    assert not {loc for locs in pii.by_group.values() for loc in locs} & set(mps.GROUPS)
    seen = {"african-south": 0, "african-west": 0}
    for _ in range(400):
        first, last, group = pii.person()
        if group in seen:
            seen[group] += 1
            assert all(p.title() in pools[group]["first"] for p in first.split("-"))
            assert last in pools[group]["last"]
    assert min(seen.values()) > 40
    # the pools share no name with the Faker locales of any other split (training ones included)
    from faker import Faker

    for loc in [*mps.GROUPS, *mps.DEV_LOCALES]:
        fk = Faker(loc)
        fk.seed_instance(0)
        drawn = {fk.first_name() for _ in range(200)} | {fk.last_name() for _ in range(200)}
        for group in seen:
            assert not drawn & (set(pools[group]["first"]) | set(pools[group]["last"])), loc
    docs = _docs(mps, "dev-africa", n=60)
    mps.check(docs)
    assert {s["group"] for r in docs for s in r["spans"] if s["label"] == "NAME"} <= set(pii.groups)


def test_held_out_trap_phrases_differ(mps):
    train = {t for t in mps.TRAPS if not mps.heldout_trap(t)}
    test = {t for t in mps.TRAPS if mps.heldout_trap(t)}
    assert train and test and not train & test


def test_same_seed_same_documents(mps):
    a = _docs(mps, "train", n=20, seed=9)
    b = _docs(mps, "train", n=20, seed=9)
    c = _docs(mps, "train", n=20, seed=10)
    assert a == b and a != c


def test_case_variants_keep_offsets(mps):
    pii = mps.Pii("train", 5)
    doc = mps.Doc(str.upper)
    mps.make_letter(doc, pii, SENTENCES)
    r = doc.record("x", {})
    names = [r["text"][s["start"] : s["end"]] for s in r["spans"] if s["label"] == "NAME"]
    assert names and all(n == n.upper() for n in names)
    assert np.all([s["end"] <= len(r["text"]) for s in r["spans"]])


def test_pronoun_swap_puts_names_where_pronouns_were_and_only_in_training(mps):
    pii = mps.Pii("train", 5)
    swapped = 0
    for i in range(60):
        doc = mps.Doc(str)
        doc.swap = mps.PronounSwap(pii, rate=1.0)
        doc.real("He said they would call him after the patient left.")
        r = doc.record(f"t-{i}", {})
        mps.check([r])
        names = [s for s in r["spans"] if s["label"] == "NAME"]
        assert names and all(s["group"] in set(mps.GROUPS.values()) for s in names)
        # exactly one pronoun became a name (or an 'A and B' coordination), the rest is untouched
        assert r["text"].endswith("left.") and len(names) <= 3
        swapped += "they" not in r["text"] and " and " in r["text"]
    assert swapped > 0  # 'they' sometimes becomes a coordination
    # negative control: without the swap (every split but train), the real sentence is kept verbatim
    doc = mps.Doc(str)
    doc.real("He said they would call him.")
    assert doc.record("c", {})["text"] == "He said they would call him." and not doc.spans


def test_virtue_names_are_opt_in_names_in_training_and_half_is_held_out(mps):
    held = {v for v in mps.VIRTUE_NAMES if mps.heldout_virtue(v)}
    assert held and held != set(mps.VIRTUE_NAMES)
    pii = mps.Pii("train", 4, virtue_names=True)
    firsts = [pii.person()[0] for _ in range(3000)]
    used = {f for f in firsts if f in mps.VIRTUE_NAMES}
    assert used and not used & held  # injected, never from the held-out half
    assert not any(mps.heldout_name(f) for f in used)  # nor a name reserved for test-names
    # negative controls: without the option (the shipped model's generator), and in any other split,
    # there is no injection (its rng draws would change the files)
    for other in (mps.Pii("train", 4), mps.Pii("dev", 4)):
        assert sum(other.person()[0] in mps.VIRTUE_NAMES for _ in range(3000)) < len(firsts) * 0.01
    with pytest.raises(SystemExit):
        mps.Pii("dev", 4, virtue_names=True)


def test_pseudo_names_are_made_up_name_shaped_and_training_only(mps):
    pool = ["Amina", "Okafor", "Chidi", "Nkechi", "Tanaka", "Haruto", "Lucia", "Moreno"] * 3
    model = mps.PseudoNames(pool)
    rng = np.random.default_rng(0)
    made = [model.sample(rng) for _ in range(200)]
    assert all(m not in pool and m[:1].isupper() and m[1:].islower() and 3 <= len(m) <= 12 for m in made)
    assert len(set(made)) >= 8  # varied, not one string (a pool of 8 names allows only a few dozen)
    # every character trigram of a made-up name occurs in the pool (padded as the model pads)
    grams = {("^^" + n + "$")[i - 2 : i + 1] for n in pool for i in range(2, len(n) + 3)}
    assert all(("^^" + m + "$")[i - 2 : i + 1] in grams for m in made for i in range(2, len(m) + 3))
    pii = mps.Pii("train", 3, pseudo_names=1.0)
    first, last, _ = pii.person()
    assert first not in pii.pseudo["first"].real and last not in pii.pseudo["last"].real
    with pytest.raises(SystemExit):
        mps.Pii("test-names", 3, pseudo_names=0.1)


def test_group_pseudo_names_touch_only_that_group(mps):
    base = mps.Pii("train", 6)
    pii = mps.Pii("train", 6, group_pseudo={"african": 1.0})
    people = [pii.person() for _ in range(400)]
    african = [p for p in people if p[2] == "african"]
    others = [p for p in people if p[2] != "african"]
    assert african and others
    real = pii.pseudo["first:african"].real | pii.pseudo["last:african"].real
    assert all(f not in real and last not in real for f, last, _ in african)  # every part made up
    assert "first" not in pii.pseudo  # the all-groups model is never built without --pseudo-names
    # negative control: without the option the same seed gives real names for that group
    plain = [base.person() for _ in range(400)]
    assert any(p[2] == "african" and (p[0] in real or p[1] in real) for p in plain)
    with pytest.raises(SystemExit):
        mps.Pii("dev", 6, group_pseudo={"african": 0.3})


def test_crapii_split_uses_every_distinct_name_once_without_groups(mps, tmp_path, monkeypatch):
    csv_path = tmp_path / "entities.csv"
    rows = ["file_idx,entity_text,type,positions", '1,Ada Okafor,NAME_STUDENT,"(0, 10)"',
            '2,ada okafor,NAME_STUDENT,"(5, 15)"', '3,Lin Mei Wong,NAME_STUDENT,"(0, 12)"',
            '4,https://x.example,URL_PERSONAL,"(0, 17)"', '5,Solo,NAME_STUDENT,"(0, 4)"']
    csv_path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert mps.crapii_names(csv_path) == [("Ada", "Okafor"), ("Lin Mei", "Wong")]
    monkeypatch.setattr(mps, "CRAPII", csv_path)
    pii = mps.Pii("test-crapii", 1)
    people = [pii.person() for _ in range(4)]
    assert sorted(people[:2]) == [("Ada", "Okafor", None), ("Lin Mei", "Wong", None)]
    assert people[2:] == people[:2]  # then the same order again
    docs = _docs(mps, "test-crapii", n=30)
    mps.check(docs)
    names = [r["text"][s["start"] : s["end"]] for r in docs for s in r["spans"] if s["label"] == "NAME"]
    assert names and all("group" not in s for r in docs for s in r["spans"])
    assert all(any(w in n.lower() for w in ("ada", "okafor", "lin", "wong")) for n in names)


def _addresses(tmp_path, hash_seed: str, *, pin: bool) -> bytes:
    """200 generated postal addresses (some Italian: Faker's it_IT cities come from a set), from a
    fresh interpreter with the given string-hash seed; ``pin``: through ``pin_hash_seed`` first."""
    import os
    import subprocess
    import sys

    prog = tmp_path / f"gen_{hash_seed}_{pin}.py"
    prog.write_text(
        "import importlib.util, json, sys\n"
        f"s = importlib.util.spec_from_file_location('m', {str(SCRIPT)!r})\n"
        "m = importlib.util.module_from_spec(s); s.loader.exec_module(m)\n"
        + ("m.pin_hash_seed()\n" if pin else "")
        + "pii = m.Pii('dev', 12)\n"
        "print(json.dumps([pii.address_lines() for _ in range(200)]))\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    return subprocess.run([sys.executable, str(prog)], env=env, check=True, capture_output=True).stdout


def test_pinned_hash_seed_makes_output_the_same_from_run_to_run(tmp_path):
    assert _addresses(tmp_path, "1", pin=True) == _addresses(tmp_path, "2", pin=True)
    # negative control: without the pin the very same draws depend on the string hash
    assert _addresses(tmp_path, "1", pin=False) != _addresses(tmp_path, "2", pin=False)
    assert "pin_hash_seed()" in SCRIPT.read_text(encoding="utf-8").split('if __name__ == "__main__":')[1]


@pytest.mark.parametrize("bad", [
    ["--split", "dev", "--pseudo-names", "0.1"], ["--split", "test-names", "--lower-share", "0.2"],
    ["--split", "train", "--lower-share", "2"], ["--split", "train", "--pseudo-names", "-0.1"],
    ["--split", "train", "--group-pseudo", "martian=0.1"], ["--split", "train", "--group-pseudo", "african=x"],
])
def test_bad_training_options_exit_2_before_reading_anything(mps, tmp_path, capsys, bad):
    out = tmp_path / "out.jsonl"
    with pytest.raises(SystemExit) as err:
        mps.main([*bad, "--seed", "1", "-o", str(out)])
    assert err.value.code == 2 and not out.exists()
    assert len(capsys.readouterr().err.strip().splitlines()[-1]) < 200  # one line naming the problem
