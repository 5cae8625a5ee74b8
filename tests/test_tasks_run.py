"""End to end: the tasks suite on the engine with the builtin harness against a scripted
OpenAI-compatible server on 127.0.0.1, the replay and command harnesses, the cap, isolation
and guardrails, outages that stop the run."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from tasks_fakes import FakeLLM, closed_port_url, hang_up, serve
from tasks_run_helpers import card, config, envelope, run

from gaia_eval.agents.harnesses.builtin import BuiltinHarness
from gaia_eval.agents.harnesses.command import CommandHarness
from gaia_eval.agents.harnesses.replay import ReplayHarness
from gaia_eval.agents.models import Transcript
from gaia_eval.cli.main import main
from gaia_eval.core.errors import InfrastructureError
from gaia_eval.llm.spec import parse_model_spec
from gaia_eval.tasks.results import scorecards

OLD = (
    '    if text.endswith("Z"):\n        text = text[:-1]\n'
    '    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S")\n'
)
NEW = (
    '    if text[-1:] in ("Z", "z"):\n        text = text[:-1]\n'
    '    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc)\n'
)
TEST_ADD = (
    "def test_lower_z():\n"
    '    assert parse_updated("2024-03-05 10:20:30z").tzinfo is not None\n\n\n'
    "def test_parse_deleted_with_t_separator():"
)
FIX_CALLS: list[tuple[str, dict[str, Any]]] = [
    (
        "edit_file",
        {
            "path": "toybox/dates.py",
            "old": "import datetime\n",
            "new": "import datetime, timezone\n",
        },
    ),
    ("edit_file", {"path": "toybox/dates.py", "old": OLD, "new": NEW}),
    (
        "edit_file",
        {
            "path": "tests/test_dates.py",
            "old": "def test_parse_deleted_with_t_separator():",
            "new": TEST_ADD,
        },
    ),
]


_cfg = config


def _transcript(run: Path, task: str) -> Transcript:
    return Transcript.model_validate_json((run / task / "transcript.json").read_text())


def test_builtin_correct_sequence_passes_and_is_verified(tmp_path: Path) -> None:
    fake = FakeLLM(
        [
            {"tool_calls": [("read_file", {"path": "toybox/dates.py"})]},
            {"tool_calls": FIX_CALLS},
            {"tool_calls": [("run_pytest", {})]},
            {"content": "Fixed parse_updated; 4 tests pass."},
        ]
    )
    with serve(fake) as url:
        spec = parse_model_spec(f"openai:{url}/v1#fake-model")
        env = run(
            _cfg(tmp_path, BuiltinHarness(spec), ["02-bugfix"], model=spec.text), tmp_path / "run"
        )
    (res,) = card(env).tasks
    assert (res.passed, res.verified, res.why) == (True, True, "all checks passed")
    assert (res.steps, res.tool_calls, res.input_tokens, res.output_tokens) == (4, 5, 400, 80)
    assert res.cost_usd is None and res.cost_source == "harness_counts"  # no rate for fake-model
    assert fake.paths == ["/v1/chat/completions"] * 4
    first = fake.requests[0]
    assert first["model"] == "fake-model" and {t["function"]["name"] for t in first["tools"]} >= {
        "read_file",
        "edit_file",
        "run_pytest",
    }
    assert "You are working in" in first["messages"][1]["content"]
    tool_msgs = [m for m in fake.requests[2]["messages"] if m["role"] == "tool"]
    assert any(m["content"].startswith("edited toybox/dates.py") for m in tool_msgs)
    # The model saw run_pytest's structured verdict and the added test running (3 + 1).
    pytest_msg = fake.requests[3]["messages"][-1]
    assert pytest_msg["role"] == "tool" and pytest_msg["content"].startswith('{"exit_code": 0}')
    assert "4 passed" in pytest_msg["content"]
    tr = _transcript(tmp_path / "run", "02-bugfix")
    assert tr.outcome.answer == "Fixed parse_updated; 4 tests pass."
    assert tr.outcome.tool_calls[-1].name == "run_pytest"
    assert tr.outcome.tool_calls[-1].check_passed is True
    diff = (tmp_path / "run" / "02-bugfix" / "workspace.diff").read_text()
    assert "+    if text[-1:] in" in diff
    on_disk = card(envelope(tmp_path / "run"))
    assert on_disk.tasks[0].passed is True and on_disk.task_ids == ["02-bugfix"]
    assert (tmp_path / "run" / "report.md").read_text().count("| PASS |") == 1
    assert (tmp_path / "run" / "report.html").read_text().startswith("<!DOCTYPE html>")
    assert not list((tmp_path / "work").iterdir())  # workdirs cleaned up


def test_builtin_wrong_sequence_fails(tmp_path: Path) -> None:
    # Edits the test to expect the crash instead of fixing the code, and never re-runs pytest.
    fake = FakeLLM(
        [
            {"tool_calls": [("write_file", {"path": "NOTES.md", "content": "z is unsupported\n"})]},
            {"content": "Documented that lowercase z is unsupported."},
        ]
    )
    with serve(fake) as url:
        spec = parse_model_spec(f"openai:{url}#fake-model")
        env = run(
            _cfg(tmp_path, BuiltinHarness(spec), ["02-bugfix"], model=spec.text), tmp_path / "run"
        )
    (res,) = card(env).tasks
    assert res.passed is False and not res.verified
    assert res.why.startswith("probe:") and "ValueError" in res.why
    assert res.error is None


def test_unreachable_backend_stops_the_run_unmeasured_and_resumable(tmp_path: Path) -> None:
    url = f"{closed_port_url()}/v1"
    spec = parse_model_spec(f"openai:{url}#m")
    harness = BuiltinHarness(spec, retries=1, backoff_s=0)
    cfg = _cfg(tmp_path, harness, ["02-bugfix", "21-qa"], model=spec.text)
    with pytest.raises(InfrastructureError) as info:
        run(cfg, tmp_path / "run", jobs=1)  # serial: the second task never starts
    # After the first outage the run stops: the URL, the cause and the resume command.
    text = str(info.value)
    assert url in text and "unreachable" in text and "ConnectError" in text
    assert f"--resume {tmp_path / 'run'}" in text
    env = envelope(tmp_path / "run")
    assert [(r.id, r.status) for r in env.items] == [("02-bugfix", "infra_error")]
    assert not env.header.complete and env.header.infra_errors == 1
    (res,) = card(env).tasks
    assert res.error_kind == "unavailable" and res.passed is None and not res.checks
    report = (tmp_path / "run" / "report.md").read_text()
    assert "1 task(s) unmeasured" in report and url in report


def test_backend_outage_status_is_unmeasured_but_bad_request_is_failure(tmp_path: Path) -> None:
    bad = {"status": 400, "body": {"error": {"message": "tools: unsupported parameter"}}}
    quota = {"status": 400, "body": {"error": {"message": "Your credit balance is too low"}}}
    with serve(FakeLLM([bad, quota])) as url:
        spec = parse_model_spec(f"openai:{url}#m")
        harness = BuiltinHarness(spec, retries=1, backoff_s=0)
        cfg = _cfg(tmp_path, harness, ["b5-hang", "21-qa"], model=spec.text)
        with pytest.raises(InfrastructureError, match="outage \\(quota"):
            run(cfg, tmp_path / "run", jobs=1)  # the replies are scripted in task order
    first, second = card(envelope(tmp_path / "run")).tasks
    assert first.error_kind == "failed" and first.passed is None
    assert "rejected the request" in (first.error or "")
    assert second.error_kind == "unavailable" and "credit balance" in (second.error or "")


def _two_tasks_on(url: str, tmp_path: Path) -> int:
    return main(
        [
            "tasks", "run", "--tasks", "21-qa,02-bugfix", "--no-judge",
            "--model", f"openai:{url}#m",
            "--out", str(tmp_path / "run"), "--work-root", str(tmp_path / "w"),
            "--jobs", "1",  # serial: the outage stops the run before the second task
        ]
    )  # fmt: skip


def test_cli_run_with_unreachable_model_is_refused_before_the_first_task(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = closed_port_url()
    assert _two_tasks_on(url, tmp_path) == 3
    err = capsys.readouterr().err
    assert f"--model 'openai:{url}#m': nothing answers at {url}" in err
    assert "Connection refused" in err and "nothing was run" in err
    assert not (tmp_path / "run").exists() and not (tmp_path / "w").exists()


def test_cli_run_with_a_backend_that_hangs_up_exits_3_naming_the_cause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with hang_up() as url:
        assert _two_tasks_on(url, tmp_path) == 3
    env = envelope(tmp_path / "run")
    assert [(r.id, r.status) for r in env.items] == [("21-qa", "infra_error")]
    assert env.header.tier == "core"
    out, err = capsys.readouterr()
    # stdout: what was measured, the cause (the URL) and the resume command (the engine
    # prints these for every suite); stderr: the error with the same command.
    assert "1 unmeasured" in out and "21-qa: the model backend was unavailable" in out
    assert url in out
    assert "report.md" in out
    assert "stopped at the first outage: " in out
    for stream in (out, err):
        assert "gaia-eval tasks run --suite core --tasks 21-qa,02-bugfix" in stream
        assert f"--resume {tmp_path / 'run'}" in stream


def test_wall_clock_cap_kills_and_keeps_the_record(tmp_path: Path) -> None:
    script = [
        {"tool": "read_file", "args": {"path": "README.md"}},
        {"tool": "run_shell", "args": {"command": "sleep 60 & echo started"}},
        {"sleep": 60},
    ]
    cfg = _cfg(tmp_path, ReplayHarness({"21-qa": script}), ["21-qa"], run_timeout_s=3)
    t0 = time.monotonic()
    env = run(cfg, tmp_path / "run")
    assert time.monotonic() - t0 < 30
    (res,) = card(env).tasks
    assert res.timed_out and res.tool_calls == 2 and "wall-clock cap" in (res.error or "")
    tr = _transcript(tmp_path / "run", "21-qa")
    assert [c.name for c in tr.outcome.tool_calls] == ["read_file", "run_shell"]


def test_command_harness_tree_killed_at_cap(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    template = f"bash -c 'sleep 300 & echo $! > {pidfile}; wait' {{prompt}}"
    cfg = _cfg(tmp_path, CommandHarness(template), ["21-qa"], run_timeout_s=2)
    env = run(cfg, tmp_path / "run")
    assert card(env).tasks[0].timed_out
    pid = int(pidfile.read_text())
    time.sleep(0.2)
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except FileNotFoundError:
        state = "gone"
    assert state in ("gone", "Z", "X")


def test_command_harness_answer_and_clean_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_SERVICE_API_KEY", "not-for-agents")
    monkeypatch.setenv("GITHUB_TOKEN", "nope")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
    monkeypatch.setenv("HARMLESS_SETTING", "visible")
    template = (
        "python -c 'import os,sys; print(sorted(os.environ)); print(sys.argv[1][:40])' {prompt}"
    )
    env = run(_cfg(tmp_path, CommandHarness(template), ["21-qa"]), tmp_path / "run")
    answer = _transcript(tmp_path / "run", "21-qa").outcome.answer
    assert "HARMLESS_SETTING" in answer and "You are working in" in answer
    for name in ("MY_SERVICE_API_KEY", "GITHUB_TOKEN", "ANTHROPIC_BASE_URL"):
        assert name not in answer
    (res,) = card(env).tasks
    assert res.passed is None and res.why == "awaiting judge"


def test_path_boundary_and_guardrails(tmp_path: Path) -> None:
    script = [
        {"tool": "read_file", "args": {"path": "../.baseline/toybox/dates.py"}},
        {"tool": "run_shell", "args": {"command": "pip install requests"}},
        {"tool": "run_shell", "args": {"command": "cat ../.baseline/README.md"}},
        {"tool": "run_shell", "args": {"command": "echo ok > note.txt && cat note.txt"}},
        {"answer": "done"},
    ]
    run(_cfg(tmp_path, ReplayHarness({"21-qa": script}), ["21-qa"]), tmp_path / "run")
    calls = _transcript(tmp_path / "run", "21-qa").outcome.tool_calls
    assert [c.is_error for c in calls] == [True, True, True, False]
    assert "path boundary" in calls[0].result and "package installs" in calls[1].result
    assert "outside the project" in calls[2].result and "ok" in calls[3].result
    # --full-access lifts both.
    run(
        _cfg(
            tmp_path,
            ReplayHarness({"21-qa": script[:1]}, full_access=True),
            ["21-qa"],
            full_access=True,
        ),
        tmp_path / "run2",
    )
    calls = _transcript(tmp_path / "run2", "21-qa").outcome.tool_calls
    assert not calls[0].is_error and "parse_updated" in calls[0].result


def test_after_answer_rule_fails_the_task(tmp_path: Path) -> None:
    fix = [{"tool": name, "args": args} for name, args in FIX_CALLS]
    script = [
        *fix,
        {"answer": "Fixed."},
        {"tool": "run_pytest", "args": {}},  # a test run after the answer is fine
        {"tool": "read_file", "args": {"path": "toybox/dates.py"}},  # touched before: fine
        {"tool": "read_file", "args": {"path": "build_times.csv"}},  # never touched: listed
        {"answer": "Fixed, and I looked around."},
    ]
    env = run(_cfg(tmp_path, ReplayHarness({"02-bugfix": script}), ["02-bugfix"]), tmp_path / "run")
    (res,) = card(env).tasks
    assert res.after_answer == ["#5 read_file path=build_times.csv"]
    assert res.passed is False and res.why.startswith("kept working after its answer")
    assert res.verified  # the pytest after the last edit still counts


def test_repeats_are_items_of_one_run(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path, ReplayHarness({"21-qa": [{"answer": "x"}]}), ["21-qa"], repeats=2)
    env = run(cfg, tmp_path / "run")
    assert [r.id for r in env.items] == ["21-qa", "21-qa#r2"]
    assert (tmp_path / "run" / "21-qa" / "transcript.json").is_file()
    assert (tmp_path / "run" / "r2" / "21-qa" / "transcript.json").is_file()
    cards = scorecards(env)
    assert [(c.repeat, c.task_ids, len(c.tasks)) for c in cards] == [
        (1, ["21-qa"], 1),
        (2, ["21-qa"], 1),
    ]
    assert env.header.settings["repeats"] == 2 and env.summary["by_repeat"][1]["tasks"] == 1


def test_missing_settings_name_flag_and_variable(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GAIA_EVAL_JUDGE_MODEL", raising=False)
    monkeypatch.delenv("GAIA_EVAL_OPENAI_BASE_URL", raising=False)
    assert main(["tasks", "run", "--model", "openai:http://127.0.0.1:9#m"]) == 2
    err = capsys.readouterr().err
    assert "--judge-model" in err and "GAIA_EVAL_JUDGE_MODEL" in err
    assert main(["tasks", "run", "--no-judge", "--model", "qwen3"]) == 2
    assert "GAIA_EVAL_OPENAI_BASE_URL" in capsys.readouterr().err
    assert main(["tasks", "run", "--no-judge", "--harness", "replay"]) == 2
    assert "GAIA_EVAL_TASKS_REPLAY" in capsys.readouterr().err
    assert main(["tasks", "run", "--no-judge", "--fence", "--harness", "replay"]) == 2
    assert main(["tasks", "run", "--no-judge", "--model", "m", "--tasks", "nope"]) == 2


def test_env_vars_supply_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps({"21-qa": [{"answer": "x"}]}))
    monkeypatch.setenv("GAIA_EVAL_TASKS_HARNESS", "replay")
    monkeypatch.setenv("GAIA_EVAL_TASKS_REPLAY", str(replay))
    monkeypatch.setenv("GAIA_EVAL_TASKS_RESULTS_DIR", str(tmp_path / "out"))
    monkeypatch.setenv("GAIA_EVAL_TASKS_WORK_ROOT", str(tmp_path / "w"))
    monkeypatch.setenv("GAIA_EVAL_TASKS_RUN_TIMEOUT", "77")
    assert main(["tasks", "run", "--tasks", "21-qa", "--no-judge"]) == 0
    one = card(envelope(tmp_path / "out"))
    assert (one.harness, one.run_timeout_s, one.tasks[0].id) == ("replay", 77.0, "21-qa")
    assert os.listdir(tmp_path / "w") == []
    # The recorded command line holds what came from variables, so a resume needs none.
    argv = envelope(tmp_path / "out").header.run.argv
    assert argv[argv.index("--replay") + 1] == str(replay)
    assert argv[argv.index("--work-root") + 1] == str(tmp_path / "w")
    assert argv[argv.index("--run-timeout") + 1] == "77.0"


@pytest.mark.slow
def test_reference_replays_pass_the_core_suite(tmp_path: Path) -> None:
    """The shipped reference attempts stay in step with the task definitions."""
    rc = main(
        [
            "tasks", "run", "--suite", "core", "--harness", "replay", "--replay", "reference",
            "--no-judge", "--out", str(tmp_path / "run"), "--work-root", str(tmp_path / "w"),
        ]
    )  # fmt: skip
    assert rc == 0
    results = {t.id: (t.passed, t.verified) for t in card(envelope(tmp_path / "run")).tasks}
    assert results == {
        "21-qa": (None, False),
        "02-bugfix": (True, True),
        "b6-weekly-report": (True, False),
        "b6-config-env": (True, True),
        "b5-red-suite": (True, False),  # the suite stays red, so no passing run exists
        "b5-flaky": (True, True),
        "b5-dirty-tree": (True, True),
    }
    assert (tmp_path / "run" / "b5-red-suite" / "setup.diff").exists()
    assert not (tmp_path / "run" / "02-bugfix" / "setup.diff").exists()


def test_model_key_reaches_the_server_but_not_the_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GAIA_EVAL_OPENAI_API_KEY", "local-key-0123456789abcdef")
    fake = FakeLLM(
        [
            {
                "tool_calls": [
                    ("run_shell", {"command": "env; cat /proc/$PPID/environ | tr '\\0' '\\n'"})
                ]
            },
            {"content": "done"},
        ]
    )
    with serve(fake) as url:
        spec = parse_model_spec(f"openai:{url}#m")
        run(
            # Full access: the guardrails would refuse /proc; the key must be absent anyway.
            _cfg(tmp_path, BuiltinHarness(spec, full_access=True), ["21-qa"], model=spec.text),
            tmp_path / "run",
        )
    assert fake.headers[0]["authorization"] == "Bearer local-key-0123456789abcdef"
    shell_output = fake.requests[1]["messages"][-1]["content"]
    assert shell_output.startswith("exit code 0") and "PATH=" in shell_output
    assert "local-key-0123456789abcdef" not in shell_output
    assert "GAIA_EVAL_OPENAI_API_KEY" not in shell_output


class _Crashing(ReplayHarness):
    def launch(self, task_id: str, *args: Any) -> Any:
        if task_id == "02-bugfix":
            raise KeyboardInterrupt
        return super().launch(task_id, *args)


def test_interrupted_run_keeps_finished_tasks(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path, _Crashing({"21-qa": [{"answer": "x"}]}), ["21-qa", "02-bugfix"])
    with pytest.raises(KeyboardInterrupt):
        run(cfg, tmp_path / "run")
    env = envelope(tmp_path / "run")
    assert env.header.interrupted and not env.header.complete
    assert [t.id for t in card(env).tasks] == ["21-qa"]
    assert card(env).task_ids == ["21-qa", "02-bugfix"]
    assert "Interrupted after 1 of 2 tasks" in (tmp_path / "run" / "report.md").read_text()
    assert not list((tmp_path / "work").iterdir())


def test_run_refuses_a_toolchain_without_pytest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pytest" else real(name, *a)
    )
    argv = ["tasks", "run", "--harness", "replay", "--replay", "reference", "--no-judge"]
    assert main([*argv, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "pytest" in err and "'pytest>=8' 'anthropic>=0.30' (the [tasks] extra)" in err
    assert not (tmp_path / "run").exists()  # refused before anything ran


@pytest.mark.usefixtures("sandbox")
def test_fence_hides_answer_keys_results_and_baseline(tmp_path: Path) -> None:
    from gaia_eval.tasks.definitions import data_dir

    probe = (
        f"ls {data_dir()} | wc -l; cat ../.baseline/README.md 2>/dev/null | wc -l; "
        # The first (unfenced) run's folder: the fenced run hides its contents.
        f"ls {tmp_path / 'run' / 'False'} 2>/dev/null | wc -l; echo written > note.txt; "
        "cat note.txt"
    )
    script = [{"tool": "run_shell", "args": {"command": probe}}, {"answer": "x"}]
    results = {}
    for fence in (False, True):
        out = tmp_path / "run"
        cfg = _cfg(
            tmp_path, ReplayHarness({"21-qa": script}, full_access=True), ["21-qa"], fence=fence
        )
        env = run(cfg, out / str(fence))
        assert card(env).fenced is fence
        (call,) = _transcript(out / str(fence), "21-qa").outcome.tool_calls
        results[fence] = call.result.split("\n")[1:5]
    data_files, baseline_lines, _, written = results[False]
    assert int(data_files) >= 3 and int(baseline_lines) > 5 and written == "written"
    assert results[True] == ["0", "0", "0", "written"]


def test_artifacts_are_scrubbed(tmp_path: Path) -> None:
    secret = "sk-" + "Z9" * 12  # an OpenAI-shaped key the agent prints and writes
    script = [
        {"tool": "write_file", "args": {"path": "notes.txt", "content": f"key={secret}\n"}},
        {"tool": "run_shell", "args": {"command": "cat notes.txt"}},
        {"answer": f"I found {secret}"},
    ]
    run(_cfg(tmp_path, ReplayHarness({"21-qa": script}), ["21-qa"]), tmp_path / "run")
    folder = tmp_path / "run"
    for path in (folder / "results.json", folder / "items.jsonl", folder / "report.md"):
        assert secret not in path.read_text(), path
    for name in ("transcript.json", "workspace.diff"):
        text = (folder / "21-qa" / name).read_text()
        assert secret not in text and "[REDACTED:sk]" in text, name


def _by_step(body: dict[str, Any]) -> dict[str, Any]:
    """The correct sequence, by how far this conversation is (any order of tasks)."""
    steps = [
        {"tool_calls": [("read_file", {"path": "toybox/dates.py"})]},
        {"tool_calls": FIX_CALLS},
        {"tool_calls": [("run_pytest", {})]},
        {"content": "Fixed parse_updated; 4 tests pass."},
    ]
    done = sum(1 for m in body["messages"] if m["role"] == "assistant")
    return steps[min(done, len(steps) - 1)]


def test_jobs_4_equals_jobs_1_task_for_task(tmp_path: Path) -> None:
    import re

    fake = FakeLLM(answer=_by_step)
    envs = {}
    with serve(fake) as url:
        spec = parse_model_spec(f"openai:{url}/v1#fake-model")
        for jobs in (1, 4):
            cfg = _cfg(
                tmp_path / str(jobs), BuiltinHarness(spec), ["02-bugfix"], model=spec.text,
                repeats=4,
            )  # fmt: skip
            envs[jobs] = run(cfg, tmp_path / f"run{jobs}", jobs=jobs)

    def stable(env: Any) -> list[tuple[str, str, dict[str, Any]]]:
        rows = []
        for rec in env.items:
            res = dict(rec.result or {}, wall_seconds=None)
            res["checks"] = [
                dict(c, detail=re.sub(r" in [\d.]+s", "", c["detail"])) for c in res["checks"]
            ]
            rows.append((rec.id, rec.status, res))
        return rows

    assert stable(envs[4]) == stable(envs[1])
    assert [r.id for r in envs[4].items] == ["02-bugfix", *(f"02-bugfix#r{i}" for i in (2, 3, 4))]
    assert all(r.result and r.result["passed"] for r in envs[4].items)
    assert envs[4].header.concurrency is not None and envs[4].header.concurrency.jobs == 4


def test_an_oversized_tool_argument_is_not_run_kept_or_sent_back(tmp_path: Path) -> None:
    from gaia_eval.agents.harnesses.tools import ARGS_CAP

    big = "x" * (ARGS_CAP * 4)
    step = {"tool_calls": [("write_file", {"path": "NOTES.md", "content": big})]}
    fake = FakeLLM([step, step, {"content": "Done."}])
    with serve(fake) as url:
        spec = parse_model_spec(f"openai:{url}#fake-model")
        env = run(
            _cfg(tmp_path, BuiltinHarness(spec), ["02-bugfix"], model=spec.text), tmp_path / "run"
        )
    (res,) = card(env).tasks
    transcript = next((tmp_path / "run").rglob("transcript.json"))
    assert transcript.stat().st_size < ARGS_CAP  # the argument is in it as a size only
    tr = Transcript.model_validate_json(transcript.read_text())
    first = tr.outcome.tool_calls[0]
    assert first.is_error and first.args == {
        "_truncated_from_chars": len(json.dumps({"path": "NOTES.md", "content": big}))
    }
    assert "over the cap" in first.result
    # the model's own oversized message is not sent back to it on the next step
    assert all(len(json.dumps(r)) < ARGS_CAP for r in fake.requests)
    assert res.passed is False
