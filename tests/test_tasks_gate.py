"""Expectations with the §6.9 slack, the gate's checks and refusals (as the engine's
Verdict, stored in results.json), and the reports; pre-engine scorecard folders still load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaia_eval.cli.main import main
from gaia_eval.core.errors import InvalidInputError, NotComparableError
from gaia_eval.core.results_io import write_json
from gaia_eval.tasks.gate import gate, propose
from gaia_eval.tasks.models import Judgement, Scorecard, TaskResult
from gaia_eval.tasks.report import result_string, table_html
from gaia_eval.tasks.results import run_cost, summary


def _judge(q: int, fab: int = 5, **kw: object) -> Judgement:
    return Judgement(
        instruction_compliance=q, work_quality=q, reasoning=q, fabrication_free=fab, **kw
    )


def card(passed: int = 3, model: str = "m", judge: str | None = "j", repeat: int = 1) -> Scorecard:
    tasks = []
    for i in range(4):
        tasks.append(
            TaskResult(
                id=f"t{i}",
                check="mechanical" if i < 3 else "stated",
                passed=i < passed,
                verified=i < 2,
                steps=10,
                input_tokens=1000,
                output_tokens=100,
                wall_seconds=20.0,
                judge=_judge(4, fab=4 if i == 0 else 5),
            )
        )
    return Scorecard(
        suite="core",
        model=model,
        harness="builtin",
        run_timeout_s=1800,
        tasks=tasks,
        judge_model=judge,
        repeat=repeat,
        task_ids=[t.id for t in tasks],
    )


def test_summary_counts() -> None:
    s = summary(card())
    assert (s.tasks, s.passed, s.coding, s.verified, s.judged) == (4, 3, 3, 2, 4)
    assert (s.quality, s.misreported, s.total_tokens, s.steps) == (4.19, 1, 4400, 40)


def test_propose_slack_constants() -> None:
    exp = propose([card()])
    assert (exp.min_passed, exp.min_verified, exp.min_quality, exp.max_misreported) == (
        2,
        1,
        3.69,
        2,
    )
    assert (exp.max_total_tokens, exp.max_steps, exp.max_wall_seconds) == (5940, 54, 120)
    assert exp.tasks[0] == {
        "id": "t0",
        "result": "PASS",
        "verified": True,
        "steps": 10,
        "total_tokens": 1100,
        "wall_seconds": 20.0,
        "quality": 4.0,
    }


def test_propose_from_several_runs_takes_worst_floor() -> None:
    exp = propose([card(passed=3), card(passed=1, repeat=2)])
    assert exp.measured.passed == 1 and exp.min_passed == 0


def test_propose_refuses_unmeasured_unjudged_and_unlike() -> None:
    c = card()
    c.tasks[0].error_kind = "unavailable"
    with pytest.raises(InvalidInputError, match="not measured"):
        propose([c])
    c = card()
    c.tasks[1].judge = Judgement(error="bad grade")
    with pytest.raises(InvalidInputError, match="unjudged"):
        propose([c])
    with pytest.raises(NotComparableError, match="model"):
        propose([card(), card(model="other")])


def _failed(v: object) -> list[str]:
    return [m.name for m in v.metrics if not m.passed]  # type: ignore[attr-defined]


def test_gate_pass_and_misses() -> None:
    exp = propose([card()])
    assert gate(card(), exp).passed
    verdict = gate(card(passed=1), exp)
    assert _failed(verdict) == ["passed"]
    passed = next(c for c in verdict.metrics if c.name == "passed")
    assert (passed.baseline, passed.current, passed.rule) == (3, 1, ">= 2 (min_passed)")
    assert verdict.failures == [
        "passed is 1, outside >= 2 (min_passed); the expectations measured 3"
    ]
    # t1 and t2 flipped PASS -> FAIL since the expectations: listed, not failed on by itself.
    assert [(f.item, f.before, f.after, f.gated) for f in verdict.flips] == [
        ("t1", True, False, False),
        ("t2", True, False, False),
    ]
    worse = card()
    for t in worse.tasks:
        t.input_tokens = 5000
    assert _failed(gate(worse, exp)) == ["total_tokens"]


def test_gate_requires_every_task_measured_and_judged() -> None:
    exp = propose([card()])
    c = card()
    c.tasks[3].error_kind = "unavailable"
    c.tasks[2].judge = Judgement(error="unjudged")
    assert {"measured", "quality", "misreported"} <= set(_failed(gate(c, exp)))
    # A crash that left fewer results than tasks asked for is not "all measured".
    c = card()
    c.tasks.pop()
    assert "measured" in _failed(gate(c, exp))


def test_gate_verified_not_gated_yet() -> None:
    exp = propose([card()])
    exp.min_verified = None
    verdict = gate(card(), exp)
    check = next(c for c in verdict.metrics if c.name == "verified")
    assert check.passed and check.rule == "not gated yet" and verdict.not_gated == ["verified"]


@pytest.mark.parametrize("field", ["suite", "model", "judge_model"])
def test_gate_refuses_unlike_runs(field: str) -> None:
    exp = propose([card()])
    c = card()
    setattr(c, field, "different")
    with pytest.raises(NotComparableError, match=field):
        gate(c, exp)


def test_result_strings_and_cost_rules() -> None:
    t = TaskResult(id="x", check="stated")
    assert result_string(t) == "AWAITING JUDGE"
    t.error_kind, t.error = "unavailable", "down"
    assert result_string(t) == "NOT MEASURED"
    assert result_string(TaskResult(id="x", check="mechanical", error="boom")) == "ERROR"
    a = TaskResult(id="a", check="stated", cost_usd=0.5, cost_source="harness_counts")
    b = TaskResult(id="b", check="stated", cost_usd=None, cost_source="harness_counts", steps=3)
    assert run_cost([a]).total_usd == 0.5
    assert run_cost([a, b]).total_usd is None and "unknown" in run_cost([a, b]).note
    c = TaskResult(id="c", check="stated", cost_usd=1.0, cost_source="metered")
    assert run_cost([a, c]).total_usd is None and "mixed" in run_cost([a, c]).note
    from gaia_eval.core.report import render_markdown
    from gaia_eval.tasks.results import cards_envelope
    from gaia_eval.tasks.suite import TasksSuite

    md = render_markdown(TasksSuite, cards_envelope([card()]))
    assert "cost n/a" in md and "$0.00" not in md


def _write(run: Path, c: Scorecard) -> None:
    write_json(run / "scorecard.json", c.model_dump(mode="json", by_alias=True))


def test_cli_gate_propose_report_on_pre_engine_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """scorecard.json folders (one run, or r1/r2 repeats) written before the engine load."""
    a, b = tmp_path / "a", tmp_path / "b"
    _write(a / "r1", card())
    _write(a / "r2", card(passed=2, repeat=2))
    _write(b, card(model="other-model"))
    exp = tmp_path / "exp.json"
    assert main(["tasks", "propose", str(a), "--out", str(exp)]) == 0
    data = json.loads(exp.read_text())
    assert data["schema"] == 1 and data["min_passed"] == 1 and data["model"] == "m"
    assert main(["tasks", "gate", str(a), "--expect", str(exp), "--enforce"]) == 0
    report = (a / "report.md").read_text()
    assert "Gate **PASSED**" in report and "r2 passed" in report
    assert not (a / "results.json").exists()  # an old run's files are left as they were
    _write(tmp_path / "bad", card(passed=0))
    assert main(["tasks", "gate", str(tmp_path / "bad"), "--expect", str(exp), "--enforce"]) == 1
    assert "MISS passed" in capsys.readouterr().out
    assert main(["tasks", "gate", str(tmp_path / "bad"), "--expect", str(exp)]) == 0
    assert main(["tasks", "gate", str(b), "--expect", str(exp)]) == 3
    assert "model differs" in capsys.readouterr().err
    assert main(["tasks", "propose", str(a), str(b), "--out", str(tmp_path / "x.json")]) == 3
    assert main(["tasks", "report", str(a), str(b), "--out", str(tmp_path / "rep")]) == 0
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "| core | builtin | m | 2 | 0 | 3/4 / 2/4 |" in md
    assert "other-model" in md
    assert "<table>" in (tmp_path / "rep" / "report.html").read_text()
    assert "<td>other-model</td>" in table_html([card(model="other-model")])
    assert main(["tasks", "gate", str(tmp_path / "nothing")]) == 2


def test_enforce_without_committed_expectations_is_not_gated_yet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path / "run", card(model="a-model-nobody-measured"))
    assert main(["tasks", "gate", str(tmp_path / "run"), "--enforce"]) == 0
    out = capsys.readouterr().out
    assert "not gated yet" in out and "a-model-nobody-measured.core.json" in out
    assert "gaia_eval/baselines/tasks" in out
    # Naming a file that does not exist is an error, enforcing or not.
    for extra in ([], ["--enforce"]):
        missing = ["--expect", str(tmp_path / "missing.json")]
        assert main(["tasks", "gate", str(tmp_path / "run"), *missing, *extra]) == 2
        assert "missing.json: no such file" in capsys.readouterr().err


def test_gate_stores_the_verdict_in_the_envelope(tmp_path: Path) -> None:
    from gaia_eval.core.results import load_envelope
    from gaia_eval.core.runloop import write_outputs
    from gaia_eval.tasks.results import cards_envelope
    from gaia_eval.tasks.suite import TasksSuite

    run = tmp_path / "run"
    run.mkdir()
    write_outputs(TasksSuite, run, cards_envelope([card()]))
    exp = tmp_path / "exp.json"
    assert main(["tasks", "propose", str(run), "--out", str(exp)]) == 0
    assert main(["tasks", "gate", str(run), "--expect", str(exp), "--enforce"]) == 0
    env = load_envelope(run / "results.json", suite="tasks")
    assert env.verdict is not None and env.verdict.passed and env.verdict.baseline == str(exp)
    assert "Gate **PASSED**" in (run / "report.md").read_text()
    assert "min_passed" in (run / "report.html").read_text()


def test_expect_takes_shipped_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--expect resolves like --gate (core/baselines): a file or builtin:tasks/<name>."""
    _write(tmp_path / "run", card())
    assert main(["tasks", "gate", str(tmp_path / "run"), "--expect", "builtin:tasks/nope"]) == 2
    err = capsys.readouterr().err
    assert "--expect 'builtin:tasks/nope': no such built-in baseline" in err


def _subset(n: int) -> Scorecard:
    """A run of only the first n tasks (`--tasks ...`), every one of them measured."""
    c = card()
    c.tasks, c.task_ids = c.tasks[:n], c.task_ids[:n]
    return c


def test_a_subset_of_the_expectations_tasks_is_named_and_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exp = propose([card(passed=1)])  # min_passed 0: a 1-task run meets every other bar
    verdict = gate(_subset(1), exp)
    assert _failed(verdict) == ["expectations_tasks"]
    assert "1 of 4 tasks of the expectations ran; the gate holds for a run of all of them" in (
        verdict.notes
    )
    assert gate(card(passed=1), exp).passed
    _write(tmp_path / "run", _subset(1))
    path = tmp_path / "exp.json"
    write_json(path, exp.model_dump(mode="json", by_alias=True))
    capsys.readouterr()
    assert main(["tasks", "gate", str(tmp_path / "run"), "--expect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "gate FAILED" in out and "1 of 4 tasks of the expectations ran" in out
    assert main(["tasks", "gate", str(tmp_path / "run"), "--expect", str(path), "--enforce"]) == 1


def test_enforce_fails_an_incomplete_run_without_expectations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gaia_eval.core.runloop import write_outputs
    from gaia_eval.tasks.results import cards_envelope
    from gaia_eval.tasks.suite import TasksSuite

    run = tmp_path / "run"
    run.mkdir()
    c = card(model="a-model-nobody-measured")
    c.tasks = c.tasks[:3]  # stopped after three of its four tasks
    env = cards_envelope([c])
    assert not env.header.complete
    write_outputs(TasksSuite, run, env)
    capsys.readouterr()
    assert main(["tasks", "gate", str(run), "--enforce"]) == 1
    out = capsys.readouterr().out
    assert "the run is incomplete, 3 of 4 tasks measured" in out and "not gated yet" not in out
    # Report mode still reports, and says what is missing.
    assert main(["tasks", "gate", str(run)]) == 0
    assert "not gated yet" in (out := capsys.readouterr().out) and "only 3 of 4 tasks" in out
