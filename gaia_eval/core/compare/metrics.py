"""What a suite compares: per-item metrics with their kind, good direction and gating.

A suite declares them in its gate (`GateRules.item_metrics`, `item_fields`); the default
here turns the gate's item checks (`read_checks`) into pass/fail metrics, so every suite
with checks compares out of the box.
Values are keyed by a paired unit id (an item, or one check of an item); a unit that
appears more than once in a run (repeats) keeps every value, and the comparison
resamples the unit with all its repeats together.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from gaia_eval.core.stats import Kind, mean_interval

if TYPE_CHECKING:
    from gaia_eval.core.gate import GateRules
    from gaia_eval.core.results import Envelope


@dataclass
class ItemMetric:
    """One metric's per-unit values in one run."""

    name: str
    kind: Kind
    higher_is_better: bool = True
    gated: bool = False
    values: dict[str, list[float]] = field(default_factory=dict)
    """unit id -> one value per repeat (binary: 1.0 pass, 0.0 fail)."""
    records: dict[str, str] = field(default_factory=dict)
    """unit id -> the item record id holding it (absent: the unit id itself)."""

    def add(self, unit: str, value: float | bool, record: str | None = None) -> None:
        self.values.setdefault(unit, []).append(float(value))
        if record is not None and record != unit:
            self.records[unit] = record

    def record(self, unit: str) -> str:
        return self.records.get(unit, unit)


def collect(
    name: str,
    kind: Kind,
    rows: Iterable[tuple[str, float | bool | None, str | None]],
    *,
    higher_is_better: bool = True,
    gated: bool = False,
) -> ItemMetric:
    """An ItemMetric from (unit, value, record) rows; a None value (not measured) is skipped."""
    out = ItemMetric(name, kind, higher_is_better, gated)
    for unit, value, record in rows:
        if value is not None:
            out.add(unit, value, record)
    return out


# Beyond this many distinct check names a suite's checks are per-item labels (memory's
# `p01/must_show/0`), and one metric per name would compare single items.
_MAX_NAMED = 12


def from_checks(gate: GateRules, env: Envelope) -> list[ItemMetric]:
    """The default: the gate's item checks as pass/fail metrics. With one check name that is
    the metric; with several, `checks passed` pools every (item, check), and (up to 12
    names) each name that covers several items is a metric of its own. A metric is gated
    when must-still-pass rules of the gate cover all its checks."""
    checks = gate.read_checks(env)
    if not checks:
        return []
    rules = gate.checks

    def must_pass(check: str) -> bool:
        rule = next((r for r in rules if fnmatchcase(check, r.pattern)), None)
        return rule is not None and rule.must_still_pass

    def named(name: str) -> ItemMetric:
        rows = ((item, ok, item) for (item, check), ok in checks.items() if check == name)
        return collect(name, "binary", rows, gated=must_pass(name))

    names = sorted({c for _, c in checks})
    if len(names) == 1:
        return [named(names[0])]
    pooled = collect(
        "checks passed",
        "binary",
        ((f"{item}/{check}", ok, item) for (item, check), ok in checks.items()),
        gated=all(must_pass(c) for c in names),
    )
    out = [pooled]
    if len(names) <= _MAX_NAMED:
        out += [m for m in map(named, names) if len(m.values) > 1]
    return out


def from_fields(fields: Sequence[str], env: Envelope) -> list[ItemMetric]:
    """Each named numeric field of the measured items' results, per item (continuous)."""
    results = [(rec.id, rec.result) for rec in env.items if rec.result]
    return [
        collect(name, "continuous", ((i, _number(res.get(name)), None) for i, res in results))
        for name in fields
    ]


def _number(value: object) -> float | None:
    """A number a result field holds (a bool, a pass/fail, is not one)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def item_metrics(gate: GateRules, env: Envelope) -> list[ItemMetric]:
    """What `gaia-eval compare` tests of one run: the gate's declared `item_metrics` (by
    default its item checks as pass/fail), then its `item_fields`."""
    own = gate.item_metrics(env) if gate.item_metrics else from_checks(gate, env)
    return [*own, *from_fields(gate.item_fields, env)]


@dataclass(frozen=True)
class Estimate:
    """One run's mean of an item metric with its 95% interval, over n units."""

    name: str
    mean: float
    low: float
    high: float
    n: int


def estimates(gate: GateRules, env: Envelope, alpha: float = 0.05) -> list[Estimate]:
    """Every per-item metric of one run (`item_metrics`) as a mean over its units (a unit's
    repeats averaged first) with its interval: Wilson for pass/fail, the bootstrap for
    means. What the report's headline shows beside the suite's own numbers."""
    out = []
    for m in item_metrics(gate, env):
        means = [math.fsum(v) / len(v) for v in m.values.values() if v]
        if means:
            low, high = mean_interval(means, m.kind, alpha)
            out.append(Estimate(m.name, math.fsum(means) / len(means), low, high, len(means)))
    return out


@dataclass
class Distribution:
    """Raw readings of one quantity under one condition (a latency at one load level),
    compared by percentiles: requests are not paired between runs, so the two runs are
    resampled independently."""

    group: str
    """The condition, e.g. the load level `c4`."""
    name: str
    """The quantity, e.g. `ttft_ms`."""
    values: list[float] = field(default_factory=list)
    higher_is_better: bool = False
