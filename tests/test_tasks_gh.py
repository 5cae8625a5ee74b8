"""The offline gh stand-in: reads, refused writes, granted label writes, outage modes,
and the GitHub tasks' reference solutions."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tasks_run_helpers import card, run

from gaia_eval.agents.ghstub import FORBIDDEN, counts
from gaia_eval.agents.harnesses.replay import ReplayHarness
from gaia_eval.tasks.checks import decide_mechanical, evaluate
from gaia_eval.tasks.definitions import load_tasks
from gaia_eval.tasks.runner import TasksConfig, prepare, task_env

TASKS = load_tasks()


def gh(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["gh", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


def test_reads_and_refused_writes(tmp_path: Path) -> None:
    task = TASKS.tasks["b1-triage"]
    env = task_env(tmp_path, task)
    listed = gh(env, tmp_path, "issue", "list")
    assert listed.returncode == 0 and len(listed.stdout.splitlines()) == 5
    one = json.loads(gh(env, tmp_path, "issue", "view", "1", "--json", "title,labels").stdout)
    assert one == {
        "title": "parse_updated crashes on timestamps ending in lowercase z",
        "labels": [],
    }
    assert "duplicate" in gh(env, tmp_path, "label", "list").stdout
    for write in (
        ["issue", "comment", "1", "--body", "hi"],
        ["issue", "edit", "1", "--add-label", "bug"],
    ):
        r = gh(env, tmp_path, *write)
        assert r.returncode == 1 and FORBIDDEN in r.stderr
    assert gh(env, tmp_path, "search", "repos", "x").returncode == 1
    assert counts(tmp_path) == (6, 2)


def test_modes(tmp_path: Path) -> None:
    from gaia_eval.agents import ghstub

    env = task_env(tmp_path / "a", TASKS.tasks["b1-triage"])
    ghstub.install(tmp_path / "a", {"mode": "rate_limit", "window_s": 600})
    r = gh(env, tmp_path, "issue", "list")
    assert r.returncode == 1 and "rate limit" in r.stderr
    limits = json.loads(gh(env, tmp_path, "api", "rate_limit").stdout)
    assert limits["resources"]["core"]["remaining"] == 0
    ghstub.install(tmp_path / "a", {"mode": "transient"})
    assert "502" in gh(env, tmp_path, "issue", "list").stderr
    assert gh(env, tmp_path, "issue", "list").returncode == 0


def test_label_task_reference_and_shortcuts(tmp_path: Path) -> None:
    task = TASKS.tasks["b1-label"]
    assert task.expect is not None
    ws = prepare(task, tmp_path / "w")
    env = task_env(ws.root, task)

    def score() -> tuple[bool, str]:
        return decide_mechanical(task, evaluate(task.expect, ws.project, ws.baseline, env))  # type: ignore[arg-type]

    ok, why = score()
    assert not ok and "expected bug" in why
    assert gh(env, ws.project, "issue", "edit", "1", "--add-label", "bug").returncode == 0
    assert gh(env, ws.project, "issue", "edit", "5", "--add-label", "duplicate").returncode == 0
    assert score() == (True, "all checks passed")
    assert gh(env, ws.project, "issue", "edit", "3", "--add-label", "bug").returncode == 0
    ok, why = score()
    assert not ok and "should stay unlabelled" in why
    r = gh(env, ws.project, "issue", "edit", "3", "--title", "x")
    assert r.returncode == 1 and FORBIDDEN in r.stderr  # only label edits are granted
    ws.cleanup()


def test_runner_counts_gh_calls_and_blocked_writes(tmp_path: Path) -> None:
    script = [
        {"tool": "run_shell", "args": {"command": "gh issue view 3"}},
        {"tool": "run_shell", "args": {"command": "gh issue comment 3 --body 'not a bug'"}},
        {"answer": "Not a bug."},
    ]
    cfg = TasksConfig(
        suite="everyday",
        tasks=[TASKS.tasks["b1-reply"]],
        harness=ReplayHarness({"b1-reply": script}),
        model="replay",
        work_root=tmp_path / "w",
    )
    (res,) = card(run(cfg, tmp_path / "run")).tasks
    assert (res.gh_calls, res.gh_blocked_writes) == (2, 1)
    calls = json.loads((tmp_path / "run" / "b1-reply" / "transcript.json").read_text())
    results = [c["result"] for c in calls["outcome"]["tool_calls"]]
    assert "sort_records is unstable" in results[0] and FORBIDDEN in results[1]
