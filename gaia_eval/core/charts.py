"""Inline SVG charts for report.html: no scripts, no fonts to fetch, readable offline.

Three shapes cover what the reports draw: horizontal bars (per-item or per-group values),
a histogram (a latency distribution) and lines over x (latency against load, recall
against corpus size, facts over time).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence

_COLOURS = ("#3366cc", "#dc3912", "#ff9900", "#109618", "#990099", "#0099c6")


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def bars(
    labels: Sequence[str], values: Sequence[float], *, unit: str = "", width: int = 640
) -> str:
    """Horizontal bars, one row per label."""
    row = 18
    left = min(260, 8 + 7 * max((len(s) for s in labels), default=1))
    top = max(values, default=0.0) or 1.0
    height = row * len(labels) + 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" font-size="12">'
    ]
    span = width - left - 80
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        y = 5 + i * row
        w = max(0.0, span * value / top)
        parts.append(
            f'<text x="{left - 6}" y="{y + 13}" text-anchor="end">{_esc(label)}</text>'
            f'<rect x="{left}" y="{y + 2}" width="{w:.1f}" height="{row - 5}" fill="#3366cc"/>'
            f'<text x="{left + w + 4:.1f}" y="{y + 13}">{value:g}{_esc(unit)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def histogram(values: Sequence[float], *, bins: int = 20, unit: str = "", width: int = 640) -> str:
    """A histogram of `values` with its min and max marked."""
    height, pad = 180, 30
    if not values:
        return bars([], [])
    lo, hi = min(values), max(values)
    span = (hi - lo) or 1.0
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int((v - lo) / span * bins))] += 1
    top = max(counts)
    bw = (width - 2 * pad) / bins
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" font-size="12">'
    ]
    for i, c in enumerate(counts):
        h = (height - 2 * pad) * c / top
        parts.append(
            f'<rect x="{pad + i * bw:.1f}" y="{height - pad - h:.1f}" width="{bw - 1:.1f}" '
            f'height="{h:.1f}" fill="#3366cc"><title>{c}</title></rect>'
        )
    parts.append(
        f'<text x="{pad}" y="{height - 10}">{lo:g}{_esc(unit)}</text>'
        f'<text x="{width - pad}" y="{height - 10}" text-anchor="end">{hi:g}{_esc(unit)}</text>'
        f'<text x="{pad}" y="14">n={len(values)}, max bin {top}</text></svg>'
    )
    return "".join(parts)


def lines(
    series: Mapping[str, Sequence[tuple[float, float]]],
    *,
    x_label: str = "",
    y_label: str = "",
    log_x: bool = False,
    width: int = 640,
) -> str:
    """One polyline per series over a shared x axis, with a legend."""
    height, pad = 260, 44
    points = [p for s in series.values() for p in s]
    if not points:
        return bars([], [])

    def fx(x: float) -> float:
        return math.log10(x) if log_x and x > 0 else x

    xs = [fx(p[0]) for p in points]
    ys = [p[1] for p in points]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(0.0, *ys), max(ys)
    xspan, yspan = (x1 - x0) or 1.0, (y1 - y0) or 1.0

    def px(x: float) -> float:
        return pad + (fx(x) - x0) / xspan * (width - 2 * pad)

    def py(y: float) -> float:
        return height - pad - (y - y0) / yspan * (height - 2 * pad)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" font-size="12">',
        f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" '
        'stroke="#888"/>',
        f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}" stroke="#888"/>',
        f'<text x="{width / 2}" y="{height - 8}" text-anchor="middle">{_esc(x_label)}</text>',
        f'<text x="4" y="{pad - 10}">{_esc(y_label)} (max {y1:g})</text>',
    ]
    for i, (name, pts) in enumerate(series.items()):
        colour = _COLOURS[i % len(_COLOURS)]
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in sorted(pts))
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>')
        for x, y in pts:
            parts.append(
                f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}">'
                f"<title>{_esc(name)}: x={x:g}, y={y:g}</title></circle>"
            )
        parts.append(
            f'<text x="{width - pad - 150}" y="{pad + 14 * i}" fill="{colour}">{_esc(name)}</text>'
        )
    for x in sorted({p[0] for p in points}):
        parts.append(
            f'<text x="{px(x):.1f}" y="{height - pad + 14}" text-anchor="middle">{x:g}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
