"""The page's inline style sheet and script (no fonts, images or requests of any kind)."""

from __future__ import annotations

#: Colors given to detector labels in sorted order (cycled).
LABEL_PALETTE: tuple[tuple[str, str], ...] = (
    ("#fce7f3", "#db2777"), ("#cffafe", "#0891b2"), ("#fef9c3", "#ca8a04"), ("#e0e7ff", "#4f46e5"),
    ("#ffe4e6", "#e11d48"), ("#d1fae5", "#059669"), ("#f3e8ff", "#9333ea"), ("#fee2e2", "#b91c1c"),
)

CSS = """
:root { --ink:#0f172a; --muted:#64748b; --line:#e2e8f0; --panel:#ffffff; --bg:#f5f7fb;
  --accent:#1d4ed8; }
* { box-sizing: border-box; }
html { background: var(--bg); }
body { margin: 0; color: var(--ink); font: 14px/1.55 system-ui, -apple-system, "Segoe UI", Roboto,
  "Helvetica Neue", Arial, sans-serif; }
.banner { position: sticky; top: 0; z-index: 10; background: #b91c1c; color: #fff;
  padding: 10px 28px; display: flex; gap: 14px; align-items: center;
  box-shadow: 0 2px 6px rgba(0,0,0,.18); }
.banner .sign { flex: none; font-weight: 800; letter-spacing: .06em; border: 2px solid #fff;
  border-radius: 4px; padding: 2px 8px; font-size: 12px; }
.banner p { margin: 0; font-size: 13.5px; }
.banner strong { font-weight: 700; }
.wrap { max-width: 1240px; margin: 0 auto; padding: 22px 28px 40px; }
.top { display: flex; justify-content: space-between; align-items: flex-end; gap: 20px;
  border-bottom: 1px solid var(--line); padding-bottom: 14px; margin-bottom: 18px; }
h1 { font-size: 22px; margin: 0 0 4px; letter-spacing: -.01em; }
h2 { font-size: 15px; margin: 0 0 12px; }
h3 { font-size: 14px; margin: 0; }
.sub { color: var(--muted); font-size: 13px; }
.sub code, td code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  background: #eef2f7; padding: 1px 5px; border-radius: 4px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); gap: 12px;
  margin-bottom: 16px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 10px;
  padding: 12px 14px; }
.card .v { font-size: 22px; font-weight: 700; letter-spacing: -.01em; }
.card .l { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card .d { color: var(--muted); font-size: 12px; }
.grid2 { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; margin-bottom: 16px; }
@media (max-width: 900px) { .grid2 { grid-template-columns: 1fr; } }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 10px;
  padding: 16px 18px; margin-bottom: 16px; overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line);
  vertical-align: top; }
th { color: var(--muted); font-weight: 600; font-size: 12px; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.note { color: var(--muted); font-size: 12.5px; margin: 8px 0 0; }
.warn { color: #b45309; }
.legend label { display: inline-flex; align-items: center; gap: 6px; cursor: pointer; }
.sw { display: inline-block; width: 22px; height: 14px; border-radius: 3px; border-bottom: 3px solid; }
.chart { width: 100%; max-width: 1100px; height: auto; display: block; }
.dot { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin: 0 5px 0 10px;
  vertical-align: -1px; }

.chart a.col:hover rect { opacity: .7; }
#record-nav { position: sticky; top: 44px; z-index: 5; background: rgba(245,247,251,.96);
  padding: 8px 0; margin-bottom: 8px; display: flex; flex-wrap: wrap; gap: 6px;
  align-items: center; font-size: 12.5px; }
#record-nav:empty { display: none; }
#record-nav .lbl { color: var(--muted); margin-right: 4px; }
#record-nav a { text-decoration: none; color: var(--ink); background: #fff; border: 1px solid var(--line);
  border-radius: 999px; padding: 1px 9px; }
#record-nav a:hover { border-color: var(--accent); color: var(--accent); }
.record { background: var(--panel); border: 1px solid var(--line); border-radius: 10px;
  margin: 0 0 14px; scroll-margin-top: 90px; }
.record > header { display: flex; gap: 10px; align-items: center; flex-wrap: wrap;
  padding: 10px 16px; border-bottom: 1px solid var(--line); }
.chip { font-size: 12px; border-radius: 999px; padding: 1px 9px; background: #eef2f7; color: #334155; }
.chip.rate { background: #dbeafe; color: #1e3a8a; font-weight: 600; }
.chip.alert { background: #fee2e2; color: #991b1b; font-weight: 600; }
.field { padding: 10px 16px 14px; }
.field + .field { border-top: 1px dashed var(--line); }
.fname { font-size: 12px; color: var(--muted); margin-bottom: 6px; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 14px; }
.pane-title { font-size: 11px; font-weight: 700; text-transform: uppercase; letter-spacing: .06em;
  color: var(--muted); margin-bottom: 4px; }
.pane.orig .pane-title { color: #b91c1c; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; line-height: 1.9; font-size: 14px;
  background: #fbfcfe; border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px;
  min-height: 2.4em; }
.text.empty-text { color: var(--muted); font-style: italic; }
.ctl { color: #9a3412; background: #ffedd5; border-radius: 3px; padding: 0 1px; font-size: 12px; }
.verdict .verdict-head { display: flex; align-items: center; gap: 12px; margin: 0 0 8px; }
.verdict .badge { font-weight: 800; letter-spacing: .05em; border-radius: 6px; padding: 4px 12px;
  font-size: 15px; color: #fff; background: #64748b; }
.verdict.v-pass .badge { background: #15803d; }
.verdict.v-fail .badge { background: #b91c1c; }
.verdict.v-pass { border-left: 6px solid #15803d; }
.verdict.v-fail { border-left: 6px solid #b91c1c; }
.verdict.v-unsure .badge { background: #b45309; }
.verdict.v-unsure { border-left: 6px solid #b45309; }
.verdict .summary { font-size: 15px; font-weight: 600; }
.settings-line { color: #334155; font-size: 12.5px; margin: 0 0 10px; }
.settings-line code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  background: #eef2f7; padding: 1px 5px; border-radius: 4px; }
.st { font-size: 11px; font-weight: 700; border-radius: 4px; padding: 1px 6px; background: #e2e8f0; }
.st-pass { background: #dcfce7; color: #166534; }
.st-fail { background: #fee2e2; color: #991b1b; }
.st-unsure { background: #fef3c7; color: #92400e; }
tr.c-fail td { background: #fff7f7; }
td.remedy { color: #7f1d1d; font-size: 12.5px; }
details.passed { margin-top: 8px; }
details.passed summary { cursor: pointer; color: #166534; font-weight: 600; font-size: 13px; }
.card.alert { border-color: #fca5a5; background: #fff7f7; }
code.word { font-size: 13px; background: #fef2f2; color: #7f1d1d; padding: 1px 5px; border-radius: 4px;
  overflow-wrap: anywhere; }
td.places a { margin-right: 2px; }
td.places .times { color: var(--muted); font-size: 11px; margin-right: 8px; }
mark.la { background: #fff1f2; color: inherit; outline: 2px solid #dc2626; outline-offset: 0;
  border-radius: 2px; }
mark.la:target { background: #fecaca; }
.la-sw { font-size: 11px; padding: 0 3px; background: #fff1f2; outline: 2px solid #dc2626;
  border-radius: 2px; }
.cut { margin-top: 6px; font-size: 12px; color: #92400e; background: #fffbeb; border: 1px solid #fcd34d;
  border-radius: 6px; padding: 4px 8px; }
.it { border-radius: 3px; padding: 1px 1px; border-bottom: 2px solid transparent; }
.it.same { outline: 2px dashed #dc2626; outline-offset: 0; }
.it.zero::before { content: "\\2205"; color: var(--muted); font-size: 11px; }
.it.hl, mark.la.hl { box-shadow: 0 0 0 2px #0f172a; }
.it.plain { background: transparent !important; border-bottom-color: transparent !important; }
footer { color: var(--muted); font-size: 12px; margin-top: 24px; border-top: 1px solid var(--line);
  padding-top: 10px; }
@media print { .banner, #record-nav { position: static; } .record { break-inside: avoid; } }
"""

JS = """
(function () {
  "use strict";
  var nav = document.getElementById("record-nav");
  var records = document.querySelectorAll("article.record");
  if (nav && records.length > 1) {
    var lbl = document.createElement("span");
    lbl.className = "lbl";
    lbl.textContent = "Jump to record";
    nav.appendChild(lbl);
    records.forEach(function (r) {
      var a = document.createElement("a");
      a.href = "#" + r.id;
      a.textContent = r.getAttribute("data-number");
      a.title = r.getAttribute("data-rate") || "";
      nav.appendChild(a);
    });
  }
  function pairOf(el) {
    var key = el.getAttribute("data-i");
    return key ? document.querySelectorAll('[data-i="' + key + '"]') : [];
  }
  function marked(e) {
    return e.target.closest ? e.target.closest(".it, mark.la") : null;
  }
  document.addEventListener("mouseover", function (e) {
    var el = marked(e);
    if (el) { pairOf(el).forEach(function (x) { x.classList.add("hl"); }); }
  });
  document.addEventListener("mouseout", function (e) {
    var el = marked(e);
    if (el) { pairOf(el).forEach(function (x) { x.classList.remove("hl"); }); }
  });
  document.querySelectorAll("input[data-label]").forEach(function (box) {
    box.disabled = false;
    box.addEventListener("change", function () {
      var l = box.getAttribute("data-label");
      document.querySelectorAll('.it[data-l="' + l + '"]').forEach(function (x) {
        x.classList.toggle("plain", !box.checked);
      });
    });
  });
  var status = document.getElementById("js-status");
  if (status) {
    status.textContent = document.querySelectorAll(".pane.anon .it").length + " detected spans and " +
      document.querySelectorAll(".pane.anon mark.la").length + " look-alikes marked.";
  }
  document.documentElement.setAttribute("data-ready", "1");
})();
"""
