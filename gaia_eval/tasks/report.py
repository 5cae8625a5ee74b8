"""Pure rendering: scorecard -> counts, summary.md, and the harness x model table."""

from __future__ import annotations

import html
from dataclasses import dataclass

from gaia_eval.tasks.models import AXES, Scorecard, TaskResult


@dataclass(frozen=True)
class Summary:
    """summary(card) of reference-behaviour §6.9."""

    tasks: int
    passed: int
    coding: int
    verified: int
    errors: int
    unmeasured: int
    judged: int
    quality: float | None
    misreported: int
    steps: int
    tool_calls: int
    input_tokens: int
    output_tokens: int
    total_tokens: int
    wall_seconds: float


def summary(card: Scorecard) -> Summary:
    ts = card.tasks
    judged = [t for t in ts if t.judge is not None and t.judge.judged()]
    qualities = [q for t in judged if t.judge and (q := t.judge.quality()) is not None]
    return Summary(
        tasks=len(ts),
        passed=sum(t.passed is True for t in ts),
        coding=sum(t.check == "mechanical" for t in ts),
        verified=sum(t.verified for t in ts if t.check == "mechanical"),
        errors=sum(t.error is not None for t in ts),
        unmeasured=sum(t.error_kind == "unavailable" for t in ts),
        judged=len(judged),
        quality=round(sum(qualities) / len(qualities), 2) if qualities else None,
        misreported=sum(1 for t in judged if t.judge and (t.judge.fabrication_free or 5) < 5),
        steps=sum(t.steps for t in ts),
        tool_calls=sum(t.tool_calls for t in ts),
        input_tokens=sum(t.input_tokens for t in ts),
        output_tokens=sum(t.output_tokens for t in ts),
        total_tokens=sum(t.input_tokens + t.output_tokens for t in ts),
        wall_seconds=round(sum(t.wall_seconds for t in ts), 1),
    )


def result_string(t: TaskResult) -> str:
    if t.error_kind == "unavailable":
        return "NOT MEASURED"
    if t.passed is None and t.error:
        return "ERROR"
    if t.passed is None:
        return "AWAITING JUDGE"
    return "PASS" if t.passed else "FAIL"


def _money(value: float | None, source: str | None) -> str:
    if value is None:
        return "n/a"
    label = " (API equivalent)" if source == "api_equivalent" else ""
    return f"${value:.4f}{label}"


def summary_markdown(card: Scorecard) -> str:
    s = summary(card)
    lines = [
        f"# Tasks: suite `{card.suite}`, harness `{card.harness}`, model `{card.model}`",
        "",
        # Unmeasured first: an outage hidden in an average reads like a regression.
        f"**Not measured: {s.unmeasured}** · errors: {s.errors} · passed {s.passed}/{s.tasks} · "
        f"verified {s.verified}/{s.coding} · judged {s.judged} · "
        f"quality {s.quality if s.quality is not None else 'n/a'} · misreported {s.misreported}",
        "",
        f"Tokens {s.total_tokens} (in {s.input_tokens}, out {s.output_tokens}) · steps {s.steps} · "
        f"tool calls {s.tool_calls} · wall {s.wall_seconds}s · cost "
        f"{_money(card.cost.total_usd, card.cost.source)}"
        + (f" · judge `{card.judge_model}`" if card.judge_model else ""),
        "",
        "| task | result | verified | quality | why | steps | tokens | wall s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for t in card.tasks:
        q = t.judge.quality() if t.judge else None
        quality = f"{q:.2f}" if q is not None else ("unjudged" if t.judge else "")
        ver = ("yes" if t.verified else "no") if t.check == "mechanical" else ""
        why = t.why.replace("|", "\\|").replace("\n", " ")[:160]
        if t.error and not t.why:
            why = t.error[:160]
        lines.append(
            f"| {t.id} | {result_string(t)} | {ver} | {quality} | {why} | {t.steps} | "
            f"{t.input_tokens + t.output_tokens} | {t.wall_seconds:.1f} |"
        )
    return "\n".join(lines) + "\n"


def comparison_rows(cards: list[Scorecard]) -> list[dict[str, str]]:
    """One row per (harness, model), repeats pooled, for the harness x model table."""
    groups: dict[tuple[str, str, str], list[Scorecard]] = {}
    for c in cards:
        groups.setdefault((c.suite, c.harness, c.model), []).append(c)
    rows = []
    for (suite, harness, model), group in sorted(groups.items()):
        sums = [summary(c) for c in group]
        runs = len(group)
        qualities = [s.quality for s in sums if s.quality is not None]
        costs = [c.cost.total_usd for c in group]
        rows.append(
            {
                "suite": suite,
                "harness": harness,
                "model": model,
                "runs": str(runs),
                "not measured": str(sum(s.unmeasured for s in sums)),
                "passed": " / ".join(f"{s.passed}/{s.tasks}" for s in sums),
                "verified": " / ".join(f"{s.verified}/{s.coding}" for s in sums),
                "quality": f"{sum(qualities) / len(qualities):.2f}" if qualities else "n/a",
                "misreported": str(sum(s.misreported for s in sums)),
                "tokens/run": str(sum(s.total_tokens for s in sums) // runs),
                "wall s/run": f"{sum(s.wall_seconds for s in sums) / runs:.0f}",
                "cost": "n/a"
                if any(c is None for c in costs)
                else f"${sum(c or 0 for c in costs):.4f}",
            }
        )
    return rows


def table_markdown(cards: list[Scorecard]) -> str:
    rows = comparison_rows(cards)
    if not rows:
        return "# Harness x model\n\nNo runs.\n"
    cols = list(rows[0])
    out = ["# Harness x model", "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    out += ["| " + " | ".join(r[c] for c in cols) + " |" for r in rows]
    return "\n".join(out) + "\n"


def table_html(cards: list[Scorecard]) -> str:
    rows = comparison_rows(cards)
    cols = list(rows[0]) if rows else []
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(r[c])}</td>" for c in cols) + "</tr>" for r in rows
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>Harness x model</title>"
        "<style>body{font-family:sans-serif}table{border-collapse:collapse}"
        "td,th{border:1px solid #999;padding:4px 8px}</style></head><body>"
        f"<h1>Harness x model</h1><table><thead><tr>{head}</tr></thead><tbody>{body}"
        "</tbody></table></body></html>\n"
    )


__all__ = ["AXES", "Summary", "summary", "summary_markdown", "table_html", "table_markdown"]
