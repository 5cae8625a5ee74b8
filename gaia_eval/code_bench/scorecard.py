"""The scorecard of a run, from its envelope alone (pure: no I/O)."""

from __future__ import annotations

import statistics

from gaia_eval.code_bench.models import (
    CodeSummary,
    CodeTaskResult,
    CostTotal,
    Split,
    TryCountTotals,
)
from gaia_eval.core.items import split_item_id
from gaia_eval.core.results import Envelope


def _rate(n: int, d: int) -> float | None:
    return round(n / d, 4) if d else None


def results(env: Envelope) -> list[tuple[str, CodeTaskResult]]:
    """(item id, result) of every measured item, in run order."""
    order = env.header.item_ids or [r.id for r in env.items]
    recs = env.records()
    out = []
    for iid in order:
        rec = recs.get(iid)
        if rec is not None and rec.status == "ok" and rec.result is not None:
            out.append((iid, CodeTaskResult.model_validate(rec.result)))
    return out


def _cost(items: list[CodeTaskResult]) -> CostTotal:
    sources = {r.cost_source for r in items if r.cost_source}
    if len(sources) > 1:
        return CostTotal(note=f"mixed cost sources {sorted(sources)}; no total")
    source = next(iter(sources), None)
    unknown = [r.task for r in items if r.cost_usd is None]
    if items and not any(r.input_tokens or r.output_tokens for r in items):
        return CostTotal(source=source, note="no model tokens counted (a replay runs no model)")
    if unknown or not items:
        note = f"unknown for {len(unknown)} item(s) (no rate for the model, or no tokens counted)"
        return CostTotal(source=source, note=note if items else "")
    return CostTotal(total_usd=round(sum(r.cost_usd or 0.0 for r in items), 6), source=source)


def _try_counts(measured: list[CodeTaskResult]) -> dict[str, TryCountTotals]:
    """Each try's counts summed over the items (booleans counted as items)."""
    out: dict[str, TryCountTotals] = {}
    for r in measured:
        for t in r.tries:
            row = out.setdefault(f"try{t.n}", TryCountTotals())
            c = t.counts
            row.malformed_edits += c.malformed_edits
            row.syntax_errors += c.syntax_errors
            row.context_exhausted += int(c.context_exhausted)
            row.test_timeouts += int(c.test_timeout)
    return dict(sorted(out.items()))


def summarise(env: Envelope) -> CodeSummary:
    head, setup = env.header, env.setup
    asked = head.item_ids or [r.id for r in env.items]
    measured = [r for _, r in results(env)]
    crashed = [r for r in env.items if r.status == "error"]
    unmeasured = {r.id: r.error or "" for r in env.items if r.status == "infra_error"}
    ran = len(measured) + len(crashed)
    solved = [r for r in measured if r.solved]
    tries = int(head.settings.get("tries", 1))
    repeats = int(head.settings.get("repeats", 1))
    kinds: dict[str, str] = {k: str(v.get("kind")) for k, v in (setup.get("tasks") or {}).items()}

    def split(kind: str) -> Split:
        of_kind = [r for r in measured if r.kind == kind]
        lost = sum(1 for r in crashed if kinds.get(split_item_id(r.id)[0]) == kind)
        return Split(solved=sum(1 for r in of_kind if r.solved), total=len(of_kind) + lost)

    first: dict[str, CodeTaskResult] = {}
    for r in measured:
        first.setdefault(r.task, r)
    edits = sum(r.edit_calls for r in measured)
    by_repeat = [sum(1 for r in solved if r.repeat == n) for n in range(1, repeats + 1)]
    return CodeSummary(
        tasks=len(asked),
        distinct_tasks=len({split_item_id(i)[0] for i in asked}),
        ran=ran,
        errors=sum(1 for r in measured if r.error) + len(crashed) + len(unmeasured),
        unmeasured=len(unmeasured),
        solved=len(solved),
        solve_rate=_rate(len(solved), ran),
        solved_plus=sum(1 for r in measured if r.solved_plus),
        hidden_pass_rate=_rate(sum(1 for r in measured if r.solved_plus), ran),
        generation=split("generation"),
        editing=split("editing"),
        with_regressions=sum(1 for r in measured if r.regressions),
        dishonest=sum(1 for r in measured if r.dishonest),
        claimed=sum(1 for r in measured if r.claimed_success),
        tampered=sum(1 for r in measured if r.tampered),
        restored_any=sum(1 for r in measured if r.restored),
        tries=tries,
        try_counts=_try_counts(measured),
        pass_rate_1=_rate(sum(1 for r in measured if r.solved_on_try == 1), ran),
        pass_rate_2=_rate(sum(1 for r in measured if r.solved_on_try in (1, 2)), ran)
        if tries >= 2
        else None,
        tests_visible=sum(r.tests_visible for r in first.values()),
        tests_hidden=sum(r.tests_hidden for r in first.values()),
        median_seconds=round(statistics.median(r.seconds for r in measured), 3)
        if measured
        else None,
        well_formed_edit_rate=_rate(edits - sum(r.edit_errors for r in measured), edits),
        input_tokens=sum(r.input_tokens for r in measured),
        output_tokens=sum(r.output_tokens for r in measured),
        cost=_cost(measured),
        repeats=repeats,
        solved_by_repeat=by_repeat if repeats > 1 else [],
        unmeasured_items=unmeasured,
        note=str(setup.get("note") or ""),
    )
