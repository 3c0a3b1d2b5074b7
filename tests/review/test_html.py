"""The page: structure, escaping, spans at the items' offsets, banner, CSP, no external
resources, no mapping outside the panes, written private and atomically."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import os
import re
import stat
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from embedanon import Anonymizer
from embedanon._atomic import OutputError
from embedanon.review import BANNER, Figure, build_review, render_html, write_review
from embedanon.review.assets import JS

HOSTILE = 'Zebulonius has chest pain <script>alert(1)</script> & "x" \'y\' <img src=x onerror=alert(2)>'
NOTES = [HOSTILE, "", "The doctor saw the patient at night, pressure 140/90 at 10:30.",
         "Mother had fever and cough today."]


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
def review(notes_file: Path, anonymizer: Anonymizer):  # type: ignore[no-untyped-def]
    base = build_review(str(notes_file), anonymizer, sources=(), generated="2026-01-01 00:00 UTC")
    figures = (Figure("attack", "public-prior attack, top-1", 0.25, 12, "a note"),
               Figure("mechanism", "N_w: draws returning the word itself", float("nan"), 0))
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
    assert page.index('id="banner"') < page.index("<h1>")  # on top
    assert "ORIGINAL TEXT" in "".join(doc.find("title")[0].text)
    articles = doc.find("article", "record")
    assert len(articles) == 3 == len(review.records)  # the empty line is not sampled
    assert review.records_total == 4 and review.empty_records == 1
    assert [a.attrs["id"] for a in articles] == ["record-1", "record-3", "record-4"]
    assert len(doc.find("div", "orig")) == len(doc.find("div", "anon")) == 3
    assert len(doc.find("svg")) == 2 and doc.find(None, "cards")
    assert "attacks: not measured (why)" in page and "public-prior attack, top-1" in page


def test_hostile_text_is_escaped(page: str) -> None:
    doc = Page(page)
    scripts = doc.find("script")
    assert len(scripts) == 1 and "".join(scripts[0].text) == JS
    assert not doc.find("img")
    assert "<script>alert" not in page and "<img" not in page
    assert page.count("&lt;") >= 6  # 3 in the original pane, 3 in the anonymized one
    origs = ["".join(n.text) for n in doc.find("div", "orig")]
    assert any("<script>alert(1)</script>" in t and '"x" \'y\' <img src=x' in t for t in origs)


def test_every_item_is_a_span_at_its_offsets(review, page: str) -> None:  # type: ignore[no-untyped-def]
    doc = Page(page)
    spans = {}
    for node in doc.find("span", "it"):
        spans.setdefault(node.attrs["data-i"], []).append(node)
    n_items = 0
    for rec in review.records:
        for t, text in enumerate(rec.texts):
            for n, item in enumerate(text.document.items):
                n_items += 1
                pair = spans[f"{rec.number}-{t}-{n}"]
                assert len(pair) == 2
                assert "".join(pair[0].text) == text.original[item.start:item.end]
                assert "".join(pair[1].text) == text.document.text[item.new_start:item.new_end]
                for node in pair:
                    assert node.attrs["title"].startswith(f"kind: {item.kind} \u00b7 stage: {item.stage}")
                    assert f"k-{item.kind}" in node.classes and f"s-{item.stage}" in node.classes
    assert n_items == len(spans) > 10
    # the panes hold the texts exactly
    origs = ["".join(n.text).removeprefix("Original") for n in doc.find("div", "orig")]
    anons = ["".join(n.text).removeprefix("Anonymized") for n in doc.find("div", "anon")]
    assert origs == [t.original for r in review.records for t in r.texts]
    assert anons == [t.document.text for r in review.records for t in r.texts]


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
    """Words (5+ letters) of the originals or releases visible outside the records section."""
    outside = page[: page.index('<section class="records">')]
    outside = re.sub(r"<style>.*?</style>|<[^>]+>", " ", outside, flags=re.S)  # visible text only
    words = {w for r in review.records for t in r.texts
             for w in re.findall(r"[A-Za-z]{5,}", t.original + " " + t.document.text)}
    assert "Zebulonius" in words
    return {w for w in words if re.search(rf"\b{w}\b", outside)}


def test_no_original_or_replacement_words_outside_the_panes(review, page: str) -> None:  # type: ignore[no-untyped-def]
    assert not _leaked(review, page)
    # negative control: a note quoting a word is caught
    quoting = dataclasses.replace(review, notes=("attacks: failed on Zebulonius",))
    assert _leaked(quoting, render_html(quoting)) == {"Zebulonius"}


def test_labels_get_their_own_color_and_tooltip(review) -> None:  # type: ignore[no-untyped-def]
    @dataclass(frozen=True)
    class Labeled:
        start: int
        end: int
        new_start: int
        new_end: int
        kind: str
        stage: str
        label: str

    rec = review.records[0]
    text = rec.texts[0]
    first = text.document.items[0]
    items = (Labeled(first.start, first.end, first.new_start, first.new_end, "surrogate", "surrogate",
                     "PERSON"),) + tuple(text.document.items[1:])
    doc = dataclasses.replace(text.document, items=items)
    new = dataclasses.replace(review, records=(dataclasses.replace(rec, texts=(
        dataclasses.replace(text, document=doc),)),))
    page = Page(render_html(new))
    span = page.find("span", "k-surrogate")
    assert len(span) == 2 and "label: PERSON" in span[0].attrs["title"]
    assert "PERSON" in "".join(n for node in page.find("table") for n in node.text)


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
    finally:
        os.umask(old)
    for bad in ("-", "/dev/null", "/dev/stdout", str(tmp_path), str(tmp_path / "missing" / "r.html")):
        with pytest.raises(OutputError):
            write_review(review, bad)
