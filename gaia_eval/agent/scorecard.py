"""The scorecard (the suite's summary, also written as scorecard.json): counts by status,
pass rates, the FAIL-capped average, by category, performance, the driver's spend, and
pass^k with flip rates over repeats."""

from __future__ import annotations

import itertools
from collections import defaultdict
from math import comb
from typing import Any

from pydantic import Field

from gaia_eval.agent.blame import FAIL_SCORE_CAP
from gaia_eval.agent.models import STATUSES, DriverUsage, ScenarioResult
from gaia_eval.core.models import ResultModel
from gaia_eval.core.results import Envelope


class Counts(ResultModel):
    """Scenario counts by outcome."""

    total_scenarios: int = 0
    """Scenario runs asked for (repeats count separately)."""
    passed: int = 0
    """PASS."""
    failed: int = 0
    """FAIL blamed on the agent (or the environment): the agent's failures."""
    failed_driver_blamed: int = 0
    """FAIL the judge blamed on the driver (the simulator): not an agent failure."""
    blocked: int = 0
    """BLOCKED: the agent's architecture cannot do it."""
    timeout: int = 0
    """TIMEOUT."""
    budget_exceeded: int = 0
    """BUDGET_EXCEEDED."""
    infra_error: int = 0
    """INFRA_ERROR plus SETUP_ERROR: unmeasured, never a score."""
    setup_error: int = 0
    """SETUP_ERROR alone (indexing gave 0 chunks)."""
    skipped: int = 0
    """SKIPPED_NO_DOCUMENT."""
    errored: int = 0
    """ERRORED (the agent crashed, or the judge gave no usable reply), and unknown statuses."""
    not_run: int = 0
    """NOT_RUN: never started (an outage stopped the run first)."""
    pass_rate: float | None = None
    """passed / total_scenarios."""
    judged_pass_rate: float | None = None
    """passed / (PASS + agent FAIL + BLOCKED); driver-blamed failures are left out."""
    avg_score: float | None = None
    """Mean score of judged scenarios, each FAIL capped at 5.99."""


class Performance(ResultModel):
    """The agent's figures over the run."""

    avg_tokens_per_second: float | None = None
    """Mean over scenarios that have it."""
    avg_time_to_first_token: float | None = None
    """Mean seconds over scenarios that have it."""
    total_input_tokens: int = 0
    """Agent prompt tokens."""
    total_output_tokens: int = 0
    """Agent completion tokens."""
    scenarios_with_data: int = 0
    """Scenarios with tokens/s or TTFT."""
    flags: dict[str, int] = Field(default_factory=dict)
    """How many scenarios raised each perf flag."""


class Cost(ResultModel):
    """What the driver spent (it plays the user and judges, so both jobs are in here)."""

    driver: DriverUsage = Field(default_factory=DriverUsage)
    """Summed over the scenarios that recorded usage."""
    scenarios_counted: int = 0
    """Scenarios whose usage is in the totals."""
    scenarios_missing: int = 0
    """Scenarios whose usage is not (not run, unmeasured, killed on timeout)."""
    cost_known: int = 0
    """Scenarios with a known cost."""
    estimated_total_usd: float | None = None
    """The driver's known cost; None when no scenario has one."""
    by_category: dict[str, DriverUsage] = Field(default_factory=dict)
    """Usage per category."""


class Repeat(ResultModel):
    """pass^k and flips of one scenario over K repeats."""

    scenario_id: str
    """The scenario."""
    n: int
    """Judged repeats (PASS, FAIL, BLOCKED)."""
    c: int
    """Passing repeats."""
    pass_hat_k: dict[str, float] = Field(default_factory=dict)
    """k -> C(c,k)/C(n,k), the chance that k draws without replacement all pass."""
    flip_rate: float | None = None
    """Share of consecutive repeat pairs whose pass state differs."""


class Row(ResultModel):
    """One scenario run in the scorecard."""

    id: str
    """Item id (`scenario` or `scenario@r` with repeats)."""
    scenario_id: str
    """The scenario."""
    category: str
    """Its category."""
    status: str
    """Its status."""
    overall_score: float | None = None
    """Its score (uncapped)."""
    blame: str | None = None
    """Blame of a FAIL."""
    reason: str = ""
    """Why the status."""
    commit: str | None = None
    """Commit it ran at."""
    ran_at: str | None = None
    """When it finished."""
    elapsed_s: float | None = None
    """Wall seconds."""


class Scorecard(ResultModel):
    """The agent suite's summary."""

    config: dict[str, Any] = Field(default_factory=dict)
    """agent_model (the agent's model), model (the driver's), tier, scenario_filter, repeats."""
    summary: Counts = Field(default_factory=Counts)
    """Counts and rates."""
    by_category: dict[str, Counts] = Field(default_factory=dict)
    """The same per category."""
    scenarios: list[Row] = Field(default_factory=list)
    """Every asked scenario run, NOT_RUN included."""
    performance: Performance = Field(default_factory=Performance)
    """The agent's figures."""
    cost: Cost = Field(default_factory=Cost)
    """The driver's spend."""
    repeats: list[Repeat] = Field(default_factory=list)
    """pass^k per scenario (with --repeats > 1)."""
    pass_hat_k: dict[str, float] = Field(default_factory=dict)
    """k -> mean pass^k over scenarios with n >= k judged repeats."""
    flipping_scenarios: int = 0
    """Scenarios whose repeats disagree."""
    warnings: list[str] = Field(default_factory=list)
    """Reasons to distrust the numbers (unknown statuses, unmeasured scenarios)."""


def pass_hat_k(n: int, c: int, k: int) -> float:
    """tau-bench's pass^k: C(c,k) / C(n,k)."""
    if k > n or n == 0:
        msg = f"pass^k needs 1 <= k <= n, got k={k}, n={n}"
        raise ValueError(msg)
    return comb(c, k) / comb(n, k)


def _results(env: Envelope) -> list[tuple[str, ScenarioResult | None, str, Any]]:
    """(item id, result, status, record) for every asked item."""
    recs = env.records()
    out: list[tuple[str, ScenarioResult | None, str, Any]] = []
    for iid in env.header.item_ids:
        rec = recs.get(iid)
        if rec is None:
            out.append((iid, None, "NOT_RUN", None))
        elif rec.status == "infra_error":
            out.append((iid, None, "INFRA_ERROR", rec))
        elif rec.status == "error" or rec.result is None:
            out.append((iid, None, "ERRORED", rec))
        else:
            res = ScenarioResult.model_validate(rec.result)
            out.append((iid, res, res.status, rec))
    return out


def _count(rows: list[tuple[ScenarioResult | None, str]], warnings: list[str]) -> Counts:
    c = Counts(total_scenarios=len(rows))
    scores: list[float] = []
    for res, status in rows:
        if status == "PASS":
            c.passed += 1
        elif status == "FAIL":
            if res is not None and res.blame == "driver":
                c.failed_driver_blamed += 1
            else:
                c.failed += 1
        elif status == "BLOCKED":
            c.blocked += 1
        elif status == "TIMEOUT":
            c.timeout += 1
        elif status == "BUDGET_EXCEEDED":
            c.budget_exceeded += 1
        elif status in ("INFRA_ERROR", "SETUP_ERROR"):
            c.infra_error += 1
            c.setup_error += status == "SETUP_ERROR"
        elif status == "SKIPPED_NO_DOCUMENT":
            c.skipped += 1
        elif status == "NOT_RUN":
            c.not_run += 1
        else:
            c.errored += 1
            if status not in STATUSES:
                warnings.append(f"unknown status {status!r} counted as errored")
        counted = status in ("PASS", "BLOCKED") or (
            status == "FAIL" and not (res is not None and res.blame == "driver")
        )
        if counted and res is not None and res.overall_score is not None:
            s = res.overall_score
            scores.append(min(s, FAIL_SCORE_CAP) if status != "PASS" else s)
    if c.total_scenarios:
        c.pass_rate = round(c.passed / c.total_scenarios, 4)
    judged = c.passed + c.failed + c.blocked
    if judged:
        c.judged_pass_rate = round(c.passed / judged, 4)
    if scores:
        c.avg_score = round(sum(scores) / len(scores), 3)
    return c


def _add(into: DriverUsage, u: DriverUsage) -> None:
    into.input_tokens += u.input_tokens
    into.output_tokens += u.output_tokens
    into.calls += u.calls
    for key in ("cache_read_tokens", "cache_write_tokens"):
        v = getattr(u, key)
        if v is not None:
            setattr(into, key, (getattr(into, key) or 0) + v)
    if u.cost_usd is not None:
        into.cost_usd = round((into.cost_usd or 0.0) + u.cost_usd, 6)
        into.cost_source = u.cost_source


def _mean(xs: list[float]) -> float | None:
    return round(sum(xs) / len(xs), 4) if xs else None


def build(env: Envelope) -> Scorecard:
    head = env.header
    warnings: list[str] = []
    rows = _results(env)
    card = Scorecard(
        config={
            "agent_model": head.model,
            "model": head.judge,
            "system": head.system,
            "tier": head.tier,
            "repeats": head.settings.get("repeats", 1),
            "scenario_filter": env.setup.get("scenario_filter") if head.filtered else None,
        }
    )
    by_cat: dict[str, list[tuple[ScenarioResult | None, str]]] = defaultdict(list)
    cats = env.setup.get("categories", {})
    tps: list[float] = []
    ttft: list[float] = []
    for iid, res, status, rec in rows:
        sid = res.scenario_id if res else iid.split("@")[0]
        cat = res.category if res else str(cats.get(sid, "unknown"))
        by_cat[cat].append((res, status))
        card.scenarios.append(
            Row(
                id=iid,
                scenario_id=sid,
                category=cat,
                status=status,
                overall_score=res.overall_score if res else None,
                blame=res.blame if res else None,
                reason=(res.reason if res else (rec.error or "") if rec else "never started"),
                commit=rec.commit if rec else None,
                ran_at=rec.ran_at if rec else None,
                elapsed_s=res.elapsed_s if res else None,
            )
        )
        if res is None:
            card.cost.scenarios_missing += 1
            continue
        p = res.performance_summary
        card.performance.total_input_tokens += p.input_tokens
        card.performance.total_output_tokens += p.output_tokens
        if p.tokens_per_second is not None:
            tps.append(p.tokens_per_second)
        if p.time_to_first_token is not None:
            ttft.append(p.time_to_first_token)
        if p.tokens_per_second is not None or p.time_to_first_token is not None:
            card.performance.scenarios_with_data += 1
        for f in p.flags:
            card.performance.flags[f] = card.performance.flags.get(f, 0) + 1
        if res.driver_usage is None:
            card.cost.scenarios_missing += 1
        else:
            card.cost.scenarios_counted += 1
            card.cost.cost_known += res.driver_usage.cost_usd is not None
            _add(card.cost.driver, res.driver_usage)
            _add(card.cost.by_category.setdefault(cat, DriverUsage()), res.driver_usage)
    card.performance.avg_tokens_per_second = _mean(tps)
    card.performance.avg_time_to_first_token = _mean(ttft)
    card.cost.estimated_total_usd = card.cost.driver.cost_usd
    card.summary = _count([(r, s) for _, r, s, _ in rows], warnings)
    card.by_category = {k: _count(v, warnings) for k, v in sorted(by_cat.items())}
    _repeats(card, rows)
    unmeasured = card.summary.infra_error + card.summary.not_run
    if unmeasured:
        warnings.append(
            f"{unmeasured} of {card.summary.total_scenarios} scenario runs are unmeasured "
            f"({card.summary.infra_error} infra/setup error, {card.summary.not_run} not run); "
            "they are left out of every average"
        )
    card.warnings = sorted(set(warnings), key=warnings.index)
    return card


def _repeats(card: Scorecard, rows: list[tuple[str, ScenarioResult | None, str, Any]]) -> None:
    seq: dict[str, list[tuple[int, bool]]] = defaultdict(list)
    for _, res, status, _ in rows:
        if res is not None and status in ("PASS", "FAIL", "BLOCKED"):
            seq[res.scenario_id].append((res.repeat, status == "PASS"))
    if not any(len(v) > 1 for v in seq.values()):
        return
    per_k: dict[int, list[float]] = defaultdict(list)
    for sid, runs in sorted(seq.items()):
        runs.sort()
        outcomes = [ok for _, ok in runs]
        n, c = len(outcomes), sum(outcomes)
        rep = Repeat(scenario_id=sid, n=n, c=c)
        for k in range(1, n + 1):
            v = pass_hat_k(n, c, k)
            rep.pass_hat_k[str(k)] = round(v, 4)
            per_k[k].append(v)
        if n > 1:
            flips = sum(1 for a, b in itertools.pairwise(outcomes) if a != b)
            rep.flip_rate = round(flips / (n - 1), 4)
            card.flipping_scenarios += 0 < c < n
        card.repeats.append(rep)
    card.pass_hat_k = {str(k): round(sum(v) / len(v), 4) for k, v in sorted(per_k.items())}
