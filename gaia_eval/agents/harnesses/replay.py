"""`replay`: a scripted tool sequence run through the built-in agent's own tools. Used by
the controls and the tests; no model involved.

A script is a list of steps: {"tool": name, "args": {...}}, {"answer": text},
{"sleep": seconds} or {"error": message, "kind": "unavailable"|"failed"}; a leading
{"ack": text} answers the earlier turns of a conversation (`launch_turns`).
A scripts file maps task id -> script (a task with no script answers nothing).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gaia_eval.agents.harnesses.base import LaunchPlan
from gaia_eval.agents.harnesses.child_plan import ChildHarness


class ReplayHarness(ChildHarness):
    name = "replay"

    def __init__(self, scripts: dict[str, list[dict[str, Any]]], full_access: bool = False) -> None:
        self.scripts = scripts
        self.full_access = full_access

    def launch_turns(
        self, task_id: str, turns: list[str], workdir: Path, run_dir: Path, max_steps: int
    ) -> LaunchPlan:
        """Earlier turns are recorded as `turn` events, acknowledged with the script's
        leading {"ack": text} step (default "Understood."); `turns[-1]` is the task."""
        script = self.scripts.get(task_id, [])
        return self.child_plan(turns, workdir, run_dir, max_steps, script=script)
