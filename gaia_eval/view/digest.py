"""What the view shows of one run folder: one run row and one row per item.

The main metric is the share of items that pass, with its Wilson interval: an item passes
when every one of its gate checks (`gate.read_checks`) passes, or -- for a suite that
declares no checks -- when it ran without error. Unmeasured items count in neither side.
The envelope comes through `load_envelope`, so what the view shows is what results I/O
wrote (scrubbed).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.stats import wilson

if TYPE_CHECKING:
    from gaia_eval.core.results import Envelope
    from gaia_eval.core.suite import Suite

MAIN_METRIC = "items passed"


@dataclass(frozen=True)
class ItemRow:
    id: str
    status: str
    """ok, error or infra_error, as the record says."""
    outcome: str
    """pass, fail, error or unmeasured: what the Flaky page compares between runs."""


@dataclass(frozen=True)
class RunRow:
    suite: str
    tier: str
    system: str | None
    embedder: str | None
    model: str | None
    judge: str | None
    config: str
    """The comparable fields as JSON: runs with equal config are one configuration."""
    commit: str | None
    started: str
    duration_s: float | None
    complete: bool
    verdict: str
    """pass, fail, errors, not gated, incomplete or unreadable."""
    headline: str
    passed: int
    measured: int
    metric: float | None
    low: float | None
    high: float | None
    baseline_label: str | None
    baseline_metric: float | None
    failures: str
    """The gate's failures, one per line."""
    error: str = ""


def suite_of(name: str) -> type[Suite] | None:
    """The registered suite class, or None for a suite this install does not know (its
    runs still list, with no headline and status-only outcomes)."""
    from gaia_eval.core.suite import suite_class

    try:
        return suite_class(name)
    except (InvalidInputError, ImportError, AttributeError, TypeError):
        return None


def outcomes(cls: type[Suite] | None, env: Envelope) -> dict[str, str]:
    """item id -> pass / fail / error / unmeasured."""
    checks: dict[str, list[bool]] = {}
    if cls is not None:
        try:
            for (item, _check), ok in cls.gate.read_checks(env).items():
                if ok is not None:
                    checks.setdefault(item, []).append(bool(ok))
        except (KeyError, TypeError, ValueError, AttributeError):
            checks = {}
    out: dict[str, str] = {}
    for rec in env.items:
        if rec.status == "infra_error":
            out[rec.id] = "unmeasured"
        elif rec.status == "error":
            out[rec.id] = "error"
        elif checks:
            out[rec.id] = "pass" if all(checks.get(rec.id, [False])) else "fail"
        else:
            out[rec.id] = "pass"
    return out


def _verdict(env: Envelope) -> str:
    if not env.header.complete:
        return "incomplete"
    if env.verdict is not None:
        return "pass" if env.verdict.passed else "fail"
    if env.header.item_errors:
        return "errors"
    return "not gated"


def headline(cls: type[Suite] | None, env: Envelope) -> str:
    if cls is None:
        return ""
    try:
        pairs = cls.report.headline(env)
    except (KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError):
        return ""
    return "; ".join(f"{label} {value}" for label, value in pairs)


def config_of(cls: type[Suite] | None, env: Envelope) -> str:
    head = env.header
    fields = (
        cls.comparable_fields(head)
        if cls is not None
        else {"suite": head.suite, "tier": head.tier, "system": head.system}
    )
    return json.dumps(fields, sort_keys=True, default=str)


def pass_rate(rows: dict[str, str]) -> tuple[int, int]:
    """(passed, measured) over item outcomes."""
    measured = [o for o in rows.values() if o != "unmeasured"]
    return sum(o == "pass" for o in measured), len(measured)


_BASELINE_RATES: dict[str, float | None] = {}


def baseline_rate(label: str, cls: type[Suite] | None, suite: str) -> float | None:
    """The baseline run's pass rate, where its file can be found (cached per label)."""
    if label in _BASELINE_RATES:
        return _BASELINE_RATES[label]
    from gaia_eval.core import baselines
    from gaia_eval.core.results import load_envelope
    from gaia_eval.core.suite import legacy_converters

    rate: float | None = None
    try:
        path = baselines.resolve(label, suite)
        env = load_envelope(path, suite=suite, legacy=legacy_converters())
        passed, measured = pass_rate(outcomes(cls, env))
        rate = passed / measured if measured else None
    except (InvalidInputError, OSError, ValueError):
        rate = None
    _BASELINE_RATES[label] = rate
    return rate


def envelope(path: Path) -> Envelope:
    from gaia_eval.core.results import load_envelope
    from gaia_eval.core.suite import legacy_converters

    return load_envelope(path, legacy=legacy_converters())


def digest(env: Envelope) -> tuple[RunRow, list[ItemRow]]:
    """The view's rows of one envelope."""
    head = env.header
    cls = suite_of(head.suite)
    rows = outcomes(cls, env)
    passed, measured = pass_rate(rows)
    low, high = wilson(passed, measured) if measured else (None, None)
    label = env.verdict.baseline if env.verdict is not None else None
    run = RunRow(
        suite=head.suite,
        tier=head.tier,
        system=head.system,
        embedder=head.embedder,
        model=head.model,
        judge=head.judge,
        config=config_of(cls, env),
        commit=head.run.commit,
        started=head.run.started,
        duration_s=head.run.duration_s,
        complete=head.complete,
        verdict=_verdict(env),
        headline=headline(cls, env),
        passed=passed,
        measured=measured,
        metric=passed / measured if measured else None,
        low=low,
        high=high,
        baseline_label=label,
        baseline_metric=baseline_rate(label, cls, head.suite) if label else None,
        failures="\n".join(env.verdict.failures) if env.verdict is not None else "",
    )
    items = [ItemRow(r.id, r.status, rows[r.id]) for r in env.items]
    return run, items


def unreadable(path: Path, err: Exception) -> RunRow:
    """A run folder whose results.json does not load: listed, with the reason, never hidden."""
    from gaia_eval.core.results_io import scrub_text

    return RunRow(
        suite="?", tier="?", system=None, embedder=None, model=None, judge=None,
        config="{}", commit=None, started="", duration_s=None, complete=False,
        verdict="unreadable", headline="", passed=0, measured=0, metric=None, low=None,
        high=None, baseline_label=None, baseline_metric=None, failures="",
        error=scrub_text(str(err))[:2000],
    )  # fmt: skip
