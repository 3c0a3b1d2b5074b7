"""The page in a real headless Chromium (Debian's ``chromium``, installed by ``.ci/run``):
the rendered DOM (spans, banner, the script-built navigation, injected markup inert) and a
screenshot that is a real picture. Skipped, with the reason, when no browser is installed."""

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
NOTES = [HOSTILE, "The doctor saw the patient at night, pressure 140/90.", "Mother had fever today."]


def _chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert BROWSER is not None
    cmd = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-extensions", "--hide-scrollbars", f"--user-data-dir={tmp / 'profile'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory, anonymizer: Anonymizer) -> tuple[Path, int]:
    tmp = tmp_path_factory.mktemp("review-browser")
    src = tmp / "notes.txt"
    src.write_text("\n".join(NOTES) + "\n", encoding="utf-8")
    review = build_review(str(src), anonymizer)  # with every figure source
    out = tmp / "review.html"
    write_review(review, out)
    items = sum(len(t.document.items) for r in review.records for t in r.texts)
    return out, items


def test_rendered_dom(page: tuple[Path, int], tmp_path: Path) -> None:
    path, items = page
    result = _chromium(tmp_path, "--dump-dom", path.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    dom = result.stdout
    assert 'data-ready="1"' in dom  # the inline script ran under the page's CSP
    assert "data-pwned" not in dom.split("<body", 1)[0]  # neither injected script nor handler ran
    assert len(re.findall(r'<span class="it [^"]*"', dom)) == 2 * items > 10
    assert re.search(r'<div class="banner" id="banner" role="alert">.*?ORIGINAL TEXT', dom, re.S)
    nav = re.search(r'<nav id="record-nav"[^>]*>(.*?)</nav>', dom, re.S)
    assert nav is not None and len(re.findall(r'<a href="#record-\d+"', nav.group(1))) == 3
    status = re.search(r'<p class="note" id="js-status">(\d+) highlighted', dom)
    assert status is not None and int(status.group(1)) == items
    assert "&lt;script&gt;" in dom or "&lt;<span" in dom  # shown as text
    assert len(re.findall(r"<svg class=\"chart\"", dom)) == 2


def test_screenshot_is_a_real_picture(page: tuple[Path, int], tmp_path: Path) -> None:
    image = pytest.importorskip("PIL.Image", reason="Pillow (a matplotlib dependency) reads the PNG")
    path, _ = page
    shot = tmp_path / "shot.png"
    result = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,900", path.as_uri())
    assert result.returncode == 0 and shot.exists(), result.stderr[-2000:]
    assert shot.stat().st_size > 20_000
    with image.open(shot) as im:
        rgb = im.convert("RGB")
        assert rgb.size == (1280, 900)
        colors = rgb.getcolors(maxcolors=1 << 20)
        assert colors is not None and len(colors) > 100  # text, cards, colored spans: not blank
        top = rgb.getpixel((1100, 8))  # the banner: red, across the top
        assert top[0] > 150 and top[1] < 80 and top[2] < 80, top
        body = rgb.getpixel((640, 450))
        assert body != top
