"""Every gate row carries its change's paired interval and p-value; `--gate-mode
significance` fails only a significant drop (core/gate_stats.py), on the toy suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gaia_eval.core import runloop
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.gate import compare
from gaia_eval.core.report import render_markdown, terminal_summary
from gaia_eval.core.results import Envelope, load_envelope
from gaia_eval.core.runloop import RunRequest

sys.path.insert(0, str(Path(__file__).parent))
from engine_toy import ToySuite

N = 40
HERE = Path(__file__).parent


@pytest.fixture(autouse=True)
def _no_lock(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GAIA_EVAL_LOCK_DIR", str(tmp_path / "lock"))


def _run(tmp_path: Path, name: str, rows: dict[str, dict[str, object]], **kw: object) -> Envelope:
    items = tmp_path / f"{name}.json"
    items.write_text(json.dumps(rows))
    req = RunRequest(command="test", argv=["toy"], out=tmp_path / name, **kw)  # type: ignore[arg-type]
    return runloop.run(ToySuite(items), req).envelope


def _base() -> dict[str, dict[str, object]]:
    return {f"q{i:02d}": {"value": round(i / N, 4)} for i in range(N)}


def _clear_drop() -> dict[str, dict[str, object]]:
    """Every item 0.2 lower: the mean drops 0.2, far outside max(0.02, 1.5/40)."""
    return {
        k: {"value": v["value"], "now": round(float(v["value"]) - 0.2, 4)}
        for k, v in _base().items()
    }  # type: ignore[arg-type]


def _noisy_drop() -> dict[str, dict[str, object]]:
    """Items alternately 0.3 higher and 0.4 lower: the mean drops 0.05 (outside the
    0.0375 allowed), items flip both ways, and the change is noise."""
    out: dict[str, dict[str, object]] = {}
    for i, (k, v) in enumerate(_base().items()):
        step = 0.3 if i % 2 == 0 else -0.4
        out[k] = {"value": v["value"], "now": round(float(v["value"]) + step, 4)}  # type: ignore[arg-type]
    return out


def test_gate_rows_carry_interval_p_value_and_words(tmp_path: Path) -> None:
    base = _run(tmp_path, "base", _base())
    same = compare(ToySuite, base, _run(tmp_path, "same", _base()), tolerance=0)
    row = same.metrics[0]
    assert same.passed and row.passed and row.paired_items == N
    assert row.delta == 0 and row.delta_low == 0 and row.delta_high == 0
    assert row.p_value == 1.0 and row.significant_drop is False
    assert row.significance == "within tolerance; not a significant drop (p=1.0000)"

    clear = compare(ToySuite, base, _run(tmp_path, "clear", _clear_drop()))
    row = clear.metrics[0]
    assert not row.passed and row.significant_drop is True
    assert row.delta == pytest.approx(-0.2) and row.delta_high is not None and row.delta_high < 0
    assert row.p_value is not None and row.p_value < 0.01
    assert row.significance is not None
    assert row.significance.startswith("fails tolerance; the drop is significant (p")
    # The tolerance row itself is what it always was.
    assert row.rule == "max(0.02, 1.5/40) = 0.0375"
    assert any(f.startswith("mean dropped 0.4875 -> 0.2875") for f in clear.failures)

    noisy = compare(ToySuite, base, _run(tmp_path, "noisy", _noisy_drop()))
    row = noisy.metrics[0]
    assert not row.passed and row.significant_drop is False
    assert row.delta == pytest.approx(-0.05)
    assert row.delta_low is not None and row.delta_high is not None
    assert row.delta_low < -0.05 < 0 < row.delta_high
    assert row.significance is not None and row.significance.startswith(
        "fails tolerance but is within noise (p=0."
    )
    # The flips fail the tolerance gate; a note says whether they lean one way.
    assert any(n.startswith("8 must-still-pass check(s) lost: within noise (") for n in noisy.notes)
    assert any(
        n.startswith("8 must-still-pass check(s) lost: the drop is significant (")
        for n in clear.notes
    )


def test_report_and_terminal_show_both_verdicts(tmp_path: Path) -> None:
    base = tmp_path / "base" / "results.json"
    _run(tmp_path, "base", _base())
    env = _run(tmp_path, "noisy", _noisy_drop(), baseline=base)
    md = render_markdown(ToySuite, env)
    header = next(line for line in md.splitlines() if line.startswith("| metric | baseline"))
    assert header == (
        "| metric | baseline | now | allowed change | result | change, 95% interval, "
        "paired items | p (Holm) | in words |"
    )
    row = next(line for line in md.splitlines() if line.startswith("| mean |"))
    assert "| **FAIL** | -0.0500 [" in row and "] over 40 |" in row
    assert "fails tolerance but is within noise" in row
    lines = terminal_summary(ToySuite, env)
    assert any(
        line.startswith("    mean: fails tolerance but is within noise (p=")
        and "change -0.0500, 95% interval [" in line
        for line in lines
    )


def test_no_per_item_records_in_the_baseline(tmp_path: Path) -> None:
    base = _run(tmp_path, "base", _base())
    cur = _run(tmp_path, "clear", _clear_drop())
    # A summary-only baseline (a legacy file converted): the rows cannot be paired.
    summary_only = base.model_copy(deep=True)
    for rec in summary_only.items:
        rec.result = {"value": None, "passed": None}
    v = compare(ToySuite, summary_only, cur)
    row = v.metrics[0]
    assert row.p_value is None and row.significant_drop is None and row.delta is None
    assert row.significance == "fails tolerance; no per-item records in the baseline"
    # Significance mode cannot test it, so the tolerance gates it (never a free pass).
    sig = compare(ToySuite, summary_only, cur, mode="significance")
    assert not sig.passed and any(f.startswith("mean dropped") for f in sig.failures)
    assert any(
        "mean cannot be tested (no per-item records in the baseline)" in n for n in sig.notes
    )


def test_unreadable_baseline_item_records_are_named_not_a_crash(tmp_path: Path) -> None:
    base = _run(tmp_path, "base", _base())
    cur = _run(tmp_path, "clear", _clear_drop())
    edited = base.model_copy(deep=True)
    edited.items[0].result = {"passed": True}  # `value` gone: the per-item reader fails
    v = compare(ToySuite, edited, cur)
    assert v.metrics[0].significance == (
        "fails tolerance; the baseline's item records are unreadable (KeyError: 'value')"
    )


def test_too_few_items_have_no_p_value(tmp_path: Path) -> None:
    rows = {f"q{i}": {"value": i / 8} for i in range(8)}
    base = _run(tmp_path, "base", rows)
    cur = _run(
        tmp_path,
        "cur",
        {k: {"value": v["value"], "now": v["value"] - 0.3} for k, v in rows.items()},
    )  # type: ignore[operator]
    row = compare(ToySuite, base, cur).metrics[0]
    assert row.p_value is None and row.paired_items == 8 and row.delta_low is not None
    assert row.significance == "fails tolerance; 8 paired items, too few to test (at least 10)"


def test_significance_mode_clear_drop_fails_noisy_drop_passes(tmp_path: Path) -> None:
    base = tmp_path / "base" / "results.json"
    _run(tmp_path, "base", _base())
    clear_tol = _run(tmp_path, "clear-tol", _clear_drop(), baseline=base)
    clear_sig = _run(tmp_path, "clear-sig", _clear_drop(), baseline=base, gate_mode="significance")
    assert clear_tol.verdict is not None and not clear_tol.verdict.passed
    assert clear_sig.verdict is not None and not clear_sig.verdict.passed
    assert clear_sig.verdict.mode == "significance" and clear_tol.verdict.mode == "tolerance"
    assert any(
        f.startswith("mean dropped significantly: 0.4875 -> 0.2875")
        for f in clear_sig.verdict.failures
    )
    # The pooled must-still-pass checks (8 lost, none gained) are a significant drop too.
    assert any(
        f.startswith("the must-still-pass checks dropped significantly")
        for f in clear_sig.verdict.failures
    )

    noisy_tol = _run(tmp_path, "noisy-tol", _noisy_drop(), baseline=base)
    noisy_sig = _run(tmp_path, "noisy-sig", _noisy_drop(), baseline=base, gate_mode="significance")
    assert noisy_tol.verdict is not None and not noisy_tol.verdict.passed
    assert any(f.startswith("mean dropped 0.4875 -> 0.4375") for f in noisy_tol.verdict.failures)
    assert noisy_sig.verdict is not None and noisy_sig.verdict.passed, noisy_sig.verdict.failures
    # The tolerance row stays exactly as it is: it still reads FAIL, in both modes.
    assert noisy_sig.verdict.metrics[0].passed is False
    assert noisy_sig.verdict.metrics[0].rule == noisy_tol.verdict.metrics[0].rule
    notes = noisy_sig.verdict.notes
    assert any("mean fails tolerance but is within noise" in n for n in notes)
    assert any("must-still-pass check(s) lost, within noise" in n for n in notes)
    # Recorded in results.json and in the report.
    stored = load_envelope(tmp_path / "noisy-sig")
    assert stored.verdict is not None and stored.verdict.mode == "significance"
    assert "in significance mode" in (tmp_path / "noisy-sig" / "report.md").read_text()


def test_significance_mode_fails_a_significant_drop_inside_the_tolerance(tmp_path: Path) -> None:
    base = _run(tmp_path, "base", _base())
    cur = _run(tmp_path, "clear", _clear_drop())
    # A tolerance of 0.5 allows the 0.2 drop; the drop is still not noise.
    v = compare(ToySuite, base, cur, tolerance=0.5, mode="significance")
    row = v.metrics[0]
    assert row.passed and row.significant_drop is True
    assert row.significance is not None
    assert row.significance.startswith("within tolerance; the drop is significant (p")
    assert not v.passed
    assert any(f.startswith("mean dropped significantly") for f in v.failures)
    assert not any(f.startswith("mean dropped 0.4875") for f in v.failures)  # no tolerance line


def test_significance_mode_keeps_structural_failures_and_holm(tmp_path: Path) -> None:
    base = _run(tmp_path, "base", _base())
    rows = _noisy_drop()
    rows["q03"]["do"] = "crash"
    cur = _run(tmp_path, "cur", rows)
    v = compare(ToySuite, base, cur, mode="significance")
    assert not v.passed and any("q03 crashed" in f for f in v.failures)
    row = v.metrics[0]
    # Two tested rows (the metric and the pooled checks): Holm doubles the smaller p-value.
    assert row.p_holm is not None and row.p_value is not None and row.p_holm >= row.p_value
    with pytest.raises(InvalidInputError, match="--gate-mode must be one of"):
        compare(ToySuite, base, cur, mode="loose")  # type: ignore[arg-type]


def _process(tmp_path: Path, name: str, rows: dict[str, dict[str, object]], *flags: str) -> int:
    """The toy as a process, through the shared flags' parser (core/options.py)."""
    items = tmp_path / f"{name}.json"
    items.write_text(json.dumps(rows))
    env = dict(os.environ, PYTHONPATH=str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [
        sys.executable,
        str(HERE / "engine_toy_process.py"),
        str(items),
        "--out",
        str(tmp_path / name),
    ]
    return subprocess.run([*cmd, *flags], env=env, capture_output=True, check=False).returncode


def test_gate_mode_flag_exit_codes_and_unlike_run_exits_3(tmp_path: Path) -> None:
    assert _process(tmp_path, "base", _base()) == 0
    gate = ["--gate", str(tmp_path / "base")]
    sig = [*gate, "--gate-mode", "significance"]
    assert _process(tmp_path, "clear", _clear_drop(), *sig) == 1
    assert _process(tmp_path, "noisy-tol", _noisy_drop(), *gate) == 1
    assert _process(tmp_path, "noisy", _noisy_drop(), *sig) == 0
    assert load_envelope(tmp_path / "noisy").verdict.mode == "significance"  # type: ignore[union-attr]
    assert _process(tmp_path, "unlike", _noisy_drop(), *sig, "--knob", "b") == 3
    assert _process(tmp_path, "bad", _base(), *gate, "--gate-mode", "loose") == 2


@pytest.mark.parametrize(
    ("suite", "name", "words"),
    [
        # Every shipped baseline has item records (the old-format files' converters keep
        # them): a run against itself is the paired change 0, p = 1.
        ("retrieval", "pr", "within tolerance; not a significant drop (p=1.0000)"),
        ("code-retrieval", "offline", "within tolerance; not a significant drop (p=1.0000)"),
        ("code", "reference-replay", "within tolerance; not a significant drop (p=1.0000)"),
        ("agent", "smoke", "within tolerance; not a significant drop (p=1.0000)"),  # 30 scenarios
    ],
)
def test_shipped_baselines_rows_against_themselves(suite: str, name: str, words: str) -> None:
    from gaia_eval.core import baselines
    from gaia_eval.core.suite import legacy_converters, suite_class

    path = baselines.resolve(f"builtin:{suite}/{name}", suite)
    env = load_envelope(path, legacy=legacy_converters())
    cls = suite_class(env.header.suite)
    verdict = compare(cls, env, env, tolerance=0)
    assert verdict.passed and verdict.metrics
    assert {m.significance for m in verdict.metrics} == {words}
