"""The page: the verdict on top, the look-alike list and its links, marks only on detected spans
and look-alikes at their offsets, escaping, banner, CSP, no external resources, no mapping outside
the panes, long and hostile records cut and marked, written private and atomically."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import os
import re
import stat
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest

from embedanon import Anonymizer
from embedanon._atomic import OutputError
from embedanon.pipeline.document import prefix_end
from embedanon.review import BANNER, Figure, build_review, render_html, write_review
from embedanon.review.assets import JS
from embedanon.review.model import label_of

HOSTILE = 'Zebulonius has chest pain <script>alert(1)</script> & "x" \'y\' <img src=x onerror=alert(2)>'
NOTES = [HOSTILE, "", "The doctor saw the patient at night, pressure 140/90 at 10:30, call 555-123-4567 or "
         "mail jo@example.com.", "Mother had fever and cough today."]


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    text: list[str] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())


class Page(HTMLParser):
    """Every element with its attributes and its text content (all descendants)."""

    VOID = {"meta", "input", "br", "img", "link", "line", "rect"}

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=True)
        self.nodes: list[Node] = []
        self._open: list[Node] = []
        self.feed(source)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.nodes.append(node)
        if tag not in self.VOID:
            self._open.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.nodes.append(Node(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self._open) - 1, -1, -1):
            if self._open[i].tag == tag:
                del self._open[i:]
                return

    def handle_data(self, data: str) -> None:
        for node in self._open:
            node.text.append(data)

    def find(self, tag: str | None = None, cls: str | None = None) -> list[Node]:
        return [n for n in self.nodes if (tag is None or n.tag == tag) and (cls is None or cls in n.classes)]


@pytest.fixture(scope="module")
def notes_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("review-html") / "notes.txt"
    path.write_text("\n".join(NOTES) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def detected(tiny_embedding: Path) -> Anonymizer:
    """Scope detected with the regex detector: phones and e-mails change, every other word stays."""
    return Anonymizer(str(tiny_embedding), "knn", k=3, seed=1, scope="detected", detectors="regex")


@pytest.fixture(scope="module")
def review(notes_file: Path, detected: Anonymizer):  # type: ignore[no-untyped-def]
    base = build_review(str(notes_file), detected, sources=(), generated="2026-01-01 00:00 UTC")
    figures = (Figure("attack", "public-prior attack, top-1", 0.25, 12, "a note", key="attack_public_top1"),
               Figure("mechanism", "N_w: draws returning the word itself", float("nan"), 0, key="n_w"))
    return dataclasses.replace(base, figures=figures, notes=("attacks: not measured (why)",))


@pytest.fixture(scope="module")
def page(review) -> str:  # type: ignore[no-untyped-def]
    return render_html(review)


def test_structure_and_banner(review, page: str) -> None:  # type: ignore[no-untyped-def]
    assert page.startswith("<!DOCTYPE html>")
    doc = Page(page)
    banners = [n for n in doc.nodes if n.attrs.get("id") == "banner"]
    assert len(banners) == 1 and banners[0].attrs.get("role") == "alert"
    assert "ORIGINAL" in "".join(banners[0].text) and BANNER in "".join(banners[0].text)
    assert page.index('id="banner"') < page.index("<h1>") < page.index('id="verdict"')  # on top
    assert page.index('id="verdict"') < page.index('id="lookalikes"') < page.index('<section class="records">')
    assert "ORIGINAL TEXT" in "".join(doc.find("title")[0].text)
    articles = doc.find("article", "record")
    assert len(articles) == 3 == len(review.records)  # the empty line is not sampled
    assert review.records_total == 4 and review.empty_records == 1
    assert [a.attrs["id"] for a in articles] == ["record-1", "record-3", "record-4"]
    assert len(doc.find("div", "orig")) == len(doc.find("div", "anon")) == 3
    assert len(doc.find("svg")) == 1 and doc.find(None, "cards")  # the per-record chart, no attack bars
    assert "attacks: not measured (why)" in page


def test_the_verdict_leads_with_its_settings(review, page: str) -> None:  # type: ignore[no-untyped-def]
    doc = Page(page)
    (panel,) = [n for n in doc.nodes if n.attrs.get("id") == "verdict"]
    text = " ".join("".join(panel.text).split())
    verdict = review.verdict
    assert verdict is not None and f"v-{verdict.status.replace('/', '-')}" in panel.classes
    assert verdict.summary() in text and "mechanism knn (k = 3)" in text and "scope detected" in text
    assert review.settings.key_fingerprint in text and review.settings.digest in text
    rows = doc.find("tr")
    checks = [r for r in rows if any(c.startswith("c-") for c in r.classes)]
    assert len(checks) == len(verdict.checks) >= 3
    # the failing checks first, with what moves them; the others (in the verdict's order) folded
    ordered = [c for c in verdict.checks if c.status == "fail"] + [c for c in verdict.checks if c.status != "fail"]
    for row, check in zip(checks, ordered, strict=True):
        cells = "".join(row.text)
        assert check.status.upper() in cells and check.label in cells
        assert (check.threshold.remedy in cells) == (check.status == "fail")
    (folded,) = doc.find("details", "passed")
    assert "".join(folded.text).count("PASS") + "".join(folded.text).count("N/A") == \
        sum(c.status != "fail" for c in verdict.checks)
    # a failing figure shows what moves it; without a verdict the page says it is not judged
    failing = dataclasses.replace(review, verdict=judge_with(review, {"change_rate": 1.01}))
    failed = render_html(failing)
    assert "FAIL" in failed and failing.verdict.check("change_rate").threshold.remedy in unescape(failed)
    unjudged = render_html(dataclasses.replace(review, verdict=None))
    assert "NOT JUDGED" in unjudged and "public-prior attack, top-1" in unjudged


def test_each_verdict_row_gives_measured_and_threshold_in_one_unit(review) -> None:  # type: ignore[no-untyped-def]
    """The page showed 'words recovered among five guesses 97.5% <= 0.8' and an AUC of 1.0 as
    '100.0% <= 0.6' (found by reading a review page in a browser)."""
    from embedanon.privacy.verdict import judge

    verdict = judge({"attack_top5:oracle prior": 0.975, "membership_auc": 1.0, "s_w": 10.0, "n_w": 0.0})
    doc = Page(render_html(dataclasses.replace(review, verdict=verdict)))
    rows = ["".join(r.text) for r in doc.find("tr") if any(c.startswith("c-") for c in r.classes)]

    def row_of(label: str) -> str:
        (text,) = [t for t in rows if label in t]
        return text

    assert "97.5%" in row_of("five guesses") and "<= 80%" in row_of("five guesses")
    assert "1.000" in row_of("held note") and "<= 0.6" in row_of("held note") and "%" not in row_of("held note")
    assert ">= 5" in row_of("S_w") and "<= 20%" in row_of("N_w")


def judge_with(review, overrides):  # type: ignore[no-untyped-def]
    from embedanon.review import judge_review, threshold_table

    return judge_review(review, threshold_table(overrides))


def test_hostile_text_is_escaped(page: str) -> None:
    doc = Page(page)
    scripts = doc.find("script")
    assert len(scripts) == 1 and "".join(scripts[0].text) == JS
    assert not doc.find("img")
    assert "<script>alert" not in page and "<img" not in page
    assert page.count("&lt;") >= 6  # 3 in the original pane, 3 in the anonymized one
    origs = ["".join(n.text) for n in doc.find("div", "orig")]
    assert any("<script>alert(1)</script>" in t and '"x" \'y\' <img src=x' in t for t in origs)


def test_only_detected_spans_and_lookalikes_are_marked(review, page: str) -> None:  # type: ignore[no-untyped-def]
    doc = Page(page)
    spans: dict[str, list[Node]] = {}
    for node in doc.find("span", "it"):
        spans.setdefault(node.attrs["data-i"], []).append(node)
    labelled = 0
    for rec in review.records:
        for t, text in enumerate(rec.texts):
            for n, item in enumerate(text.document.items):
                key = f"{rec.number}-{t}-{n}"
                if label_of(item) is None:
                    assert key not in spans  # a replaced word outside a detected span: plain text
                    continue
                labelled += 1
                pair = spans[key]
                assert len(pair) == 2
                assert "".join(pair[0].text) == text.original[item.start:item.end]
                assert "".join(pair[1].text) == text.document.text[item.new_start:item.new_end]
                assert pair[0].attrs["title"].startswith(f"label: {item.label} \u00b7 kind: {item.kind}")
    assert labelled == len(spans) >= 2  # the phone and the e-mail address (surrogates by default)
    marks: dict[str, list[Node]] = {}
    for node in doc.find("mark", "la"):
        marks.setdefault(node.attrs["data-i"], []).append(node)
    found = [(rec, t, n, la) for rec in review.records for t, text in enumerate(rec.texts)
             for n, la in enumerate(text.lookalikes)]
    assert len(found) == len(marks) >= 3  # Zebulonius, 140/90's numbers, 10:30's
    for rec, t, n, la in found:
        text = rec.texts[t]
        orig, new = marks[f"la-{rec.number}-{t}-{n}"]
        assert "".join(orig.text) == text.original[la.start:la.end] == "".join(new.text)
        assert orig.attrs["id"] == f"la-{rec.number}-{t}-{n}" and "id" not in new.attrs
    # the panes hold the texts exactly
    origs = ["".join(n.text).removeprefix("Original") for n in doc.find("div", "orig")]
    anons = ["".join(n.text).removeprefix("Anonymized") for n in doc.find("div", "anon")]
    assert origs == [t.original for r in review.records for t in r.texts]
    assert anons == [t.document.text for r in review.records for t in r.texts]


def test_the_lookalike_list_links_to_every_occurrence(review, page: str) -> None:  # type: ignore[no-untyped-def]
    doc = Page(page)
    ids = {n.attrs["id"] for n in doc.nodes if "id" in n.attrs}
    (panel,) = [n for n in doc.nodes if n.attrs.get("id") == "lookalikes"]
    links = [n.attrs["href"] for n in doc.find("a") if n.attrs.get("href", "").startswith("#la-")]
    firsts = {}  # each word links once per record, to its first occurrence there
    for i, row in enumerate(review.lookalike_rows()):
        for number, t, n in row.places:
            firsts.setdefault((i, number), f"#la-{number}-{t}-{n}")
    assert sorted(links) == sorted(firsts.values()) and all(link[1:] in ids for link in links)
    listed = {"".join(n.text) for n in doc.find("code", "word")}
    assert {"Zebulonius", "140", "10"} <= listed  # a capitalized unknown word and digit runs
    assert "Mother" not in listed and "555" not in listed  # known word at a sentence start; a phone changed
    assert "Zebulonius" in "".join(panel.text)


def test_no_external_resources_and_a_strict_csp(page: str) -> None:
    assert not re.search(r"(?i)(https?:|//[a-z0-9.-]+\.[a-z]{2,}/|@import|url\()", page)
    doc = Page(page)
    assert not doc.find("link") and not doc.find("iframe") and not doc.find("object")
    for node in doc.nodes:
        assert "src" not in node.attrs
        assert node.attrs.get("href", "#").startswith("#")
        assert "style" not in node.attrs and not any(a.startswith("on") for a in node.attrs)
    csp = next(n.attrs["content"] for n in doc.find("meta") if n.attrs.get("http-equiv"))
    assert "default-src 'none'" in csp and "connect-src 'none'" in csp

    def digest(source: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode()).digest()).decode() + "'"

    assert f"script-src {digest(''.join(doc.find('script')[0].text))};" in csp
    assert f"style-src {digest(''.join(doc.find('style')[0].text))};" in csp


def _leaked(review, page: str) -> set[str]:  # type: ignore[no-untyped-def]
    """Words (5+ letters) of the originals or releases visible outside the records section,
    less the look-alikes (words the release kept as they were: the list names them)."""
    outside = page[: page.index('<section class="records">')]
    outside = re.sub(r"<style>.*?</style>|<[^>]+>", " ", outside, flags=re.S)  # visible text only
    words = {w for r in review.records for t in r.texts
             for w in re.findall(r"[A-Za-z]{5,}", t.original + " " + t.document.text)}
    kept = {row.word for row in review.lookalike_rows()}
    assert "Zebulonius" in words and "Zebulonius" in kept
    return {w for w in words - kept if re.search(rf"\b{w}\b", outside)}


def test_no_original_or_replacement_words_outside_the_panes(review, page: str) -> None:  # type: ignore[no-untyped-def]
    assert not _leaked(review, page)
    # negative control: a note quoting a word is caught
    quoting = dataclasses.replace(review, notes=("attacks: failed on doctor",))
    assert _leaked(quoting, render_html(quoting)) == {"doctor"}


def test_epsilon_shown_only_for_dp_mechanisms(review) -> None:  # type: ignore[no-untyped-def]
    assert "n\u00b7\u03b5 =" not in render_html(review)
    dp = dataclasses.replace(review, settings=dataclasses.replace(review.settings, epsilon=13.0),
                             longest_record_draws=11)
    assert dp.epsilon_spent == 143.0
    assert "n\u00b7\u03b5 = 143 spent" in render_html(dp)


def test_written_private_and_atomic(review, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    old = os.umask(0o022)
    try:
        out = tmp_path / "review.html"
        write_review(review, out)
        assert stat.S_IMODE(out.stat().st_mode) == 0o600
        assert out.read_text(encoding="utf-8") == render_html(review)
        assert [p.name for p in tmp_path.iterdir()] == ["review.html"]  # no temp file left
        # it holds the original text: owner-only even over a page others could read (0376)
        os.chmod(out, 0o644)
        write_review(review, out)
        assert stat.S_IMODE(out.stat().st_mode) == 0o600
    finally:
        os.umask(old)
    for bad in ("-", "/dev/null", "/dev/stdout", str(tmp_path), str(tmp_path / "missing" / "r.html")):
        with pytest.raises(OutputError):
            write_review(review, bad)


#: One line of about 1 MB: markup, a script end, right-to-left and zero-width characters, a long
#: word, and a name after the cut.
HOSTILE_LINE = ("</script><script>document.title='pwned'</script> <b onmouseover=x>bold</b> "
                "\u202eevil\u202c \u200bZero\u200dwidth \u05e9\u05dc\u05d5\u05dd " * 20_000)[:1_000_000] \
    + " Quexley"


def test_a_long_hostile_record_is_cut_marked_and_inert(tiny_embedding: Path, anonymizer: Anonymizer,
                                                       tmp_path: Path) -> None:
    src = tmp_path / "hostile.txt"
    src.write_text(HOSTILE_LINE + "\nMother had fever.\n", encoding="utf-8")
    review = build_review(str(src), anonymizer, sources=(), max_chars=5_000)
    long, short = (r.texts[0] for r in review.records)
    assert long.truncated and long.length == len(HOSTILE_LINE) and 0 < len(long.original) <= 5_000
    assert HOSTILE_LINE.startswith(long.original) and not short.truncated
    page = render_html(review)
    assert len(page.encode("utf-8")) < 200_000  # bounded by the cut, not by the 1 MB line
    assert "Quexley" not in page  # after the cut: never on the page
    doc = Page(page)
    assert len(doc.find("script")) == 1 and not doc.find("b")
    assert "</script><script>" not in page and "&lt;/script&gt;" in page
    notes = doc.find("div", "cut")
    assert len(notes) == 2 and f"of {len(HOSTILE_LINE):,} characters" in "".join(notes[0].text)
    assert "truncated" in "".join(n for node in doc.find("span", "chip") for n in node.text)
    # every bidirectional control stays inside the <bdi> of its pane
    for pane in doc.find("div", "text"):
        assert pane.text == [] or doc.nodes[doc.nodes.index(pane) + 1].tag == "bdi"


def test_a_long_line_costs_memory_bounded_by_the_cut(anonymizer: Anonymizer, tmp_path: Path) -> None:
    """Audit defect 16: one 20 MB line peaked at 1.54 GB. The counting pass streams over a long
    line and only the part shown is anonymized and rendered, so a 2 MB line costs a few times its
    own size (the line itself, its identity bytes), not a multiple of its word count."""
    import tracemalloc

    line = ("the patient had fever and cough at night " * 50_000)[:2_000_000]
    src = tmp_path / "long.txt"
    src.write_text(line + "\n", encoding="utf-8")
    warm = tmp_path / "short.txt"  # loads the embedding and the word lists before measuring
    warm.write_text("the patient\n", encoding="utf-8")
    build_review(str(warm), anonymizer, sources=())
    tracemalloc.start()
    try:
        review = build_review(str(src), anonymizer, sources=())
        render_html(review)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 15_000_000, peak  # 6.5 MB; the whole line anonymized with items took hundreds
    assert review.records[0].texts[0].truncated


@pytest.mark.parametrize(("unit", "line"), [
    ("record", "\u60a3\u8005" * 3_000),  # CJK: no whitespace at all
    ("record", "Zebulonius" + "x" * 7_000),  # one long token (a blob, a data URL)
    ("sentence", "the patient had fever and cough at night " * 200),  # no sentence end
])
def test_a_long_text_with_no_place_to_cut_is_shown_not_emptied(tiny_embedding: Path, tmp_path: Path,
                                                              unit: str, line: str) -> None:
    """Detection-commands audit: a text longer than --max-chars with no whitespace before the
    limit (or, under --noise-unit sentence, no sentence end) showed 'the first 0 of N characters'
    and measured nothing. It is now cut inside a word (sentence) and the page says so."""
    anonymizer = Anonymizer(embedding=str(tiny_embedding), k=3, seed=5, min_length=1, noise_unit=unit)
    src = tmp_path / "long.txt"
    src.write_text(line + "\nthe patient\n", encoding="utf-8")
    review = build_review(str(src), anonymizer, sources=(), max_chars=5_000, sample=0)
    cut, short = (r.texts[0] for r in review.records)
    assert 4_900 <= len(cut.original) <= 5_000 and line.startswith(cut.original)  # it was 0
    assert cut.truncated and not cut.exact_cut and short.exact_cut and not short.truncated
    assert cut.stats.words > 0 and cut.document.text.strip()
    note = "".join(Page(render_html(review)).find("div", "cut")[0].text)
    assert "cut inside a word" in note and f"of {len(line):,} characters" in note


def test_a_text_with_a_place_to_cut_keeps_the_exact_cut(anonymizer: Anonymizer, tmp_path: Path) -> None:
    line = "the patient had fever. " * 400
    src = tmp_path / "long.txt"
    src.write_text(line + "\n", encoding="utf-8")
    text = build_review(str(src), anonymizer, sources=(), max_chars=5_000).records[0].texts[0]
    assert text.truncated and text.exact_cut and len(text.original) == prefix_end(line, 5_000)
    assert "cut inside" not in render_html(build_review(str(src), anonymizer, sources=(), max_chars=5_000))


def test_the_lookalike_heading_counts_words_and_occurrences(tmp_path: Path, detected: Anonymizer) -> None:
    """Second detection-commands audit: a name kept three times and a code once made the heading
    "(5)" over a list of three rows, which read as rows missing."""
    notes = tmp_path / "notes.txt"
    notes.write_text("The doctor met Zebulonius and Zebulonius.\nLater Zebulonius had MRN-88213 at 10am.\n",
                     encoding="utf-8")
    review = build_review(str(notes), detected, sources=(), generated="2026-01-01 00:00 UTC")
    doc = Page(render_html(review))
    heading = "".join(next(n for n in doc.find("h2") if "look like personal data" in "".join(n.text)).text)
    assert [(row.word, len(row.places)) for row in review.lookalike_rows()] == [
        ("Zebulonius", 3), ("MRN-88213", 1), ("10am", 1)]
    assert heading == "Unchanged words that look like personal data (3 words, 5 occurrences)"


def test_the_settings_say_how_spans_were_found_never_the_lists(tmp_path: Path, tiny_embedding: Path,
                                                                anonymizer: Anonymizer) -> None:
    """Second detection-commands audit: the settings of a detected or hybrid page named no
    detector, option, strategy or word list, so a page made with '-d regex' and one with
    'model,regex' differed only in the configuration digest. The deny list's strings (private
    words) stay off the page, as do option values (a URL may carry a password)."""
    notes = tmp_path / "notes.txt"
    notes.write_text("The doctor saw the patient today.\n", encoding="utf-8")
    hybrid = Anonymizer(str(tiny_embedding), "knn", k=3, seed=1, scope="hybrid", detectors="regex",
                        strategies={"PHONE": "redact"}, allow=["Okafor"], deny={"Zebulonius": "NAME"})
    settings = dict(build_review(str(notes), hybrid, sources=()).settings.detection)
    assert settings == {"Detectors": "regex", "Detector options": "none", "Strategies": "PHONE=redact",
                        "Allow and deny lists": "1 allowed and 1 denied strings (not shown)",
                        "Phone and ID formats": "neutral"}
    page = render_html(build_review(str(notes), hybrid, sources=()))
    assert "<th>Detectors</th><td>regex</td>" in page
    assert "Zebulonius" not in page and "Okafor" not in page
    plain = render_html(build_review(str(notes), anonymizer, sources=()))  # scope all: no such rows
    assert "<th>Detectors</th>" not in plain


def test_a_sample_of_all_over_more_records_than_a_page_holds_says_so(tmp_path: Path,
                                                                    anonymizer: Anonymizer) -> None:
    """Second detection-commands audit: '--sample 0' on 1,500 records made '1,000 of 1,500 records
    (requested all)', which read as 500 records lost; the page holds at most 1,000 and now says so."""
    from embedanon.review.sample import MAX_SAMPLE

    notes = tmp_path / "notes.txt"
    notes.write_text("the patient was seen\n" * (MAX_SAMPLE + 2) + "\n", encoding="utf-8")
    over = render_html(build_review(str(notes), anonymizer, sample=0, sources=()))
    assert f"{MAX_SAMPLE:,} of {MAX_SAMPLE + 3:,} records (requested all, at most {MAX_SAMPLE:,} a page)" in over
    notes.write_text("the patient was seen\n\n", encoding="utf-8")
    under = render_html(build_review(str(notes), anonymizer, sample=0, sources=()))
    assert "1 of 2 records (requested all), drawn" in under  # the empty record is counted, not capped


def test_the_settings_name_the_noise_unit_and_the_candidates(tmp_path: Path, tiny_embedding: Path) -> None:
    """Review audit of decision 0230's stop: a page made with --noise-unit sentence, --min-length 4
    and a candidate list said so nowhere (only the digest differed). The list's path and words
    stay off the page."""
    import shutil
    import tempfile

    from embedanon.vectors.defaults import owner_only

    notes = tmp_path / "notes.txt"
    notes.write_text("The doctor saw the patient today.\n", encoding="utf-8")
    words = [line.split()[0] for line in tiny_embedding.read_text(encoding="utf-8").splitlines()[1:] if line.split()]
    listed = tmp_path / "secret-candidates.txt"
    listed.write_text("\n".join(words) + "\n", encoding="utf-8")
    plain = render_html(build_review(str(notes), Anonymizer(str(tiny_embedding), "knn", k=3, seed=1), sources=()))
    assert "<th>Noise unit</th><td>each record (--noise-unit record)</td>" in plain
    # the session's tiny embedding lies in pytest's private temp directory: its candidates are its
    # words in the public word list, and the page says so (decision 0237; it had said nothing)
    assert owner_only(tiny_embedding)
    assert ("candidate words of at least 2 letters, restricted to the bundled public word list "
            "(an embedding others may not read)</td>") in plain
    public_dir = Path(tempfile.mkdtemp())
    try:  # the same file where everyone may read it: every word, no restriction named
        public_dir.chmod(0o755)
        public = Path(shutil.copy(tiny_embedding, public_dir / "tiny.glove.txt"))
        public.chmod(0o644)
        if not owner_only(public):
            page = render_html(build_review(str(notes), Anonymizer(str(public), "knn", k=3, seed=1), sources=()))
            assert "candidate words of at least 2 letters</td>" in page and "restricted" not in page
    finally:
        shutil.rmtree(public_dir)
    chosen = Anonymizer(str(tiny_embedding), "knn", k=3, seed=1, noise_unit="sentence", min_length=4,
                        allowlist=str(listed))
    page = render_html(build_review(str(notes), chosen, sources=()))
    assert "each sentence (--noise-unit sentence)" in page
    assert "of at least 4 letters, restricted by a word list (--candidates)" in page
    assert "secret-candidates" not in page


@pytest.mark.parametrize(("origin", "says"), [("file", "they compose"), ("default", "they compose"),
                                              ("fresh", "releases under fresh keys compose")])
def test_the_settings_say_that_releases_under_other_keys_compose(review, origin: str, says: str) -> None:  # type: ignore[no-untyped-def]
    """Left by the verdicts audit: the page said the same key gives the same release, but not that
    a release of the same data under another key is a second draw that composes with the first
    (five such releases of knn give back 92 % of the words, the privacy card), which the person
    signing off a re-export needs to know."""
    settings = dataclasses.replace(review.settings, key_origin=origin)
    page = render_html(dataclasses.replace(review, settings=settings))
    assert says in " ".join(page.split())
