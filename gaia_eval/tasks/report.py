"""Pure rendering: results -> counts, the run report's sections, and the harness x model
table over several runs."""

from __future__ import annotations

import html

from gaia_eval.core.charts import bars
from gaia_eval.core.report import Block, Chart, Para, Report, Section, Table, run_folder
from gaia_eval.core.results import Envelope
from gaia_eval.llm.pricing import rate_card_date
from gaia_eval.tasks.models import AXES, Scorecard, TaskResult, TasksSummary
from gaia_eval.tasks.results import scorecards, summary


def result_string(t: TaskResult) -> str:
    if t.error_kind == "unavailable":
        return "NOT MEASURED"
    if t.passed is None and t.error:
        return "ERROR"
    if t.passed is None and t.check == "swebench":
        return "AWAITING HARNESS"  # the SWE-bench harness decides, never the judge
    if t.passed is None:
        return "AWAITING JUDGE"
    return "PASS" if t.passed else "FAIL"


# Every cost cell says what kind of dollar it is: the three are not the same thing.
COST_LABELS = {
    "metered": "metered",
    "api_equivalent": "API equivalent",
    "harness_counts": "harness counts",
}


def money(value: float | None, source: str | None) -> str:
    """`$0.0950 (metered)`; `n/a` when unknown (never $0.00 for a run that counted nothing)."""
    if value is None:
        return "n/a"
    label = COST_LABELS.get(source or "", source or "source unknown")
    return f"${value:.4f} ({label})"


# ---- one run's report ------------------------------------------------------------------


def headline(s: TasksSummary, out: str = "DIR") -> list[tuple[str, str]]:
    c = s.counts
    # Unmeasured first: an outage hidden in an average reads like a regression.
    pairs = [("not measured", str(c.unmeasured)), ("passed", f"{c.passed}/{c.tasks}")]
    if c.not_judged:
        # A --no-judge run decided nothing yet: "passed 0/1" would read as a failure.
        # passed/failed count only what was decided; the rest says how to decide it.
        pairs[1] = (
            "passed",
            f"{c.passed}, failed {c.failed} (of {c.tasks - c.not_judged} decided)",
        )
        pairs.append(
            (
                f"not judged ({c.not_judged})",
                f"judge later with `gaia-eval tasks judge {out} --judge-model SPEC`",
            )
        )
    return [
        *pairs,
        ("verified (coding tasks)", f"{c.verified}/{c.coding}"),
        ("judged", f"{c.judged}" + (f" by `{s.judge_model}`" if s.judge_model else "")),
        ("quality", "n/a" if c.quality is None else f"{c.quality:.2f}"),
        ("misreported", str(c.misreported)),
        ("cost", money(s.cost.total_usd, s.cost.source)),
    ]


def _tokens(t: TaskResult) -> str:
    """Input + output tokens; n/a when the model answered but nothing counted them (a
    gateway call without usage and no count of the harness's own), never 0."""
    total = t.input_tokens + t.output_tokens
    gt = t.gateway_tokens or {}
    if total == 0 and gt.get("no_usage", 0) > 0:
        return "n/a"
    return str(total)


def _task_rows(card: Scorecard) -> list[list[str]]:
    rows = []
    for t in card.tasks:
        q = t.judge.quality() if t.judge else None
        quality = f"{q:.2f}" if q is not None else ("unjudged" if t.judge else "")
        ver = ("yes" if t.verified else "no") if t.check == "mechanical" else ""
        why = t.why or t.error or ""
        rows.append(
            [
                f"`{t.id}`",
                result_string(t),
                ver,
                quality,
                why.replace("\n", " ")[:160],
                str(t.steps),
                _tokens(t),
                f"{t.wall_seconds:.1f}",
                money(t.cost_usd, t.cost_source),
            ]
        )
    return rows


def sections(
    s: TasksSummary, cards: list[Scorecard], price: list[float] | None = None
) -> list[Section]:
    """The tasks table per repeat, the totals, and (HTML) wall time per task."""
    c = s.counts
    head = ["task", "result", "verified", "quality", "why", "steps", "tokens", "wall s", "cost"]
    blocks: list[Block] = [
        Para(
            f"Suite `{s.suite}`, harness `{s.harness}`, model `{s.model}`"
            + (f", {s.repeats} repeats" if s.repeats > 1 else "")
            + f"; wall-clock cap {s.run_timeout_s:g} s per task"
            + ("; full access" if s.full_access else "")
            + ("; fenced" if s.fenced else "")
            + ". Verified: a test run passed after the agent's last edit (coding tasks only)."
        )
    ]
    for card in cards:
        caption = f"Repeat {card.repeat}" if s.repeats > 1 else None
        blocks.append(Table(head, _task_rows(card), caption=caption))
    blocks.append(
        Para(
            f"Tokens {c.total_tokens} (in {c.input_tokens}, out {c.output_tokens}) · steps "
            f"{c.steps} · tool calls {c.tool_calls} · agent wall {c.wall_seconds} s · cost "
            f"{money(s.cost.total_usd, s.cost.source)}"
            + (f" · {s.cost.note}" if s.cost.note else "")
            + (
                (
                    f" · priced at --price {price[0]:g},{price[1]:g} per million tokens"
                    if price
                    else f" · priced with the rate cards of {rate_card_date()}"
                )
                if s.cost.source == "harness_counts" and s.cost.total_usd is not None
                else ""
            )
            + (
                f" · judge cost {money(s.judge_cost.total_usd, s.judge_cost.source)}"
                if s.judge_cost is not None
                else ""
            )
        )
    )
    timed = [
        (t.id if s.repeats == 1 else f"{t.id} r{card.repeat}", t.wall_seconds)
        for card in cards
        for t in card.tasks
        if t.error_kind != "unavailable"
    ]
    if timed:
        svg = bars([k for k, _ in timed], [v for _, v in timed], unit=" s")
        blocks.append(Chart(svg, "agent wall seconds per task"))
    return [Section("Tasks", blocks)]


# ---- several runs: the harness x model table --------------------------------------------


def _group_cost(group: list[Scorecard]) -> str:
    """The cost cell of one (harness, model) row, labelled with its source: the billing
    meter's when every run was metered (one meter record counted once, however many
    repeats it spans), else the runs' own totals when they share one source."""
    meters = [c.meter for c in group]
    if all(m is not None and m.get("after") for m in meters):
        seen: dict[tuple[str, str, str], float] = {}
        for m in meters:
            assert m is not None
            key = (str(m.get("account")), str(m.get("window_start")), str(m["before"]["at"]))
            seen[key] = float(m["after"]["usd"]) - float(m["before"]["usd"])
        return money(round(sum(seen.values()), 6), "metered")
    totals = [c.cost.total_usd for c in group]
    sources = {c.cost.source for c in group}
    if any(t is None for t in totals) or len(sources) != 1:
        return "n/a"
    return money(sum(t or 0.0 for t in totals), sources.pop())


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
        cost = _group_cost(group)
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
                "cost": cost,
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


__all__ = ["AXES", "headline", "sections", "summary", "table_html", "table_markdown"]


def _summary(env: Envelope) -> TasksSummary:
    return TasksSummary.model_validate(env.summary)


def _sections(env: Envelope) -> list[Section]:
    price = env.header.settings.get("price")  # --price, else the rate cards
    return sections(_summary(env), scorecards(env), price if isinstance(price, list) else None)


def _headline(env: Envelope) -> list[tuple[str, str]]:
    return headline(_summary(env), run_folder(env.header.run.argv))


REPORT = Report(headline=_headline, sections=_sections)
