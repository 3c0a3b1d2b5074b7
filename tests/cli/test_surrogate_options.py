"""The surrogate options of the release commands (issue 33): a fixed culture mix, gender only
when asked, the consistency scope; refused where no span becomes a surrogate."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedanon.cli import app
from embedanon.cli.options import parse_name_cultures
from embedanon.surrogates.names import lexicon
from tests.helpers.embeddings import write_glove

runner = CliRunner()
_WORDS = ["patient", "doctor", "was", "seen", "by", "today", "and", "again", "with", "pain"]
TEXT = "Amara Okafor saw the patient today.\nAmara Okafor saw the patient again.\n"


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return write_glove(tmp_path / "tiny.glove.txt", _WORDS)


def _run(tiny: Path, tmp_path: Path, *args: str) -> tuple[int, str, list[str]]:
    src = tmp_path / "in.txt"
    src.write_text(TEXT, encoding="utf-8")
    result = runner.invoke(app, ["anonymize", str(src), "--embedding", str(tiny), "-q", "--k", "3", *args])
    return result.exit_code, result.stderr, result.stdout.splitlines()


def test_name_culture_specs() -> None:
    assert parse_name_cultures(None) == parse_name_cultures("mixed") == "mixed"
    assert parse_name_cultures("anglo, hispanic") == ("anglo", "hispanic")
    assert parse_name_cultures("anglo=0.6,hispanic=0.4") == {"anglo": 0.6, "hispanic": 0.4}


def test_record_consistency_by_default_and_corpus_when_asked(tiny: Path, tmp_path: Path) -> None:
    """Two records naming one person: unrelated surrogates by default, one with corpus."""
    hybrid = ["--scope", "hybrid", "--detector", "regex", "--deny", str(_deny(tmp_path))]
    code, err, (first, second) = _run(tiny, tmp_path, *hybrid)
    assert code == 0, err
    names = [line.split()[:2] for line in (first, second)]  # the name's surrogate, then the words
    assert names[0] != names[1] and "Okafor" not in first + second
    code, err, (first, second) = _run(tiny, tmp_path, *hybrid, "--surrogate-consistency", "corpus")
    assert code == 0, err
    assert first.split()[:2] == second.split()[:2]


def test_a_mix_of_ones_own_is_followed(tiny: Path, tmp_path: Path) -> None:
    hybrid = ["--scope", "hybrid", "--detector", "regex", "--deny", str(_deny(tmp_path))]
    code, err, lines = _run(tiny, tmp_path, *hybrid, "--name-cultures", "ja_JP", "--keep-gender")
    assert code == 0, err
    lex = lexicon()
    japanese = 1 << lex.bits["ja_JP"]
    for line in lines:
        given, surname = line.split()[:2]
        assert lex.masks[given.lower()] & japanese and lex.masks[surname.lower()] & japanese


@pytest.mark.parametrize(("args", "message"), [
    (["--keep-gender"], "--keep-gender applies only to --scope detected or hybrid"),
    (["--name-cultures", "anglo"], "--name-cultures applies only to --scope detected or hybrid"),
    (["--keep-formats", "--surrogate-consistency", "corpus"], "--surrogate-consistency applies only where"),
    (["--no-name-guard"], "--name-guard applies only to --scope hybrid"),
    (["--scope", "detected", "--detector", "regex", "--no-name-guard"], "--name-guard applies only to --scope hybrid"),
    (["--scope", "hybrid", "--detector", "regex", "--name-cultures", "klingon"], "name_cultures must name"),
    (["--scope", "hybrid", "--detector", "regex", "--name-cultures", "anglo=x"], "finite number > 0"),
    (["--scope", "hybrid", "--detector", "regex", "--surrogate-consistency", "global"], "consistency must be"),
])
def test_options_refused_in_one_line(tiny: Path, tmp_path: Path, args: list[str], message: str) -> None:
    code, err, lines = _run(tiny, tmp_path, *args)
    assert code == 2 and err.count("\n") == 1 and message in err, err
    assert lines == []


def _deny(tmp_path: Path) -> Path:
    path = tmp_path / "deny.tsv"
    path.write_text("NAME\tAmara Okafor\n", encoding="utf-8")
    return path


@pytest.mark.default_embedding
def test_name_guard_on_by_default_in_hybrid(tmp_path: Path) -> None:
    """At epsilon 2,000 the exponential mechanism keeps every word: the guard (decision 0380)
    redraws the names written like names; --no-name-guard leaves them to the mechanism."""
    src = tmp_path / "in.txt"
    src.write_text("yesterday we met Nick and Stuart near the station.\n", encoding="utf-8")
    base = ["anonymize", str(src), "-q", "--scope", "hybrid", "--detector", "regex", "--mechanism",
            "exponential", "--epsilon", "2000", "--seed", "3"]
    guarded = runner.invoke(app, base)
    kept = runner.invoke(app, [*base, "--no-name-guard"])
    assert guarded.exit_code == kept.exit_code == 0, guarded.stderr + kept.stderr
    assert kept.stdout == "yesterday we met Nick and Stuart near the station.\n"
    words = guarded.stdout.split()
    assert "Nick" not in words and "Stuart" not in words
    assert words[:3] == ["yesterday", "we", "met"] and words[-3:] == ["near", "the", "station."]
