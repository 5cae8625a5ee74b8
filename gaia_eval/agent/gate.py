"""The agent gate (rules as data): the judged pass rate may not drop by more than one
scenario's worth, and a scenario that passed must still pass.

`agent --compare BASELINE CURRENT` is the same comparison by buckets (compare.py)."""

from __future__ import annotations

from gaia_eval.core.compare.metrics import ItemMetric
from gaia_eval.core.gate import CheckRule, GateRules, Metric, MetricRule
from gaia_eval.core.items import split_item_id
from gaia_eval.core.results import Envelope

JUDGED = ("PASS", "FAIL", "BLOCKED")


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


GATE = GateRules(
    metrics=(MetricRule("judged_pass_rate", absolute=0.0, widen_items=1.0),),
    checks=(CheckRule("pass"),),
    read_metrics=metrics,
    read_checks=checks,
    read_item_values=item_values,
)
