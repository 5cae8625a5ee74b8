"""The memory benchmark's report sections (pure): per-scenario table, failing checks first
with what was shown and what the store held, what is fixed since the baseline, per probe
kind, a timeline picture per scenario (report.html), latency and database growth."""

from __future__ import annotations

import html
from datetime import datetime

from gaia_eval.core.report import (
    Block,
    Bullets,
    Chart,
    Para,
    Report,
    Section,
    Table,
    fmt,
    share_ci,
)
from gaia_eval.core.results import Envelope
from gaia_eval.memory.gate import fixed
from gaia_eval.memory.models import ScenarioResult
from gaia_eval.memory.summary import MemorySummary, Metrics, Rate, pct, scenario_results

_STATE_COLOUR = {"current": "#109618", "superseded": "#999999", "forgotten": "#dc3912"}
_MAX_ROWS = 60
_UNMATCHED = "the system asked about text the scenario never said."
_SMALL_MODEL = (
    "Unparsed extraction or consolidation replies extract nothing. A small local model is a "
    "plumbing check, not a quality claim."
)


def _metric_cells(m: Metrics, full: bool) -> list[str]:
    cells = [pct(m.checks), pct(m.shown_recall), pct(m.shown_clean), pct(m.store_accuracy)]
    return [*cells, pct(m.answer_accuracy)] if full else cells


def _headers(first: list[str], full: bool) -> list[str]:
    cols = ["checks", "shown recall", "shown clean", "store accuracy"]
    return first + cols + (["answer accuracy"] if full else [])


def _scenario_table(results: list[ScenarioResult], s: MemorySummary, full: bool) -> Section:
    rows = []
    seen: set[str] = set()
    for r in results:
        if r.scenario in seen:
            continue
        seen.add(r.scenario)
        growth = s.db_growth.get(r.scenario)
        tokens = [p.shown_tokens for p in r.probes]
        rows.append(
            [
                f"`{r.scenario}`",
                f"{r.start[:10]} – {r.end[:10]}",
                str(r.chats),
                str(len(r.probes)),
                *_metric_cells(s.by_scenario[r.scenario], full),
                f"{sum(tokens) / len(tokens):.0f}" if tokens else "–",
                f"{growth.first_bytes // 1024} → {growth.last_bytes // 1024} KiB"
                if growth
                else "–",
            ]
        )
    headers = _headers(["scenario", "simulated span", "chats", "probes"], full)
    headers += ["shown tokens", "database"]
    return Section("Scenarios", [Table(headers, rows)])


def _shown_lines(text: str, limit: int = 12) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    body = " / ".join(lines[:limit]) + (" / …" if len(lines) > limit else "")
    return body or "(nothing)"


def _failing(results: list[ScenarioResult]) -> Section:
    blocks: list[Block] = []
    for r in results:
        for p in r.probes:
            bad = [c for c in p.checks if not c.passed]
            if not bad:
                continue
            rep = f" (repeat {r.repeat})" if r.repeat > 1 else ""
            blocks.append(
                Para(f"**`{r.scenario}/{p.id}`**{rep} — {p.kind}, {p.at[:16]}: “{p.request}”")
            )
            items = [f"`{c.check}` {c.label} — {c.detail}" for c in bad]
            items.append(f"shown: {_shown_lines(p.shown)}")
            held = sorted({h for c in bad for h in c.held})
            if held:
                items.append("store held: " + "; ".join(held))
            if p.answer is not None:
                items.append(f"answer: {p.answer[:300]}")
            blocks.append(Bullets(items))
    if not blocks:
        blocks = [Para("Every check passed.")]
    return Section("Failing checks", blocks)


def _fixed(env: Envelope) -> Section | None:
    if env.verdict is None:
        return None
    done = fixed(env)
    if not done:
        return Section("Fixed since the baseline", [Para("Nothing: no known gap closed.")])
    return Section(
        "Fixed since the baseline",
        [Bullets([f"`{item}` {check}" for item, check in done])],
    )


def _by_kind(s: MemorySummary, full: bool) -> Section:
    rows = [[kind, *_metric_cells(m, full)] for kind, m in s.by_kind.items()]
    return Section("By probe kind", [Table(_headers(["probe kind"], full), rows)])


def _parse(text: str) -> datetime:
    return datetime.fromisoformat(text)


def timeline_svg(r: ScenarioResult, width: int = 900) -> str:
    """The store's items as bars over simulated time (green current, grey superseded, red
    forgotten), with a dashed line where each probe looked (red when a check failed)."""
    rows = sorted(r.timeline, key=lambda t: (t.start, t.id))[:_MAX_ROWS]
    t0, t1 = _parse(r.start), _parse(r.end)
    span = max((t1 - t0).total_seconds(), 1.0)
    left, right, top, row = 250, 20, 28, 14
    height = top + row * max(1, len(rows)) + 24

    def x(at: str | None) -> float:
        when = _parse(at) if at else t1
        return left + (width - left - right) * max(0.0, (when - t0).total_seconds()) / span

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" font-size="11">',
        f'<text x="{left}" y="12">{html.escape(r.start[:10])}</text>',
        f'<text x="{width - right}" y="12" text-anchor="end">{html.escape(r.end[:10])}</text>',
    ]
    for i, t in enumerate(rows):
        y = top + i * row
        x0, x1 = x(t.start), x(t.end)
        label = (t.label if len(t.label) <= 40 else t.label[:39] + "…") + f" ({t.kind})"
        colour = _STATE_COLOUR.get(t.state, "#3366cc")
        parts.append(
            f'<text x="{left - 6}" y="{y + 10}" text-anchor="end">{html.escape(label)}</text>'
            f'<rect x="{x0:.1f}" y="{y + 2}" width="{max(2.0, x1 - x0):.1f}" height="{row - 4}" '
            f'fill="{colour}"><title>{html.escape(t.id)} {html.escape(t.label)}: {t.state}, '
            f"{html.escape(t.start[:10])} to {html.escape((t.end or 'now')[:10])}</title></rect>"
        )
    for p in r.probes:
        px = x(p.at)
        bad = any(not c.passed for c in p.checks)
        colour = "#dc3912" if bad else "#3366cc"
        parts.append(
            f'<line x1="{px:.1f}" y1="{top - 8}" x2="{px:.1f}" y2="{height - 20}" '
            f'stroke="{colour}" stroke-dasharray="3,3"><title>{html.escape(p.id)}: '
            f"{html.escape(p.request)}</title></line>"
            f'<text x="{px:.1f}" y="{height - 6}" text-anchor="middle" fill="{colour}">'
            f"{html.escape(p.id)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _timelines(results: list[ScenarioResult]) -> Section:
    blocks: list[Block] = []
    for r in results:
        if r.repeat != 1:
            continue
        failing = [p.id for p in r.probes if any(not c.passed for c in p.checks)]
        alt = (
            f"{r.scenario}: {len(r.timeline)} stored items over {r.start[:10]} – {r.end[:10]}; "
            f"probes {', '.join(p.id for p in r.probes)}"
            + (f"; failing: {', '.join(failing)}" if failing else "")
        )
        blocks.append(Chart(timeline_svg(r), alt))
    return Section("Timelines", blocks)


def _latency(s: MemorySummary) -> Section:
    rows = [[op, str(v.count), fmt(v.mean_ms, 2), fmt(v.max_ms, 2)] for op, v in s.latency.items()]
    note = Para(
        "Wall-clock milliseconds per memory operation on this machine: measured, never gated, "
        "and different on every run."
    )
    return Section(
        "Latency per operation", [note, Table(["operation", "calls", "mean ms", "max ms"], rows)]
    )


def _repeats(s: MemorySummary) -> Section | None:
    if not s.repeats:
        return None
    rows = [
        [name, fmt(v.mean), fmt(v.stdev), fmt(v.min), fmt(v.max), str(v.n)]
        for name, v in s.repeats.items()
    ]
    return Section(
        "Variance over repeats",
        [
            Para("`full` is too noisy to gate: each metric over the repeats."),
            Table(["metric", "mean", "stdev", "min", "max", "repeats"], rows),
        ],
    )


def pct_ci(rate: Rate) -> str:
    """`73.3% [61.0, 83.0] (11/15)`: the share with its 95% Wilson interval."""
    if rate.value is None:
        return "–"
    ci = share_ci(rate.passed, rate.total, percent=True)
    return f"{rate.value * 100:.1f}%{ci} ({rate.passed}/{rate.total})"


def headline(env: Envelope) -> list[tuple[str, str]]:
    s = MemorySummary.model_validate(env.summary)
    o = s.overall
    rows = [
        ("checks passed", pct_ci(o.checks)),
        ("shown recall", pct_ci(o.shown_recall)),
        ("shown clean", pct_ci(o.shown_clean)),
        ("store accuracy", pct_ci(o.store_accuracy)),
    ]
    if o.answer_accuracy.total:
        rows.append(("answer accuracy", pct_ci(o.answer_accuracy)))
    r = s.ranks
    if r.n and r.mrr is not None:
        at = " / ".join(
            f"{v:.3f}" for v in (r.recall_at_1, r.recall_at_3, r.recall_at_5, r.recall_at_10)
            if v is not None
        )  # fmt: skip
        rows.append(("recall@1/3/5/10, MRR", f"{at}, {r.mrr:.3f} ({r.n} must_show labels)"))
    if s.shown_tokens.mean is not None:
        rows.append(
            ("shown tokens per probe", f"{s.shown_tokens.mean:.0f} mean, {s.shown_tokens.max} max")
        )
    return rows


def sections(env: Envelope) -> list[Section]:
    full = env.header.tier == "full"
    results, s = scenario_results(env), MemorySummary.model_validate(env.summary)
    out = [_scenario_table(results, s, full), _failing(results)]
    fixed_section = _fixed(env)
    if fixed_section is not None:
        out.append(fixed_section)
    rep = _repeats(s)
    if rep is not None:
        out.append(rep)
    out += [_by_kind(s, full), _timelines(results), _latency(s)]
    if s.extract_unmatched:
        text = f"{s.extract_unmatched} turn(s) had no scripted answer: {_UNMATCHED}"
        out.append(Section("Extractor", [Para(text)]))
    if full:
        text = f"{s.extract_failures} model repl(ies) did not parse. {_SMALL_MODEL}"
        out.append(Section("Model", [Para(text)]))
    return out


REPORT = Report(headline=headline, sections=sections)
