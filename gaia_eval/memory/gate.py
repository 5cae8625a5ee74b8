"""The memory gate (pure): check by check against the committed `pr` baseline.

Every check that passes in the baseline must still pass (a flip to fail, or a check gone,
fails the gate); checks that fail in the baseline are the known gaps, and one that passes
now is listed under "Fixed since the baseline". No metric tolerance: at this size a
tolerance would hide exactly the one check that regressed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gaia_eval.core.gate import CheckRule, GateRules
from gaia_eval.core.results import Envelope

if TYPE_CHECKING:
    from gaia_eval.core.compare.metrics import ItemMetric


def checks(env: Envelope) -> dict[tuple[str, str], bool | None]:
    """(scenario item, `<probe>/<check list>/<n>`) -> passed."""
    out: dict[tuple[str, str], bool | None] = {}
    for rec in env.items:
        if not rec.result:
            continue
        for probe in rec.result.get("probes", []):
            for check in probe.get("checks", []):
                name = check["id"].split("/", 1)[1]
                out[(rec.id, name)] = bool(check["passed"])
    return out


def fixed(env: Envelope) -> list[tuple[str, str]]:
    """(item, check) that failed in the baseline and pass now."""
    if env.verdict is None:
        return []
    return [(f.item, f.check) for f in env.verdict.flips if f.before is False and f.after is True]


def compare_metrics(env: Envelope) -> list[ItemMetric]:
    """For `gaia-eval compare`: every check pass/fail (gated, as in the gate), and the
    same per probe kind (not gated). The unit is the check: a scenario's repeats
    (`<scenario>#<k>`) are repeats of its checks, resampled together."""
    from gaia_eval.core.compare.metrics import ItemMetric

    pooled = ItemMetric("checks passed", "binary", gated=True)
    kinds: dict[str, ItemMetric] = {}
    for rec in env.items:
        if not rec.result:
            continue
        scenario = str(rec.result.get("scenario", rec.id))
        for probe in rec.result.get("probes", []):
            for check in probe.get("checks", []):
                unit = f"{scenario}/{check['id'].split('/', 1)[1]}"
                pooled.add(unit, bool(check["passed"]), rec.id)
                kind = f"{check.get('kind', probe.get('kind', '?'))} checks passed"
                kinds.setdefault(kind, ItemMetric(kind, "binary")).add(
                    unit, bool(check["passed"]), rec.id
                )
    return [pooled, *(kinds[k] for k in sorted(kinds))]


GATE = GateRules(
    checks=(CheckRule("*", must_still_pass=True),),
    unasked_fail=False,
    read_checks=checks,
    item_metrics=compare_metrics,
)
