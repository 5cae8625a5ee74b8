"""The scorecard (the suite's summary, also written as scorecard.json): counts by status,
pass rates, the FAIL-capped average, by category, performance, the driver's spend, and
pass^k with flip rates over repeats."""

from __future__ import annotations

import itertools
from collections import defaultdict
from math import comb
from typing import Any

from gaia_eval.agent.blame import FAIL_SCORE_CAP
from gaia_eval.agent.models import (
    STATUSES,
    Counts,
    DriverUsage,
    Repeat,
    Row,
    ScenarioResult,
    Scorecard,
)
from gaia_eval.core.results import Envelope

__all__ = ["Counts", "Repeat", "Row", "Scorecard", "build", "pass_hat_k"]


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
