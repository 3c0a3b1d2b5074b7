"""The page in a real headless Chromium (Debian's ``chromium``, installed by ``.ci/run``):
the rendered DOM (verdict, marks, banner, the script-built navigation; injected markup, right-to-
left and zero-width characters and a cut 200 kB line all inert) and a screenshot that is a real
picture with the banner and the verdict on the first screen. Skipped, with the reason, when no
browser is installed."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from embedanon import Anonymizer
from embedanon.review import build_review, write_review

BROWSER = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
pytestmark = pytest.mark.skipif(
    BROWSER is None, reason="no headless browser: install Debian's chromium (apt-get install -y chromium)")

#: Would mark the page if any of it ran; the CSP and escaping must keep both inert.
HOSTILE = ("Zebulonius has chest pain <script>document.documentElement.setAttribute('data-pwned','1')"
           "</script> <img src=x onerror=\"document.documentElement.setAttribute('data-pwned','2')\">")
NOTES = [HOSTILE, "The doctor saw the patient at night, pressure 140/90, call 555-123-4567.",
         "Mother had fever today. \u202eZebulonius\u202c \u200bQuexley\u200d \u05e9\u05dc\u05d5\u05dd",
         ("</script><b>bold</b> " * 12_000) + "end"]


def _chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert BROWSER is not None
    cmd = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-extensions", "--hide-scrollbars", f"--user-data-dir={tmp / 'profile'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory, tiny_embedding: Path) -> tuple[Path, int, int]:
    tmp = tmp_path_factory.mktemp("review-browser")
    src = tmp / "notes.txt"
    src.write_text("\n".join(NOTES) + "\n", encoding="utf-8")
    anonymizer = Anonymizer(str(tiny_embedding), "knn", k=3, seed=1, scope="detected", detectors="regex")
    review = build_review(str(src), anonymizer, max_chars=20_000)  # with every figure source
    out = tmp / "review.html"
    write_review(review, out)
    labelled = sum(1 for r in review.records for t in r.texts for it in t.document.items if it.label)
    lookalikes = sum(len(t.lookalikes) for r in review.records for t in r.texts)
    return out, labelled, lookalikes


def test_rendered_dom(page: tuple[Path, int, int], tmp_path: Path) -> None:
    path, labelled, lookalikes = page
    result = _chromium(tmp_path, "--dump-dom", path.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    dom = result.stdout
    assert 'data-ready="1"' in dom  # the inline script ran under the page's CSP
    assert "data-pwned" not in dom.split("<body", 1)[0]  # neither injected script nor handler ran
    assert "<b>" not in dom and dom.count("<script>") == 1  # the hostile line stayed text
    assert len(re.findall(r'<span class="it[ "][^>]*data-l=', dom)) == 2 * labelled >= 2  # the phone
    assert len(re.findall(r'<mark class="la ', dom)) == 2 * lookalikes >= 2  # 140, 90
    assert re.search(r'<div class="banner" id="banner" role="alert">.*?ORIGINAL TEXT', dom, re.S)
    assert re.search(r'<section class="panel verdict v-(pass|fail|n-a)" id="verdict">.*?<span class="badge">'
                     r"(PASS|FAIL|N/A)</span>", dom, re.S)
    assert dom.index('id="verdict"') < dom.index('id="lookalikes"') < dom.index('id="record-nav"')
    nav = re.search(r'<nav id="record-nav"[^>]*>(.*?)</nav>', dom, re.S)
    assert nav is not None and len(re.findall(r'<a href="#record-\d+"', nav.group(1))) == 4
    status = re.search(r'<p class="note" id="js-status">(\d+) detected spans and (\d+) look-alikes', dom)
    assert status is not None and (int(status.group(1)), int(status.group(2))) == (labelled, lookalikes)
    assert "&lt;script&gt;" in dom and "truncated: the page shows the first" in dom
    # evidence shown as it is (the override, then the name marked as a look-alike), in its pane's <bdi>
    assert re.search('<bdi>[^<]*(<[^>]+>[^<]*)*\u202e<mark class="la k-unknown"[^>]*>Zebulonius</mark>\u202c', dom)
    assert len(re.findall(r"<svg class=\"chart\"", dom)) == 1


def test_screenshot_is_a_real_picture(page: tuple[Path, int, int], tmp_path: Path) -> None:
    image = pytest.importorskip("PIL.Image", reason="Pillow (a matplotlib dependency) reads the PNG")
    path, _, _ = page
    shot = tmp_path / "shot.png"
    result = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,900", path.as_uri())
    assert result.returncode == 0 and shot.exists(), result.stderr[-2000:]
    assert shot.stat().st_size > 20_000
    with image.open(shot) as im:
        rgb = im.convert("RGB")
        assert rgb.size == (1280, 900)
        colors = rgb.getcolors(maxcolors=1 << 20)
        assert colors is not None and len(colors) > 100  # text, cards, colored marks: not blank
        top = rgb.getpixel((1100, 8))  # the banner: red, across the top
        assert top[0] > 150 and top[1] < 80 and top[2] < 80, top
        # the verdict's colored left edge (green: pass, red: fail) in the first screen
        edge = [rgb.getpixel((x, y)) for x in range(20, 80) for y in range(150, 400)]
        assert any(abs(r - g) > 60 and min(r, g) < 100 for r, g, _ in edge)
