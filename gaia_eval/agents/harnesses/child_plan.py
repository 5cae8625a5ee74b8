"""What the harnesses whose agent is our own child process (`harnesses.child`: builtin,
replay) share: the child's launch plan (a JSON spec on stdin) and reading its record."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from gaia_eval.agents.harnesses.base import LaunchPlan
from gaia_eval.agents.harnesses.record import read_outcome
from gaia_eval.agents.models import AgentOutcome


class ChildHarness:
    """A conversation harness run by `gaia_eval.agents.harnesses.child`: a one-shot launch
    is a conversation of one turn; the subclass says what its spec adds (`launch_turns`)."""

    name: str
    full_access: bool = False

    def launch(
        self, task_id: str, prompt: str, workdir: Path, run_dir: Path, max_steps: int
    ) -> LaunchPlan:
        return self.launch_turns(task_id, [prompt], workdir, run_dir, max_steps)

    def launch_turns(
        self, task_id: str, turns: list[str], workdir: Path, run_dir: Path, max_steps: int
    ) -> LaunchPlan:
        raise NotImplementedError

    def child_plan(
        self, turns: list[str], workdir: Path, run_dir: Path, max_steps: int, **spec: Any
    ) -> LaunchPlan:
        """The child's argv and its spec: the mode (`name`), the workdir, the earlier turns
        (`prelude`), the task (`turns[-1]`) and the harness's own `spec` fields."""
        whole = {
            "mode": self.name,
            "workdir": str(workdir),
            "prelude": turns[:-1],
            "prompt": turns[-1],
            "max_steps": max_steps,
            "full_access": self.full_access,
            **spec,
        }
        argv = [sys.executable, "-m", "gaia_eval.agents.harnesses.child", str(run_dir)]
        return LaunchPlan(argv, json.dumps(whole).encode("utf-8"))

    def collect(self, run_dir: Path, stdout: Path, stderr: Path) -> AgentOutcome:
        return read_outcome(run_dir)
