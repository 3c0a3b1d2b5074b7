"""Outside plain full scope the page measures what privacy-report measures: N_w, S_w and the
attacks over the words the mechanism released only, with the same release counts and warning, and
it shows the same verdict.

QA pass 4: in scope ``detected`` the page ran the full-scope attacks on a release that kept
99 % of the words verbatim (knn never returns its input, so every kept word scored as never
recovered: 0.0 %), named no scope and gave no warning; in ``hybrid`` a phone surrogate that
changed the token count left every figure "not measured".
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from embedanon import Anonymizer
from embedanon.cli import app
from embedanon.cli.options import release_anonymizer
from embedanon.review import AttackFigures, Figure, MechanismFigures, Review, build_review, render_html
from embedanon.text import tokenize

runner = CliRunner()
OUTSIDER = "Zebulonius"  # not in the tiny embedding
TEXTS = {
    # scope detected, a denied name outside the embedding: the mechanism releases 2 tokens, none
    # of them in the embedding; the other 22 words are released verbatim
    "detected-oov": (f"the patient {OUTSIDER} had fever and cough\nthe doctor saw {OUTSIDER} today "
                     "for chest pain\nmother and father visit the clinic in the morning\n"),
    # scope detected, a denied word inside the embedding: the attacks measure its 3 tokens
    "detected": ("the patient had fever and cough\nthe doctor saw the patient today for chest pain\n"
                 "mother and the patient visit the clinic in the morning\n"),
    # scope hybrid: the phone's neutral-format surrogate has more tokens than the phone
    "hybrid": ("the patient had fever and cough, call 555-123-4567 today\nthe doctor saw the patient "
               "for chest pain\nmother had high blood pressure at night\n"),
}
DENY = {"detected-oov": f"NAME\t{OUTSIDER}\n", "detected": "NAME\tpatient\n", "hybrid": ""}


def _setup(case: str, tmp_path: Path, emb: Path) -> tuple[list[str], dict[str, Any]]:
    src = tmp_path / "notes.txt"
    src.write_text(TEXTS[case], encoding="utf-8")
    deny = tmp_path / "deny.txt"
    deny.write_text(DENY[case], encoding="utf-8")
    scope = case.split("-")[0]
    # scope detected through the mechanism (its default is surrogates): the figures measured here
    strategy = ["--strategy", "DEFAULT=mechanism"] if scope == "detected" else []
    cli = ["-m", "knn", "--k", "3", "--embedding", str(emb), "--seed", "1", "--scope", scope,
           "--detector", "regex", "--deny", str(deny), *strategy, str(src)]
    options = {"embedding": str(emb), "mechanism": "knn", "k": 3, "seed": 1, "scope": scope,
               "detector": "regex", "deny": str(deny), "strategy": strategy[1:] or None}
    return cli, options


def _report(cli: list[str]) -> dict[str, Any]:
    result = runner.invoke(app, ["privacy-report", "--draws", "20", "--json", *cli])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def _review(tmp_path: Path, options: dict[str, Any]) -> Review:
    anonymizer: Anonymizer = release_anonymizer(**options)
    return build_review(str(tmp_path / "notes.txt"), anonymizer, sample=0, generated="now",
                        sources=(MechanismFigures(draws=20), AttackFigures()))


def _same(a: float, b: float | None) -> bool:
    return (b is None or math.isnan(b)) if math.isnan(a) else a == b


def test_detected_scope_reports_no_attack_rate_over_verbatim_words(tiny_embedding: Path,
                                                                   tmp_path: Path) -> None:
    cli, options = _setup("detected-oov", tmp_path, tiny_embedding)
    review = _review(tmp_path, options)
    figs = {f.key: f for f in review.figures}
    # The old page measured these over the 22 verbatim words, which knn "never recovers": 0.0 %.
    for key in ("attack_public_top1", "attack_public_top5", "attack_uniform_top1", "attack_oracle_top1",
                "attack_contextual_top1", "n_w"):
        assert math.isnan(figs[key].value) and figs[key].tokens == 0, key
        assert review.verdict is not None and review.verdict.check(key).status == "n/a"
    assert figs["attack_oov_top1"].tokens == 2  # the two released name tokens
    assert review.scope == "detected" and review.notes == ()
    r = review.release
    assert r is not None and (r.mechanism_words, r.verbatim_words, r.other_words) == (2, 22, 0)
    report = _report(cli)
    assert review.warnings == tuple(report["warnings"][1:])  # [0]: the --seed warning
    assert "22 of 24 word tokens are released unchanged (outside the detected spans)" in review.warnings[-1]
    page = render_html(review)
    assert "Scope <code>detected</code>" in page
    assert "unchanged (verbatim) 22, surrogate, redaction or name guard 0 of 24 word tokens" in page
    assert "22 of 24 word tokens are released unchanged (outside the detected spans)" in page
    panel = page[page.index('id="verdict"'):page.index('id="lookalikes"')]
    assert "<td>words recovered, public prior, top-1</td><td class=\"n\">n/a</td>" in panel
    for word in ("fever", "cough", "clinic", OUTSIDER):  # the verdict panel quotes no text
        assert word not in panel


@pytest.mark.parametrize("case", ["detected", "hybrid"])
def test_scoped_figures_equal_privacy_report(case: str, tiny_embedding: Path, tmp_path: Path) -> None:
    cli, options = _setup(case, tmp_path, tiny_embedding)
    review = _review(tmp_path, options)
    if case == "hybrid":  # the case the old page could not measure
        released = "".join(t.document.text for rec in review.records for t in rec.texts)
        count = sum(1 for rec in review.records for t in rec.texts for tok in tokenize(t.original)
                    if tok.kind != "space")
        assert sum(1 for tok in tokenize(released) if tok.kind != "space") != count
    assert review.notes == ()
    report = _report(cli)
    r, release = review.release, report["release"]
    assert r is not None and release["scope"] == review.scope == case
    assert (r.change.word_tokens, r.change.changed_words, r.verbatim_words, r.mechanism_words, r.other_words) \
        == (release["word_tokens"], release["changed_words"], release["verbatim_words"],
            release["mechanism_words"], release["surrogate_or_redacted_words"])
    assert review.warnings == tuple(report["warnings"][1:])
    assert r.mechanism_words > 0
    figs: dict[str, Figure] = {f.key: f for f in review.figures}
    assert _same(figs["n_w"].value, report["report"]["n_w_mean"])
    assert figs["n_w"].tokens == report["report"]["stats_words"]
    assert _same(figs["s_w"].value, report["report"]["s_w_mean"])
    attacks = report["attacks"]
    expected = {"attack_public_top1": ("public_prior", "top1"), "attack_public_top5": ("public_prior", "top5"),
                "attack_uniform_top1": ("uniform_prior", "top1"), "attack_oracle_top1": ("oracle_prior", "top1"),
                "attack_oov_top1": ("oov", "top1")}
    for key, (entry, k) in expected.items():
        assert _same(figs[key].value, attacks[entry][k]) and figs[key].tokens == attacks[entry]["tokens"], key
    assert _same(figs["attack_contextual_top1"].value, attacks["contextual"]["contextual_top1"])
    assert figs["attack_public_top1"].tokens == attacks["invocab_tokens"] <= r.mechanism_words
    # the same verdict: every check privacy-report makes, with the same value and status (the
    # page measures no multi-release figure: it shows one release)
    assert review.verdict is not None
    page_checks = {c.figure: (c.value, c.status) for c in review.verdict.checks}
    report_checks = {c["figure"]: (c["value"], c["status"]) for c in report["verdict"]["checks"]}
    assert page_checks == report_checks


def test_plain_full_scope_page_names_no_scope(anonymizer: Anonymizer, tmp_path: Path) -> None:
    src = tmp_path / "notes.txt"
    src.write_text(TEXTS["detected"], encoding="utf-8")
    review = build_review(str(src), anonymizer, sample=0, generated="now", sources=())
    assert (review.scope, review.release, review.warnings) == ("", None, ())
    page = render_html(review)
    assert "scope <code>all</code>" in page and "Released by" not in page


@pytest.mark.parametrize("text, surrogates", [(TEXTS["hybrid"], True), (TEXTS["detected"], False)])
def test_default_scope_all_measures_as_privacy_report_with_or_without_a_format_surrogate(
        text: str, surrogates: bool, tiny_embedding: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Neutral formats are the default: a phone gets a surrogate even in scope all. The page's
    verdict equals privacy-report's either way; without any surrogate in the sample the page
    does not even build the scoped view it would throw away."""
    import embedanon.review.build as build

    calls: list[int] = []
    real = build.scoped_release

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(build, "scoped_release", counting)
    src = tmp_path / "notes.txt"
    src.write_text(text, encoding="utf-8")
    options = {"embedding": str(tiny_embedding), "mechanism": "knn", "k": 3, "seed": 1}
    review = build_review(str(src), release_anonymizer(**options), sample=0, generated="now",
                          sources=(MechanismFigures(draws=20), AttackFigures()))
    assert review.scope == "" and bool(calls) == surrogates
    found = any(it.kind == "surrogate" for r in review.records for t in r.texts for it in t.document.items)
    assert found == surrogates
    cli = ["-m", "knn", "--k", "3", "--embedding", str(tiny_embedding), "--seed", "1", str(src)]
    report = _report(cli)
    assert review.verdict is not None
    page_checks = {c.figure: (c.value, c.status) for c in review.verdict.checks}
    assert page_checks == {c["figure"]: (c["value"], c["status"]) for c in report["verdict"]["checks"]}


@pytest.mark.parametrize("case", ["detected", "hybrid"])
def test_epsilon_per_record_equals_privacy_report_when_every_record_is_shown(
        case: str, tiny_embedding: Path, tmp_path: Path) -> None:
    """Review audit: with a metric-DP mechanism outside plain full scope the page held the
    epsilon of the longest record to its limit as if every word part were drawn (MTSamples notes,
    hybrid, exponential epsilon 12: 3,096 on the page, 3,048 in privacy-report), though it
    showed every record. It now counts the parts the mechanism drew, as privacy-report does; only
    a sample (or a cut text) leaves the upper bound, and the page then says "at most"."""
    cli, options = _setup(case, tmp_path, tiny_embedding)
    cli = ["-m", "exponential", "--epsilon", "3", *cli[4:]]
    options = {**{k: v for k, v in options.items() if k != "k"}, "mechanism": "exponential", "epsilon": 3.0}
    review = _review(tmp_path, options)
    report = _report(cli)
    assert review.verdict is not None and not review.draws_bound
    page_checks = {c.figure: (c.value, c.status) for c in review.verdict.checks}
    report_checks = {c["figure"]: (c["value"], c["status"]) for c in report["verdict"]["checks"]}
    assert page_checks["epsilon_record"] == report_checks["epsilon_record"]
    assert review.longest_record_draws == report["release"]["longest_record_mechanism_parts"]
    sampled = build_review(str(tmp_path / "notes.txt"), release_anonymizer(**options), sample=1,
                           generated="now", sources=())
    assert sampled.draws_bound and "at most" in render_html(sampled)
