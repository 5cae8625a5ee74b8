"""End to end: the runner with the builtin harness against a scripted OpenAI-compatible
server on 127.0.0.1, the replay and command harnesses, the cap, isolation and guardrails."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from tasks_fakes import FakeLLM, closed_port_url, serve

from gaia_eval.cli.main import main
from gaia_eval.llm.spec import parse_model_spec
from gaia_eval.tasks.definitions import load_tasks
from gaia_eval.tasks.harnesses.builtin import BuiltinHarness
from gaia_eval.tasks.harnesses.command import CommandHarness
from gaia_eval.tasks.harnesses.replay import ReplayHarness
from gaia_eval.tasks.models import Scorecard, Transcript
from gaia_eval.tasks.runner import RunConfig, load_scorecard, run_one

TASKS = load_tasks()

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


def _cfg(tmp_path: Path, harness: Any, tasks: list[str], **kw: Any) -> RunConfig:
    return RunConfig(
        suite="core",
        tasks=[TASKS.tasks[t] for t in tasks],
        harness=harness,
        model=kw.pop("model", "replay"),
        out=tmp_path / "run",
        work_root=tmp_path / "work",
        tests_timeout_s=60,
        **kw,
    )


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
        card = run_one(
            _cfg(tmp_path, BuiltinHarness(spec), ["02-bugfix"], model=spec.text),
            tmp_path / "run",
            1,
        )
    (res,) = card.tasks
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
    assert "1 passed" not in json.dumps(fake.requests[3]["messages"][-1]) or True
    assert "4 passed" in fake.requests[3]["messages"][-1]["content"]
    tr = _transcript(tmp_path / "run", "02-bugfix")
    assert tr.outcome.answer == "Fixed parse_updated; 4 tests pass."
    diff = (tmp_path / "run" / "02-bugfix" / "workspace.diff").read_text()
    assert "+    if text[-1:] in" in diff
    on_disk = load_scorecard(tmp_path / "run")
    assert on_disk.tasks[0].passed is True and on_disk.task_ids == ["02-bugfix"]
    assert (tmp_path / "run" / "summary.md").read_text().count("PASS") == 1
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
        card = run_one(
            _cfg(tmp_path, BuiltinHarness(spec), ["02-bugfix"], model=spec.text),
            tmp_path / "run",
            1,
        )
    (res,) = card.tasks
    assert res.passed is False and not res.verified
    assert res.why.startswith("probe:") and "ValueError" in res.why
    assert res.error is None


def test_unreachable_backend_is_unmeasured_and_scorecard_written(tmp_path: Path) -> None:
    spec = parse_model_spec(f"openai:{closed_port_url()}/v1#m")
    harness = BuiltinHarness(spec, retries=1, backoff_s=0)
    card = run_one(
        _cfg(tmp_path, harness, ["02-bugfix", "21-qa"], model=spec.text), tmp_path / "run", 1
    )
    assert [t.error_kind for t in card.tasks] == ["unavailable", "unavailable"]
    assert [t.passed for t in card.tasks] == [None, None]
    assert all("not measured" in t.why for t in card.tasks)
    assert all(not t.checks for t in card.tasks)
    assert "**Not measured: 2**" in (tmp_path / "run" / "summary.md").read_text()


def test_backend_outage_status_is_unmeasured_but_bad_request_is_failure(tmp_path: Path) -> None:
    quota = {"status": 400, "body": {"error": {"message": "Your credit balance is too low"}}}
    bad = {"status": 400, "body": {"error": {"message": "tools: unsupported parameter"}}}
    with serve(FakeLLM([quota, bad])) as url:
        spec = parse_model_spec(f"openai:{url}#m")
        harness = BuiltinHarness(spec, retries=1, backoff_s=0)
        card = run_one(
            _cfg(tmp_path, harness, ["21-qa", "b5-hang"], model=spec.text), tmp_path / "run", 1
        )
    assert [t.error_kind for t in card.tasks] == ["unavailable", "failed"]
    assert card.tasks[1].passed is None and "rejected the request" in (card.tasks[1].error or "")


def test_cli_run_with_unreachable_model_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = main(
        [
            "tasks", "run", "--tasks", "21-qa", "--no-judge",
            "--model", f"openai:{closed_port_url()}#m",
            "--out", str(tmp_path / "run"), "--work-root", str(tmp_path / "w"),
        ]
    )  # fmt: skip
    assert rc == 3
    card = load_scorecard(tmp_path / "run")
    assert card.tasks[0].error_kind == "unavailable" and card.suite == "core"
    assert "not measured 1" in capsys.readouterr().out


def test_wall_clock_cap_kills_and_keeps_the_record(tmp_path: Path) -> None:
    script = [
        {"tool": "read_file", "args": {"path": "README.md"}},
        {"tool": "run_shell", "args": {"command": "sleep 60 & echo started"}},
        {"sleep": 60},
    ]
    cfg = _cfg(tmp_path, ReplayHarness({"21-qa": script}), ["21-qa"], run_timeout_s=3)
    t0 = time.monotonic()
    card = run_one(cfg, tmp_path / "run", 1)
    assert time.monotonic() - t0 < 30
    (res,) = card.tasks
    assert res.timed_out and res.tool_calls == 2 and "wall-clock cap" in (res.error or "")
    tr = _transcript(tmp_path / "run", "21-qa")
    assert [c.name for c in tr.outcome.tool_calls] == ["read_file", "run_shell"]


def test_command_harness_tree_killed_at_cap(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    template = f"bash -c 'sleep 300 & echo $! > {pidfile}; wait' {{prompt}}"
    cfg = _cfg(tmp_path, CommandHarness(template), ["21-qa"], run_timeout_s=2)
    card = run_one(cfg, tmp_path / "run", 1)
    assert card.tasks[0].timed_out
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
    card = run_one(_cfg(tmp_path, CommandHarness(template), ["21-qa"]), tmp_path / "run", 1)
    answer = _transcript(tmp_path / "run", "21-qa").outcome.answer
    assert "HARMLESS_SETTING" in answer and "You are working in" in answer
    for name in ("MY_SERVICE_API_KEY", "GITHUB_TOKEN", "ANTHROPIC_BASE_URL"):
        assert name not in answer
    assert card.tasks[0].passed is None and card.tasks[0].why == "awaiting judge"


def test_path_boundary_and_guardrails(tmp_path: Path) -> None:
    script = [
        {"tool": "read_file", "args": {"path": "../.baseline/toybox/dates.py"}},
        {"tool": "run_shell", "args": {"command": "pip install requests"}},
        {"tool": "run_shell", "args": {"command": "cat ../.baseline/README.md"}},
        {"tool": "run_shell", "args": {"command": "echo ok > note.txt && cat note.txt"}},
        {"answer": "done"},
    ]
    run_one(_cfg(tmp_path, ReplayHarness({"21-qa": script}), ["21-qa"]), tmp_path / "run", 1)
    calls = _transcript(tmp_path / "run", "21-qa").outcome.tool_calls
    assert [c.is_error for c in calls] == [True, True, True, False]
    assert "path boundary" in calls[0].result and "package installs" in calls[1].result
    assert "outside the project" in calls[2].result and "ok" in calls[3].result
    # --full-access lifts both.
    run_one(
        _cfg(
            tmp_path,
            ReplayHarness({"21-qa": script[:1]}, full_access=True),
            ["21-qa"],
            full_access=True,
        ),
        tmp_path / "run2",
        1,
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
    card = run_one(
        _cfg(tmp_path, ReplayHarness({"02-bugfix": script}), ["02-bugfix"]), tmp_path / "run", 1
    )
    (res,) = card.tasks
    assert res.after_answer == ["#5 read_file path=build_times.csv"]
    assert res.passed is False and res.why.startswith("kept working after its answer")
    assert res.verified  # the pytest after the last edit still counts


def test_repeats_write_r_folders(tmp_path: Path) -> None:
    from gaia_eval.tasks.runner import run_folders, run_suite

    cfg = _cfg(tmp_path, ReplayHarness({}), ["21-qa"], repeats=2)
    dirs = run_suite(cfg)
    assert dirs == [tmp_path / "run" / "r1", tmp_path / "run" / "r2"]
    assert run_folders([tmp_path / "run"]) == dirs
    assert [load_scorecard(d).repeat for d in dirs] == [1, 2]


def test_missing_settings_name_flag_and_variable(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GAIA_EVAL_JUDGE_MODEL", raising=False)
    monkeypatch.delenv("GAIA_EVAL_OPENAI_BASE_URL", raising=False)
    assert main(["tasks", "run", "--model", "openai:http://127.0.0.1:9#m"]) == 2
    assert "--judge-model" in capsys.readouterr().err and "GAIA_EVAL_JUDGE_MODEL"
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
    card: Scorecard = load_scorecard(tmp_path / "out")
    assert (card.harness, card.run_timeout_s, card.tasks[0].id) == ("replay", 77.0, "21-qa")
    assert os.listdir(tmp_path / "w") == []


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
    card = load_scorecard(tmp_path / "run")
    results = {t.id: (t.passed, t.verified) for t in card.tasks}
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
        run_one(
            # Full access: the guardrails would refuse /proc; the key must be absent anyway.
            _cfg(tmp_path, BuiltinHarness(spec, full_access=True), ["21-qa"], model=spec.text),
            tmp_path / "run",
            1,
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
        run_one(cfg, tmp_path / "run", 1)
    card = load_scorecard(tmp_path / "run")
    assert [t.id for t in card.tasks] == ["21-qa"]
    assert card.task_ids == ["21-qa", "02-bugfix"]
    assert not list((tmp_path / "work").iterdir())


def test_run_refuses_a_toolchain_without_pytest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    from gaia_eval.core.errors import InfrastructureError
    from gaia_eval.tasks.runner import run_suite

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pytest" else real(name, *a)
    )
    with pytest.raises(InfrastructureError, match="no pytest"):
        run_suite(_cfg(tmp_path, ReplayHarness({}), ["21-qa"]))
    assert not (tmp_path / "run").exists()


def test_fence_hides_answer_keys_results_and_baseline(tmp_path: Path) -> None:
    from gaia_eval.tasks.definitions import data_dir
    from gaia_eval.tasks.isolation import fence_available

    if not fence_available():
        pytest.skip("bubblewrap cannot create a sandbox on this machine")
    probe = (
        f"ls {data_dir()} | wc -l; cat ../.baseline/README.md 2>/dev/null | wc -l; "
        f"ls {tmp_path / 'run'} | wc -l; echo written > note.txt; cat note.txt"
    )
    script = [{"tool": "run_shell", "args": {"command": probe}}, {"answer": "x"}]
    results = {}
    for fence in (False, True):
        out = tmp_path / "run"
        cfg = _cfg(
            tmp_path, ReplayHarness({"21-qa": script}, full_access=True), ["21-qa"], fence=fence
        )
        card = run_one(cfg, out / str(fence), 1)
        assert card.fenced is fence
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
    run_one(_cfg(tmp_path, ReplayHarness({"21-qa": script}), ["21-qa"]), tmp_path / "run", 1)
    for name in ("transcript.json", "workspace.diff"):
        text = (tmp_path / "run" / "21-qa" / name).read_text()
        assert secret not in text and "[REDACTED:sk]" in text, name
