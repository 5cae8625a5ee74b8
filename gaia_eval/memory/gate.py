"""The memory gate (pure): check by check against the committed `pr` baseline.

Every check that passes in the baseline must still pass (a flip to fail, or a check gone,
fails the gate); checks that fail in the baseline are the known gaps, and one that passes
now is listed under "Fixed since the baseline". No metric tolerance: at this size a
tolerance would hide exactly the one check that regressed.
"""

from __future__ import annotations

from gaia_eval.core.gate import CheckRule, GateRules
from gaia_eval.core.results import Envelope


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


GATE = GateRules(
    checks=(CheckRule("*", must_still_pass=True),), unasked_fail=False, read_checks=checks
)


def fixed(env: Envelope) -> list[tuple[str, str]]:
    """(item, check) that failed in the baseline and pass now."""
    if env.verdict is None:
        return []
    return [(f.item, f.check) for f in env.verdict.flips if f.before is False and f.after is True]
