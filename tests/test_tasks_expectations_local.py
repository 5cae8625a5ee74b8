"""The committed `--model local` expectations: one per suite, proposed unedited from real
runs of the embedded model with no judge (its 2,048-token context cannot hold the judge's
prompt), and found by `tasks gate` without `--expect`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaia_eval.cli.main import main
from gaia_eval.core.results_io import model_from_data, read_json
from gaia_eval.tasks.commands import default_expectations
from gaia_eval.tasks.definitions import load_tasks
from gaia_eval.tasks.gate import propose
from gaia_eval.tasks.models import Expectations, Scorecard, TaskResult

SUITES = ("core", "adversarial", "everyday", "full")


@pytest.mark.parametrize("suite", SUITES)
def test_committed_local_expectations_cover_the_suite(suite: str) -> None:
    path = default_expectations("local", suite)
    exp = model_from_data(read_json(path), Expectations, source=str(path))
    assert (exp.suite, exp.model, exp.judge_model) == (suite, "local", None)
    assert [r["id"] for r in exp.tasks] == list(load_tasks().suites[suite])
    # Measured for real: the model spent tokens and time on every task.
    assert exp.measured.total_tokens > 0 and exp.measured.wall_seconds > 0
    assert all(r["result"] != "NOT MEASURED" for r in exp.tasks)
    assert exp.measured_on.get("commit")
    # No judge: quality and misreporting are not gated; the mechanical limits are.
    assert exp.min_quality is None and exp.max_misreported is None
    assert exp.max_total_tokens == int(exp.measured.total_tokens * 1.35)


def test_propose_without_a_judge_gates_the_mechanical_results_only() -> None:
    tasks = [
        TaskResult(id="02-bugfix", check="mechanical", passed=False, steps=1,
                   input_tokens=200, output_tokens=512, wall_seconds=50.0),
        TaskResult(id="21-qa", check="stated", steps=1, input_tokens=150, output_tokens=512,
                   wall_seconds=55.0, why="awaiting judge"),
    ]  # fmt: skip
    card = Scorecard(
        suite="core", model="local", harness="builtin", run_timeout_s=1800, tasks=tasks,
        task_ids=["02-bugfix", "21-qa"],
    )  # fmt: skip
    exp = propose([card])
    assert exp.judge_model is None and exp.min_quality is None and exp.max_misreported is None
    assert exp.max_total_tokens == int(1374 * 1.35) and exp.max_wall_seconds == 158


def test_gate_finds_the_committed_local_expectations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A replay run recorded as `--model local`: the default lookup must find the file.
    replay = tmp_path / "r.json"
    replay.write_text(json.dumps({}))
    argv = [
        "tasks", "run", "--suite", "core", "--tasks", "21-qa", "--harness", "replay",
        "--replay", str(replay),
        "--model", "local", "--no-judge", "--out", str(tmp_path / "run"),
        "--work-root", str(tmp_path / "w"),
    ]  # fmt: skip
    assert main(argv) == 0
    capsys.readouterr()
    rc = main(["tasks", "gate", str(tmp_path / "run"), "--enforce"])
    out = capsys.readouterr().out
    assert "not gated yet" not in out
    assert str(default_expectations("local", "core")) in out
    # Gated for real: the verdict and the exit code agree (--enforce: 1 on a miss).
    said = "PASSED" if rc == 0 else "FAILED"
    assert rc in (0, 1) and f"gate {said} against" in out
