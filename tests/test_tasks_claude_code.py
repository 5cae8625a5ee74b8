# ruff: noqa: E501  (the stand-in CLI script below is kept as one readable block)
"""The claude-code harness, driven against a stand-in `claude` executable that speaks the
real CLI's stream-json and really edits the project."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tasks_run_helpers import card, run

from gaia_eval.agents.harnesses.claude_code import ClaudeCodeHarness, parse_stream
from gaia_eval.tasks.definitions import load_tasks
from gaia_eval.tasks.runner import TasksConfig

FAKE_CLAUDE = r"""#!{python}
import json, subprocess, sys
args = sys.argv[1:]
assert args[0] == "-p" and "--output-format" in args and "stream-json" in args
assert "--dangerously-skip-permissions" in args and "--no-session-persistence" in args
def emit(ev):
    print(json.dumps(ev), flush=True)
emit({{"type": "system", "subtype": "init", "model": args[args.index("--model") + 1]}})
path = "toybox/dates.py"
src = open(path).read()
src = src.replace("from datetime import datetime\n", "from datetime import datetime, timezone\n")
src = src.replace('if text.endswith("Z"):', 'if text[-1:] in ("Z", "z"):')
src = src.replace('return datetime.strptime(text, "%Y-%m-%d %H:%M:%S")\n\n\ndef parse_deleted',
                  'return datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc)\n\n\ndef parse_deleted')
open(path, "w").write(src)
with open("tests/test_dates.py", "a") as fh:
    fh.write("\n\ndef test_lower_z():\n    assert parse_updated('2024-03-05 10:20:30z').hour == 10\n")
emit({{"type": "assistant", "message": {{"content": [
    {{"type": "text", "text": "Fixing."}},
    {{"type": "tool_use", "id": "t1", "name": "Edit", "input": {{"file_path": path}}}}]}}}})
emit({{"type": "user", "message": {{"content": [
    {{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}}]}}}})
out = subprocess.run([sys.executable, "-m", "pytest", "-q", "tests"], capture_output=True, text=True).stdout
emit({{"type": "assistant", "message": {{"content": [
    {{"type": "tool_use", "id": "t2", "name": "Bash", "input": {{"command": "python -m pytest -q tests"}}}}]}}}})
emit({{"type": "user", "message": {{"content": [
    {{"type": "tool_result", "tool_use_id": "t2", "content": [{{"type": "text", "text": out}}]}}]}}}})
emit({{"type": "result", "subtype": "success", "is_error": False, "result": "Fixed; 4 passed.",
      "num_turns": 3, "total_cost_usd": 0.0421,
      "usage": {{"input_tokens": 10, "cache_read_input_tokens": 900, "cache_creation_input_tokens": 90,
                "output_tokens": 120}}}})
"""


def test_claude_code_run_is_read_into_the_common_record(tmp_path: Path) -> None:
    exe = tmp_path / "claude"
    exe.write_text(FAKE_CLAUDE.format(python=sys.executable))
    exe.chmod(0o755)
    task = load_tasks().tasks["02-bugfix"]
    cfg = TasksConfig(
        suite="core",
        tasks=[task],
        harness=ClaudeCodeHarness("claude-opus-test", executable=str(exe)),
        model="claude-code:claude-opus-test",
        work_root=tmp_path / "w",
        tests_timeout_s=60,
    )
    (res,) = card(run(cfg, tmp_path / "run")).tasks
    assert (res.passed, res.verified, res.harness) == (True, True, "claude-code")
    assert (res.steps, res.tool_calls, res.input_tokens, res.cached_tokens) == (3, 2, 1000, 900)
    assert (res.cost_usd, res.cost_source) == (0.0421, "api_equivalent")


def test_cut_off_stream_keeps_its_calls_and_outage_is_unmeasured() -> None:
    tool = {"type": "tool_use", "id": "a", "name": "Read", "input": {"file_path": "x"}}
    stream = json.dumps({"type": "assistant", "message": {"content": [tool]}}) + "\n{torn"
    out = parse_stream(stream)
    assert [c.name for c in out.tool_calls] == ["Read"] and out.first_answer_at is None
    err = {"type": "result", "is_error": True, "result": "API Error: Connection error."}
    out = parse_stream(json.dumps(err))
    assert out.error_kind == "unavailable"
    err["result"] = "Reached max turns"
    assert parse_stream(json.dumps(err)).error_kind == "failed"
