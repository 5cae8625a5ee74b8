"""Every registered suite is a declaration: its gate and report are attributes the engine
reads (`gate = GATE`, `report = REPORT`), never methods it would silently ignore."""

from __future__ import annotations

import pytest

from gaia_eval.core.gate import GateRules
from gaia_eval.core.report import Report
from gaia_eval.core.suite import suites

# The methods the engine read before suites became declarations: a suite that still
# defines one has a report or a gate the engine never shows.
STALE = (
    "gate_rules",
    "gate_metrics",
    "gate_checks",
    "gate_extra",
    "gate_comparable_fields",
    "headline",
    "report_sections",
    "warnings",
)


@pytest.mark.parametrize("name", sorted(suites()))
def test_suite_declares_gate_and_report(name: str) -> None:
    cls = suites()[name].load()
    assert isinstance(cls.gate, GateRules), name
    assert isinstance(cls.report, Report), name
    stale = [m for m in STALE if hasattr(cls, m)]
    assert not stale, f"{name}: {stale} are not read by the engine; declare them in gate/report"
    # suite.py holds the declaration (a package's second suite, its judge controls, may
    # sit in controls.py beside it).
    # (A test's own suite, such as tests/engine_toy.py, registered at import, is one file.)
    if not cls.__module__.startswith("gaia_eval."):
        return
    where = cls.__module__.rsplit(".", 1)[-1]
    assert where in ("suite", "controls"), f"{name}: the Suite class lives in {cls.__module__}"
