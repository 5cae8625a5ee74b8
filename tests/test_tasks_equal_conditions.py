"""Equal conditions: every harness (replay on the builtin tools, command, claude-code)
runs the same task with the same toolchain first on PATH, the same offline gh, the same
environment scrubbing and the same wall-clock cap, and a run cut off at the cap keeps the
record of what it did. Each harness runs one probe script that writes what it sees."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tasks_run_helpers import config, run

from gaia_eval.agents.harnesses.claude_code import ClaudeCodeHarness
from gaia_eval.agents.harnesses.command import CommandHarness
from gaia_eval.agents.harnesses.replay import ReplayHarness
from gaia_eval.tasks.models import TaskResult

CAP_S = 4.0

PROBE = """#!/bin/sh
# What this agent sees, then wait past the cap.
{
  echo "PATH0=$(echo "$PATH" | cut -d: -f1 | sed 's#.*/\\(gh/bin\\)$#\\1#')"
  echo "PATH1=$(echo "$PATH" | cut -d: -f2)"
  echo "python=$(command -v python)"
  echo "gh=$(command -v gh | sed 's#.*/\\(gh/bin/gh\\)$#\\1#')"
  echo "gh-write=$(gh issue close 1 2>&1 | head -1)"
  echo "secret=${SOME_API_KEY:-absent}"
} > "$1"
"""

FAKE_CLAUDE = r"""#!{python}
import json, subprocess, sys, time
def emit(ev):
    print(json.dumps(ev), flush=True)
emit({{"type": "system", "subtype": "init"}})
subprocess.run(["sh", {probe!r}, {seen!r}], check=True)
emit({{"type": "assistant", "message": {{"content": [
    {{"type": "tool_use", "id": "t1", "name": "Bash", "input": {{"command": "sh probe"}}}}]}}}})
emit({{"type": "user", "message": {{"content": [
    {{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}}]}}}})
time.sleep(60)
"""


def _seen(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


def test_every_harness_gets_the_same_conditions_and_keeps_its_record_at_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOME_API_KEY", "sk-" + "q" * 30)  # dropped for every agent
    probe = tmp_path / "probe.sh"
    probe.write_text(PROBE)
    seen = {name: tmp_path / f"seen-{name}.txt" for name in ("replay", "command", "claude-code")}
    fake = tmp_path / "claude"
    fake.write_text(
        FAKE_CLAUDE.format(python=sys.executable, probe=str(probe), seen=str(seen["claude-code"]))
    )
    fake.chmod(0o755)
    harnesses = {
        "replay": ReplayHarness(
            {
                "21-qa": [
                    {"tool": "run_shell", "args": {"command": f"sh {probe} {seen['replay']}"}},
                    {"sleep": 60},
                ]
            },
            full_access=True,
        ),
        "command": CommandHarness(f"sh -c 'sh {probe} {seen['command']}; sleep 60' {{prompt}}"),
        "claude-code": ClaudeCodeHarness("m", executable=str(fake)),
    }
    results: dict[str, TaskResult] = {}
    for name, harness in harnesses.items():
        cfg = config(tmp_path, harness, ["21-qa"], run_timeout_s=CAP_S)
        env = run(cfg, tmp_path / f"run-{name}")
        (rec,) = env.items
        results[name] = TaskResult.model_validate(rec.result)
        assert env.header.settings["run_timeout_s"] == CAP_S
    views = {name: _seen(path) for name, path in seen.items()}
    first = views["replay"]
    assert first["PATH0"] == "gh/bin" and first["gh"] == "gh/bin/gh"
    assert first["PATH1"] == str(Path(sys.executable).parent)  # the toolchain, second
    assert first["python"] == str(Path(sys.executable).parent / "python")
    assert "403" in first["gh-write"] or "not accessible" in first["gh-write"].lower()
    assert first["secret"] == "absent"
    for name, view in views.items():
        assert view == first, name  # the same conditions, line for line
    for name, res in results.items():
        assert res.timed_out, name
        assert f"{CAP_S:g}s wall-clock cap" in (res.error or ""), name
        assert res.wall_seconds < CAP_S + 20, name
    # The cut-off runs that have a tool record keep it.
    assert results["replay"].tool_calls == 1
    assert results["claude-code"].tool_calls == 1
