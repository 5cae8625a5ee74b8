"""`tasks run` through the model gateway: the builtin agent and a stand-in `claude` CLI
(a script speaking the Messages API the way Claude Code does) against scripted servers on
127.0.0.1, and the real `local` model; the counts land in each task's gateway_tokens."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from tasks_fakes import FakeLLM, serve
from tasks_run_helpers import card, envelope

from gaia_eval.agents.harnesses.claude_code import GATEWAY_PLACEHOLDER_KEY
from gaia_eval.cli.main import main

KEY = "sk-configured-upstream-key-0123456789"

# What Claude Code does on a custom base URL, reduced: one Messages call with its key and
# a per-turn system-role entry inside `messages`, then its stream-json result on stdout.
FAKE_CLAUDE = r"""#!{python}
import json, os, sys, urllib.request
argv = sys.argv[1:]
base = os.environ["ANTHROPIC_BASE_URL"]
body = {{"model": argv[argv.index("--model") + 1], "max_tokens": 8, "messages": [
    {{"role": "user", "content": argv[argv.index("-p") + 1][:200]}},
    {{"role": "system", "content": "<env>cwd: " + os.getcwd() + "</env>"}},
]}}
req = urllib.request.Request(base + "/v1/messages", data=json.dumps(body).encode(),
    headers={{"content-type": "application/json", "x-api-key": os.environ["ANTHROPIC_API_KEY"]}})
reply = json.loads(urllib.request.urlopen(req, timeout=120).read())
text = "".join(b.get("text", "") for b in reply["content"])
leaked = [k for k in os.environ if "KEY" in k and k != "ANTHROPIC_API_KEY"]
block = {{"type": "text", "text": text}}
print(json.dumps({{"type": "assistant", "message": {{"content": [block]}}}}))
print(json.dumps({{"type": "result", "result": text or "done", "num_turns": 1,
    "usage": {{"input_tokens": 0, "output_tokens": 0}}, "total_cost_usd": 0.5,
    "leaked": leaked}}))
"""


def _fake_claude(tmp_path: Path) -> Path:
    path = tmp_path / "claude"
    path.write_text(FAKE_CLAUDE.format(python=sys.executable))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_builtin_run_goes_through_the_gateway(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GAIA_EVAL_OPENAI_API_KEY", KEY)
    fake = FakeLLM([{"content": "The answer."}])
    with serve(fake) as url:
        rc = main(
            [
                "tasks", "run", "--tasks", "21-qa", "--no-judge", "--price", "1,2",
                "--model", f"openai:{url}/v1#m",
                "--out", str(tmp_path / "run"), "--work-root", str(tmp_path / "w"),
            ]
        )  # fmt: skip
    assert rc == 0
    (res,) = card(envelope(tmp_path / "run")).tasks
    assert fake.paths == ["/v1/chat/completions"]
    assert fake.headers[0]["authorization"] == f"Bearer {KEY}"  # added by the gateway
    assert res.gateway_tokens == {
        "calls": 1, "input": 100, "cached": 0, "output": 20, "no_usage": 0, "unreachable": 0,
    }  # fmt: skip
    assert (res.input_tokens, res.output_tokens) == (100, 20)
    assert res.cost_source == "harness_counts" and res.cost_usd == pytest.approx(140e-6)
    report = (tmp_path / "run" / "report.md").read_text()
    assert "$0.0001 (harness counts)" in report and "priced at --price 1,2" in report


def test_claude_code_on_an_open_model_uses_the_gateway_and_its_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GAIA_EVAL_OPENAI_API_KEY", KEY)
    monkeypatch.setenv("GAIA_EVAL_CLAUDE_BIN", str(_fake_claude(tmp_path)))
    fake = FakeLLM([{"content": "Answer from the open model."}])
    with serve(fake) as url:
        rc = main(
            [
                "tasks", "run", "--tasks", "21-qa", "--no-judge", "--harness", "claude-code",
                "--model", f"openai:{url}/v1#glm", "--price", "1,2",
                "--out", str(tmp_path / "run"), "--work-root", str(tmp_path / "w"),
            ]
        )  # fmt: skip
    assert rc == 0
    (res,) = card(envelope(tmp_path / "run")).tasks
    assert fake.paths == ["/v1/messages"]
    headers = fake.headers[0]
    # The CLI's placeholder key never reaches the upstream; the configured key does.
    assert GATEWAY_PLACEHOLDER_KEY not in json.dumps(headers) and "x-api-key" not in headers
    assert headers["authorization"] == f"Bearer {KEY}"
    # The CLI's per-turn context, a system-role entry, arrives as a user entry in place.
    assert [m["role"] for m in fake.requests[0]["messages"]] == ["user", "user"]
    assert fake.requests[0]["model"] == "glm"
    # Its own counts were zero: the gateway's (the server's usage) are the record, priced
    # as harness counts; Claude Code's own $0.50 is an Anthropic list price, not used.
    assert res.gateway_tokens is not None and res.gateway_tokens["calls"] == 1
    assert (res.input_tokens, res.output_tokens) == (1000, 200)
    assert res.cost_source == "harness_counts" and res.cost_usd == pytest.approx(1400e-6)
    assert res.reported_cost_usd == 0.5
    transcript = json.loads((tmp_path / "run" / "21-qa" / "transcript.json").read_text())
    (final,) = [json.loads(x) for x in transcript["stdout_tail"].splitlines() if '"result"' in x]
    assert final["leaked"] == []  # no other key-named variable reached the CLI


def test_claude_code_reply_without_usage_reads_na_never_zero(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GAIA_EVAL_CLAUDE_BIN", str(_fake_claude(tmp_path)))
    bare = {"type": "message", "content": [{"type": "text", "text": "hi"}]}  # no usage
    with serve(FakeLLM([{"status": 200, "body": bare}])) as url:
        rc = main(
            [
                "tasks", "run", "--tasks", "21-qa", "--no-judge", "--harness", "claude-code",
                "--model", f"openai:{url}/v1#glm", "--price", "1,2",
                "--out", str(tmp_path / "run"), "--work-root", str(tmp_path / "w"),
            ]
        )  # fmt: skip
    assert rc == 0
    (res,) = card(envelope(tmp_path / "run")).tasks
    assert res.gateway_tokens is not None and res.gateway_tokens["no_usage"] == 1
    assert res.cost_usd is None  # counted nothing: unknown, not $0.00
    row = next(ln for ln in (tmp_path / "run" / "report.md").read_text().splitlines()
               if ln.startswith("| `21-qa`"))  # fmt: skip
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert (cells[6], cells[8]) == ("n/a", "n/a")  # tokens and cost: unknown, never 0


def test_claude_code_without_the_cli_is_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GAIA_EVAL_CLAUDE_BIN", str(tmp_path / "no-claude-here"))
    rc = main(
        [
            "tasks", "run", "--suite", "everyday", "--harness", "claude-code",
            "--model", "local", "--no-judge", "--out", str(tmp_path / "run"),
        ]
    )  # fmt: skip
    assert rc == 2
    err = capsys.readouterr().err
    assert "the claude CLI" in err and "--harness claude-code" in err
    assert "GAIA_EVAL_CLAUDE_BIN" in err
    assert not (tmp_path / "run").exists()


def test_claude_code_on_the_real_local_model(
    local_model: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GAIA_EVAL_CLAUDE_BIN", str(_fake_claude(tmp_path)))
    rc = main(
        [
            "tasks", "run", "--tasks", "21-qa", "--no-judge", "--harness", "claude-code",
            "--model", "local", "--out", str(tmp_path / "run"), "--work-root", str(tmp_path / "w"),
        ]
    )  # fmt: skip
    assert rc == 0
    env = envelope(tmp_path / "run")
    (res,) = card(env).tasks
    # llama.cpp's /v1/messages answered through the gateway with its own usage.
    assert res.error is None and res.gateway_tokens is not None
    assert res.gateway_tokens["calls"] == 1 and res.gateway_tokens["no_usage"] == 0
    assert res.input_tokens > 0 and 0 < res.output_tokens <= 8
    assert res.cost_usd is None  # no rate card prices the local model: n/a, never $0
    assert os.environ.get("ANTHROPIC_BASE_URL") is None
