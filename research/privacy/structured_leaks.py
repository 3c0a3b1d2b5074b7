"""What e-mail addresses, URLs and phone numbers leak through a release (issue 9).

Data: Faker values of 12 locales in 5 culture groups (the groups of ``attacks.py``), one per record
(``"Email: ..."``, ``"Site: ..."``, ``"Phone: ..."``); e-mails are Faker's free or company
addresses, so their top-level domains are the locale's own.

Attacker (knows the tool, as the README's threat model says): it runs the tool itself on values
drawn with another Faker seed under its own keys (the *training* releases), tabulates
P(original | released feature), and guesses the most probable original for each released value
of the *test* release (another seed and key). Features:

* ``tld``: the released top-level domain of an e-mail or URL host -> the original one;
* ``phone group``: the released phone's shape (digits as ``d``, letters as ``a``, separators
  kept) -> the culture group of the original.

Baselines: the attacker who ignores the release (always the most common training value). The
script runs on whatever ``embedanon`` is importable, so the same file measures an older commit
(``PYTHONPATH=/tmp/old/src python research/privacy/structured_leaks.py``).

Usage: ``nice .venv/bin/python research/privacy/structured_leaks.py [--n 1500] [--out FILE]``
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import time
from collections import Counter, defaultdict
from pathlib import Path

from faker import Faker

from embedanon import Anonymizer

HERE = Path(__file__).resolve().parent
GROUPS = {"american": ["en_US"], "european": ["en_GB", "de_DE", "fr_FR", "it_IT", "pl_PL"],
          "hispanic": ["es_MX", "es_ES", "pt_BR"], "african": ["zu_ZA", "tw_GH"],
          "south_asian": ["en_IN"]}
_EMAIL_HOST = re.compile(r"@([\w.-]+)")
_URL_HOST = re.compile(r"://([^/\s:?#]+)")
_PHONE_AT = "Phone: "


def values(n: int, seed: int) -> dict[str, list[tuple[str, str]]]:
    """n (group, value) pairs of each kind."""
    rng = random.Random(seed)
    fakers = {loc: Faker(loc) for locs in GROUPS.values() for loc in locs}
    for i, f in enumerate(fakers.values()):
        f.seed_instance(seed * 100 + i)
    out: dict[str, list[tuple[str, str]]] = {"email": [], "url": [], "phone": []}
    for _ in range(n):
        group = rng.choice(sorted(GROUPS))
        f = fakers[rng.choice(GROUPS[group])]
        out["email"].append((group, f.free_email() if rng.random() < 0.5 else f.company_email()))
        out["url"].append((group, f.url()))
        out["phone"].append((group, f.phone_number()))
    return out


def _tld(text: str, kind: str) -> str | None:
    match = (_EMAIL_HOST if kind == "email" else _URL_HOST).search(text)
    if not match:
        return None
    host = match.group(1).rstrip(".")
    return host.rsplit(".", 1)[-1].lower() if "." in host else None


def _shape(text: str) -> str:
    """The value's shape (digits ``d``, letters ``a``) after the first ``": "`` (the label word
    itself is replaced; letters of a code are drawn afresh, so only their positions are a feature)."""
    value = text.split(": ", 1)[-1]
    return re.sub(r"\d", "d", re.sub(r"[^\W\d_]", "a", value.strip()))


def features(anon: Anonymizer, data: dict[str, list[tuple[str, str]]]) -> dict[str, list[tuple[str, str]]]:
    """(truth, released feature) per record: TLDs for e-mails and URLs, (group, shape) for phones."""
    prefix = {"email": "Email: ", "url": "Site: ", "phone": _PHONE_AT}
    out: dict[str, list[tuple[str, str]]] = {}
    for kind, pairs in data.items():
        texts = [prefix[kind] + value for _, value in pairs]
        released = list(anon.anonymize_many(texts))
        rows = []
        for (group, _value), text, new in zip(pairs, texts, released, strict=True):
            if kind == "phone":
                rows.append((group, _shape(new)))
                continue
            truth, seen = _tld(text, kind), _tld(new, kind)
            if truth is not None:
                rows.append((truth, seen or "?"))
        out[kind] = rows
    return out


def attack(train: list[tuple[str, str]], test: list[tuple[str, str]]) -> dict[str, float]:
    """Accuracy of the MAP guess of the truth from the feature, and of the prior-only guess."""
    table: dict[str, Counter[str]] = defaultdict(Counter)
    prior: Counter[str] = Counter()
    for truth, seen in train:
        table[seen][truth] += 1
        prior[truth] += 1
    top = prior.most_common(1)[0][0]
    hits = sum(1 for truth, seen in test
               if (table[seen].most_common(1)[0][0] if seen in table else top) == truth)
    base = sum(1 for truth, _ in test if truth == top)
    released_same = sum(1 for truth, seen in test if truth == seen)
    return {"n": len(test), "attack": hits / len(test), "prior_only": base / len(test),
            "released_unchanged": released_same / len(test)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1500)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    t0 = time.time()
    train_data, test_data = values(args.n, seed=1), values(args.n, seed=2)
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__import__("embedanon").__file__).parent, check=False).stdout.strip()
    except OSError:
        commit = "?"
    # issue 33 item 6: neutral formats are the default; "keep formats" is the opt-out
    settings = [("knn k=10 (default)", "knn", {"k": 10}, "all"),
                ("knn k=10 keep formats", "knn", {"k": 10, "neutral_formats": False}, "all"),
                ("exponential eps=14 (default)", "exponential", {"epsilon": 14.0}, "all"),
                ("exponential eps=14 keep formats", "exponential",
                 {"epsilon": 14.0, "neutral_formats": False}, "all"),
                ("knn k=10 hybrid regex (default)", "knn", {"k": 10}, "hybrid"),
                ("knn k=10 hybrid regex keep formats", "knn", {"k": 10, "neutral_formats": False}, "hybrid")]
    result: dict[str, object] = {"commit": commit, "n": args.n}
    for label, mechanism, params, scope in settings:
        kwargs: dict[str, object] = {**params, "scope": scope}
        if scope != "all":
            kwargs["detectors"] = "regex"
        if "keep formats" in label and scope != "all":  # keeping formats: shapes in the surrogates too
            from embedanon.surrogates import SurrogateConfig
            kwargs["surrogates"] = SurrogateConfig(phone_format="keep-shape", id_format="keep-shape")
        try:
            Anonymizer(mechanism=mechanism, seed=0, **kwargs)
        except (TypeError, ValueError):  # an older commit without this option (ConfigError)
            continue
        # the attacker's own runs (seed 11), then the release (seed 22)
        train = features(Anonymizer(mechanism=mechanism, seed=11, **kwargs), train_data)
        test = features(Anonymizer(mechanism=mechanism, seed=22, **kwargs), test_data)
        result[label] = {
            "email tld": attack(train["email"], test["email"]),
            "url tld": attack(train["url"], test["url"]),
            "phone shape -> group": attack(train["phone"], test["phone"]),
        }
    result["seconds"] = round(time.time() - t0, 1)
    text = json.dumps(result, indent=1)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
