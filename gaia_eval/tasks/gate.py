"""Pure: propose expectations from judged runs, and gate a run against them (§6.9).

The verdict is the engine's (core.results.Verdict, stored inside results.json and shown
by the report's Gate section): one MetricCheck per expectation limit, with the value the
expectations were measured at as its baseline, and every task whose result changed since
then as a flip -- listed, not failed on, since `min_passed` already allows one flip.
"""

from __future__ import annotations

import math

from gaia_eval.core.errors import InvalidInputError, NotComparableError
from gaia_eval.core.items import item_id
from gaia_eval.core.results import Flip, MetricCheck, Verdict
from gaia_eval.tasks.models import Expectations, Measured, Scorecard
from gaia_eval.tasks.report import result_string, summary

# The expectations' headroom for one noisy run (docs/tasks.md); a run-vs-run
# `--gate` uses the same numbers (TasksSuite.gate_rules).
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
        if s.unmeasured or s.tasks < len(c.task_ids):
            missing = s.unmeasured + len(c.task_ids) - s.tasks
            msg = f"run r{c.repeat}: {missing} task(s) not measured; re-run first"
            raise InvalidInputError(msg)
        # A run with no judge at all (a plumbing model's, whose context cannot hold the
        # judge's prompt) gates its mechanical results only; a judged run must be whole.
        if judge is not None and s.judged < s.tasks:
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
        max_misreported=measured.misreported + MISREPORT_SLACK if judge is not None else None,
        max_total_tokens=int(measured.total_tokens * (1 + USAGE_SLACK)),
        max_steps=int(measured.steps * (1 + USAGE_SLACK)),
        max_wall_seconds=(math.ceil(measured.wall_seconds * (1 + RUNTIME_SLACK))),
    )


def _check(  # noqa: PLR0917 (name, verdict, value, limit, main value, rule: one row)
    name: str,
    ok: bool,
    value: float | None,
    limit: float,
    main: float,
    rule: str,
) -> MetricCheck:
    return MetricCheck(
        name=name,
        baseline=main,
        current=value,
        allowed=round(abs(main - limit), 6),
        rule=rule,
        passed=ok,
    )


def _as_bool(result: str | None) -> bool | None:
    return {"PASS": True, "FAIL": False}.get(result or "")


def gate(card: Scorecard, exp: Expectations, label: str = "expectations") -> Verdict:
    """One check per limit; refuses (NotComparableError) a different suite/model/judge."""
    for field in ("suite", "model", "judge_model"):
        mine, theirs = getattr(card, field), getattr(exp, field)
        if mine != theirs:
            msg = f"{field} differs: this run {mine!r}, expectations {theirs!r}; not comparable"
            raise NotComparableError(msg)
    s = summary(card)
    m = exp.measured
    all_judged = s.judged == s.tasks
    judged_note = "" if all_judged else "; needs every task judged"
    asked = len(card.task_ids or card.tasks)
    measured = s.tasks - s.unmeasured
    checks = [
        _check(
            "measured",
            s.unmeasured == 0 and s.tasks == asked,
            measured,
            asked,
            asked,
            f"every task measured (= {asked})",
        ),
        _check(
            "passed", s.passed >= exp.min_passed, s.passed, exp.min_passed, m.passed,
            f">= {exp.min_passed} (min_passed)",
        ),
    ]  # fmt: skip
    not_gated = []
    if exp.min_verified is None:
        checks.append(_check("verified", True, s.verified, m.verified, m.verified, "not gated yet"))
        not_gated.append("verified")
    else:
        checks.append(
            _check(
                "verified", s.verified >= exp.min_verified, s.verified, exp.min_verified,
                m.verified, f">= {exp.min_verified} (min_verified)",
            )
        )  # fmt: skip
    if exp.min_quality is not None:
        ok = all_judged and s.quality is not None and s.quality >= exp.min_quality
        checks.append(
            _check(
                "quality", ok, s.quality, exp.min_quality, m.quality or exp.min_quality,
                f">= {exp.min_quality} (min_quality){judged_note}",
            )
        )  # fmt: skip
    if exp.max_misreported is not None:
        ok = all_judged and s.misreported <= exp.max_misreported
        checks.append(
            _check(
                "misreported", ok, s.misreported, exp.max_misreported, m.misreported,
                f"<= {exp.max_misreported} (max_misreported){judged_note}",
            )
        )  # fmt: skip
    for name, value, limit, main in (
        ("total_tokens", s.total_tokens, exp.max_total_tokens, m.total_tokens),
        ("steps", s.steps, exp.max_steps, m.steps),
        ("wall_seconds", s.wall_seconds, exp.max_wall_seconds, m.wall_seconds),
    ):
        checks.append(_check(name, value <= limit, value, limit, main, f"<= {limit} (max_{name})"))
    rows = {str(r.get("id")): r.get("result") for r in exp.tasks}
    flips = []
    for t in card.tasks:
        before, after = _as_bool(rows.get(t.id)), _as_bool(result_string(t))
        if t.id in rows and before != after:
            flips.append(
                Flip(
                    item=item_id(t.id, card.repeat),
                    check="result",
                    before=before,
                    after=after,
                    gated=False,
                )
            )
    failures = [
        f"{c.name} is {'none' if c.current is None else f'{c.current:g}'}, outside {c.rule}"
        + ("" if c.name == "measured" else f"; the expectations measured {c.baseline:g}")
        for c in checks
        if not c.passed
    ]
    notes = ["verified: not gated yet (the expectations have no min_verified)"] if not_gated else []
    if flips:
        notes.append(
            f"{len(flips)} task(s) changed result since the expectations were measured "
            "(listed, not gated: the limits above allow for it)"
        )
    return Verdict(
        passed=not failures,
        baseline=label,
        baseline_commit=exp.measured_on.get("commit"),
        failures=failures,
        notes=notes,
        metrics=checks,
        flips=flips,
        not_gated=not_gated,
    )


def gate_cards(cards: list[Scorecard], exp: Expectations, label: str) -> Verdict:
    """The verdict over every repeat of a run: each repeat must meet the expectations."""
    verdicts = [gate(c, exp, label) for c in cards]
    if len(verdicts) == 1:
        return verdicts[0]
    out = Verdict(passed=all(v.passed for v in verdicts), baseline=label)
    out.baseline_commit = verdicts[0].baseline_commit
    for card, v in zip(cards, verdicts, strict=True):
        tag = f"r{card.repeat}"
        out.failures += [f"{tag} {f}" for f in v.failures]
        out.notes += [f"{tag} {n}" for n in v.notes]
        out.metrics += [m.model_copy(update={"name": f"{tag} {m.name}"}) for m in v.metrics]
        out.flips += v.flips
        out.not_gated += [f"{tag} {n}" for n in v.not_gated]
    return out
