"""Pure: propose expectations from judged runs, and gate a run against them (§6.9)."""

from __future__ import annotations

import math

from gaia_eval.core.errors import InvalidInputError, NotComparableError
from gaia_eval.tasks.models import Expectations, GateCheck, GateVerdict, Measured, Scorecard
from gaia_eval.tasks.report import result_string, summary

PASS_SLACK = 1
VERIFIED_SLACK = 1
QUALITY_SLACK = 0.5
MISREPORT_SLACK = 1
USAGE_SLACK = 0.35
RUNTIME_SLACK = 0.5


def _same(cards: list[Scorecard], field: str) -> str | None:
    values: set[str | None] = {getattr(c, field) for c in cards}
    if len(values) > 1:
        msg = f"runs differ in {field} ({sorted(map(str, values))}); propose from like runs only"
        raise NotComparableError(msg)
    return values.pop()


def propose(
    cards: list[Scorecard], commit: str | None = None, runner: str | None = None
) -> Expectations:
    """Expectations every run met: floors from the worst run, ceilings from the costliest."""
    if not cards:
        raise InvalidInputError("propose: no runs given")
    suite, model, judge = _same(cards, "suite"), _same(cards, "model"), _same(cards, "judge_model")
    assert suite is not None and model is not None
    sums = []
    for c in cards:
        s = summary(c)
        if s.unmeasured:
            msg = f"run r{c.repeat}: {s.unmeasured} task(s) not measured; re-run first"
            raise InvalidInputError(msg)
        if s.judged < s.tasks:
            msg = f"run r{c.repeat}: {s.tasks - s.judged} task(s) unjudged; run `tasks judge` first"
            raise InvalidInputError(msg)
        sums.append(s)
    qualities = [s.quality for s in sums if s.quality is not None]
    measured = Measured(
        passed=min(s.passed for s in sums),
        verified=min(s.verified for s in sums),
        quality=min(qualities) if qualities else None,
        misreported=max(s.misreported for s in sums),
        total_tokens=max(s.total_tokens for s in sums),
        steps=max(s.steps for s in sums),
        wall_seconds=max(s.wall_seconds for s in sums),
    )
    first = cards[0]
    rows = [
        {
            "id": t.id,
            "result": result_string(t),
            "verified": t.verified,
            "steps": t.steps,
            "total_tokens": t.input_tokens + t.output_tokens,
            "wall_seconds": t.wall_seconds,
            "quality": t.judge.quality() if t.judge else None,
        }
        for t in first.tasks
    ]
    return Expectations(
        suite=suite,
        model=model,
        judge_model=judge,
        measured_on={"commit": commit, "runner": runner},
        measured=measured,
        tasks=rows,
        min_passed=max(0, measured.passed - PASS_SLACK),
        min_verified=max(0, measured.verified - VERIFIED_SLACK),
        min_quality=max(1.0, round(measured.quality - QUALITY_SLACK, 2))
        if measured.quality is not None
        else None,
        max_misreported=measured.misreported + MISREPORT_SLACK,
        max_total_tokens=int(measured.total_tokens * (1 + USAGE_SLACK)),
        max_steps=int(measured.steps * (1 + USAGE_SLACK)),
        max_wall_seconds=(math.ceil(measured.wall_seconds * (1 + RUNTIME_SLACK))),
    )


def gate(card: Scorecard, exp: Expectations) -> GateVerdict:
    """One check per metric; refuses (NotComparableError) a different suite/model/judge."""
    for field in ("suite", "model", "judge_model"):
        mine, theirs = getattr(card, field), getattr(exp, field)
        if mine != theirs:
            msg = f"{field} differs: this run {mine!r}, expectations {theirs!r}; not comparable"
            raise NotComparableError(msg)
    s = summary(card)
    m = exp.measured
    all_judged = s.judged == s.tasks
    checks = [
        GateCheck(
            name="measured",
            ok=s.unmeasured == 0 and s.tasks == len(card.task_ids or card.tasks),
            value=s.tasks - s.unmeasured,
            limit=len(card.task_ids or card.tasks),
            note="every task must be measured",
        ),
        GateCheck(
            name="passed",
            ok=s.passed >= exp.min_passed,
            value=s.passed,
            limit=exp.min_passed,
            main=m.passed,
        ),
    ]
    if exp.min_verified is None:
        checks.append(
            GateCheck(name="verified", ok=True, value=s.verified, limit=None, note="not gated yet")
        )
    else:
        checks.append(
            GateCheck(
                name="verified",
                ok=s.verified >= exp.min_verified,
                value=s.verified,
                limit=exp.min_verified,
                main=m.verified,
            )
        )
    if exp.min_quality is not None:
        checks.append(
            GateCheck(
                name="quality",
                ok=all_judged and s.quality is not None and s.quality >= exp.min_quality,
                value=s.quality,
                limit=exp.min_quality,
                main=m.quality,
                note="" if all_judged else "needs every task judged",
            )
        )
    if exp.max_misreported is not None:
        checks.append(
            GateCheck(
                name="misreported",
                ok=all_judged and s.misreported <= exp.max_misreported,
                value=s.misreported,
                limit=exp.max_misreported,
                main=m.misreported,
                note="" if all_judged else "needs every task judged",
            )
        )
    checks += [
        GateCheck(
            name="total_tokens",
            ok=s.total_tokens <= exp.max_total_tokens,
            value=s.total_tokens,
            limit=exp.max_total_tokens,
            main=m.total_tokens,
        ),
        GateCheck(
            name="steps",
            ok=s.steps <= exp.max_steps,
            value=s.steps,
            limit=exp.max_steps,
            main=m.steps,
        ),
        GateCheck(
            name="wall_seconds",
            ok=s.wall_seconds <= exp.max_wall_seconds,
            value=s.wall_seconds,
            limit=exp.max_wall_seconds,
            main=m.wall_seconds,
        ),
    ]
    return GateVerdict(ok=all(c.ok for c in checks), checks=checks)


def verdict_markdown(card: Scorecard, verdict: GateVerdict) -> str:
    lines = [
        f"# Gate: suite `{card.suite}`, model `{card.model}`: {'PASS' if verdict.ok else 'FAIL'}",
        "",
        "| check | ok | this run | limit | main | note |",
        "|---|---|---|---|---|---|",
    ]
    for c in verdict.checks:
        ok = "yes" if c.ok else "NO"
        lines.append(f"| {c.name} | {ok} | {c.value} | {c.limit} | {c.main} | {c.note} |")
    return "\n".join(lines) + "\n"
