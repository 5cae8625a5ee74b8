"""The agent gate (rules as data): the judged pass rate may not drop by more than one
scenario's worth, and a scenario that passed must still pass.

`agent --compare BASELINE CURRENT` is the engine's run-vs-run rule kind (`RUNS`, through
core.gate.diff_runs): improved, regressed, a score drop of 2.0 or more with the same pass
state, unchanged, unmeasured, not run, in one run only; a scenario skipped for a missing
document on either side is set aside as corpus_changed, and one over twice as slow is
flagged time_regressed."""

from __future__ import annotations

from typing import Any

from gaia_eval.core.compare.metrics import ItemMetric
from gaia_eval.core.gate import CheckRule, GateRules, Metric, MetricRule, Outcome, RunDiffRule
from gaia_eval.core.items import split_item_id
from gaia_eval.core.results import Envelope

JUDGED = ("PASS", "FAIL", "BLOCKED")
SCORE_DROP = 2.0
TIME_FACTOR = 2.0


def metrics(env: Envelope) -> dict[str, Metric]:
    s = env.summary.get("summary", {})
    judged = int(s.get("passed", 0)) + int(s.get("failed", 0)) + int(s.get("blocked", 0))
    return {"judged_pass_rate": Metric(s.get("judged_pass_rate"), judged)}


def checks(env: Envelope) -> dict[tuple[str, str], bool | None]:
    out: dict[tuple[str, str], bool | None] = {}
    for row in env.summary.get("scenarios", []):
        if row["status"] in JUDGED:
            out[(row["id"], "pass")] = row["status"] == "PASS"
    return out


def item_values(env: Envelope) -> dict[str, ItemMetric]:
    """The judged pass per scenario (its repeats resampled together), for the paired
    interval and p-value of the judged_pass_rate row."""
    out = ItemMetric("judged_pass_rate", "binary", gated=True)
    for row in env.summary.get("scenarios", []):
        if row["status"] in JUDGED:
            out.add(split_item_id(str(row["id"]))[0], row["status"] == "PASS", str(row["id"]))
    return {"judged_pass_rate": out}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def outcomes(env: Envelope) -> dict[str, Outcome]:
    """Every scorecard row (each asked scenario run, not run ones included) as an outcome."""
    out: dict[str, Outcome] = {}
    for row in env.summary.get("scenarios", []):
        status = str(row["status"])
        out[str(row["id"])] = Outcome(
            status=status,
            passed=status == "PASS" if status in JUDGED else None,
            score=_number(row.get("overall_score")),
            seconds=_number(row.get("elapsed_s")),
            aside="corpus_changed" if status == "SKIPPED_NO_DOCUMENT" else None,
        )
    return out


RUNS = RunDiffRule(read=outcomes, score_drop=SCORE_DROP, slower=TIME_FACTOR)

GATE = GateRules(
    metrics=(MetricRule("judged_pass_rate", absolute=0.0, widen_items=1.0),),
    checks=(CheckRule("pass"),),
    read_metrics=metrics,
    read_checks=checks,
    read_item_values=item_values,
    # The judge's overall score per scenario run (0-10): compared per item beside the
    # pass, not gated, so a worse agent that still fails the same scenarios shows.
    item_fields=("overall_score",),
    runs=RUNS,
)
