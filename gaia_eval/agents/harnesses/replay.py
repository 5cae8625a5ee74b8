"""`replay`: a scripted tool sequence run through the built-in agent's own tools. Used by
the controls and the tests; no model involved.

A script is a list of steps: {"tool": name, "args": {...}}, {"answer": text},
{"sleep": seconds} or {"error": message, "kind": "unavailable"|"failed"}; a leading
{"ack": text} answers the earlier turns of a conversation (`launch_turns`).
A scripts file maps task id -> script (a task with no script answers nothing).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from gaia_eval.agents.harnesses.base import LaunchPlan
from gaia_eval.agents.harnesses.record import read_outcome
from gaia_eval.agents.models import AgentOutcome


class ReplayHarness:
    name = "replay"

    def __init__(self, scripts: dict[str, list[dict[str, Any]]], full_access: bool = False) -> None:
        self.scripts = scripts
        self.full_access = full_access

    def launch(
        self, task_id: str, prompt: str, workdir: Path, run_dir: Path, max_steps: int
    ) -> LaunchPlan:
        return self.launch_turns(task_id, [prompt], workdir, run_dir, max_steps)

    def launch_turns(
        self, task_id: str, turns: list[str], workdir: Path, run_dir: Path, max_steps: int
    ) -> LaunchPlan:
        """Earlier turns are recorded as `turn` events, acknowledged with the script's
        leading {"ack": text} step (default "Understood."); `turns[-1]` is the task."""
        spec = {
            "mode": "replay",
            "workdir": str(workdir),
            "prelude": turns[:-1],
            "prompt": turns[-1],
            "max_steps": max_steps,
            "full_access": self.full_access,
            "script": self.scripts.get(task_id, []),
        }
        argv = [sys.executable, "-m", "gaia_eval.agents.harnesses.child", str(run_dir)]
        return LaunchPlan(argv, json.dumps(spec).encode("utf-8"))

    def collect(self, run_dir: Path, stdout: Path, stderr: Path) -> AgentOutcome:
        return read_outcome(run_dir)
