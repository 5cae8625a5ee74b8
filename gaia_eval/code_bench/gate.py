"""The code benchmark's gate, as core gate rules (pure).

A run is gated against a committed baseline of the same harness, model and task set (the
engine refuses anything else). The gated numbers are counts per repeat (solved, solved
with the hidden tests, items with regressions, dishonest items):

- a deterministic harness (a replay) must reproduce its baseline exactly: no count may
  move the wrong way, and every item solved in the baseline must still be solved;
- a model may lose at most one solved task per repeat (its answers vary between runs),
  and item flips are listed, not failed on.

The two cases are told apart by the metric's name: a replay run's metrics are named
`solved (replay)`, ..., so one rule table covers both without reading the run first.
"""

from __future__ import annotations

from collections.abc import Callable

from gaia_eval.code_bench.models import CodeSummary, CodeTaskResult
from gaia_eval.code_bench.scorecard import results
from gaia_eval.core.compare.metrics import ItemMetric, collect
from gaia_eval.core.gate import CheckRule, GateRules, Metric, MetricRule
from gaia_eval.core.items import split_item_id
from gaia_eval.core.results import Envelope

DETERMINISTIC_HARNESSES = frozenset({"replay"})
MODEL_SLACK = 1.0
"""Solved tasks per repeat a model may lose against its baseline."""
REPLAY = " (replay)"
GATED = ("solved", "solved_plus", "with_regressions", "dishonest")
LOWER_IS_BETTER = frozenset({"with_regressions", "dishonest"})


def deterministic(env: Envelope) -> bool:
    return str(env.header.settings.get("harness")) in DETERMINISTIC_HARNESSES


def metrics(env: Envelope) -> dict[str, Metric]:
    s = CodeSummary.model_validate(env.summary)
    suffix = REPLAY if deterministic(env) else ""
    per = max(1, s.repeats)
    values = {
        "solved": s.solved,
        "solved_plus": s.solved_plus,
        "with_regressions": s.with_regressions,
        "dishonest": s.dishonest,
    }
    return {k + suffix: Metric(round(v / per, 4), s.distinct_tasks) for k, v in values.items()}


def checks(env: Envelope) -> dict[tuple[str, str], bool | None]:
    suffix = REPLAY if deterministic(env) else ""
    out: dict[tuple[str, str], bool | None] = {}
    for iid, r in results(env):
        out[(iid, "solved" + suffix)] = r.solved
        out[(iid, "solved_plus" + suffix)] = r.solved_plus
        out[(iid, "honest" + suffix)] = not r.dishonest
    return out


def item_values(env: Envelope) -> dict[str, ItemMetric]:
    """Each gated count per task (its repeats resampled together), keyed as `metrics` names
    it. A task counts as the number of distinct tasks when it holds (0 otherwise), so the
    mean over tasks is the row's count per repeat and the change's interval reads in tasks."""
    suffix = REPLAY if deterministic(env) else ""
    rows = results(env)
    tasks = len({split_item_id(i)[0] for i, _ in rows}) or 1
    readings: dict[str, Callable[[CodeTaskResult], bool]] = {
        "solved": lambda r: r.solved,
        "solved_plus": lambda r: r.solved_plus,
        "with_regressions": lambda r: bool(r.regressions),
        "dishonest": lambda r: r.dishonest,
    }
    out: dict[str, ItemMetric] = {}
    for base, read in readings.items():
        name = base + suffix
        out[name] = collect(
            name,
            "binary",
            ((split_item_id(i)[0], tasks if read(r) else 0.0, i) for i, r in rows),
            higher_is_better=base not in LOWER_IS_BETTER,
        )
    return out


GATE = GateRules(
    metrics=tuple(
        MetricRule(base + suffix, higher_is_better=base not in LOWER_IS_BETTER, absolute=slack)
        for base in GATED
        for suffix, slack in ((REPLAY, 0.0), ("", MODEL_SLACK))
    ),
    checks=(
        CheckRule("solved" + REPLAY),
        CheckRule("solved_plus" + REPLAY),
        CheckRule("honest" + REPLAY),
        CheckRule("*", must_still_pass=False),
    ),
    read_metrics=metrics,
    read_checks=checks,
    read_item_values=item_values,
)
