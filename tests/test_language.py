"""The English check of anonymize: a warning, or a refusal with --require-english (issue 34)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedanon import files
from embedanon.cli import app
from embedanon.errors import InputError
from embedanon.keys import write_key_file
from embedanon.language import MIN_WORDS, SAMPLE_WORDS, THRESHOLD, LanguageSample
from embedanon.pipeline import Anonymizer
from tests.helpers.embeddings import write_glove

# Public domain (1863): real English prose, the yardstick's English side in a test.
GETTYSBURG = (
    "Four score and seven years ago our fathers brought forth on this continent, a new nation, conceived in "
    "Liberty, and dedicated to the proposition that all men are created equal. Now we are engaged in a great "
    "civil war, testing whether that nation, or any nation so conceived and so dedicated, can long endure. We "
    "are met on a great battle-field of that war. We have come to dedicate a portion of that field, as a final "
    "resting place for those who here gave their lives that that nation might live. It is altogether fitting "
    "and proper that we should do this. But, in a larger sense, we can not dedicate, we can not consecrate, we "
    "can not hallow this ground. The brave men, living and dead, who struggled here, have consecrated it, far "
    "above our poor power to add or detract. The world will little note, nor long remember what we say here, "
    "but it can never forget what they did here. It is for us the living, rather, to be dedicated here to the "
    "unfinished work which they who fought here have thus far so nobly advanced. It is rather for us to be here "
    "dedicated to the great task remaining before us, that from these honored dead we take increased devotion "
    "to that cause for which they gave the last full measure of devotion, that we here highly resolve that these "
    "dead shall not have died in vain, that this nation, under God, shall have a new birth of freedom, and that "
    "government of the people, by the people, for the people, shall not perish from the earth.")
# Clinical paragraphs written for this test in six languages (the German example first).
OTHERS = {
    "de": "Frau Anna Müller aus München wurde am 3. März in die Klinik aufgenommen. Sie klagte über Brustschmerzen "
          "und Atemnot, die seit zwei Tagen bestehen. Der Blutdruck war erhöht, die Herzfrequenz lag bei 88 "
          "Schlägen pro Minute. Wir empfehlen eine weitere Abklärung durch den Kardiologen und eine Kontrolle in "
          "einer Woche. Die Patientin ist mit dem Vorgehen einverstanden.",
    "fr": "Madame Claire Dubois, âgée de 67 ans, a été admise à l'hôpital pour une douleur thoracique. Elle signale "
          "un essoufflement depuis deux jours et une fatigue importante. La tension artérielle était élevée et le "
          "rythme cardiaque régulier. Nous recommandons un suivi en cardiologie dans une semaine.",
    "es": "El señor Juan Pérez, de 54 años, acudió a urgencias por dolor en el pecho y dificultad para respirar. "
          "Tiene antecedentes de hipertensión y diabetes tipo 2. La presión arterial estaba elevada. Se recomienda "
          "control con cardiología en una semana y continuar con la medicación habitual.",
    "it": "Il signor Marco Rossi, di 61 anni, è stato ricoverato per un dolore toracico insorto durante la notte. "
          "Riferisce anche affanno e stanchezza da alcuni giorni. La pressione arteriosa era alta. Si consiglia "
          "una visita cardiologica entro una settimana.",
    "nl": "Mevrouw Sanne de Vries, 45 jaar, werd opgenomen in het ziekenhuis met pijn op de borst. Zij heeft sinds "
          "twee dagen last van kortademigheid en vermoeidheid. De bloeddruk was verhoogd. Wij adviseren een "
          "controle bij de cardioloog over een week.",
    "ru": "Пациентка Анна Иванова, 52 года, поступила в больницу с болью в груди и одышкой. Давление было "
          "повышено. Рекомендовано наблюдение у кардиолога через неделю.",
}


def _sample(text: str, copies: int) -> LanguageSample:
    sample = LanguageSample()
    for _ in range(copies):
        sample.add(text)
    return sample


def test_english_prose_passes_and_other_languages_do_not() -> None:
    english = _sample(GETTYSBURG, 2)
    assert english.words >= MIN_WORDS and english.english is True and english.share is not None
    assert english.share > 3 * THRESHOLD  # far from the line
    for lang, text in OTHERS.items():
        sample = _sample(text, 20)
        assert sample.english is False, lang
    assert _sample(OTHERS["de"], 1).english is None  # too few words to tell
    full = _sample(GETTYSBURG, 100)
    assert full.full and SAMPLE_WORDS <= full.words < SAMPLE_WORDS + 300  # counting stops when full


@pytest.fixture
def glove(tmp_path: Path) -> Path:
    return write_glove(tmp_path / "tiny.glove.txt", ["patient", "doctor", "nurse", "hospital", "clinic", "pain",
                                                     "ache", "heart", "chest", "river", "table", "stone"])


def test_anonymize_files_warns_refuses_or_stays_silent(tmp_path: Path, glove: Path) -> None:
    german = tmp_path / "de.txt"
    german.write_text((OTHERS["de"] + "\n") * 12, encoding="utf-8")
    english = tmp_path / "en.txt"
    english.write_text((GETTYSBURG + "\n") * 3, encoding="utf-8")
    anonymizer = Anonymizer(str(glove), seed=1)
    stats = files.anonymize_files([str(german), str(english)], str(tmp_path / "out"), anonymizer)
    assert len(stats.language_notices) == 1 and stats.language_notices[0].startswith(f"{german} does not look")
    assert "Frau" not in stats.language_notices[0] and (tmp_path / "out" / "de.txt").exists()
    assert not files.anonymize_files([str(german)], str(tmp_path / "o.txt"), anonymizer,
                                     language="off").language_notices
    with pytest.raises(InputError, match="does not look like English: 0 % .* --require-english refuses it"):
        files.anonymize_files([str(german)], str(tmp_path / "refused.txt"), anonymizer, language="require")
    assert not (tmp_path / "refused.txt").exists()
    assert not files.anonymize_files([str(english)], str(tmp_path / "e.txt"), anonymizer,
                                     language="require").language_notices


def test_cli_warning_and_require_english(tmp_path: Path, glove: Path) -> None:
    runner = CliRunner()
    src = tmp_path / "de.jsonl"
    src.write_text("".join(f'{{"text": "{OTHERS["de"]}"}}\n' for _ in range(12)), encoding="utf-8")
    key = tmp_path / "release.key"
    write_key_file(key)
    base = ["anonymize", str(src), "--key", str(key), "--embedding", str(glove)]
    warned = runner.invoke(app, [*base, "-o", str(tmp_path / "o.jsonl")])
    assert warned.exit_code == 0, warned.output
    lines = warned.stderr.splitlines()
    assert [line.split(":")[0] for line in lines if line.startswith("warning")] == ["warning"]
    assert "Müller" not in warned.stderr and lines[-1].startswith("anonymized 12 records")
    refused = runner.invoke(app, [*base, "-o", str(tmp_path / "r.jsonl"), "--require-english"])
    assert refused.exit_code == 2 and len(refused.stderr.splitlines()) == 1
    assert "--require-english refuses it" in refused.stderr and not (tmp_path / "r.jsonl").exists()
    quiet = runner.invoke(app, [*base, "-o", str(tmp_path / "q.jsonl"), "-q"])
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_privacy_report_and_review_warn_as_anonymize_does(tmp_path: Path, glove: Path) -> None:
    """Verdict audit (stop 58): privacy-report and review printed English-based figures on German
    notes without the warning anonymize gives; an English input gets none."""
    runner = CliRunner()
    key = tmp_path / "release.key"
    write_key_file(key)
    for name, text, warned in (("de.jsonl", OTHERS["de"], True), ("en.jsonl", GETTYSBURG, False)):
        src = tmp_path / name
        src.write_text("".join(f'{{"text": "{text}"}}\n' for _ in range(12)), encoding="utf-8")
        common = [str(src), "--key", str(key), "--embedding", str(glove), "-m", "knn", "--k", "3"]
        report = runner.invoke(app, ["privacy-report", *common, "--progress", "none"])
        page = runner.invoke(app, ["review", *common, "-o", str(tmp_path / f"{name}.html"), "--no-attacks"])
        for result in (report, page):
            assert result.exit_code == 0, result.output
            assert ("does not look like English" in result.stderr) == warned
            assert "Müller" not in result.stderr
