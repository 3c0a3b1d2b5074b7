"""``privacy-report`` measures the release as configured: records read as ``anonymize`` reads
them, the attacks of embedanon.privacy (public prior, contextual, multi-release), JSON output,
never any text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedanon.cli import app

pytestmark = pytest.mark.default_embedding
runner = CliRunner()
CANARY = "Zebulonius"
NOTES = [f"Patient {CANARY} Smith was seen today for chest pain and a mild fever.",
         "The doctor said the pain was better after the new medication.",
         "She reports a cough and shortness of breath at night."]


def _csv(tmp_path: Path) -> Path:
    path = tmp_path / "notes.csv"
    rows = ["id,note,other"] + [f'{i},"{n}",x' for i, n in enumerate(NOTES * 10)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _report(*args: str) -> dict:
    result = runner.invoke(app, ["privacy-report", "--json", "--no-contextual", *args])
    assert result.exit_code == 0, result.output
    assert CANARY not in result.output
    return json.loads(result.stdout)


def test_csv_fields_are_documents_not_lines(tmp_path: Path) -> None:
    """A 30-row CSV is 30 documents of its named column (not 31 lines with header and keys)."""
    out = _report(str(_csv(tmp_path)), "--field", "note", "--key", str(_key(tmp_path)))
    assert out["report"]["documents"] == 30
    assert out["attacks"]["documents"] == 30
    assert out["report"]["change"]["change_rate"] == 1.0


def _key(tmp_path: Path) -> Path:
    path = tmp_path / "release.key"
    if not path.exists():
        assert runner.invoke(app, ["keygen", str(path)]).exit_code == 0
    return path


def test_a_key_makes_repeated_releases_add_nothing(tmp_path: Path) -> None:
    src = _csv(tmp_path)
    keyed = _report(str(src), "--field", "note", "--key", str(_key(tmp_path)), "--releases", "3")
    assert [r["releases"] for r in keyed["attacks"]["releases"]] == [1]  # one release, made once
    assert keyed["repeated_releases"] == {"releases": 3, "fixed_key": True, "same_as_releases": 1}
    careless = _report(str(src), "--field", "note", "--releases", "3", "--fresh-key")  # a key per release
    one, three = careless["attacks"]["releases"]
    assert three["unique_recovery"] > one["unique_recovery"] + 0.1


def test_seed_releases_are_flagged(tmp_path: Path) -> None:
    out = _report(str(_csv(tmp_path)), "--field", "note", "--seed", "3")
    assert any("--seed" in w for w in out["warnings"])
    public = out["attacks"]["public_prior"]
    assert 0 <= public["top1"] <= public["top5"] <= 1


def test_neutral_formats_release_is_measured(tmp_path: Path) -> None:
    """Phone surrogates change the token structure; the word attacks still run, with a warning."""
    path = tmp_path / "calls.txt"
    path.write_text("".join(f"{n} Call (617) 555-01{i:02d} tonight.\n" for i, n in enumerate(NOTES * 4)),
                    encoding="utf-8")
    out = _report(str(path), "--neutral-formats", "--key", str(_key(tmp_path)))
    assert out["report"]["documents"] == 12
    assert any("neutral formats" in w for w in out["warnings"])


def test_progress_lines_on_stderr_never_text(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("\n".join(NOTES * 3) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["privacy-report", str(path), "--no-contextual", "--progress", "plain",
                                 "--key", str(_key(tmp_path)), "--releases", "2"])
    assert result.exit_code == 0, result.output
    assert "anonymizing:" in result.stderr and "100 % done" in result.stderr
    assert CANARY not in result.output
    assert "anonymizing 9 texts (2 releases)" in result.stderr


def test_one_text_is_counted_in_the_singular(tmp_path: Path) -> None:
    """'anonymizing 1 texts (1 release)' (found running docs/cli.md's privacy-report example on a
    one-line note)."""
    path = tmp_path / "note.txt"
    path.write_text(NOTES[1] + "\n", encoding="utf-8")
    result = runner.invoke(app, ["privacy-report", str(path), "--no-contextual", "--key", str(_key(tmp_path))])
    assert result.exit_code == 0, result.output
    assert "anonymizing 1 text (1 release)" in result.stderr


@pytest.mark.slow
def test_laplace_gets_the_attacks_through_an_estimated_law(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("\n".join(NOTES) + "\n", encoding="utf-8")
    without = _report(str(path), "-m", "laplace", "--epsilon", "80", "--key", str(_key(tmp_path)))
    assert without["attacks"] is None
    out = _report(str(path), "-m", "laplace", "--epsilon", "80", "--key", str(_key(tmp_path)),
                  "--empirical-draws", "3")
    assert out["attacks"] is not None and out["attacks"]["documents"] == 3


def test_epsilon_spent_counts_every_word_part_the_mechanism_replaces(tmp_path: Path) -> None:
    """QA pass 4: 'non-small-cell' is three draws of the mechanism and was counted as one word, so
    the report said 13 x 14 for a sentence that spent 20 x 14."""
    src = tmp_path / "hy.txt"
    src.write_text("The well-known follow-up of a left-sided non-small-cell mass was re-evaluated in the "
                   "x-ray.\nShort one.\n", encoding="utf-8")
    args = (str(src), "-m", "exponential", "--epsilon", "14", "--key", str(_key(tmp_path)),
            "--draws", "5", "--max-words", "5")
    result = runner.invoke(app, ["privacy-report", "--no-contextual", *args])
    assert result.exit_code == 0, result.output
    assert "longest document: 20 x 14 = 280; whole input: 22 x 14 = 308" in result.stdout
    # the example word is quoted: 'well-known is 2' read as a claim about how well known it is
    assert "(epsilon = 14 per part; 'well-known' is 2 parts)" in result.stdout
    data = _report(*args)
    assert data["report"]["longest_document_parts"] == 20 and data["report"]["input_parts"] == 22
    assert data["report"]["longest_document_words"] == 13  # word tokens, for the change rate


def test_an_attacker_text_of_the_same_kind_adds_domain_prior_figures(tmp_path: Path) -> None:
    """QA pass 4: with a domain corpus an attacker recovered 0.28 of out-of-vocabulary words where the
    report said 0.000 (public list only); --attacker-text measures that attacker."""
    src = _csv(tmp_path)
    attacker = tmp_path / "public-notes.txt"
    attacker.write_text("The patient Zorblaxine was seen for chest pain.\n" * 5
                        + "Shortness of breath and a cough at night.\n", encoding="utf-8")
    out = _report(str(src), "--field", "note", "--key", str(_key(tmp_path)),
                  "--attacker-text", str(attacker))["attacks"]
    assert out["domain_prior"]["tokens"] == out["public_prior"]["tokens"] > 0
    assert out["oov_domain"]["tokens"] == out["oov"]["tokens"]
    assert out["oov_domain_in_dictionary"] >= out["oov_in_dictionary"]
    without = _report(str(src), "--field", "note", "--key", str(_key(tmp_path)))["attacks"]
    assert without["domain_prior"] is None and without["oov_domain"] is None
    text = runner.invoke(app, ["privacy-report", "--no-contextual", str(src), "--field", "note", "--key",
                               str(_key(tmp_path)), "--attacker-text", str(attacker)])
    assert text.exit_code == 0, text.output
    assert "domain prior:" in text.stdout and "out-of-vocab, domain:" in text.stdout
    assert "--attacker-text holds" not in text.stdout and "Zorblaxine" not in text.output


def test_an_attacker_text_that_is_the_input_is_flagged_as_an_oracle(tmp_path: Path) -> None:
    src = tmp_path / "notes.txt"
    src.write_text("\n".join(NOTES) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["privacy-report", "--no-contextual", str(src), "--attacker-text", str(src)])
    assert result.exit_code == 0, result.output
    assert "warning:" in result.stdout and "oracle" in result.stdout
    assert CANARY not in result.output


@pytest.mark.parametrize("content", ["", "42 17 -- ...\n"])
def test_an_attacker_text_without_words_is_a_one_line_error(tmp_path: Path, content: str) -> None:
    src = tmp_path / "notes.txt"
    src.write_text("\n".join(NOTES) + "\n", encoding="utf-8")
    attacker = tmp_path / "attacker.txt"
    attacker.write_text(content, encoding="utf-8")
    result = runner.invoke(app, ["privacy-report", "--no-contextual", str(src), "--attacker-text", str(attacker)])
    assert result.exit_code == 2
    assert "attacker.txt" in result.output and "no words" in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.slow
def test_attack_options_without_an_exact_law_are_flagged_not_dropped(tmp_path: Path) -> None:
    """QA pass 6: for laplace without --empirical-draws the attacks do not run, and --attacker-text,
    --releases and --spans were dropped without a word."""
    src = tmp_path / "notes.txt"
    src.write_text("\n".join(NOTES) + "\n", encoding="utf-8")
    attacker = tmp_path / "public.txt"
    attacker.write_text("The patient was seen for chest pain.\n", encoding="utf-8")
    out = _report(str(src), "-m", "laplace", "--epsilon", "80", "--releases", "2",
                  "--attacker-text", str(attacker), "--key", str(_key(tmp_path)))
    assert out["attacks"] is None
    assert any("--attacker-text, --releases had no effect" in w and "--empirical-draws" in w
               for w in out["warnings"])
    plain = _report(str(src), "-m", "laplace", "--epsilon", "80", "--key", str(_key(tmp_path)))
    assert not any("no effect" in w for w in plain["warnings"])


def test_an_attacker_text_holding_the_input_among_other_text_is_an_oracle_too(tmp_path: Path) -> None:
    src = tmp_path / "notes.txt"
    src.write_text("\n".join(NOTES) + "\n", encoding="utf-8")
    superset = tmp_path / "more.txt"
    superset.write_text("\n".join(["Another note about a cough.", *NOTES, ""]) + "\n", encoding="utf-8")
    out = _report(str(src), "--attacker-text", str(superset), "--key", str(_key(tmp_path)))
    assert any("oracle" in w for w in out["warnings"])


@pytest.mark.parametrize(("given", "message"), [("-", "cannot be standard input"),
                                                ("missing.txt", "--attacker-text file not found")])
def test_attacker_text_from_stdin_or_a_missing_file_is_named(tmp_path: Path, given: str, message: str) -> None:
    src = tmp_path / "notes.txt"
    src.write_text("\n".join(NOTES) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["privacy-report", str(src), "--attacker-text", given])
    assert result.exit_code == 2 and message in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("option", ["--draws", "--max-words", "--neighbors", "--mc-draws", "--releases"])
def test_a_zero_count_is_refused_before_any_work(tmp_path: Path, option: str) -> None:
    """Issue 34, defect 9: ``--draws 0`` and its siblings were refused only after the release and
    the attacks had run. The input here does not exist: the count is named first, so nothing
    was read, let alone anonymized."""
    result = runner.invoke(app, ["privacy-report", str(tmp_path / "absent.txt"), option, "0"])
    assert result.exit_code == 2
    assert f"{option} must be an integer >= 1, got 0" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_json_on_empty_input_is_valid_json_with_nulls(tmp_path: Path) -> None:
    """Issue 34, defect 10: rates over no tokens were printed as a bare NaN, which no JSON parser
    reads; they are null now."""
    path = tmp_path / "empty.txt"
    path.write_text("", encoding="utf-8")
    result = runner.invoke(app, ["privacy-report", "--json", "--no-contextual", str(path),
                                 "--key", str(_key(tmp_path))])
    assert result.exit_code == 0, result.output

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON")

    data = json.loads(result.stdout, parse_constant=refuse)
    assert data["report"]["n_w_mean"] is None
    assert data["release"]["change_rate"] is None


def test_the_verdict_holds_every_figure_to_a_threshold_that_can_be_overridden(tmp_path: Path) -> None:
    src = _csv(tmp_path)
    out = _report(str(src), "--field", "note", "--fresh-key", "--releases", "2")
    checks = {c["figure"]: c for c in out["verdict"]["checks"]}
    # the 30 rows repeat 3 notes, each played once (decision 0258: a copy stood in the world
    # without its note, so the layout was found with and without its own release)
    assert out["membership"]["records"] == 3 and checks["membership_auc"]["value"] == out["membership"]["auc"]
    assert checks["change_rate"]["status"] == "pass"
    assert {"releases_top1:2", "releases_majority_top1:2", "releases_gain", "name_confirmation_auc"} <= set(checks)
    assert all(c["status"] in ("pass", "fail", "n/a", "unsure") and c["remedy"] for c in checks.values())
    assert out["attacks"]["releases"][1]["majority_top1"] == 0.0  # knn never returns its input
    keyed = _report(str(src), "--field", "note", "--key", str(_key(tmp_path)), "--releases", "2",
                    "--threshold", "s_w=1000")
    checks = {c["figure"]: c for c in keyed["verdict"]["checks"]}
    assert checks["s_w"]["status"] == "fail"  # the limit was raised above any S_w
    assert checks["releases_gain"]["value"] == 0.0 and checks["releases_gain"]["status"] == "pass"
    bad = runner.invoke(app, ["privacy-report", str(src), "--threshold", "nope=1"])
    assert bad.exit_code == 2 and "unknown figure 'nope'" in bad.output
    assert len(bad.output.strip().splitlines()) == 1


def test_a_spans_file_of_other_texts_is_refused_before_any_anonymizing(tmp_path: Path) -> None:
    """A --spans file whose records are not the input's texts was refused only after every
    release was made and measured (found with a 5-record spans file for a 12-record input)."""
    src = tmp_path / "notes.txt"
    src.write_text("\n".join(NOTES) + "\n", encoding="utf-8")
    spans = tmp_path / "names.jsonl"
    spans.write_text(json.dumps({"text": "Someone else entirely.", "spans": []}) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["privacy-report", "--no-contextual", str(src), "--spans", str(spans),
                                 "--key", str(_key(tmp_path))])
    assert result.exit_code == 2
    assert result.output.splitlines() == [f"error: {spans} has 1 record; the input has {len(NOTES)} texts"]


def test_the_one_key_releases_line_is_aligned_with_the_others(tmp_path: Path) -> None:
    """'after 3 releases:   = 1 release' stood two columns left of every other value."""
    src = tmp_path / "notes.txt"
    src.write_text("\n".join(NOTES) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["privacy-report", "--no-contextual", str(src), "--releases", "3",
                                 "--key", str(_key(tmp_path))])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    (line,) = [x for x in lines if x.startswith("after 3 releases:")]
    (change,) = [x for x in lines if x.startswith("change rate:")]
    assert change[:22].rstrip() == "change rate:" and change[22] != " "  # values start at column 22
    assert line.index("= 1 release") == 22


def test_a_hybrid_release_is_not_told_to_use_hybrid_scope(tmp_path: Path) -> None:
    src = tmp_path / "notes.txt"
    src.write_text("\n".join(NOTES) + "\n", encoding="utf-8")
    out = _report(str(src), "--scope", "hybrid", "--key", str(_key(tmp_path)))
    remedies = [c["remedy"] for c in out["verdict"]["checks"]]
    assert remedies and not [r for r in remedies if "--scope hybrid" in r]


def test_fresh_key_releases_spend_epsilon_once_per_release(tmp_path: Path) -> None:
    """Mechanism audit: with --releases 3 --fresh-key the report said the longest document spent
    20 x 14 = 280 and the verdict held 280 to its threshold, but three releases with fresh noise
    draw every word three times and spend 3 x 280 (basic composition, docs/mechanisms.md). Under
    one key the three releases are one text and spend 280."""
    src = tmp_path / "hy.txt"
    src.write_text("The well-known follow-up of a left-sided non-small-cell mass was re-evaluated in the "
                   "x-ray.\nShort one.\n", encoding="utf-8")
    common = (str(src), "-m", "exponential", "--epsilon", "14", "--draws", "5", "--max-words", "5",
              "--releases", "3")
    fresh = runner.invoke(app, ["privacy-report", "--no-contextual", *common, "--fresh-key"])
    assert fresh.exit_code == 0, fresh.output
    assert "3 releases with fresh noise spend 3 times that: longest document 3 x 20 x 14 = 840" in fresh.stdout
    record = [line for line in fresh.stdout.splitlines() if "epsilon spent by the longest record" in line]
    assert len(record) == 1 and "840.000" in record[0], record

    def spent(data: dict) -> float:
        return next(c["value"] for c in data["verdict"]["checks"] if c["figure"] == "epsilon_record")

    assert spent(_report(*common, "--fresh-key")) == 840
    assert spent(_report(*common, "--key", str(_key(tmp_path)))) == 280


def test_releases_without_attacks_still_spend_epsilon_per_release(tmp_path: Path) -> None:
    """Mechanism audit: laplace (no exact law) with --releases 2 --fresh-key said '--releases had no
    effect' next to an epsilon spent of 2 releases; it has no effect on the attacks only."""
    src = tmp_path / "a.txt"
    src.write_text("The patient was seen today.\n", encoding="utf-8")
    result = runner.invoke(app, ["privacy-report", "--no-contextual", str(src), "-m", "laplace",
                                 "--epsilon", "60", "--releases", "2", "--fresh-key", "--draws", "3"])
    assert result.exit_code == 0, result.output
    assert "--releases had no effect on them;" in result.stdout
    assert "longest document 2 x 5 x 60 = 600" in result.stdout


def test_a_spans_file_with_labels_of_its_own_is_read_as_evaluate_detection_reads_it(tmp_path: Path) -> None:
    """--spans refused a span file evaluate-detection scores ('label must be one of NAME, ...' for
    PHONE_NUMBER): the same file, read by two commands two ways (detection-commands audit). Only
    the NAME spans are used, so the other labels change nothing."""
    src = tmp_path / "notes.txt"
    src.write_text("\n".join(NOTES) + "\n", encoding="utf-8")
    name = NOTES[0].index(CANARY)
    records = [{"text": t, "spans": []} for t in NOTES]
    records[0]["spans"] = [{"start": name, "end": name + len(CANARY) + 6, "label": "NAME", "group": "g1"}]
    plain, extra = tmp_path / "names.jsonl", tmp_path / "names_and_more.jsonl"
    plain.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    records[1]["spans"] = [{"start": 4, "end": 10, "label": "PHONE_NUMBER"}]
    extra.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    key = str(_key(tmp_path))
    with_names, with_more = (_report(str(src), "--spans", str(p), "--key", key) for p in (plain, extra))
    assert with_names["attacks"] == with_more["attacks"]
    assert [row["group"] for row in with_more["attacks"]["names"]] == ["all", "g1"]


def _templated_notes(tmp_path: Path) -> tuple[Path, Path]:
    """24 short notes of one layout (6 subjects x 4 symptoms x 5 places, cycled) and a fixed key
    (the same figures every run), for the membership games."""
    subjects = ["patient", "woman", "man", "child", "student", "teacher"]
    symptoms = ["pain", "swelling", "stiffness", "weakness"]
    places = ["knee", "ankle", "shoulder", "elbow", "wrist"]
    notes = [f"The {subjects[i % 6]} reported {symptoms[i % 4]} in the {places[i % 5]} today."
             for i in range(24)]
    path = tmp_path / "notes.txt"
    path.write_text("\n".join(notes) + "\n", encoding="utf-8")
    key = tmp_path / "fixed.key"
    key.write_text("5a" * 8 + "c3" * 8 + "17" * 8 + "e9" * 8 + "\n", encoding="utf-8")
    key.chmod(0o600)
    return path, key


def test_membership_of_templated_notes_is_told_by_their_words(tmp_path: Path) -> None:
    """Privacy audit: short notes of one layout tied in the layout game (AUC 0.500), so the
    verdict passed membership under the default knn, although every released word is one of the
    k neighbors of the note's own word and an attacker holding a note finds its record by them.
    The figure is now the stronger of the layout and word games."""
    path, key = _templated_notes(tmp_path)
    out = _report(str(path), "--key", str(key))
    membership = out["membership"]
    assert membership["records"] == 24 and membership["layout_auc"] == 0.5
    # not 1: knee and elbow share neighbors, so a similar note's record can fit as well (a tie)
    assert membership["word_auc"] > 0.7 and membership["auc"] == membership["word_auc"]
    assert _report(str(path), "--key", str(key))["membership"] == membership  # same key, same figures
    check = next(c for c in out["verdict"]["checks"] if c["figure"] == "membership_auc")
    assert check["value"] == membership["auc"] and check["status"] == "fail"
    assert check["samples"] == 24 and check["interval"][0] < membership["auc"] < check["interval"][1]


def test_names_a_detected_scope_leaves_unchanged_count_as_recovered(tmp_path: Path) -> None:
    """Privacy audit: in --scope detected a name the detectors missed is released as it is, but
    the name figures read only the mechanism's tokens, so --spans marking two such names gave
    'top-1 n/a of 0 name tokens' and no name check in the verdict (which then passed with
    --threshold change_rate=0). Such a name part is read, not guessed: a hit at top-1 and top-10."""
    texts = ["Write to ana@example.org or call Zorblat Quexley today about the visit.",
             "The nurse saw the patient in the morning and wrote a short note."]
    src = tmp_path / "notes.txt"
    src.write_text("\n".join(texts) + "\n", encoding="utf-8")
    start = texts[0].index("Zorblat")
    spans = tmp_path / "names.jsonl"
    spans.write_text(json.dumps({"text": texts[0], "spans": [
        {"start": start, "end": start + len("Zorblat Quexley"), "label": "NAME", "group": "g1"}]}) + "\n"
        + json.dumps({"text": texts[1], "spans": []}) + "\n", encoding="utf-8")
    out = _report(str(src), "--scope", "detected", "--detector", "regex", "--spans", str(spans),
                  "--key", str(_key(tmp_path)), "--threshold", "change_rate=0")
    names = {n["group"]: n for n in out["attacks"]["names"]}
    assert names["all"]["tokens"] == 2 and names["all"]["verbatim"] == 2 and names["all"]["top1"] == 1.0
    assert names["g1"]["top1"] == 1.0
    checks = {c["figure"]: c for c in out["verdict"]["checks"]}
    assert checks["names_top1"]["status"] == "fail" and checks["names_top10"]["status"] == "fail"
    assert out["verdict"]["status"] == "fail"


def test_spans_and_input_cannot_both_be_standard_input(tmp_path: Path) -> None:
    """The input read all of standard input and --spans then said '-: no records' (audit)."""
    result = runner.invoke(app, ["privacy-report", "-", "--spans", "-", "--no-contextual"],
                           input="\n".join(NOTES) + "\n")
    assert result.exit_code == 2
    assert result.output.splitlines() == [
        "error: --spans and INPUT cannot both be standard input; give the spans file by name"]


def test_epsilon_of_the_longest_record_adds_all_its_fields(tmp_path: Path) -> None:
    """Privacy audit: with two --field the verdict's 'epsilon spent by the longest record' was its
    longest field's (13 x 10 = 130); the row releases both and spends 20 x 10 = 200."""
    src = tmp_path / "in.csv"
    src.write_text('id,a,b\n1,"The patient walked to the clinic today.","She said the pain was worse at night '
                   'and better in the morning."\n2,"No fever.","Cough at night."\n', encoding="utf-8")
    result = runner.invoke(app, ["privacy-report", "--no-contextual", str(src), "--field", "a", "--field",
                                 "b", "-m", "exponential", "--epsilon", "10", "--key", str(_key(tmp_path)),
                                 "--max-words", "5", "--draws", "5", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    checks = {c["figure"]: c for c in out["verdict"]["checks"]}
    assert checks["epsilon_record"]["value"] == 200.0
    assert out["release"]["longest_record_mechanism_parts"] == 20
    assert out["release"]["longest_document_mechanism_parts"] == 13


def test_membership_without_an_exact_law_reads_the_words_returned_as_themselves(tmp_path: Path) -> None:
    """Privacy audit: laplace has no exact law, so the word game was not played and templated
    notes passed membership on their layout (0.500); laplace at a readable epsilon returns many
    words unchanged, and the rare ones point at their note."""
    path, key = _templated_notes(tmp_path)
    out = _report(str(path), "--key", str(key), "-m", "laplace", "--epsilon", "70", "--mc-draws", "2",
                  "--draws", "5", "--max-words", "5")
    membership = out["membership"]
    assert membership["layout_auc"] == 0.5 and membership["word_auc"] is not None
    assert membership["word_auc"] > 0.55 and membership["auc"] == membership["word_auc"]  # 0.62 here


@pytest.mark.parametrize("handler", ["bogus", "ignore", "surrogateescape"])
def test_an_unknown_encoding_error_handler_is_refused_in_one_line(tmp_path: Path, handler: str) -> None:
    """privacy-report took any Python error handler: a typo ended in a LookupError traceback at
    the first invalid byte (found by the second API audit; anonymize, review and detect refused it)."""
    path = tmp_path / "notes.txt"
    path.write_bytes(f"Patient {CANARY} was seen \xff today.\n".encode("latin-1"))
    result = runner.invoke(app, ["privacy-report", str(path), "--seed", "1", "--encoding-errors", handler])
    assert result.exit_code == 2
    assert result.output.strip() == f"error: encoding errors must be one of strict, replace, got {handler!r}"
