"""Inline SVG charts for report.html: no scripts, no fonts to fetch, readable offline.

Three shapes cover what the reports draw: horizontal bars (per-item or per-group values),
a histogram (a latency distribution) and lines over x (latency against load, recall
against corpus size, facts over time).
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Mapping, Sequence

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


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round axis ticks covering [lo, hi]: steps of 1, 2 or 5 times a power of ten, so a
    reader can read a value off the axis."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / max(1, count)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.floor(lo / step) * step
    ticks = []
    k = 0
    while True:
        t = first + k * step
        ticks.append(round(t, 12))
        if t >= hi - step * 1e-9:
            return ticks
        k += 1


def _y_axis(
    ticks: Sequence[float], py: Callable[[float], float], left: float, right: float
) -> list[str]:
    """The y axis: a line, a label per tick and a faint grid line across the plot."""
    bottom, top = py(ticks[0]), py(ticks[-1])
    out = [f'<line x1="{left}" y1="{top:.1f}" x2="{left}" y2="{bottom:.1f}" stroke="#888"/>']
    for t in ticks:
        y = py(t)
        out.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="#eee"/>'
            f'<line x1="{left - 4}" y1="{y:.1f}" x2="{left}" y2="{y:.1f}" stroke="#888"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{t:g}</text>'
        )
    return out


def histogram(values: Sequence[float], *, bins: int = 20, unit: str = "", width: int = 640) -> str:
    """A histogram of `values`: a y axis of counts, the x range marked at both ends."""
    height, pad, left = 200, 30, 48
    if not values:
        return bars([], [])
    lo, hi = min(values), max(values)
    span = (hi - lo) or 1.0
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int((v - lo) / span * bins))] += 1
    ticks = [t for t in nice_ticks(0, max(counts), 4) if t == int(t)] or [0.0, 1.0]
    top = ticks[-1]
    right = width - pad
    bw = (right - left) / bins

    def py(c: float) -> float:
        return height - pad - (height - 2 * pad) * c / top

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" font-size="12">',
        *_y_axis(ticks, py, left, right),
        f'<text x="4" y="14">{_esc("count")} (n={len(values)})</text>',
    ]
    for i, c in enumerate(counts):
        h = height - pad - py(c)
        parts.append(
            f'<rect x="{left + i * bw:.1f}" y="{py(c):.1f}" width="{bw - 1:.1f}" '
            f'height="{h:.1f}" fill="#3366cc"><title>{c}</title></rect>'
        )
    parts.append(
        f'<line x1="{left}" y1="{height - pad}" x2="{right}" y2="{height - pad}" stroke="#888"/>'
        f'<text x="{left}" y="{height - 10}">{lo:.4g}{_esc(unit)}</text>'
        f'<text x="{right}" y="{height - 10}" text-anchor="end">{hi:.4g}{_esc(unit)}</text></svg>'
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
    """One polyline per series over a shared x axis; a y axis with round ticks; the legend
    in its own column right of the plot, so it never covers a line."""
    height, pad, left = 260, 44, 56
    points = [p for s in series.values() for p in s]
    if not points:
        return bars([], [])
    legend_w = min(200, 24 + 7 * max(len(n) for n in series))
    right = width - legend_w - 16

    def fx(x: float) -> float:
        return math.log10(x) if log_x and x > 0 else x

    xs = [fx(p[0]) for p in points]
    ys = [p[1] for p in points]
    x0, x1 = min(xs), max(xs)
    ticks = nice_ticks(min(0.0, *ys), max(ys))
    y0, y1 = ticks[0], ticks[-1]
    xspan, yspan = (x1 - x0) or 1.0, (y1 - y0) or 1.0

    def px(x: float) -> float:
        return left + (fx(x) - x0) / xspan * (right - left)

    def py(y: float) -> float:
        return height - pad - (y - y0) / yspan * (height - 2 * pad)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" font-size="12">',
        *_y_axis(ticks, py, left, right),
        f'<line x1="{left}" y1="{height - pad}" x2="{right}" y2="{height - pad}" stroke="#888"/>',
        f'<text x="{(left + right) / 2}" y="{height - 8}" text-anchor="middle">'
        f"{_esc(x_label)}</text>",
        f'<text x="4" y="{pad - 16}">{_esc(y_label)}</text>',
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
        ly = pad + 16 * i
        parts.append(
            f'<line x1="{right + 16}" y1="{ly - 4}" x2="{right + 32}" y2="{ly - 4}" '
            f'stroke="{colour}" stroke-width="2"/>'
            f'<text x="{right + 36}" y="{ly}" fill="{colour}">{_esc(name)}</text>'
        )
    for x in sorted({p[0] for p in points}):
        parts.append(
            f'<text x="{px(x):.1f}" y="{height - pad + 14}" text-anchor="middle">{x:g}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
