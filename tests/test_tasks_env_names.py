"""The specification's variable names beside today's, `--gateway-url` reusing one gateway,
and the judge's credentials out of the run process until the judge step."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from tasks_fakes import FakeLLM, serve
from tasks_run_helpers import card, envelope

from gaia_eval.agents import gateway as gw
from gaia_eval.agents.harnesses.replay import ReplayHarness
from gaia_eval.cli.main import main


def _replay(tmp_path: Path) -> Path:
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps({"21-qa": [{"answer": "x"}]}))
    return replay


def test_spec_names_supply_settings_and_todays_names_win(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GAIA_BENCH_WORK_ROOT", str(tmp_path / "w"))
    monkeypatch.setenv("GAIA_BENCH_RUN_TIMEOUT", "66")
    monkeypatch.setenv("GAIA_BENCH_RESULTS_DIR", str(tmp_path / "out"))
    argv = ["tasks", "run", "--tasks", "21-qa", "--no-judge", "--harness", "replay"]
    assert main([*argv, "--replay", str(_replay(tmp_path))]) == 0
    env = envelope(tmp_path / "out")
    assert card(env).run_timeout_s == 66.0
    words = env.header.run.argv
    assert words[words.index("--work-root") + 1] == str(tmp_path / "w")
    assert (tmp_path / "w").is_dir()
    monkeypatch.setenv("GAIA_EVAL_TASKS_RUN_TIMEOUT", "55")  # today's name wins
    monkeypatch.setenv("GAIA_EVAL_TASKS_RESULTS_DIR", str(tmp_path / "out2"))
    assert main([*argv, "--replay", str(_replay(tmp_path))]) == 0
    assert card(envelope(tmp_path / "out2")).run_timeout_s == 55.0


def test_bad_spec_variable_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GAIA_BENCH_RUN_TIMEOUT", "soon")
    argv = ["tasks", "run", "--no-judge", "--harness", "replay", "--replay"]
    assert main([*argv, str(_replay(tmp_path))]) == 2
    assert "GAIA_BENCH_RUN_TIMEOUT='soon'" in capsys.readouterr().err


def test_gateway_url_from_the_spec_variable_reuses_a_running_gateway(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeLLM([{"content": "one"}])
    with serve(fake) as url, gw.running(gw.Upstream(url, "sk-held-by-the-gateway-0123456789")) as g:
        monkeypatch.setenv("GAIA_BENCH_GATEWAY_URL", g.url)
        rc = main(
            [
                "tasks", "run", "--tasks", "21-qa", "--no-judge", "--model", f"openai:{url}/v1#m",
                "--out", str(tmp_path / "run"), "--work-root", str(tmp_path / "w"),
            ]
        )  # fmt: skip
        calls = list(g.ledger.calls)
    assert rc == 0
    # The calls went through that gateway (its key, its ledger), tagged per task.
    assert fake.headers[0]["authorization"] == "Bearer sk-held-by-the-gateway-0123456789"
    assert len(calls) == 1 and calls[0].tag.endswith("-21-qa")
    (res,) = card(envelope(tmp_path / "run")).tasks
    assert res.gateway_tokens is not None and res.gateway_tokens["calls"] == 1
    words = envelope(tmp_path / "run").header.run.argv
    assert words[words.index("--gateway-url") + 1] == g.url


def test_gateway_url_that_does_not_answer_is_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tasks_fakes import closed_port_url

    rc = main(
        [
            "tasks", "run", "--tasks", "21-qa", "--no-judge", "--model",
            "openai:http://127.0.0.1:9/v1#m", "--gateway-url", closed_port_url(),
            "--out", str(tmp_path / "run"),
        ]
    )  # fmt: skip
    err = capsys.readouterr().err
    # Refused before the run: the gateway is dialled, not the model behind it.
    assert rc == 3 and "--gateway-url http://127.0.0.1:" in err and "nothing answers" in err
    assert "127.0.0.1:9/v1" not in err


def test_judge_credentials_are_out_of_the_run_until_the_judge_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key, token = "sk-ant-judge-key-0123456789abcdef", "oauth-judge-token-0123456789abcdef"
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    monkeypatch.setenv("CLAUDE_CODE_OAUTH_TOKEN", token)
    seen: list[tuple[str | None, str | None]] = []
    launch = ReplayHarness.launch

    def spying(self: ReplayHarness, *args: Any) -> Any:
        # In the run process, as the agent is about to start.
        seen.append(
            (os.environ.get("ANTHROPIC_API_KEY"), os.environ.get("CLAUDE_CODE_OAUTH_TOKEN"))
        )
        return launch(self, *args)

    monkeypatch.setattr(ReplayHarness, "launch", spying)
    grades = {"grades": {"21-qa": {
        "instruction_compliance": 5, "work_quality": 5, "reasoning": 5, "fabrication_free": 5,
        "one_line": "ok", "answers_correctly": True, "missing": "",
    }}}  # fmt: skip
    judge_env = tmp_path / "judge-env.json"
    exe = tmp_path / "claude"
    exe.write_text(
        f"#!{sys.executable}\nimport json, os, sys\nsys.stdin.read()\n"
        f"open({str(judge_env)!r}, 'w').write(json.dumps({{k: os.environ.get(k) for k in "
        "('ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN')}))\n"
        f"print(json.dumps({{'is_error': False, 'result': {json.dumps(json.dumps(grades))}}}))\n"
    )
    exe.chmod(0o755)
    monkeypatch.setenv("GAIA_EVAL_CLAUDE_BIN", str(exe))
    rc = main(
        [
            "tasks", "run", "--tasks", "21-qa", "--harness", "replay",
            "--replay", str(_replay(tmp_path)), "--judge-model", "claude-code:opus-x",
            "--out", str(tmp_path / "run"), "--work-root", str(tmp_path / "w"),
        ]
    )  # fmt: skip
    assert rc == 0
    assert seen == [(None, None)]  # dropped before the agent started
    assert json.loads(judge_env.read_text()) == {
        "ANTHROPIC_API_KEY": key, "CLAUDE_CODE_OAUTH_TOKEN": token,
    }  # fmt: skip
    (res,) = card(envelope(tmp_path / "run")).tasks
    assert res.judge is not None and res.judge.judged()
    # After the run the process has them back (the CLI returns to its caller).
    assert os.environ["ANTHROPIC_API_KEY"] == key
