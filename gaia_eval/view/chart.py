"""The History chart: the main metric per run over commits, as inline SVG.

Points carry interval whiskers, the baseline's rate is a dashed line where known, and a
gate failure is a red cross. Every point has `data-config` so the page's filter can hide
the runs of other systems/models/embedders without redrawing.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

W, H, PAD_L, PAD_R, PAD_T, PAD_B = 1100, 320, 48, 16, 16, 64


@dataclass(frozen=True)
class Point:
    label: str
    """The x label (a short commit, or the start time without one)."""
    value: float | None
    low: float | None
    high: float | None
    failed: bool
    config: str
    """The filter key (system / model / embedder), as the page's select names it."""
    title: str
    """Hover text."""


def _y(v: float) -> float:
    return PAD_T + (1 - v) * (H - PAD_T - PAD_B)


def history_svg(points: Sequence[Point], baseline: float | None) -> str:
    n = max(len(points), 1)
    step = (W - PAD_L - PAD_R) / n
    out = [
        f'<svg class="history" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" '
        f'width="{W}" height="{H}" role="img" aria-label="items passed per run">'
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = _y(tick)
        out.append(
            f'<line x1="{PAD_L}" x2="{W - PAD_R}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
            f'<text x="{PAD_L - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">{tick:.2f}</text>'  # noqa: E501
        )
    if baseline is not None:
        y = _y(baseline)
        out.append(
            f'<line class="baseline" x1="{PAD_L}" x2="{W - PAD_R}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="#1f77b4" stroke-dasharray="6 4"><title>baseline {baseline:.3f}</title></line>'
        )
    for i, p in enumerate(points):
        x = PAD_L + step * (i + 0.5)
        cfg = html.escape(p.config, quote=True)
        parts = [f'<g class="point" data-config="{cfg}"><title>{html.escape(p.title)}</title>']
        if p.low is not None and p.high is not None:
            parts.append(
                f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{_y(p.low):.1f}" y2="{_y(p.high):.1f}" '
                'stroke="#555"/>'
            )
        if p.value is not None:
            y = _y(p.value)
            if p.failed:
                parts.append(
                    f'<path class="failed" d="M{x - 6:.1f},{y - 6:.1f}l12,12m0,-12l-12,12" '
                    'stroke="#d62728" stroke-width="3"/>'
                )
            else:
                parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="#2ca02c"/>')
        parts.append(
            f'<text x="{x:.1f}" y="{H - PAD_B + 16}" font-size="10" text-anchor="end" '
            f'transform="rotate(-40 {x:.1f} {H - PAD_B + 16})">{html.escape(p.label)}</text></g>'
        )
        out.append("".join(parts))
    out.append("</svg>")
    return "".join(out)
