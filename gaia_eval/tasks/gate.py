"""Pure: propose expectations from judged runs, and gate a run against them (§6.9).

The verdict is the engine's (core.results.Verdict, stored inside results.json and shown
by the report's Gate section): one MetricCheck per expectation limit, with the value the
expectations were measured at as its baseline, and every task whose result changed since
then as a flip -- listed, not failed on, since `min_passed` already allows one flip.
"""

from __future__ import annotations

import math
from fnmatch import fnmatchcase

from gaia_eval.core.compare.metrics import ItemMetric
from gaia_eval.core.errors import InvalidInputError, NotComparableError
from gaia_eval.core.gate import (
    Bar,
    CheckRule,
    GateRules,
    Metric,
    MetricRule,
    check_bars,
    refuse_fields,
)
from gaia_eval.core.items import item_id, split_item_id
from gaia_eval.core.results import Envelope, Flip, Verdict
from gaia_eval.tasks.models import Expectations, Measured, Scorecard, TaskResult, TasksSummary
from gaia_eval.tasks.report import result_string
from gaia_eval.tasks.results import summary

# The expectations' headroom for one noisy run (docs/tasks.md); a run-vs-run
# `--gate` uses the same numbers (GATE, below).
PASS_SLACK = 1
VERIFIED_SLACK = 1
QUALITY_SLACK = 0.5
MISREPORT_SLACK = 1
USAGE_SLACK = 0.35
RUNTIME_SLACK = 0.5


def metrics(env: Envelope) -> dict[str, Metric]:
    c = TasksSummary.model_validate(env.summary).counts
    out = {
        "passed": Metric(c.passed, c.tasks),
        "verified": Metric(c.verified, c.coding),
        "total_tokens": Metric(c.total_tokens, c.tasks),
        "steps": Metric(c.steps, c.tasks),
    }
    if c.judged:
        out["quality"] = Metric(c.quality, c.judged)
        out["misreported"] = Metric(c.misreported, c.judged)
    return out


def checks(env: Envelope) -> dict[tuple[str, str], bool | None]:
    out: dict[tuple[str, str], bool | None] = {}
    for rec in env.items:
        if rec.status != "ok" or rec.result is None:
            continue
        res = TaskResult.model_validate(rec.result)
        if res.check == "mechanical":
            out[(rec.id, "passed")] = res.passed
            out[(rec.id, "verified")] = res.verified
        else:
            out[(rec.id, "passed (judged)")] = res.passed
    return out


def item_metrics(env: Envelope) -> list[ItemMetric]:
    """For `gaia-eval compare`: the gate's item checks per task. A task's repeats
    (`<task>#<k>`) are repeats of one unit, resampled together, so repeat noise is not
    counted as more tasks."""
    out: dict[str, ItemMetric] = {}
    for (item, check), ok in checks(env).items():
        if ok is None:
            continue
        rule = next(r for r in GATE.checks if fnmatchcase(check, r.pattern))
        metric = out.setdefault(check, ItemMetric(check, "binary", gated=rule.must_still_pass))
        metric.add(split_item_id(item)[0], ok, item)
    return [out[k] for k in sorted(out)]


GATE = GateRules(
    metrics=(
        MetricRule("passed", absolute=PASS_SLACK),
        MetricRule("verified", absolute=VERIFIED_SLACK),
        MetricRule("quality", absolute=QUALITY_SLACK),
        MetricRule("misreported", higher_is_better=False, absolute=MISREPORT_SLACK),
        MetricRule("total_tokens", False, absolute=0.0, relative=USAGE_SLACK),
        MetricRule("steps", False, absolute=0.0, relative=USAGE_SLACK),
    ),
    # A coding task's mechanical verdict must still pass; a judged verdict (judge
    # noise) and `verified` flips are listed, not failed on.
    checks=(CheckRule("passed"), CheckRule("*", must_still_pass=False)),
    read_metrics=metrics,
    read_checks=checks,
    item_metrics=item_metrics,
)
"""The run-vs-run gate (`tasks run --gate BASELINE`)."""


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


def _as_bool(result: str | None) -> bool | None:
    return {"PASS": True, "FAIL": False}.get(result or "")


def _ran_of(card: Scorecard, expected: list[str]) -> int:
    """How many of the expectations' tasks this repeat measured."""
    done = {t.id for t in card.tasks if t.error_kind != "unavailable"}
    return sum(1 for t in expected if t in done)


def gate(card: Scorecard, exp: Expectations, label: str = "expectations") -> Verdict:
    """One fixed bar per limit (the engine's `check_bars`); refuses (NotComparableError) a
    different suite, model or judge."""
    fields = ("suite", "model", "judge_model")
    refuse_fields(
        {f: getattr(exp, f) for f in fields},
        {f: getattr(card, f) for f in fields},
        label,
        theirs="the expectations",
        fix="gate against expectations proposed from runs of the same suite, model and judge",
    )
    s = summary(card)
    m = exp.measured
    all_judged = s.judged == s.tasks
    judged_note = "" if all_judged else "; needs every task judged"
    asked = len(card.task_ids or card.tasks)
    expected = [str(r.get("id")) for r in exp.tasks]
    ran = _ran_of(card, expected)
    values: dict[str, float | None] = {
        "measured": s.tasks - s.unmeasured,
        "expectations_tasks": ran,
        "passed": s.passed,
        "verified": s.verified,
        "quality": s.quality,
        "misreported": s.misreported,
        "total_tokens": s.total_tokens,
        "steps": s.steps,
        "wall_seconds": s.wall_seconds,
    }
    bars = [
        Bar(
            "measured",
            asked,
            rule=f"every task measured (= {asked})",
            trusted=s.unmeasured == 0 and s.tasks == asked,
        ),
        # A filtered run (`--tasks 21-qa`) measures every task it was asked and can still
        # meet min_passed: the expectations hold for all their tasks, so each must have run.
        Bar(
            "expectations_tasks",
            len(expected),
            rule=f"every task of the expectations ran (= {len(expected)})",
        ),
        Bar("passed", exp.min_passed, rule=f">= {exp.min_passed} (min_passed)", reference=m.passed),
        Bar("verified", m.verified, rule="not gated yet", reference=m.verified, gated=False)
        if exp.min_verified is None
        else Bar(
            "verified",
            exp.min_verified,
            rule=f">= {exp.min_verified} (min_verified)",
            reference=m.verified,
        ),
    ]
    if exp.min_quality is not None:
        bars.append(
            Bar(
                "quality",
                exp.min_quality,
                rule=f">= {exp.min_quality} (min_quality){judged_note}",
                reference=m.quality or exp.min_quality,
                must_be_measured=True,
                trusted=all_judged,
            )
        )
    if exp.max_misreported is not None:
        bars.append(
            Bar(
                "misreported",
                exp.max_misreported,
                higher_is_better=False,
                rule=f"<= {exp.max_misreported} (max_misreported){judged_note}",
                reference=m.misreported,
                trusted=all_judged,
            )
        )
    for name, limit, main in (
        ("total_tokens", exp.max_total_tokens, m.total_tokens),
        ("steps", exp.max_steps, m.steps),
        ("wall_seconds", exp.max_wall_seconds, m.wall_seconds),
    ):
        bars.append(Bar(name, limit, False, rule=f"<= {limit} (max_{name})", reference=main))
    verdict = check_bars(values, bars, label=label, source="the expectations")
    rows = {str(r.get("id")): r.get("result") for r in exp.tasks}
    for t in card.tasks:
        before, after = _as_bool(rows.get(t.id)), _as_bool(result_string(t))
        if t.id in rows and before != after:
            verdict.flips.append(
                Flip(
                    item=item_id(t.id, card.repeat),
                    check="result",
                    before=before,
                    after=after,
                    gated=False,
                )
            )
    if ran < len(expected):
        verdict.notes.append(
            f"{ran} of {len(expected)} tasks of the expectations ran; the gate holds for a "
            "run of all of them"
        )
    if verdict.not_gated:
        verdict.notes.append("verified: not gated yet (the expectations have no min_verified)")
    if verdict.flips:
        verdict.notes.append(
            f"{len(verdict.flips)} task(s) changed result since the expectations were measured "
            "(listed, not gated: the limits above allow for it)"
        )
    verdict.baseline_commit = exp.measured_on.get("commit")
    return verdict


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
