"""The engine's run-vs-run rule kind (core.gate.diff_runs) on the toy suite: every item in
one bucket, a regression fails (exit 1), missing and unmeasured items warn unless a
complete comparison is required, a filtered run's unasked items are not run, and the
suite's own buckets and the slower flag."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_toy import ToySuite

from gaia_eval.core import runloop
from gaia_eval.core.errors import EXIT_GATE_FAILED, EXIT_OK
from gaia_eval.core.gate import Outcome, RunDiffRule, diff_runs, render_diff
from gaia_eval.core.results import Envelope
from gaia_eval.core.runloop import RunRequest


@pytest.fixture(autouse=True)
def _no_lock(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GAIA_EVAL_LOCK_DIR", str(tmp_path / "lock"))


def _outcomes(env: Envelope) -> dict[str, Outcome]:
    """Toy items: passed when value >= 0.5, the value as score; value 0.42 is set aside."""
    recs = env.records()
    out: dict[str, Outcome] = {}
    for iid in env.header.item_ids:
        rec = recs.get(iid)
        if rec is None or rec.result is None:
            out[iid] = Outcome("NOT_RUN" if rec is None else rec.status.upper())
            continue
        value = float(rec.result["value"])
        ok = bool(rec.result["passed"])
        out[iid] = Outcome(
            "PASS" if ok else "FAIL",
            passed=ok,
            score=value,
            seconds=value,
            aside="set_aside" if value == 0.42 else None,
        )
    return out


RULE = RunDiffRule(read=_outcomes, score_drop=0.25, slower=2.0)


def _run(tmp_path: Path, name: str, rows: dict[str, dict[str, object]], **kw: object) -> Envelope:
    items = tmp_path / f"{name}.json"
    items.write_text(json.dumps(rows))
    req = RunRequest(command="test", argv=["toy"], out=tmp_path / name, **kw)  # type: ignore[arg-type]
    return runloop.run(ToySuite(items), req).envelope


BASE = {
    "up": {"value": 0.1},
    "down": {"value": 0.9},
    "drop": {"value": 0.95},
    "same": {"value": 0.6},
    "flaky": {"value": 0.7},
    "aside": {"value": 0.42},
    "slow": {"value": 0.2},
}


def test_a_run_against_itself_is_all_unchanged(tmp_path: Path) -> None:
    base = _run(tmp_path, "base", BASE)
    diff = diff_runs(RULE, base, base)
    assert diff.buckets == {
        "unchanged": ["down", "drop", "flaky", "same", "slow", "up"],
        "set_aside": ["aside"],
    }
    assert not diff.failures and not diff.warnings and diff.exit_code == EXIT_OK
    assert render_diff(diff).endswith("no regression")


def test_buckets_threshold_and_the_regression_exit(tmp_path: Path) -> None:
    base = _run(tmp_path, "base", BASE)
    now = {
        **BASE,
        "up": {"value": 0.1, "now": 0.8},
        "down": {"value": 0.9, "now": 0.3},
        "drop": {"value": 0.95, "now": 0.6},  # still passing, 0.35 lower: past 0.25
        "same": {"value": 0.6, "now": 0.5},  # 0.1 lower: inside the threshold
        "aside": {"value": 0.42, "now": 0.9},  # set aside in the baseline: never compared
        "slow": {"value": 0.2, "now": 0.35},  # under 2x the baseline's seconds
    }
    cur = _run(tmp_path, "cur", now)
    diff = diff_runs(RULE, base, cur, labels=("B", "C"))
    assert diff.buckets == {
        "improved": ["up"],
        "regressed": ["down"],
        "score_regressed": ["drop"],
        "unchanged": ["flaky", "same", "slow"],
        "set_aside": ["aside"],
    }
    assert diff.failures == ["down: regressed PASS -> FAIL", "drop: score dropped 0.95 -> 0.60"]
    assert diff.exit_code == EXIT_GATE_FAILED
    assert not diff.verdict("B").passed
    text = render_diff(diff)
    assert text.index("regressed: down") < text.index("improved: up")
    assert text.index("set_aside: aside") < text.index("unchanged: flaky")
    assert "compare B -> C:" in text and "FAILED:" in text

    # the slower flag is no bucket: the item still reads as unchanged
    slower = _run(tmp_path, "slower", {**BASE, "slow": {"value": 0.2, "now": 0.45}})
    diff = diff_runs(RULE, base, slower)
    assert diff.time_regressed == ["slow"] and "slow" in diff.buckets["unchanged"]
    assert "time_regressed (over 2x slower): slow" in render_diff(diff, slower=RULE.slower)
    assert diff.exit_code == EXIT_OK


def test_unmeasured_and_missing_warn_or_fail_when_complete_is_required(tmp_path: Path) -> None:
    base = _run(tmp_path, "base", BASE)
    rows = {k: v for k, v in BASE.items() if k != "down"}
    rows["flaky"] = {"value": 0.7, "do": "crash"}
    rows["new"] = {"value": 0.5}
    cur = _run(tmp_path, "cur", rows)
    diff = diff_runs(RULE, base, cur)
    assert diff.buckets["unmeasured"] == ["flaky"]
    assert diff.buckets["only_in_baseline"] == ["down"]
    assert diff.buckets["only_in_current"] == ["new"]
    assert diff.warnings == [
        "down: missing from the current run",
        "flaky: unmeasured now (ERROR)",
    ]
    assert not diff.failures and diff.exit_code == EXIT_OK
    assert render_diff(diff).startswith("WARNINGS (incomplete measurement; --require-complete")

    strict = diff_runs(RULE, base, cur, require_complete=True, flag="--all")
    assert strict.failures == [
        "down: missing from the current run (--all)",
        "flaky: unmeasured now (ERROR) (--all)",
    ]
    assert strict.exit_code == EXIT_GATE_FAILED


def test_a_filtered_run_lists_the_rest_as_not_run(tmp_path: Path) -> None:
    base = _run(tmp_path, "base", BASE)
    cur = _run(tmp_path, "cur", BASE, only=["up", "same"])
    diff = diff_runs(RULE, base, cur, noun="toy")
    assert diff.buckets["not_run"] == ["aside", "down", "drop", "flaky", "slow"]
    assert diff.buckets["unchanged"] == ["same", "up"]
    assert not diff.failures and not diff.warnings
    assert "5 baseline toy(s) were not run and are not judged" in render_diff(diff)
    strict = diff_runs(RULE, base, cur, require_complete=True)
    assert len(strict.failures) == 5 and strict.exit_code == EXIT_GATE_FAILED
    assert "down: not run (filtered current run) (--require-complete)" in strict.failures
