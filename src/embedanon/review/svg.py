"""Inline SVG charts for the review page (no scripts, no external resources, all text escaped)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

#: Bar colors by figure group.
GROUP_COLORS = {"change": "#2563eb", "mechanism": "#7c3aed", "attack": "#dc2626"}
_DEFAULT_COLOR = "#475569"


@dataclass(frozen=True, slots=True)
class Bar:
    """One bar: a label, a rate in [0, 1] (nan: not measured), its group and an optional link."""

    label: str
    value: float
    group: str = ""
    href: str = ""
    detail: str = ""


def _pct(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{100 * value:.1f}%"


def rate_bars(bars: Sequence[Bar], *, width: int = 1100, label_width: int = 340, row: int = 28,
              title: str = "") -> str:
    """Horizontal bars on a 0-100 % axis, one row per bar, value printed after the bar."""
    top, bottom = 10, 28
    track = width - label_width - 70
    height = top + row * len(bars) + bottom
    out = [f'<svg class="chart" role="img" width="{width}" '
           f'height="{height}" viewBox="0 0 {width} {height}" aria-label="{escape(title)}">']
    if title:
        out.append(f"<title>{escape(title)}</title>")
    for tick in range(0, 101, 25):
        x = label_width + track * tick / 100
        out.append(f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{height - bottom + 4}" '
                   'stroke="#e2e8f0" stroke-width="1"/>')
        out.append(f'<text x="{x:.1f}" y="{height - 8}" font-size="11" fill="#64748b" '
                   f'text-anchor="middle">{tick}%</text>')
    for i, bar in enumerate(bars):
        y = top + i * row
        color = GROUP_COLORS.get(bar.group, _DEFAULT_COLOR)
        out.append(f'<g class="bar" data-group="{escape(bar.group)}">')
        out.append(f"<title>{escape(bar.label)}: {_pct(bar.value)}"
                   f"{escape(' (' + bar.detail + ')') if bar.detail else ''}</title>")
        out.append(f'<text x="{label_width - 10}" y="{y + row / 2 + 4:.1f}" font-size="12.5" '
                   f'fill="#1e293b" text-anchor="end">{escape(_clip(bar.label, 48))}</text>')
        out.append(f'<rect x="{label_width}" y="{y + 5}" width="{track}" height="{row - 10}" '
                   'rx="3" fill="#f1f5f9"/>')
        if not math.isnan(bar.value):
            w = max(track * min(max(bar.value, 0.0), 1.0), 1.5)
            out.append(f'<rect x="{label_width}" y="{y + 5}" width="{w:.1f}" height="{row - 10}" '
                       f'rx="3" fill="{color}"/>')
            tx = label_width + w + 6
        else:
            tx = label_width + 6
        out.append(f'<text x="{tx:.1f}" y="{y + row / 2 + 4:.1f}" font-size="12" fill="#0f172a" '
                   f'font-weight="600">{_pct(bar.value)}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


def column_bars(bars: Sequence[Bar], *, width: int = 1100, height: int = 190, title: str = "") -> str:
    """Vertical bars (one per record) on a 0-100 % axis; each bar links to ``href`` when given."""
    left, right, top, bottom = 44, 10, 12, 30
    plot_w, plot_h = width - left - right, height - top - bottom
    n = max(len(bars), 1)
    step = plot_w / n
    bar_w = max(min(step * 0.72, 28.0), 1.0)
    out = [f'<svg class="chart" role="img" width="{width}" '
           f'height="{height}" viewBox="0 0 {width} {height}" aria-label="{escape(title)}">']
    if title:
        out.append(f"<title>{escape(title)}</title>")
    for tick in range(0, 101, 25):
        y = top + plot_h * (1 - tick / 100)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" '
                   'stroke="#e2e8f0" stroke-width="1"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" font-size="11" fill="#64748b" '
                   f'text-anchor="end">{tick}%</text>')
    every = max(1, math.ceil(len(bars) / 20))  # at most about 20 axis labels
    for i, bar in enumerate(bars):
        x = left + i * step + (step - bar_w) / 2
        value = 0.0 if math.isnan(bar.value) else min(max(bar.value, 0.0), 1.0)
        h = plot_h * value
        color = GROUP_COLORS.get(bar.group, _DEFAULT_COLOR) if not math.isnan(bar.value) else "#cbd5e1"
        body = (f"<title>{escape(bar.label)}: {_pct(bar.value)}"
                f"{escape(' (' + bar.detail + ')') if bar.detail else ''}</title>"
                f'<rect x="{x:.1f}" y="{top + plot_h - max(h, 1.5):.1f}" width="{bar_w:.1f}" '
                f'height="{max(h, 1.5):.1f}" rx="2" fill="{color}"/>')
        if bar.href:
            out.append(f'<a class="col" href="{escape(bar.href)}">{body}</a>')
        else:
            out.append(f'<g class="col">{body}</g>')
        if i % every == 0:
            out.append(f'<text x="{x + bar_w / 2:.1f}" y="{height - 12}" font-size="10.5" '
                       f'fill="#64748b" text-anchor="middle">{escape(_clip(bar.label, 8))}</text>')
    out.append("</svg>")
    return "".join(out)


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "\u2026"
